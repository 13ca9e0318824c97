/* SPDX-License-Identifier: MIT */
/* Unit tests for timens: nanoseconds to struct timespec and back (floor
 * division before the epoch), and an instant plus a span that stops at
 * INT64_MAX ("never") instead of wrapping. */
#include "harness.h"
#include "timens.h"

static void test_timespec(void)
{
	struct timespec ts = ns_to_timespec(-1);

	check(ts.tv_sec == -1 && ts.tv_nsec == 999999999, "-1 ns: %lld s %ld ns",
	      (long long)ts.tv_sec, ts.tv_nsec);
	check(timespec_to_ns(ts) == -1, "-1 ns back");
	ts = ns_to_timespec(NSEC_PER_SEC + 5);
	check(ts.tv_sec == 1 && ts.tv_nsec == 5, "1.000000005 s");
}

static void test_ns_after(void)
{
	check(ns_after(10, 5) == 15, "10 + 5");
	check(ns_after(10, -5) == 5, "a span below 0 is subtracted");
	check(ns_after(INT64_MAX - 5, 5) == INT64_MAX, "to the last instant");
	check(ns_after(INT64_MAX - 5, 6) == INT64_MAX, "past it: never");
	check(ns_after(INT64_MAX, INT64_MAX) == INT64_MAX, "never stays never");
	check(ns_after(1, INT64_MAX) == INT64_MAX, "the longest span");
	check(mono_after(0) <= clock_now_ns(CLOCK_MONOTONIC), "now");
	check(mono_after(INT64_MAX) == INT64_MAX, "now + the longest span: never");
}

int main(void)
{
	test_timespec();
	test_ns_after();
	return tally_finish(&tally, "timens");
}
