/* SPDX-License-Identifier: MIT */
/* spawn: the one path that starts every run (plain, --cgroup, --join).
 *
 * Runs are created with clone3(2): posix_spawn cannot place a child into a
 * cgroup (CLONE_INTO_CGROUP) or enter namespaces before exec, and fork+exec
 * copies tfd's page tables. Where clone3 is missing or refused, clone(2)
 * starts them (not --cgroup). Each run leads its own process group, so a
 * timeout or a forwarded signal reaches everything it started. */
#ifndef TFD_SPAWN_H
#define TFD_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct session_spec;

/* Where a run starts. Descriptors are tfd's, opened once at start. */
struct spawn_target {
	int cgroup_fd;    /* -1, or an O_DIRECTORY descriptor of a cgroup v2 dir */
	int join_pidfd;   /* -1, or a pidfd whose namespaces the run enters */
	int join_nstypes; /* CLONE_NEW* bits to enter (those that differ from ours) */
	/* Set with join_pidfd, and read only when it is >= 0: */
	int join_root_fd; /* -1 (the target's root is ours), or its root */
	int join_cwd_fd;  /* the target's working directory */
	/* --user: the run takes these ids after the cgroup and namespace
	 * steps, before exec (setgroups, setgid, setuid, each checked). */
	bool set_user;
	uid_t uid;
	gid_t gid;
	const gid_t *groups; /* the supplementary groups, NGROUPS of them */
	size_t ngroups;
	/* A run as another user (session.h): at each start its first child
	 * looks the user up, opens the PAM session and builds the
	 * environment; the run leads a session of its own (setsid), never
	 * gets tfd's terminal, reads /dev/null unless given input, and starts
	 * in HOME. NULL: none of this. */
	const struct session_spec *session;
	bool reset_known;    /* reset_mask was filled by spawn_note_signals */
	uint64_t reset_mask; /* bit N-1: signal N is not at SIG_DFL in tfd */
};

/* Where a helper of a job's runs starts (a sendmail, a hook): as the
 * runs' user, with what drops privileges to that user (RUNS: NULL for
 * tfd's own), but on tfd's host: never in the runs' cgroup nor in their
 * --join target's namespaces, whose world is not the helper's. */
struct spawn_target spawn_target_on_host(const struct spawn_target *runs);

/* Closes the descriptors of FDS that are open and marks each -1, so the
 * pipes of a run or a helper are closed once, whichever path gives up. */
void spawn_close_fds(int *fds, size_t n);

/* Notes which signals tfd does not leave at SIG_DFL (SIGPIPE, anything its
 * caller ignored), so a run resets those few instead of all 64. Call after
 * tfd's own dispositions are final; without it a run resets every one. */
void spawn_note_signals(struct spawn_target *target);

/* A run's standard descriptors and terminal. */
struct spawn_io {
	int fd[3];  /* descriptors to put on 0, 1, 2 in the run; -1 = inherit tfd's */
	int tty_fd; /* -1, or tfd's controlling terminal: the run's process group
		     * is made its foreground group before exec */
	/* A run as another user that cannot start writes why in one line to
	 * report_fd when has_report is set, else "tfd: WHY" on stderr (so a
	 * spawn_io that leaves both out reports on stderr). */
	bool has_report;
	int report_fd;
};

/* Starts PATH with ARGV and ENVP in TARGET as the leader of a new process
 * group, with every signal at its default disposition and unblocked, IO's
 * descriptors on 0, 1 and 2 (IO NULL: tfd's own, no terminal) and no other
 * descriptor. A file without "#!" runs with /bin/sh, as execvp(3) runs it.
 * Returns the pid, or -1 with errno set and *what naming the failing call
 * ("clone3", "setns", …). A failure after the child exists (exec, setns,
 * setuid) ends the child with 127/126/125 and a line on stderr (a run as
 * another user whose user or PAM session fails: 125 and the line on IO's
 * report_fd). With a PAM session, the pid is the session's keeper: it
 * leads the run's group, forks the command, and when the command ends,
 * closes the session and ends as the command ended. */
pid_t spawn_run(const struct spawn_target *target, const struct spawn_io *io, const char *path,
		char *const argv[], char *const envp[], const char **what);

#endif
