/* SPDX-License-Identifier: MIT */
/* fleet_int: the fleet's own header, as libuv's uv-common.h is: the
 * database client's state and the calls its files make to each other,
 * each named fleet__ (two underscores: the fleet's alone, as libuv's
 * uv__), while fleet.h, its one public header, is what the loop calls.
 * Nothing above src/fleet/ includes it. The state is fleet.c's (the
 * connection, sending, scheduling the statements, carrying out what each
 * answer means, the loop's calls) and the files it hands parts of its
 * work to (fleet_replica.c, fleet_pause.c, fleet_wins.c); fleet_answer.c,
 * which reads the answers, sees none of it. Those files sit below
 * fleet.c: they call nothing of it; what they need sent or given up they
 * return. Each owns its part of the state behind a pointer, a struct
 * only its file defines (struct fleet_wins, struct fleet_replica, struct
 * fleet_view): the others reach it through that file's calls. */
#ifndef TFD_FLEET_INT_H
#define TFD_FLEET_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "fleet_events.h"
#include "fleet_op.h"
#include "fleet_params.h"
#include "fleet_pipe.h"
#include "fleet_policy.h"
#include "fleet_types.h"
#include "pq.h"
#include "timens.h"

/* The pure modules below (fleet_op.h, fleet_pipe.h, fleet_policy.h,
 * fleet_events.h, fleet_params.h, ...) know nothing of struct fleet:
 * each keeps a header of its own, and a unit test drives it alone. */

#define BACKOFF_FIRST_NS (250 * INT64_C(1000000))
#define BACKOFF_MAX_NS (16 * NSEC_PER_SEC)
#define KEEP_EVERY_NS (600 * NSEC_PER_SEC)

struct fleet_wins;
struct fleet_replica;
struct fleet_view;

enum link {
	LINK_IDLE, /* not started */
	LINK_WAIT, /* a backoff before the next connection */
	LINK_CONNECTING,
	LINK_SETUP, /* connected; the table is being checked */
	LINK_READY,
};

struct fleet {
	struct pq pq;
	struct fleet_config cfg;
	char *replica;
	struct fleet_params params;

	pq_conn *conn;
	enum link link;
	bool want_write; /* connecting: poll for POLLOUT; ready: output to flush */
	int64_t retry_at, backoff_ns;
	int64_t waited_from;    /* since when the server has been silent while
				 * it owes an answer (connecting: since the
				 * connection began) */
	int64_t sent_real;      /* when the statement being answered was sent */
	struct fleet_pipe pipe; /* the statements sent, not answered yet */
	pq_result *answer;      /* the oldest statement's first result */
	/* What waits to be sent, a queue by enum fleet_queue: the runs' rows
	 * (tries, ends, abandons), the claims, the bookkeeping (the name's
	 * renewal and release, the jobs, tfdctl's pauses), the chores (the
	 * cleanup's steps, the fleet's view). */
	struct queue runs, claims, writes, chores;
	struct fleet_wins *wins; /* fleet_wins.c: the recent wins, the renewal,
				  * the clock, the claims held early */
	bool rewrite_due;        /* reconnected: the recent wins are written first */
	bool claims_coming;      /* fleet_claims_coming */
	int64_t renew_at, keep_at;
	char *boundary; /* ISO text; NULL before the first connection */

	bool outage_reported, refusal_reported;
	struct fleet_events events;
	struct fleet_replica *rep; /* fleet_replica.c: the name, the jobs, the
				    * outage's and the backlog's reports */
	struct fleet_view *view;   /* fleet_pause.c: pauses and last runs; NULL before */
};

static inline int64_t fleet__now_mono(void)
{
	return clock_now_ns(CLOCK_MONOTONIC);
}

static inline int64_t fleet__now_real(void)
{
	return clock_now_ns(CLOCK_REALTIME);
}

/* The queue Q of the policy table (NULL for FLEET_QUEUE_NONE: an op sent
 * at once). */
static inline struct queue *fleet__queue_of(struct fleet *f, enum fleet_queue q)
{
	switch (q) {
	case FLEET_QUEUE_RUNS:
		return &f->runs;
	case FLEET_QUEUE_CLAIMS:
		return &f->claims;
	case FLEET_QUEUE_WRITES:
		return &f->writes;
	case FLEET_QUEUE_CHORES:
		return &f->chores;
	case FLEET_QUEUE_NONE:
		break;
	}
	return NULL;
}

/* OP waits in the queue its row of the policy table names (one of the
 * queued kinds). */
static inline void fleet__enqueue(struct fleet *f, struct op *op)
{
	fleet_queue_push(fleet__queue_of(f, fleet_policy(op->kind)->queue), op);
}

/* An error event (scrubbed of the passwords), or a claim's outcome, for
 * the loop (fleet_events.c). */
static inline void fleet__push_error(struct fleet *f, const char *call, const char *message)
{
	fleet_events_error(&f->events, &f->params.secrets, call, message);
}

static inline void fleet__push_outcome(struct fleet *f, const struct op *op, enum fleet_outcome o)
{
	fleet_events_outcome(&f->events, op->token, op->job, op->scheduled_ns, o);
}

/* fleet_wins.c: the loop's claims and what becomes of them (the calls
 * in fleet.h), the elapses won lately, kept for a failover; the renewal
 * of their leases; the clock against the database's; the claims refused
 * for good. Below fleet.c: these queue, fleet.c sends. */

/* struct fleet_wins, the part of the fleet's state fleet_wins.c owns,
 * made (-1: out of memory) and freed. */
int fleet__wins_init(struct fleet *f);
void fleet__wins_free(struct fleet *f);
/* The connection is ready: its first renewal ends the rows not held. */
void fleet__wins_connected(struct fleet *f);

