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
 * The calls about claims and runs are in fleet_wins.h, the replica's jobs
 * and name in fleet_replica.h: both included here, and carried out by
 * files below fleet.c. */
#ifndef TFD_FLEET_H
#define TFD_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet_replica.h"
#include "fleet_types.h"
#include "fleet_wins.h"

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

#endif
