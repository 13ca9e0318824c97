/* SPDX-License-Identifier: MIT */
/* Unit tests for the runs' bookkeeping in runner.c, with "now" passed in as
 * the loop passes it: a run's start and end (its duration is the caller's
 * clock, not the wall's), the overlap policies (skip, queue, kill,
 * parallel), a timeout and its grace, retries with their doubling delay,
 * no retry at or past the next scheduled run, shutdown, --kill-after,
 * a drain (--on-stop wait and leave), tfdctl stop (a queued run and a
 * waiting retry dropped), a group its leader
 * left behind; and what a run's
 * end adds to its job's metrics (runs.c). The runs are
 * real processes (sh, sleep); the test reaps them itself and hands each
 * wait status to the runner as the loop's reaping does. */
#include "harness.h"
#include "runner.h"
#include "runs.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct spawn_target plain = { .cgroup_fd = -1, .join_pidfd = -1 };

static struct runner *runner_with(const struct runner_config *base, char *const *argv)
{
	struct runner_config rc = *base;
	struct runner *r;

	rc.path = argv[0];
	rc.argv = argv;
	rc.name = "t";
	rc.replica = "r";
	rc.tty_fd = -1;
	rc.target = &plain;
	if (!(r = runner_new(&rc)))
		abort();
	return r;
}

static struct runner *runner_of(char *const *argv, enum overlap overlap)
{
	return runner_with(&(struct runner_config){ .overlap = overlap }, argv);
}

static struct tick tick_no(uint64_t seq)
{
	return (struct tick){ .seq = seq, .expirations = 1, .total = seq, .job = "t" };
}

/* Reaps PID and tells R at NOW; END and the start it made are returned. */
static enum reaped reap(struct runner *r, pid_t pid, int64_t now, int64_t next_run,
			struct run_end *end, struct run_start *start)
{
	const char *failed = NULL;
	int ws = 0;
	enum reaped what;

	if (waitpid(pid, &ws, 0) != pid)
		abort();
	what = runner_reaped(r, pid, ws, now, next_run, end, start, &failed);
	check(!failed, "a failure of tfd's: %s", failed ? failed : "");
	return what;
}

/* A tick at NOW that should start a run: its pid, or -1. */
static pid_t tick_run(struct runner *r, uint64_t seq, int64_t now, int64_t next_run)
{
	struct tick t = tick_no(seq);
	struct run_start start;
	const char *what = NULL;
	enum tick_action a = runner_tick(r, &t, now, next_run, &start, &what);

	check(a == TICK_RUN && start.kind == RUN_START_RUN && start.run.pid > 0 &&
		      start.run.seq == seq,
	      "tick %llu: action %d, start %d", (unsigned long long)seq, (int)a, (int)start.kind);
	return start.kind == RUN_START_RUN ? start.run.pid : -1;
}

/* A tick at NOW that should start nothing: what the runner did instead. */
static enum tick_action tick_held(struct runner *r, uint64_t seq, int64_t now)
{
	struct tick t = tick_no(seq);
	struct run_start start;
	const char *what = NULL;
	enum tick_action a = runner_tick(r, &t, now, INT64_MAX, &start, &what);

	check(start.kind == RUN_START_NONE, "tick %llu started a run", (unsigned long long)seq);
	return a;
}

static void test_start_and_end(void)
{
	char *argv[] = { "/bin/sh", "-c", "exit 3", NULL };
	struct runner *r = runner_of(argv, OVERLAP_SKIP);
	struct run_end end;
	struct run_start start;
	pid_t pid = tick_run(r, 1, 1000, INT64_MAX);

	check(runner_active(r) == 1 && runner_busy(r), "one run going");
	check(runner_deadline(r) == INT64_MAX, "no timeout, no deadline");
	check(reap(r, pid, 1500, INT64_MAX, &end, &start) == REAPED_RUN, "its end");
	check(end.pid == pid && end.seq == 1 && end.status == 3 && end.signal == 0 &&
		      end.attempt == 1 && end.failed,
	      "status 3, failed: %d %d", end.status, end.failed);
	check(end.duration_ns == 500, "duration from the now passed in: %lld",
	      (long long)end.duration_ns);
	check(start.kind == RUN_START_NONE, "nothing new started");
	check(runner_active(r) == 0 && !runner_busy(r), "none left");
	runner_free(r);
}

