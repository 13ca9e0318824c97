/* SPDX-License-Identifier: MIT */
/* calendar: systemd.time(7) calendar events ("Mon..Fri *-*-* 09:00",
 * "hourly", "*:0/15", "… Europe/Berlin") and their next elapse. Pure: no I/O,
 * no globals; zones come in through a tz_lookup_fn and a local zone. */
#ifndef TFD_CALENDAR_H
#define TFD_CALENDAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "tz.h"

struct calendar;

/* Parses SPEC. Returns 0, or -1 with one line in err naming the bad part:
 * "invalid calendar event 'x': …". A trailing abbreviation of LOCAL's
 * standard or daylight time ("… CET", "… CEST" when LOCAL is Europe/Berlin)
 * is read as systemd reads it: the event is then in local time with
 * daylight saving forced off or on. LOCAL may be NULL: no abbreviations. */
int calendar_parse_local(const char *spec, const struct tz *local, tz_lookup_fn find_zone,
			 void *find_zone_arg, struct calendar **out, char *err, size_t errlen);

/* The first elapse strictly after AFTER_NS (ns since the epoch), in the
 * event's own zone if it names one, else in LOCAL. Returns 0 and *next_ns,
 * or -1 when the event never elapses again. */
int calendar_next(const struct calendar *cal, const struct tz *local, int64_t after_ns,
		  int64_t *next_ns);

/* Whether CAL is read on the local zone's clock: it names no zone of its
 * own ("… UTC", "… Europe/Berlin", "@SECONDS" do). */
bool calendar_in_local_time(const struct calendar *cal);

/* CAL as parsed and normalized (each list sorted, its ranges trimmed to
 * their last value, duplicates dropped), in one canonical text appended
 * to OUT; its own zone, if it names one, in *ZONE (else NULL): events
 * that mean the same write the same text ("*:0/15" and "*:00,15,30,45"). */
void calendar_canonical(const struct calendar *cal, struct buf *out, const struct tz **zone);

void calendar_free(struct calendar *cal);

#endif
