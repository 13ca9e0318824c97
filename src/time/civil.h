/* SPDX-License-Identifier: MIT */
/* civil: proleptic Gregorian calendar arithmetic on day numbers (days since
 * 1970-01-01). Pure integer math, shared by the calendar and cron schedulers
 * so neither needs timegm(3) or gmtime(3). */
#ifndef TFD_CIVIL_H
#define TFD_CIVIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Day number of YEAR-MONTH-DAY; MONTH is 1..12, DAY 1..31. A DAY past
 * its month's end, or 0 or below, counts on from the month's first day
 * the way mktime(3) normalizes it (January 32 is February 1, March 0 the
 * last day of February): the timestamp parser relies on that. */
int64_t days_from_civil(int64_t year, int month, int day);

/* The date of day number DAYS. */
void civil_from_days(int64_t days, int64_t *year, int *month, int *day);

/* Day of the week of day number DAYS: 0 = Sunday … 6 = Saturday. */
int weekday_from_days(int64_t days);

bool is_leap_year(int64_t year);

/* The English month and day names every parser reads and the dry run
 * prints: civil_month_names[0] is "January", civil_day_names[0] "Sunday"
 * (as weekday_from_days counts). */
extern const char *const civil_month_names[12];
extern const char *const civil_day_names[7];

/* How many bytes at P (AVAIL of them) spell NAME, in any case: its whole
 * length, else 3 for its abbreviation ("June", then "Jun"), else 0. What
 * follows the name is the caller's to check. */
size_t civil_name_length(const char *p, size_t avail, const char *name);

/* 28..31; MONTH is 1..12. */
int days_in_month(int64_t year, int month);

/* Floor division and its remainder (0 <= r < d) for d > 0, for instants
 * before 1970 as well as after. */
int64_t floor_div(int64_t n, int64_t d);
int64_t floor_mod(int64_t n, int64_t d);

/* The one text of an instant to the microsecond: "YYYY-MM-DD", SEP,
 * "HH:MM:SS.uuuuuu" and ZONE, for SECS seconds since the epoch (already
 * shifted by the zone's offset when ZONE is not UTC's) and US (0..999999).
 * RFC 3339's is SEP 'T' with "Z" or "+01:00"; PostgreSQL's timestamptz
 * input takes ' ' and "+00". Writes at most LEN bytes with a NUL (40 hold
 * any ZONE of up to 9); returns the length written. */
size_t civil_format_us(char *buf, size_t len, int64_t secs, int us, char sep, const char *zone);

/* As civil_format_us for WALL_NS nanoseconds since the epoch in UTC,
 * truncated to the microsecond before it (the same for instants before
 * 1970 as after). */
size_t civil_format_utc_us(char *buf, size_t len, int64_t wall_ns, char sep, const char *zone);

#endif
