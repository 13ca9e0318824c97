/* SPDX-License-Identifier: MIT */
/* Unit tests for runs.c on a bare loop (loopkit.h), without poll or
 * dispatch: a start the kernel refused is an error event and a run of the
 * history, counted as a failure unless a retry comes; under -E it stops
 * tfd through the loop's status; a run's end is recorded, counted, handed
 * to the loop's hooks and sets a one-shot tfd's exit status; a real run
 * started by its elapse is noted, reaped and ended by runs_reap; a removed
 * job with nothing left is gone; a stop asked for holds the next reap
 * back until the loop has taken it; the status's own rules. No call goes
 * up into loop.c: what the loop must do is in l->st. */
#include "harness.h"
#include "loopkit.h"
#include "runs.h"
#include "tick.h"
#include "timens.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const int64_t MS = 1000000;

static struct run_start failed_start(uint64_t seq, bool retried)
{
	return (struct run_start){ .kind = RUN_START_FAILED,
				   .failure = { .seq = seq,
						.attempt = 1,
						.call = "fork",
						.error = EAGAIN,
						.retried = retried } };
}

static void test_start_failed(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = loopkit_job(k, "s", NULL, 0, MS);
	struct run_start retried = failed_start(1, true), last = failed_start(1, false);

	runs_note_start(l, j, &retried);
	check(k->records == 1 && k->finals == 0 && k->last_record.start_failed,
	      "a failed start that is tried again: a record, not the run's last");
	check(j->state->metrics.runs_failure == 0, "not counted yet");
	check(strstr(loopkit_err(k), "s: fork: ") &&
		      strstr(loopkit_err(k), "run 1 (try 1) did not start, it will be tried again"),
	      "the error names the job and the call: '%s'", loopkit_err(k));
	runs_note_start(l, j, &last);
	check(k->records == 2 && k->finals == 1, "the last try's failure is the run's end");
	check(j->state->metrics.runs_failure == 1 && l->metrics_dirty, "counted a failure");
	check(l->st.phase == PHASE_RUNNING && !l->st.stop_sig, "tfd goes on without -E");
	k->cfg.exit_on_error = true;
	runs_note_start(l, j, &last);
	check(l->st.phase == PHASE_SHUTDOWN && l->st.status == 1 && l->st.final &&
		      status_take_stop(&l->st) == SIGTERM,
	      "-E: status 1, a stop asked of the loop");
	loopkit_free(k);
}

static void test_finish(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *once = loopkit_job(k, "o", NULL, 0, 0);
	struct run_end e = { .job = "o", .seq = 1, .status = 3, .attempt = 1, .failed = true };

	runs_finish(l, once, &e);
	check(k->records == 1 && k->finals == 1 && k->ends == 1,
	      "the end is recorded and handed on: %zu %zu %zu", k->records, k->finals, k->ends);
	check(once->state->metrics.runs_failure == 1 && once->state->metrics.last_exit_status == 3,
	      "counted with its status");
	check(l->st.status == 3 && !l->st.final && l->st.phase == PHASE_RUNNING,
	      "a one-shot tfd exits with its run's status: %d", l->st.status);
	check(strstr(loopkit_err(k), "tfd: run 1 (pid 0) exited with status 3\n") != NULL,
	      "the failure is printed: '%s'", loopkit_err(k));
	k->cfg.exit_on_error = true;
	e.seq = 2;
	e.status = 0;
	e.signal = SIGKILL;
	runs_finish(l, once, &e);
	check(l->st.status == 128 + SIGKILL && l->st.final && l->st.phase == PHASE_SHUTDOWN &&
		      status_take_stop(&l->st) == SIGTERM,
	      "-E: its status is tfd's, and tfd stops");
	e.seq = 3;
	e.signal = 0;
	e.status = 5;
	runs_finish(l, once, &e);
	check(l->st.status == 128 + SIGKILL && k->ends == 3, "a later end changes nothing");
	loopkit_free(k);
}

/* A one-shot job of K that runs ARGV, its schedule due in an hour, whose
 * elapse starts the run now; returns once the run has exited, not reaped
 * (runs_reap does that). */
static struct job *run_exited(struct loopkit *k, const char *name, char *const *argv)
{
	struct loop *l = &k->l;
	struct job *j = loopkit_job(k, name, NULL,
				    clock_now_ns(CLOCK_MONOTONIC) + 3600 * INT64_C(1000000000), 0);
	struct tick t = { .job = name, .seq = 1, .expirations = 1 };
	siginfo_t si = { 0 };

