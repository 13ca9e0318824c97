/* SPDX-License-Identifier: MIT */
/* metrics: --metrics FILE, every job's figures in the Prometheus text format
 * (version 0.0.4) that node_exporter's textfile collector reads. */
#ifndef TFD_METRICS_H
#define TFD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "notify_url.h"

/* One job's figures, kept by its job object. Times are wall-clock (realtime)
 * nanoseconds since the epoch. */
struct job_metrics {
	uint64_t runs_success, runs_failure, runs_timeout, runs_killed;
	uint64_t skipped;         /* wake-ups skipped by --overlap skip */
	uint64_t missed;          /* expirations beyond one per wake-up */
	uint64_t running;         /* runs going now */
	int64_t last_start_ns;    /* 0: no run has started */
	int64_t last_duration_ns; /* -1: no run has ended */
	int last_exit_status;     /* 128+N for signal N; valid when last_duration_ns >= 0 */
	bool paused;              /* paused now (tfdctl pause); in the padding here */
	int64_t last_success_ns;  /* the end of the last successful run; 0: none */
	int64_t next_run_ns;      /* the next scheduled expiration; 0: none */
	uint64_t paused_total;    /* elapses not run while paused (tfdctl pause) */
	/* --ping and --notify (notify.h), by kind (enum notify_kind):
	 * requests given up after their tries, and dropped unsent; only jobs
	 * that have one (NOTIFIES) show them. */
	uint64_t notify_failures[NOTIFY_KINDS], notify_dropped[NOTIFY_KINDS];
	bool notifies;
};

/* What a job that has done nothing yet shows: every counter 0, no last run,
 * no next run. */
/* clang-format off */
#define JOB_METRICS_INIT { .last_duration_ns = -1 }
/* clang-format on */

/* --fleet's figures: claims answered by result (fleet_outcome's order:
 * won, elsewhere, skipped, missed) and whether the database is reachable. */
struct fleet_metrics {
	uint64_t claims[4];
	bool connected;
};

/* Appends the whole file for N jobs, NAMES[i] with M[i]: each metric family
 * once, its # HELP and # TYPE lines and then every job's sample, each with
 * job_name="NAME". Counters and tfd_running are always there (so that
 * rate() and increase() see a job's first event); a gauge that has no value
 * yet (no run started or ended, no next run) is left out for that job
 * rather than given a value that would be a false statement, such as 0.
 * Returns 0, or -1 when memory ran out. */
int metrics_format(struct buf *b, const char *const *names, const struct job_metrics *m, size_t n);

/* Appends tfd_fleet_claims_total{result} and tfd_fleet_connected. */
int metrics_format_fleet(struct buf *b, const struct fleet_metrics *f);

/* Where a text made in parts stands: the family (tfd_runs_total, then
 * the others in order) and the next job in it. */
struct metrics_cursor {
	size_t family, job;
	bool header; /* the family's header is written */
};

/* The figures of jobs and the fleet's (FLEET, or NULL without), copied
 * and read later in parts: --listen's /metrics is made as the client
 * takes it, a part of the size it asks at a time, so that 10,000 jobs'
 * text is not made in one pass of the loop. Room for N jobs, added one at
 * a time (their names copied), all before the first read; NULL when
 * memory ran out. */
struct metrics_snapshot;
struct metrics_snapshot *metrics_snapshot_new(size_t n, const struct fleet_metrics *fleet);

/* Copies NAME and M as the next job. Returns 0, or -1 when memory ran
 * out, the N jobs were added, or reading began. */
int metrics_snapshot_add(struct metrics_snapshot *s, const char *name, const struct job_metrics *m);

/* Copies the next bytes of the text (metrics_format's, then
 * metrics_format_fleet's) into BUF, at most MAX of them (MAX > 0): returns
 * how many, 0 once it was all read, -1 when memory ran out. */
long metrics_snapshot_read(struct metrics_snapshot *s, char *buf, size_t max);
void metrics_snapshot_free(struct metrics_snapshot *s);

/* Formats as above and replaces PATH with it atomically (atomic_replace).
 * Returns 0, or -1 with one line in err, "CALL 'PATH': MESSAGE", naming the
 * failed call ("malloc" when memory ran out). */
int metrics_write(const char *path, const char *const *names, const struct job_metrics *m, size_t n,
		  const struct fleet_metrics *fleet, char *err, size_t errlen);

/* The check before arming (a usage error): PATH is not '', its directory
 * exists, and PATH is missing or a regular file. Returns 0, or -1 with one
 * line in err naming PATH and why. */
int metrics_check_path(const char *path, char *err, size_t errlen);

#endif
