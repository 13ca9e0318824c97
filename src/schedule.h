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
	SCHEDULE_TIMER,     /* first expiration + optional interval */
	SCHEDULE_CALENDAR,  /* --calendar: next elapse, re-armed each time */
	SCHEDULE_CRON,      /* --cron: likewise */
};

struct schedule {
	enum schedule_kind kind;
	clockid_t clock;        /* the timerfd's clock */
	int64_t first_ns;       /* TIMER: first expiration, absolute on clock */
	int64_t interval_ns;    /* TIMER: 0 for a one-shot timer */
	const struct calendar *calendar;
	const struct cron *cron;
	const struct tz *zone;  /* local zone for calendar and cron */
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

/* For calendar and cron after a wake-up: how many elapses lie in
 * (ARMED_NS, NOW_NS] beyond the armed one (missed while suspended), capped at
 * CAP, and the newest of them (ARMED_NS when none). */
uint64_t schedule_count_missed(const struct schedule *s, int64_t armed_ns,
			       int64_t now_ns, uint64_t cap, int64_t *newest_ns);

/* True when the schedule ever expires more than once. */
bool schedule_repeats(const struct schedule *s);

#endif
