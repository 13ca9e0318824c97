/* parse_time: the DURATION and TIMESTAMP syntaxes of systemd.time(7), read
 * the way systemd 252 reads them, plus nanosecond units and RFC 3339 forms.
 *
 * The SPEC promises that whatever `systemd-analyze` accepts is accepted with
 * the same value and whatever it rejects is rejected, so the grammar below
 * follows systemd's parse_time() and parse_timestamp() closely, quirks
 * included (those quirks are pinned down by shared/corpus). Nothing here
 * reads the clock, the environment or a file: "now" and the time zones come
 * in through struct time_context. */
#include "parse_time.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_SEC  INT64_C(1000000000)
#define SEC_PER_DAY INT64_C(86400)

/* Error messages */

/* Why a parse failed; the public functions wrap it into one line. */
struct why {
	char msg[192];
};

static int why_set(struct why *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int why_set(struct why *why, const char *fmt, ...)
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

/* Formats "invalid KIND 'TEXT': WHY" into ERR. */
static int fail(char *err, size_t errlen, const char *kind, const char *text,
		const struct why *why)
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

/* systemd's WHITESPACE: what may separate the parts of a time span. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* isspace(3) in the C locale, which strtoll(3) and strptime(3) skip. */
static bool is_space(char c)
{
	return is_blank(c) || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static bool has_prefix(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
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
	{ "seconds", NS_PER_SEC },
	{ "second", NS_PER_SEC },
	{ "sec", NS_PER_SEC },
	{ "s", NS_PER_SEC },
	{ "minutes", 60 * NS_PER_SEC },
	{ "minute", 60 * NS_PER_SEC },
	{ "min", 60 * NS_PER_SEC },
	{ "months", 2629800 * NS_PER_SEC },
	{ "month", 2629800 * NS_PER_SEC },
	{ "M", 2629800 * NS_PER_SEC },
	{ "msec", 1000000 },
	{ "ms", 1000000 },
	{ "m", 60 * NS_PER_SEC },
	{ "hours", 3600 * NS_PER_SEC },
	{ "hour", 3600 * NS_PER_SEC },
	{ "hr", 3600 * NS_PER_SEC },
	{ "h", 3600 * NS_PER_SEC },
	{ "days", SEC_PER_DAY * NS_PER_SEC },
	{ "day", SEC_PER_DAY * NS_PER_SEC },
	{ "d", SEC_PER_DAY * NS_PER_SEC },
	{ "weeks", 7 * SEC_PER_DAY * NS_PER_SEC },
	{ "week", 7 * SEC_PER_DAY * NS_PER_SEC },
	{ "w", 7 * SEC_PER_DAY * NS_PER_SEC },
	{ "years", 31557600 * NS_PER_SEC },
	{ "year", 31557600 * NS_PER_SEC },
	{ "y", 31557600 * NS_PER_SEC },
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
static enum number read_integer(const char *p, const char *end,
				int64_t *value, const char **after)
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

	if ((unsigned char)*p >= 0x80 ||
	    (ascii_lower(*p) >= 'a' && ascii_lower(*p) <= 'z')) {
		while (q < end && !is_blank(*q) && !is_digit(*q) &&
		       *q != '.' && *q != '+' && *q != '-')
			q++;
		quote_text(word, sizeof(word), p, q);
		return why_set(why, "unknown unit '%s'", word);
	}
	quote_text(word, sizeof(word), p, end);
	return why_set(why, "unexpected '%s'", word);
}

/* One number with its optional fraction and unit, at P (not at a blank).
 * Adds its value to *TOTAL and returns where it ends, or NULL. */
static const char *parse_span_part(const char *p, const char *end,
				   int64_t *total, struct why *why)
{
	const char *e, *frac = NULL, *frac_end = NULL, *unit_at, *s;
	int64_t whole = 0, unit = NS_PER_SEC, part;
	char rest[48];

	if (*p == '-') {
		why_set(why, "negative time spans are not allowed");
		return NULL;
	}
	switch (read_integer(p, end, &whole, &e)) {
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
		frac = e + 1;
		for (frac_end = frac; frac_end < end && is_digit(*frac_end);
		     frac_end++)
			;
		p = frac_end;
	} else {
		p = e;
	}
	unit_at = skip_blanks(p, end);
	s = match_unit(unit_at, end, &unit);
	if (s == p && p < end) {
		bad_unit(p, end, why);
		return NULL;
	}
	if (__builtin_mul_overflow(whole, unit, &part) ||
	    __builtin_add_overflow(*total, part, total)) {
		why_set(why, "out of range (more than 2^63-1 ns, about 292 years)");
		return NULL;
	}
	if (frac) {
		size_t ndigits = (size_t)(frac_end - frac);

		if (ndigits == 0) {
			why_set(why, "missing digits after '.'");
			return NULL;
		}
		if (__builtin_add_overflow(*total,
					   fraction_value(frac, ndigits, unit),
					   total)) {
			why_set(why, "out of range (more than 2^63-1 ns, about 292 years)");
			return NULL;
		}
	}
	return s;
}

/* Parses the time span [P, END): numbers with optional fractions and units,
 * summed; white space may separate everything. */
static int parse_span(const char *p, const char *end, int64_t *ns,
		      struct why *why)
{
	int64_t total = 0;
	bool something = false;

	p = skip_blanks(p, end);
	if (has_prefix(p, end, "infinity"))
		return why_set(why, "'infinity' is not a finite duration");
	for (;;) {
		p = skip_blanks(p, end);
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
		return fail(err, errlen, "duration", text, &why);
	*ns = value;
	return 0;
}
