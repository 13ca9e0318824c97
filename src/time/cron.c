/* SPDX-License-Identifier: MIT */
/* cron: classic 5-field cron expressions (Vixie/cronie semantics) and their
 * next run time.
 *
 * Each field becomes a bit set. Days follow Vixie's rule: when both the
 * day-of-month and day-of-week fields are restricted (neither starts with
 * '*'), a day matches if either does, otherwise both must. Times are wall
 * times in the given zone, with cronie's DST handling: a job at a fixed time
 * that falls into a spring-forward gap runs once when the clock jumps, and in
 * a repeated fall-back hour only "wildcard" jobs (minute or hour field
 * starting with '*') run again. */
#include "cron.h"

#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "civil.h"
#include "timens.h"

/* The last year whose instants fit int64 nanoseconds (2262-04-11). */
#define LAST_YEAR 2262
/* DST shifts are at most this long; used to look back for the second
 * pass through a repeated hour. */
#define MAX_DST_SHIFT (3 * 3600)

struct cron {
	uint64_t minutes;   /* bit n: minute n */
	uint32_t hours;     /* bit n: hour n */
	uint32_t days;      /* bit n: day of month n (1..31) */
	uint32_t months;    /* bit n: month n (1..12) */
	uint32_t weekdays;  /* bit n: weekday n, 0 = Sunday */
	bool days_star;     /* day-of-month field starts with '*' */
	bool weekdays_star; /* day-of-week field starts with '*' */
	bool wild;          /* minute or hour field starts with '*' */
	bool never;         /* no month has a day the fields allow */
};

/* Parsing */

struct field_def {
	const char *name;
	int low, high;
	/* Names for low.., read by their first three letters, or NULL. */
	const char *const *names;
	int nnames;
};

enum { F_MINUTE, F_HOUR, F_DAY, F_MONTH, F_WEEKDAY, NFIELDS };

static const struct field_def fields[NFIELDS] = {
	{ "minute", 0, 59, NULL, 0 },
	{ "hour", 0, 23, NULL, 0 },
	{ "day-of-month", 1, 31, NULL, 0 },
	{ "month", 1, 12, civil_month_names, 12 },
	/* 7 is Sunday as well as 0. */
	{ "day-of-week", 0, 7, civil_day_names, 7 },
};

struct parse {
	char *err;
	size_t errlen;
	const char *expr;
};

static bool fail(struct parse *ps, const char *why)
{
	snprintf(ps->err, ps->errlen, "invalid cron expression '%s': %s", ps->expr, why);
	return false;
}

/* "WHAT in 'ITEM'", naming the list item at fault. */
static bool fail_item(struct parse *ps, const char *what, const char *item, const char *end)
{
	char why[160];

	snprintf(why, sizeof(why), "%s in '%.*s'", what, (int)(end - item), item);
	return fail(ps, why);
}

/* A number, or a 3-letter name where the field has names. Reads from *pp
 * up to END; returns false if what is there is neither. */
static bool read_value(const struct field_def *f, const char **pp, const char *end, int *out)
{
	const char *p = *pp;
	int v = 0;

	if (p < end && is_digit(*p)) {
		for (; p < end && is_digit(*p); p++) {
			if (v > 1000)
				return false;
			v = v * 10 + (*p - '0');
		}
		*pp = p;
		*out = v;
		return true;
	}
	if (!f->names || end - p < 3 || (end - p > 3 && is_alpha(p[3])))
		return false;
	for (int i = 0; i < f->nnames; i++) {
		if (same_nocase(p, f->names[i], 3)) {
			*pp = p + 3;
			*out = f->low + i;
			return true;
		}
	}
	return false;
}

/* Sets the bits of one list item: "*", "N", "N-M", "* /S" or "N-M/S"
 * (without the space). */
