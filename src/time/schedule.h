/* SPDX-License-Identifier: MIT */
/* schedule: when the timer expires. Pure: every function takes the time it
 * reasons about as an argument; arming the timerfd is the loop's job. */
#ifndef TFD_SCHEDULE_H
#define TFD_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "calendar.h"
#include "cron.h"
#include "tz.h"

enum schedule_kind {
	SCHEDULE_TIMER,    /* first expiration + optional interval */
	SCHEDULE_CALENDAR, /* --calendar: next elapse, re-armed each time */
	SCHEDULE_CRON,     /* --cron: likewise */
};

struct schedule {
	enum schedule_kind kind;
	clockid_t clock;     /* the timerfd's clock */
	int64_t first_ns;    /* TIMER: first expiration, absolute on clock */
	int64_t interval_ns; /* TIMER: 0 for a one-shot timer */
	const struct calendar *calendar;
	const struct cron *cron;
	const struct tz *zone; /* local zone for calendar and cron */
};

/* The first expiration strictly after AFTER_NS (on the schedule's clock;
 * wall-clock ns for calendar and cron), or at FIRST for a timer that has
 * not started. Returns 0, or -1 when the schedule has no such expiration. */
int schedule_next(const struct schedule *s, int64_t after_ns, int64_t *next_ns);

/* For a timer: the time of expiration number K (from 1). -1 on overflow or
 * when a one-shot timer has no K-th expiration. */
int schedule_nth(const struct schedule *s, uint64_t k, int64_t *at_ns);

/* True when an expiration fell in (SINCE_NS, NOW_NS]: --persist's question
 * "was a run missed while tfd was not running?" */
bool schedule_missed(const struct schedule *s, int64_t since_ns, int64_t now_ns);

/* True when the schedule ever expires more than once. */
bool schedule_repeats(const struct schedule *s);

/* A walk over a schedule's expirations within --count and an end instant:
 * the one place that says which expiration follows which, for the dry run
 * and for the loop alike. */
struct schedule_walk {
	const struct schedule *s;
	uint64_t count;  /* no expiration after this many passed; 0 = no limit */
	int64_t end_ns;  /* none after this instant; INT64_MAX = no end */
	uint64_t passed; /* expirations passed so far */
	uint64_t k;      /* timer: grid number of AT (from 1) */
	int64_t at_ns;   /* the next expiration, on the schedule's clock */
	int64_t last_ns; /* the newest expiration passed; INT64_MIN: none */
};

/* A walk over S that has passed nothing yet. */
void schedule_walk_init(struct schedule_walk *w, const struct schedule *s, uint64_t count,
			int64_t end_ns);

/* Sets AT to the first expiration: a timer's first as given (in the past
 * too, as the kernel fires it), else the first strictly after NOW_NS.
 * Returns 0, or -1 when the walk has none. */
int schedule_walk_first(struct schedule_walk *w, int64_t now_ns);

/* Sets AT to the first expiration strictly after AFTER_NS (a timer: the
 * grid point after it, or its first when AFTER_NS is before that), as after
 * the clock was set. Returns 0, or -1 when the walk has none. */
int schedule_walk_after(struct schedule_walk *w, int64_t after_ns);

/* The realtime clock was set and now reads NOW_NS. Set back (AT lies
 * ahead of NOW_NS), AT becomes the first expiration strictly after both
 * NOW_NS and the newest one passed: no expiration is passed twice, as
 * neither cron nor systemd repeats a run. Set forward past AT, AT stays:
 * the wake-up at NOW_NS passes it and those passed over, counted as missed
 * and acted on once. Returns 0, or -1 when the walk has none. */
int schedule_walk_clock_set(struct schedule_walk *w, int64_t now_ns);

/* A wake-up at NOW_NS passes AT and every expiration missed up to NOW_NS
 * (for calendar and cron at most CAP beyond AT), then moves AT to the next
 * one. Returns how many passed; *NEWEST_NS is the newest of them
 * (INT64_MAX when a timer's lies past the end of time), *MORE false when
 * the walk is over (--count reached, no expiration, or past the end). */
uint64_t schedule_walk_pass(struct schedule_walk *w, int64_t now_ns, uint64_t cap,
			    int64_t *newest_ns, bool *more);

#endif
