/* SPDX-License-Identifier: MIT */
/* loopkit: a bare struct loop for the unit tests of the loop's modules
 * (tick, runs, claims), as test_runner drives runner.c: no poll, no
 * signalfd, no dispatch; the test calls the module and looks at the
 * loop's state and status (l->st) afterwards. What the loop prints goes
 * to files of the test's, read back with loopkit_out and loopkit_err. The runs' record
 * and end hooks (runs.h) are counted here, as loop.c would pass them on. */
#ifndef TFD_TEST_LOOPKIT_H
#define TFD_TEST_LOOPKIT_H

#include <stdbool.h>
#include <stddef.h>

#include "job.h"
#include "loopstate.h"

struct loopkit {
	struct loop l;
	struct loop_config cfg;
	char out_path[64], err_path[64];
	int out_fd, err_fd;
	/* What the runs told the loop (runs.h's hooks). */
	size_t records, finals, ends;
	struct run_record last_record;
};

/* A loop with no job, printing tick lines in plain text; aborts when it
 * cannot be made. */
struct loopkit *loopkit_new(void);
void loopkit_free(struct loopkit *k);

/* For a module that prints through events alone (the mailer, the
 * hooks): EV opened for --json, its stdout and stderr both the file
 * PATH of the test's. Returns the file's descriptor (read it back with
 * harness_file_text; close it after events_close), or -1. */
int loopkit_json_events(struct events *ev, const char *path);

/* Everything printed on the loop's stdout (stderr) so far, in a static
 * buffer of each. */
const char *loopkit_out(struct loopkit *k);
const char *loopkit_err(struct loopkit *k);

/* A job named NAME that runs ARGV (NULL: only prints (FORMAT: its tick line), with a
 * state, on a periodic CLOCK_MONOTONIC timer of INTERVAL_NS whose first
 * elapse is FIRST_NS (absolute). Added to K's table. */
struct job *loopkit_job(struct loopkit *k, const char *name, const char *format, int64_t first_ns,
			int64_t interval_ns);

/* The same job given a command, ARGV (argv[0] a full path), to run. */
void loopkit_command(struct job *j, char *const *argv);

#endif
