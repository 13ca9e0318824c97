/* SPDX-License-Identifier: MIT */
/* elapses: checks a schedule file of the corpus (argv[1]) and of the
 * project's vectors (argv[2]) row by row, for every kind of schedule that
 * has the columns tz<TAB>base_epoch_s<TAB>input<TAB>expected (calendar.tsv,
 * cron.tsv; shared/corpus/README.md).
 *
 * expected is up to five elapses strictly after base as epoch seconds
 * separated by spaces, "never" (accepted, but never elapses) or "error"
 * (rejected with the kind's message). Fewer than five elapses means there
 * are no more. Where the kind allows, an elapse or base may carry a
 * fraction ("1781568001.125", up to 9 digits). */
#ifndef TFD_TEST_ELAPSES_H
#define TFD_TEST_ELAPSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "tsv.h"
#include "tz.h"

/* One kind of schedule, as the row checker sees it. */
struct schedule_kind {
	const char *test;         /* the test's name, for its notes */
	const char *file;         /* the file's name in both folders */
	const char *error_prefix; /* messages read "PREFIX 'INPUT': why" */
	const char *elapse;       /* what one elapse is called in FAIL lines */
	bool fractions;           /* base and elapses may have a fraction */
	/* Parses INPUT for rows of ZONE into *SCHEDULE (ARG is the kind's
	 * own); returns 0, or -1 with the message in ERR. */
	int (*parse)(const char *input, const struct tz *zone, void *arg, void **schedule,
		     char *err, size_t errlen);
	/* The first elapse strictly after AFTER_NS; 0, or -1 for none. */
	int (*next)(const void *schedule, const struct tz *zone, int64_t after_ns,
		    int64_t *next_ns);
	void (*release)(void *schedule);
	void *arg;
};

/* Checks every row of KIND's file in the corpus folder ARGV[1] (skipped
 * with a note when the file is not there) and in the vector folder ARGV[2],
 * adding one result per row to TALLY. */
void elapses_check_files(const struct schedule_kind *kind, int argc, char **argv,
			 struct tally *tally);

/* Near the ends of the int64 nanosecond range (issue 11 item 10): for each
 * of the N INPUTS, parsed for ZONE, and each of the M AFTERS, in ZONE and
 * in UTC (NULL), the next elapse is "none" or later than AFTER and before
 * LIMIT_NS; no sum wraps. */
void elapses_check_range_end(const struct schedule_kind *kind, const char *const *inputs, size_t n,
			     const int64_t *afters, size_t m, const struct tz *zone,
			     int64_t limit_ns, struct tally *tally);

#endif
