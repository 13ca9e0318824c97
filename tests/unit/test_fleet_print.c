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

static void same(char kind, const char *a, const char *b, const struct tz *zone)
{
	check(print_of(kind, a, zone) == print_of(kind, b, zone), "'%s' and '%s': the same", a, b);
}

static void differ(char kind, const char *a, const char *b, const struct tz *zone)
{
	check(print_of(kind, a, zone) != print_of(kind, b, zone), "'%s' and '%s': they differ", a, b);
}

static void test_cron(const struct tz *utc)
{
	/* The pair: every sample of the morning agrees. */
	differ('c', "0 * * * *", "0 0-11 * * *", utc);
	differ('c', "0 * * * *", "0 0-22 * * *", utc);
	differ('c', "*/5 * * * *", "*/10 * * * *", utc);
	differ('c', "0 0 1 * *", "0 0 1 * 1", utc);
	/* Vixie's rule: a day field of '*' changes what the weekday means. */
	differ('c', "0 0 * * 1", "0 0 1-31 * 1", utc);
	same('c', "0 * * * *", "@hourly", utc);
	same('c', "0  *  * * *", "0 * * * *", utc);
	same('c', "0 0 * * mon-fri", "0 0 * * 1-5", utc);
	same('c', "0 0 * * 0", "0 0 * * 7", utc);
	same('c', "0,30 * * * *", "30,0 * * * *", utc);
	same('c', "0 0 * jan *", "0 0 * 1 *", utc);
}

static void test_calendar(const struct tz *utc)
{
	differ('k', "*-*-* *:00:00", "*-*-* 00..11:00:00", utc);
	differ('k', "Mon *-*-* 09:00", "Tue *-*-* 09:00", utc);
	differ('k', "*:0/15", "*:0/20", utc);
	differ('k', "*-*-* 09:00:00", "*-*-* 09:00:30", utc);
	same('k', "hourly", "*-*-* *:00:00", utc);
	same('k', "*:0/15", "*:00,15,30,45", utc);
	same('k', "*-*-* 00..23:00", "*-*-* *:00", utc);
	same('k', "Mon..Fri 9:00", "Fri,Mon..Thu *-*-* 09:00:00", utc);
	same('k', "*:*:0/30", "*:*:00,30", utc);
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
	check(print_of('c', "0 9 * * *", paris) != print_of('c', "0 9 * * *", york), "Paris, New York");
	check(print_of('c', "0 9 * * *", paris) == print_of('c', "0 9 * * *", cet),
	      "Paris and CET: the same offsets all year");
	check(print_of('k', "*-*-* 09:00 America/New_York", utc) ==
		      print_of('k', "*-*-* 09:00", york), "an event's own zone, as the local one");
	tz_free(paris);
	tz_free(cet);
	tz_free(york);
}

int main(void)
{
	struct tz *utc = tz_load_utc();

	test_cron(utc);
	test_calendar(utc);
	test_zones(utc);
	tz_free(utc);
	return tally_finish(&tally, "fleet_print");
}