static void test_overlap_skip_and_queue(void)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct runner *r = runner_of(argv, OVERLAP_SKIP);
	struct run_start start;
	struct run_end end;
	pid_t pid = tick_run(r, 1, 0, INT64_MAX), next;

	check(tick_held(r, 2, 10) == TICK_SKIP, "skip while one runs");
	kill(pid, SIGTERM);
	reap(r, pid, 20, INT64_MAX, &end, &start);
	check(end.signal == SIGTERM && start.kind == RUN_START_NONE, "nothing was queued");
	runner_free(r);

	r = runner_of(argv, OVERLAP_QUEUE);
	pid = tick_run(r, 1, 0, INT64_MAX);
	check(tick_held(r, 2, 10) == TICK_QUEUE && runner_active(r) == 1, "queued behind it");
	kill(pid, SIGTERM);
	reap(r, pid, 20, INT64_MAX, &end, &start);
	check(start.kind == RUN_START_RUN && start.run.seq == 2,
	      "the queued run starts at the end");
	next = start.run.pid;
	kill(next, SIGKILL);
	reap(r, next, 30, INT64_MAX, &end, &start);
	check(end.seq == 2 && !runner_busy(r), "then none");
	runner_free(r);
}

static void test_overlap_kill_and_parallel(void)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct runner *r = runner_of(argv, OVERLAP_KILL);
	struct run_start start;
	struct run_end end;
	pid_t pid = tick_run(r, 1, 0, INT64_MAX), other;

	check(tick_held(r, 2, 100) == TICK_KILL, "kill: the new run waits");
	check(runner_deadline(r) == 100 + RUNNER_KILL_GRACE_NS, "SIGTERM sent, the grace runs");
	reap(r, pid, 200, INT64_MAX, &end, &start);
	check(end.superseded && end.signal == SIGTERM && !end.failed,
	      "superseded, not failed: %d %d", end.superseded, end.failed);
	check(start.kind == RUN_START_RUN && start.run.seq == 2, "the new one starts");
	other = start.run.pid;
	kill(other, SIGKILL);
	reap(r, other, 300, INT64_MAX, &end, &start);
	runner_free(r);

	r = runner_of(argv, OVERLAP_PARALLEL);
	pid = tick_run(r, 1, 0, INT64_MAX);
	other = tick_run(r, 2, 10, INT64_MAX);
	check(runner_active(r) == 2 && pid != other, "two at once");
	kill(pid, SIGKILL);
	kill(other, SIGKILL);
	reap(r, pid, 20, INT64_MAX, &end, &start);
	check(runner_active(r) == 1, "one left");
	reap(r, other, 20, INT64_MAX, &end, &start);
	check(!runner_busy(r), "none left");
	runner_free(r);
}

static void test_timeout(void)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct runner_config rc = { .overlap = OVERLAP_SKIP, .timeout_ns = 1000 };
	struct runner *r = runner_with(&rc, argv);
	struct run_start start;
	struct run_end end;
	const char *failed = NULL;
	pid_t pid = tick_run(r, 1, 5000, INT64_MAX);

	check(runner_deadline(r) == 6000, "the timeout's deadline: %lld",
	      (long long)runner_deadline(r));
	runner_expire(r, 5999, &start, &failed);
	check(runner_deadline(r) == 6000 && start.kind == RUN_START_NONE, "not yet");
	runner_expire(r, 6000, &start, &failed);
	check(runner_deadline(r) == 6000 + RUNNER_KILL_GRACE_NS, "SIGTERM, then the grace");
	reap(r, pid, 6100, INT64_MAX, &end, &start);
	check(end.timed_out && end.signal == SIGTERM && end.failed && end.duration_ns == 1100,
	      "timed out after 1100: %d %lld", end.timed_out, (long long)end.duration_ns);
	runner_free(r);
}

static void test_retries(void)
{
	char *argv[] = { "/bin/false", NULL };
	struct runner_config rc = { .overlap = OVERLAP_SKIP, .retry = 2, .retry_delay_ns = 1000 };
	struct runner *r = runner_with(&rc, argv);
	struct run_start start;
	struct run_end end;
	const char *failed = NULL;
	pid_t pid = tick_run(r, 7, 0, INT64_MAX);

	reap(r, pid, 10, INT64_MAX, &end, &start);
	check(!end.failed && end.attempt == 1 && runner_busy(r), "try 1 fails: a retry waits");
	check(runner_deadline(r) == 1010, "after the delay: %lld", (long long)runner_deadline(r));
	runner_expire(r, 1009, &start, &failed);
	check(start.kind == RUN_START_NONE, "not before it");
	runner_expire(r, 1010, &start, &failed);
	check(start.kind == RUN_START_RUN && start.run.seq == 7, "try 2 starts");
	reap(r, start.run.pid, 1020, INT64_MAX, &end, &start);
	check(!end.failed && end.attempt == 2 && runner_deadline(r) == 3020,
	      "try 2 fails: the delay doubles: %lld", (long long)runner_deadline(r));
	runner_expire(r, 3020, &start, &failed);
	reap(r, start.run.pid, 3030, INT64_MAX, &end, &start);
	check(end.failed && end.attempt == 3 && !runner_busy(r), "try 3 fails: the run failed");
	runner_free(r);

	/* A retry due at the next scheduled run is not planned. */
	r = runner_with(&rc, argv);
	pid = tick_run(r, 1, 0, 1010);
	reap(r, pid, 10, 1010, &end, &start);
	check(end.failed && !runner_busy(r), "no retry at the next run");
	runner_free(r);
}

