/* SPDX-License-Identifier: MIT */
/* next_elapse: times 100,000 successive next-elapse computations of the
 * calendar event "*:0/15" and the cron expression "* /15 * * * *" (without
 * the space), and prints the cost per call.
 *
 * Build and run from the top of the tree:
 *   cc -std=c11 -O2 -D_GNU_SOURCE -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64 \
 *      -Isrc/base -Isrc/time -o build/next_elapse bench/next_elapse.c \
 *      $(ls src/time/[a-z]*.c src/base/[a-z]*.c)
 *   build/next_elapse [ZONE]      (default: the zone of TZ)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "calendar.h"
#include "cron.h"
#include "tz.h"

#define CALLS 100000
/* 2026-01-01 00:00:00 UTC, so that the run crosses DST changes. */
#define START_NS (INT64_C(1767225600) * 1000000000)

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void report(const char *what, int64_t elapsed, int64_t last)
{
	printf("%-28s %8.1f ns/call  (%d calls, %.3f s, last elapse %" PRId64 ")\n",
	       what, (double)elapsed / CALLS, CALLS, (double)elapsed / 1e9,
	       last / 1000000000);
}

static int bench_calendar(const struct tz *zone)
{
	struct calendar *cal;
	char err[256];
	int64_t t = START_NS, start;

	if (calendar_parse_local("*:0/15", NULL, NULL, NULL, &cal, err, sizeof(err)) != 0) {
		fprintf(stderr, "next_elapse: %s\n", err);
		return 1;
	}
	start = now_ns();
	for (int i = 0; i < CALLS; i++) {
		if (calendar_next(cal, zone, t, &t) != 0) {
			fprintf(stderr, "next_elapse: calendar ran out after %d calls\n", i);
			calendar_free(cal);
			return 1;
		}
	}
	report("calendar '*:0/15'", now_ns() - start, t);
	calendar_free(cal);
	return 0;
}

static int bench_cron(const struct tz *zone)
{
	struct cron *cron;
	char err[256];
	int64_t t = START_NS, start;

	if (cron_parse("*/15 * * * *", &cron, err, sizeof(err)) != 0) {
		fprintf(stderr, "next_elapse: %s\n", err);
		return 1;
	}
	start = now_ns();
	for (int i = 0; i < CALLS; i++) {
		if (cron_next(cron, zone, t, &t) != 0) {
			fprintf(stderr, "next_elapse: cron ran out after %d calls\n", i);
			cron_free(cron);
			return 1;
		}
	}
	report("cron '*/15 * * * *'", now_ns() - start, t);
	cron_free(cron);
	return 0;
}

int main(int argc, char **argv)
{
	char err[256];
	struct tz *zone = tz_load(argc > 1 ? argv[1] : NULL, err, sizeof(err));
	int status;

	if (!zone) {
		fprintf(stderr, "next_elapse: %s\n", err);
		return 1;
	}
	printf("zone %s/%s\n", tz_std_abbr(zone), tz_dst_abbr(zone));
	status = bench_calendar(zone) | bench_cron(zone);
	tz_free(zone);
	return status;
}
