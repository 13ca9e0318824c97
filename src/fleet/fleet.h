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
 *   (fleet_answering), then fleet_free.
 * This is the fleet's whole face: what the loop (src/loop/claims*.c),
 * tfd.c and the control's views call. The fleet's own files share
 * fleet_int.h, which nothing above src/fleet/ includes. Claims and runs
 * are carried out by fleet_wins.c, the replica's jobs and name by
 * fleet_replica.c, tfdctl's pauses and the view by fleet_pause.c, all
 * below fleet.c. */
#ifndef TFD_FLEET_H
#define TFD_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet_types.h"

/* The statements that create the tables and indexes, for --fleet-sql
 * (fleet_sql.c). */
extern const char fleet_sql_ddl[];

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

/* COMING: the loop has more elapses to claim in its next turns (due
 * elapses wait their turn, 64 at a time): queued claims wait for them, so
 * that one statement carries them all, until 1,000 wait or the oldest
 * has waited FLEET_GATHER_NS; and the bookkeeping and chores wait until
 * the claims are all sent. */
void fleet_claims_coming(struct fleet *f, bool coming);
#define FLEET_GATHER_NS (INT64_C(50) * 1000000)

/* The descriptor to poll and its events, or -1 (between connections). */
int fleet_poll_fd(const struct fleet *f, short *events);

/* The CLOCK_MONOTONIC time by which fleet_service must be called again
 * (renewal, reconnection, a claim's deadline, an answer's timeout), or
 * INT64_MAX. */
int64_t fleet_deadline(const struct fleet *f);

/* Does what is due: reads answers (REVENTS from poll, or 0), sends what
 * waits (all of it, in libpq's pipeline mode: no statement waits for the
 * answers before it), reconnects, renews leases. Never blocks. */
void fleet_service(struct fleet *f, short revents);

/* The next thing the loop must hear of; false when there is none. */
bool fleet_next_event(struct fleet *f, struct fleet_event *out);

/* Claims and writes not yet answered: at exit, the loop waits for 0 (within
 * a grace period) so that the runs' ends are written. */
size_t fleet_pending(const struct fleet *f);

/* A statement is in flight on a live connection: the server is working
 * on it (a batch of many rows may take seconds), or will be given up
 * after the answer timeout (connect_timeout). */
bool fleet_answering(const struct fleet *f);

/* How many claims wait to be sent or answered: while a storm's do (more
 * than FLEET_BATCH_MAX), the loop holds its won runs back, and while any
 * do it starts them a few at a time (claims.c), so that forking them
 * takes no time from the answers still to be read and asked again, nor
 * CPU from the server. */
size_t fleet_claims_waiting(const struct fleet *f);

/* Claims and runs (fleet_wins.c) */

/* Asks for the elapse of JOB at SCHEDULED_NS (wall clock, the instant the
 * schedule gave, not the wake-up's). EXCLUSIVE: --overlap skip, which then
 * holds across the fleet. TOKEN comes back in the answer. Queued: the next
 * fleet_service sends every elapse queued since, up to 1,000 in one
 * statement. Returns 0, or -1 when memory ran out (then nobody runs it:
 * treat as missed). */
int fleet_claim(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		uint64_t token);

/* A won elapse's run is tried again (ATTEMPT from 2); and it ended. They
 * are written by the next fleet_service, before any claim, or when the
 * database is back. Return -1 when memory ran out. */
int fleet_run_attempt(struct fleet *f, const char *job, int64_t scheduled_ns, unsigned attempt);
int fleet_run_ended(struct fleet *f, const char *job, int64_t scheduled_ns,
		    const struct fleet_end *e);

/* A won elapse that will not run after all (its job was removed by a
 * reload, tfd is stopping): its row is marked abandoned, so no replica
 * runs it. Instead of fleet_run_ended. Returns -1 when memory ran out. */
int fleet_run_dropped(struct fleet *f, const char *job, int64_t scheduled_ns);

/* A won elapse that will not start here (tfd stops, its job was removed,
 * its delayed start came past its lease): its row is released, running
 * and nobody's, so that another replica's renewal takes it and runs it
 * within the deadline. Instead of fleet_run_ended. Returns -1 when memory
 * ran out. */
int fleet_run_released(struct fleet *f, const char *job, int64_t scheduled_ns);

/* Whether this replica still holds its claim of the won elapse of JOB at
 * SCHEDULED_NS by the lease: the claim, or the last renewal that named
 * it, was sent less than the lease (less a tenth) ago on the monotonic
 * clock, and no renewal found its row gone. Past it, another replica may
 * have marked it abandoned: a delayed start does not start. */
bool fleet_claim_held(struct fleet *f, const char *job, int64_t scheduled_ns);

/* tfd stops: claims not yet sent are dropped (the other replicas claim
 * those elapses as they would anyway), each told as FLEET_EVENT_UNSENT,
 * and a claim asked from now on is missed. Claims sent once are still
 * answered (the caller starts a won one, or releases it). Once: later
 * calls do nothing. */
void fleet_stop_claiming(struct fleet *f);

/* The replica's jobs and name (fleet_replica.c) */

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

/* tfdctl under --fleet (fleet_pause.c): a manual run is claimed like an
 * elapse, its row's trigger 'manual', and is never paused; a pause is a
 * row of tfd_paused, read by every claim statement, so it holds at the
 * instant of the claim on every replica. What the replica shows (tfdctl
 * list's STATE, LAST and RESULT, the tfd_paused gauge) is its view of
 * the fleet, read after the claims at each connection and each renewal
 * of the name: the loop never waits for it. */

/* tfdctl run: as fleet_claim, with the row's trigger 'manual'; never
 * answered FLEET_PAUSED. */
int fleet_claim_manual(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		       uint64_t token);

/* tfdctl pause (PAUSED) or resume of the N JOBS, by UID: their rows of
 * tfd_paused written or deleted, answered by a FLEET_EVENT_DONE with TOKEN
 * (message NULL: done; else the server's reason). Returns -1 when memory
 * ran out (nothing queued). */
int fleet_pause_write(struct fleet *f, size_t n, const char *const *jobs, bool paused, unsigned uid,
		      uint64_t token);

/* Whether the view changed since the last call: then the loop reads it. */
bool fleet_view_changed(struct fleet *f);

/* The last row of a job in tfd_runs, as last read. */
struct fleet_last {
	int64_t start_ns;    /* claimed_at, wall clock */
	int64_t end_ns;      /* finished_at; 0 while running */
	const char *replica; /* valid until the fleet's next service */
	const char *state;   /* "running", "succeeded", "failed", "abandoned" */
	int exit_status;     /* -1: none */
	bool timed_out;
};

/* JOB paused in the view; its last run (false: none known). */
bool fleet_job_paused(const struct fleet *f, const char *job);
bool fleet_job_last(const struct fleet *f, const char *job, struct fleet_last *out);

/* This replica's name. */
const char *fleet_self(const struct fleet *f);

#endif
