/* test_calendar: calendar_parse and calendar_next against the reference
 * corpus (argv[1]/calendar.tsv) and the project's own vectors
 * (argv[2]/calendar.tsv).
 *
 * Columns: tz<TAB>base_epoch_s<TAB>input<TAB>expected, where expected is up
 * to five elapses strictly after base as epoch seconds separated by spaces,
 * "never" or "error". Fewer than five elapses means there are no more. The
 * project's vectors may write an elapse with a fraction ("1781568001.125",
 * up to 9 digits) for events with sub-second parts.
 *
 * Events are parsed with calendar_parse_local and the row's zone, so that a
 * trailing abbreviation of that zone ("… EST" in America/New_York) reads as
 * systemd reads it with that TZ. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "tsv.h"
#include "tz.h"

#define MAX_ELAPSES 5
#define NS_PER_SEC INT64_C(1000000000)

struct run {
	struct tally tally;
	const char *file;
	struct tz_cache *zones;
};

/* Reads "S" or "S.FFFFFFFFF" epoch seconds into nanoseconds. */
static int read_instant(const char *s, char **end, int64_t *ns)
{
	long long whole;
	int64_t frac = 0;
	int digits = 0;

	errno = 0;
	whole = strtoll(s, end, 10);
	if (errno || *end == s)
		return -1;
	if (**end == '.') {
		for ((*end)++; **end >= '0' && **end <= '9'; (*end)++, digits++) {
			if (digits < 9)
				frac = frac * 10 + (**end - '0');
		}
		if (digits == 0 || digits > 9)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (__builtin_mul_overflow((int64_t)whole, NS_PER_SEC, ns) ||
	    __builtin_add_overflow(*ns, frac, ns))
		return -1;
	return 0;
}

/* Splits the expected column into instants; returns their number or -1. */
static int read_expected(const char *s, int64_t want[MAX_ELAPSES])
{
	int n = 0;
	char *end;

	while (*s) {
		if (n == MAX_ELAPSES || read_instant(s, &end, &want[n]) != 0)
			return -1;
		n++;
		if (*end == ' ')
			end++;
		else if (*end != '\0')
			return -1;
		s = end;
	}
	return n;
}

static int message_ok(const char *err, const char *input)
{
	char prefix[512];

	snprintf(prefix, sizeof(prefix), "invalid calendar event '%s': ", input);
	return strncmp(err, prefix, strlen(prefix)) == 0 && err[strlen(prefix)] &&
	       (strchr(input, '\n') || !strchr(err, '\n'));
}

static void format_ns(char *buf, size_t len, int64_t ns)
{
	if (ns % NS_PER_SEC == 0)
		snprintf(buf, len, "%" PRId64, ns / NS_PER_SEC);
	else
		snprintf(buf, len, "%" PRId64 ".%09" PRId64, ns / NS_PER_SEC,
			 ns % NS_PER_SEC);
}

/* Computes the elapses after BASE and compares them with the expected
 * column: the listed ones, then "no more" if fewer than five are listed. */
static void check_elapses(struct run *run, const struct tsv_row *row,
			  const struct calendar *cal, const struct tz *zone,
			  int64_t base)
{
	const char *expected = row->field[3];
	int64_t want[MAX_ELAPSES], after = base, next = 0;
	int n = strcmp(expected, "never") == 0 ? 0 : read_expected(expected, want);
	char got[32], exp[32];

	if (n < 0) {
		tally_check(&run->tally, 0, run->file, row->line, "bad expected column");
		return;
	}
	for (int i = 0; i <= n && i < MAX_ELAPSES; i++) {
		int rc = calendar_next(cal, zone, after, &next);

		if (i == n) {
			format_ns(got, sizeof(got), next);
			tally_check(&run->tally, rc == -1, run->file, row->line,
				    "'%s' tz=%s: elapse #%d should not exist, got %s",
				    row->field[2], row->field[0], i + 1,
				    rc == 0 ? got : "?");
			return;
		}
		format_ns(exp, sizeof(exp), want[i]);
		format_ns(got, sizeof(got), next);
		if (rc != 0 || next != want[i]) {
			tally_check(&run->tally, 0, run->file, row->line,
				    "'%s' tz=%s base=%s: elapse #%d: want %s, got %s",
				    row->field[2], row->field[0], row->field[1], i + 1,
				    exp, rc == 0 ? got : "never");
			return;
		}
		after = next;
	}
	tally_check(&run->tally, 1, run->file, row->line, "ok");
}

static int calendar_row(const struct tsv_row *row, void *arg)
{
	struct run *run = arg;
	struct calendar *cal = NULL;
	struct tz *zone;
	char err[512] = "", *end;
	int64_t base;
	int rc;

	if (row->nfields < 4) {
		tally_check(&run->tally, 0, run->file, row->line, "malformed row");
		return 1;
	}
	zone = tz_load(row->field[0], err, sizeof(err));
	if (!zone || read_instant(row->field[1], &end, &base) != 0 || *end) {
		tally_check(&run->tally, 0, run->file, row->line,
			    "bad tz or base column: %s", err);
		tz_free(zone);
		return 1;
	}
	/* The zone of TZ is also what "… CET"-style abbreviations refer to. */
	rc = calendar_parse_local(row->field[2], zone, tz_cache_lookup, run->zones,
				  &cal, err, sizeof(err));
	if (strcmp(row->field[3], "error") == 0) {
		tally_check(&run->tally, rc == -1 && message_ok(err, row->field[2]),
			    run->file, row->line, "'%s': want error, got %s",
			    row->field[2], rc == 0 ? "accepted" : err);
	} else if (rc != 0) {
		tally_check(&run->tally, 0, run->file, row->line,
			    "'%s': want accepted, got %s", row->field[2], err);
	} else {
		check_elapses(run, row, cal, zone, base);
	}
	calendar_free(cal);
	tz_free(zone);
	return 0;
}

static void run_file(struct run *run, const char *dir, const char *name)
{
	char path[4096];

	run->file = path_join(path, sizeof(path), dir, name);
	if (tsv_each(path, 2, calendar_row, run) < 0) {
		fprintf(stderr, "test_calendar: cannot read %s\n", path);
		run->tally.failed++;
	}
}

/* Checks that calendar_next always moves strictly forward, stepping through
 * DST changes one elapse at a time, and only stops in 2199, the last year
 * systemd searches. */
static void check_monotonic(struct run *run)
{
	static const char *const zones[] = { "Europe/Berlin", "America/New_York",
					     "Australia/Lord_Howe" };
	static const char *const events[] = { "*:0/15", "*:*:0/20", "hourly",
					      "*-*-* 01,02:30", "Sun *-*~07/1 02:00" };
	const int64_t end_2199 = INT64_C(7258118400) * NS_PER_SEC - 1;
	char err[256];

	run->file = "monotonic";
	for (size_t z = 0; z < sizeof(zones) / sizeof(*zones); z++) {
		struct tz *zone = tz_load(zones[z], err, sizeof(err));

		for (size_t e = 0; zone && e < sizeof(events) / sizeof(*events); e++) {
			struct calendar *cal;
			int64_t t = INT64_C(1767225600) * NS_PER_SEC, next = 0;
			int ok = 1;

			if (calendar_parse(events[e], NULL, NULL, &cal, err,
					   sizeof(err)) != 0) {
				tally_check(&run->tally, 0, run->file, 0, "%s", err);
				continue;
			}
			for (int i = 0; i < 20000 && ok; i++) {
				if (calendar_next(cal, zone, t, &next) != 0) {
					/* Only the year limit may end it. */
					ok = t > end_2199 - INT64_C(86400 * 62) * NS_PER_SEC;
					break;
				}
				ok = next > t;
				t = next;
			}
			tally_check(&run->tally, ok, run->file, 0,
				    "%s in %s stalls or ends early", events[e], zones[z]);
			calendar_free(cal);
		}
		tz_free(zone);
	}
}

int main(int argc, char **argv)
{
	struct run run = { { 0, 0 }, NULL, tz_cache_new() };
	int status;

	if (!run.zones)
		return 1;
	if (argc > 1 && argv[1][0]) {
		char probe[4096];
		FILE *f = fopen(path_join(probe, sizeof(probe), argv[1],
					  "calendar.tsv"), "re");

		if (f) {
			fclose(f);
			run_file(&run, argv[1], "calendar.tsv");
		} else {
			printf("test_calendar: no corpus at %s, skipped\n", argv[1]);
		}
	}
	if (argc > 2)
		run_file(&run, argv[2], "calendar.tsv");
	check_monotonic(&run);
	status = tally_finish(&run.tally, "test_calendar");
	tz_cache_free(run.zones);
	return status;
}