static void test_shutdown(void)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct runner *r = runner_of(argv, OVERLAP_QUEUE);
	struct run_start start;
	struct run_end end;
	pid_t pid = tick_run(r, 1, 0, INT64_MAX);

	check(tick_held(r, 2, 10) == TICK_QUEUE, "queued");
	runner_signal_all(r, SIGTERM, 50);
	check(runner_deadline(r) == 50 + RUNNER_KILL_GRACE_NS, "the grace before SIGKILL");
	reap(r, pid, 60, INT64_MAX, &end, &start);
	check(start.kind == RUN_START_NONE && !runner_busy(r), "the queued run never starts");
	runner_free(r);
}

/* --kill-after: every SIGTERM of tfd's (a timeout, a shutdown) is
 * followed by SIGKILL that much later, not RUNNER_KILL_GRACE_NS. */
static void test_kill_after(void)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct runner_config rc = { .overlap = OVERLAP_SKIP,
				    .timeout_ns = 1000,
				    .kill_after_ns = 250 };
	struct runner *r = runner_with(&rc, argv);
	struct run_start start;
	struct run_end end;
	const char *failed = NULL;
	pid_t pid = tick_run(r, 1, 0, INT64_MAX);

	runner_expire(r, 1000, &start, &failed);
	check(runner_deadline(r) == 1250, "the timeout's SIGTERM, SIGKILL 250 later: %lld",
	      (long long)runner_deadline(r));
	runner_expire(r, 1250, &start, &failed);
	check(runner_deadline(r) == INT64_MAX, "SIGKILL sent");
	reap(r, pid, 1300, INT64_MAX, &end, &start);
	check(end.signal == SIGKILL || end.signal == SIGTERM, "ended by a signal: %d", end.signal);
	runner_free(r);

	rc.timeout_ns = 0;
	r = runner_with(&rc, argv);
	pid = tick_run(r, 1, 0, INT64_MAX);
	runner_signal_all(r, SIGTERM, 40);
	check(runner_deadline(r) == 290, "the stop's grace too: %lld",
	      (long long)runner_deadline(r));
	reap(r, pid, 60, INT64_MAX, &end, &start);
	runner_free(r);
}

/* --on-stop=wait and leave: nothing new starts (a queued run, a retry),
 * and the runs going are left alone. */
static void test_drain(void)
{
	char *sleep_argv[] = { "/bin/sleep", "0.2", NULL };
	char *false_argv[] = { "/bin/false", NULL };
	struct runner_config retry = { .overlap = OVERLAP_SKIP, .retry = 2, .retry_delay_ns = 10 };
	struct runner *r = runner_of(sleep_argv, OVERLAP_QUEUE);
	struct run_start start;
	struct run_end end;
	const char *failed = NULL;
	pid_t pid = tick_run(r, 1, 0, INT64_MAX);

	check(tick_held(r, 2, 10) == TICK_QUEUE, "queued");
	check(runner_drain(r) == 1, "the queued run is dropped");
	check(runner_deadline(r) == INT64_MAX, "no signal, no grace: the run goes on");
	check(runner_active(r) == 1 && runner_busy(r), "the run is still going");
	reap(r, pid, 60, INT64_MAX, &end, &start);
	check(end.status == 0 && end.signal == 0, "it ended on its own: %d %d", end.status,
	      end.signal);
	check(start.kind == RUN_START_NONE && !runner_busy(r), "the queued run never starts");
	runner_free(r);

	r = runner_with(&retry, false_argv);
	pid = tick_run(r, 1, 0, INT64_MAX);
	reap(r, pid, 5, INT64_MAX, &end, &start);
	check(runner_retrying(r), "a retry waits");
	check(runner_drain(r) == 1 && !runner_busy(r), "the retry is dropped");
	runner_expire(r, 100, &start, &failed);
	check(start.kind == RUN_START_NONE, "and never starts");
	runner_free(r);
}

/* tfdctl stop: the run going is signalled, the run queued behind it
 * dropped (its seq said), and a failed try's retry dropped with that
 * try's end, failed now. */
