/* SPDX-License-Identifier: MIT */
/* tzrule: POSIX TZ rules, read and evaluated (see tzrule.h). Years are
 * computed on demand; an instant is cut to within one 400-year period,
 * whose calendar repeats. */
#include "tzrule.h"

#include <string.h>

#include "ascii.h"
#include "civil.h"

#define SECS_PER_HOUR 3600
#define SECS_PER_DAY 86400
#define DAYS_PER_400Y 146097
#define SECS_PER_400Y ((int64_t)DAYS_PER_400Y * SECS_PER_DAY)
/* TZif v3 lets a rule's time of day range over -167..167 hours. */
#define MAX_RULE_HOURS 167

/* POSIX rule evaluation */

/* Days since the epoch of the date RULE names in YEAR. */
static int64_t rule_day(const struct rule_date *rule, int64_t year)
{
	int64_t jan1 = days_from_civil(year, 1, 1);
	int64_t first, day;
	int len;

	switch (rule->kind) {
	case RULE_JULIAN1:
		return jan1 + rule->day - 1 + (is_leap_year(year) && rule->day >= 60);
	case RULE_JULIAN0:
		return jan1 + rule->day;
	case RULE_MONTH:
	default:
		first = days_from_civil(year, rule->month, 1);
		day = first + (rule->day - weekday_from_days(first) + 7) % 7 + 7 * (rule->week - 1);
		len = days_in_month(year, rule->month);
		while (day - first >= len)
			day -= 7;
		return day;
	}
}

struct rule_event {
	int64_t at;
	int64_t year;
	bool dst; /* the state from AT on */
};

/* Whether event A takes effect after event B. Ties between years go to the
 * later year, so a rule whose daylight time ends at the instant the next
 * year's begins (tzcode's "all year DST" idiom) stays in daylight time. */
static bool event_after(const struct rule_event *a, const struct rule_event *b)
{
	if (a->at != b->at)
		return a->at > b->at;
	if (a->year != b->year)
		return a->year > b->year;
	return !a->dst && b->dst;
}

static void rule_events(const struct posix_tz *rule, int64_t year, struct rule_event ev[2])
{
	ev[0].at = rule_day(&rule->start, year) * SECS_PER_DAY + rule->start.secs - rule->std_off;
	ev[0].year = year;
	ev[0].dst = true;
	ev[1].at = rule_day(&rule->end, year) * SECS_PER_DAY + rule->end.secs - rule->dst_off;
	ev[1].year = year;
	ev[1].dst = false;
}

/* Changes happen within about nine days of their nominal year: rule times
 * reach 167 hours and offsets 26. */
#define RULE_REACH (9 * SECS_PER_DAY)

struct rule_search {
	int64_t t;               /* reduced instant */
	struct rule_event prev;  /* last change at or before t */
	struct rule_event after; /* first change after t */
	bool have_prev, have_after;
};

static void rule_consider_year(const struct posix_tz *rule, int64_t year, struct rule_search *s)
{
	struct rule_event ev[2];

	rule_events(rule, year, ev);
	for (int i = 0; i < 2; i++) {
		if (ev[i].at <= s->t) {
			if (!s->have_prev || event_after(&ev[i], &s->prev))
				s->prev = ev[i];
			s->have_prev = true;
		} else if (!s->have_after || event_after(&s->after, &ev[i])) {
			s->after = ev[i];
			s->have_after = true;
		}
	}
}

/* The civil year holding day DAYS (days since 1970-01-01). */
static int64_t year_of_day(int64_t days)
{
	int64_t year;
	int month, day;

	civil_from_days(days, &year, &month, &day);
	return year;
}

static int64_t year_start(int64_t year)
{
	return days_from_civil(year, 1, 1) * SECS_PER_DAY;
}

/* Finds, for a rule with daylight time, whether T is in daylight time and
 * (if NEXT is not NULL) the next change after T. The rule repeats every 400
 * years (146097 days are whole weeks), so T is first reduced into
 * 1970..2369: that keeps every year small and makes the whole int64 range
 * work. *has_next is false when the next change does not fit in an int64.
 *
 * A year's changes lie within RULE_REACH of that year, so only the years
 * around T whose changes could still beat the best found so far are
 * computed: usually just T's own year. (T is cut to within one period
 * with % first because floor_mod multiplies back and would overflow near
 * the ends of the int64 range.) */
