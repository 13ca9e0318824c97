/* SPDX-License-Identifier: MIT */
/* calendar: systemd.time(7) calendar events, parsed as systemd 252 reads
 * them (`systemd-analyze calendar`): an optional weekday list, a date, a
 * time, an optional zone, the shorthands ("hourly", "quarterly"), and
 * "@EPOCH". The search for the next elapse is calendar_search.c's; the
 * parsed form the two share is calendar_event.h. */
#include "calendar.h"
#include "calendar_event.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "buf.h"
#include "civil.h"

#define MIN_YEAR 1970
/* systemd refuses longer comma lists. */
#define MAX_COMPONENTS 241
#define ALL_WEEKDAYS 127

/* Parsing */

struct parser {
	const char *reason; /* why the text was rejected */
};

static bool fail(struct parser *ps, const char *reason)
{
	if (!ps->reason)
		ps->reason = reason;
	return false;
}

static bool starts_with_nocase(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++) {
		if (ascii_lower(*s) != *prefix)
			return false;
	}
	return true;
}

static bool equals_nocase(const char *s, const char *word)
{
	return starts_with_nocase(s, word) && s[strlen(word)] == '\0';
}

/* P past its ' ' characters: the separator between a calendar
 * expression's parts, where a tab or newline is no separator. */
