/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_pipe: the statements in flight answered in the
 * order they were sent, each by its result(s), NULL and its sync, as
 * libpq's pipeline mode gives them; an error's statement answered like
 * any other (its sync ends its abort); what does not fit the order is
 * said, never taken as another statement's answer; and the statements
 * taken back, newest first, when the connection is lost. No database:
 * tests/bats/76-fleet-client.bats runs the pipeline against PostgreSQL. */
#include "fleet_pipe.h"
#include "harness.h"
#include "pq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpq's NULL between two statements' results. */
#define END (-1)
/* PGRES_FATAL_ERROR, not in pq.h: nothing else reads it by number. */
#define FATAL 7

static struct op *op_of(enum op_kind kind, const char *job)
{
	struct op *op = fleet_op_new(kind, job, 0);

	if (!op) {
		fprintf(stderr, "test_fleet_pipe: out of memory\n");
		exit(1);
	}
	return op;
}

/* Reads STATUS; checks it is WANT (and, answered, that it was JOB's,
 * which is then taken out). */
static void read_is(struct fleet_pipe *p, int status, enum fleet_pipe_read want, const char *job)
{
	enum fleet_pipe_read got = fleet_pipe_read(p, status);
	struct op *op;

	check(got == want, "status %d read as %d, not %d", status, got, want);
	if (want != FLEET_PIPE_ANSWERED || got != want)
		return;
	op = fleet_pipe_oldest(p);
	check(op && strcmp(op->job, job) == 0, "answered %s, not %s", op ? op->job : "nothing",
	      job);
	check(fleet_pipe_take_answered(p) == op, "the answered one taken out");
	fleet_op_free(op);
}

static void test_in_order(void)
{
	struct fleet_pipe p = { 0 };

	check(!fleet_pipe_awaits(&p), "an empty pipe awaits nothing (an idle PQgetResult is NULL)");
	fleet_pipe_sent(&p, op_of(OP_ENDS, "ends"));
	fleet_pipe_sent(&p, op_of(OP_CLAIMS, "claims"));
	fleet_pipe_sent(&p, op_of(OP_RENEW, "renew"));
	check(fleet_pipe_awaits(&p) && strcmp(fleet_pipe_oldest(&p)->job, "ends") == 0,
	      "the oldest first");
	read_is(&p, PQ_COMMAND_OK, FLEET_PIPE_RESULT, NULL);
	read_is(&p, END, FLEET_PIPE_ANSWERED, "ends");
	check(fleet_pipe_awaits(&p) && strcmp(fleet_pipe_oldest(&p)->job, "claims") == 0,
	      "its sync still awaited");
	read_is(&p, PQ_RESULT_SYNC, FLEET_PIPE_SYNCED, NULL);
	/* An error is its statement's answer; its sync ends the abort, and
	 * the next statement is answered as any other. */
	read_is(&p, FATAL, FLEET_PIPE_RESULT, NULL);
	read_is(&p, END, FLEET_PIPE_ANSWERED, "claims");
	read_is(&p, PQ_RESULT_SYNC, FLEET_PIPE_SYNCED, NULL);
	read_is(&p, PQ_TUPLES_OK, FLEET_PIPE_RESULT, NULL);
	read_is(&p, PQ_TUPLES_OK, FLEET_PIPE_RESULT, NULL);
	read_is(&p, END, FLEET_PIPE_ANSWERED, "renew");
	check(fleet_pipe_awaits(&p), "the last sync awaited");
	read_is(&p, PQ_RESULT_SYNC, FLEET_PIPE_SYNCED, NULL);
	check(!fleet_pipe_awaits(&p) && !fleet_pipe_oldest(&p), "all answered");
}

static void test_aborted(void)
{
	struct fleet_pipe p = { 0 };

	/* Aborted: not run, but answered, as a result of its own. */
	fleet_pipe_sent(&p, op_of(OP_ENDS, "a"));
	read_is(&p, PQ_RESULT_ABORTED, FLEET_PIPE_RESULT, NULL);
	read_is(&p, END, FLEET_PIPE_ANSWERED, "a");
	read_is(&p, PQ_RESULT_SYNC, FLEET_PIPE_SYNCED, NULL);
}

static void test_confused(void)
{
	struct fleet_pipe p = { 0 };
	struct op *back;

	read_is(&p, PQ_TUPLES_OK, FLEET_PIPE_CONFUSED, NULL);
	read_is(&p, END, FLEET_PIPE_CONFUSED, NULL);
	fleet_pipe_sent(&p, op_of(OP_CLAIMS, "c"));
	read_is(&p, PQ_RESULT_SYNC, FLEET_PIPE_CONFUSED, NULL);
	read_is(&p, END, FLEET_PIPE_ANSWERED, "c");
	read_is(&p, PQ_TUPLES_OK, FLEET_PIPE_CONFUSED, NULL);
	back = fleet_pipe_take_back(&p);
	check(!back && !fleet_pipe_awaits(&p), "taken back: a sync awaited no more");
}

static void test_take_back(void)
{
	struct fleet_pipe p = { 0 };
	struct op *op, *next;
	const char *want[] = { "c", "b", "a" };
	size_t n = 0;

	fleet_pipe_sent(&p, op_of(OP_ENDS, "z"));
	read_is(&p, END, FLEET_PIPE_ANSWERED, "z");
	read_is(&p, PQ_RESULT_SYNC, FLEET_PIPE_SYNCED, NULL);
	/* "a" answered with a lost connection (a FATAL error): taken back
	 * with the others, the oldest. */
	fleet_pipe_sent(&p, op_of(OP_ENDS, "a"));
	fleet_pipe_sent(&p, op_of(OP_CLAIMS, "b"));
	fleet_pipe_sent(&p, op_of(OP_RENEW, "c"));
	check(fleet_pipe_read(&p, END) == FLEET_PIPE_ANSWERED, "a answered");
	check(fleet_pipe_read(&p, PQ_RESULT_SYNC) == FLEET_PIPE_CONFUSED,
	      "nothing read before the answered one is taken out");
	for (op = fleet_pipe_take_back(&p); op; op = next, n++) {
		next = op->next;
		check(n < 3 && strcmp(op->job, want[n]) == 0, "newest first: %s", op->job);
		fleet_op_free(op);
	}
	check(n == 3, "three taken back, got %zu", n);
	check(!fleet_pipe_awaits(&p) && !fleet_pipe_take_answered(&p),
	      "a new connection's pipe: nothing awaited, not even a sync");
	fleet_pipe_sent(&p, op_of(OP_SETUP, "s"));
	read_is(&p, PQ_COMMAND_OK, FLEET_PIPE_RESULT, NULL);
	read_is(&p, END, FLEET_PIPE_ANSWERED, "s");
	read_is(&p, PQ_RESULT_SYNC, FLEET_PIPE_SYNCED, NULL);
}

int main(void)
{
	test_in_order();
	test_aborted();
	test_confused();
	test_take_back();
	return tally_finish(&tally, "fleet_pipe");
}
