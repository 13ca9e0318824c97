/* SPDX-License-Identifier: MIT */
/* fleet_state: the database client's state, shared by fleet.c (the
 * connection, sending, scheduling the statements, carrying out what each
 * answer means, the loop's calls) and the files it hands parts of its
 * work to (fleet_replica.c, fleet_wins.c), and by nothing else: the loop
 * sees only fleet.h, and fleet_answer.c, which reads the answers, sees
 * none of it. */
#ifndef TFD_FLEET_STATE_H
#define TFD_FLEET_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "fleet.h"
#include "fleet_events.h"
#include "fleet_op.h"
#include "fleet_params.h"
#include "fleet_policy.h"
#include "pq.h"
#include "timens.h"

#define BACKOFF_FIRST_NS   (250 * INT64_C(1000000))
#define BACKOFF_MAX_NS     (16 * NSEC_PER_SEC)
#define KEEP_EVERY_NS      (600 * NSEC_PER_SEC)

enum link {
	LINK_IDLE,        /* not started */
	LINK_WAIT,        /* a backoff before the next connection */
	LINK_CONNECTING,
	LINK_SETUP,       /* connected; the table is being checked */
	LINK_READY,
};

/* An elapse this replica won lately, and what became of it: written
 * again after a reconnection (a failover may have lost its row). */
struct win {
	char *job;
	int64_t scheduled_ns, won_real;
	bool exclusive;
	bool manual;                 /* tfdctl run's: its row's trigger is 'manual' */
	const char *state;           /* "running" until its end */
	struct fleet_end end;
};

struct fleet {
	struct pq pq;
	struct fleet_config cfg;
	char *replica;
	struct fleet_params params;

	pq_conn *conn;
	enum link link;
	bool want_write;             /* connecting: poll for POLLOUT; ready: output to flush */
	int64_t retry_at, backoff_ns, waited_from;
	int64_t sent_real;
	struct op *in_flight;
	pq_result *answer;           /* the in-flight statement's first result */
	struct queue claims, writes;  /* writes (ends, tries, abandons, the name's
				       * renewal and the jobs') take turns with claims */
	struct queue chores;          /* the cleanup's statements: after the claims */
	struct win *wins;
	size_t nwins, wins_cap;
	bool rewrite_due;             /* reconnected: the recent wins are written first */
	bool claims_coming;           /* fleet_claims_coming */
	bool wrote_last;              /* the last statement sent was a write: claims' turn */
	int64_t renew_at, keep_at;
	char *boundary;              /* ISO text; NULL before the first connection */

	bool outage_reported, clock_warned;
	struct fleet_events events;

	/* The replica's name and jobs (fleet_replica.c) */
	char instance[33];           /* this process's, random: who holds the name */
	char host[256];
	int64_t beat_at;             /* the next renewal of the name (monotonic) */
	int64_t hold_retry_at;       /* the name held by another: asked again then; 0 */
	int64_t holder_seen_us;      /* that holder's seen_at when found; -1: none */
	char *job_names, *job_prints; /* this replica's jobs as array literals; NULL: none yet */
	uint64_t jobs_version, jobs_written;
	char **differ_told;          /* "job\x1freplica\x1ffingerprint" told once */
	size_t ndiffer_told;
	bool claims_refused;         /* refused for good (read-only, no privilege,
				      * the name another's): claims are missed at once */
	int64_t ready_real;          /* when the connection was last ready (wall clock) */
	bool refusal_reported, behind_reported, fatal;
	struct fleet_view *view;     /* fleet_pause.c: pauses and last runs; NULL before */
};

static inline int64_t now_mono(void)
{
	return clock_now_ns(CLOCK_MONOTONIC);
}

static inline int64_t now_real(void)
{
	return clock_now_ns(CLOCK_REALTIME);
}

/* fleet.c: sends OP as the statement in flight. */
void fleet_send(struct fleet *f, struct op *op);

/* fleet.c: OP waits in the queue its row of the policy table names (one
 * of the queued kinds). */
void fleet_enqueue(struct fleet *f, struct op *op);

/* fleet.c: gives the connection up (WHY, reported once an outage); what
 * was in flight goes back to its queue. */
void fleet_lose_connection(struct fleet *f, const char *why);

/* fleet.c: queues an error event, or a claim's outcome, for the loop. */
void fleet_push_error(struct fleet *f, const char *call, const char *message);
void fleet_push_outcome(struct fleet *f, const struct op *op, enum fleet_outcome o);

/* fleet_replica.c: the replica's name in tfd_replicas, its jobs in
 * tfd_jobs and their comparison with the other replicas', the claims
 * missed at once when the server refuses them for good, the backlog. */
void fleet_replica_init(struct fleet *f);
void fleet_replica_free(struct fleet *f);
/* OP's SQL when it is one of fleet_replica.c's kinds, else NULL. */
const char *fleet_replica_statement(struct fleet *f, const struct op *op,
				    struct fleet_statement *p);
void fleet_replica_answer(struct fleet *f, struct op *op, const pq_result *r);
/* The table is ready: the name was held, the jobs are written again. */
void fleet_replica_ready(struct fleet *f);
/* Each service: the renewal of the name, its retry. */
void fleet_replica_service(struct fleet *f);
int64_t fleet_replica_deadline(const struct fleet *f);
/* At each answer: a claim queue that falls behind is told. */
void fleet_check_backlog(struct fleet *f);
/* Every queued claim is missed now, and the next ones as they come. */
void fleet_refuse_claims(struct fleet *f);

/* fleet_replica.c: a literal of a text[] parameter (N ITEMS), or NULL
 * when memory ran out. */
char *fleet_array_literal(size_t n, const char *const *items);

/* fleet_wins.c: the recent wins: a claim won; a won run's (for its try,
 * end or drop), or NULL; the rows to write again after a reconnection (up
 * to FLEET_BATCH_MAX, the newest: an OP_REWRITE), or NULL when none. */
void fleet_win_add(struct fleet *f, const struct op *claim);
struct win *fleet_win_find(struct fleet *f, const char *job, int64_t scheduled_ns);
struct op *fleet_wins_rewrite(struct fleet *f);

#endif