static const char *skip_space_chars(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* A chain grows by one item at a time, to fit (buf.h's array, its limit
 * the new count), rather than by doubling: a calendar keeps its six
 * chains for as long as its job lives, almost all of one item, and room
 * for eight in each would cost 10,000 calendar jobs 2 MB more (and a load
 * more instructions in malloc). Its capacity is so always its count. */
static bool chain_add(struct parser *ps, struct chain *ch, int start, int stop, int repeat)
{
	size_t cap = (size_t)ch->n;

	if (ch->n >= MAX_COMPONENTS)
		return fail(ps, "too many list items");
	if (array_reserve(&ch->items, &cap, cap + 1, sizeof *ch->items, cap + 1) != 0)
		return fail(ps, "out of memory");
	ch->items[ch->n++] = (struct component){ start, stop, repeat };
	return true;
}

static void chain_clear(struct chain *ch)
{
	free(ch->items);
	ch->items = NULL;
	ch->n = 0;
}

static bool chain_set_single(struct parser *ps, struct chain *ch, int value)
{
	chain_clear(ch);
	return chain_add(ps, ch, value, -1, 0);
}

/* Reads an unsigned decimal the way strtoul does, failing on overflow. */
static bool read_ulong(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (!is_digit(*p))
		return false;
	for (; is_digit(*p); p++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return false;
	}
	*pp = p;
	*out = v;
	return true;
}

/* Six fraction digits, rounded half up on the seventh as systemd does;
 * further digits are read and ignored. */
static bool read_micro_fraction(const char **pp, int *out)
{
	const char *p = *pp;
	int v = 0, i;

	if (!is_digit(*p))
		return false;
	for (i = 0; i < 6; i++) {
		v *= 10;
		if (is_digit(*p))
			v += *p++ - '0';
	}
	if (*p >= '5' && *p <= '9')
		v++;
	while (is_digit(*p))
		p++;
	*pp = p;
	*out = v;
	return true;
}

/* A number in a chain; for the seconds field it is in microseconds and may
 * carry a fraction ("1.5"), while ".." stays a range. */
static bool read_value(struct parser *ps, const char **pp, bool usec, int *out)
{
	uint64_t v;
	int frac;

	if (!read_ulong(pp, &v))
		return fail(ps, is_digit(**pp) ? "number out of range" : "number expected");
	if (usec) {
		if (__builtin_mul_overflow(v, (uint64_t)USEC_PER_SEC, &v))
			return fail(ps, "number out of range");
		if ((*pp)[0] == '.' && (*pp)[1] != '.') {
			(*pp)++;
			if (!read_micro_fraction(pp, &frac))
				return fail(ps, "digits expected after '.'");
			v += (uint64_t)frac;
		}
	}
	if (v > INT_MAX)
		return fail(ps, "number out of range");
	*out = (int)v;
	return true;
}

static bool ends_component(char c)
{
	return c == '\0' || c == ' ' || c == ',' || c == '-' || c == '~' || c == ':';
}

/* One list item: "5", "1..5", "0/15", "1..20/2". */
static bool parse_component(struct parser *ps, const char **pp, bool usec, struct chain *ch)
{
	int start, stop = -1, repeat = 0;

	if (!read_value(ps, pp, usec, &start))
		return false;
	if ((*pp)[0] == '.' && (*pp)[1] == '.') {
		*pp += 2;
		if (!read_value(ps, pp, usec, &stop))
			return false;
		repeat = usec ? USEC_PER_SEC : 1;
	}
	if (**pp == '/') {
		(*pp)++;
		if (!read_value(ps, pp, usec, &repeat))
			return false;
		if (repeat == 0)
			return fail(ps, "repetition of 0");
	} else if (start > INT_MAX - repeat) {
		return fail(ps, "number out of range");
	} else if (usec && stop >= 0 && start + repeat > stop) {
		/* A seconds range steps by whole seconds unless told
		 * otherwise, so it must span at least one. */
		return fail(ps, "seconds range shorter than its step");
	}
	if (!ends_component(**pp))
		return fail(ps, "unexpected character");
	return chain_add(ps, ch, start, stop, repeat);
}

/* A field: '*' or a comma list. '*' in the seconds field means every whole
 * second. */
static bool parse_chain(struct parser *ps, const char **pp, bool usec, struct chain *ch)
{
	chain_clear(ch);
	if (**pp == '*') {
		(*pp)++;
		return usec ? chain_add(ps, ch, 0, -1, USEC_PER_SEC) : true;
	}
	for (;;) {
		if (!parse_component(ps, pp, usec, ch))
			return false;
		if (**pp != ',')
			return true;
		(*pp)++;
	}
}

/* The weekday named at P, whole or abbreviated, counted from 0 = Monday
 * as the weekday bits are; its length in *len. -1 when P names none. */
static int find_weekday(const char *p, size_t *len)
{
	size_t avail = strlen(p);

	for (int i = 0; i < 7; i++) {
		*len = civil_name_length(p, avail, civil_day_names[i]);
		if (*len > 0)
			return (i + 6) % 7;
	}
	return -1;
}

static bool ends_weekday(char c)
{
	return c == '\0' || c == '-' || c == '.' || c == ',' || c == ' ';
}

/* The optional leading weekday list: "Mon", "Mon..Fri", "Sat,Sun",
 * "Mon-Wed,Fri". Leaves *pp alone when the text starts with no weekday. */
static bool parse_weekdays(struct parser *ps, const char **pp, struct calendar *cal)
{
	int range_from = -1;

	for (bool first = true;; first = false) {
		size_t len;
		int day = find_weekday(*pp, &len);

		if (day < 0)
			return first ? true : fail(ps, "weekday expected");
		*pp += len;
		if (!ends_weekday(**pp))
			return fail(ps, "bad weekday");
		if (range_from > day)
			return fail(ps, "weekday range runs backwards");
		for (int d = range_from >= 0 ? range_from : day; d <= day; d++)
			cal->weekdays |= 1 << d;
		if (**pp == '\0')
			return true;
		if (**pp == ' ') {
			*pp = skip_space_chars(*pp);
			return true;
		}
		if (**pp == '.' || **pp == '-') {
			if (range_from >= 0)
				return fail(ps, "weekday range runs on");
			if (**pp == '.' && (*pp)[1] != '.')
				return fail(ps, "'..' expected in weekday range");
			range_from = day;
			*pp += **pp == '.' ? 2 : 1;
		} else {
			range_from = -1;
			(*pp)++;
		}
		/* A trailing comma is fine, an open range is not. */
		if (**pp == '\0' || **pp == ' ') {
			*pp = skip_space_chars(*pp);
			return range_from < 0 ? true : fail(ps, "open weekday range");
		}
	}
}

/* "@SECONDS": a single instant, in UTC. The number is read as strtoul(3)
 * reads it (leading blanks and a sign are allowed), as systemd does. */
static bool parse_epoch(struct parser *ps, const char **pp, struct calendar *cal)
{
	const char *p = *pp + 1;
	bool negative = false;
	uint64_t v;
	int64_t t, days, secs, year;
	int month, day;

	p = skip_spaces(p);
	if (*p == '+' || *p == '-')
		negative = *p++ == '-';
	if (!read_ulong(&p, &v))
		return fail(ps, "bad number after '@'");
	t = (int64_t)(negative ? 0 - v : v);
	if (t < 0)
		return fail(ps, "instant before 1970");
	days = floor_div(t, 86400);
	secs = t - days * 86400;
	civil_from_days(days, &year, &month, &day);
	if (year > MAX_YEAR)
		return fail(ps, "instant after 2199");
	cal->utc = true;
	*pp = p;
	/* clang-format off */
	return chain_set_single(ps, &cal->year, (int)year) &&
	       chain_set_single(ps, &cal->month, month) &&
	       chain_set_single(ps, &cal->day, day) &&
	       chain_set_single(ps, &cal->hour, (int)(secs / 3600)) &&
	       chain_set_single(ps, &cal->minute, (int)(secs / 60 % 60)) &&
	       chain_set_single(ps, &cal->usec, (int)(secs % 60) * USEC_PER_SEC);
	/* clang-format on */
}

/* The date part: "Y-M-D", "M-D", with '~' in place of the last '-' to count
 * days from the month's end, or "@SECONDS" (then *done is set: no time part
 * follows). When the text turns out to be a time (no '-' follows the first
 * field), *pp is left alone. */
static bool parse_date(struct parser *ps, const char **pp, struct calendar *cal, bool *done)
{
	struct chain f[3] = { { 0, NULL }, { 0, NULL }, { 0, NULL } };
	const char *p = *pp;
	int n = 0;
	bool ok = false;

	*done = false;
	if (*p == '\0')
		return true;
	if (*p == '@') {
		*done = true;
		return parse_epoch(ps, pp, cal);
	}
	for (;;) {
		if (!parse_chain(ps, &p, false, &f[n++]))
			goto out;
		if (n == 1 && (*p == '\0' || *p == ':')) {
			ok = true; /* a time, not a date */
			goto out;
		}
		if (n >= 2 && (*p == '\0' || *p == ' '))
			break;
		if (n == 3 || (n == 2 && cal->end_of_month)) {
			fail(ps, "bad date");
			goto out;
		}
		if (*p == '~')
			cal->end_of_month = true;
		else if (*p != '-') {
			fail(ps, "bad date");
			goto out;
		}
		p++;
	}
	*pp = skip_space_chars(p);
	if (n == 3) {
		cal->year = f[0];
		f[0] = (struct chain){ 0, NULL };
	}
	cal->month = f[n - 2];
	cal->day = f[n - 1];
	f[n - 2] = f[n - 1] = (struct chain){ 0, NULL };
	ok = true;
out:
	for (int i = 0; i < 3; i++)
		chain_clear(&f[i]);
	return ok;
}

/* The time part: "H:M" or "H:M:S"; none at all means 00:00:00. */
static bool parse_time(struct parser *ps, const char **pp, struct calendar *cal)
{
	/* clang-format off */
	if (**pp == '\0')
		return chain_set_single(ps, &cal->hour, 0) &&
		       chain_set_single(ps, &cal->minute, 0) &&
		       chain_set_single(ps, &cal->usec, 0);
	/* clang-format on */
	if (!parse_chain(ps, pp, false, &cal->hour))
		return false;
	if (**pp != ':')
		return fail(ps, "bad time");
	(*pp)++;
	if (!parse_chain(ps, pp, false, &cal->minute))
		return false;
	if (**pp == '\0')
		return chain_set_single(ps, &cal->usec, 0);
	if (**pp != ':')
		return fail(ps, "bad time");
	(*pp)++;
	if (!parse_chain(ps, pp, true, &cal->usec))
		return false;
	return **pp == '\0' ? true : fail(ps, "bad time");
}

/* Shorthands: which fields they fix (the others stay '*'). */
struct shorthand {
	const char *name;
	int months[4]; /* 0-terminated */
	int day;       /* 0: any */
	bool monday;
	bool hour, minute; /* fixed to 0 */
};

static const struct shorthand shorthands[] = {
	{ "minutely", { 0 }, 0, false, false, false },
	{ "hourly", { 0 }, 0, false, false, true },
	{ "daily", { 0 }, 0, false, true, true },
	{ "monthly", { 0 }, 1, false, true, true },
	{ "weekly", { 0 }, 0, true, true, true },
	{ "yearly", { 1 }, 1, false, true, true },
	{ "annually", { 1 }, 1, false, true, true },
	{ "anually", { 1 }, 1, false, true, true },
	{ "quarterly", { 1, 4, 7, 10 }, 1, false, true, true },
	{ "semiannually", { 1, 7 }, 1, false, true, true },
	{ "semi-annually", { 1, 7 }, 1, false, true, true },
	{ "biannually", { 1, 7 }, 1, false, true, true },
	{ "bi-annually", { 1, 7 }, 1, false, true, true },
};

static bool apply_shorthand(struct parser *ps, const struct shorthand *s, struct calendar *cal)
{
	for (int i = 0; i < 4 && s->months[i]; i++) {
		if (!chain_add(ps, &cal->month, s->months[i], -1, 0))
			return false;
	}
	if (s->day && !chain_set_single(ps, &cal->day, s->day))
		return false;
	if (s->monday)
		cal->weekdays = 1;
	if (s->hour && !chain_set_single(ps, &cal->hour, 0))
		return false;
	if (s->minute && !chain_set_single(ps, &cal->minute, 0))
		return false;
	return chain_set_single(ps, &cal->usec, 0);
}

static bool parse_body(struct parser *ps, const char *p, struct calendar *cal)
{
	bool done;

	if (*p == '\0')
		return fail(ps, "empty event");
	for (size_t i = 0; i < sizeof(shorthands) / sizeof(*shorthands); i++) {
		if (equals_nocase(p, shorthands[i].name))
			return apply_shorthand(ps, &shorthands[i], cal);
	}
	if (!parse_weekdays(ps, &p, cal) || !parse_date(ps, &p, cal, &done))
		return false;
	if (!done && !parse_time(ps, &p, cal))
		return false;
	return *p == '\0' ? true : fail(ps, "unexpected text at the end");
}

/* Cuts a trailing " ABBR" off TEXT if ABBR is one of LOCAL's two
 * abbreviations (any case), setting the forced daylight-saving flag. */
static bool split_local_abbr(char *text, const struct tz *local, struct calendar *cal)
{
	size_t len = strlen(text);

	for (int dst = 0; local && dst <= 1; dst++) {
		const char *abbr = dst ? tz_dst_abbr(local) : tz_std_abbr(local);
		size_t n = strlen(abbr);
		char word[64];

		if (n == 0 || n >= sizeof(word) || len < n + 1 || text[len - n - 1] != ' ')
			continue;
		for (size_t i = 0; i <= n; i++)
			word[i] = ascii_lower(abbr[i]);
		if (!equals_nocase(text + len - n, word))
			continue;
		text[len - n - 1] = '\0';
		cal->dst = dst;
		return true;
	}
	return false;
}

/* Cuts a trailing " UTC" (any case), " ABBR" (see split_local_abbr) or
 * " ZONE" off TEXT (modified in place), as systemd does before parsing the
 * rest. An unknown zone is left in place, where the parser then rejects
 * it; its name is returned so the message can say why. */
static const char *split_zone(char *text, const struct tz *local, tz_lookup_fn find_zone, void *arg,
			      struct calendar *cal)
{
	size_t len = strlen(text);
	char *space;

	if (len >= 4 && equals_nocase(text + len - 4, " utc")) {
		text[len - 4] = '\0';
		cal->utc = true;
		return NULL;
	}
	if (split_local_abbr(text, local, cal))
		return NULL;
	space = strrchr(text, ' ');
	if (!space || !find_zone || !tz_name_plausible(space + 1))
		return NULL;
	cal->zone = find_zone(arg, space + 1);
	if (!cal->zone)
		return space + 1;
	*space = '\0';
	return NULL;
}

/* Two-digit years: 0..69 are 20xx, 70..99 are 19xx. */
static void widen_years(struct chain *ch)
{
	for (int i = 0; i < ch->n; i++) {
		int *v[2] = { &ch->items[i].start, &ch->items[i].stop };

		for (int j = 0; j < 2; j++) {
			if (*v[j] >= 0 && *v[j] < 70)
				*v[j] += 2000;
			else if (*v[j] >= 70 && *v[j] < 100)
				*v[j] += 1900;
		}
	}
}

static int compare_components(const void *a, const void *b)
{
	const struct component *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->stop != y->stop)
		return x->stop < y->stop ? -1 : 1;
	if (x->repeat != y->repeat)
		return x->repeat < y->repeat ? -1 : 1;
	return 0;
}

