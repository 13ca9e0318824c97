#include "fleet_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_sql.h"

/* Answers */

static int64_t micros_value(const struct fleet *f, const pq_result *r, int field)
{
	if (f->pq.ntuples(r) < 1 || f->pq.nfields(r) <= field || f->pq.get_is_null(r, 0, field))
		return 0;
	return strtoll(f->pq.get_value(r, 0, field), NULL, 10) * 1000;
}

/* The database's now() against this replica's clock, at the middle of the
 * statement's round trip; more than CLOCK_SLACK_NS apart is said once. */
static void check_clock(struct fleet *f, int64_t db_ns)
{
	int64_t got = now_real(), mid = f->sent_real + (got - f->sent_real) / 2;
	int64_t off = mid - db_ns, slack = CLOCK_SLACK_NS + (got - f->sent_real) / 2;
	char msg[320];

	if (db_ns == 0 || f->clock_warned || (off <= slack && -off <= slack))
		return;
	f->clock_warned = true;
	snprintf(msg, sizeof msg, "replica %.64s: its clock is %" PRId64 ".%03" PRId64 " s %s the "
		 "database's now(); it claims elapses at its own instants, so it runs them %s",
		 f->replica, (off < 0 ? -off : off) / NSEC_PER_SEC,
		 (off < 0 ? -off : off) % NSEC_PER_SEC / 1000000, off > 0 ? "ahead of" : "behind",
		 off > 0 ? "early" : "late or not at all");
	fleet_push_error(f, "clock", msg);
}

static void become_ready(struct fleet *f, const pq_result *r)
{
	char text[64];

	if (!f->boundary) {
		fleet_format_instant(text, sizeof text, micros_value(f, r, 0));
		if (!(f->boundary = strdup(text))) {
			fleet_lose_connection(f, "out of memory");
			return;
		}
	}
	check_clock(f, micros_value(f, r, 1));
	f->link = LINK_READY;
	f->backoff_ns = BACKOFF_FIRST_NS;
	f->outage_reported = false;
	/* Renewed at once: leases ran on while the connection was down. The
	 * cleanup waits a renewal period: a replica that starts has elapses
	 * to claim first. */
	f->renew_at = now_mono();
	if (f->keep_at == 0)
		f->keep_at = f->renew_at + f->cfg.lease_ns / 6;
	fleet_events_push(&f->events, &(struct fleet_event){ .kind = FLEET_EVENT_CONNECTED }, NULL, NULL);
}

static enum fleet_outcome outcome_of(const char *text, bool *again)
{
	*again = strcmp(text, "again") == 0;
	if (strcmp(text, "won") == 0)
		return FLEET_WON;
	if (strcmp(text, "elsewhere") == 0)
		return FLEET_ELSEWHERE;
	if (strcmp(text, "skipped") == 0)
		return FLEET_SKIPPED;
	return FLEET_MISSED;
}

/* Each elapse of the batch as its row says; the ones to ask again go back
 * to the front of the queue in their order, to be the next statement's
 * (which sees what this one could not). An elapse the answer does not
 * name is asked again too. */
static void answer_claims(struct fleet *f, struct op *batch, const pq_result *r)
{
	int rows = f->pq.ntuples(r);

	if (rows > 0 && f->pq.nfields(r) >= 4)
		check_clock(f, micros_value(f, r, 3));
	for (int row = 0; row < rows && f->pq.nfields(r) >= 4; row++) {
		long long n = strtoll(f->pq.get_value(r, row, 0), NULL, 10);
		struct op *op;
		enum fleet_outcome o;
		bool again;

		if (n < 1 || (size_t)n > batch->nitems || !(op = batch->items[n - 1]))
			continue;
		o = outcome_of(f->pq.get_value(r, row, 1), &again);
		if (again) {
			op->again = true;
			continue;
		}
		if (o == FLEET_WON)
			fleet_win_add(f, op);
		fleet_push_outcome(f, op, o);
		fleet_op_free(op);
		batch->items[n - 1] = NULL;
	}
	for (size_t i = batch->nitems; i > 0; i--)
		if (batch->items[i - 1]) {
			batch->items[i - 1]->again = true;
			fleet_queue_push_front(&f->claims, batch->items[i - 1]);
			batch->items[i - 1] = NULL;
		}
	fleet_op_free(batch);
}

static void queue_keep_end(struct fleet *f, int64_t hour_ns)
{
	struct op *op = fleet_op_new(OP_END, FLEET_KEEP_JOB, hour_ns);

	if (!op)
		return;
	op->end = (struct fleet_end){ .exit_status = 0, .attempts = 1, .finished_ns = now_real() };
	op->state = "succeeded";
	fleet_queue_push(&f->writes, op);
}

