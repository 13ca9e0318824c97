/* SPDX-License-Identifier: MIT */
/* runner: the runs of one job's command — overlap policy, timeouts, kill
 * grace periods, retries, process groups, stdin and captured output, the
 * TFD_* environment. It keeps no clock and no descriptor of its own but the
 * ones it hands out: the loop passes monotonic "now" in, arms one timerfd for
 * the earliest runner_deadline() of all jobs, and polls the output pipes
 * of the runs each call returns as started. It calls nobody back. */
#ifndef TFD_RUNNER_H
#define TFD_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"
#include "spawn.h"
#include "timens.h"

enum overlap { OVERLAP_SKIP, OVERLAP_QUEUE, OVERLAP_KILL, OVERLAP_PARALLEL };

/* The grace period between SIGTERM and SIGKILL (timeout, kill, tfdctl
 * stop, shutdown, groups left behind) when --kill-after does not say. */
#define RUNNER_KILL_GRACE_NS (INT64_C(5) * NSEC_PER_SEC)

/* A run that started: its captured stdout and stderr (-1 without
 * --tag-output; err_fd -1 when one_pipe carries both), for the loop to
 * read. */
struct run_started {
	pid_t pid;
	uint64_t seq;
	int out_fd, err_fd;
};

/* A run that could not be started for want of a resource the kernel may
 * give back (EAGAIN, ENOMEM from clone; EMFILE, ENFILE from pipe2): a
 * failed start of that run, not of tfd. */
struct start_failure {
	uint64_t seq;
	unsigned attempt;
	const char *call; /* the call that failed */
	int error;        /* its errno */
	bool retried;     /* a retry is planned (--retry) */
	bool manual;      /* its tick was tfdctl run's */
};

/* What one call of the runner started: at most one run, or one start
 * that failed for want of a resource. The caller takes it from there
 * (the pid to reap, the pipes to read, the error to print). */
enum run_start_kind { RUN_START_NONE, RUN_START_RUN, RUN_START_FAILED };

struct run_start {
	enum run_start_kind kind;
	struct run_started run;       /* RUN_START_RUN */
	struct start_failure failure; /* RUN_START_FAILED */
};

/* The environment the runs of one or more jobs start from: a base
 * without TFD_* (a jobs file's section as one user sees it, or tfd's own),
 * with room after it for the TFD_* variables. Every job that sees the
 * same base holds the same one (ten thousand lines of one section cost
 * one copy): a run's start writes its TFD_* values there just before its
 * clone and takes them away after it, which is safe because runs start
 * one at a time and each started run has its own copy (it has exec'd, or
 * is a forked copy of tfd). Counted: the last runner_env_drop frees it. */
struct runner_env;

/* A new environment of BASE's entries (NULL-terminated; NULL: tfd's own
 * environ as it is now), which are not copied; it owns and frees OWNED
 * (NULL-terminated strings, or NULL), which BASE may point into. NULL
 * when memory ran out (OWNED is freed then too). */
struct runner_env *runner_env_new(char *const *base, char **owned);
struct runner_env *runner_env_hold(struct runner_env *e);
void runner_env_drop(struct runner_env *e);

/* The base alone, NULL-terminated (between two starts). */
char *const *runner_env_base(const struct runner_env *e);

/* The strings it owns (runner_env_new's OWNED), NULL-terminated, or NULL. */
char *const *runner_env_owned(const struct runner_env *e);

struct runner_config {
	const char *path; /* resolved executable */
	char *const *argv;
	struct runner_env *env; /* held by the runner; NULL: its own of
				   tfd's environment */
	const char *name;       /* TFD_JOB */
	const char *replica;    /* TFD_REPLICA; NULL: HOSTNAME:PID */
	const char *input;      /* every run's stdin, or NULL to inherit */
	enum overlap overlap;
	int64_t timeout_ns;     /* 0 = none */
	int64_t kill_after_ns;  /* SIGTERM to SIGKILL; 0 = RUNNER_KILL_GRACE_NS */
	unsigned retry;         /* more tries of a failing run */
	int64_t retry_delay_ns; /* the first wait; doubles */
	bool tag_output;        /* stdout, stderr through pipes (--tag-output, MAILTO) */
	bool one_pipe;          /* with tag_output: both through one pipe, read
				   as stdout (MAILTO: the mail keeps their order) */
	bool exit_on_error;     /* a failure drops a queued run */
	int tty_fd;             /* -1, or the terminal a run is given */
	const struct spawn_target *target;
};

struct runner;

/* Removes the TFD_* variables tfd's own environment may hold (a tfd
 * started by a tfd), once at start: every run's environment is tfd's
 * plus its own TFD_* values, which must be the only ones. */
void runner_clean_environment(void);

/* The longest replica name, in bytes: a longer --replica is a usage error,
 * never cut (two names cut to one would be one replica, whose start gives
 * up the other's runs). HOSTNAME:PID is at most 64 + 1 + 10 bytes. */
#define RUNNER_REPLICA_MAX 255

/* The replica's name when --replica is not given, "HOSTNAME:PID": what
 * TFD_REPLICA and the fleet's rows show. */
