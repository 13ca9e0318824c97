/* SPDX-License-Identifier: MIT */
/* calendar_search: the next elapse of a parsed calendar event.
 *
 * The search follows systemd 252 (`systemd-analyze calendar`) closely,
 * because users compare tfd's schedule with their timers: it walks the
 * broken-down local time field by field (year, month, day, weekday, hour,
 * minute, second) and, after every step, lets a mktime(3)-like
 * normalisation tell whether the wall time exists. That is what makes a
 * wall time in a DST gap be skipped rather than shifted, and a repeated
 * hour fire only once. glibc's mktime is emulated on top of tz.h,
 * including the offset it remembers from one call to the next, which
 * decides which of two equal wall times an ambiguous field combination
 * means. */
#include "calendar.h"
#include "calendar_event.h"

#include <stdbool.h>
#include <stdint.h>

#include "civil.h"
#include "timens.h"
#include "tz.h"

/* systemd gives up on a search that has not settled after this many
 * steps (its guard against DST-induced loops). */
#define MAX_ITERATIONS 1000

/* Local time, the way mktime(3) sees it */

/* Broken-down wall time as struct tm holds it: fields may be out of range
 * until normalised; mon counts from 0. */
struct wall {
	int64_t year, mon, mday, hour, min, sec;
	int isdst; /* -1: let the zone decide */
	int wday;  /* 0 = Sunday; valid after normalising */
};

/* The zone (NULL: UTC, as timegm) and the offset glibc's mktime remembers
 * from its previous call, which is its first guess for the next one. */
struct clock {
	const struct tz *zone;
	int64_t guess; /* local minus UTC, seconds */
};

static int64_t wall_to_local_seconds(const struct wall *w)
{
	int64_t months = w->year * 12 + w->mon;
	int64_t days = days_from_civil(floor_div(months, 12), (int)floor_mod(months, 12) + 1, 1) +
		       w->mday - 1;

	return days * 86400 + w->hour * 3600 + w->min * 60 + w->sec;
}

static void wall_from_local_seconds(int64_t local, int isdst, struct wall *w)
{
	int64_t days = floor_div(local, 86400), secs = local - days * 86400;
	int month, day;

	civil_from_days(days, &w->year, &month, &day);
	w->mon = month - 1;
	w->mday = day;
	w->hour = secs / 3600;
	w->min = secs / 60 % 60;
	w->sec = secs % 60;
	w->isdst = isdst;
	w->wday = weekday_from_days(days);
}

static int32_t offset_at(const struct clock *clk, int64_t t, int *isdst)
{
	int dst = 0;
	int32_t off = tz_offset_at(clk->zone, t, &dst);

	*isdst = dst != 0;
	return off;
}

/* mktime(3) / timegm(3): normalises W in place and sets *T to the instant.
 * Returns false (leaving W alone) where mktime would fail or return a
 * negative time, which systemd counts as failure too.
 *
 * Like glibc, the search runs with the seconds clamped to 0..59 and adds the
 * excess afterwards, so "01:59:67" next to a gap is read at 01:59:59 and
 * then moved on by 8 seconds, rather than read as 02:00:07 in the gap. */
static bool normalize_wall(struct clock *clk, struct wall *w, int64_t *t)
{
	int64_t sec = w->sec < 0 ? 0 : w->sec > 59 ? 59 : w->sec;
	int64_t excess = w->sec - sec, when, local;
	int dst = 0;
	int32_t off = 0;

	w->sec = sec;
	local = wall_to_local_seconds(w);
	w->sec = sec + excess;
	when = local + excess;
	if (clk->zone) {
		if (!tz_mktime(clk->zone, local, w->isdst < 0 ? -1 : w->isdst != 0, &clk->guess,
			       &when))
			return false;
		off = offset_at(clk, when, &dst);
		if (excess != 0) {
			when += excess;
			off = offset_at(clk, when, &dst);
		}
	}
	if (when < 0)
		return false;
	wall_from_local_seconds(when + off, dst, w);
	*t = when;
	return true;
}

/* The search */

/* Day DAY counted from the end of W's month (1 = the last day), or -1 when
 * that falls outside the month. */
static int64_t day_from_month_end(struct clock *clk, const struct wall *w, int day)
{
	struct wall t = *w;

	int64_t when;

	t.mon++;
	t.mday = 1 - day;
	if (!normalize_wall(clk, &t, &when))
		return -1;
	return t.mon == w->mon ? t.mday : -1;
}

/* Moves *VAL to the first value of CH at or after it. Returns 1 if it
 * moved, 0 if *VAL already matches (or CH is '*'), -1 if nothing is left. */
