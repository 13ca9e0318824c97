/* SPDX-License-Identifier: MIT */
/* parse_time: the DURATION syntax of systemd.time(7), read the way
 * systemd 252's parse_time() reads it, plus nanosecond units; and what the
 * timestamp parser (parse_timestamp.c) shares with it (parse_common.h).
 *
 * The SPEC promises that whatever `systemd-analyze` accepts is accepted with
 * the same value and whatever it rejects is rejected, so the grammar below
 * follows systemd closely, quirks included (those quirks are pinned down by
 * shared/corpus). Nothing here reads the clock, the environment or a
 * file. */
#include "parse_time.h"
#include "parse_common.h"

#include "ascii.h"
#include "timens.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Error messages */

int why_set(struct why *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Copies [P, END) into OUT (of size LEN) with control characters escaped,
 * so that a message quoting user input stays on one line. Truncates at a
 * character boundary. */
static void quote_text(char *out, size_t len, const char *p, const char *end)
{
	size_t used = 0;

	if (len == 0)
		return;
	for (; p < end; p++) {
		unsigned char c = (unsigned char)*p;
		char piece[5];
		size_t n;

		if (c == '\n')
			n = (size_t)snprintf(piece, sizeof(piece), "\\n");
		else if (c == '\t')
			n = (size_t)snprintf(piece, sizeof(piece), "\\t");
		else if (c == '\r')
			n = (size_t)snprintf(piece, sizeof(piece), "\\r");
		else if (c < 0x20 || c == 0x7f)
			n = (size_t)snprintf(piece, sizeof(piece), "\\x%02x", c);
		else
			n = (piece[0] = (char)c, 1);
		if (used + n >= len) {
			/* Do not leave half of a UTF-8 sequence behind. */
			while (used > 0 && ((unsigned char)out[used - 1] & 0xc0) == 0x80)
				used--;
			if (used > 0 && (unsigned char)out[used - 1] >= 0xc0)
				used--;
			break;
		}
		memcpy(out + used, piece, n);
		used += n;
	}
	out[used] = '\0';
}

int parse_fail(char *err, size_t errlen, const char *kind, const char *text, const struct why *why)
{
	char quoted[256];

	if (!err || errlen == 0)
		return -1;
	quote_text(quoted, sizeof(quoted), text, text + strlen(text));
	snprintf(err, errlen, "invalid %s '%s': %s", kind, quoted,
		 why->msg[0] ? why->msg : "not understood");
	return -1;
}

/* Characters */

/* systemd's WHITESPACE: what may separate the parts of a time span (a
 * newline too, unlike a crontab's blanks; no \v or \f, unlike isspace). */
static bool is_span_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *skip_span_spaces(const char *p, const char *end)
{
	while (p < end && is_span_space(*p))
		p++;
	return p;
}

/* Durations */

struct unit {
	const char *name;
	int64_t ns;
};

/* systemd's table, in its order: the first name that prefixes the text wins,
 * so longer names come before their prefixes ("ms" before "m"). The micro
 * sign is accepted as U+00B5 and as the Greek mu U+03BC. "nsec" and "ns" are
 * tfd's own. A month is 30.44 days and a year 365.25 days, as in systemd. */
static const struct unit units[] = {
	{ "seconds", NSEC_PER_SEC },
	{ "second", NSEC_PER_SEC },
	{ "sec", NSEC_PER_SEC },
	{ "s", NSEC_PER_SEC },
	{ "minutes", 60 * NSEC_PER_SEC },
	{ "minute", 60 * NSEC_PER_SEC },
	{ "min", 60 * NSEC_PER_SEC },
	{ "months", 2629800 * NSEC_PER_SEC },
	{ "month", 2629800 * NSEC_PER_SEC },
	{ "M", 2629800 * NSEC_PER_SEC },
	{ "msec", 1000000 },
	{ "ms", 1000000 },
	{ "m", 60 * NSEC_PER_SEC },
	{ "hours", 3600 * NSEC_PER_SEC },
	{ "hour", 3600 * NSEC_PER_SEC },
	{ "hr", 3600 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC },
	/* Else clang-format 14 reads "SEC_PER_DAY * NSEC_PER_SEC" as a pointer. */
	/* clang-format off */
	{ "days", SEC_PER_DAY * NSEC_PER_SEC },
	{ "day", SEC_PER_DAY * NSEC_PER_SEC },
	{ "d", SEC_PER_DAY * NSEC_PER_SEC },
	{ "weeks", 7 * SEC_PER_DAY * NSEC_PER_SEC },
	{ "week", 7 * SEC_PER_DAY * NSEC_PER_SEC },
	{ "w", 7 * SEC_PER_DAY * NSEC_PER_SEC },
	/* clang-format on */
	{ "years", 31557600 * NSEC_PER_SEC },
	{ "year", 31557600 * NSEC_PER_SEC },
	{ "y", 31557600 * NSEC_PER_SEC },
	{ "usec", 1000 },
	{ "us", 1000 },
	{ "\xce\xbcs", 1000 },
	{ "\xc2\xb5s", 1000 },
	{ "nsec", 1 },
	{ "ns", 1 },
};

/* Returns the end of the unit name at P and sets *NS, or returns P. */
static const char *match_unit(const char *p, const char *end, int64_t *ns)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (has_prefix(p, end, units[i].name)) {
			*ns = units[i].ns;
			return p + strlen(units[i].name);
		}
	}
	return p;
}

