/* SPDX-License-Identifier: MIT */
/* test_parse_time: parse_duration and parse_timestamp against the reference
 * corpus (argv[1]) and the project's own vectors (argv[2]).
 *
 * durations.tsv:  input<TAB>expected_ns (or "error")
 * timestamps.tsv: tz<TAB>base_epoch_s<TAB>input<TAB>expected_epoch_us (or
 *                 "error"); the project's vectors may give sub-microsecond
 *                 instants as "US.FFF" (nanoseconds after the point). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "parse_time.h"
#include "timens.h"
#include "tsv.h"
#include "tz.h"

#define MAX_ZONES 32

struct run {
	struct tally tally;
	const char *file;
	struct tz_cache *cache; /* find_zone for "… Europe/Berlin" */
	struct {
		char *name;
		struct tz *zone;
	} zones[MAX_ZONES]; /* the rows' local zones, by name */
	int nzones;
};

/* A message must be one line naming the input. */
static int message_ok(const char *err, const char *kind)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "invalid %s '", kind);
	return strncmp(err, prefix, strlen(prefix)) == 0 && strchr(err, '\n') == NULL &&
	       strstr(err, "': ") != NULL;
}

/* Reads "N" or "N.FFF" (FFF: nanoseconds below N units of 1000 ns) into ns
 * when SCALE is 1000, or a plain integer when SCALE is 1. */
static int read_expected(const char *s, int64_t scale, int64_t *ns)
{
	char *end;
	long long whole;
	int64_t frac = 0;

	errno = 0;
	whole = strtoll(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == '.' && scale == 1000) {
		const char *f = end + 1;
		int digits = 0;

		for (; *f >= '0' && *f <= '9' && digits < 3; f++, digits++)
			frac = frac * 10 + (*f - '0');
		for (; digits < 3; digits++)
			frac *= 10;
		end = (char *)f;
	}
	if (*end != '\0')
		return -1;
	if (__builtin_mul_overflow((int64_t)whole, scale, ns) ||
	    __builtin_add_overflow(*ns, frac, ns))
		return -1;
	return 0;
}

/* Durations */

static int duration_row(const struct tsv_row *row, void *arg)
{
	struct run *run = arg;
	const char *input = row->field[0];
	char err[256] = "";
	int64_t got = -1, want;
	int rc;

	if (row->nfields < 2) {
		tally_check(&run->tally, 0, run->file, row->line, "malformed row");
		return 1;
	}
	rc = parse_duration(input, &got, err, sizeof(err));
	if (strcmp(row->field[1], "error") == 0) {
		tally_check(&run->tally, rc == -1 && message_ok(err, "duration"), run->file,
			    row->line, "'%s': want error, got rc=%d ns=%" PRId64 " err=%s", input,
			    rc, got, err);
		return rc == -1 ? 0 : 1;
	}
	if (read_expected(row->field[1], 1, &want) < 0) {
		tally_check(&run->tally, 0, run->file, row->line, "bad expected value '%s'",
			    row->field[1]);
		return 1;
	}
	tally_check(&run->tally, rc == 0 && got == want, run->file, row->line,
		    "'%s': want %" PRId64 ", got rc=%d ns=%" PRId64 " err=%s", input, want, rc, got,
		    err);
	return rc == 0 && got == want ? 0 : 1;
}

static void check_durations(struct run *run, const char *dir)
{
	char path[4096];

	run->file = path_join(path, sizeof(path), dir, "durations.tsv");
	if (tsv_each(path, 0, duration_row, run) < 0)
		tally_check(&run->tally, 0, path, 0, "cannot open");
}

/* Timestamps */

static struct tz *local_zone(struct run *run, const char *name)
{
	char err[256];
	struct tz *zone;

	for (int i = 0; i < run->nzones; i++) {
		if (strcmp(run->zones[i].name, name) == 0)
			return run->zones[i].zone;
	}
	zone = tz_load(name, err, sizeof(err));
	if (zone && run->nzones < MAX_ZONES) {
		run->zones[run->nzones].name = strdup(name);
		run->zones[run->nzones++].zone = zone;
	} else if (zone) {
		tz_free(zone);
		zone = NULL;
	}
	return zone;
}

/* Corpus rows whose oracle was misled: pinning the clock with libfaketime
 * makes it call mktime(3) itself, and glibc's next mktime then starts from
 * the offset of "now", so a repeated (fall-back) wall time came out in the
 * occurrence of "now"'s kind. systemd-analyze run for real gives the same
 * answer on any date (issue 11 item 8); these are its answers. */
static const struct oracle_fix {
	const char *tz;
	int64_t base;
	const char *input;
	const char *want_us;
} oracle_fixes[] = {
	{ "Europe/Berlin", 1792884600, "2026-10-25 02:30", "1792891800000000" },
	{ "Europe/Berlin", 1792884600, "02:30", "1792891800000000" },
};