	loopkit_command(j, argv);
	tick_start_job(l, j);
	check(j->state->runner != NULL && l->st.phase == PHASE_RUNNING, "started with a runner");
	check(tick_elapse_act(l, j, &t) && t.action == TICK_RUN, "the elapse ran");
	check(runner_active(j->state->runner) == 1, "one run going");
	check(waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) == 0 && si.si_pid > 0, "the run exited");
	return j;
}

/* A real run: the elapse starts it (runs_note_start puts its pid in the
 * map), SIGCHLD's reaping ends it, and its status is tfd's. */
static void test_reap(void)
{
	static char *const argv[] = { "/bin/sh", "-c", "exit 4", NULL };
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = run_exited(k, "r", argv);

	runs_reap(l);
	check(!runner_busy(j->state->runner) && k->ends == 1 && k->finals == 1,
	      "reaped and ended: %zu", k->ends);
	check(k->last_record.status == 4 && j->state->metrics.runs_failure == 1,
	      "its status 4, a failure");
	check(l->st.status == 4 && !l->st.stop_sig, "tfd's status is the one-shot's run's");
	check(strstr(loopkit_err(k), "exited with status 4") != NULL, "and printed: '%s'",
	      loopkit_err(k));
	j->state->removed = true;
	tick_end_all_schedules(l);
	check(runs_gone(l, j), "a removed job with nothing left is gone");
	loopkit_free(k);
}

/* A stop asked for during a reap is carried out by the loop before the
 * next child is reaped: runs_reap leaves it waiting until the stop is
 * taken, then reaps it. */
static void test_reap_after_stop(void)
{
	static char *const argv[] = { "/bin/sh", "-c", "exit 0", NULL };
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = run_exited(k, "q", argv);

	l->st.stop_sig = SIGINT;
	runs_reap(l);
	check(k->ends == 0 && runner_busy(j->state->runner), "not reaped while a stop waits");
	check(status_take_stop(&l->st) == SIGINT, "the stop is the loop's to take");
	runs_reap(l);
	check(k->ends == 1 && !runner_busy(j->state->runner) && k->last_record.status == 0,
	      "then reaped");
	loopkit_free(k);
}

/* The loop's status: the first fixed status stays; a stop's status is
 * 128 + its signal unless one was fixed; a lone run's status counts until
 * then; an end is a fixed status and a stop by SIGTERM; a failure is
 * status 1 and a stop by SIGTERM, with its line on stderr. */
static void test_status(void)
{
	struct loopkit *k = loopkit_new();
	struct loop_status s = { 0 };

	status_stop(&s, SIGINT);
	check(s.phase == PHASE_SHUTDOWN && s.status == 128 + SIGINT && !s.final,
	      "a stop: 128 + SIGINT");
	status_stop(&s, SIGTERM);
	check(s.status == 128 + SIGINT && status_take_stop(&s) == SIGTERM &&
		      status_take_stop(&s) == 0,
	      "a second stop keeps the status, asks once more");
	status_set(&s, 3);
	status_set(&s, 4);
	check(s.status == 3 && s.final, "the first fixed status stays");
	s = (struct loop_status){ 0 };
	status_so_far(&s, 5);
	status_so_far(&s, 6);
	check(s.status == 6 && !s.final && s.phase == PHASE_RUNNING, "a run's status, the last");
	status_end(&s, 7);
	check(s.status == 7 && s.final && s.phase == PHASE_SHUTDOWN &&
		      status_take_stop(&s) == SIGTERM,
	      "an end: its status, fixed, and SIGTERM");
	status_end(&s, 8);
	status_so_far(&s, 9);
	check(s.status == 7, "after an end no status changes it");
	s = (struct loop_status){ 0 };
	status_stop(&s, SIGINT);
	status_so_far(&s, 0);
	check(s.status == 128 + SIGINT, "a stop's status outlasts a run's");
	s = (struct loop_status){ 0 };
	errno = EBADF;
	status_fail(&s, &k->l.ev, "read (timerfd)");
	check(s.status == 1 && s.final && s.phase == PHASE_SHUTDOWN && s.stop_sig == SIGTERM,
	      "a failure: status 1, a stop");
	check(strstr(loopkit_err(k), "tfd: read (timerfd): ") != NULL, "said on stderr: '%s'",
	      loopkit_err(k));
	loopkit_free(k);
}

int main(void)
{
	alarm(30);
	test_status();
	test_reap_after_stop();
	test_start_failed();
	test_finish();
	test_reap();
	return tally_finish(&tally, "runs");
}
