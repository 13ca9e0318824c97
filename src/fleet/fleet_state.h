/* SPDX-License-Identifier: MIT */
/* fleet_state: the database client's state, shared by fleet.c (the
 * connection, sending, scheduling the statements, carrying out what each
 * answer means, the loop's calls) and the files it hands parts of its
 * work to (fleet_replica.c, fleet_pause.c, fleet_wins.c), and by nothing
 * else: the loop sees only fleet.h, and fleet_answer.c, which reads the
 * answers, sees none of it. Those files sit below fleet.c: they call
 * nothing of it; what they need sent or given up they return. Each of
 * them owns its part of the state behind a pointer, a struct only its
 * file defines (struct fleet_wins, struct fleet_replica, struct
 * fleet_view): the others reach it through that file's calls. */
#ifndef TFD_FLEET_STATE_H
#define TFD_FLEET_STATE_H

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

#define BACKOFF_FIRST_NS   (250 * INT64_C(1000000))
#define BACKOFF_MAX_NS     (16 * NSEC_PER_SEC)
#define KEEP_EVERY_NS      (600 * NSEC_PER_SEC)

struct fleet_wins;
struct fleet_replica;
struct fleet_view;

enum link {
	LINK_IDLE,        /* not started */
	LINK_WAIT,        /* a backoff before the next connection */
	LINK_CONNECTING,
	LINK_SETUP,       /* connected; the table is being checked */
	LINK_READY,
};

struct fleet {
	struct pq pq;
	struct fleet_config cfg;
	char *replica;
	struct fleet_params params;

	pq_conn *conn;
	enum link link;
	bool want_write;             /* connecting: poll for POLLOUT; ready: output to flush */
	int64_t retry_at, backoff_ns;
	int64_t waited_from;         /* since when the server has been silent while
				      * it owes an answer (connecting: since the
				      * connection began) */
	int64_t sent_real;           /* when the statement being answered was sent */
	struct fleet_pipe pipe;      /* the statements sent, not answered yet */
	pq_result *answer;           /* the oldest statement's first result */
	/* What waits to be sent, a queue by enum fleet_queue: the runs' rows
	 * (tries, ends, abandons), the claims, the bookkeeping (the name's
	 * renewal and release, the jobs, tfdctl's pauses), the chores (the
	 * cleanup's steps, the fleet's view). */
	struct queue runs, claims, writes, chores;
	struct fleet_wins *wins;      /* fleet_wins.c: the recent wins, the renewal,
				       * the clock, the claims held early */
	bool rewrite_due;             /* reconnected: the recent wins are written first */
	bool claims_coming;           /* fleet_claims_coming */
	int64_t renew_at, keep_at;
	char *boundary;              /* ISO text; NULL before the first connection */

	bool outage_reported, refusal_reported;
	struct fleet_events events;
	struct fleet_replica *rep;   /* fleet_replica.c: the name, the jobs, the
				      * outage's and the backlog's reports */
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

/* The queue Q of the policy table (NULL for FLEET_QUEUE_NONE: an op sent
 * at once). */
static inline struct queue *fleet_queue_of(struct fleet *f, enum fleet_queue q)
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
static inline void fleet_enqueue(struct fleet *f, struct op *op)
{
	fleet_queue_push(fleet_queue_of(f, fleet_policy(op->kind)->queue), op);
}

/* An error event (scrubbed of the passwords), or a claim's outcome, for
 * the loop (fleet_events.c). */
static inline void fleet_push_error(struct fleet *f, const char *call, const char *message)
{
	fleet_events_error(&f->events, &f->params.secrets, call, message);
}

static inline void fleet_push_outcome(struct fleet *f, const struct op *op, enum fleet_outcome o)
{
	fleet_events_outcome(&f->events, op->token, op->job, op->scheduled_ns, o);
}

#endif
