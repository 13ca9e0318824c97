/* SPDX-License-Identifier: MIT */
/* parse_timestamp: the TIMESTAMP syntax of systemd.time(7), read the way
 * systemd 252's parse_timestamp() reads it, quirks included (pinned down
 * by shared/corpus), plus RFC 3339 forms: dates and times in strptime(3)'s
 * layouts, "today" and its kin, "+5min" and "5min ago", "@EPOCH", and a
 * trailing zone ("UTC", "+01:00", "Europe/Berlin", the local zone's
 * abbreviations). Nothing here reads the clock, the environment or a
 * file: "now" and the zones come in through struct time_context. */
#include "parse_time.h"
#include "parse_common.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ascii.h"
#include "civil.h"
#include "timens.h"

/* A wall-clock reading, like struct tm. */
struct civil {
	int64_t year;
	int mon;            /* 1..12 */
	int mday;           /* 0..32 after "yesterday"/"tomorrow" */
	int hour, min, sec; /* sec up to 61, as strptime(3) allows */
	int wday;
	int64_t frac_ns;
};

/* Breaks LOCAL (seconds since the epoch, counted as if the wall clock were
 * UTC) into a civil date and time. */
static void civil_from_local(int64_t local, struct civil *c)
{
	int64_t days = floor_div(local, SEC_PER_DAY);
	int64_t rem = local - days * SEC_PER_DAY;

	civil_from_days(days, &c->year, &c->mon, &c->mday);
	c->hour = (int)(rem / 3600);
	c->min = (int)(rem / 60 % 60);
	c->sec = (int)(rem % 60);
	c->wday = weekday_from_days(days);
	c->frac_ns = 0;
}

/* Zones */

/* A loaded zone, or a fixed offset (UTC, "+01:00"). */
struct zone {
	const struct tz *tz; /* NULL: FIXED applies */
	int32_t fixed;       /* seconds east of UTC */
};

static int32_t zone_offset(const struct zone *zone, int64_t t, int *isdst)
{
	if (zone->tz)
		return tz_offset_at(zone->tz, t, isdst);
	if (isdst)
		*isdst = 0;
	return zone->fixed;
}

/* A zone together with "now" read on its wall clock: what the parser needs
 * to fill in the parts a timestamp leaves out. */
struct where {
	struct zone zone;
	int64_t now_ns;
	int32_t now_offset;
	struct civil now;
	/* The standard and daylight abbreviations a trailing word is
	 * compared with, as systemd compares it with tzname[0] and
	 * tzname[1]; unused without a loaded zone. */
	const char *abbrs[2];
	/* What the caller asked and learns, carried from one where to the
	 * next (where_carry). */
	bool upcoming;               /* time_context's */
	bool local;                  /* this is the local zone's clock */
	struct timestamp_form *form; /* what the text was; NULL: not asked */
};

/* W for a loaded zone or a fixed offset. The abbreviations are glibc's
 * tzname as of "now": under the oracle's libfaketime, pinning the clock
 * converts "now" with localtime, which leaves tzname describing that
 * instant (Asia/Tokyo: JST/JST today, JST/JDT in 1950). A bare
 * systemd-analyze converts nothing first and compares with the names
 * tzset() gives; tfd follows the oracle its corpus was made with. */
static void where_init(struct where *w, const struct tz *tz, int32_t fixed, int64_t now_ns)
{
	int64_t secs = floor_div(now_ns, NSEC_PER_SEC);

	w->zone.tz = tz;
	w->zone.fixed = fixed;
	w->now_ns = now_ns;
	w->now_offset = zone_offset(&w->zone, secs, NULL);
	civil_from_local(secs + w->now_offset, &w->now);
	w->abbrs[0] = w->abbrs[1] = NULL;
	if (tz)
		tz_abbrs_at(tz, secs, &w->abbrs[0], &w->abbrs[1]);
	w->upcoming = w->local = false;
	w->form = NULL;
}

/* TO asks what FROM asked, and tells the same caller. */
static void where_carry(struct where *to, const struct where *from)
{
	to->upcoming = from->upcoming;
	to->form = from->form;
}

/* Timestamps: absolute forms */

/* The date and time layouts systemd 252 tries, in its order, with strptime(3)
 * conversions: a space matches any run of white space (also none), numbers
 * may be preceded by white space and take at most their width in digits.
 * The "T" layouts are tfd's RFC 3339 additions. */
