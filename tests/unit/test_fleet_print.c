/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_print: schedules are compared as written,
 * normalized. The same schedule written two ways has one fingerprint;
 * two schedules that differ at any instant (not only at the samples an
 * older fingerprint took) have two. */
#include "fleet_print.h"
#include "harness.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "calendar.h"
#include "cron.h"
#include "schedule.h"
#include "tz.h"

static struct tz *york;

/* The one zone an event below names. */
static const struct tz *zone_named(void *arg, const char *name)
{
	(void)arg;
	return strcmp(name, "America/New_York") == 0 ? york : NULL;
}

/* The fingerprint of a cron expression (kind 'c') or a calendar event
 * ('k') read in ZONE; 0 when it does not parse. */
static uint64_t print_of(char kind, const char *text, const struct tz *zone)
{
	struct schedule s = { .clock = CLOCK_REALTIME, .zone = zone };
	struct cron *cron = NULL;
	struct calendar *cal = NULL;
	char err[256];
	uint64_t h = 0;

	if (kind == 'c' && cron_parse(text, &cron, err, sizeof err) == 0) {
		s.kind = SCHEDULE_CRON;
		s.cron = cron;
		h = fleet_schedule_fingerprint(&s);
	} else if (kind == 'k' &&
		   calendar_parse_local(text, zone, zone_named, NULL, &cal, err, sizeof err) == 0) {
		s.kind = SCHEDULE_CALENDAR;
		s.calendar = cal;
		h = fleet_schedule_fingerprint(&s);
	}
	check(h != 0, "'%s' parses", text);
	cron_free(cron);
	calendar_free(cal);
	return h;
}

/* Pairs of schedules ('c' cron, 'k' calendar), read in UTC, and whether
 * they are one schedule. */
static const struct {
	char kind;
	const char *a, *b;
	bool same;
} pairs[] = {
	/* The pair: every sample of the morning agrees. */
	{ 'c', "0 * * * *", "0 0-11 * * *", false },
	{ 'c', "0 * * * *", "0 0-22 * * *", false },
	{ 'c', "*/5 * * * *", "*/10 * * * *", false },
	{ 'c', "0 0 1 * *", "0 0 1 * 1", false },
	/* Vixie's rule: a day field of '*' changes what the weekday means. */
	{ 'c', "0 0 * * 1", "0 0 1-31 * 1", false },
	{ 'c', "0 * * * *", "@hourly", true },
	{ 'c', "0  *  * * *", "0 * * * *", true },
	{ 'c', "0 0 * * mon-fri", "0 0 * * 1-5", true },
	{ 'c', "0 0 * * 0", "0 0 * * 7", true },
	{ 'c', "0,30 * * * *", "30,0 * * * *", true },
	{ 'c', "0 0 * jan *", "0 0 * 1 *", true },
	{ 'k', "*-*-* *:00:00", "*-*-* 00..11:00:00", false },
	{ 'k', "Mon *-*-* 09:00", "Tue *-*-* 09:00", false },
	{ 'k', "*:0/15", "*:0/20", false },
	{ 'k', "*-*-* 09:00:00", "*-*-* 09:00:30", false },
	{ 'k', "hourly", "*-*-* *:00:00", true },
	{ 'k', "*:0/15", "*:00,15,30,45", true },
	{ 'k', "*-*-* 00..23:00", "*-*-* *:00", true },
	{ 'k', "Mon..Fri 9:00", "Fri,Mon..Thu *-*-* 09:00:00", true },
	{ 'k', "*:*:0/30", "*:*:00,30", true },
};

static void test_pairs(const struct tz *utc)
{
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		bool same = print_of(pairs[i].kind, pairs[i].a, utc) ==
			    print_of(pairs[i].kind, pairs[i].b, utc);

		check(same == pairs[i].same, "'%s' and '%s': %s", pairs[i].a, pairs[i].b,
		      pairs[i].same ? "the same" : "they differ");
	}
}

static void test_zones(const struct tz *utc)
{
	struct tz *paris = tz_load_named("Europe/Paris"), *cet = tz_load_named("CET");

	york = tz_load_named("America/New_York");
	if (!paris || !cet || !york) {
		printf("# no tzdata: the zones' part is passed over\n");
		tz_free(paris);
		tz_free(cet);
		tz_free(york);
		return;
	}
	check(print_of('c', "0 9 * * *", paris) != print_of('c', "0 9 * * *", utc), "Paris, UTC");
	check(print_of('c', "0 9 * * *", paris) != print_of('c', "0 9 * * *", york),
	      "Paris, New York");
	check(print_of('c', "0 9 * * *", paris) == print_of('c', "0 9 * * *", cet),
	      "Paris and CET: the same offsets all year");
	check(print_of('k', "*-*-* 09:00 America/New_York", utc) ==
		      print_of('k', "*-*-* 09:00", york),
	      "an event's own zone, as the local one");
	tz_free(paris);
	tz_free(cet);
	tz_free(york);
}

int main(void)
{
	struct tz *utc = tz_load_utc();

	test_pairs(utc);
	test_zones(utc);
	tz_free(utc);
	return tally_finish(&tally, "fleet_print");
}
