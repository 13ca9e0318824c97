/* SPDX-License-Identifier: MIT */
#include "stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void stats_init(struct stats *st)
{
	memset(st, 0, sizeof *st);
	st->late_min_us = INT64_MAX;
	st->late_max_us = INT64_MIN;
}

static unsigned bucket_of(uint64_t us)
{
	unsigned top;

	if (us < STATS_EXACT)
		return (unsigned)us;
	top = 63u - (unsigned)__builtin_clzll(us);
	return STATS_EXACT + (top - 6) * STATS_SUB +
	       (unsigned)((us >> (top - 5)) & (STATS_SUB - 1));
}

/* The largest value that falls in bucket B: a percentile reported from it
 * is never below the true one. */
static uint64_t bucket_top(unsigned b)
{
	unsigned top, sub;

	if (b < STATS_EXACT)
		return b;
	top = (b - STATS_EXACT) / STATS_SUB + 6;
	sub = (b - STATS_EXACT) % STATS_SUB;
	return ((uint64_t)(STATS_SUB + sub + 1) << (top - 5)) - 1;
}

void stats_add(struct stats *st, uint64_t expirations, int64_t late_ns)
{
	int64_t us = late_ns / 1000;

	/* A read() of a timerfd counts at least one expiration; counters
	 * saturate rather than wrap. */
	if (expirations == 0)
		expirations = 1;
	st->wakeups++;
	if (__builtin_add_overflow(st->expirations, expirations, &st->expirations))
		st->expirations = UINT64_MAX;
	if (__builtin_add_overflow(st->missed, expirations - 1, &st->missed))
		st->missed = UINT64_MAX;
	if (us < st->late_min_us)
		st->late_min_us = us;
	if (us > st->late_max_us)
		st->late_max_us = us;
	if (__builtin_add_overflow(st->late_sum_us, us, &st->late_sum_us))
		st->late_sum_us = us < 0 ? INT64_MIN : INT64_MAX;
	st->histogram[bucket_of(us < 0 ? 0 : (uint64_t)us)]++;
}

int64_t stats_percentile_us(const struct stats *st, unsigned p)
{
	/* The rank of percentile P, rounded up, without overflowing. */
	uint64_t want = st->wakeups / 100 * p + (st->wakeups % 100 * p + 99) / 100;
	uint64_t seen = 0;

	if (st->wakeups == 0)
		return 0;
	for (unsigned b = 0; b < STATS_BUCKETS; b++) {
		seen += st->histogram[b];
		if (seen >= want && seen > 0) {
			uint64_t top = bucket_top(b);

			/* The bucket bound may exceed the largest value seen. */
			return (int64_t)top < st->late_max_us ? (int64_t)top : st->late_max_us;
		}
	}
	return st->late_max_us;
}

size_t stats_format(const struct stats *st, char *buf, size_t len)
{
	int64_t min = st->wakeups ? st->late_min_us : 0;
	int64_t max = st->wakeups ? st->late_max_us : 0;
	int64_t avg = st->wakeups ? st->late_sum_us / (int64_t)st->wakeups : 0;
	int n;

	n = snprintf(buf, len,
		     "tfd: stats: wakeups %" PRIu64 " expirations %" PRIu64 " missed %" PRIu64
		     " late_us min %" PRId64 " avg %" PRId64 " p99 %" PRId64 " max %" PRId64 "\n",
		     st->wakeups, st->expirations, st->missed, min, avg,
		     stats_percentile_us(st, 99), max);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}