static void test_stop(void)
{
	char *sleep_argv[] = { "/bin/sleep", "30", NULL };
	char *false_argv[] = { "/bin/false", NULL };
	struct runner_config rc = { .overlap = OVERLAP_SKIP, .retry = 2, .retry_delay_ns = 1000 };
	struct runner *r = runner_of(sleep_argv, OVERLAP_QUEUE);
	struct runner_stopped st;
	struct run_start start;
	struct run_end end;
	pid_t pid = tick_run(r, 1, 0, INT64_MAX);

	check(tick_held(r, 2, 10) == TICK_QUEUE, "queued");
	runner_stop(r, 20, &st);
	check(st.signalled == 1 && st.queued && st.queued_seq == 2 && !st.retry,
	      "one signalled, run 2 dropped: %zu %d %llu", st.signalled, st.queued,
	      (unsigned long long)st.queued_seq);
	reap(r, pid, 30, INT64_MAX, &end, &start);
	check(end.signal == SIGTERM && start.kind == RUN_START_NONE && !runner_busy(r),
	      "the queued run never starts");
	runner_free(r);

	r = runner_with(&rc, false_argv);
	pid = tick_run(r, 5, 0, INT64_MAX);
	reap(r, pid, 10, INT64_MAX, &end, &start);
	check(!end.failed && runner_retrying(r), "try 1 failed: its retry waits");
	runner_stop(r, 20, &st);
	check(st.signalled == 0 && !st.queued && st.retry && !st.retry_not_started,
	      "the retry dropped");
	check(st.last_try.seq == 5 && st.last_try.attempt == 1 && st.last_try.status == 1 &&
		      st.last_try.failed,
	      "with try 1's end, failed now");
	check(!runner_busy(r) && runner_deadline(r) == INT64_MAX, "nothing waits");
	runner_stop(r, 30, &st);
	check(!st.retry && !st.queued && st.signalled == 0, "a second stop finds nothing");
	runner_free(r);
}

/* A leader that leaves a background child: its group outlives it, and the
 * runner keeps it (runner_has_groups) until it is ended at the end of the
 * schedule: SIGTERM, then SIGKILL after the grace. */
static void test_groups_left(void)
{
	char *argv[] = { "/bin/sh", "-c", "sleep 30 & exit 0", NULL };
	struct runner *r = runner_of(argv, OVERLAP_SKIP);
	struct run_start start;
	struct run_end end;
	const char *failed = NULL;
	pid_t pid = tick_run(r, 1, 0, INT64_MAX);

	check(!runner_has_groups(r), "the leader runs: no group left yet");
	reap(r, pid, 10, INT64_MAX, &end, &start);
	check(end.status == 0 && runner_active(r) == 0 && runner_has_groups(r) && runner_busy(r),
	      "the leader ended, its group lives on");
	runner_finish_groups(r, 100);
	check(runner_deadline(r) == 100 + RUNNER_KILL_GRACE_NS, "SIGTERM to the group");
	runner_expire(r, 100 + RUNNER_KILL_GRACE_NS, &start, &failed);
	check(!runner_has_groups(r) && !runner_busy(r), "SIGKILL after the grace: none kept");
	runner_free(r);
}

/* A try that will be tried again is no outcome; the last try is. */
static void test_count_end(void)
{
	struct job_metrics m = JOB_METRICS_INIT;
	struct run_end retried = { .status = 1, .attempt = 1, .duration_ns = 5 };
	struct run_end failed = { .status = 1, .attempt = 2, .failed = true, .duration_ns = 7 };
	struct run_end timed = { .signal = SIGTERM, .timed_out = true, .failed = true };
	struct run_end killed = { .signal = SIGTERM, .superseded = true };
	struct run_end ok = { .status = 0, .duration_ns = 9 };

	runs_count_end(&m, &retried, 100);
	check(m.runs_failure == 0 && m.last_duration_ns == -1, "a retried try counts nothing");
	runs_count_end(&m, &failed, 200);
	check(m.runs_failure == 1 && m.last_exit_status == 1 && m.last_duration_ns == 7 &&
		      m.last_success_ns == 0,
	      "the failed run");
	runs_count_end(&m, &timed, 300);
	check(m.runs_timeout == 1 && m.last_exit_status == 128 + SIGTERM, "a timeout");
	runs_count_end(&m, &killed, 400);
	check(m.runs_killed == 1 && m.last_success_ns == 400, "superseded: killed, no failure");
	runs_count_end(&m, &ok, 500);
	check(m.runs_success == 1 && m.last_success_ns == 500 && m.last_exit_status == 0,
	      "a success");
}

int main(void)
{
	alarm(60);
	test_start_and_end();
	test_overlap_skip_and_queue();
	test_overlap_kill_and_parallel();
	test_timeout();
	test_retries();
	test_shutdown();
	test_kill_after();
	test_drain();
	test_stop();
	test_groups_left();
	test_count_end();
	return tally_finish(&tally, "runner");
}