static void answer_keep(struct fleet *f, struct op *op, const pq_result *r)
{
	if (op->kind == OP_KEEP_CLAIM && f->pq.ntuples(r) > 0) {
		op->kind = OP_KEEP_DELETE;
		op->scheduled_ns = micros_value(f, r, 0);
		fleet_queue_push(&f->chores, op);
		return;
	}
	if (op->kind == OP_KEEP_DELETE && micros_value(f, r, 0) == FLEET_KEEP_BATCH_ROWS * 1000) {
		fleet_queue_push(&f->chores, op);
		return;
	}
	if (op->kind == OP_KEEP_DELETE)
		queue_keep_end(f, op->scheduled_ns);
	fleet_op_free(op);
}

static void answer_ok(struct fleet *f, struct op *op, const pq_result *r)
{
	enum op_kind op_after_setup = op->kind == OP_SETUP ? OP_UPGRADE : OP_START;

	switch (op->kind) {
	case OP_SETUP:
	case OP_UPGRADE:
		fleet_op_free(op);
		if ((op = fleet_op_new(op_after_setup, NULL, 0)))
			fleet_send(f, op);
		else
			fleet_lose_connection(f, "out of memory");
		return;
	case OP_START:
		fleet_op_free(op);
		become_ready(f, r);
		return;
	case OP_CLAIMS:
		answer_claims(f, op, r);
		return;
	case OP_RENEW:
		check_clock(f, micros_value(f, r, 2));
		f->renew_at = now_mono() + f->cfg.lease_ns / 6;
		break;
	case OP_KEEP_CLAIM:
	case OP_KEEP_DELETE:
		answer_keep(f, op, r);
		return;
	case OP_ATTEMPT:
	case OP_ENDS:
	case OP_REWRITE:
	case OP_ABANDON:
	case OP_CLAIM:
	case OP_END:
		break;
	}
	fleet_op_free(op);
}

/* SQLSTATE classes that mean the table or schema is not what the setup
 * left (dropped, renamed): set up again on a new connection. */
static bool needs_setup(const char *state)
{
	return state && (strncmp(state, "42", 2) == 0 || strncmp(state, "3F", 2) == 0);
}

/* A statement failed while the connection stayed up: the statement's own
 * fault (a job name that is not valid in the database's encoding). It is
 * reported and given up, never retried for ever. */
static void answer_error(struct fleet *f, struct op *op, const pq_result *r)
{
	const char *msg = f->pq.result_error_message(r);
	const char *state = f->pq.result_error_field(r, PQ_DIAG_SQLSTATE);

	if (op->kind == OP_SETUP || op->kind == OP_UPGRADE || op->kind == OP_START ||
	    needs_setup(state) ||
	    f->pq.status(f->conn) != PQ_CONNECTION_OK) {
		fleet_lose_connection(f, msg);
		return;
	}
	f->in_flight = NULL;
	/* A deadlock or serialization failure (a renewal and another
	 * replica's sweep crossing on a cut-off replica's rows) rolled the
	 * statement back: it is asked again. */
	if (state && strncmp(state, "40", 2) == 0) {
		if (op->kind == OP_RENEW)
			f->renew_at = now_mono();
		if (op->kind == OP_REWRITE)
			f->rewrite_due = true;
		if (op->kind == OP_CLAIMS)
			fleet_batch_requeue(&f->claims, op);
		else if (op->kind == OP_ENDS)
			fleet_batch_requeue(&f->writes, op);
		else if (op->kind == OP_ATTEMPT || op->kind == OP_ABANDON)
			fleet_queue_push_front(&f->writes, op);
		else
			fleet_op_free(op);  /* renewal, cleanup, rewrite: asked again */
		return;
	}
	fleet_push_error(f, "postgresql", msg);
	if (op->kind == OP_CLAIMS)
		for (size_t i = 0; i < op->nitems; i++)
			fleet_push_outcome(f, op->items[i], FLEET_MISSED);
	if (op->kind == OP_RENEW)
		f->renew_at = now_mono() + f->cfg.lease_ns / 6;
	fleet_op_free(op);
}

void fleet_finish_statement(struct fleet *f)
{
	struct op *op = f->in_flight;
	pq_result *r = f->answer;
	int st = r ? f->pq.result_status(r) : -1;

	f->answer = NULL;
	if (!r) {
		fleet_lose_connection(f, "the server sent no result");
	} else if (st == PQ_COMMAND_OK || st == PQ_TUPLES_OK) {
		f->in_flight = NULL;
		answer_ok(f, op, r);
	} else {
		answer_error(f, op, r);
	}
	if (r)
		f->pq.clear(r);
}
