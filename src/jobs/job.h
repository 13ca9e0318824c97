/* SPDX-License-Identifier: MIT */
/* job: one job of the table — what it is (schedule, command, policies),
 * built from its options once by job_build and not changed afterwards.
 * Where it is (counters, the armed elapse, its runs, a delayed action, its
 * metrics) is the loop's, in struct job_state (jobstate.h), which only the
 * loop's modules see. A single job from the command line and every line of
 * a jobs file are the same object; struct loop keeps only what belongs to
 * the whole process. */
#ifndef TFD_JOB_H
#define TFD_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "heap.h"
#include "hooks.h"
#include "mail.h"
#include "metrics.h"
#include "notify_url.h"
#include "options.h"
#include "report.h"
#include "runner.h"
#include "runuser.h"
#include "schedule.h"
#include "session.h"
#include "spawn.h"
#include "tz.h"

/* The runs' environments a load built, for its next lines to share: the
 * last JOB_ENVS_KEPT, each by the section it comes from (a jobs file's
 * lines with no environment line between them see one array) and the
 * user its runs run as. A section's lines come one after another, so ten
 * thousand lines of one file, even of a few users each, hold a few. */
#define JOB_ENVS_KEPT 8
struct job_envs {
	struct job_env_kept {
		char *const *section;   /* job_context.env */
		char *user;             /* who the runs run as; NULL: tfd's user */
		struct runner_env *env; /* held */
	} kept[JOB_ENVS_KEPT];
	unsigned next;
};

void job_envs_free(struct job_envs *envs);

/* What building a job needs besides its options. */
struct job_context {
	const struct tz *local; /* tfd's zone (TZ) */
	struct tz_cache *zones;
	int64_t wall_now_ns;   /* "now" on the wall clock (--base-time moves it) */
	int64_t mono_now_ns;   /* "now" on CLOCK_MONOTONIC: tfd's start, or
				* the reload's instant for a reload's jobs */
	bool base_given;       /* --base-time: "now" is not the clock's */
	bool dry_run;          /* check, but open and write nothing */
	bool in_file;          /* a jobs file's line: a command is required */
	bool cron_file;        /* a file cron itself reads (--system-crontab, a user's crontab):
				* cron's rules for it apply (job_mails_by_default) */
	const char *zone_name; /* CRON_TZ for this line, or NULL */
	char *const *env;      /* the file's environment for this line, or NULL */
	struct job_envs *envs; /* a load's environments to share; NULL: the
				* job builds its own */
	const char *shell;     /* the shell of a crontab line; NULL: /bin/sh */
	const char *input;     /* a crontab line's stdin ('%'), or NULL */
	const char *replica;   /* TFD_REPLICA (--replica, or HOSTNAME:PID) */
	const char *own_user;  /* tfd's own user's name, looked up once, for the
				* jobs without --user; NULL: not looked up */
	bool fleet;            /* --fleet: the job's instants must agree across replicas */
	bool reboot;           /* an @reboot line: run by each replica, unclaimed */
	const struct run_user *user; /* --user already looked up (a jobs file's
				       cache), or NULL: job_build looks it up */
	struct pam_loader *pam;      /* the process's libpam, loaded by the first
				      * job as another user; NULL: no PAM session */
	/* The signals tfd does not leave at SIG_DFL (spawn_note_signals),
	 * read once for the process rather than once a job. */
	bool reset_known;
	uint64_t reset_mask;
};

struct job_state;

