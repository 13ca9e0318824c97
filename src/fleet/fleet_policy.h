/* SPDX-License-Identifier: MIT */
/* fleet_policy: the fleet's rules by statement kind, in one table (as
 * s6-supervise keeps its actions in one): where an op waits to be sent,
 * what becomes of it when its statement does not go through (the
 * connection lost while it was in flight, or the server rolling it back
 * with a SQLSTATE of class 40), what a refusal means, who writes its
 * SQL, how its answer is read and what the exit waits for. fleet.c and fleet_answer.c take every
 * decision about a kind from here; a new kind is one more row. */
#ifndef TFD_FLEET_POLICY_H
#define TFD_FLEET_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet_op.h"

/* Where an op waits before it is sent. The connection is a pipeline
 * (fleet_pipe.h): whatever waits is sent at once, the queues in this
 * order, and the server answers in the order sent; so a run's end goes
 * out before the renewal, the claims, the bookkeeping and the chores that
 * wait with it (fleet.c next_op), and waits on the server only behind
 * the statements already sent. */
enum fleet_queue {
	FLEET_QUEUE_NONE,   /* none: sent at once (the setup's steps), or
			     * made when due (the rewrite of the recent
			     * wins, first; the renewal, after the runs'
			     * rows; the cleanup's first step, last) */
	FLEET_QUEUE_RUNS,   /* a won run's rows: its tries, its end (many
			     * to a statement) or its abandon, first */
	FLEET_QUEUE_CLAIMS, /* the claims, up to FLEET_BATCH_MAX a statement */
	FLEET_QUEUE_WRITES, /* the bookkeeping: the name's renewal, release
			     * and jobs, tfdctl's pauses; once the claims
			     * of an instant are all sent */
	FLEET_QUEUE_CHORES, /* the cleanup's next steps and the fleet's view:
			     * last, once the claims are all sent */
};

/* What becomes of an op whose statement did not go through: the
 * connection was lost before its answer (it may have been carried out),
 * or it was rolled back (a SQLSTATE of class 40) or aborted in the
 * pipeline (PGRES_PIPELINE_ABORTED: an earlier statement of its
 * transaction failed), in both of which it was not carried out. */
enum fleet_again {
	FLEET_AGAIN_DROP,    /* dropped: made again by what made it (the next
			      * connection's setup, name, jobs, renewal and
			      * rewrite; the next cleanup), or never (the
			      * release at exit) */
	FLEET_AGAIN_REQUEUE, /* back to the front of its queue, as it was */
	FLEET_AGAIN_RESENT,  /* back to the front of its queue, each claim it
			      * carries marked resent: the first sending may
			      * have been carried out (the SQL then reads the
			      * row it may have written) */
	FLEET_AGAIN_DUE,     /* its timer made due at once */
};

/* What a refusal means: an error while the connection stays up, other
 * than a rollback (class 40). Each is reported (a refusal that retrying
 * cannot mend once a connection); a statement is never retried for ever. */
enum fleet_refused {
	FLEET_REFUSED_DROP,      /* given up */
	FLEET_REFUSED_MISS,      /* given up; each claim it carries is missed
				  * at once */
	FLEET_REFUSED_LATER,     /* given up; its timer's next period asks
				  * again */
	FLEET_REFUSED_RECONNECT, /* the replica is not ready without it: the
				  * connection is given up (and the claims
				  * missed at once when the refusal lasts) */
};

/* The timer that makes an op (FLEET_AGAIN_DUE, FLEET_REFUSED_LATER). */
enum fleet_timer {
	FLEET_TIMER_NONE,
	FLEET_TIMER_RENEW,   /* the leases' renewal, every lease/6 */
	FLEET_TIMER_BEAT,    /* the name's renewal, every lease/6 */
	FLEET_TIMER_REWRITE, /* the recent wins, after a reconnection */
	FLEET_TIMER_KEEP,    /* the cleanup, every KEEP_EVERY_NS */
};

/* How the answer of a statement that went through is read
 * (fleet_answer.c). */
enum fleet_reading {
	FLEET_READ_NOTHING,     /* done */
	FLEET_READ_NEXT,        /* done; the next step (policy's next) follows */
	FLEET_READ_START,       /* the replica is ready: the boundary, now() */
	FLEET_READ_CLAIMS,      /* a row for each claim answered */
	FLEET_READ_RENEW,       /* now(): the next renewal */
	FLEET_READ_KEEP_CLAIM,  /* the hour claimed for the cleanup, if any */
	FLEET_READ_KEEP_DELETE, /* rows deleted: a full batch, more to delete */
	FLEET_READ_REPLICA,     /* fleet_replica.c's: the name, the jobs */
	FLEET_READ_PAUSE,       /* fleet_pause.c's: a pause, a resume, the view */
};

/* Which file writes an op's SQL and parameters (fleet.c send_op calls
 * it): the one that holds what they are made of. */
enum fleet_writer {
	FLEET_SQL_NONE,    /* none: an item of a batch, never sent alone */
	FLEET_SQL_OP,      /* fleet_statement.c: from the op, --fleet's
			    * settings and the boundary alone (batches
			    * through fleet_batch.c) */
	FLEET_SQL_WINS,    /* fleet_wins.c: the renewal, with the keys held */
	FLEET_SQL_REPLICA, /* fleet_replica.c: the name and the jobs */
	FLEET_SQL_PAUSE,   /* fleet_pause.c: the pauses and the view */
};

/* What fleet_pending counts of an op: the exit waits for the runs' rows. */
enum fleet_pending {
	FLEET_PENDING_NONE,
	FLEET_PENDING_ONE,
	FLEET_PENDING_ITEMS, /* a batch: each item */
};

struct fleet_policy {
	const char *name;            /* the kind's, for tests and messages */
	enum fleet_writer statement; /* who writes its SQL */
	enum fleet_queue queue;
	bool batch;                   /* carries items (fleet_batch.c) */
	enum fleet_again lost;        /* in flight when the connection was lost */
	enum fleet_again rolled_back; /* SQLSTATE class 40: a deadlock or a
				       * serialization failure rolled it back;
				       * or aborted in the pipeline */
	enum fleet_refused refused;
	enum fleet_timer timer;
	enum fleet_reading reading;
	enum op_kind next;      /* FLEET_READ_NEXT, FLEET_READ_KEEP_*: the
				 * statement that follows */
	bool abandon_if_resent; /* a claim missed at its deadline after a
				 * resending: the row it may have written
				 * is abandoned (an OP_ABANDON), so no
				 * replica runs the elapse */
	enum fleet_pending pending;
};

/* KIND's row. Every kind has one (test_fleet_policy checks it). */
const struct fleet_policy *fleet_policy(enum op_kind kind);

/* How many of what fleet_pending counts OP carries. */
size_t fleet_op_pending(const struct op *op);

#endif