/* fleet_claim, of tfdctl run's tick when MANUAL (its row's trigger). */
int fleet__claim_as(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		    uint64_t token, bool manual);
/* The database's now() in an answer (DB_NS; 0: none) against this
 * replica's clock: a clock more than FLEET_CLOCK_SLACK_NS ahead holds
 * the claims until the database's instant; either way apart is said once
 * (an error event, call "clock"). */
void fleet__wins_clock(struct fleet *f, int64_t db_ns);
/* OP_RENEW's SQL and parameters into P (the keys this replica holds), or
 * NULL for another kind or when memory ran out (FLEET_SQL_WINS). */
const char *fleet__wins_statement(struct fleet *f, const struct op *op, struct fleet_statement *p);
/* The renewal's answer R: the keys named are confirmed but those the
 * server lost, the released rows it took are won (FLEET_EVENT_TAKEN),
 * and the other replicas' runs it marked abandoned are told
 * (FLEET_EVENT_ABANDONED).
 * True when it took as many as one renewal may (FLEET_TAKE_ROWS_MAX):
 * more may wait, and the next renewal is due at once. */
bool fleet__wins_renewed(struct fleet *f, const pq_result *r);
/* The start's answer R (fleet_sql_start): the runs of this replica's
 * former process (its name, claimed before its boundary), which died with
 * them and which the start marked abandoned, are told
 * (FLEET_EVENT_ABANDONED, held by this replica's name). */
void fleet__wins_started(struct fleet *f, const pq_result *r);
/* A claim won: kept for a failover's rewrite. */
void fleet__win_add(struct fleet *f, const struct op *claim);
/* The recent wins' rows to write again after a reconnection (up to
 * FLEET_BATCH_MAX, the newest: an OP_REWRITE), or NULL when none. */
struct op *fleet__wins_rewrite(struct fleet *f);
/* Every claim still queued past its deadline is missed now; those held
 * for the database's instant are queued when it comes. */
void fleet__claims_expire(struct fleet *f);
/* When the first queued claim expires or a held one is due, on
 * CLOCK_MONOTONIC, or INT64_MAX. */
int64_t fleet__claims_expiry(const struct fleet *f);
/* The server refuses claims for good (read-only, no privilege, the name
 * another's): every queued claim is missed now, and the next ones as
 * they come, until fleet__claims_accepted (a connection ready, the name
 * this replica's). */
void fleet__refuse_claims(struct fleet *f);
void fleet__claims_accepted(struct fleet *f);
bool fleet__claims_refused(const struct fleet *f);

/* fleet_replica.c: what the replicas know of each other: the replica's
 * name in tfd_replicas, its jobs in tfd_jobs and their comparison with
 * the other replicas', the backlog, the outage's report. A step that
 * needs a statement sent at once, or the connection given up, returns
 * it. */

/* struct fleet_replica, the part of the fleet's state fleet_replica.c
 * owns, made (-1: out of memory) and freed. */
int fleet__replica_init(struct fleet *f);
void fleet__replica_free(struct fleet *f);
/* This replica's jobs' names as a text[] literal, or NULL before
 * fleet_set_jobs. */
const char *fleet__replica_jobs(const struct fleet *f);
/* The name's next renewal, at AT (monotonic). */
void fleet__replica_beat_at(struct fleet *f, int64_t at);
/* OP's SQL and parameters into P, for the kinds whose row of the policy
 * table names this file (FLEET_SQL_REPLICA; fleet__pause_statement:
 * FLEET_SQL_PAUSE); NULL for another kind. */
const char *fleet__replica_statement(struct fleet *f, const struct op *op,
				     struct fleet_statement *p);
/* Status flows down: a step that must send a statement at once (the
 * setup's next) leaves it in *SEND for fleet.c to send, and one that ran
 * out of memory returns -ENOMEM (fleet.c gives the connection up); else
 * 0 and *SEND NULL. */
int fleet__replica_answer(struct fleet *f, struct op *op, const pq_result *r, struct op **send);
/* The table is ready: the name was held, the jobs are written again. */
void fleet__replica_ready(struct fleet *f);
/* Each service: the renewal of the name, its retry (as
 * fleet__replica_answer: in *SEND, or -ENOMEM). */
int fleet__replica_service(struct fleet *f, struct op **send);
int64_t fleet__replica_deadline(const struct fleet *f);
/* At each answer: a claim queue that falls behind is told. */
void fleet__check_backlog(struct fleet *f);
/* The connection is given up for WHY (libpq's message, or the server's):
 * told once an outage, with what tfd does meanwhile; one that could not
 * be made tries the next host first next time (fleet_params_next_host). */
void fleet__link_lost(struct fleet *f, const char *why);

/* fleet_pause.c: tfdctl under --fleet, the database's side: the pauses
 * written to tfd_paused, the fleet's view read back. */

void fleet__pause_free(struct fleet *f);
const char *fleet__pause_statement(struct fleet *f, const struct op *op, struct fleet_statement *p);
/* OP's answer R, acted on and OP freed; or its refusal (MESSAGE), told
 * to the caller's client (OP is the caller's to free). */
void fleet__pause_answer(struct fleet *f, struct op *op, const pq_result *r);
void fleet__pause_refused(struct fleet *f, const struct op *op, const char *message);
/* A scheduled elapse's claim answered O: the job is paused or not. */
void fleet__pause_saw(struct fleet *f, const struct op *claim, enum fleet_outcome o);
/* The view of JOBS (this replica's jobs' names, a text[] literal; NULL:
 * none yet, nothing to read) is read again, once the claims are sent. */
void fleet__pause_refresh(struct fleet *f, const char *jobs);

#endif
