/* SPDX-License-Identifier: MIT */
/* fleet: replicas of tfd that share a --fleet database run each scheduled
 * elapse of each job once among them. The claim of an elapse is a row of
 * PostgreSQL's table tfd_runs keyed by the job's name and the elapse's
 * scheduled instant; the replica whose insert succeeds runs it and keeps
 * the row (its lease, tries, end) as the run's history. This module is the
 * database client and the only place that knows SQL: the loop asks "claim
 * this elapse", says "this run ended", polls the descriptor and deadline it
 * is given, and takes the outcomes as events. Nothing here blocks: libpq's
 * asynchronous calls only, on a nonblocking connection.
 *
 * The loop's part, in order:
 *   fleet_new at start (also for --dry-run: it checks CONNINFO, connects
 *   nowhere), fleet_start when the loop starts;
 *   every poll: fleet_poll_fd for the descriptor (it changes across
 *   reconnections, and may be -1) and fleet_deadline for the timeout;
 *   after poll: fleet_service (with the descriptor's revents, or 0), then
 *   fleet_next_event until it returns false (what the other calls queue
 *   waits there too);
 *   at each elapse of a job that is not @reboot: fleet_claim, and act on
 *   the FLEET_EVENT_CLAIM event that answers it; after FLEET_WON, exactly
 *   one fleet_run_ended (also when the run could not start) or
 *   fleet_run_dropped (it will not run), and fleet_run_attempt before each
 *   retry;
 *   at exit: fleet_service until fleet_pending is 0 or a grace period
 *   passed without an answer and with no statement in flight
 *   (fleet_answering), then fleet_free. */
#ifndef TFD_FLEET_H
#define TFD_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What --fleet and its options said, checked (fleet_config_check). */
struct fleet_config {
	const char *conninfo;       /* libpq's connection string or URI */
	const char *replica;        /* this replica's name */
	int64_t lease_ns;           /* a running claim's lease; renewed every lease/6 */
	int64_t deadline_ns;        /* how late after its instant an elapse may be claimed */
	int64_t keep_ns;            /* finished rows older than this are deleted */
};

#define FLEET_LEASE_DEFAULT_NS    (INT64_C(60) * 1000000000)
#define FLEET_DEADLINE_DEFAULT_NS (INT64_C(60) * 1000000000)
#define FLEET_KEEP_DEFAULT_NS     (INT64_C(30) * 86400 * 1000000000)

/* The answer to a claim. */
enum fleet_outcome {
	FLEET_WON,          /* this replica runs the elapse */
	FLEET_ELSEWHERE,    /* another replica claimed it */
	FLEET_SKIPPED,      /* the job's run is still going on some replica (--overlap skip) */
	FLEET_MISSED,       /* not claimed within the deadline: nobody runs it */
	FLEET_PAUSED,       /* the job is paused fleet-wide (tfd_paused): not run */
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
				   * written (fleet_pause.h) */
};

/* The strings are the fleet's, valid until its next call. */
struct fleet_event {
	enum fleet_event_kind kind;
	uint64_t token;
	const char *job;
	int64_t scheduled_ns;
	enum fleet_outcome outcome;
	const char *call, *message;
};

/* How a run that this replica claimed ended. */
struct fleet_end {
	bool failed;                /* counts as a failure after retries */
	int exit_status;            /* 128+N for signal N; -1 unknown */
	unsigned attempts;          /* tries, from 1 */
	bool timed_out;
	int64_t finished_ns;        /* wall clock */
};

struct fleet;

/* Loads libpq and checks C's connection string (libpq parses it; the
 * password is never shown in err). Connects nowhere. Returns NULL with err
 * and *status: 2 for a bad CONNINFO or a build without the fleet, 1 for
 * libpq missing or memory. */
struct fleet *fleet_new(const struct fleet_config *c, int *status, char *err, size_t errlen);
void fleet_free(struct fleet *f);

/* Begins connecting (a server that is not there yet is not an error: the
 * fleet retries with backoff). */
void fleet_start(struct fleet *f);

/* Asks for the elapse of JOB at SCHEDULED_NS (wall clock, the instant the
 * schedule gave, not the wake-up's). EXCLUSIVE: --overlap skip, which then
 * holds across the fleet. TOKEN comes back in the answer. Queued: the next
 * fleet_service sends every elapse queued since, up to 1,000 in one
 * statement. Returns 0, or -1 when memory ran out (then nobody runs it:
 * treat as missed). */
int fleet_claim(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		uint64_t token);

/* COMING: the loop has more elapses to claim in its next turns (due
 * elapses wait their turn, 64 at a time): queued claims wait for them, so
 * that one statement carries them all, until 1,000 wait or the oldest
 * has waited FLEET_GATHER_NS. */
void fleet_claims_coming(struct fleet *f, bool coming);
#define FLEET_GATHER_NS (INT64_C(50) * 1000000)

/* A won elapse's run is tried again (ATTEMPT from 2); and it ended. They
 * are written by the next fleet_service, before any claim, or when the
 * database is back. Return -1 when memory
 * ran out. */
int fleet_run_attempt(struct fleet *f, const char *job, int64_t scheduled_ns, unsigned attempt);
int fleet_run_ended(struct fleet *f, const char *job, int64_t scheduled_ns,
		    const struct fleet_end *e);

/* A won elapse that will not run after all (its job was removed by a
 * reload, tfd is stopping): its row is marked abandoned, so no replica
 * runs it. Instead of fleet_run_ended. Returns -1 when memory ran out. */
int fleet_run_dropped(struct fleet *f, const char *job, int64_t scheduled_ns);

/* The descriptor to poll and its events, or -1 (between connections). */
int fleet_poll_fd(const struct fleet *f, short *events);

/* The CLOCK_MONOTONIC time by which fleet_service must be called again
 * (renewal, reconnection, a claim's deadline, an answer's timeout), or
 * INT64_MAX. */
int64_t fleet_deadline(const struct fleet *f);

/* Does what is due: reads answers (REVENTS from poll, or 0), sends the
 * next statement, reconnects, renews leases. Never blocks. */
void fleet_service(struct fleet *f, short revents);

/* The next thing the loop must hear of; false when there is none. */
bool fleet_next_event(struct fleet *f, struct fleet_event *out);


/* This replica's jobs, for tfd_jobs: their names and fingerprints (of
 * schedule, command and policies), written at once or when the database
 * is back; a job that another live replica defines otherwise is reported
 * once (an error event, call "fleet"). Again after each reload. Returns
 * -1 when memory ran out. */
int fleet_set_jobs(struct fleet *f, size_t n, const char *const *names,
		   const uint64_t *fingerprints);

/* At exit: the replica's name is let go (a restart takes it at once);
 * counted by fleet_pending. */
void fleet_release(struct fleet *f);

/* Claims and writes not yet answered: at exit, the loop waits for 0 (within
 * a grace period) so that the runs' ends are written. */
size_t fleet_pending(const struct fleet *f);

/* A statement is in flight on a live connection: the server is working
 * on it (a batch of many rows may take seconds), or will be given up
 * after the answer timeout (connect_timeout). */
bool fleet_answering(const struct fleet *f);

#endif