static const char *expected_value(const struct tsv_row *row, int64_t base)
{
	for (size_t i = 0; i < sizeof(oracle_fixes) / sizeof(oracle_fixes[0]); i++) {
		const struct oracle_fix *f = &oracle_fixes[i];

		if (strcmp(row->field[0], f->tz) == 0 && base == f->base &&
		    strcmp(row->field[2], f->input) == 0)
			return f->want_us;
	}
	return row->field[3];
}

static int timestamp_row(const struct tsv_row *row, void *arg)
{
	struct run *run = arg;
	struct time_context ctx = { 0 };
	const char *input, *expected;
	char err[512] = "";
	int64_t base, got = -1, want;
	int rc, ok;

	if (row->nfields < 4 || read_expected(row->field[1], 1, &base) < 0) {
		tally_check(&run->tally, 0, run->file, row->line, "malformed row");
		return 1;
	}
	input = row->field[2];
	ctx.now_ns = base * NSEC_PER_SEC;
	ctx.local = local_zone(run, row->field[0]);
	ctx.find_zone = tz_cache_lookup;
	ctx.find_zone_arg = run->cache;
	if (!ctx.local) {
		tally_check(&run->tally, 0, run->file, row->line, "cannot load zone '%s'",
			    row->field[0]);
		return 1;
	}
	rc = parse_timestamp(input, &ctx, &got, err, sizeof(err));
	expected = expected_value(row, base);
	if (strcmp(expected, "error") == 0) {
		ok = rc == -1 && message_ok(err, "timestamp");
		tally_check(&run->tally, ok, run->file, row->line,
			    "%s @%" PRId64 " '%s': want error, got rc=%d ns=%" PRId64 " err=%s",
			    row->field[0], base, input, rc, got, err);
		return ok ? 0 : 1;
	}
	if (read_expected(expected, 1000, &want) < 0) {
		tally_check(&run->tally, 0, run->file, row->line, "bad expected value '%s'",
			    expected);
		return 1;
	}
	ok = rc == 0 && got == want;
	tally_check(&run->tally, ok, run->file, row->line,
		    "%s @%" PRId64 " '%s': want %" PRId64 ", got rc=%d ns=%" PRId64 " err=%s",
		    row->field[0], base, input, want, rc, got, err);
	return ok ? 0 : 1;
}

static void check_timestamps(struct run *run, const char *dir)
{
	char path[4096];

	run->file = path_join(path, sizeof(path), dir, "timestamps.tsv");
	if (tsv_each(path, 2, timestamp_row, run) < 0)
		tally_check(&run->tally, 0, path, 0, "cannot open");
}

/* Fixed cases: the wording of messages, and NULL handling. */
static void check_duration_messages(struct run *run)
{
	static const struct {
		const char *input;
		const char *message;
	} cases[] = {
		{ "5x", "invalid duration '5x': unknown unit 'x'" },
		{ "-5s", "invalid duration '-5s': negative time spans are not allowed" },
		{ "5s\n-", "invalid duration '5s\\n-': negative time spans are not allowed" },
		{ "", "invalid duration '': no time span given" },
	};
	char err[256];
	int64_t ns;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = parse_duration(cases[i].input, &ns, err, sizeof(err));

		tally_check(&run->tally, rc == -1 && strcmp(err, cases[i].message) == 0, __FILE__,
			    __LINE__, "'%s': got '%s'", cases[i].input, err);
	}
	/* A short buffer truncates; a NULL one is allowed. */
	tally_check(&run->tally, parse_duration("5x", &ns, err, 8) == -1 && strlen(err) == 7,
		    __FILE__, __LINE__, "short buffer");
	tally_check(&run->tally, parse_duration("5x", &ns, NULL, 0) == -1, __FILE__, __LINE__,
		    "NULL buffer");
}

/* Fixed timestamp cases: messages, and a context without zones. */
static void check_timestamp_messages(struct run *run)
{
	static const struct {
		const char *input;
		const char *why;
	} cases[] = {
		{ "now\n", "not a known timestamp form" },
		{ "Tue 2026-06-15", "the date is a Monday, not a Tuesday" },
		{ "1969-12-31", "before 1970-01-01 00:00:00 UTC" },
		{ "2262-04-12", "after 2262-04-11 23:47:16 UTC (out of range)" },
		{ "+5x", "unknown unit 'x'" },
		{ "now Europe/Berlin", "a relative time takes no time zone" },
		{ "2026-06-15Z", "a UTC offset needs a time of day before it" },
		{ "12:00:00.5x", "bad fraction of a second" },
	};
	struct time_context ctx = {
		.now_ns = INT64_C(1781526896) * 1000000000,
		.local = tz_load_utc(),
		.find_zone = tz_cache_lookup,
		.find_zone_arg = run->cache,
	};
	char err[512], want[512];
	int64_t ns = 0;
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *nl = strchr(cases[i].input, '\n');

		snprintf(want, sizeof(want), "invalid timestamp '%.*s%s': %s",
			 nl ? (int)(nl - cases[i].input) : (int)strlen(cases[i].input),
			 cases[i].input, nl ? "\\n" : "", cases[i].why);
		rc = parse_timestamp(cases[i].input, &ctx, &ns, err, sizeof(err));
		tally_check(&run->tally, rc == -1 && strncmp(err, want, strlen(want)) == 0,
			    __FILE__, __LINE__, "'%s': got '%s', want '%s'", cases[i].input, err,
			    want);
	}
	/* Without a lookup, zone names are unknown; without a local zone,
	 * local time is UTC. */
	ctx.find_zone = NULL;
	ctx.local = NULL;
	tally_check(&run->tally,
		    parse_timestamp("2026-06-15 12:00 Europe/Berlin", &ctx, &ns, err,
				    sizeof(err)) == -1,
		    __FILE__, __LINE__, "zone without lookup: %s", err);
	rc = parse_timestamp("2026-06-15 12:00", &ctx, &ns, err, sizeof(err));
	tally_check(&run->tally, rc == 0 && ns == INT64_C(1781524800) * 1000000000, __FILE__,
		    __LINE__, "no local zone: rc=%d %s", rc, err);
	tally_check(&run->tally, parse_timestamp("now", NULL, &ns, err, sizeof(err)) == -1,
		    __FILE__, __LINE__, "NULL context");
}

