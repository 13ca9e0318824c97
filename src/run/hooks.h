/* SPDX-License-Identifier: MIT */
/* hooks: --on-failure and --on-success, a shell command started after a
 * run's last try ends (failed, or succeeded), as the job's user, with the
 * run's TFD_* variables and, when tfd reads the run's output, the tail of
 * it in a file (TFD_OUTPUT_FILE) removed once the hook ends.
 *
 * A hook is not a run: it has no hook of its own, no retry, no place in
 * the metrics; its output goes where its job's runs' goes: tfd's own
 * standard output and error, or pipes the caller reads (--tag-output,
 * MAILTO) as the runs' are read. Its
 * failure (a non-zero exit, a signal, a failed start) is an "error" event
 * naming the job and the hook. A hook still going HOOK_TIMEOUT_NS after
 * its start is sent SIGTERM, and SIGKILL its job's kill grace later. It
 * is reaped like any child of tfd's (hooks_reaped); tfd's stop on a
 * signal that --on-stop forwards passes the signal to every hook's
 * process group (hooks_signal), as to the runs.
 *
 * Time is the caller's: every function that acts on a deadline takes NOW
 * (the loop's CLOCK_MONOTONIC), so a test can pass 5 minutes without
 * waiting for them. It calls nobody back: what a reaped hook did is
 * returned to the caller, who keeps it for tfdctl status. */
#ifndef TFD_HOOKS_H
#define TFD_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "report.h"
#include "spawn.h"
#include "timens.h"

/* How long a hook may take, as --timeout's default is for nothing else:
 * long enough for a mail or an HTTP request that retries, short enough
 * that a hook stuck on a dead server never piles up. */
#define HOOK_TIMEOUT_NS (INT64_C(300) * NSEC_PER_SEC)

enum hook_kind { HOOK_FAILURE, HOOK_SUCCESS, HOOK_KINDS };

/* "on-failure", "on-success": the option's name without its dashes. */
const char *hook_kind_name(enum hook_kind kind);

/* A job's hooks, as its options gave them. */
struct job_hooks {
	char *shell;               /* the shell: the job's (a crontab line's
					   SHELL), else /bin/sh; NULL: no hook */
	char *command[HOOK_KINDS]; /* the STRING of each; NULL: none */
};

void job_hooks_free(struct job_hooks *h);

/* Which hook follows the end E of a run (NULL: none): its failure after
 * its last try, or its success. A try that a retry follows, and a run
 * that --overlap kill ended for a newer one, have none. */
const char *job_hook_for(const struct job_hooks *h, const struct run_end *e, enum hook_kind *kind);

/* The variables a hook sees, as text. */
struct hook_vars {
	const char *job;           /* TFD_JOB */
	uint64_t seq;              /* TFD_RUN: the run's number, its TFD_SEQ */
	const struct run_end *end; /* TFD_STATUS, _EXIT_STATUS, _DURATION, _SCHEDULED */
	enum hook_kind kind;       /* TFD_HOOK */
	const char *output_file;   /* TFD_OUTPUT_FILE; NULL: not set */
};

/* "success", "failure", "timeout" or "signal SIGTERM": TFD_STATUS of E. */
const char *hook_status_text(const struct run_end *e, char *buf, size_t len);

/* A hook's environment: BASE's entries (NULL-terminated; no TFD_* of
 * its own) then V's TFD_* variables, in one allocation to free() (the
 * array and its new strings together). NULL when memory ran out. */
char **hook_environment(char *const *base, const struct hook_vars *v);

/* What a hook did, for tfdctl status. */
struct hook_record {
	enum hook_kind kind;
	uint64_t seq;     /* the run it followed */
	int64_t start_ns; /* wall clock */
	int64_t duration_ns;
	int status; /* exit code, or -1 when a signal ended it */
	int signal;
	bool timed_out;    /* ended at HOOK_TIMEOUT_NS */
	bool start_failed; /* it never started */
};

/* One hook going. */
struct hook_run {
	pid_t pid;
	void *owner;       /* the caller's: handed back at the end */
	char *job;         /* for messages */
	char *output_file; /* removed once it ends; NULL: none */
	struct hook_record rec;
	int64_t started; /* monotonic */
	int64_t kill_grace_ns;
	int64_t term_at; /* monotonic: SIGTERM, it took too long */
	int64_t kill_at; /* monotonic: SIGKILL; INT64_MAX: none */
};

struct hooks {
	struct hook_run **h;
	size_t n, cap;
	bool stopping; /* tfd forwarded a stop: no new hook */
};

/* A hook to start after a run's end. */
struct hook_start {
	enum hook_kind kind;
	const char *shell, *command;
	const char *job;
	const struct run_end *end;
	char *const *envp;                 /* the runs' environment, without TFD_* */
	const struct spawn_target *target; /* the runs' (its user, its session);
					      NULL: tfd's own user */
	uid_t uid;                         /* the output file's owner, with CHOWN */
	gid_t gid;
	bool chown;
	const char *tail; /* the run's output tail; NULL: tfd did not
					   read its output (no TFD_OUTPUT_FILE) */
	size_t tail_len;
	bool capture;  /* stdout and stderr through pipes, for the
					   caller to read (as the runs' are) */
	bool one_pipe; /* with capture: both through one */
	int64_t kill_grace_ns;
	void *owner;
};

/* A hook started: its pid (0: none started) and, with capture, the read
 * ends of its pipes (non-blocking; err_fd -1 with one_pipe), now the
 * caller's; else -1. */
struct hook_started {
	pid_t pid;
	int out_fd, err_fd;
};

/* Starts the hook S says at NOW (wall: WALL_NOW), into *OUT. A hook that
 * cannot start is an "error" event, and returns false with *REC filled
 * (for the caller's status); else true, with *REC as it starts. Once tfd
 * forwarded a stop, nothing starts: true, OUT->pid 0. */
bool hooks_start(struct hooks *hs, const struct hook_start *s, struct events *ev, int64_t now,
		 int64_t wall_now, struct hook_record *rec, struct hook_started *out);

/* True when PID is a hook's going. */
bool hooks_owns(const struct hooks *hs, pid_t pid);

/* PID changed state: true when it is a hook of HS. When it ended, *OWNER
 * and *REC say whose hook it was and what it did (a failure was said as
 * an "error" event), and *ENDED is true. */
bool hooks_reaped(struct hooks *hs, pid_t pid, int wstatus, struct events *ev, int64_t now,
		  bool *ended, void **owner, struct hook_record *rec);

/* The earliest term_at or kill_at (INT64_MAX: none), for the deadline timer. */
int64_t hooks_deadline(const struct hooks *hs);

/* Ends (SIGTERM, then SIGKILL; its whole process group) each hook whose
 * term_at or kill_at has come. */
void hooks_expire(struct hooks *hs, int64_t now);

/* tfd's stop forwards SIG: every hook's process group is sent it, and
 * SIGKILL its kill grace later; no hook starts from now on. */
void hooks_signal(struct hooks *hs, int sig, int64_t now);

/* True while a hook of OWNER (NULL: of anyone) runs. */
bool hooks_busy(const struct hooks *hs, const void *owner);

/* At exit: forgets the hooks still going (left by --on-stop=leave:
 * their output files stay theirs) and frees HS. */
void hooks_free(struct hooks *hs);

#endif
