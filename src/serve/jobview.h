/* SPDX-License-Identifier: MIT */
/* jobview: the loop's jobs as JSON, the answers of `tfdctl --json list`
 * and `tfdctl --json status JOB` (tfdctl(1) documents every field), for
 * the control socket and HTTP's /jobs and /jobs/NAME alike. Reads the
 * loop's state and the clocks; changes nothing. A status is one JSON
 * object (no newline) written after whatever W already holds (W->failed
 * says memory ran out); a list is made in parts of its own. */
#ifndef TFD_JOBVIEW_H
#define TFD_JOBVIEW_H

#include "jsonw.h"

struct loop;
struct job;
struct slice_budget;
struct run_record;

/* {"ok":true,"jobs":[{...},...]} and a newline: every job in the table
 * (not those a reload removed whose runs go on), sorted by the next
 * elapse (jobs with none last, then by name). Each job: "job", "next" and
 * "next_unix" (null: none), "left" (seconds), "last" and "last_unix" (the
 * last run's start; null: none), "passed", "result" ("success",
 * "failure", "status N", "signal NAME", "timeout"; null: no run ended),
 * "duration", "state" ("idle", "running", "paused", "retrying") and
 * "pids"; under --fleet, "last", "passed", "result" and "duration" are the
 * fleet's last run (tfd_runs) when another replica ran it later than this
 * one, and "replica" names the replica of that run (null: none).
 *
 * The list is made in parts, as its reader takes it (the control socket's
 * list, HTTP's /jobs), each within the loop's budget (slices.h): ten
 * thousand jobs are megabytes, tens of milliseconds of formatting, which
 * no timer waits for. What a part-made list promises: the jobs and their
 * order are the table's when its first part was made (the sort, and "now"
 * for "left" and "passed"); each job's fields are read when its part is
 * made, all in the same turn, so they agree with each other; a job that a
 * reload removes meanwhile is left out (its memory is never read once
 * freed); one it adds may be missing (one that took the memory of one
 * removed is listed in its place). */
struct jobview_listing;

/* A list of L's jobs, of which nothing is made yet. NULL when memory ran
 * out. */
struct jobview_listing *jobview_listing_new(const struct loop *l);

/* Makes the next part, *LEN bytes at *TEXT (valid until the next call),
 * its time spent from B: nothing while B is spent; the first part is the
 * sort and the head (and its first jobs, if the sort left B some time);
 * then whole jobs until the part holds MAX bytes. Returns 1 when that
 * part ends the list, 0 when more follows, -1 when memory ran out. */
int jobview_listing_part(struct jobview_listing *ls, struct slice_budget *b, size_t max,
			 const char **text, size_t *len);
void jobview_listing_free(struct jobview_listing *ls);

/* {"ok":true,"job":{...}}: the list's fields and "schedule" (as written),
 * "clock", "command", policies ("overlap", "timeout", "retry",
 * "retry_delay", "random_delay", "output"), "counters" (runs, success,
 * failures, timeouts, killed, missed, skipped, paused), "next_elapses"
 * (up to 3, each {"time", "unix"}), "runs" (up to the last 10, newest first) and "output_tail"
 * (the last 4 KiB of the latest run's output, or null when tfd does not
 * read it). Returns 0, or -1 when NAME is no job of the table (nothing
 * written). */
int jobview_status(struct jsonw *w, const struct loop *l, const char *name);

/* The same for anyone who may reach HTTP's /jobs/NAME, without
 * authentication: "command" and "output_tail" are left out (a command
 * line and a run's output may hold secrets; the 0600 control socket
 * shows them), as the environment always is. */
int jobview_status_public(struct jsonw *w, const struct loop *l, const char *name);

/* A run's "status" (its exit status; null when a signal ended it or it
 * never started) and "signal" (its name, or null), as `status` lists a
 * run and `run --wait` answers one. */
void jobview_put_exit(struct jsonw *w, const struct run_record *r);

/* The job of the table named NAME (not a removed one), or NULL. */
struct job *jobview_find(const struct loop *l, const char *name);

#endif