/* Trims each range to its last hit, turns ranges that hit once into single
 * values, then sorts the list and drops duplicates. The order matters: see
 * chain_valid. */
static void normalize_chain(struct chain *ch)
{
	int kept = 0;

	for (int i = 0; i < ch->n; i++) {
		struct component *c = &ch->items[i];

		if (c->stop > c->start && c->repeat > 0)
			c->stop -= (c->stop - c->start) % c->repeat;
		if ((c->stop > c->start && c->repeat > 0 && c->start + c->repeat > c->stop) ||
		    c->start == c->stop) {
			c->repeat = 0;
			c->stop = -1;
		}
	}
	if (ch->n < 2)
		return;
	qsort(ch->items, (size_t)ch->n, sizeof(*ch->items), compare_components);
	for (int i = 0; i < ch->n; i++) {
		if (kept == 0 || compare_components(&ch->items[kept - 1], &ch->items[i]) != 0)
			ch->items[kept++] = ch->items[i];
	}
	ch->n = kept;
}

/* systemd 252 lowers the limit for days counted from the month's end by 3
 * for every item of the sorted list, not once (so "*-*~23,12,22" is
 * rejected while "*-*~12,22,04" is not); the same is done here so that tfd
 * accepts exactly what systemd accepts. */
static bool chain_valid(const struct chain *ch, int from, int to, bool end_of_month)
{
	for (int i = 0; i < ch->n; i++) {
		const struct component *c = &ch->items[i];

		if (end_of_month)
			to -= 3;
		if (c->start < from || c->start > to || c->repeat > to - from)
			return false;
		if (c->stop >= 0) {
			if (c->stop < from || c->stop > to || c->start + c->repeat > c->stop)
				return false;
		} else if (end_of_month ? c->start - c->repeat < from : c->start + c->repeat > to) {
			return false;
		}
	}
	return true;
}

