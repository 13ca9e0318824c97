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

struct fleet;
struct op;

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

/* The fleet's own files (fleet*.c) */

/* A claim won: kept for a failover's rewrite. */
void fleet_win_add(struct fleet *f, const struct op *claim);
/* The recent wins' rows to write again after a reconnection (up to
 * FLEET_BATCH_MAX, the newest: an OP_REWRITE), or NULL when none. */
struct op *fleet_wins_rewrite(struct fleet *f);
/* Every claim still queued past its deadline is missed now. */
void fleet_claims_expire(struct fleet *f);
/* When the first queued claim expires, on CLOCK_MONOTONIC, or INT64_MAX. */
int64_t fleet_claims_expiry(const struct fleet *f);

#endif
