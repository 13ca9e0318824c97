/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_batch: which queued claims and ends one statement
 * takes (1,000 new claims at most, besides every claim to ask again; ends
 * in a row only), whether it is full, giving a batch back in its order, and the array
 * parameters' text (every element quoted, '"' and '\' escaped, NULL for
 * what has no value, a running row's end left out). No database: the SQL
 * itself runs against PostgreSQL in tests/bats/76-fleet-client.bats. */
#include "fleet_op.h"
#include "fleet_statement.h"
#include "harness.h"
#include "tsv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch of the N ops in ITEMS (copied: the batch owns its array). */
static struct op *batch_of(enum op_kind kind, struct op *const *items, size_t n)
{
	struct op **copy = malloc(n * sizeof *copy);
	struct op *b;

	if (!copy) {
		fprintf(stderr, "test_fleet_batch: out of memory\n");
		exit(1);
	}
	memcpy(copy, items, n * sizeof *copy);
	if (!(b = fleet_batch_new(kind, copy, n))) {
		free(copy);
		fprintf(stderr, "test_fleet_batch: out of memory\n");
		exit(1);
	}
	return b;
}

static struct op *claim(const char *job, bool again)
{
	struct op *op = fleet_op_new(OP_CLAIM, job, 0);

	if (!op) {
		fprintf(stderr, "test_fleet_batch: out of memory\n");
		exit(1);
	}
	op->again = again;
	return op;
}

static void test_take_claims(void)
{
	struct queue q = { 0 };
	struct op *b;
	char name[32];

	/* 3 to ask again at the front, then 2,500 new ones. */
	for (int i = 0; i < 3; i++)
		fleet_queue_push(&q, claim("again", true));
	for (int i = 0; i < 2500; i++) {
		snprintf(name, sizeof name, "j%d", i);
		fleet_queue_push(&q, claim(name, false));
	}
	check(fleet_batch_at_once(&q), "3 again and 2,500 new fill a statement");
	b = fleet_batch_take(&q, OP_CLAIMS);
	check(b && b->kind == OP_CLAIMS && b->nitems == 1003,
	      "first batch: 3 again + 1000 new, got %zu", b ? b->nitems : 0);
	check(b && b->at_once, "a full statement: a storm's, sent beside others");
	check(b && b->items[0]->again && strcmp(b->items[3]->job, "j0") == 0 &&
		      strcmp(b->items[1002]->job, "j999") == 0,
	      "in queue order");
	check(q.n == 1500 && strcmp(q.head->job, "j1000") == 0, "the rest waits: %zu", q.n);
	/* Given back (the connection was lost): first again, in order. */
	fleet_batch_requeue(&q, b);
	check(q.n == 2503 && q.head->again && strcmp(q.tail->job, "j2499") == 0, "requeued: %zu",
	      q.n);
	for (int k = 0; k < 2; k++)
		fleet_op_free(fleet_batch_take(&q, OP_CLAIMS));
	check(q.n == 500 && !fleet_batch_at_once(&q), "500 left: short of a statement");
	b = fleet_batch_take(&q, OP_CLAIMS);
	check(b && b->nitems == 500 && !b->at_once, "a statement short of 1,000: one at a time");
	fleet_op_free(b);
	check(q.n == 0 && !q.head && !q.tail, "3 statements took 2,503 claims");
	fleet_queue_push(&q, claim("again", true));
	fleet_queue_push(&q, claim("again", true));
	check(fleet_batch_at_once(&q), "claims asked again only go at once");
	b = fleet_batch_take(&q, OP_CLAIMS);
	check(b && b->nitems == 2 && b->at_once, "a statement that only asks again: at once");
	fleet_op_free(b);
	check(fleet_batch_take(&q, OP_CLAIMS) == NULL, "an empty queue gives no batch");
}

static void test_take_ends(void)
{
	struct queue q = { 0 };
	struct op *b;

	fleet_queue_push(&q, fleet_op_new(OP_END, "a", 0));
	fleet_queue_push(&q, fleet_op_new(OP_END, "b", 0));
	fleet_queue_push(&q, fleet_op_new(OP_ATTEMPT, "c", 0));
	fleet_queue_push(&q, fleet_op_new(OP_END, "d", 0));
	b = fleet_batch_take(&q, OP_ENDS);
	check(b && b->nitems == 2, "the ends before the try: %zu", b ? b->nitems : 0);
	fleet_op_free(b);
	check(fleet_batch_take(&q, OP_ENDS) == NULL && q.head->kind == OP_ATTEMPT,
	      "a try at the head is sent alone");
	fleet_queue_free(&q);
}

static const struct fleet_config cfg = {
	.replica = "r1",
	.lease_ns = INT64_C(60000000000),
	.deadline_ns = INT64_C(5000000000),
};