static const struct form {
	const char *layout;
	bool seconds; /* ends in %S: a fraction may follow */
	bool time;    /* has a time of day */
	bool date;    /* has a date */
} forms[] = {
	/* clang-format off */
	{ "%y-%m-%d %H:%M:%S", true, true, true },
	{ "%Y-%m-%d %H:%M:%S", true, true, true },
	{ "%Y-%m-%dT%H:%M:%S", true, true, true },
	{ "%b %d %H:%M:%S", true, true, true },
	{ "%y-%m-%d %H:%M", false, true, true },
	{ "%Y-%m-%d %H:%M", false, true, true },
	{ "%Y-%m-%dT%H:%M", false, true, true },
	{ "%y-%m-%d", false, false, true },
	{ "%Y-%m-%d", false, false, true },
	{ "%H:%M:%S", true, true, false },
	{ "%H:%M", false, true, false },
	/* clang-format on */
};

/* A number as strptime(3) reads one: white space first, then up to NDIGITS
 * digits, stopping early once another digit would pass HI. */
static bool scan_number(const char **pp, const char *end, int lo, int hi, int ndigits, int *out)
{
	const char *p = *pp;
	int v = 0;

	while (p < end && is_space(*p))
		p++;
	if (p == end || !is_digit(*p))
		return false;
	do {
		v = v * 10 + (*p++ - '0');
	} while (--ndigits > 0 && v * 10 <= hi && p < end && is_digit(*p));
	if (v < lo || v > hi)
		return false;
	*pp = p;
	*out = v;
	return true;
}

/* An English month name, full or abbreviated to three letters, in any
 * case; unlike numbers, not preceded by white space. */
static bool scan_month(const char **pp, const char *end, int *mon)
{
	for (int i = 0; i < 12; i++) {
		size_t n = civil_name_length(*pp, (size_t)(end - *pp), civil_month_names[i]);

		if (n > 0) {
			*pp += n;
			*mon = i + 1;
			return true;
		}
	}
	return false;
}

/* Reads [P, END) against LAYOUT into C; returns where reading stopped, or
 * NULL. Like strptime, it fills in the weekday once a date was read. */
static const char *scan_layout(const char *p, const char *end, const char *layout, struct civil *c)
{
	bool date = false;
	int v = 0;

	for (; *layout; layout++) {
		bool ok = true;

		if (*layout == ' ') {
			while (p < end && is_space(*p))
				p++;
			continue;
		}
		if (*layout != '%') {
			if (p == end || *p != *layout)
				return NULL;
			p++;
			continue;
		}
		switch (*++layout) {
		case 'y':
			ok = scan_number(&p, end, 0, 99, 2, &v);
			c->year = v >= 69 ? 1900 + v : 2000 + v;
			date = true;
			break;
		case 'Y':
			ok = scan_number(&p, end, 0, 9999, 4, &v);
			c->year = v;
			date = true;
			break;
		case 'm':
			ok = scan_number(&p, end, 1, 12, 2, &c->mon);
			date = true;
			break;
		case 'b':
			ok = scan_month(&p, end, &c->mon);
			date = true;
			break;
		case 'd':
			ok = scan_number(&p, end, 1, 31, 2, &c->mday);
			date = true;
			break;
		case 'H':
			ok = scan_number(&p, end, 0, 23, 2, &c->hour);
			break;
		case 'M':
			ok = scan_number(&p, end, 0, 59, 2, &c->min);
			break;
		case 'S':
			ok = scan_number(&p, end, 0, 61, 2, &c->sec);
			break;
		}
		if (!ok)
			return NULL;
	}
	if (date)
		c->wday = weekday_from_days(days_from_civil(c->year, c->mon, c->mday));
	return p;
}

/* Digits after the decimal point of the seconds, up to the end: nine are
 * kept exactly, a tenth rounds (systemd rounds its sixth likewise). */
static bool scan_fraction(const char *p, const char *end, int64_t *ns)
{
	int64_t v = 0;
	int n = 0;

	if (p == end || !is_digit(*p))
		return false;
	for (; p < end && is_digit(*p); p++, n++) {
		if (n < 9)
			v = v * 10 + (*p - '0');
		else if (n == 9 && *p >= '5')
			v++;
	}
	for (; n < 9; n++)
		v *= 10;
	if (p != end)
		return false;
	*ns = v;
	return true;
}

