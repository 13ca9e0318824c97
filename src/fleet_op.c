/* SPDX-License-Identifier: MIT */
/* fleet_op: the fleet's work, one op per statement: made, queued, and
 * turned into its SQL and parameters. */
#include "fleet_op.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "civil.h"
#include "fleet_sql.h"
#include "fleet_sql_batch.h"

/* A wall-clock instant as timestamptz input, to the microsecond (the
 * column's resolution): "2026-12-03 10:00:01.000123+00". */
void fleet_format_instant(char *buf, size_t len, int64_t ns)
{
	civil_format_utc_us(buf, len, ns, ' ', "+00");
}

static void format_micros(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%" PRId64, ns / 1000);
}

/* Queues */

void fleet_queue_push(struct queue *q, struct op *op)
{
	op->next = NULL;
	if (q->tail)
		q->tail->next = op;
	else
		q->head = op;
	q->tail = op;
	q->n++;
}

void fleet_queue_push_front(struct queue *q, struct op *op)
{
	op->next = q->head;
	q->head = op;
	if (!q->tail)
		q->tail = op;
	q->n++;
}

struct op *fleet_queue_pop(struct queue *q)
{
	struct op *op = q->head;

	if (!op)
		return NULL;
	q->head = op->next;
	if (!q->head)
		q->tail = NULL;
	q->n--;
	op->next = NULL;
	return op;
}

void fleet_op_free(struct op *op)
{
	if (!op)
		return;
	for (size_t i = 0; i < op->nitems; i++)
		fleet_op_free(op->items[i]);
	free(op->items);
	free(op->job);
	free(op);
}

void fleet_queue_free(struct queue *q)
{
	struct op *op;

	while ((op = fleet_queue_pop(q)))
		fleet_op_free(op);
}

struct op *fleet_op_new(enum op_kind kind, const char *job, int64_t scheduled_ns)
{
	struct op *op = calloc(1, sizeof *op);

	if (!op)
		return NULL;
	op->kind = kind;
	if (job && !(op->job = strdup(job))) {
		free(op);
		return NULL;
	}
	op->scheduled_ns = scheduled_ns;
	return op;
}

/* Statements */

static void param_instant(struct fleet_statement *p, int slot, int64_t ns)
{
	fleet_format_instant(p->buf[slot], sizeof p->buf[slot], ns);
	p->v[p->n++] = p->buf[slot];
}

static void param_micros(struct fleet_statement *p, int slot, int64_t ns)
{
	format_micros(p->buf[slot], sizeof p->buf[slot], ns);
	p->v[p->n++] = p->buf[slot];
}

static void param_int(struct fleet_statement *p, int slot, long v)
{
	snprintf(p->buf[slot], sizeof p->buf[slot], "%ld", v);
	p->v[p->n++] = p->buf[slot];
}

const char *fleet_statement_of(const struct fleet_config *cfg, const char *boundary,
			       const struct op *op, struct fleet_statement *p)
{
	const struct fleet_end *e = &op->end;

	switch (op->kind) {
	case OP_SETUP:
		return fleet_sql_setup;
	case OP_UPGRADE:
		return fleet_sql_upgrade;
	case OP_START:
		p->v[p->n++] = cfg->replica;
		p->v[p->n++] = boundary;
		return fleet_sql_start;
	case OP_CLAIMS:
	case OP_ENDS:
	case OP_REWRITE:
		return fleet_batch_statement(cfg, op, p);
	case OP_ATTEMPT:
		p->v[p->n++] = op->job;
		param_instant(p, 0, op->scheduled_ns);
		p->v[p->n++] = cfg->replica;
		param_int(p, 1, (long)e->attempts);
		return fleet_sql_attempt;
	case OP_CLAIM:
	case OP_END:
		break;  /* items of a batch, never sent alone */
	case OP_ABANDON:
		p->v[p->n++] = op->job;
		param_instant(p, 0, op->scheduled_ns);
		p->v[p->n++] = cfg->replica;
		return fleet_sql_abandon;
	case OP_RENEW:
		p->v[p->n++] = cfg->replica;
		param_micros(p, 0, cfg->lease_ns);
		p->v[p->n++] = boundary;
		return fleet_sql_renew;
	case OP_KEEP_CLAIM:
		p->v[p->n++] = cfg->replica;
		return fleet_sql_keep_claim;
	case OP_KEEP_DELETE:
		param_micros(p, 0, cfg->keep_ns);
		return fleet_sql_keep_delete;
	case OP_KEEP_END:
		p->v[p->n++] = cfg->replica;
		param_instant(p, 0, op->scheduled_ns);
		param_int(p, 1, (long)op->token);
		param_micros(p, 2, cfg->keep_ns);
		return fleet_sql_keep_end;
	case OP_HOLD:
	case OP_BEAT:
	case OP_RELEASE:
	case OP_JOBS:
	case OP_DIFFER:
	case OP_PAUSE:
	case OP_RESUME:
	case OP_VIEW:
		break;  /* fleet_replica_statement, fleet_pause_statement */
	case OP_KINDS:
		break;
	}
	return NULL;
}

void fleet_statement_free(struct fleet_statement *p)
{
	for (int i = 0; i < p->narrays; i++)
		free(p->arrays[i]);
	p->narrays = 0;
}
