/* SPDX-License-Identifier: MIT */
/* fleet_types: the fleet's words, shared by its face (fleet.h, which the
 * loop includes) and its own files below fleet.c, which need them without
 * fleet.c's functions: what --fleet said, a claim's outcome, an event for
 * the loop, a run's end. */
#ifndef TFD_FLEET_TYPES_H
#define TFD_FLEET_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/* What --fleet and its options said, checked (fleet_config_check). */
struct fleet_config {
	const char *conninfo; /* libpq's connection string or URI */
	const char *replica;  /* this replica's name */
	int64_t lease_ns;     /* a running claim's lease; renewed every lease/6 */
	int64_t deadline_ns;  /* how late after its instant an elapse may be claimed */
	int64_t keep_ns;      /* finished rows older than this are deleted */
};

#define FLEET_LEASE_DEFAULT_NS (INT64_C(60) * 1000000000)
#define FLEET_DEADLINE_DEFAULT_NS (INT64_C(60) * 1000000000)
#define FLEET_KEEP_DEFAULT_NS (INT64_C(30) * 86400 * 1000000000)

/* How many elapses one claim statement asks for at most (besides the
 * previous statement's that it asks again); also the most ends and
 * rewritten rows in one statement. */
#define FLEET_BATCH_MAX 1000

/* The answer to a claim. */
enum fleet_outcome {
	FLEET_WON,       /* this replica runs the elapse */
	FLEET_ELSEWHERE, /* another replica claimed it */
	FLEET_SKIPPED,   /* the job's run is still going on some replica (--overlap skip) */
	FLEET_MISSED,    /* not claimed within the deadline: nobody runs it */
	FLEET_PAUSED,    /* the job is paused fleet-wide (tfd_paused): not run */
};

enum fleet_event_kind {
	FLEET_EVENT_CLAIM,        /* token, job, scheduled_ns, outcome */
	FLEET_EVENT_ERROR,        /* call ("postgresql", "clock"), message: one line */
	FLEET_EVENT_LOST,         /* an event could not be queued (out of memory):
				   * a claim may never be answered, tfd must stop */
	FLEET_EVENT_CONNECTED,    /* the table is ready: claims go through */
	FLEET_EVENT_DISCONNECTED, /* the connection was lost; claims wait */
	FLEET_EVENT_FATAL,        /* call, message: this replica's name is another
				   * process's: tfd must stop, status 1 */
	FLEET_EVENT_DONE,         /* token, message (NULL: done): a pause or resume
				   * written (fleet.h: fleet_pause_write) */
	FLEET_EVENT_NOTE,         /* message: a line that is no failure (the
				   * connection made), for stderr */
	FLEET_EVENT_TAKEN,        /* job, scheduled_ns, manual: this replica took
				   * an elapse that a stopping one won and
				   * released unstarted: it runs it, and ends
				   * or drops it as a won one */
	FLEET_EVENT_UNSENT,       /* token, job, scheduled_ns, manual: a claim
				   * dropped unsent as tfd stops
				   * (fleet_stop_claiming): it has no answer,
				   * and no row */
	FLEET_EVENT_ABANDONED,    /* job, scheduled_ns, message (the replica
				   * that held it): this replica marked
				   * abandoned a run whose replica died:
				   * another's whose lease passed (at a
				   * renewal), or its own name's former
				   * process's (at its start); told once, by
				   * this replica alone */
};

/* The strings are the fleet's, valid until its next call. */
struct fleet_event {
	enum fleet_event_kind kind;
	uint64_t token;
	const char *job;
	int64_t scheduled_ns;
	enum fleet_outcome outcome;
	bool manual; /* TAKEN, UNSENT: tfdctl run's elapse */
	const char *call, *message;
};

/* How a run that this replica claimed ended. */
struct fleet_end {
	bool failed;       /* counts as a failure after retries */
	int exit_status;   /* 128+N for signal N; -1 unknown */
	unsigned attempts; /* tries, from 1 */
	bool timed_out;
	int64_t finished_ns; /* wall clock */
};

#endif
