/* SPDX-License-Identifier: MIT */
/* parse_common: what the duration parser (parse_time.c) and the timestamp
 * parser (parse_timestamp.c) share: the reason a parse failed and the one
 * line that reports it, the time span reader (a timestamp's "+5min", "5min
 * ago"), and predicates on a span of text [P, END). Private to the two. */
#ifndef TFD_PARSE_COMMON_H
#define TFD_PARSE_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ascii.h"

#define SEC_PER_DAY INT64_C(86400)

/* Why a parse failed; the public functions wrap it into one line. */
struct why {
	char msg[192];
};

/* Sets WHY's message; returns -1, for "return why_set(...)". */
int why_set(struct why *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Formats "invalid KIND 'TEXT': WHY" into ERR, with TEXT's control
 * characters escaped so that the message stays one line; returns -1. */
int parse_fail(char *err, size_t errlen, const char *kind, const char *text, const struct why *why);

/* Parses the time span [P, END): numbers with optional fractions and
 * units, summed; white space may separate everything. 0, or -1 and WHY. */
int parse_span(const char *p, const char *end, int64_t *ns, struct why *why);

static inline bool has_prefix(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

static inline bool is_word(const char *p, const char *end, const char *word)
{
	return (size_t)(end - p) == strlen(word) && has_prefix(p, end, word);
}

static inline bool has_suffix(const char *p, const char *end, const char *suffix)
{
	size_t n = strlen(suffix);

	return (size_t)(end - p) >= n && memcmp(end - n, suffix, n) == 0;
}

static inline bool has_suffix_nocase(const char *p, const char *end, const char *suffix)
{
	size_t n = strlen(suffix);

	return (size_t)(end - p) >= n && same_nocase(end - n, suffix, n);
}

#endif
