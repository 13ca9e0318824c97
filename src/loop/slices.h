/* SPDX-License-Identifier: MIT */
/* slices: how much time the loop gives the large answers (HTTP's /jobs
 * and /metrics, the control socket's list). Such an answer is made a
 * slice at a time (a part of some kilobytes, or a pass over the whole
 * table: a list's sort, the copy of /metrics' figures), and a slice is
 * begun only while its server's budget lasts: SLICE_NS of making in each
 * SLICE_PERIOD_NS, each slice's own time spent from it (the time it
 * took, measured: a list's JSON costs six times what /metrics' text costs
 * a byte, and a pass what thousands of jobs' parts cost). So a turn of
 * the loop never makes answers for longer than a budget and one slice;
 * the timers, signals and reaping of the next poll come between two
 * periods' slices however many clients ask at once; and clients that ask
 * without end take a third of a core, never the whole of it (under a
 * real-time policy the kernel would throttle a tfd that did, its timers
 * with it). A slice that outran the budget is a debt the next periods
 * pay. HTTP and the control socket have a budget each, so neither waits
 * behind the other. Header-only. */
#ifndef TFD_SLICES_H
#define TFD_SLICES_H

#include <stdbool.h>
#include <stdint.h>

#include "timens.h"

/* 0.3 ms of each millisecond for each server: both at once leave the
 * loop most of every millisecond, and a core more than a third idle. In
 * 0.3 ms: about 50 KB of a list's JSON, 300 KB of /metrics' text, so
 * 10,000 jobs' /jobs (2 MB) takes some 50 ms, however quiet tfd is. */
#define SLICE_NS INT64_C(300000)
#define SLICE_PERIOD_NS INT64_C(1000000)

/* The part of an answer made in one slice, at most. */
#define SLICE_PART_BYTES (32 * 1024)

struct slice_budget {
	int64_t left_ns;  /* below 0: a debt */
	int64_t renew_at; /* CLOCK_MONOTONIC */
};

/* After a poll, at NOW (monotonic): each period over gives SLICE_NS
 * again, up to one period's worth. */
static inline void slice_budget_renew(struct slice_budget *b, int64_t now)
{
	int64_t periods;

	if (now < b->renew_at)
		return;
	periods = b->renew_at ? 1 + (now - b->renew_at) / SLICE_PERIOD_NS : 1;
	b->left_ns = periods > (SLICE_NS - b->left_ns) / SLICE_NS ? SLICE_NS
								  : b->left_ns + periods * SLICE_NS;
	b->renew_at = ns_after(now, SLICE_PERIOD_NS);
}

static inline bool slice_budget_spent(const struct slice_budget *b)
{
	return b->left_ns <= 0;
}

/* A slice begins: the instant slice_end wants. */
static inline int64_t slice_begin(void)
{
	return clock_now_ns(CLOCK_MONOTONIC);
}

/* The slice begun at BEGAN is over: its time is spent from B. */
static inline void slice_end(struct slice_budget *b, int64_t began)
{
	int64_t took = clock_now_ns(CLOCK_MONOTONIC) - began;

	b->left_ns = took < b->left_ns - INT64_MIN / 2 ? b->left_ns - took : INT64_MIN / 2;
}

/* When an answer that waits for B may go on (monotonic): at once while
 * some is left, else at the renewal. The server whose answers wait says
 * so to the loop, which wakes then. */
static inline int64_t slice_budget_next(const struct slice_budget *b)
{
	return b->left_ns > 0 ? 0 : b->renew_at;
}

#endif
