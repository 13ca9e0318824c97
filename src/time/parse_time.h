/* SPDX-License-Identifier: MIT */
/* parse_time: DURATION and TIMESTAMP syntax (systemd.time(7), plus ns units
 * and RFC 3339 forms). Pure: no I/O, no globals; "now" and the time zones
 * come in through struct time_context. */
#ifndef TFD_PARSE_TIME_H
#define TFD_PARSE_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tz.h"

/* Parses a time span ("1h 30min", "250ms", "5s500ms", "2 weeks", a bare
 * number of seconds, "10ns") into nanoseconds, 0 .. INT64_MAX. Returns 0, or
 * -1 with one line in err naming the text and why, e.g.
 * "invalid duration '5x': unknown unit 'x'". */
int parse_duration(const char *text, int64_t *ns, char *err, size_t errlen);

struct time_context {
	int64_t now_ns;         /* "now": nanoseconds since the epoch */
	const struct tz *local; /* the zone of TZ */
	tz_lookup_fn find_zone; /* resolves "… Europe/Berlin"; may be NULL */
	void *find_zone_arg;
	bool upcoming; /* a time of day alone ("01:00", "01:00 UTC")
			  already past today is tomorrow's, as at(1)
			  reads it (--at); else today's (systemd) */
};

/* What a timestamp's text was, beside its instant. */
struct timestamp_form {
	bool time_of_day; /* a time of day alone: no date, weekday or day word */
	bool local;       /* a date or time read on the local zone's clock
			     (no "UTC", offset or zone name after it, not
			     "@…" nor relative) */
};

/* Parses a timestamp ("2026-12-03 10:00:00", "10:00", "tomorrow", "+5min",
 * "5min ago", "Thu 2026-12-03", "@1796292001.5", "… UTC", "… Europe/Berlin",
 * "2026-12-03T10:00:00+01:00") into nanoseconds since the epoch. Returns 0,
 * or -1 with one line in err ("invalid timestamp '…': …"). */
int parse_timestamp(const char *text, const struct time_context *ctx, int64_t *ns, char *err,
		    size_t errlen);

/* The same, and what the text was in *FORM. */
int parse_timestamp_form(const char *text, const struct time_context *ctx, int64_t *ns,
			 struct timestamp_form *form, char *err, size_t errlen);

#endif
