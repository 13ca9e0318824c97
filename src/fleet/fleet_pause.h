/* SPDX-License-Identifier: MIT */
/* fleet_pause: tfdctl under --fleet, the database's side. A pause is a row
 * of tfd_paused (job, paused_at, paused_by), written or deleted by any
 * replica and read by every claim: the claim statement itself leaves a
 * paused job's scheduled elapse unclaimed and answers "paused", so the
 * pause holds at the instant of the claim on every replica, whatever a
 * replica last heard. A manual run (tfdctl run) is claimed like an elapse,
 * its row's trigger 'manual', and is never paused (its caller asked for
 * it).
 *
 * What the replica shows (tfdctl list's STATE, LAST and RESULT, the
 * tfd_paused gauge) is its view of the fleet: one statement reads, for
 * each of its jobs, whether it is paused and the last row of tfd_runs
 * (not a skip), at each connection and each renewal of the replica's
 * name (lease/6), after the claims; claims' answers and this replica's
 * own pauses update it between reads. The loop never waits for it: it
 * reads the view as it stands. */
#ifndef TFD_FLEET_PAUSE_H
#define TFD_FLEET_PAUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet_types.h"
#include "pq.h"

struct fleet;

/* The loop's calls */

/* tfdctl run: as fleet_claim, with the row's trigger 'manual'; never
 * answered FLEET_PAUSED. */
int fleet_claim_manual(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		       uint64_t token);

/* tfdctl pause (PAUSED) or resume of the N JOBS, by UID: their rows of
 * tfd_paused written or deleted, answered by a FLEET_EVENT_DONE with TOKEN
 * (message NULL: done; else the server's reason). Returns -1 when memory
 * ran out (nothing queued). */
int fleet_pause_write(struct fleet *f, size_t n, const char *const *jobs, bool paused,
		      unsigned uid, uint64_t token);

/* Whether the view changed since the last call: then the loop reads it. */
bool fleet_view_changed(struct fleet *f);

/* The last row of a job in tfd_runs, as last read. */
struct fleet_last {
	int64_t start_ns;            /* claimed_at, wall clock */
	int64_t end_ns;              /* finished_at; 0 while running */
	const char *replica;         /* valid until the fleet's next service */
	const char *state;           /* "running", "succeeded", "failed", "abandoned" */
	int exit_status;             /* -1: none */
	bool timed_out;
};

/* JOB paused in the view; its last run (false: none known). */
bool fleet_job_paused(const struct fleet *f, const char *job);
bool fleet_job_last(const struct fleet *f, const char *job, struct fleet_last *out);

/* This replica's name. */
const char *fleet_self(const struct fleet *f);

/* The fleet's own files (fleet*.c) */

struct op;
struct fleet_statement;

void fleet_pause_free(struct fleet *f);
/* OP's SQL when it is one of this file's kinds, else NULL. */
const char *fleet_pause_statement(struct fleet *f, const struct op *op,
				  struct fleet_statement *p);
/* OP's answer R, acted on and OP freed; or its refusal (MESSAGE), told
 * to the caller's client (OP is the caller's to free). */
void fleet_pause_answer(struct fleet *f, struct op *op, const pq_result *r);
void fleet_pause_refused(struct fleet *f, const struct op *op, const char *message);
/* A scheduled elapse's claim answered O: the job is paused or not. */
void fleet_pause_saw(struct fleet *f, const struct op *claim, enum fleet_outcome o);
/* The view of JOBS (this replica's jobs' names, a text[] literal; NULL:
 * none yet, nothing to read) is read again, once the claims are sent. */
void fleet_pause_refresh(struct fleet *f, const char *jobs);

#endif