/* --at's reading (time_context.upcoming): a time of day alone already
 * past is tomorrow's, counted on the wall clock (across a change to
 * daylight saving time); everything else is as without it. And what each
 * text was (timestamp_form). */
static void check_upcoming(struct run *run)
{
	static const struct {
		int64_t now; /* Unix seconds */
		const char *input;
		bool upcoming;
		int64_t want; /* Unix seconds */
		bool time_of_day, local;
	} cases[] = {
		/* clang-format off */
		{ 1781526896, "01:00", true, 1781564400, true, true },   /* tomorrow 01:00 CEST */
		{ 1781526896, "01:00", false, 1781478000, true, true },  /* today's, past */
		{ 1781526896, "14:00", true, 1781611200, true, true },   /* 12:00 UTC: past */
		{ 1781526896, "15:00", true, 1781528400, true, true },   /* still to come today */
		{ 1781526896, "01:00 UTC", true, 1781571600, true, false },
		{ 1781526896, "01:00 Europe/Berlin", true, 1781564400, true, false },
		{ 1781526896, "2026-06-15 01:00", true, 1781478000, false, true },
		{ 1781526896, "2026-06-15T01:00:00Z", true, 1781485200, false, false },
		{ 1781526896, "today", true, 1781474400, false, true },
		{ 1781526896, "Mon 01:00", true, 1781478000, false, true },  /* a weekday: as written */
		{ 1781526896, "@1781478000", true, 1781478000, false, false },
		{ 1781526896, "-5min", true, 1781526596, false, false },
		{ 1774699200, "12:30", true, 1774780200, true, true },   /* 12:30 CEST, the next day */
		/* clang-format on */
	};
	struct time_context ctx = {
		.local = tz_cache_lookup(run->cache, "Europe/Berlin"),
		.find_zone = tz_cache_lookup,
		.find_zone_arg = run->cache,
	};
	struct timestamp_form form;
	char err[512];
	int64_t ns;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		ctx.now_ns = cases[i].now * 1000000000;
		ctx.upcoming = cases[i].upcoming;
		rc = parse_timestamp_form(cases[i].input, &ctx, &ns, &form, err, sizeof(err));
		tally_check(&run->tally,
			    rc == 0 && ns == cases[i].want * 1000000000 &&
				    form.time_of_day == cases[i].time_of_day &&
				    form.local == cases[i].local,
			    __FILE__, __LINE__,
			    "'%s'%s: rc=%d %s ns=%lld (want %lld) tod=%d local=%d", cases[i].input,
			    cases[i].upcoming ? " upcoming" : "", rc, err,
			    (long long)(ns / 1000000000), (long long)cases[i].want,
			    form.time_of_day, form.local);
	}
}

int main(int argc, char **argv)
{
	struct run run = { .cache = tz_cache_new() };
	const char *corpus = argc > 1 ? argv[1] : "../shared/corpus";
	const char *vectors = argc > 2 ? argv[2] : "tests/vectors";
	char path[4096];
	FILE *f;

	path_join(path, sizeof(path), corpus, "durations.tsv");
	f = fopen(path, "re");
	if (f) {
		fclose(f);
		check_durations(&run, corpus);
		check_timestamps(&run, corpus);
	} else {
		printf("test_parse_time: no corpus at %s, skipping it\n", corpus);
	}
	check_durations(&run, vectors);
	check_timestamps(&run, vectors);
	check_duration_messages(&run);
	check_timestamp_messages(&run);
	check_upcoming(&run);
	for (int i = 0; i < run.nzones; i++) {
		free(run.zones[i].name);
		tz_free(run.zones[i].zone);
	}
	tz_cache_free(run.cache);
	return tally_finish(&run.tally, "test_parse_time");
}