enum {
	PARSED = 0,
	INVALID = -1, /* a form matched, but its value is bad */
	NO_FORM = -2, /* no form matched */
};

/* Tries the layouts in order on [P, END), starting from C (now). */
static int scan_forms(const char *p, const char *end, struct civil *c, const struct form **matched,
		      struct why *why)
{
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct civil t = *c;
		const char *q;

		if (!forms[i].time)
			t.hour = t.min = 0;
		if (!forms[i].seconds)
			t.sec = 0;
		q = scan_layout(p, end, forms[i].layout, &t);
		if (!q)
			continue;
		if (forms[i].seconds && q < end && *q == '.') {
			if (!scan_fraction(q + 1, end, &t.frac_ns))
				return why_set(why, "bad fraction of a second");
		} else if (q != end) {
			continue;
		}
		*c = t;
		*matched = &forms[i];
		return PARSED;
	}
	return NO_FORM;
}

/* "today", "yesterday", "tomorrow": midnight, relative to now's date. */
static bool scan_day_word(const char *p, const char *end, struct civil *c)
{
	static const struct {
		const char *word;
		int days;
	} words[] = { { "today", 0 }, { "yesterday", -1 }, { "tomorrow", 1 } };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (is_word(p, end, words[i].word)) {
			c->mday += words[i].days;
			c->hour = c->min = c->sec = 0;
			return true;
		}
	}
	return false;
}

/* A leading weekday name ("Thu ", "thursday "), which must match the date. */
static const char *skip_weekday(const char *p, const char *end, int *weekday)
{
	for (int i = 0; i < 7; i++) {
		size_t n = civil_name_length(p, (size_t)(end - p), civil_day_names[i]);

		if (n > 0 && p + n < end && p[n] == ' ') {
			*weekday = i;
			return p + n + 1;
		}
	}
	return p;
}

/* The instant C names in W's zone; WANT_DST is -1, or 0/1 after a standard
 * or daylight abbreviation. */
static int civil_to_ns(const struct civil *c, const struct where *w, int want_dst, int64_t *ns,
		       struct why *why)
{
	int sec = c->sec > 59 ? 59 : c->sec;
	/* mday may be 0 or past the month's end after "yesterday" and
	 * "tomorrow": days_from_civil counts on, as mktime(3) does. */
	int64_t wall = days_from_civil(c->year, c->mon, c->mday) * SEC_PER_DAY + c->hour * 3600 +
		       c->min * 60 + sec;
	/* systemd-analyze converts one timestamp per process, so mktime
	 * starts from the offset a fresh process remembers: none. The answer
	 * in a repeated hour then does not depend on "now". */
	int64_t t, guess = 0;

	if (!w->zone.tz)
		t = wall - w->zone.fixed;
	else if (!tz_mktime(w->zone.tz, wall, want_dst, &guess, &t))
		return why_set(why, "no such local time");
	/* A leap second (:60, :61) counts on past :59, as in mktime. */
	t += c->sec - sec;
	if (t < 0)
		return why_set(why, "before 1970-01-01 00:00:00 UTC");
	if (__builtin_mul_overflow(t, NSEC_PER_SEC, ns) ||
	    __builtin_add_overflow(*ns, c->frac_ns, ns))
		return why_set(why, "after 2262-04-11 23:47:16 UTC (out of range)");
	return PARSED;
}

/* A date and/or time, "today"/"yesterday"/"tomorrow", optionally after a
 * weekday, read on W's wall clock. NEED_TIME: a UTC offset followed, which
 * only makes sense after a time of day. */
static int parse_absolute(const char *p, const char *end, const struct where *w, int want_dst,
			  bool need_time, int64_t *ns, struct why *why)
{
	struct civil c = w->now;
	const struct form *form = NULL;
	int weekday = -1, r;
	bool time_of_day;

	if (!scan_day_word(p, end, &c)) {
		p = skip_weekday(p, end, &weekday);
		r = scan_forms(p, end, &c, &form, why);
		if (r != PARSED)
			return r;
	}
	if (need_time && !(form && form->time))
		return why_set(why, "a UTC offset needs a time of day before it");
	if (weekday >= 0 && c.wday != weekday)
		return why_set(why, "the date is a %s, not a %s", civil_day_names[c.wday],
			       civil_day_names[weekday]);
	time_of_day = form && !form->date && weekday < 0;
	if (w->form) {
		w->form->time_of_day = time_of_day;
		w->form->local = w->local;
	}
	r = civil_to_ns(&c, w, want_dst, ns, why);
	/* at(1): a time already past today is tomorrow's. The day is
	 * counted on the wall clock, so a change to or from daylight saving
	 * time between keeps the time of day. */
	if (r == PARSED && time_of_day && w->upcoming && *ns < w->now_ns) {
		c.mday++;
		r = civil_to_ns(&c, w, want_dst, ns, why);
	}
	return r;
}