static bool finish_event(struct parser *ps, struct calendar *cal)
{
	struct chain *all[] = { &cal->year, &cal->month,  &cal->day,
				&cal->hour, &cal->minute, &cal->usec };

	if (cal->weekdays <= 0 || cal->weekdays >= ALL_WEEKDAYS)
		cal->weekdays = -1;
	if (cal->end_of_month && cal->day.n == 0)
		cal->end_of_month = false;
	widen_years(&cal->year);
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		normalize_chain(all[i]);
	if (!chain_valid(&cal->year, MIN_YEAR, MAX_YEAR, false))
		return fail(ps, "year out of range (1970..2199)");
	if (!chain_valid(&cal->month, 1, 12, false))
		return fail(ps, "month out of range");
	if (!chain_valid(&cal->day, 1, 31, cal->end_of_month))
		return fail(ps, "day out of range");
	if (!chain_valid(&cal->hour, 0, 23, false))
		return fail(ps, "hour out of range");
	if (!chain_valid(&cal->minute, 0, 59, false))
		return fail(ps, "minute out of range");
	if (!chain_valid(&cal->usec, 0, 60 * USEC_PER_SEC - 1, false))
		return fail(ps, "second out of range");
	return true;
}

int calendar_parse_local(const char *spec, const struct tz *local, tz_lookup_fn find_zone,
			 void *find_zone_arg, struct calendar **out, char *err, size_t errlen)
{
	struct parser ps = { NULL };
	struct calendar *cal = calloc(1, sizeof(*cal));
	char *text = strdup(spec);
	const char *unknown_zone = NULL;

	if (!cal || !text) {
		ps.reason = "out of memory";
	} else {
		cal->dst = -1;
		unknown_zone = split_zone(text, local, find_zone, find_zone_arg, cal);
		if (parse_body(&ps, text, cal))
			finish_event(&ps, cal);
	}
	if (ps.reason && unknown_zone)
		snprintf(err, errlen, "invalid calendar event '%s': unknown time zone '%s'", spec,
			 unknown_zone);
	else if (ps.reason)
		snprintf(err, errlen, "invalid calendar event '%s': %s", spec, ps.reason);
	free(text);
	if (ps.reason) {
		calendar_free(cal);
		return -1;
	}
	*out = cal;
	return 0;
}