void runner_default_replica(char *buf, size_t len);

/* True when ENTRY ("NAME=VALUE") sets one of the variables tfd gives
 * each run; a jobs file's line cannot set those. */
bool runner_variable(const char *entry);

struct runner *runner_new(const struct runner_config *cfg);
void runner_free(struct runner *r);

/* A wake-up: applies the overlap policy and starts a run if it says so.
 * NEXT_RUN is the monotonic time of the job's next scheduled run
 * (INT64_MAX for none), before which a failed start may be retried.
 * Returns the action (TICK_RUN, _SKIP, _QUEUE, _KILL), or TICK_ACTION_NONE when the
 * run could not be started for a reason that is tfd's (then *what names
 * the failing call); a start that the kernel refused for want of
 * processes or descriptors is "run", its failure in *START. */
enum tick_action runner_tick(struct runner *r, const struct tick *t, int64_t now, int64_t next_run,
			     struct run_start *start, const char **what);

/* What a reaped pid meant to this runner. */
enum reaped {
	REAPED_NOT_OURS,
	REAPED_RUN,     /* a run ended: END is filled */
	REAPED_STOPPED, /* a run was stopped (^Z): END.pid says which */
	REAPED_MEMBER,  /* another member of a run's process group */
};

/* A child changed state (waitpid with WUNTRACED). NEXT_RUN is the
 * monotonic time of the job's next scheduled run (INT64_MAX for none): a
 * retry is only planned before it. A queued or waiting run may have been
 * started (in *START; a failure of tfd's names its call in *failed). */
enum reaped runner_reaped(struct runner *r, pid_t pid, int wstatus, int64_t now, int64_t next_run,
			  struct run_end *end, struct run_start *start, const char **failed);

/* Sends SIG to every run's process group. With grace, SIGKILL follows
 * the grace later and queued runs and retries are dropped (shutdown);
 * without, the signal is only passed on (SIGUSR2, SIGCONT). Returns how
 * many runs were dropped (runner_drain). */
size_t runner_signal_all(struct runner *r, int sig, int64_t now);

/* Nothing new starts: a queued run and a retry waiting are dropped (how
 * many: the return), and none follows the runs going, which go on under
 * their own timeouts (--on-stop=wait and leave). */
size_t runner_drain(struct runner *r);
void runner_forward(struct runner *r, int sig);

/* A reload removed the job: its queued run is dropped; its runs go on
 * under their own timeouts, and a failed try is still tried again per
 * --retry (a run in flight ends as it would have), so its last failure
 * is reported and counted. */
void runner_drop_waiting(struct runner *r);

/* Acts on timeouts, grace periods and retries due at NOW; a retry that
 * started is in *START, one that could not start (tfd's failure) names its
 * call in *failed. */
void runner_expire(struct runner *r, int64_t now, struct run_start *start, const char **failed);

/* The earliest deadline of any run or retry, or INT64_MAX. */
int64_t runner_deadline(const struct runner *r);

/* Runs still going, a retry or queued run waiting, or groups left behind
 * that still have members: tfd waits for them before it exits. */
bool runner_busy(const struct runner *r);

/* Groups whose leader was reaped but that may still have members: a
 * reaped pid that is no run's leader may be one of theirs. */
bool runner_has_groups(const struct runner *r);

/* Runs going now (leaders not yet reaped). */
size_t runner_active(const struct runner *r);

/* The pids of the runs going now, at most MAX of them into PIDS: how
 * many there are. */
size_t runner_pids(const struct runner *r, pid_t *pids, size_t max);

/* A failed try waits to be tried again. */
bool runner_retrying(const struct runner *r);

/* A run of wake-up SEQ is going (its leader not reaped yet, so its end
 * is still to be told). */
bool runner_runs_seq(const struct runner *r, uint64_t seq);

/* A wake-up now would not start a run at once but wait for the one
 * going (--overlap queue, or kill, which ends it first). */
bool runner_would_wait(const struct runner *r);

/* What tfdctl stop ended besides the runs it signalled: a run queued
 * behind them, and a failed try that waited to be tried again, whose end
 * is now the run's (failed). */
struct runner_stopped {
	size_t signalled; /* runs sent SIGTERM */
	bool queued;      /* a queued run (--overlap queue, kill) dropped */
	uint64_t queued_seq;
	bool retry;              /* a retry dropped: */
	bool retry_not_started;  /* its last try never started (start_failure) */
	struct run_end last_try; /* that try's end, failed now */
};

/* tfdctl stop: every run going now is sent SIGTERM (SIGKILL after the
 * grace), as --timeout ends one, but counts as ended by that signal, not
 * timed out; no retry of it follows. Stop means stop: a queued run and a
 * waiting retry are dropped too. The schedule goes on. */
void runner_stop(struct runner *r, int64_t now, struct runner_stopped *out);

/* The schedule ended: groups whose leader is gone but that still have
 * members are sent SIGTERM (SIGKILL after the grace) unless a timeout will
 * end them, so a one-shot tfd leaves nothing behind, as a repeating one
 * does not at its timeouts. */
void runner_finish_groups(struct runner *r, int64_t now);

#endif
