/* SPDX-License-Identifier: MIT */
/* Unit tests for the schedule walk (schedule.h), the one iterator the dry
 * run and the loop share: a timer's grid and its missed expirations, a
 * one-shot timer, --count, an end instant, a calendar's missed elapses
 * with their cap, and the walk back onto the grid after a clock change:
 * set back, no expiration passes twice; set forward, those passed over
 * pass in one wake-up. */
#include "cron.h"
#include "harness.h"
#include "schedule.h"

#include <stdlib.h>

static struct schedule timer(int64_t first, int64_t interval)
{
	return (struct schedule){ .kind = SCHEDULE_TIMER,
				  .clock = CLOCK_MONOTONIC,
				  .first_ns = first,
				  .interval_ns = interval };
}

static void test_timer_grid(void)
{
	struct schedule s = timer(1000, 100);
	struct schedule_walk w;
	int64_t newest;
	bool more;

	schedule_walk_init(&w, &s, 0, INT64_MAX);
	check(schedule_walk_first(&w, 5000) == 0 && w.at_ns == 1000 && w.k == 1,
	      "a timer's first as given, in the past too: %lld", (long long)w.at_ns);
	check(schedule_walk_pass(&w, 1000, 1, &newest, &more) == 1 && more && newest == 1000,
	      "one passed on time");
	check(w.at_ns == 1100 && w.k == 2 && w.passed == 1, "next on the grid: %lld",
	      (long long)w.at_ns);
	/* Woken at 1350: 1100, 1200 and 1300 pass, 1400 is next. */
	check(schedule_walk_pass(&w, 1350, 1, &newest, &more) == 3 && more && newest == 1300,
	      "late: three passed, newest %lld", (long long)newest);
	check(w.at_ns == 1400 && w.k == 5 && w.passed == 4, "then %lld", (long long)w.at_ns);
}

static void test_one_shot(void)
{
	struct schedule s = timer(1000, 0);
	struct schedule_walk w;
	int64_t newest;
	bool more = true;

	schedule_walk_init(&w, &s, 0, INT64_MAX);
	check(schedule_walk_first(&w, 0) == 0 && w.at_ns == 1000, "one-shot first");
	check(schedule_walk_pass(&w, 9000, 1, &newest, &more) == 1 && !more && newest == 1000,
	      "one passed, then none");
}

static void test_count_and_end(void)
{
	struct schedule s = timer(1000, 100);
	struct schedule_walk w;
	int64_t newest;
	bool more = true;

	schedule_walk_init(&w, &s, 2, INT64_MAX);
	check(schedule_walk_first(&w, 0) == 0, "first");
	schedule_walk_pass(&w, 1000, 1, &newest, &more);
	check(more, "the first of two");
	schedule_walk_pass(&w, 1100, 1, &newest, &more);
	check(!more && w.passed == 2, "--count 2 ends after the second");

	/* Missed ones count toward --count too. */
	schedule_walk_init(&w, &s, 3, INT64_MAX);
	schedule_walk_first(&w, 0);
	check(schedule_walk_pass(&w, 1500, 1, &newest, &more) == 6 && !more,
	      "six passed at once end a count of three");

	schedule_walk_init(&w, &s, 0, 1150);
	check(schedule_walk_first(&w, 0) == 0, "first before the end");
	schedule_walk_pass(&w, 1000, 1, &newest, &more);
	check(more && w.at_ns == 1100, "1100 is before the end");
	schedule_walk_pass(&w, 1100, 1, &newest, &more);
	check(!more, "1200 lies past the end");
	schedule_walk_init(&w, &s, 0, 999);
	check(schedule_walk_first(&w, 0) != 0, "a first past the end is none");
}

static void test_after(void)
{
	struct schedule s = timer(1000, 100);
	struct schedule_walk w;

	schedule_walk_init(&w, &s, 0, INT64_MAX);
	check(schedule_walk_after(&w, 500) == 0 && w.at_ns == 1000 && w.k == 1,
	      "before the first: the first");
	check(schedule_walk_after(&w, 1250) == 0 && w.at_ns == 1300 && w.k == 4,
	      "the grid point after: %lld k %llu", (long long)w.at_ns, (unsigned long long)w.k);
	check(schedule_walk_after(&w, 1300) == 0 && w.at_ns == 1400 && w.k == 5, "strictly after");
	s = timer(INT64_MAX - 10, 100);
	schedule_walk_init(&w, &s, 0, INT64_MAX);
	check(schedule_walk_after(&w, INT64_MAX - 5) != 0, "none past the end of time");
}

