/* SPDX-License-Identifier: MIT */
/* dryrun: --dry-run, the next expirations of every job of a table merged
 * in time order, printed on stdout instead of arming anything. It walks
 * each job's schedule (schedule_walk) as the loop would, one expiration at
 * its own instant, and prints each as the loop would print its tick: the
 * job's --format, a --json tick, or the terminal form. Then each job's
 * hooks (--on-failure, --on-success): below, in the terminal form; else
 * on stderr. */
#ifndef TFD_DRYRUN_H
#define TFD_DRYRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtable.h"
#include "tz.h"

/* --dry-run without a number: this many lines. */
#define DRY_RUN_DEFAULT 5

struct dry_run {
	const struct job_table *table; /* the jobs, built for a dry run */
	int64_t wall_now_ns;           /* the instant the table was built at (--base-time) */
	const struct tz *local;        /* %T's zone and the terminal form's; NULL: UTC */
	uint64_t lines;                /* how many expirations to print, over all jobs */
	const char *format;            /* each line; NULL: the terminal form */
	bool json;                     /* --json ticks instead */
	bool named;                    /* jobs of a file: the terminal form names each */
};

/* The line of a dry run: FORMAT (the job's --format, NULL: none given), or
 * under --json none, or on a terminal the terminal form (NULL), else "%t",
 * or "%t %j" for NAMED jobs, so that a pipe gets one instant a line. */
const char *dry_run_format(const char *format, bool json, bool named);

/* Prints DR's lines on stdout, in time order, equal instants in the
 * table's order. Returns 0; -1 when stdout failed (said on stderr, as
 * finish_stdout does); 1 when memory ran out, or 2 when an expiration maps
 * past 2262-04-11, with the reason in ERR. */
int dry_run_print(const struct dry_run *dr, char *err, size_t errlen);

#endif