static void test_claims_text(void)
{
	const char *names[] = { "NULL", "{a,b}", "x\"y\\z", "" };
	struct op *items[4], *b;
	struct fleet_statement p = { .n = 0 };
	const char *sql;

	for (int i = 0; i < 4; i++) {
		items[i] = fleet_op_new(OP_CLAIM, names[i], INT64_C(1796292001000123456));
		items[i]->exclusive = i % 2 == 0;
		items[i]->resent = i == 3;
		items[i]->manual = i == 1;
	}
	b = batch_of(OP_CLAIMS, items, 4);
	sql = fleet_batch_statement(&cfg, b, &p);
	check(sql && strstr(sql, "unnest($1::text[], $2::timestamptz[], $3::bool[], $4::bool[], "
				 "$8::bool[])"),
	      "the claims' statement");
	check(p.n == 8, "8 parameters, got %d", p.n);
	check(strcmp(p.v[0], "{\"NULL\",\"{a,b}\",\"x\\\"y\\\\z\",\"\"}") == 0, "names: %s",
	      p.v[0]);
	check(strcmp(p.v[1],
		     "{\"2026-12-03 10:00:01.000123+00\",\"2026-12-03 10:00:01.000123+00\","
		     "\"2026-12-03 10:00:01.000123+00\",\"2026-12-03 10:00:01.000123+00\"}") == 0,
	      "instants: %s", p.v[1]);
	check(strcmp(p.v[2], "{\"t\",\"f\",\"t\",\"f\"}") == 0, "exclusive: %s", p.v[2]);
	check(strcmp(p.v[3], "{\"f\",\"f\",\"f\",\"t\"}") == 0, "resent: %s", p.v[3]);
	check(strcmp(p.v[4], "r1") == 0 && strcmp(p.v[5], "60000000") == 0 &&
		      strcmp(p.v[6], "5000000") == 0,
	      "replica, lease, deadline (µs)");
	check(strcmp(p.v[7], "{\"f\",\"t\",\"f\",\"f\"}") == 0, "manual (tfdctl run): %s", p.v[7]);
	fleet_statement_free(&p);
	fleet_op_free(b);
}

static void test_rows_text(void)
{
	struct op *items[2], *b;
	struct fleet_statement p = { .n = 0 };

	items[0] = fleet_op_new(OP_END, "done", 0);
	items[0]->state = ROW_FAILED;
	items[0]->end = (struct fleet_end){ .failed = true,
					    .exit_status = 3,
					    .attempts = 2,
					    .timed_out = true,
					    .finished_ns = 1000000 };
	items[1] = fleet_op_new(OP_END, "going", 0);
	items[1]->state = ROW_RUNNING;
	items[1]->exclusive = false;
	items[1]->end = (struct fleet_end){ .exit_status = 0, .attempts = 1 };
	b = batch_of(OP_REWRITE, items, 2);
	items[0]->manual = true;
	check(fleet_batch_statement(&cfg, b, &p) != NULL && p.n == 10, "rewrite: 10 parameters");
	check(strcmp(p.v[9], "{\"t\",\"f\"}") == 0, "manual (the rows' trigger): %s", p.v[9]);
	check(strcmp(p.v[2], "{\"failed\",\"running\"}") == 0, "states: %s", p.v[2]);
	check(strcmp(p.v[3], "{\"2\",\"1\"}") == 0, "tries: %s", p.v[3]);
	check(strcmp(p.v[4], "{\"3\",NULL}") == 0, "exit statuses: %s", p.v[4]);
	check(strcmp(p.v[5], "{\"t\",NULL}") == 0, "timed out (a parallel run's: NULL): %s",
	      p.v[5]);
	check(strcmp(p.v[6], "{\"1970-01-01 00:00:00.001000+00\",NULL}") == 0, "ends: %s", p.v[6]);
	fleet_statement_free(&p);
	fleet_op_free(b);
}

/* Each row state's word is the one tfd_runs.state and fleet_sql_ends
 * read; a claim's item has none (SQL NULL). */
static void test_row_states(void)
{
	static const struct {
		enum row_state state;
		const char *text;
	} words[] = { { ROW_RUNNING, "running" },
		      { ROW_SUCCEEDED, "succeeded" },
		      { ROW_FAILED, "failed" },
		      { ROW_ABANDONED, "abandoned" },
		      { ROW_RELEASED, "released" } };

	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		const char *t = fleet_row_state_text(words[i].state);

		check(t && strcmp(t, words[i].text) == 0, "state %zu: %s", i, t ? t : "NULL");
	}
	check(fleet_row_state_text(ROW_UNSET) == NULL, "a claim's item: no state");
}

int main(void)
{
	test_row_states();
	test_take_claims();
	test_take_ends();
	test_claims_text();
	test_rows_text();
	return tally_finish(&tally, "fleet_batch");
}
