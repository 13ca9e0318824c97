/* SPDX-License-Identifier: MIT */
#include "fleet_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_pause.h"
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
	fleet_replica_ready(f);
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
	if (strcmp(text, "paused") == 0)
		return FLEET_PAUSED;
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
		fleet_pause_saw(f, op, o);
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

/* The cleanup: claimed for the hour in tfd_cleanups, rows deleted in
 * batches (op->token counts them), then its row finished; each statement
 * after the claims (the chores). */
static void answer_keep(struct fleet *f, struct op *op, const pq_result *r)
{
	if (op->kind == OP_KEEP_CLAIM && f->pq.ntuples(r) > 0) {
		op->kind = OP_KEEP_DELETE;
		op->scheduled_ns = micros_value(f, r, 0);
		op->token = 0;
		fleet_queue_push(&f->chores, op);
		return;
	}
	if (op->kind == OP_KEEP_DELETE) {
		int64_t deleted = micros_value(f, r, 0) / 1000;

		op->token += (uint64_t)deleted;
		op->kind = deleted == FLEET_KEEP_BATCH_ROWS ? OP_KEEP_DELETE : OP_KEEP_END;
		fleet_queue_push(&f->chores, op);
		return;
	}
	fleet_op_free(op);
}

static void answer_ok(struct fleet *f, struct op *op, const pq_result *r)
{
	/* The setup, then the upgrade of an older table, then the name (which
	 * starts the replica, fleet_replica.c). */
	enum op_kind op_after_setup = op->kind == OP_SETUP ? OP_UPGRADE : OP_HOLD;

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
	case OP_KEEP_END:
		answer_keep(f, op, r);
		return;
	case OP_ATTEMPT:
	case OP_ENDS:
	case OP_REWRITE:
	case OP_ABANDON:
	case OP_CLAIM:
	case OP_END:
		break;
	case OP_HOLD:
	case OP_BEAT:
	case OP_RELEASE:
	case OP_JOBS:
	case OP_DIFFER:
		fleet_replica_answer(f, op, r);
		return;
	case OP_PAUSE:
	case OP_RESUME:
	case OP_VIEW:
		fleet_pause_answer(f, op, r);
		return;
	}
	fleet_op_free(op);
}

/* SQLSTATE classes that mean the table or schema is not what the setup
 * left (dropped, renamed): set up again on a new connection. Not a
 * privilege missing (42501, of the same class): a new connection would be
 * refused the same way, and report it again each time. */
static bool needs_setup(const char *state)
{
	return state && !fleet_refusal_lasts(state) &&
	       (strncmp(state, "42", 2) == 0 || strncmp(state, "3F", 2) == 0);
}

/* The statements before the replica is ready: one refused gives the
 * connection up. */
static bool setting_up(const struct op *op)
{
	return op->kind == OP_SETUP || op->kind == OP_UPGRADE || op->kind == OP_HOLD ||
	       op->kind == OP_START;
}

/* The server's reason on one line, without the statement's text: its
 * primary message, and what to do when retrying cannot mend it. */
static void error_line(const struct fleet *f, const struct op *op, const pq_result *r,
		       const char *state, char *out, size_t len)
{
	const char *primary = f->pq.result_error_field(r, PQ_DIAG_MESSAGE_PRIMARY);
	const char *hint = "";

	if (!primary)
		primary = f->pq.result_error_message(r);
	if (state && strcmp(state, "42501") == 0 && op->kind == OP_UPGRADE)
		hint = "";  /* the message gives the owner's statement */
	else if (state && strcmp(state, "42501") == 0)
		hint = op->kind == OP_SETUP
		     ? ": tfd creates what is missing of its tables, and this role may not create "
		       "it in the schema; have an administrator run the statements of tfd "
		       "--fleet-sql, and grant this role SELECT, INSERT, UPDATE and DELETE on them"
		     : ": the role of --fleet needs SELECT, INSERT, UPDATE and DELETE on tfd_runs, "
		       "tfd_replicas, tfd_jobs, tfd_cleanups and tfd_paused";
	else if (state && strcmp(state, "25006") == 0)
		hint = ": the database is read-only (default_transaction_read_only, or a standby); "
		       "--fleet needs one it can write to (target_session_attrs=read-write)";
	snprintf(out, len, "%s%s", primary ? primary : "unknown error", hint);
}

/* A statement failed while the connection stayed up: the statement's own
 * fault (a job name that is not valid in the database's encoding), or a
 * refusal that retrying cannot mend (read-only, no privilege), which is
 * reported once and misses the claims at once. It is given up, never
 * retried for ever. */
static void answer_error(struct fleet *f, struct op *op, const pq_result *r)
{
	const char *state = f->pq.result_error_field(r, PQ_DIAG_SQLSTATE);
	bool lasts = fleet_refusal_lasts(state);
	char msg[1024];

	error_line(f, op, r, state, msg, sizeof msg);
	if (setting_up(op) || needs_setup(state) || f->pq.status(f->conn) != PQ_CONNECTION_OK) {
		/* Until a setup goes through, claims wait for it, or are missed
		 * at once when the server refused it for good. */
		if (lasts && setting_up(op))
			fleet_refuse_claims(f);
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
		else if (op->kind == OP_ATTEMPT || op->kind == OP_ABANDON || op->kind == OP_BEAT ||
			 op->kind == OP_RELEASE || op->kind == OP_JOBS || op->kind == OP_DIFFER)
			fleet_queue_push_front(&f->writes, op);
		else
			fleet_op_free(op);  /* renewal, cleanup, rewrite: asked again */
		return;
	}
	if (!lasts || !f->refusal_reported)
		fleet_push_error(f, "postgresql", msg);
	f->refusal_reported = f->refusal_reported || lasts;
	/* A batch refused misses each of its elapses, at once. */
	if (op->kind == OP_CLAIMS)
		for (size_t i = 0; i < op->nitems; i++)
			fleet_push_outcome(f, op->items[i], FLEET_MISSED);
	if (op->kind == OP_RENEW)
		f->renew_at = now_mono() + f->cfg.lease_ns / 6;
	if (op->kind == OP_BEAT)
		f->beat_at = now_mono() + f->cfg.lease_ns / 6;
	fleet_pause_refused(f, op, msg);
	fleet_op_free(op);
}

void fleet_finish_statement(struct fleet *f)
{
	struct op *op = f->in_flight;
	pq_result *r = f->answer;
	int st = r ? f->pq.result_status(r) : -1;

	f->answer = NULL;
	if (r)
		fleet_check_backlog(f);  /* the server answers: is the queue behind? */
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