static int next_in_chain(struct clock *clk, const struct calendar *cal, const struct chain *ch,
			 const struct wall *w, int64_t *val)
{
	bool from_end = cal->end_of_month && ch == &cal->day;
	int64_t best = -1;

	if (ch->n == 0)
		return 0;
	for (int i = 0; i < ch->n; i++) {
		const struct component *c = &ch->items[i];
		int64_t start = c->start, stop = c->stop, k;

		if (from_end) {
			start = day_from_month_end(clk, w, c->start);
			stop = day_from_month_end(clk, w, c->stop);
			if (stop > 0) {
				int64_t swap = start;

				start = stop;
				stop = swap;
			}
		}
		if (start >= *val) {
			k = start;
		} else if (c->repeat > 0) {
			k = start + c->repeat * ((*val - start + c->repeat - 1) / c->repeat);
			if (stop >= 0 && k > stop)
				continue;
		} else {
			continue;
		}
		if (best < 0 || k < best)
			best = k;
	}
	if (best < 0)
		return -1;
	if (best == *val)
		return 0;
	*val = best;
	return 1;
}

/* Whether W names an existing wall time: 1 if so, 0 if normalising moved it
 * forward (W then holds the normalised time, with the fields below the first
 * changed one reset), -1 if it moved backwards or past MAX_YEAR. */
static int within_bounds(struct clock *clk, struct wall *w)
{
	struct wall t = *w;
	int64_t when;
	int cmp = 0;

	if (w->year > MAX_YEAR || !normalize_wall(clk, &t, &when))
		return -1;
	if (t.year != w->year) {
		cmp = t.year < w->year ? -1 : 1;
		t.mon = 0;
	} else if (t.mon != w->mon) {
		cmp = t.mon < w->mon ? -1 : 1;
		t.mday = 1;
	} else if (t.mday != w->mday) {
		cmp = t.mday < w->mday ? -1 : 1;
		t.hour = 0;
	} else if (t.hour != w->hour) {
		cmp = t.hour < w->hour ? -1 : 1;
		t.min = 0;
	} else if (t.min != w->min) {
		cmp = t.min < w->min ? -1 : 1;
		t.sec = 0;
	} else if (t.sec != w->sec) {
		cmp = t.sec < w->sec ? -1 : 1;
	}
	if (cmp < 0)
		return -1;
	if (cmp > 0) {
		*w = t;
		return 0;
	}
	return 1;
}

static bool weekday_matches(struct clock *clk, const struct calendar *cal, const struct wall *w)
{
	struct wall t = *w;
	int64_t when;

	if (cal->weekdays < 0)
		return true;
	if (!normalize_wall(clk, &t, &when))
		return false;
	/* Bits count from Monday, struct tm from Sunday. */
	return cal->weekdays & (1 << (t.wday == 0 ? 6 : t.wday - 1));
}

static void clear_from_day(struct wall *w, int *usec)
{
	w->mday = 1;
	w->hour = w->min = w->sec = 0;
	*usec = 0;
}

static void clear_from_hour(struct wall *w, int *usec)
{
	w->hour = w->min = w->sec = 0;
	*usec = 0;
}

static void clear_from_minute(struct wall *w, int *usec)
{
	w->min = w->sec = 0;
	*usec = 0;
}

enum step { STEP_MATCHED, STEP_RETRY, STEP_NEVER };

/* Year, month and day: STEP_RETRY when W was moved and the search must
 * start over from the normalised time. */
static enum step match_date(struct clock *clk, const struct calendar *cal, struct wall *w,
			    int *usec)
{
	int64_t v = w->year;
	int r = next_in_chain(clk, cal, &cal->year, w, &v);

	if (r < 0)
		return STEP_NEVER;
	w->year = v;
	if (r > 0) {
		w->mon = 0;
		clear_from_day(w, usec);
	}
	if (within_bounds(clk, w) <= 0)
		return STEP_NEVER;

	v = w->mon + 1;
	r = next_in_chain(clk, cal, &cal->month, w, &v);
	w->mon = v - 1;
	if (r > 0)
		clear_from_day(w, usec);
	if (r < 0 || (r = within_bounds(clk, w)) < 0) {
		w->year++;
		w->mon = 0;
		clear_from_day(w, usec);
		return STEP_RETRY;
	}
	if (r == 0)
		return STEP_RETRY;

	r = next_in_chain(clk, cal, &cal->day, w, &w->mday);
	if (r > 0)
		clear_from_hour(w, usec);
	if (r < 0 || (r = within_bounds(clk, w)) < 0) {
		w->mon++;
		clear_from_day(w, usec);
		return STEP_RETRY;
	}
	if (r == 0)
		return STEP_RETRY;
	if (!weekday_matches(clk, cal, w)) {
		w->mday++;
		clear_from_hour(w, usec);
		return STEP_RETRY;
	}
	return STEP_MATCHED;
}

