/* SPDX-License-Identifier: MIT */
/* options: what tfd's command line and a jobs file's tfd lines say, read
 * with popt into text that the job and wiring code then check. One table
 * describes every option; a tfd line accepts the per-job part of it. */
#ifndef TFD_OPTIONS_H
#define TFD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* The options that describe one job, as text; NULL when not given. */
struct job_options {
	char *name, *clock, *at, *delay, *interval, *count, *for_, *calendar, *cron;
	char *exec, *format, *overlap, *timeout, *retry, *retry_delay, *random_delay;
	char *persist, *cgroup, *join;
	char *on_failure, *on_success;   /* hooks (hooks.h) */
	char *ping, *notify, *notify_on; /* --ping, --notify, --notify-on (notify_url.h) */
	char *user;                      /* --user USER[:GROUP]; the last text field */
	bool tag_output;
	char **command; /* NULL-terminated, or NULL */
};

/* The whole command line: one job's options (the defaults of every job
 * with --jobs) and what acts on the process. */
struct options {
	struct job_options job;
	char *jobs, *dry_run, *base_time, *metrics; /* jobs: the first --jobs */
	char **jobs_all; /* every --jobs PATH in order, NULL-terminated */
	size_t jobs_n, jobs_cap;
	bool system_crontab; /* --system-crontab: crontab lines name a user */
	char *user_crontabs; /* --user-crontabs DIR: users' crontabs */
	char *fleet, *replica, *fleet_lease, *fleet_deadline, *fleet_keep;
	char *listen;     /* --listen=[ADDR:]PORT */
	char *on_stop;    /* --on-stop=forward|wait|leave */
	char *kill_after; /* --kill-after=DURATION */
	bool json, quiet, verbose, precise, stats, exit_on_error, log_runs;
	bool dry_run_given;
	char *control; /* --control=PATH; NULL with control_given: the default */
	bool control_given;
};

enum options_result { OPTIONS_GO_ON = -1 };

/* Reads ARGV. Returns OPTIONS_GO_ON, or the exit status after --help,
 * --usage, --version (0; a failed write is 1) or a bad option (2, with the
 * two lines of a usage error printed). */
int options_read(int argc, const char **argv, struct options *o);

/* The long name of the command line's option (JOB_LINE false) or a jobs
 * file's tfd line's (true) nearest to the unknown option BAD
 * ("--intreval", "--intreval=5s"): "interval", or NULL when none is near
 * (nearest.h). */
const char *options_suggest(const char *bad, bool job_line);

/* Reads the words of a tfd line (without a program name) over a copy of
 * DEFAULTS. Returns 0, or -1 with err naming the bad word and why. */
int options_read_job_line(char *const *words, const struct job_options *defaults,
			  struct job_options *out, char *err, size_t errlen);

/* Flushes stdout (help, version, a dry run): 0, or 1 after one line
 * naming the write error. EPIPE is 0: the reader left, as `| head` does. */
int finish_stdout(void);

/* A deep copy of the strings in SRC (so each job owns its own), and its
 * release. Return -1 when memory ran out. */
int job_options_copy(struct job_options *dst, const struct job_options *src);
void job_options_free(struct job_options *o);
void options_free(struct options *o);

/* The first option of O that only a single job may have (a schedule,
 * --count, --for, --persist, --name, --exec, a command), as "--count" or
 * "a COMMAND", with its text in TEXT (the command's words joined by
 * spaces, cut to fit TEXTLEN), or NULL: beside --jobs these are usage
 * errors. */
const char *job_only_option(const struct job_options *o, char *text, size_t textlen);

#endif