static bool parse_item(struct parse *ps, const struct field_def *f, const char *item,
		       const char *end, uint64_t *bits)
{
	const char *p = item;
	int lo = f->low, hi = f->high, step = 1;
	bool range = true;

	if (p == end) {
		char why[64];

		snprintf(why, sizeof(why), "empty list item in the %s field", f->name);
		return fail(ps, why);
	}
	if (*p == '*') {
		p++;
	} else {
		if (!read_value(f, &p, end, &lo))
			return fail_item(ps, "bad value", item, end);
		hi = lo;
		range = p < end && *p == '-';
		if (range) {
			p++;
			if (!read_value(f, &p, end, &hi))
				return fail_item(ps, "bad range end", item, end);
		}
	}
	if (p < end && *p == '/') {
		p++;
		/* Vixie cron steps through ranges only: "5/15" is an error. */
		if (!range)
			return fail_item(ps, "step without a range", item, end);
		if (p == end || !is_digit(*p) || !read_value(&fields[F_MINUTE], &p, end, &step))
			return fail_item(ps, "bad step", item, end);
		if (step == 0)
			return fail_item(ps, "step of 0", item, end);
	}
	if (p != end)
		return fail_item(ps, "unexpected text", item, end);
	if (lo < f->low || lo > f->high || hi < f->low || hi > f->high) {
		char what[64];

		snprintf(what, sizeof(what), "%s out of range %d-%d", f->name, f->low, f->high);
		return fail_item(ps, what, item, end);
	}
	if (lo > hi)
		return fail_item(ps, "range runs backwards", item, end);
	for (int v = lo; v <= hi; v += step)
		*bits |= UINT64_C(1) << v;
	return true;
}

/* One field: a comma list of items. */
static bool parse_field(struct parse *ps, const struct field_def *f, const char *text,
			const char *end, uint64_t *bits)
{
	*bits = 0;
	for (const char *item = text;;) {
		const char *comma = memchr(item, ',', (size_t)(end - item));
		const char *stop = comma ? comma : end;

		if (!parse_item(ps, f, item, stop, bits))
			return false;
		if (!comma)
			return true;
		item = comma + 1;
	}
}

/* Whether some month the expression allows has a day it allows, when the
 * two day fields must both match (any weekday comes round eventually). */
static bool some_day_exists(const struct cron *c)
{
	for (int m = 1; m <= 12; m++) {
		/* February counts with its leap day. */
		int last = m == 2 ? 29 : days_in_month(2001, m);

		if ((c->months >> m & 1) && (c->days & ((UINT32_C(2) << last) - 2)))
			return true;
	}
	return false;
}

static bool parse_fields(struct parse *ps, const char *expr, struct cron *c)
{
	const char *start[NFIELDS], *end[NFIELDS];
	uint64_t bits[NFIELDS];
	const char *p = expr;
	int n = 0;

	for (;;) {
		while (is_blank(*p))
			p++;
		if (*p == '\0')
			break;
		if (n == NFIELDS)
			return fail(ps, "more than 5 fields");
		start[n] = p;
		while (*p && !is_blank(*p))
			p++;
		end[n++] = p;
	}
	if (n < NFIELDS) {
		char why[48];

		snprintf(why, sizeof(why), "5 fields expected, got %d", n);
		return fail(ps, why);
	}
	for (int i = 0; i < NFIELDS; i++) {
		if (!parse_field(ps, &fields[i], start[i], end[i], &bits[i]))
			return false;
	}
	c->minutes = bits[F_MINUTE];
	c->hours = (uint32_t)bits[F_HOUR];
	c->days = (uint32_t)bits[F_DAY];
	c->months = (uint32_t)bits[F_MONTH];
	/* Sunday is both 0 and 7. */
	c->weekdays = (uint32_t)((bits[F_WEEKDAY] | bits[F_WEEKDAY] >> 7) & 0x7f);
	c->wild = *start[F_MINUTE] == '*' || *start[F_HOUR] == '*';
	c->days_star = *start[F_DAY] == '*';
	c->weekdays_star = *start[F_WEEKDAY] == '*';
	return true;
}

