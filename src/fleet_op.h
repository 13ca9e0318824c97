/* SPDX-License-Identifier: MIT */
/* fleet_op: what the fleet asks of the database, one op per statement,
 * private to the fleet's files (fleet*.c). An op owns its copy of the job's name; a queue
 * owns the ops in it. Nothing here talks to libpq. */
#ifndef TFD_FLEET_OP_H
#define TFD_FLEET_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

enum op_kind {
	OP_SETUP, OP_START, OP_CLAIM, OP_CLASSIFY, OP_ATTEMPT, OP_END, OP_ABANDON, OP_RENEW,
	OP_KEEP_CLAIM, OP_KEEP_DELETE, OP_KEEP_END,
	/* fleet_replica.c's: the replica's name, its jobs, and their check */
	OP_HOLD, OP_BEAT, OP_RELEASE, OP_JOBS, OP_DIFFER,
};

struct op {
	struct op *next;
	enum op_kind kind;
	char *job;
	int64_t scheduled_ns;
	uint64_t token;          /* a claim's; the cleanup: rows deleted so far */
	bool exclusive;
	bool resent;             /* its first sending may have been carried out */
	bool in_time;            /* a claim's answer: within the deadline */
	struct fleet_end end;    /* OP_END; OP_ATTEMPT uses end.attempts */
};

struct queue {
	struct op *head, *tail;
	size_t n;
};

/* An op's parameters, as text for PQsendQueryParams. */
struct fleet_statement {
	const char *v[8];
	int n;
	char buf[6][64];
};

/* A new op of KIND (JOB may be NULL), or NULL when out of memory. */
struct op *fleet_op_new(enum op_kind kind, const char *job, int64_t scheduled_ns);
void fleet_op_free(struct op *op);

void fleet_queue_push(struct queue *q, struct op *op);
/* For an op sent and not answered: it goes first again. */
void fleet_queue_push_front(struct queue *q, struct op *op);
struct op *fleet_queue_pop(struct queue *q);
void fleet_queue_free(struct queue *q);

/* OP's SQL, with its parameters filled into P (which starts empty):
 * CFG's replica, lease and keep, and the replica's BOUNDARY (ISO text, or
 * NULL before the first connection). */
const char *fleet_statement_of(const struct fleet_config *cfg, const char *boundary,
			       const struct op *op, struct fleet_statement *p);

/* A wall-clock instant as timestamptz input, to the microsecond (the
 * column's resolution): "2026-12-03 10:00:01.000123+00". */
void fleet_format_instant(char *buf, size_t len, int64_t ns);

#endif
