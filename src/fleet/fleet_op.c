/* SPDX-License-Identifier: MIT */
/* fleet_op: the fleet's work, one op per statement: made and queued
 * (fleet_statement.c turns an op into its SQL). */
#include "fleet_op.h"

#include <stdlib.h>
#include <string.h>

#include "civil.h"

/* A wall-clock instant as timestamptz input, to the microsecond (the
 * column's resolution): "2026-12-03 10:00:01.000123+00". */
void fleet_format_instant(char *buf, size_t len, int64_t ns)
{
	civil_format_utc_us(buf, len, ns, ' ', "+00");
}

/* Every element quoted, '"' and '\' escaped. */
char *fleet_array_literal(size_t n, const char *const *items)
{
	size_t len = 3;
	char *s, *o;

	for (size_t i = 0; i < n; i++)
		len += 2 * strlen(items[i]) + 3;
	if (!(o = s = malloc(len)))
		return NULL;
	*o++ = '{';
	for (size_t i = 0; i < n; i++) {
		*o++ = '"';
		for (const char *c = items[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				*o++ = '\\';
			*o++ = *c;
		}
		*o++ = '"';
		if (i + 1 < n)
			*o++ = ',';
	}
	*o++ = '}';
	*o = '\0';
	return s;
}

const char *fleet_row_state_text(enum row_state state)
{
	switch (state) {
	case ROW_RUNNING:
		return "running";
	case ROW_SUCCEEDED:
		return "succeeded";
	case ROW_FAILED:
		return "failed";
	case ROW_ABANDONED:
		return "abandoned";
	case ROW_RELEASED:
		return "released";
	case ROW_UNSET:
		break;
	}
	return NULL;
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