/* Hour, minute and second, after the date matched. */
static enum step match_time(struct clock *clk, const struct calendar *cal, struct wall *w,
			    int *usec)
{
	int64_t v;
	int r = next_in_chain(clk, cal, &cal->hour, w, &w->hour);

	if (r > 0)
		clear_from_minute(w, usec);
	if (r < 0 || (r = within_bounds(clk, w)) < 0) {
		w->mday++;
		clear_from_hour(w, usec);
		return STEP_RETRY;
	}
	if (r == 0)
		return STEP_RETRY;

	r = next_in_chain(clk, cal, &cal->minute, w, &w->min);
	if (r > 0)
		w->sec = *usec = 0;
	if (r < 0 || (r = within_bounds(clk, w)) < 0) {
		w->hour++;
		clear_from_minute(w, usec);
		return STEP_RETRY;
	}
	if (r == 0)
		return STEP_RETRY;

	v = w->sec * USEC_PER_SEC + *usec;
	r = next_in_chain(clk, cal, &cal->usec, w, &v);
	*usec = (int)(v % USEC_PER_SEC);
	w->sec = v / USEC_PER_SEC;
	if (r < 0 || (r = within_bounds(clk, w)) < 0) {
		w->min++;
		w->sec = *usec = 0;
		return STEP_RETRY;
	}
	return r == 0 ? STEP_RETRY : STEP_MATCHED;
}

/* Whether wall time A (plus A_USEC) comes before B (plus B_USEC), field by
 * field. Both are normalised. */
static bool wall_before(const struct wall *a, int a_usec, const struct wall *b, int b_usec)
{
	const int64_t x[] = { a->year, a->mon, a->mday, a->hour, a->min, a->sec, a_usec };
	const int64_t y[] = { b->year, b->mon, b->mday, b->hour, b->min, b->sec, b_usec };

	for (size_t i = 0; i < sizeof(x) / sizeof(*x); i++) {
		if (x[i] != y[i])
			return x[i] < y[i];
	}
	return false;
}

/* The first wall time at or after W (plus USEC) that the event matches.
 *
 * Normalising a wall time in a DST gap with daylight time requested can land
 * before the gap, so a match may come out earlier than where the search
 * began. As systemd 252 (Debian's, with the fix for zones whose DST is
 * negative) does, the search then moves on by an hour and from then on keeps
 * the daylight flag that normalising produced instead of asking the zone
 * afresh. */
static bool find_next(struct clock *clk, const struct calendar *cal, struct wall *w, int *usec)
{
	const struct wall start = *w;
	const int start_usec = *usec;
	bool keep_dst = false;
	int64_t when;

	for (int i = 0; i < MAX_ITERATIONS; i++) {
		enum step s;

		normalize_wall(clk, w, &when);
		if (!keep_dst)
			w->isdst = cal->dst;
		s = match_date(clk, cal, w, usec);
		if (s == STEP_MATCHED)
			s = match_time(clk, cal, w, usec);
		if (s == STEP_NEVER)
			return false;
		if (s != STEP_MATCHED)
			continue;
		if (!wall_before(w, *usec, &start, start_usec))
			return true;
		w->hour++;
		keep_dst = true;
	}
	return false;
}

int calendar_next(const struct calendar *cal, const struct tz *local, int64_t after_ns,
		  int64_t *next_ns)
{
	struct clock clk = { NULL, 0 };
	struct wall w;
	int64_t start_us = floor_div(after_ns, 1000) + 1;
	int64_t t = floor_div(start_us, USEC_PER_SEC), ns;
	int usec = (int)(start_us - t * USEC_PER_SEC);
	int dst = 0;
	int32_t off = 0;

	if (!cal->utc)
		clk.zone = cal->zone ? cal->zone : local;
	if (clk.zone)
		off = offset_at(&clk, t, &dst);
	clk.guess = off;
	wall_from_local_seconds(t + off, dst, &w);
	if (!find_next(&clk, cal, &w, &usec))
		return -1;
	if (!normalize_wall(&clk, &w, &t) || __builtin_mul_overflow(t, NSEC_PER_SEC, &ns) ||
	    __builtin_add_overflow(ns, (int64_t)usec * 1000, &ns))
		return -1;
	/* The wall-time search cannot go backwards, but a repeated hour read
	 * the other way could; a schedule must always advance. */
	if (ns <= after_ns)
		return -1;
	*next_ns = ns;
	return 0;
}
