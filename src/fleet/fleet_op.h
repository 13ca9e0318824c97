/* SPDX-License-Identifier: MIT */
/* fleet_op: what the fleet asks of the database, one op per statement,
 * private to the fleet's files (fleet*.c). An op owns its copy of the job's name; a queue
 * owns the ops in it. Nothing here talks to libpq. */
#ifndef TFD_FLEET_OP_H
#define TFD_FLEET_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet_types.h"

/* OP_CLAIM and OP_END wait in their queues and go to the database as the
 * items of one OP_CLAIMS or OP_ENDS statement; OP_REWRITE carries a
 * reconnected replica's recent wins (fleet_batch.c). What the fleet does
 * with each kind (its queue, whether it is sent again, what an error
 * means) is its row in fleet_policy.c's table. */
enum op_kind {
	OP_SETUP,
	OP_UPGRADE,
	OP_START,
	OP_CLAIM,
	OP_CLAIMS,
	OP_ATTEMPT,
	OP_END,
	OP_ENDS,
	OP_REWRITE,
	OP_ABANDON,
	OP_RENEW,
	OP_KEEP_CLAIM,
	OP_KEEP_DELETE,
	OP_KEEP_END,
	/* fleet_replica.c's: the replica's name, its jobs, and their check */
	OP_HOLD,
	OP_BEAT,
	OP_RELEASE,
	OP_JOBS,
	OP_DIFFER,
	/* fleet_pause.c's: tfd_paused written, and the view read back */
	OP_PAUSE,
	OP_RESUME,
	OP_VIEW,
	OP_KINDS /* how many kinds there are: not one */
};

/* A tfd_runs row's state as this replica writes it (an end's item, a
 * recent win's): the column's word is fleet_row_state_text's. */
enum row_state {
	ROW_UNSET, /* a claim's item: no state of its own (SQL NULL) */
	ROW_RUNNING,
	ROW_SUCCEEDED,
	ROW_FAILED,
	ROW_ABANDONED,
	ROW_RELEASED, /* won, not started: running and nobody's, for
		       * another replica's renewal to take */
};

/* STATE's word in tfd_runs.state (and fleet_sql_ends'), or NULL for
 * ROW_UNSET. */
const char *fleet_row_state_text(enum row_state state);

struct op {
	struct op *next;
	enum op_kind kind;
	char *job;
	int64_t scheduled_ns;
	int64_t queued_mono; /* a claim: when it was queued */
	int64_t sent_real;   /* when it was sent (wall clock): the clock's
			      * check takes the middle of its round trip */
	uint64_t token;      /* a claim's; the cleanup: rows deleted so far */
	bool exclusive;
	bool resent;          /* its first sending may have been carried out */
	bool again;           /* a claim whose conflict its statement could not see */
	bool manual;          /* a claim of tfdctl run's (trigger 'manual') */
	bool at_once;         /* OP_CLAIMS: sent beside others in flight: full
			       * (FLEET_BATCH_MAX new claims), asking again
			       * only, or a storm's */
	struct fleet_end end; /* OP_END; OP_ATTEMPT uses end.attempts */
	enum row_state state; /* OP_END and OP_REWRITE's items: the row's state */
	struct op **items;    /* OP_CLAIMS, OP_ENDS, OP_REWRITE: the rows, owned */
	size_t nitems;
};

struct queue {
	struct op *head, *tail;
	size_t n;
};

/* An op's parameters, as text for PQsendQueryParams. */
struct fleet_statement {
	const char *v[10];
	int n;
	char buf[6][64];
	char *arrays[8]; /* a batch's arrays as text, freed by fleet_statement_free */
	int narrays;
};

/* A new op of KIND (JOB may be NULL), or NULL when out of memory. */
struct op *fleet_op_new(enum op_kind kind, const char *job, int64_t scheduled_ns);
void fleet_op_free(struct op *op);

void fleet_queue_push(struct queue *q, struct op *op);
/* For an op sent and not answered: it goes first again. */
void fleet_queue_push_front(struct queue *q, struct op *op);
struct op *fleet_queue_pop(struct queue *q);
void fleet_queue_free(struct queue *q);

/* fleet_batch.c: a batch of OP_CLAIMs (KIND OP_CLAIMS) or OP_ENDs (OP_ENDS)
 * taken from the head of Q: claims up to FLEET_BATCH_MAX new ones plus
 * every one to ask again; ends up to FLEET_BATCH_MAX in a row. NULL when
 * Q's head is not of that kind, or out of memory (Q unchanged). */
struct op *fleet_batch_take(struct queue *q, enum op_kind kind);
/* Whether the claims at Q's head go at once, beside the statements in
 * flight: they fill a statement (FLEET_BATCH_MAX new ones, besides those
 * to ask again), or only ask again. */
bool fleet_batch_at_once(const struct queue *q);
/* A batch of ITEMS (owned from now on) of KIND, or NULL (items unchanged). */
struct op *fleet_batch_new(enum op_kind kind, struct op **items, size_t n);
/* A batch's items back at the front of Q, in their order; the batch is
 * freed. */
void fleet_batch_requeue(struct queue *q, struct op *batch);
/* The SQL and array parameters of a batch (OP_CLAIMS, OP_ENDS,
 * OP_REWRITE); NULL when out of memory. */
const char *fleet_batch_statement(const struct fleet_config *cfg, const struct op *op,
				  struct fleet_statement *p);

/* A wall-clock instant as timestamptz input, to the microsecond (the
 * column's resolution): "2026-12-03 10:00:01.000123+00". */
void fleet_format_instant(char *buf, size_t len, int64_t ns);

/* A literal of a text[] parameter (N ITEMS), or NULL when memory ran
 * out. */
char *fleet_array_literal(size_t n, const char *const *items);

#endif
