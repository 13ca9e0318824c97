/* SPDX-License-Identifier: MIT */
/* jobtable: the table of jobs, from the command line (one job) or from a
 * jobs file (tfd-jobs(5)): each line becomes a job with the options beside
 * --jobs as its defaults, names are given (explicit first, then default
 * names with -2, -3, ...), every error is FILE:LINE. Also what a reload
 * reads. */
#ifndef TFD_JOBTABLE_H
#define TFD_JOBTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "job.h"
#include "jobsread.h"
#include "options.h"

/* A table of jobs, as loading the jobs file makes it. */
struct job_table {
	struct job **jobs;
	size_t n;
};

struct jobs_source {
	const char *path;   /* the first --jobs PATH */
	char *const *paths; /* every --jobs PATH, files and directories */
	size_t npaths;
	bool system;               /* --system-crontab: crontab lines name a user,
				      and a file loads only if root's alone */
	const char *user_crontabs; /* --user-crontabs DIR, or NULL */
	char **unknown;            /* the users the last load found missing: once
				      one exists, a reload of unchanged files
				      loads again (NULL-terminated, or NULL) */
	const struct job_options *defaults;
	struct job_context ctx;  /* the parts that are the same for every line */
	const char *tick_format; /* the tick line of a job without --format */
	char *last_text;         /* every file as last loaded (names and texts),
				    to see a real change */
	size_t last_len;
	size_t nfiles;     /* the files the last load read (the log's count) */
	bool read_failed;  /* the last load failed on a file it could not
			      read, not on a line */
	char *const *held; /* the reload's: files a writer still holds
			      open (jobs_from) */
};

/* Reads every file of the sources (a directory stands for its files, by
 * jobsdir's rule; the spool's by its own), each its own crontab, into one
 * table of built and opened jobs, names unique across files. Returns 0; 1
 * when every file is as last read and FORCED is false; -1 when a file
 * cannot be read or a line is bad (err: "FILE:LINE: why" or "FILE: why"),
 * with the exit status for it in *status: one bad file refuses the whole
 * load. What a host's cron passes over instead (a file cron would not
 * load or cannot read, one reached twice, a line of an unknown user, a bad
 * line, a last line without newline) goes to WARN, with what a line's
 * runs would fail on (linecheck.h) and a cron line that never runs, once
 * a load, not when nothing changed nor when the load is refused.
 * jobs_source_reload fits loop_reload_fn. */
int jobs_source_load(struct jobs_source *src, struct job_table *out, bool forced, jobs_warn_fn warn,
		     void *warn_arg, int *status, char *err, size_t errlen);
int jobs_source_reload(void *src, struct job_table *out, bool forced, char *const *held,
		       jobs_warn_fn warn, void *warn_arg, char *err, size_t errlen);
void jobs_source_free(struct jobs_source *src);

/* Names every job of JOBS that has none (its name_base set) in table
 * order: the base name, else BASE-2, BASE-3, ...: the first that no job
 * of JOBS has. A job that has a name (--name, or a job a reload kept)
 * keeps it. Returns 0, or -1 when memory ran out (then some may still
 * have none). */
int job_names_default(struct job **jobs, size_t n);

/* The table of one job from the command line: named after its command's
 * base name, or "tfd" without one. Returns 0 or the exit status. */
int job_table_single(const struct job_options *o, const struct job_context *ctx,
		     struct job_table *out, char *err, size_t errlen);

void job_table_free(struct job_table *t);

/* Whether a job of JOBS (N of them) HAS what is asked: tfd loads a
 * library, and the loop opens an owner, only for what a job uses. */
bool jobs_any(struct job *const *jobs, size_t n, bool (*has)(const struct job *));

/* What jobs_any asks: the job mails its runs' output (MAILTO), has a
 * hook (--on-failure, --on-success), tells of its runs (--ping,
 * --notify). */
bool job_mails(const struct job *j);
bool job_has_hook(const struct job *j);
bool job_notifies(const struct job *j);

#endif
