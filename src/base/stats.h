/* SPDX-License-Identifier: MIT */
/* stats: the --stats summary, as cyclictest reports a run. A fixed-size
 * log-linear histogram gives p99 without allocating per tick. */
#ifndef TFD_STATS_H
#define TFD_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Values below 64 µs are exact; above, each power of two splits into 32
 * buckets, so a percentile is within 1/32 (3 %) of the true value. */
#define STATS_EXACT 64
#define STATS_SUB 32
#define STATS_BUCKETS (STATS_EXACT + (64 - 6) * STATS_SUB)

struct stats {
	uint64_t wakeups;
	uint64_t expirations;
	uint64_t missed;
	int64_t late_min_us;
	int64_t late_max_us;
	int64_t late_sum_us;
	uint32_t histogram[STATS_BUCKETS];
};

void stats_init(struct stats *st);
void stats_add(struct stats *st, uint64_t expirations, int64_t late_ns);

/* "tfd: stats: wakeups W expirations E missed M late_us min A avg B p99 C
 * max D\n". Returns the length. */
size_t stats_format(const struct stats *st, char *buf, size_t len);

/* The smallest bucket bound at or above percentile P (0..100) in µs. */
int64_t stats_percentile_us(const struct stats *st, unsigned p);

#endif
