/* SPDX-License-Identifier: MIT */
/* Unit tests for tick.c and the start queue (starts.c) on a bare loop
 * (loopkit.h), without poll or dispatch: the queue's order, its bound and
 * its wait for run pipes; a job's start arms its clock's timer and heap;
 * a clock's wake-up queues the tick with its counts; an elapse acts now
 * (tick line, nothing to run) or waits for its random delay in the
 * deadline heap, and says so; a paused elapse is counted; a failed timer
 * read fails the loop through its status, not by a call up into loop.c. */
#include "harness.h"
#include "jobdue.h"
#include "loopkit.h"
#include "starts.h"
#include "tick.h"
#include "timens.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const int64_t MS = 1000000;

static void test_queue(void)
{
	struct starts *sq = calloc(1, sizeof *sq);
	struct job a = { .name = "a" }, b = { .name = "b" }, tagged = { .name = "t" };
	struct start s = { 0 };
	size_t n = 0;

	tagged.run.tag_output = true;
	starts_init(sq, 10);
	check(!starts_ready(sq, 0) && !starts_pop(sq, &s), "empty: nothing to serve");
	for (uint64_t i = 1; !starts_full(sq); i++)
		starts_push(sq, i % 2 ? &a : &b, &(struct tick){ .seq = i });
	check(sq->n == STARTS_MAX, "full at %zu", sq->n);
	starts_drop(sq, &b);
	check(sq->n == STARTS_MAX / 2, "b's starts dropped: %zu left", sq->n);
	while (starts_pop(sq, &s))
		if (s.job == &a && s.tick.seq == 2 * n + 1)
			n++;
	check(n == STARTS_MAX / 2, "a's starts in order: %zu", n);
	starts_push(sq, &tagged, &(struct tick){ .seq = 1 });
	check(starts_ready(sq, 6), "a --tag-output start fits with 6 of 10 pipes open");
	check(!starts_ready(sq, 7), "not with 7: it would pass the limit");
	check(starts_ready(sq, 0), "never waits when no pipe is open");
	starts_drop(sq, NULL);
	check(sq->n == 0, "every start dropped");
	free(sq);
}

/* A timer job started, then woken by its clock: the tick is queued with
 * its expirations, and the next elapse is in the clock's heap. */
static void test_start_and_wake(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);
	struct job *j = loopkit_job(k, "w", "%n", now + MS, 2 * MS);
	struct clock_timer *ct;
	struct start s = { 0 };
	int64_t before;

	tick_start_job(l, j);
	ct = tick_clock_for(l, CLOCK_MONOTONIC);
	check(ct && ct->heap.n == 1 && j->state->running, "armed: in its clock's heap");
	check(l->st.phase == PHASE_RUNNING && !l->st.stop_sig, "no failure");
	tick_arm_clocks(l);
	check(ct->t.armed == now + MS, "the timer is armed at the first elapse");
	usleep(8000);
	before = clock_now_ns(CLOCK_MONOTONIC);
	tick_on_clock(l, ct);
	check(l->starts.n == 1, "one wake-up queued: %zu", l->starts.n);
	check(starts_pop(&l->starts, &s) && s.job == j && s.tick.seq == 1 &&
		      s.tick.expirations >= 3 && s.tick.total == s.tick.expirations,
	      "seq 1 counts its missed elapses: %llu", (unsigned long long)s.tick.expirations);
	check(j->state->metrics.missed == s.tick.expirations - 1, "missed %llu",
	      (unsigned long long)j->state->metrics.missed);
	/* Past the wake-up's own reading of the clock, which is after BEFORE:
	 * the clock read after it may be far on (qemu on a busy machine). */
	check(heap_min_key(&ct->heap) > before && s.tick.next_in_ns <= 2 * MS,
	      "the next elapse is ahead, within the interval");
	tick_end_all_schedules(l);
	check(!j->state->running && ct->heap.n == 0, "ended: out of the heap");
	loopkit_free(k);
}

/* An elapse of a job with no command acts now: its tick line, no run;
 * paused, it is only counted. */
static void test_elapse_now(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = loopkit_job(k, "p", "tick %n", 0, MS);
	struct tick t = { .job = "p", .seq = 7, .total = 7, .expirations = 1 };

	check(!tick_elapse_act(l, j, &t), "no run came of it");
	check(!j->state->pending, "nothing waits");
	check(strcmp(loopkit_out(k), "tick 7\n") == 0, "the tick line: '%s'", loopkit_out(k));
	t.seq = 8;
	tick_elapse_paused(l, j, &t);
	check(t.action == TICK_PAUSED && j->state->metrics.paused_total == 1 && l->metrics_dirty,
	      "a paused elapse is counted");
	loopkit_free(k);
}

/* --random-delay: the action waits in the deadline heap, never past the
 * next elapse; the elapse says a run may come of it. */
static void test_elapse_later(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = loopkit_job(k, "d", "late %n", 0, MS);
	struct tick t = { .job = "d", .seq = 3, .expirations = 1, .next_in_ns = 5 * MS };
	int64_t before = clock_now_ns(CLOCK_MONOTONIC), after;
	bool later;

	j->random_delay_ns = 3600 * INT64_C(1000000000);
	j->state->running = true;
	later = tick_elapse_act(l, j, &t);
	after = clock_now_ns(CLOCK_MONOTONIC);
	check(later, "a run may come of it");
	check(j->state->pending && j->state->pending_tick.seq == 3, "the tick waits");
	check(j->state->pending_due >= before && j->state->pending_due < after + 5 * MS,
	      "due before the next elapse");
	check(l->aux.n == 1 && heap_min_key(&l->aux) == j->state->pending_due,
	      "in the deadline heap at its due");
	check(loopkit_out(k)[0] == '\0', "nothing printed yet");
	tick_deadline_due(l, j, j->state->pending_due);
	check(!j->state->pending && l->aux.n == 0, "acted at its due, out of the heap");
	check(strcmp(loopkit_out(k), "late 3\n") == 0, "then printed: '%s'", loopkit_out(k));
	loopkit_free(k);
}

/* A timer read that fails (a closed descriptor) fails the loop through
 * its status: shutdown asked for, status 1, and no further wake-up. */
static void test_failure_flows_down(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);
	struct job *j = loopkit_job(k, "f", "%n", now, MS);
	struct clock_timer *ct;
	int err = dup(2), null = open("/dev/null", O_WRONLY);

	tick_start_job(l, j);
	ct = tick_clock_for(l, CLOCK_MONOTONIC);
	close(ct->t.fd);
	ct->t.fd = open("/dev/null", O_RDONLY); /* reads 0 bytes: an error */
	dup2(null, 2);
	tick_on_clock(l, ct);
	output_flush(&l->ev.err);
	dup2(err, 2);
	check(l->st.phase == PHASE_SHUTDOWN && l->st.status == 1 && l->st.final,
	      "status 1, shutdown");
	check(status_take_stop(&l->st) == SIGTERM, "a stop as by SIGTERM is asked of the loop");
	check(l->starts.n == 0, "nothing queued");
	close(null);
	close(err);
	loopkit_free(k);
}

int main(void)
{
	alarm(30);
	test_queue();
	test_start_and_wake();
	test_elapse_now();
	test_elapse_later();
	test_failure_flows_down();
	return tally_finish(&tally, "tick");
}
