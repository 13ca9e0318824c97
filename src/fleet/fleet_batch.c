/* SPDX-License-Identifier: MIT */
/* fleet_batch: the claims and ends that wait in the fleet's queues go to
 * the database many in one statement (SQL in fleet_sql_batch.c): each
 * column of the rows is one array parameter, in PostgreSQL's array text
 * form ({"a","b"}), that the statement takes apart with unnest. Still
 * parameters: no name is ever part of the SQL. */
#include "fleet_op.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_sql.h"
#include "fleet_sql_batch.h"

/* Taking and giving back */

struct op *fleet_batch_new(enum op_kind kind, struct op **items, size_t n)
{
	struct op *batch = fleet_op_new(kind, NULL, 0);

	if (!batch)
		return NULL;
	batch->items = items;
	batch->nitems = n;
	return batch;
}

/* Claims: the ones to ask again (at the front, from the statement before)
 * do not count against the limit, so an instant's elapses take at most
 * one statement more than ceil(n / FLEET_BATCH_MAX). */
static bool takes(const struct op *op, enum op_kind kind, size_t fresh)
{
	if (op->kind != (kind == OP_CLAIMS ? OP_CLAIM : OP_END))
		return false;
	return (kind == OP_CLAIMS && op->again) || fresh < FLEET_BATCH_MAX;
}

/* How many ops at Q's head one statement of KIND takes, and how many of
 * them are new (*FRESH). */
static size_t taken(const struct queue *q, enum op_kind kind, size_t *fresh)
{
	size_t n = 0;

	*fresh = 0;
	for (const struct op *op = q->head; op && takes(op, kind, *fresh); op = op->next, n++)
		*fresh += !(kind == OP_CLAIMS && op->again);
	return n;
}

struct op *fleet_batch_take(struct queue *q, enum op_kind kind)
{
	size_t fresh, n = taken(q, kind, &fresh);
	struct op **items, *batch;

	if (n == 0 || !(items = malloc(n * sizeof *items)))
		return NULL;
	if (!(batch = fleet_batch_new(kind, items, n))) {
		free(items);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		items[i] = fleet_queue_pop(q);
	batch->at_once = kind == OP_CLAIMS && (fresh == FLEET_BATCH_MAX || fresh == 0);
	return batch;
}

bool fleet_batch_at_once(const struct queue *q)
{
	size_t fresh;

	taken(q, OP_CLAIMS, &fresh);
	return fresh == FLEET_BATCH_MAX || fresh == 0;
}

void fleet_batch_requeue(struct queue *q, struct op *batch)
{
	for (size_t i = batch->nitems; i > 0; i--)
		fleet_queue_push_front(q, batch->items[i - 1]);
	batch->nitems = 0;
	fleet_op_free(batch);
}

/* Arrays as text */

struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		char *p;

