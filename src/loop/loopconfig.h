/* SPDX-License-Identifier: MIT */
/* loopconfig: what tfd.c hands the event loop (loop_run), apart from the
 * loop itself, so that the loop's own modules (loopstate.h) read their
 * settings without depending on loop.h, the module above them. */
#ifndef TFD_LOOPCONFIG_H
#define TFD_LOOPCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "jobtable.h"
#include "tz.h"

/* Reads the jobs file again into a new table (built and opened, nothing
 * armed). Returns 0; 1 when the file is as it was last read and FORCED is
 * false (nothing to do); or -1 with one line in err: the table stays.
 * HELD (NULL-terminated, or NULL) names the files a writer still holds
 * open: their last line without a newline is not loaded. Warnings (files
 * or lines passed over) go to WARN, with WARN_ARG. */
typedef int (*loop_reload_fn)(void *arg, struct job_table *out, bool forced, char *const *held,
			      jobs_warn_fn warn, void *warn_arg, char *err, size_t errlen);

struct fleet;
struct http;
struct loop;
struct reload_counts;
struct run_record;
struct tick;

/* What serves the loop from the floor above it (src/serve/serve.c, given
 * by tfd.c): --control and --listen opened on the loop's state, the table
 * of owners built (ownertab.h), and the loop's news handed to tfdctl's
 * commands. The loop calls nothing above it but through these. */
struct loop_serve {
	/* Descriptors set aside for --listen's connections and --control's
	 * clients out of the run pipes' share. */
	size_t http_fds, control_fds;
	/* Once the loop's own state is there: --control opened with FDS
	 * descriptors (l->control, l->commands), --listen given the loop's
	 * state. Returns -1 when memory ran out. */
	int (*open)(struct loop *l, size_t control_fds);
	/* Once the fleet's client started: every owner's row added to the
	 * table, in the order they are polled and expire. Returns -1 when
	 * the table is full. */
	int (*owners)(struct loop *l);
	/* At the end (also after a failed open): answers owed given up,
	 * --control closed, --listen no longer reading the loop. */
	void (*close)(struct loop *l);
	/* J leaves the table: what waited for its run is answered. */
	void (*job_gone)(struct loop *l, struct job *j);
	/* The runs' record (runs.h), a reload's outcome (reload.h), the
	 * fleet's answers to a manual run and a pause (claims.h), ARG the
	 * loop. */
	void (*run_record)(void *arg, struct job *j, const struct run_record *r, bool final);
	void (*reload_done)(void *arg, const struct reload_counts *counts, const char *error);
	void (*manual_answered)(void *arg, struct job *j, const struct tick *t);
	void (*pause_answered)(void *arg, uint64_t token, const char *message);
};

/* What SIGTERM and SIGINT do to the runs going (--on-stop). */
enum on_stop {
	ON_STOP_FORWARD, /* the signal to each run's group, SIGKILL after the grace */
	ON_STOP_WAIT,    /* nothing new starts; the runs end on their own */
	ON_STOP_LEAVE,   /* tfd exits at once; the runs go on */
};

struct loop_config {
	struct job_table table; /* the loop takes the jobs over */
	int64_t start_mono_ns;  /* when tfd started, for %s */
	bool json;              /* events as JSON (unless quiet for ticks) */
	bool quiet;
	bool verbose;
	bool stats;
	bool precise;
	bool exit_on_error;
	enum on_stop on_stop;
	int64_t kill_after_ns; /* --kill-after; 0: RUNNER_KILL_GRACE_NS */
	bool log;              /* the operator's log (events.h) */
	bool log_runs;
	bool journal;           /* stderr is the journal (oplog.h) */
	size_t nfiles;          /* the jobs files loaded at start (the first line) */
	const struct tz *local; /* for %T */
	const char *metrics_path;
	const char *jobs_path;   /* the first --jobs PATH; NULL for one job */
	char *const *jobs_paths; /* every --jobs PATH (file or directory), watched */
	size_t njobs_paths;
	const char *user_crontabs; /* --user-crontabs DIR, watched; or NULL */
	bool host_cron;            /* --system-crontab or --user-crontabs: never
				      ends for lack of jobs */
	loop_reload_fn reload;
	void *reload_arg;
	struct fleet *fleet;      /* --fleet: elapses are claimed; NULL without */
	const char *replica;      /* --fleet: "replica" in every JSON object */
	struct http *http;        /* --listen: served from the loop; NULL without */
	int control_fd;           /* --control: the listening socket (control_listen); -1 without */
	int control_lock_fd;      /* and the lock held beside it (PATH.lock) */
	const char *control_path; /* removed at exit */
	bool reboot_done;         /* the @reboot jobs ran in this boot already
				     (reboot.h): they are not started */
	const struct loop_serve *serve; /* what serves it, from above (required) */
};

#endif
