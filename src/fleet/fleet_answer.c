/* SPDX-License-Identifier: MIT */
#include "fleet_answer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_policy.h"
#include "fleet_sql.h"

/* Values */

static int64_t number(const struct pq *pq, const pq_result *r, int field)
{
	if (pq->ntuples(r) < 1 || pq->nfields(r) <= field || pq->get_is_null(r, 0, field))
		return 0;
	return strtoll(pq->get_value(r, 0, field), NULL, 10);
}

/* The answers give instants as microseconds since the epoch. */
static int64_t micros_as_ns(const struct pq *pq, const pq_result *r, int field)
{
	return number(pq, r, field) * 1000;
}

/* Statements that went through */

static void read_start(const struct pq *pq, const pq_result *r, struct fleet_verdict *v)
{
	v->kind = FLEET_VERDICT_READY;
	fleet_format_instant(v->boundary, sizeof v->boundary, micros_as_ns(pq, r, 0));
	v->db_now_ns = micros_as_ns(pq, r, 1);
}

/* Each row answers one claim of the batch (fleet_answer_claim); now() is
 * in each, the first one's is read. */
static void read_claims(const struct pq *pq, const pq_result *r, struct fleet_verdict *v)
{
	v->kind = FLEET_VERDICT_CLAIMS;
	v->rows = pq->nfields(r) >= 4 ? pq->ntuples(r) : 0;
	if (v->rows > 0)
		v->db_now_ns = micros_as_ns(pq, r, 3);
}

/* The cleanup: claimed for the hour (a row: the hour, no row: another
 * replica's), then its rows deleted in batches until one is not full
 * (TOKEN counts them), then its row finished. */
static void read_keep(const struct pq *pq, const struct op *op, const pq_result *r,
		      const struct fleet_policy *p, struct fleet_verdict *v)
{
	int64_t deleted;

	if (p->reading == FLEET_READ_KEEP_CLAIM) {
		if (pq->ntuples(r) > 0)
			*v = (struct fleet_verdict){ .kind = FLEET_VERDICT_NEXT,
						     .next = p->next,
						     .scheduled_ns = micros_as_ns(pq, r, 0) };
		return;
	}
	deleted = number(pq, r, 0);
	*v = (struct fleet_verdict){ .kind = FLEET_VERDICT_NEXT,
				     .next = deleted == FLEET_KEEP_BATCH_ROWS ? op->kind : p->next,
				     .scheduled_ns = op->scheduled_ns,
				     .token = op->token + (uint64_t)deleted };
}

static void read_ok(const struct pq *pq, const struct op *op, const pq_result *r,
		    struct fleet_verdict *v)
{
	const struct fleet_policy *p = fleet_policy(op->kind);

	switch (p->reading) {
	case FLEET_READ_NOTHING:
		break;
	case FLEET_READ_NEXT:
		v->kind = FLEET_VERDICT_NEXT;
		v->next = p->next;
		break;
	case FLEET_READ_START:
		read_start(pq, r, v);
		break;
	case FLEET_READ_CLAIMS:
		read_claims(pq, r, v);
		break;
	case FLEET_READ_RENEW:
		v->kind = FLEET_VERDICT_RENEWED;
		v->db_now_ns = micros_as_ns(pq, r, FLEET_RENEW_NOW);
		break;
	case FLEET_READ_KEEP_CLAIM:
	case FLEET_READ_KEEP_DELETE:
		read_keep(pq, op, r, p, v);
		break;
	case FLEET_READ_REPLICA:
		v->kind = FLEET_VERDICT_REPLICA;
		break;
	case FLEET_READ_PAUSE:
		v->kind = FLEET_VERDICT_PAUSE;
		break;
	}
}

