/* SPDX-License-Identifier: MIT */
/* civil: Gregorian day-number arithmetic. The conversions count in 400-year
 * eras (146097 days each) starting on 0000-03-01, so that the leap day is the
 * last day of its "year" and month lengths follow a fixed 5-month pattern. */
#include "civil.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ascii.h"

#define DAYS_PER_ERA 146097
/* Day number of 0000-03-01, the start of era 0. */
#define ERA0_TO_EPOCH 719468

int64_t floor_div(int64_t n, int64_t d)
{
	int64_t q = n / d;

	if (n % d != 0 && (n < 0) != (d < 0))
		q--;
	return q;
}

/* Computed from the remainder, so no product can overflow at the ends of
 * the int64 range. */
int64_t floor_mod(int64_t n, int64_t d)
{
	int64_t r = n % d;

	if (r != 0 && (r < 0) != (d < 0))
		r += d;
	return r;
}

int64_t days_from_civil(int64_t year, int month, int day)
{
	/* Count years from March so that February comes last. */
	int64_t y = month <= 2 ? year - 1 : year;
	int64_t era = floor_div(y, 400);
	int64_t year_of_era = y - era * 400;
	int64_t month_from_march = month > 2 ? month - 3 : month + 9;
	int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
	int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;

	return era * DAYS_PER_ERA + day_of_era - ERA0_TO_EPOCH;
}

void civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
	int64_t z = days + ERA0_TO_EPOCH;
	int64_t era = floor_div(z, DAYS_PER_ERA);
	int64_t day_of_era = z - era * DAYS_PER_ERA;
	/* clang-format off */
	int64_t year_of_era = (day_of_era - day_of_era / 1460 +
			       day_of_era / 36524 - day_of_era / 146096) / 365;
	/* clang-format on */
	int64_t day_of_year = day_of_era -
			      (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
	int64_t month_from_march = (5 * day_of_year + 2) / 153;
	int m = (int)(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);

	*day = (int)(day_of_year - (153 * month_from_march + 2) / 5 + 1);
	*month = m;
	*year = year_of_era + era * 400 + (m <= 2);
}

int weekday_from_days(int64_t days)
{
	/* 1970-01-01 was a Thursday. */
	return (int)floor_mod(days + 4, 7);
}

bool is_leap_year(int64_t year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int64_t year, int month)
{
	static const int length[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (month == 2 && is_leap_year(year))
		return 29;
	return length[month - 1];
}

const char *const civil_month_names[12] = {
	"January", "February", "March",     "April",   "May",      "June",
	"July",    "August",   "September", "October", "November", "December",
};

const char *const civil_day_names[7] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
};

size_t civil_name_length(const char *p, size_t avail, const char *name)
{
	size_t n = strlen(name);

	if (avail >= n && same_nocase(p, name, n))
		return n;
	return avail >= 3 && same_nocase(p, name, 3) ? 3 : 0;
}

size_t civil_format_us(char *buf, size_t len, int64_t secs, int us, char sep, const char *zone)
{
	int64_t days = floor_div(secs, 86400), year;
	int second_of_day = (int)(secs - days * 86400);
	int month, day;
	int n;

	civil_from_days(days, &year, &month, &day);
	n = snprintf(buf, len, "%04" PRId64 "-%02d-%02d%c%02d:%02d:%02d.%06d%s", year, month, day,
		     sep, second_of_day / 3600, second_of_day / 60 % 60, second_of_day % 60, us,
		     zone);
	if (n < 0 || len == 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}

size_t civil_format_utc_us(char *buf, size_t len, int64_t wall_ns, char sep, const char *zone)
{
	int64_t us = floor_div(wall_ns, 1000);
	int64_t secs = floor_div(us, 1000000);

	return civil_format_us(buf, len, secs, (int)(us - secs * 1000000), sep, zone);
}