enum number {
	NUMBER_OK,
	NUMBER_NONE,
	NUMBER_NEGATIVE,
	NUMBER_TOO_BIG,
};

/* Reads a decimal integer as strtoll(3) does (leading white space and a sign
 * allowed), because systemd does and its quirks are part of the contract:
 * "\v-0" is a valid zero there. *AFTER is P when there are no digits. */
static enum number read_integer(const char *p, const char *end, int64_t *value, const char **after)
{
	const char *q = p;
	bool negative = false, huge = false;
	uint64_t v = 0;

	while (q < end && is_space(*q))
		q++;
	if (q < end && (*q == '+' || *q == '-'))
		negative = *q++ == '-';
	if (q == end || !is_digit(*q)) {
		*after = p;
		return NUMBER_NONE;
	}
	for (; q < end && is_digit(*q); q++) {
		if (v > (UINT64_MAX - 9) / 10)
			huge = true;
		else
			v = v * 10 + (uint64_t)(*q - '0');
	}
	*after = q;
	if (negative && (huge || v != 0))
		return NUMBER_NEGATIVE;
	if (huge || v > INT64_MAX)
		return NUMBER_TOO_BIG;
	*value = (int64_t)v;
	return NUMBER_OK;
}

/* The exact value of the fraction digits [P, P+N) in units of UNIT ns,
 * rounded down to whole nanoseconds. Horner's rule from the last digit keeps
 * every step below 10 * UNIT, and flooring at each step floors the whole. */
static int64_t fraction_value(const char *p, size_t n, int64_t unit)
{
	int64_t v = 0;

	while (n-- > 0)
		v = ((p[n] - '0') * unit + v) / 10;
	return v;
}

/* Names what stands at P where a unit was expected. */
static int bad_unit(const char *p, const char *end, struct why *why)
{
	const char *q = p;
	char word[48];

	if ((unsigned char)*p >= 0x80 || (ascii_lower(*p) >= 'a' && ascii_lower(*p) <= 'z')) {
		while (q < end && !is_span_space(*q) && !is_digit(*q) && *q != '.' && *q != '+' &&
		       *q != '-')
			q++;
		quote_text(word, sizeof(word), p, q);
		return why_set(why, "unknown unit '%s'", word);
	}
	quote_text(word, sizeof(word), p, end);
	return why_set(why, "unexpected '%s'", word);
}