/* Turns "no form matched" into a message. */
static int finish_absolute(int r, struct why *why)
{
	if (r == NO_FORM)
		return why_set(why, "not a known timestamp form (like "
				    "2026-12-03 10:00:00, 10:00, tomorrow, +5min "
				    "or @1796292001)");
	return r;
}

/* Timestamps: the whole grammar */

/* NOW moved by SPAN ns, later or earlier. */
static int shift_now(int64_t now, int64_t span, bool later, int64_t *ns, struct why *why)
{
	if (later) {
		if (__builtin_add_overflow(now, span, ns))
			return why_set(why, "after 2262-04-11 23:47:16 UTC (out of range)");
	} else if (__builtin_sub_overflow(now, span, ns) || *ns < 0) {
		return why_set(why, "before 1970-01-01 00:00:00 UTC");
	}
	return 0;
}

/* Relative forms ("now", "+5min", "-1h", "5min ago", "2h left"). Returns
 * NO_FORM when [P, END) is none of them. */
static int parse_relative(const char *p, const char *end, int64_t now, int64_t *ns, struct why *why)
{
	int64_t span;

	if (is_word(p, end, "now")) {
		*ns = now;
		return 0;
	}
	if (p < end && (*p == '+' || *p == '-')) {
		if (parse_span(p + 1, end, &span, why) < 0)
			return -1;
		return shift_now(now, span, *p == '+', ns, why);
	}
	if (has_suffix(p, end, " ago") || has_suffix(p, end, " left")) {
		bool ago = has_suffix(p, end, " ago");

		if (parse_span(p, end - (ago ? 4 : 5), &span, why) < 0)
			return -1;
		return shift_now(now, span, !ago, ns, why);
	}
	return NO_FORM;
}

static bool is_relative(const char *p, const char *end)
{
	return (p < end && (*p == '@' || *p == '+' || *p == '-')) || is_word(p, end, "now") ||
	       has_suffix(p, end, " ago") || has_suffix(p, end, " left");
}

/* systemd 252's grammar, with W as the local zone: "@…", relative forms, or
 * an absolute one, which may end in " UTC" or in one of the zone's own
 * abbreviations ("EDT" selects daylight time). */
static int parse_in_zone(const char *p, const char *end, const struct where *w, int64_t *ns,
			 struct why *why)
{
	struct where utc;
	int r;

	if (p < end && *p == '@')
		return parse_span(p + 1, end, ns, why);
	r = parse_relative(p, end, w->now_ns, ns, why);
	if (r != NO_FORM)
		return r;
	if (has_suffix_nocase(p, end, " UTC")) {
		where_init(&utc, NULL, 0, w->now_ns);
		where_carry(&utc, w);
		return finish_absolute(parse_absolute(p, end - 4, &utc, -1, false, ns, why), why);
	}
	for (int dst = 0; w->zone.tz && dst <= 1; dst++) {
		const char *abbr = w->abbrs[dst];
		size_t n = strlen(abbr);

		if (n > 0 && (size_t)(end - p) > n && has_suffix_nocase(p, end, abbr) &&
		    end[-(ptrdiff_t)n - 1] == ' ')
			return finish_absolute(parse_absolute(p, end - n - 1, w, dst, false, ns,
							      why),
					       why);
	}
	return finish_absolute(parse_absolute(p, end, w, -1, false, ns, why), why);
}

/* Splits off a trailing RFC 3339 offset ("Z", "+01:00", also "+0100"),
 * written right after the time or after one space. */
