/* SPDX-License-Identifier: MIT */
/* calendar_event: a parsed calendar event, as the parser (calendar.c)
 * builds it and the search (calendar_search.c) reads it. Private to the
 * two: everyone else holds a struct calendar only through calendar.h. */
#ifndef TFD_CALENDAR_EVENT_H
#define TFD_CALENDAR_EVENT_H

#include <stdbool.h>

#include "tz.h"

#define USEC_PER_SEC 1000000
/* systemd stops looking after 2199, which also keeps every elapse well
 * inside the int64 nanosecond range (2262). */
#define MAX_YEAR 2199

/* One item of a comma list: START, or START..STOP, optionally every REPEAT.
 * STOP is -1 when there is none. Seconds are counted in microseconds. */
struct component {
	int start;
	int stop;
	int repeat;
};

/* A comma list; n == 0 means '*' (any value). */
struct chain {
	int n;
	struct component *items;
};

struct calendar {
	int weekdays;      /* bit 0 = Monday … bit 6 = Sunday; -1 = any */
	bool end_of_month; /* the day chain counts back from the month end */
	bool utc;
	int dst;               /* -1, or daylight saving forced off (0) or on */
	const struct tz *zone; /* the event's own zone; NULL = the local one */
	struct chain year, month, day, hour, minute, usec;
};

#endif
