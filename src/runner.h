/* runner: the runs of the user's command — overlap policy, timeouts, kill
 * grace periods, process groups, the TFD_* environment. It keeps no clock
 * and no descriptor of its own: the loop passes monotonic "now" in and arms
 * one timerfd for runner_deadline(). */
#ifndef TFD_RUNNER_H
#define TFD_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"
#include "spawn.h"
#include "timens.h"

enum overlap { OVERLAP_SKIP, OVERLAP_QUEUE, OVERLAP_KILL, OVERLAP_PARALLEL };

/* The grace period between SIGTERM and SIGKILL (timeout, kill, shutdown). */
#define RUNNER_KILL_GRACE_NS (INT64_C(5) * NSEC_PER_SEC)

struct runner_config {
	const char *path;               /* resolved executable */
	char *const *argv;
	enum overlap overlap;
	int64_t timeout_ns;             /* 0 = none */
	const struct spawn_target *target;
};

struct runner;

struct runner *runner_new(const struct runner_config *cfg);
void runner_free(struct runner *r);

/* A wake-up: applies the overlap policy and starts a run if it says so.
 * Returns the action ("run", "skip", "queue", "kill"), or NULL when the
 * run could not be started (then *what names the failing call). */
const char *runner_tick(struct runner *r, const struct tick *t, int64_t now,
			const char **what);

/* A child was reaped. Returns true when it was a run, with END filled; a
 * queued or waiting run may have been started (its failure is in *failed). */
bool runner_reaped(struct runner *r, pid_t pid, int wstatus, int64_t now,
		   struct run_end *end, const char **failed);

/* Sends SIG to every run's process group and schedules SIGKILL for
 * RUNNER_KILL_GRACE_NS later; queued runs are dropped. */
void runner_signal_all(struct runner *r, int sig, int64_t now);

/* Acts on timeouts and grace periods that are due at NOW. */
void runner_expire(struct runner *r, int64_t now);

/* The earliest deadline of any run, or INT64_MAX. */
int64_t runner_deadline(const struct runner *r);

/* Runs still going, plus groups left behind that still have members after
 * being signalled: tfd waits for both before it exits. */
bool runner_busy(const struct runner *r);

#endif