static enum fleet_outcome outcome_of(const char *text)
{
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

enum fleet_claim_row fleet_answer_claim(const struct pq *pq, const pq_result *r, int row,
					size_t nitems, size_t *item, enum fleet_outcome *o)
{
	long long n = strtoll(pq->get_value(r, row, 0), NULL, 10);
	const char *text = pq->get_value(r, row, 1);

	if (n < 1 || (size_t)n > nitems)
		return FLEET_ROW_NONE;
	*item = (size_t)n - 1;
	if (strcmp(text, "again") == 0)
		return FLEET_ROW_AGAIN;
	*o = outcome_of(text);
	return FLEET_ROW_ANSWERED;
}

bool fleet_answer_clock(int64_t db_ns, int64_t sent_real, int64_t got_real, int64_t *off,
			int64_t *half)
{
	*half = (got_real - sent_real) / 2;
	*off = sent_real + *half - db_ns;
	return db_ns != 0;
}

void fleet_clock_message(const char *replica, int64_t off, char *msg, size_t len)
{
	int64_t a = off < 0 ? -off : off;

	/* clang-format off */
	if (off > 0)
		snprintf(msg, len, "replica %.64s: its clock is %" PRId64 ".%03" PRId64 " s ahead of "
			 "the database's now(); it waits for the database's instant to claim each "
			 "elapse, so its runs start that much after its own clock's instant: set its "
			 "clock right (NTP)", replica, a / NSEC_PER_SEC, a % NSEC_PER_SEC / 1000000);
	else
		snprintf(msg, len, "replica %.64s: its clock is %" PRId64 ".%03" PRId64 " s behind "
			 "the database's now(); it claims each elapse that much late, after the other "
			 "replicas, or misses it past --fleet-deadline: set its clock right (NTP)",
			 replica, a / NSEC_PER_SEC, a % NSEC_PER_SEC / 1000000);
	/* clang-format on */
}

/* Errors */

/* SQLSTATEs that retrying cannot mend: read-only, no privilege, a
 * statement canceled (by the role's or the database's statement_timeout,
 * which cancels each of tfd's statements the same way again). */
static bool refusal_lasts(const char *sqlstate)
{
	return sqlstate && (strcmp(sqlstate, "25006") == 0 || strcmp(sqlstate, "42501") == 0 ||
			    strcmp(sqlstate, "57014") == 0);
}

/* SQLSTATE classes that mean the table or schema is not what the setup
 * left (dropped, renamed): set up again on a new connection. Not a
 * privilege missing (42501, of the same class): a new connection would be
 * refused the same way, and report it again each time. */
static bool needs_setup(const char *state)
{
	return state && !refusal_lasts(state) &&
	       (strncmp(state, "42", 2) == 0 || strncmp(state, "3F", 2) == 0);
}

/* The server's reason on one line, without the statement's text: its
 * primary message, and what to do when retrying cannot mend it. */
static void error_line(const struct pq *pq, const struct op *op, const pq_result *r,
		       const char *state, char *out, size_t len)
{
	const char *primary = pq->result_error_field(r, PQ_DIAG_MESSAGE_PRIMARY);
	const char *hint = "";

	if (!primary)
		primary = pq->result_error_message(r);
	if (state && strcmp(state, "42501") == 0 && op->kind == OP_UPGRADE)
		hint = ""; /* the message gives the owner's statement */
	/* clang-format off */
	else if (state && strcmp(state, "42501") == 0)
		hint = op->kind == OP_SETUP
		     ? ": tfd creates what is missing of its tables, and this role may not create "
		       "it in the schema; have an administrator run the statements of tfd "
		       "--fleet-sql, and grant this role SELECT, INSERT, UPDATE and DELETE on them"
		     : ": the role of --fleet needs SELECT, INSERT, UPDATE and DELETE on tfd_runs, "
		       "tfd_replicas, tfd_jobs, tfd_cleanups and tfd_paused";
	/* clang-format on */
	else if (state && strcmp(state, "25006") == 0)
		hint = ": the database is read-only (default_transaction_read_only, or a standby); "
		       "--fleet needs one it can write to (target_session_attrs=read-write)";
	else if (state && strcmp(state, "57014") == 0)
		hint = ": the server canceled tfd's statement (statement_timeout of the role of "
		       "--fleet or of its database, or an administrator); give that role a longer "
		       "statement_timeout, or none (ALTER ROLE name SET statement_timeout = 0): "
		       "until a statement goes through, every elapse is missed";
	snprintf(out, len, "%s%s", primary ? primary : "unknown error", hint);
}

/* The server ends the session with this error (FATAL: an administrator's
 * pg_terminate_backend, a shutdown): in the pipeline its statement's
 * results end before libpq has read that the connection closed, so the
 * connection may still look up. */
static bool ends_session(const struct pq *pq, const pq_result *r)
{
	const char *severity = pq->result_error_field(r, PQ_DIAG_SEVERITY);

	return severity && (strcmp(severity, "FATAL") == 0 || strcmp(severity, "PANIC") == 0);
}

/* A statement failed. The connection is given up when it is down or
 * going down, when the table is not what the setup left, or while
 * setting up (until a setup goes through, claims wait for it, or are
 * missed at once when the server refused it for good). Otherwise it is
 * the statement's own fault
 * (a job name that is not valid in the database's encoding), a refusal
 * that retrying cannot mend (read-only, no privilege), or a deadlock or
 * serialization failure (a renewal and another replica's sweep crossing
 * on a cut-off replica's rows) that rolled it back. */
static void read_error(const struct pq *pq, const struct op *op, const pq_result *r, bool conn_ok,
		       struct fleet_verdict *v)
{
	const char *state = pq->result_error_field(r, PQ_DIAG_SQLSTATE);
	bool setting_up = fleet_policy(op->kind)->refused == FLEET_REFUSED_RECONNECT;

	v->lasts = refusal_lasts(state);
	error_line(pq, op, r, state, v->message, sizeof v->message);
	if (setting_up || needs_setup(state) || !conn_ok || ends_session(pq, r)) {
		v->kind = FLEET_VERDICT_LOST;
		v->refuse_claims = v->lasts && setting_up;
	} else if (state && strncmp(state, "40", 2) == 0) {
		v->kind = FLEET_VERDICT_ROLLED_BACK;
	} else {
		v->kind = FLEET_VERDICT_REFUSED;
	}
}

/* A statement aborted in the pipeline was not run (an earlier statement
 * of its transaction failed): as a rollback, sent again as its row says;
 * while setting up, the connection is given up, as for any error then. */
static void read_aborted(const struct op *op, struct fleet_verdict *v)
{
	bool setting_up = fleet_policy(op->kind)->refused == FLEET_REFUSED_RECONNECT;

	v->kind = setting_up ? FLEET_VERDICT_LOST : FLEET_VERDICT_ROLLED_BACK;
	snprintf(v->message, sizeof v->message, "the statement was aborted in the pipeline");
}

void fleet_answer_read(const struct pq *pq, const struct op *op, const pq_result *r, bool conn_ok,
		       struct fleet_verdict *v)
{
	int st = r ? pq->result_status(r) : -1;

	*v = (struct fleet_verdict){ .kind = FLEET_VERDICT_DONE };
	if (!r) {
		v->kind = FLEET_VERDICT_LOST;
		snprintf(v->message, sizeof v->message, "the server sent no result");
	} else if (st == PQ_COMMAND_OK || st == PQ_TUPLES_OK) {
		read_ok(pq, op, r, v);
	} else if (st == PQ_RESULT_ABORTED) {
		read_aborted(op, v);
	} else {
		read_error(pq, op, r, conn_ok, v);
	}
}