		while (t->len + n + 1 > cap)
			cap *= 2;
		if (!(p = realloc(t->s, cap))) {
			t->failed = true;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void put_str(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* One element, quoted: inside the quotes only '"' and '\' are escaped,
 * so any name (spaces, commas, braces, "NULL") reads back as it was. */
static void put_quoted(struct text *t, const char *s)
{
	put(t, "\"", 1);
	for (const char *p = s; *p; p++) {
		size_t run = strcspn(p, "\"\\");

		put(t, p, run);
		p += run;
		if (!*p)
			break;
		put(t, "\\", 1);
		put(t, p, 1);
	}
	put(t, "\"", 1);
}

/* The columns a batch can carry, each item's value as text (NULL: SQL
 * NULL, written unquoted). */
enum column { COL_JOB, COL_SCHEDULED, COL_EXCLUSIVE, COL_RESENT, COL_STATE, COL_ATTEMPTS,
	      COL_EXIT, COL_TIMED_OUT, COL_FINISHED, COL_MANUAL };

static const char *value_of(const struct op *op, enum column c, char *buf, size_t len)
{
	const struct fleet_end *e = &op->end;
	bool running = op->state == ROW_RUNNING;

	switch (c) {
	case COL_JOB:
		return op->job;
	case COL_SCHEDULED:
		fleet_format_instant(buf, len, op->scheduled_ns);
		return buf;
	case COL_EXCLUSIVE:
		return op->exclusive ? "t" : "f";
	case COL_RESENT:
		return op->resent ? "t" : "f";
	case COL_MANUAL:
		return op->manual ? "t" : "f";
	case COL_STATE:
		return fleet_row_state_text(op->state);
	case COL_ATTEMPTS:
		snprintf(buf, len, "%u", e->attempts);
		return buf;
	case COL_EXIT:
		if (running || e->exit_status < 0)
			return NULL;
		snprintf(buf, len, "%d", e->exit_status);
		return buf;
	case COL_TIMED_OUT:
		/* A running row: false under fleet-wide --overlap skip (the
		 * partial unique index covers it), NULL otherwise. */
		if (running)
			return op->exclusive ? "f" : NULL;
		return e->timed_out ? "t" : "f";
	case COL_FINISHED:
		if (running)
			return NULL;
		fleet_format_instant(buf, len, e->finished_ns);
		return buf;
	}
	return NULL;
}

static bool add_array(const struct op *batch, enum column c, struct fleet_statement *p)
{
	struct text t = { 0 };
	char buf[64];

	put(&t, "{", 1);
	for (size_t i = 0; i < batch->nitems; i++) {
		const char *v = value_of(batch->items[i], c, buf, sizeof buf);

		if (i > 0)
			put(&t, ",", 1);
		if (v)
			put_quoted(&t, v);
		else
			put_str(&t, "NULL");
	}
	put(&t, "}", 1);
	if (t.failed) {
		free(t.s);
		return false;
	}
	p->arrays[p->narrays++] = t.s;
	p->v[p->n++] = t.s;
	return true;
}

static bool add_arrays(const struct op *batch, const enum column *cols, size_t n,
		       struct fleet_statement *p)
{
	for (size_t i = 0; i < n; i++)
		if (!add_array(batch, cols[i], p))
			return false;
	return true;
}

static void add_micros(struct fleet_statement *p, int slot, int64_t ns)
{
	snprintf(p->buf[slot], sizeof p->buf[slot], "%" PRId64, ns / 1000);
	p->v[p->n++] = p->buf[slot];
}

const char *fleet_batch_statement(const struct fleet_config *cfg, const struct op *op,
				  struct fleet_statement *p)
{
	static const enum column claims[] = { COL_JOB, COL_SCHEDULED, COL_EXCLUSIVE, COL_RESENT };
	static const enum column rows[] = { COL_JOB, COL_SCHEDULED, COL_STATE, COL_ATTEMPTS,
					    COL_EXIT, COL_TIMED_OUT, COL_FINISHED };

	switch (op->kind) {
	case OP_CLAIMS:
		if (!add_arrays(op, claims, sizeof claims / sizeof *claims, p))
			return NULL;
		p->v[p->n++] = cfg->replica;
		add_micros(p, 0, cfg->lease_ns);
		add_micros(p, 1, cfg->deadline_ns);
		if (!add_array(op, COL_MANUAL, p))
			return NULL;
		return fleet_sql_claims;
	case OP_ENDS:
	case OP_REWRITE:
		if (!add_arrays(op, rows, sizeof rows / sizeof *rows, p))
			return NULL;
		p->v[p->n++] = cfg->replica;
		if (op->kind == OP_REWRITE)
			add_micros(p, 0, cfg->lease_ns);
		/* Last, after the parameters that came before it. */
		if (!add_array(op, COL_MANUAL, p))
			return NULL;
		return op->kind == OP_ENDS ? fleet_sql_ends : fleet_sql_rewrite;
	default:
		return NULL;
	}
}
