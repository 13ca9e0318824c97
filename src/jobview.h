/* SPDX-License-Identifier: MIT */
/* jobview: the loop's jobs as JSON, the answers of `tfdctl --json list`
 * and `tfdctl --json status JOB` (tfdctl(1) documents every field), for
 * the control socket and HTTP's /jobs and /jobs/NAME alike. Reads the
 * loop's state and the clocks; changes nothing. Each call writes one JSON
 * object (no newline) after whatever W already holds; W->failed says
 * memory ran out. */
#ifndef TFD_JOBVIEW_H
#define TFD_JOBVIEW_H

#include "jsonw.h"

struct loop;
struct job;

/* {"ok":true,"jobs":[{...},...]}: every job in the table (not those a
 * reload removed whose runs go on), sorted by the next elapse (jobs with
 * none last, then by name). Each job: "job", "next" and "next_unix"
 * (null: none), "left" (seconds), "last" and "last_unix" (the last run's
 * start; null: none), "passed", "result" ("success", "failure",
 * "status N", "signal NAME", "timeout"; null: no run ended), "duration",
 * "state" ("idle", "running", "paused", "retrying") and "pids"; under
 * --fleet, "last", "passed", "result" and "duration" are the fleet's last
 * run (tfd_runs) when another replica ran it later than this one, and
 * "replica" names the replica of that run (null: none). */
void jobview_list(struct jsonw *w, const struct loop *l);

/* The same list in parts, for an answer written as its reader takes it
 * (the control socket's): JOBVIEW_LIST_HEAD, then each job of
 * jobview_sorted's array (list order; the caller frees it; NULL when
 * memory ran out) as jobview_list_job writes it, with a comma between
 * two, then JOBVIEW_LIST_TAIL. NOW is the wall clock's, once for the
 * whole list. */
#define JOBVIEW_LIST_HEAD "{\"ok\":true,\"jobs\":["
#define JOBVIEW_LIST_TAIL "]}"
struct job **jobview_sorted(const struct loop *l, size_t *n);
void jobview_list_job(struct jsonw *w, const struct loop *l, const struct job *j, int64_t now);

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

/* The job of the table named NAME (not a removed one), or NULL. */
struct job *jobview_find(const struct loop *l, const char *name);

#endif
