/* SPDX-License-Identifier: MIT */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "elapses.h"
#include "timens.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELAPSES 5

/* What the row callback needs besides the row. */
struct elapse_run {
	const struct schedule_kind *kind;
	struct tally *tally;
	const char *file;
};

/* Reads "S", or "S.FFFFFFFFF" where FRACTIONS allows, epoch seconds into
 * nanoseconds. A fraction where it is not allowed is left unread, so the
 * caller sees it as trailing text. */
static int read_instant(const char *s, bool fractions, char **end, int64_t *ns)
{
	long long whole;
	int64_t frac = 0;
	int digits = 0;

	errno = 0;
	whole = strtoll(s, end, 10);
	if (errno || *end == s)
		return -1;
	if (fractions && **end == '.') {
		for ((*end)++; **end >= '0' && **end <= '9'; (*end)++, digits++) {
			if (digits < 9)
				frac = frac * 10 + (**end - '0');
		}
		if (digits == 0 || digits > 9)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (__builtin_mul_overflow((int64_t)whole, NSEC_PER_SEC, ns) ||
	    __builtin_add_overflow(*ns, frac, ns))
		return -1;
	return 0;
}

/* Splits the expected column into instants; returns their number or -1. */
static int read_expected(const char *s, bool fractions, int64_t want[MAX_ELAPSES])
{
	int n = 0;
	char *end;

	while (*s) {
		if (n == MAX_ELAPSES || read_instant(s, fractions, &end, &want[n]) != 0)
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

/* A rejected input's message names it after the kind's prefix, says why,
 * and stays on one line unless the input itself has a newline. */
static int message_ok(const char *prefix_text, const char *err, const char *input)
{
	char prefix[512];

	snprintf(prefix, sizeof(prefix), "%s '%s': ", prefix_text, input);
	return strncmp(err, prefix, strlen(prefix)) == 0 && err[strlen(prefix)] &&
	       (strchr(input, '\n') || !strchr(err, '\n'));
}

static void format_ns(char *buf, size_t len, int64_t ns)
{
	if (ns % NSEC_PER_SEC == 0)
		snprintf(buf, len, "%" PRId64, ns / NSEC_PER_SEC);
	else
		snprintf(buf, len, "%" PRId64 ".%09" PRId64, ns / NSEC_PER_SEC, ns % NSEC_PER_SEC);
}

/* Computes the elapses after BASE and compares them with the expected
 * column: the listed ones, then "no more" if fewer than five are listed. */
static void check_elapses(struct elapse_run *run, const struct tsv_row *row, const void *schedule,
			  const struct tz *zone, int64_t base)
{
	const struct schedule_kind *kind = run->kind;
	const char *expected = row->field[3];
	int64_t want[MAX_ELAPSES], after = base, next = 0;
	int n = strcmp(expected, "never") == 0 ? 0 : read_expected(expected, kind->fractions, want);
	char got[32], exp[32];

	if (n < 0) {
		tally_check(run->tally, 0, run->file, row->line, "bad expected column");
		return;
	}
	for (int i = 0; i <= n && i < MAX_ELAPSES; i++) {
		int rc = kind->next(schedule, zone, after, &next);

		if (i == n) {
			format_ns(got, sizeof(got), next);
			tally_check(run->tally, rc == -1, run->file, row->line,
				    "'%s' tz=%s: %s #%d should not exist, got %s", row->field[2],
				    row->field[0], kind->elapse, i + 1, rc == 0 ? got : "?");
			return;
		}
		format_ns(exp, sizeof(exp), want[i]);
		format_ns(got, sizeof(got), next);
		if (rc != 0 || next != want[i]) {
			tally_check(run->tally, 0, run->file, row->line,
				    "'%s' tz=%s base=%s: %s #%d: want %s, got %s", row->field[2],
				    row->field[0], row->field[1], kind->elapse, i + 1, exp,
				    rc == 0 ? got : "never");
			return;
		}
		after = next;
	}
	tally_check(run->tally, 1, run->file, row->line, "ok");
}

/* Parses the row's input in the row's zone and checks what the expected
 * column says of it: an error with the kind's message, or its elapses. */
static int check_row(const struct tsv_row *row, void *arg)
{
	struct elapse_run *run = arg;
	const struct schedule_kind *kind = run->kind;
	void *schedule = NULL;
	struct tz *zone;
	char err[512] = "", *end;
	int64_t base;
	int rc;

	if (row->nfields < 4) {
		tally_check(run->tally, 0, run->file, row->line, "malformed row");
		return 1;
	}
	zone = tz_load(row->field[0], err, sizeof(err));
	if (!zone || read_instant(row->field[1], kind->fractions, &end, &base) != 0 || *end) {
		tally_check(run->tally, 0, run->file, row->line, "bad tz or base column: %s", err);
		tz_free(zone);
		return 1;
	}
	rc = kind->parse(row->field[2], zone, kind->arg, &schedule, err, sizeof(err));
	if (strcmp(row->field[3], "error") == 0) {
		tally_check(run->tally,
			    rc == -1 && message_ok(kind->error_prefix, err, row->field[2]),
			    run->file, row->line, "'%s': want error, got %s", row->field[2],
			    rc == 0 ? "accepted" : err);
	} else if (rc != 0) {
		tally_check(run->tally, 0, run->file, row->line, "'%s': want accepted, got %s",
			    row->field[2], err);
	} else {
		check_elapses(run, row, schedule, zone, base);
	}
	kind->release(schedule);
	tz_free(zone);
	return 0;
}

static void check_file(struct elapse_run *run, const char *dir)
{
	char path[4096];

	run->file = path_join(path, sizeof(path), dir, run->kind->file);
	if (tsv_each(path, 2, check_row, run) < 0) {
		fprintf(stderr, "%s: cannot read %s\n", run->kind->test, path);
		run->tally->failed++;
	}
}

void elapses_check_files(const struct schedule_kind *kind, int argc, char **argv,
			 struct tally *tally)
{
	struct elapse_run run = { kind, tally, NULL };

	if (argc > 1 && argv[1][0]) {
		char probe[4096];
		FILE *f = fopen(path_join(probe, sizeof(probe), argv[1], kind->file), "re");

		if (f) {
			fclose(f);
			check_file(&run, argv[1]);
		} else {
			printf("%s: no corpus at %s, skipped\n", kind->test, argv[1]);
		}
	}
	if (argc > 2)
		check_file(&run, argv[2]);
}

void elapses_check_range_end(const struct schedule_kind *kind, const char *const *inputs, size_t n,
			     const int64_t *afters, size_t m, const struct tz *zone,
			     int64_t limit_ns, struct tally *tally)
{
	for (size_t i = 0; i < n; i++) {
		void *schedule;
		char err[256];

		if (kind->parse(inputs[i], zone, kind->arg, &schedule, err, sizeof(err)) != 0) {
			tally_check(tally, 0, __FILE__, __LINE__, "%s: %s", inputs[i], err);
			continue;
		}
		for (size_t a = 0; a < m; a++) {
			for (int z = 0; z < 2; z++) {
				int64_t next = 0;
				int rc = kind->next(schedule, z ? zone : NULL, afters[a], &next);

				tally_check(tally, rc != 0 || (next > afters[a] && next < limit_ns),
					    __FILE__, __LINE__,
					    "%s: '%s' after %" PRId64 ": rc %d, %s %" PRId64,
					    kind->test, inputs[i], afters[a], rc, kind->elapse,
					    next);
			}
		}
		kind->release(schedule);
	}
}
