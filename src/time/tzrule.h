/* SPDX-License-Identifier: MIT */
/* tzrule: POSIX TZ strings ("CET-1CEST,M3.5.0,M10.5.0/3"), as the TZ
 * variable and a TZif file's footer give them: parsing them as glibc does,
 * and the offset, daylight flag and next change at an instant. Pure; tz.c
 * is its only user, for zones given as a string and for the years after a
 * TZif table's last transition. */
#ifndef TFD_TZRULE_H
#define TFD_TZRULE_H

#include <stdbool.h>
#include <stdint.h>

#define TZRULE_ABBR_MAX 64

enum rule_kind {
	RULE_JULIAN1, /* Jn: day 1..365, February 29 never counted */
	RULE_JULIAN0, /* n: day 0..365, February 29 counted */
	RULE_MONTH,   /* Mm.w.d: weekday d of week w (5 = last) of month m */
};

struct rule_date {
	enum rule_kind kind;
	int day; /* Julian day, or weekday 0..6 (Sunday = 0) */
	int week;
	int month;
	int32_t secs; /* local time of day of the change, may be <0 or >24h */
};

/* A POSIX TZ string: standard time, and optionally daylight time with the
 * dates it starts and ends each year. */
struct posix_tz {
	int32_t std_off; /* seconds east of UTC */
	int32_t dst_off;
	bool has_dst;
	struct rule_date start, end;
	char std_name[TZRULE_ABBR_MAX];
	char dst_name[TZRULE_ABBR_MAX];
};

/* Parses a whole POSIX TZ string S (no leading ':') into *RULE; false for
 * what tfd cannot read as glibc does. */
bool tzrule_parse(const char *s, struct posix_tz *rule);

/* Offset east of UTC in seconds at instant T; *isdst (may be NULL) is set
 * to 1 in daylight time. */
int32_t tzrule_offset_at(const struct posix_tz *rule, int64_t t, int *isdst);

/* Whether instant T is in daylight time (*dst), and, when NEXT is not
 * NULL, the first instant after T at which the rule changes (*has_next
 * false when there is none that fits an int64). */
void tzrule_locate(const struct posix_tz *rule, int64_t t, bool *dst, int64_t *next,
		   bool *has_next);

#endif