/* A number in a time span: the integer part and the digits after a '.'. */
struct span_number {
	int64_t whole;
	const char *frac; /* NULL: there was no '.' */
	size_t ndigits;
};

#define SPAN_RANGE "out of range (more than 2^63-1 ns, about 292 years)"

/* Reads the number at P (not at a blank); returns where it ends, or NULL.
 * ".5" is a number, "5." is one with no fraction digits (an error later). */
static const char *read_span_number(const char *p, const char *end, struct span_number *n,
				    struct why *why)
{
	const char *e;
	char rest[48];

	n->whole = 0;
	n->frac = NULL;
	n->ndigits = 0;
	/* strtoll would take "-0"; systemd refuses a leading '-' outright. */
	if (*p == '-') {
		why_set(why, "negative time spans are not allowed");
		return NULL;
	}
	switch (read_integer(p, end, &n->whole, &e)) {
	case NUMBER_NEGATIVE:
		why_set(why, "negative time spans are not allowed");
		return NULL;
	case NUMBER_TOO_BIG:
		why_set(why, "number out of range");
		return NULL;
	case NUMBER_NONE:
		if (*e == '.')
			break;
		quote_text(rest, sizeof(rest), p, end);
		why_set(why, "expected a number at '%s'", rest);
		return NULL;
	case NUMBER_OK:
		break;
	}
	if (e < end && *e == '.') {
		n->frac = e + 1;
		for (e = n->frac; e < end && is_digit(*e); e++)
			;
		n->ndigits = (size_t)(e - n->frac);
	}
	return e;
}

/* Adds N, counted in units of UNIT ns, to *TOTAL. */
static int add_span_number(const struct span_number *n, int64_t unit, int64_t *total,
			   struct why *why)
{
	int64_t part;

	if (__builtin_mul_overflow(n->whole, unit, &part) ||
	    __builtin_add_overflow(*total, part, total))
		return why_set(why, SPAN_RANGE);
	if (!n->frac)
		return 0;
	if (n->ndigits == 0)
		return why_set(why, "missing digits after '.'");
	if (__builtin_add_overflow(*total, fraction_value(n->frac, n->ndigits, unit), total))
		return why_set(why, SPAN_RANGE);
	return 0;
}

/* One number with its optional unit, at P (not at a blank). Adds its value
 * to *TOTAL and returns where it ends, or NULL. */
static const char *parse_span_part(const char *p, const char *end, int64_t *total, struct why *why)
{
	struct span_number n;
	int64_t unit = NSEC_PER_SEC;
	const char *s;

	p = read_span_number(p, end, &n, why);
	if (!p)
		return NULL;
	/* The unit may come after blanks; a number must be followed by a
	 * unit, a blank or the end, so "12.34.56" is an error while
	 * "12.34 .56" and "12.34s.56" are sums. */
	s = match_unit(skip_span_spaces(p, end), end, &unit);
	if (s == p && p < end) {
		bad_unit(p, end, why);
		return NULL;
	}
	if (add_span_number(&n, unit, total, why) < 0)
		return NULL;
	return s;
}

int parse_span(const char *p, const char *end, int64_t *ns, struct why *why)
{
	int64_t total = 0;
	bool something = false;

	p = skip_span_spaces(p, end);
	if (has_prefix(p, end, "infinity"))
		return why_set(why, "'infinity' is not a finite duration");
	for (;;) {
		p = skip_span_spaces(p, end);
		if (p == end)
			break;
		p = parse_span_part(p, end, &total, why);
		if (!p)
			return -1;
		something = true;
	}
	if (!something)
		return why_set(why, "no time span given");
	*ns = total;
	return 0;
}

int parse_duration(const char *text, int64_t *ns, char *err, size_t errlen)
{
	struct why why = { "" };
	int64_t value;

	if (!text)
		text = "";
	if (parse_span(text, text + strlen(text), &value, &why) < 0)
		return parse_fail(err, errlen, "duration", text, &why);
	*ns = value;
	return 0;
}