void tzrule_locate(const struct posix_tz *rule, int64_t t, bool *dst, int64_t *next, bool *has_next)
{
	struct rule_search s = {
		.t = floor_mod(t % SECS_PER_400Y, SECS_PER_400Y),
	};
	int64_t year = year_of_day(s.t / SECS_PER_DAY);
	int64_t y;

	rule_consider_year(rule, year, &s);
	for (y = year - 1; y >= year - 3; y--) {
		if (s.have_prev && s.prev.at >= year_start(y + 1) + RULE_REACH)
			break;
		rule_consider_year(rule, y, &s);
	}
	for (y = year + 1; y <= year + 3; y++) {
		int64_t earliest = year_start(y) - RULE_REACH;

		if (s.t < earliest && (!next || (s.have_after && s.after.at <= earliest)))
			break;
		rule_consider_year(rule, y, &s);
	}
	*dst = s.have_prev && s.prev.dst;
	if (next)
		*has_next = s.have_after && !__builtin_add_overflow(t, s.after.at - s.t, next);
}

int32_t tzrule_offset_at(const struct posix_tz *rule, int64_t t, int *isdst)
{
	bool dst = false;

	if (rule->has_dst)
		tzrule_locate(rule, t, &dst, NULL, NULL);
	if (isdst)
		*isdst = dst;
	return dst ? rule->dst_off : rule->std_off;
}

/* POSIX TZ string parsing */

/* A name is three or more letters, or <...> around three or more letters,
 * digits, '+' and '-' (the brackets are not part of the name). */
static bool parse_tz_name(const char **sp, char *out)
{
	const char *s = *sp, *start = s;
	size_t len;

	while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
		s++;
	if (s == start && *s == '<') {
		start = ++s;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || is_digit(*s) ||
		       *s == '+' || *s == '-')
			s++;
		if (*s != '>')
			return false;
		len = (size_t)(s - start);
		s++;
	} else {
		len = (size_t)(s - start);
	}
	if (len < 3 || len >= TZRULE_ABBR_MAX)
		return false;
	memcpy(out, start, len);
	out[len] = '\0';
	*sp = s;
	return true;
}

static bool parse_digits(const char **sp, int max_digits, int *value)
{
	const char *s = *sp;
	int v = 0, n = 0;

	while (is_digit(*s) && n < max_digits) {
		v = v * 10 + (*s++ - '0');
		n++;
	}
	if (n == 0 || is_digit(*s))
		return false;
	*value = v;
	*sp = s;
	return true;
}

/* hh[:mm[:ss]] with hours up to MAX_HOURS, as a count of seconds. */
static bool parse_hms(const char **sp, int max_hours, int32_t *secs)
{
	const char *s = *sp;
	int h, m = 0, sec = 0;

	if (!parse_digits(&s, 3, &h) || h > max_hours)
		return false;
	if (*s == ':') {
		s++;
		if (!parse_digits(&s, 2, &m) || m > 59)
			return false;
		if (*s == ':') {
			s++;
			if (!parse_digits(&s, 2, &sec) || sec > 59)
				return false;
		}
	}
	*secs = h * SECS_PER_HOUR + m * 60 + sec;
	*sp = s;
	return true;
}

/* [+-]hh[:mm[:ss]] with an optional sign; MAX_HOURS bounds the hours. */
static bool parse_signed_hms(const char **sp, int max_hours, int32_t *secs)
{
	const char *s = *sp;
	bool negative = *s == '-';

	if (*s == '+' || *s == '-')
		s++;
	if (!parse_hms(&s, max_hours, secs))
		return false;
	if (negative)
		*secs = -*secs;
	*sp = s;
	return true;
}

/* The date and optional /time of one rule; the time defaults to 02:00. */
/* How far a rule date in a TZ string parsed. glibc's tzset(3) does not
 * reject a bad rule: it keeps what it read before the error, and the
 * zeroed rule where it read nothing. tfd follows it where that state has a
 * meaning it can reproduce, and rejects the string elsewhere. */
enum rule_parse {
	RULE_OK,
	RULE_DATE_ONLY, /* a date, then no time: glibc keeps it at 00:00 */
	RULE_UNREAD,    /* not a date at all: glibc keeps its zeroed rule */
	RULE_NEVER,     /* month 13: glibc's change falls in the next year,
			 * which a year's computation never reaches */
	RULE_BAD,       /* anything else: rejected */
};

static enum rule_parse parse_month_rule(const char **sp, struct rule_date *rule)
{
	const char *s = *sp + 1;

	rule->kind = RULE_MONTH;
	/* clang-format off */
	if (!parse_digits(&s, 2, &rule->month) || *s++ != '.' ||
	    !parse_digits(&s, 1, &rule->week) || *s++ != '.' ||
	    !parse_digits(&s, 1, &rule->day))
		return RULE_BAD;
	/* clang-format on */
	if (rule->week < 1 || rule->week > 5 || rule->day > 6)
		return RULE_BAD;
	if (rule->month == 13)
		return RULE_NEVER;
	if (rule->month < 1 || rule->month > 12)
		return RULE_BAD;
	*sp = s;
	return RULE_OK;
}