static const struct {
	const char *name;
	const char *fields;
} shorthands[] = {
	/* clang-format off */
	{ "@yearly", "0 0 1 1 *" },
	{ "@annually", "0 0 1 1 *" },
	{ "@monthly", "0 0 1 * *" },
	{ "@weekly", "0 0 * * 0" },
	{ "@daily", "0 0 * * *" },
	{ "@midnight", "0 0 * * *" },
	{ "@hourly", "0 * * * *" },
	/* clang-format on */
};

/* "@daily" and friends, as the 5 fields they stand for. */
static bool parse_shorthand(struct parse *ps, const char *word, size_t len, struct cron *c)
{
	for (size_t i = 0; i < sizeof(shorthands) / sizeof(*shorthands); i++) {
		if (strlen(shorthands[i].name) == len &&
		    strncmp(word, shorthands[i].name, len) == 0)
			return parse_fields(ps, shorthands[i].fields, c);
	}
	if (len == 7 && strncmp(word, "@reboot", len) == 0)
		return fail(ps, "@reboot is not supported (tfd has no boot event)");
	return fail(ps, "unknown @ shorthand");
}

int cron_parse(const char *expr, struct cron **out, char *err, size_t errlen)
{
	struct parse ps = { err, errlen, expr };
	struct cron *c = calloc(1, sizeof(*c));
	const char *p = expr;
	bool ok;

	if (!c) {
		snprintf(err, errlen, "invalid cron expression '%s': out of memory", expr);
		return -1;
	}
	while (is_blank(*p))
		p++;
	if (*p == '@') {
		size_t len = strcspn(p, " \t");

		ok = p[len + strspn(p + len, " \t")] == '\0'
			     ? parse_shorthand(&ps, p, len, c)
			     : fail(&ps, "text after the @ shorthand");
	} else {
		ok = parse_fields(&ps, p, c);
	}
	if (!ok) {
		free(c);
		return -1;
	}
	c->never = (c->days_star || c->weekdays_star) && !some_day_exists(c);
	*out = c;
	return 0;
}

void cron_canonical(const struct cron *c, char *buf, size_t len)
{
	snprintf(buf, len,
		 "cron %016" PRIx64 " %06" PRIx32 " %08" PRIx32 " %04" PRIx32 " %02" PRIx32
		 " %d%d%d%d",
		 c->minutes, c->hours, c->days, c->months, c->weekdays, c->days_star,
		 c->weekdays_star, c->wild, c->never);
}

bool cron_never(const struct cron *cron)
{
	return cron->never;
}

void cron_free(struct cron *cron)
{
	free(cron);
}

/* Wall-clock search */

/* The lowest set bit of BITS at or above FROM, or -1. */
static int next_bit(uint64_t bits, int from)
{
	if (from > 63)
		return -1;
	bits >>= from;
	return bits ? from + __builtin_ctzll(bits) : -1;
}

static bool day_matches(const struct cron *c, int64_t days, int mday)
{
	bool dom = c->days >> mday & 1;
	bool dow = c->weekdays >> weekday_from_days(days) & 1;

	if (c->days_star || c->weekdays_star)
		return dom && dow;
	return dom || dow;
}

/* The first day at or after DAYS that the month and day fields allow, or
 * false past LAST_YEAR. */
static bool next_day(const struct cron *c, int64_t *days)
{
	int64_t year;
	int month, mday;

	civil_from_days(*days, &year, &month, &mday);
	while (year <= LAST_YEAR) {
		if (!(c->months >> month & 1)) {
			month++;
			mday = 1;
		} else if (mday > days_in_month(year, month)) {
			month++;
			mday = 1;
		} else if (day_matches(c, days_from_civil(year, month, mday), mday)) {
			*days = days_from_civil(year, month, mday);
			return true;
		} else {
			mday++;
		}
		if (month > 12) {
			month = 1;
			year++;
		}
	}
	return false;
}