struct job {
	/* What it is */
	char *name;
	char *name_base;    /* the default name before -2, -3 ...; NULL
			     * when --name gave the name */
	bool name_by_line;  /* --fleet: a name_base another job has takes
			     * line_hash, not -2 (jobtable.c) */
	uint16_t line_hash; /* the first 16 bits of the line's FNV-1a hash */
	char *identity;     /* a jobs file's line and environment, not its
			     * name: kept on reload when equal */
	char *file;         /* the jobs file of its line; NULL on the command line */
	unsigned line;      /* in the jobs file; 0 on the command line */
	const char *run_as; /* the name of the user its runs run as: --user's
			     * (in user), else job_context.own_user; NULL:
			     * not known */
	bool reboot;        /* @reboot: one run at start, no schedule */
	bool never;         /* a cron schedule whose dates never come
			     * (0 0 30 2 *): never run, never ended */
	struct schedule schedule;
	char *schedule_text;       /* the command line's schedule options as
				    * written; NULL for a jobs file's line */
	struct calendar *calendar; /* owned; schedule points here */
	struct cron *cron;
	struct tz *zone; /* CRON_TZ's zone, owned; else tfd's */
	bool local_time; /* the schedule is read on tfd's zone (TZ): a
			  * calendar event or cron line with no zone of
			  * its own, an --at date or time written bare */
	const char *clock_name;
	clockid_t read_clock;  /* clock_gettime's name for the timer's clock */
	int64_t clock_now_ns;  /* "now" on that clock when the job was built */
	int64_t start_mono_ns; /* when it starts on CLOCK_MONOTONIC (--for counts
				* from there): tfd's start, or its reload's */
	uint64_t count;        /* stop after this many expirations; 0 = no limit */
	int64_t for_ns;
	char *format; /* the tick line; NULL prints none */
	char *path;   /* the command; NULL when the job only prints */
	char **argv;
	struct runner_env *env; /* held: the runs' environment, shared with
				 * the jobs that see the same (runner.h) */
	char *const *envp;      /* env's base: without TFD_* */
	char *const *file_env;  /* the jobs file's and the user's NAME=VALUE
				   strings envp points to (env's), or NULL */
	struct run_user user;   /* --user (its groups are the target's); spec NULL: none */
	char *input;            /* stdin of every run, or NULL */
	struct runner_config run;
	int64_t random_delay_ns;
	char *persist_path;
	bool persist_catch_up; /* a run was missed while tfd was down */
	struct spawn_target target;
	struct session_spec session; /* a run as another user: what its runs look
					up (target.session points here) */
	struct mail_job *mail;       /* MAILTO: its runs' output is mailed; NULL: not */
	/* --on-failure, --on-success */
	struct job_hooks hooks;
	struct notify_target notify; /* --ping, --notify: told of its runs (notify.h) */

	/* Where it is: the loop's, beside this definition (jobstate.h); NULL
	 * until the loop takes the job into its table. */
	struct job_state *state;
};

/* Builds a job from O. Returns 0 and *out, or the exit status (2 usage,
 * 126/127 command, 1 system) with one line in err naming the bad text. */
int job_build(const struct job_options *o, const struct job_context *ctx, struct job **out,
	      char *err, size_t errlen);

/* Opens what a real start needs (--cgroup, --join, --persist): after every
 * text check; for a dry run only the checks. Same returns as job_build. */
int job_open(struct job *j, const struct job_options *o, const struct job_context *ctx, char *err,
	     size_t errlen);

void job_free(struct job *j);

/* "--cron '0 3 * * *'", "--delay '1s' --interval '5s'": the options of O
 * that make a schedule, as written, in a new string (NULL: no memory). */
char *job_schedule_words(const struct job_options *o);

/* --fleet: a job's name, its claims' key, must be valid UTF-8 (@reboot
 * jobs are not claimed). Returns 0, or 2 with one line in err showing the
 * name, its bad bytes as \xNN. */
int job_check_fleet_name(const struct job *j, const struct job_context *ctx, char *err,
			 size_t errlen);

/* True when the clock names wall-clock instants. */
bool clock_is_realtime(clockid_t clock);

/* The clock clock_gettime reads for a timerfd clock (the alarm clocks
 * cannot be read themselves). */
clockid_t readable_clock(clockid_t clock);

#endif