static enum rule_parse parse_day_rule(const char **sp, struct rule_date *rule)
{
	const char *s = *sp;

	if (*s == 'M') {
		return parse_month_rule(sp, rule);
	} else if (*s == 'J') {
		s++;
		rule->kind = RULE_JULIAN1;
		if (!parse_digits(&s, 3, &rule->day) || rule->day < 1 || rule->day > 365)
			return RULE_BAD;
	} else if (is_digit(*s)) {
		rule->kind = RULE_JULIAN0;
		if (!parse_digits(&s, 3, &rule->day) || rule->day > 365)
			return RULE_BAD;
	} else {
		return RULE_UNREAD;
	}
	*sp = s;
	return RULE_OK;
}

/* A date, then "/TIME" (default 02:00). As in glibc, a '/' followed by
 * something that is not a time leaves the default. */
static enum rule_parse parse_rule_date(const char **sp, struct rule_date *rule)
{
	const char *s = *sp;
	enum rule_parse r = parse_day_rule(&s, rule);

	if (r != RULE_OK)
		return r;
	rule->secs = 0;
	if (*s != '\0' && *s != '/' && *s != ',')
		return RULE_DATE_ONLY;
	rule->secs = 2 * SECS_PER_HOUR;
	if (*s == '/') {
		s++;
		if (*s == '\0') {
			rule->secs = 0;
			return RULE_DATE_ONLY;
		}
		if (is_digit(*s) || ((*s == '+' || *s == '-') && is_digit(s[1]))) {
			if (!parse_signed_hms(&s, MAX_RULE_HOURS, &rule->secs))
				return RULE_BAD;
		}
	}
	*sp = s;
	return RULE_OK;
}

/* The change glibc keeps for a rule it never read: its zeroed state, day 0
 * of the year counted from 0 (1 January) at 00:00. */
static const struct rule_date zeroed_rule = { RULE_JULIAN0, 0, 0, 0, 0 };

/* The dates after "STD offset DST [offset]" in S, as glibc reads them. A
 * missing date is the United States rule since 2007 (glibc's and tzcode's
 * choice where POSIX leaves it to the implementation). A date in month 13
 * leaves the zone in standard time, so "EST5EDT,M13.2.0,M11.1.0" is EST,
 * as in glibc (but for glibc's own artifact of daylight time from 00:00
 * UTC to 00:00 daylight time on 1 January, which tfd does not copy). A
 * date followed by junk counts at 00:00 and ends the reading; what was not
 * read is glibc's zeroed rule. Text after the end date is ignored, as
 * glibc ignores it. Returns false for what tfd cannot read as glibc does. */
static bool parse_rule_dates(const char *s, struct posix_tz *rule)
{
	struct rule_date *dates[2] = { &rule->start, &rule->end };
	static const char *const us[2] = { "M3.2.0", "M11.1.0" };

	for (int i = 0; i < 2; i++) {
		const char *p;
		enum rule_parse r;

		s += *s == ',';
		p = *s ? s : us[i];
		r = parse_rule_date(&p, dates[i]);
		if (r == RULE_OK) {
			s = *s ? p : s;
			continue;
		}
		if (r == RULE_NEVER && i == 0) {
			rule->has_dst = false;
			return true;
		}
		if (r == RULE_BAD || r == RULE_NEVER)
			return false;
		if (r == RULE_UNREAD)
			*dates[i] = zeroed_rule;
		if (i == 0)
			rule->end = zeroed_rule;
		return true;
	}
	return true;
}

/* Parses a whole POSIX TZ string (no leading ':'). Offsets in the string
 * count west of UTC; they are stored east of UTC. */
bool tzrule_parse(const char *s, struct posix_tz *rule)
{
	int32_t west;

	memset(rule, 0, sizeof(*rule));
	if (!parse_tz_name(&s, rule->std_name) || !parse_signed_hms(&s, 24, &west))
		return false;
	rule->std_off = -west;
	rule->dst_off = rule->std_off;
	if (*s == '\0') {
		strcpy(rule->dst_name, rule->std_name);
		return true;
	}
	if (!parse_tz_name(&s, rule->dst_name))
		return false;
	rule->has_dst = true;
	rule->dst_off = rule->std_off + SECS_PER_HOUR;
	if (*s != ',' && *s != '\0') {
		if (!parse_signed_hms(&s, 24, &west))
			return false;
		rule->dst_off = -west;
	}
	return parse_rule_dates(s, rule);
}