/* The first wall time (seconds, counted as if the wall clock were UTC) at
 * or after WALL, on a whole minute, that the expression matches. */
static bool next_wall(const struct cron *c, int64_t wall, int64_t *out)
{
	int64_t minute = floor_div(wall + 59, 60);
	int64_t days = floor_div(minute, 1440);
	int of_day = (int)(minute - days * 1440);
	int hour = of_day / 60, min = of_day % 60;

	for (int tries = 0; tries < 1000000; tries++) {
		int64_t day = days;

		if (!next_day(c, &day))
			return false;
		if (day != days) {
			days = day;
			hour = min = 0;
		}
		int h = next_bit(c->hours, hour);

		if (h >= 0) {
			int m;

			if (h != hour)
				min = 0;
			hour = h;
			m = next_bit(c->minutes, min);

			if (m >= 0) {
				*out = (days * 1440 + hour * 60 + m) * 60;
				return true;
			}
			if (++hour < 24) {
				min = 0;
				continue;
			}
		}
		days++;
		hour = min = 0;
	}
	return false;
}

/* Instants */

/* The run that matching wall time WALL gives after instant AFTER (seconds),
 * if any, under cronie's DST rules. */
static bool run_for_wall(const struct cron *c, const struct tz *zone, int64_t wall, int64_t after,
			 int64_t *run)
{
	int64_t at[2];

	switch (tz_local_to_utc(zone, wall, at)) {
	case 0:
		/* Skipped by a spring-forward gap: a fixed-time job runs when
		 * the clock jumps, a wildcard job just misses it. */
		if (c->wild || at[1] <= after)
			return false;
		*run = at[1];
		return true;
	case 1:
		if (at[0] <= after)
			return false;
		*run = at[0];
		return true;
	default:
		/* Repeated by a fall-back: the first pass runs every job, the
		 * second only wildcard jobs. */
		if (at[0] > after)
			*run = at[0];
		else if (c->wild && at[1] > after)
			*run = at[1];
		else
			return false;
		return true;
	}
}

/* A wildcard job runs again in the second pass through a repeated hour,
 * whose wall times lie before AFTER's own: those runs are looked for when
 * the offset changes around AFTER. */
static bool second_pass_run(const struct cron *c, const struct tz *zone, int64_t after,
			    int64_t wall_after, int64_t *run)
{
	int64_t wall = wall_after - MAX_DST_SHIFT, at[2];
	bool found = false;

	if (!c->wild || tz_offset_at(zone, after - MAX_DST_SHIFT, NULL) ==
				tz_offset_at(zone, after + MAX_DST_SHIFT, NULL))
		return false;
	while (next_wall(c, wall, &wall) && wall <= wall_after) {
		if (tz_local_to_utc(zone, wall, at) == 2 && at[1] > after &&
		    (!found || at[1] < *run)) {
			*run = at[1];
			found = true;
		}
		wall += 60;
	}
	return found;
}

int cron_next(const struct cron *cron, const struct tz *zone, int64_t after_ns, int64_t *next_ns)
{
	int64_t after = floor_div(after_ns, NSEC_PER_SEC), wall_after, wall, run = 0;
	int64_t earlier = 0;

	if (cron->never)
		return -1;
	if (!zone)
		zone = tz_load_utc();
	wall_after = after + tz_offset_at(zone, after, NULL);
	wall = wall_after + 1;
	for (;;) {
		if (!next_wall(cron, wall, &wall))
			return -1;
		if (run_for_wall(cron, zone, wall, after, &run))
			break;
		wall += 60;
	}
	if (second_pass_run(cron, zone, after, wall_after, &earlier) && earlier < run)
		run = earlier;
	if (__builtin_mul_overflow(run, NSEC_PER_SEC, next_ns))
		return -1;
	return 0;
}
