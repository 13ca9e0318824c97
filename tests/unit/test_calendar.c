/* SPDX-License-Identifier: MIT */
/* test_calendar: calendar_parse_local and calendar_next against the reference
 * corpus (argv[1]/calendar.tsv) and the project's own vectors
 * (argv[2]/calendar.tsv), row by row with the checker of elapses.h, which
 * describes the columns. The project's vectors may write an elapse with a
 * fraction ("1781568001.125", up to 9 digits) for events with sub-second
 * parts.
 *
 * Events are parsed with calendar_parse_local and the row's zone, so that a
 * trailing abbreviation of that zone ("… EST" in America/New_York) reads as
 * systemd reads it with that TZ. */
#include <inttypes.h>
#include <stdio.h>

#include "calendar.h"
#include "elapses.h"
#include "harness.h"
#include "timens.h"
#include "tz.h"

/* The zone of TZ is also what "… CET"-style abbreviations refer to. */
static int parse_event(const char *input, const struct tz *zone, void *zones, void **event,
		       char *err, size_t errlen)
{
	struct calendar *cal = NULL;
	int rc = calendar_parse_local(input, zone, tz_cache_lookup, zones, &cal, err, errlen);

	*event = cal;
	return rc;
}

static int next_elapse(const void *event, const struct tz *zone, int64_t after_ns, int64_t *next_ns)
{
	return calendar_next(event, zone, after_ns, next_ns);
}

static void free_event(void *event)
{
	calendar_free(event);
}

/* Checks that calendar_next always moves strictly forward, stepping through
 * DST changes one elapse at a time, and only stops in 2199, the last year
 * systemd searches. */
static void check_monotonic(struct tally *tally)
{
	static const char *const zones[] = { "Europe/Berlin", "America/New_York",
					     "Australia/Lord_Howe" };
	static const char *const events[] = { "*:0/15", "*:*:0/20", "hourly", "*-*-* 01,02:30",
					      "Sun *-*~07/1 02:00" };
	const int64_t end_2199 = INT64_C(7258118400) * NSEC_PER_SEC - 1;
	char err[256];

	for (size_t z = 0; z < sizeof(zones) / sizeof(*zones); z++) {
		struct tz *zone = tz_load(zones[z], err, sizeof(err));

		for (size_t e = 0; zone && e < sizeof(events) / sizeof(*events); e++) {
			struct calendar *cal;
			int64_t t = INT64_C(1767225600) * NSEC_PER_SEC, next = 0;
			int ok = 1;

			if (calendar_parse_local(events[e], NULL, NULL, NULL, &cal, err,
						 sizeof(err)) != 0) {
				tally_check(tally, 0, "monotonic", 0, "%s", err);
				continue;
			}
			for (int i = 0; i < 20000 && ok; i++) {
				if (calendar_next(cal, zone, t, &next) != 0) {
					/* Only the year limit may end it. */
					ok = t > end_2199 - INT64_C(86400 * 62) * NSEC_PER_SEC;
					break;
				}
				ok = next > t;
				t = next;
			}
			tally_check(tally, ok, "monotonic", 0, "%s in %s stalls or ends early",
				    events[e], zones[z]);
			calendar_free(cal);
		}
		tz_free(zone);
	}
}

/* Near the end of the int64 nanosecond range (2262-04-11T23:47:16.854775807Z)
 * and of systemd's years (2199), calendar_next says "no more" and never
 * wraps (issue 11 item 10). */
static void check_range_end(const struct schedule_kind *kind, struct tally *tally)
{
	static const char *const events[] = {
		"*-*-* *:*:*", "minutely",    "*-*-* *:*:59.999999", "2199-12-31 23:59:59.999999",
		"hourly",      "@7258118399",
	};
	static const int64_t afters[] = {
		INT64_C(7258118399) * NSEC_PER_SEC - 1,
		INT64_C(7258118400) * NSEC_PER_SEC,
		INT64_MAX - NSEC_PER_SEC,
		INT64_MAX,
		INT64_MIN,
		-1,
	};
	struct tz *berlin = tz_load("Europe/Berlin", NULL, 0);

	elapses_check_range_end(kind, events, sizeof(events) / sizeof(events[0]), afters,
				sizeof(afters) / sizeof(afters[0]), berlin,
				INT64_C(7258118400) * NSEC_PER_SEC, tally);
	tz_free(berlin);
}

int main(int argc, char **argv)
{
	struct tz_cache *zones = tz_cache_new();
	struct schedule_kind kind = {
		.test = "test_calendar",
		.file = "calendar.tsv",
		.error_prefix = "invalid calendar event",
		.elapse = "elapse",
		.fractions = true,
		.parse = parse_event,
		.next = next_elapse,
		.release = free_event,
		.arg = zones,
	};
	int status;

	if (!zones)
		return 1;
	elapses_check_files(&kind, argc, argv, &tally);
	check_range_end(&kind, &tally);
	check_monotonic(&tally);
	status = tally_finish(&tally, "test_calendar");
	tz_cache_free(zones);
	return status;
}