static bool split_utc_offset(const char *p, const char *end, const char **core_end, int32_t *offset)
{
	size_t len = (size_t)(end - p);
	const char *s;
	int hh = 0, mm = 0;

	if (len >= 2 && end[-1] == 'Z') {
		s = end - 1;
	} else if (len >= 7 && (end[-6] == '+' || end[-6] == '-') && is_digit(end[-5]) &&
		   is_digit(end[-4]) && end[-3] == ':' && is_digit(end[-2]) && is_digit(end[-1])) {
		s = end - 6;
	} else if (len >= 6 && (end[-5] == '+' || end[-5] == '-') && is_digit(end[-4]) &&
		   is_digit(end[-3]) && is_digit(end[-2]) && is_digit(end[-1])) {
		s = end - 5;
	} else {
		return false;
	}
	if (*s != 'Z') {
		hh = (s[1] - '0') * 10 + (s[2] - '0');
		mm = (end[-2] - '0') * 10 + (end[-1] - '0');
		if (hh > 23 || mm > 59)
			return false;
	}
	*offset = (*s == '-' ? -1 : 1) * (hh * 3600 + mm * 60);
	if (s[-1] == ' ')
		s--;
	else if (!is_digit(s[-1]))
		return false;
	*core_end = s;
	return true;
}

/* "… Europe/Berlin": the text before the name is read on that zone's wall
 * clock (systemd.time(7); systemd 252 itself rejects these, systemd issue
 * #34670). Relative forms take no zone. When the name is also one of the
 * zone's abbreviations ("GMT"), the whole text is read in that zone, as
 * systemd does. Returns NO_FORM when the last word names no zone. */
static int parse_with_zone_name(const char *text, const char *end, const struct time_context *ctx,
				const struct where *asked, int64_t *ns, struct why *why)
{
	const char *space = strrchr(text, ' ');
	const struct tz *zone;
	struct where w;

	if (!space || !ctx->find_zone || has_suffix_nocase(text, end, " UTC") ||
	    !tz_name_plausible(space + 1))
		return NO_FORM;
	zone = ctx->find_zone(ctx->find_zone_arg, space + 1);
	if (!zone)
		return NO_FORM;
	where_init(&w, zone, 0, ctx->now_ns);
	where_carry(&w, asked);
	/* systemd reads this in a child that sets TZ to the zone and calls
	 * tzset(), and nothing converts a time before the comparison: there
	 * tzname holds the names tzset() gives. */
	w.abbrs[0] = tz_std_abbr(zone);
	w.abbrs[1] = tz_dst_abbr(zone);
	if (strcmp(space + 1, w.abbrs[0]) == 0 || strcmp(space + 1, w.abbrs[1]) == 0)
		return parse_in_zone(text, end, &w, ns, why);
	if (is_relative(text, space))
		return why_set(why, "a relative time takes no time zone");
	return finish_absolute(parse_absolute(text, space, &w, -1, false, ns, why), why);
}

int parse_timestamp(const char *text, const struct time_context *ctx, int64_t *ns, char *err,
		    size_t errlen)
{
	return parse_timestamp_form(text, ctx, ns, NULL, err, errlen);
}

int parse_timestamp_form(const char *text, const struct time_context *ctx, int64_t *ns,
			 struct timestamp_form *form, char *err, size_t errlen)
{
	struct where asked = { .upcoming = ctx && ctx->upcoming, .form = form };
	struct why why = { "" };
	const char *end, *core_end;
	struct where w;
	int32_t offset;
	int64_t value;
	int r = NO_FORM;

	if (!text)
		text = "";
	if (!ctx) {
		why_set(&why, "no time context");
		return parse_fail(err, errlen, "timestamp", text, &why);
	}
	end = text + strlen(text);
	/* tfd's RFC 3339 forms first; text that only looks like one
	 * ("+5 +0100" is a sum of spans) falls through to systemd's grammar. */
	if (form)
		*form = (struct timestamp_form){ 0 };
	if (split_utc_offset(text, end, &core_end, &offset)) {
		where_init(&w, NULL, offset, ctx->now_ns);
		where_carry(&w, &asked);
		r = parse_absolute(text, core_end, &w, -1, true, &value, &why);
	}
	if (r == NO_FORM) {
		why.msg[0] = '\0';
		r = parse_with_zone_name(text, end, ctx, &asked, &value, &why);
	}
	if (r == NO_FORM) {
		where_init(&w, ctx->local, 0, ctx->now_ns);
		where_carry(&w, &asked);
		w.local = true;
		r = parse_in_zone(text, end, &w, &value, &why);
	}
	if (r < 0)
		return parse_fail(err, errlen, "timestamp", text, &why);
	*ns = value;
	return 0;
}