bool calendar_in_local_time(const struct calendar *cal)
{
	return !cal->utc && !cal->zone;
}

static void put_number(struct buf *out, const char *fmt, long long v)
{
	char text[32];
	int n = snprintf(text, sizeof text, fmt, v);

	buf_put(out, text, (size_t)n);
}

/* How many values of a list calendar_canonical writes out one by one;
 * a list of more (seconds every microsecond) is written as it was
 * normalized. */
#define CANON_VALUES 240

static int compare_values(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The values CH takes in FROM..TO, sorted, without duplicates, into V
 * (CANON_VALUES of room): how many, or -1 when there are more. */
static int chain_values(const struct chain *ch, long long from, long long to, long long *v)
{
	int n = 0, kept = 0;

	for (int i = 0; i < ch->n; i++) {
		const struct component *c = &ch->items[i];
		long long stop = c->stop >= 0 ? c->stop : to;

		for (long long x = c->start; x <= stop; x += c->repeat) {
			if (n == CANON_VALUES)
				return -1;
			if (x >= from)
				v[n++] = x;
			if (c->repeat <= 0)
				break;
		}
	}
	qsort(v, (size_t)n, sizeof *v, compare_values);
	for (int i = 0; i < n; i++)
		if (kept == 0 || v[kept - 1] != v[i])
			v[kept++] = v[i];
	return kept;
}

/* One list: '*' for any value (written so, or every value of FROM..TO),
 * else its values, else (too many to write) its normalized items. */
static void put_chain(struct buf *out, const struct chain *ch, long long from, long long to,
		      bool from_end)
{
	long long v[CANON_VALUES];
	int n = ch->n == 0 || from_end ? -1 : chain_values(ch, from, to, v);

	buf_put(out, " ", 1);
	if (ch->n == 0 || (n == to - from + 1)) {
		buf_put(out, "*", 1);
	} else if (n >= 0) {
		for (int i = 0; i < n; i++)
			put_number(out, i ? ",%lld" : "%lld", v[i]);
	} else {
		for (int i = 0; i < ch->n; i++) {
			put_number(out, i ? ";%lld" : "%lld", ch->items[i].start);
			put_number(out, "-%lld", ch->items[i].stop);
			put_number(out, "/%lld", ch->items[i].repeat);
		}
	}
}

void calendar_canonical(const struct calendar *cal, struct buf *out, const struct tz **zone)
{
	buf_put(out, "calendar", 8);
	put_number(out, " %lld", cal->weekdays);
	put_number(out, " %lld", cal->end_of_month);
	put_number(out, " %lld", cal->utc);
	put_number(out, " %lld", cal->dst);
	put_chain(out, &cal->year, MIN_YEAR, MAX_YEAR, false);
	put_chain(out, &cal->month, 1, 12, false);
	put_chain(out, &cal->day, 1, 31, cal->end_of_month);
	put_chain(out, &cal->hour, 0, 23, false);
	put_chain(out, &cal->minute, 0, 59, false);
	put_chain(out, &cal->usec, 0, 60LL * USEC_PER_SEC - 1, false);
	*zone = cal->zone;
}

void calendar_free(struct calendar *cal)
{
	if (!cal)
		return;
	chain_clear(&cal->year);
	chain_clear(&cal->month);
	chain_clear(&cal->day);
	chain_clear(&cal->hour);
	chain_clear(&cal->minute);
	chain_clear(&cal->usec);
	free(cal);
}
