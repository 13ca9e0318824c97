/* SPDX-License-Identifier: MIT */
/* fleet_wins: the loop's claims and what becomes of them: an elapse
 * claimed, its run tried again, ended or dropped (the loop's calls,
 * through fleet.h); the elapses this replica won lately, kept for a
 * failover (fleet_wins.c). Below fleet.c: these queue, fleet.c sends. */
#ifndef TFD_FLEET_WINS_H
#define TFD_FLEET_WINS_H

#include <stdbool.h>
#include <stdint.h>

#include "fleet_types.h"
#include "pq.h"

struct fleet;
struct op;
struct fleet_statement;

/* The loop's calls */

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

/* The fleet's own files (fleet*.c) */

/* struct fleet_wins, the part of the fleet's state fleet_wins.c owns,
 * made (-1: out of memory) and freed. */
int fleet_wins_init(struct fleet *f);
void fleet_wins_free(struct fleet *f);
/* The connection is ready: its first renewal ends the rows not held. */
void fleet_wins_connected(struct fleet *f);

/* fleet_claim, of tfdctl run's tick when MANUAL (its row's trigger). */
int fleet_claim_as(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		   uint64_t token, bool manual);
/* The database's now() in an answer (DB_NS; 0: none) against this
 * replica's clock: a clock more than FLEET_CLOCK_SLACK_NS ahead holds
 * the claims until the database's instant; either way apart is said once
 * (an error event, call "clock"). */
void fleet_wins_clock(struct fleet *f, int64_t db_ns);
/* OP_RENEW's SQL and parameters into P (the keys this replica holds), or
 * NULL for another kind or when memory ran out. */
const char *fleet_wins_statement(struct fleet *f, const struct op *op, struct fleet_statement *p);
/* The renewal's answer R: the keys named are confirmed but those the
 * server lost, and the released rows it took are won (FLEET_EVENT_TAKEN).
 * True when it took as many as one renewal may (FLEET_TAKE_ROWS_MAX):
 * more may wait, and the next renewal is due at once. */
bool fleet_wins_renewed(struct fleet *f, const pq_result *r);
/* A claim won: kept for a failover's rewrite. */
void fleet_win_add(struct fleet *f, const struct op *claim);
/* The recent wins' rows to write again after a reconnection (up to
 * FLEET_BATCH_MAX, the newest: an OP_REWRITE), or NULL when none. */
struct op *fleet_wins_rewrite(struct fleet *f);
/* Every claim still queued past its deadline is missed now; those held
 * for the database's instant are queued when it comes. */
void fleet_claims_expire(struct fleet *f);
/* When the first queued claim expires or a held one is due, on
 * CLOCK_MONOTONIC, or INT64_MAX. */
int64_t fleet_claims_expiry(const struct fleet *f);
/* The server refuses claims for good (read-only, no privilege, the name
 * another's): every queued claim is missed now, and the next ones as
 * they come, until fleet_claims_accepted (a connection ready, the name
 * this replica's). */
void fleet_refuse_claims(struct fleet *f);
void fleet_claims_accepted(struct fleet *f);
bool fleet_claims_refused(const struct fleet *f);

#endif