static void test_calendar(void)
{
	struct calendar *cal = NULL;
	char err[256];
	struct schedule s = { .kind = SCHEDULE_CALENDAR, .clock = CLOCK_REALTIME };
	struct schedule_walk w;
	const int64_t min = INT64_C(60000000000);
	int64_t base = INT64_C(1767225600) * 1000000000, newest; /* 2026-01-01 00:00 UTC */
	bool more;

	if (calendar_parse_local("*:*:00", NULL, NULL, NULL, &cal, err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return;
	}
	s.calendar = cal;
	schedule_walk_init(&w, &s, 0, INT64_MAX);
	check(schedule_walk_first(&w, base) == 0 && w.at_ns == base + min,
	      "the first strictly after now");
	/* Woken five minutes and a half late: the due one and five missed. */
	check(schedule_walk_pass(&w, base + 6 * min + min / 2, 100, &newest, &more) == 6 && more &&
		      newest == base + 6 * min && w.at_ns == base + 7 * min,
	      "missed minutes counted");
	check(schedule_walk_pass(&w, base + 20 * min, 3, &newest, &more) == 4 &&
		      newest == base + 10 * min && w.at_ns == base + 11 * min,
	      "the cap bounds what is enumerated");
	calendar_free(cal);
}

/* The case: an every-minute cron job has run its minute when the
 * clock is stepped back 66 s; the minute must not come again. */
static void test_clock_set_back_cron(void)
{
	struct cron *cr = NULL;
	char err[256];
	struct schedule s = { .kind = SCHEDULE_CRON, .clock = CLOCK_REALTIME };
	struct schedule_walk w;
	const int64_t min = INT64_C(60000000000), sec = INT64_C(1000000000);
	int64_t base = INT64_C(1767225600) * 1000000000, newest; /* 2026-01-01 00:00 UTC */
	bool more;

	if (cron_parse("* * * * *", &cr, err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return;
	}
	s.cron = cr;
	schedule_walk_init(&w, &s, 0, INT64_MAX);
	check(schedule_walk_first(&w, base + 30 * sec) == 0 && w.at_ns == base + min &&
		      w.last_ns == INT64_MIN,
	      "the first minute, none passed yet");
	check(schedule_walk_pass(&w, base + min + sec / 20, 100, &newest, &more) == 1 &&
		      w.last_ns == base + min && w.at_ns == base + 2 * min,
	      "minute 1 passed");
	/* Stepped back 66 s, to 00:00:00.05 - 6 s. */
	check(schedule_walk_clock_set(&w, base + min + sec / 20 - 66 * sec) == 0 &&
		      w.at_ns == base + 2 * min,
	      "set back: minute 1 does not come again, next %lld s",
	      (long long)((w.at_ns - base) / sec));
	/* Stepped back an hour: still the minute after the last one passed. */
	check(schedule_walk_clock_set(&w, base - 60 * min) == 0 && w.at_ns == base + 2 * min,
	      "set back an hour: next %lld s", (long long)((w.at_ns - base) / sec));
	/* Stepped forward past it: it stays due, and one wake-up passes the
	 * minutes passed over (2..10), counted as missed. */
	check(schedule_walk_clock_set(&w, base + 10 * min + sec) == 0 && w.at_ns == base + 2 * min,
	      "set forward: the due one stays");
	check(schedule_walk_pass(&w, base + 10 * min + sec, 100, &newest, &more) == 9 &&
		      newest == base + 10 * min && w.at_ns == base + 11 * min && w.passed == 10,
	      "set forward: the minutes passed over pass once, together");
	/* Forward, but not past the next one: nothing changes. */
	check(schedule_walk_clock_set(&w, base + 10 * min + 30 * sec) == 0 &&
		      w.at_ns == base + 11 * min,
	      "set forward within the minute");
	cron_free(cr);
}

/* --at T --interval I on the realtime clock, and a one-shot --at. */
static void test_clock_set_back_timer(void)
{
	const int64_t min = INT64_C(60000000000);
	int64_t base = INT64_C(1767225600) * 1000000000, newest;
	struct schedule s = timer(base, min), once = timer(base + 5 * min, 0);
	struct schedule_walk w;
	bool more;

	s.clock = once.clock = CLOCK_REALTIME;
	schedule_walk_init(&w, &s, 0, INT64_MAX);
	schedule_walk_first(&w, base - min);
	check(schedule_walk_pass(&w, base, 1, &newest, &more) == 1 && w.at_ns == base + min &&
		      w.k == 2,
	      "T passed");
	check(schedule_walk_clock_set(&w, base - 10 * min) == 0 && w.at_ns == base + min &&
		      w.k == 2,
	      "set back before T: T does not come again, next %lld, k %llu", (long long)w.at_ns,
	      (unsigned long long)w.k);
	/* Set back within the grid, once T + 3I has passed: T + 4I next. */
	check(schedule_walk_pass(&w, base + 3 * min, 1, &newest, &more) == 3 &&
		      w.last_ns == base + 3 * min,
	      "T + I .. T + 3I passed");
	check(schedule_walk_clock_set(&w, base + min + min / 2) == 0 && w.at_ns == base + 4 * min &&
		      w.k == 5,
	      "set back two intervals: next T + 4I");
	/* A one-shot not yet passed stays where it is. */
	schedule_walk_init(&w, &once, 0, INT64_MAX);
	schedule_walk_first(&w, base);
	check(schedule_walk_clock_set(&w, base - 60 * min) == 0 && w.at_ns == base + 5 * min,
	      "a one-shot --at not yet passed keeps its instant");
}

int main(void)
{
	test_timer_grid();
	test_one_shot();
	test_count_and_end();
	test_after();
	test_calendar();
	test_clock_set_back_cron();
	test_clock_set_back_timer();
	return tally_finish(&tally, "schedule");
}
