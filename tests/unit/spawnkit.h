/* SPDX-License-Identifier: MIT */
/* spawnkit: what the tests of spawn.c and target.c (and pathsearch.c's)
 * share: a scratch directory, runs started through spawn_run with their
 * output captured and their end awaited, checks of a run's descriptors and
 * terminal (struct spawn_io) for any target, and a child process in which
 * clone3 is refused, as a container's seccomp profile or an old kernel
 * refuses it. */
#ifndef TFD_TEST_SPAWNKIT_H
#define TFD_TEST_SPAWNKIT_H

#include <stdint.h>
#include <sys/types.h>

#include "spawn.h"

/* A run in tfd's own process: no cgroup, no --join. */
extern const struct spawn_target plain_target;

/* The scratch directory, made by scratch_make("/tmp/NAME.XXXXXX"); exits 1
 * when it cannot be made. */
extern char scratch[64];
void scratch_make(const char *name);

/* TEXT into PATH with MODE (exits 1 on failure); PATH's first LEN - 1
 * bytes as a string ("" when it cannot be read). */
void write_file(const char *path, const char *text, mode_t mode);
void read_file(const char *path, char *buf, size_t len);

struct capture {
	char out[4096];
	char err[1024];
	int status; /* from waitpid */
	pid_t pid;
};

struct redirect {
	int saved_out, saved_err;
	char out_path[96], err_path[96];
};

/* Points our fds 1 and 2 at scratch files, so a run inherits them; no
 * check may print while this is in place. */
void redirect_begin(struct redirect *r);
void redirect_end(struct redirect *r);

/* Starts PATH through spawn_run with output captured and waits for it
 * (ENVP NULL: ours). Returns 0, or -1 (a failed check) when it did not
 * start. */
int run_captured(const struct spawn_target *target, const char *path, char *const argv[],
		 char *const envp[], struct capture *c);
int exited_with(const struct capture *c, int code);
int killed_by(int status, int sig);

/* Sends SIG to the run PID (to its group with GROUP) and reaps it;
 * returns its wait status (-1 for no run). */
int end_run(pid_t pid, int sig, int group);

int64_t now_ns(void);
void pause_ms(int ms);

/* Whether the kernel (or valgrind, which lacks clone3 and pidfd_open)
 * knows system call NR. */
int have_syscall(long nr);

/* A run's output into a pipe, its input from a memfd, sources that are
 * themselves 0..2 and (WITH_TERMINAL) a terminal it leads, each checked
 * for target T; HOW names it in messages. The terminal check reads the
 * run's pid and group from /proc: not for a run whose pid is another PID
 * namespace's. */
void test_io(const struct spawn_target *t, const char *how, int with_terminal);

/* Makes clone3 fail with ERR in this process from now on, as a container
 * runtime's seccomp profile (EPERM) or an old kernel (ENOSYS) would.
 * Returns 0, or -1 where filters cannot be installed (then the caller
 * skips). */
int refuse_clone3(int err);

/* Calls RUNS(ERR) in a child process where clone3 fails with ERR, and
 * checks that every check it made passed: the runs must still start.
 * WHAT names the test program in messages. */
void run_without_clone3(int err, const char *what, void (*runs)(int err));

#endif
