/* SPDX-License-Identifier: MIT */
#include "fleet.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fleet_answer.h"
#include "fleet_int.h"
#include "fleet_statement.h"

/* Decisions (see also FLEET in tfd(1)):
 * - The key is (job, scheduled instant): replicas whose clocks or wake-ups
 *   differ still collide on it, which a lock on the job's name alone
 *   cannot promise (a fast run ends before a late replica asks).
 * - At most once: a claim whose lease ran out is marked abandoned and never
 *   run again. Recovering it would run it twice whenever the "dead"
 *   replica was only slow or cut off.
 * - Leases are renewed (every lease/6, one statement for all of a
 *   replica's runs), so a run may last longer than the lease; the lease
 *   only says how soon a dead replica's claims are given up. Every time
 *   that matters is the database's now().
 * - Fleet-wide --overlap skip is a partial unique index: one running row
 *   of a job whose runs must not overlap, so two replicas can never both
 *   start one, whatever the timing. Such rows are written with timed_out
 *   false while they run (it has not timed out yet), --overlap parallel
 *   rows with timed_out null, which the index does not cover; every row
 *   gets its real value when the run ends. The table keeps the columns the
 *   contract names and no others.
 * - An elapse is claimed late (the database was unreachable) only within
 *   the deadline, and never run unclaimed.
 * - Statements go out in libpq's pipeline mode, each with a sync of its
 *   own (fleet_pipe.h), rather than one at a time: the server never
 *   waits for a loop busy forking, a slow link costs one round trip, not
 *   one a statement, and each statement stays a transaction of its own
 *   (its error, rollback and locks are its own, as before). What waits is
 *   sent in the order of the queues (fleet_policy.h), which is the order
 *   the server runs them in; only new claims short of a full statement,
 *   outside a storm, wait client-side for the one before (claims_wait),
 *   so that a slow server gets larger statements instead of a longer
 *   pipeline. */

/* Life */

struct fleet *fleet_new(const struct fleet_config *c, int *status, char *err, size_t errlen)
{
	struct fleet *f = calloc(1, sizeof *f);

	*status = 1;
	if (!f || !(f->replica = strdup(c->replica))) {
		free(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->cfg = *c;
	f->cfg.replica = f->replica;
	f->cfg.conninfo = NULL;
	if (pq_load(&f->pq, err, errlen) != 0) {
#ifdef TFD_NO_FLEET
		*status = 2;
#endif
		fleet_free(f);
		return NULL;
	}
	if ((*status = fleet_params_parse(&f->params, &f->pq, c->conninfo, err, errlen)) != 0) {
		fleet_free(f);
		return NULL;
	}
	f->backoff_ns = BACKOFF_FIRST_NS;
	if (fleet__replica_init(f) != 0 || fleet__wins_init(f) != 0) {
		*status = 1;
		snprintf(err, errlen, "out of memory");
		fleet_free(f);
		return NULL;
	}
	return f;
}

static void drop_connection(struct fleet *f)
{
	if (f->answer) {
		f->pq.clear(f->answer);
		f->answer = NULL;
	}
	if (f->conn) {
		f->pq.finish(f->conn);
		f->conn = NULL;
	}
}

void fleet_free(struct fleet *f)
{
	struct op *op, *next;

	if (!f)
		return;
	if (f->pq.handle)
		drop_connection(f);
	for (op = fleet_pipe_take_back(&f->pipe); op; op = next) {
		next = op->next;
		fleet_op_free(op);
	}
	fleet_queue_free(&f->runs);
	fleet_queue_free(&f->claims);
	fleet_queue_free(&f->writes);
	fleet_queue_free(&f->chores);
	fleet__wins_free(f);
	fleet__pause_free(f);
	fleet_events_clear(&f->events);
	fleet_params_free(&f->params);
	fleet__replica_free(f);
	free(f->boundary);
	free(f->replica);
	pq_unload(&f->pq);
	free(f);
}

/* Queues and timers, as the policy table names them */

/* T is due at once (AT_ONCE), or at its next period. */
static void timer_due(struct fleet *f, enum fleet_timer t, bool at_once)
{
	int64_t now = fleet__now_mono(), period = f->cfg.lease_ns / 6;

	switch (t) {
	case FLEET_TIMER_RENEW:
		f->renew_at = at_once ? now : now + period;
		break;
	case FLEET_TIMER_BEAT:
		fleet__replica_beat_at(f, at_once ? now : now + period);
		break;
	case FLEET_TIMER_REWRITE:
		f->rewrite_due = true;
		break;
	case FLEET_TIMER_KEEP:
		f->keep_at = at_once ? now : now + KEEP_EVERY_NS;
		break;
	case FLEET_TIMER_NONE:
		break;
	}
}

/* OP's statement did not go through; AGAIN, its row's word for how,
 * says whether it is sent again. */
static void send_again(struct fleet *f, struct op *op, enum fleet_again again)
{
	const struct fleet_policy *p = fleet_policy(op->kind);
	struct queue *q = fleet__queue_of(f, p->queue);

	if (again == FLEET_AGAIN_RESENT)
		for (size_t i = 0; i < op->nitems; i++)
			op->items[i]->resent = true;
	if ((again == FLEET_AGAIN_REQUEUE || again == FLEET_AGAIN_RESENT) && q) {
		if (p->batch)
			fleet_batch_requeue(q, op);
		else
			fleet_queue_push_front(q, op);
		return;
	}
	if (again == FLEET_AGAIN_DUE)
		timer_due(f, p->timer, true);
	fleet_op_free(op);
}

/* The outage: the connection is given up; every statement in flight goes
 * back to the front of its queue, in the order it was sent, or is
 * dropped, as its row's "lost" says (the server may have carried out any
 * of them: those sent again read what they may have written); the next
 * try comes after a backoff. One report per outage. */
static void lose_connection(struct fleet *f, const char *why)
{
	struct op *op, *next;
	bool was_ready = f->link == LINK_READY;

	/* WHY may be libpq's, freed with the connection. */
	fleet__link_lost(f, why);
	drop_connection(f);
	/* Newest first: each goes to the front of its queue. */
	for (op = fleet_pipe_take_back(&f->pipe); op; op = next) {
		next = op->next;
		send_again(f, op, fleet_policy(op->kind)->lost);
	}
	/* The next connection may reach a promoted standby that lost them. */
	f->rewrite_due = f->boundary != NULL;
	f->link = LINK_WAIT;
	f->retry_at = fleet__now_mono() + f->backoff_ns;
	f->backoff_ns = f->backoff_ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : f->backoff_ns * 2;
	f->outage_reported = true;
	if (was_ready)
		fleet_events_push(&f->events,
				  &(struct fleet_event){ .kind = FLEET_EVENT_DISCONNECTED }, NULL,
				  NULL);
}

static void lose_connection_pq(struct fleet *f)
{
	lose_connection(f, f->conn ? f->pq.error_message(f->conn) : "connection lost");
}

/* libpq's notices ("relation already exists, skipping") would go to
 * stderr; tfd's stderr carries only its own warnings and errors. */
static void ignore_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static void begin_connecting(struct fleet *f)
{
	f->conn = f->pq.connect_start_params((const char *const *)f->params.keywords,
					     (const char *const *)f->params.values, 0);
	f->link = LINK_CONNECTING;
	f->want_write = true; /* libpq: before the first PQconnectPoll, wait to write */
	f->waited_from = fleet__now_mono();
	if (!f->conn) {
		lose_connection(f, "out of memory");
		return;
	}
	f->pq.set_notice_processor(f->conn, ignore_notice, NULL);
	if (f->pq.status(f->conn) == PQ_CONNECTION_BAD)
		lose_connection_pq(f);
}

void fleet_start(struct fleet *f)
{
	if (f->link == LINK_IDLE)
		begin_connecting(f);
}

/* Statements */

/* OP's SQL and its parameters into P, written by the file its row of
 * the policy table names; NULL when memory ran out. */
static const char *statement_of(struct fleet *f, const struct op *op, struct fleet_statement *p)
{
	switch (fleet_policy(op->kind)->statement) {
	case FLEET_SQL_OP:
		return fleet_statement_of(&f->cfg, f->boundary, op, p);
	case FLEET_SQL_WINS:
		return fleet__wins_statement(f, op, p);
	case FLEET_SQL_REPLICA:
		return fleet__replica_statement(f, op, p);
	case FLEET_SQL_PAUSE:
		return fleet__pause_statement(f, op, p);
	case FLEET_SQL_NONE:
		break; /* an item of a batch: never sent alone */
	}
	return NULL;
}

/* OP goes out into the pipeline, with a sync of its own: a transaction
 * of its own, whose error aborts nothing else (fleet_pipe.h). */
static void send_op(struct fleet *f, struct op *op)
{
	struct fleet_statement p = { .n = 0 };
	const char *sql = statement_of(f, op, &p);
	int flushed, sent;

	/* The answer timeout runs from the last answer while any is owed. */
	if (!fleet_pipe_awaits(&f->pipe))
		f->waited_from = fleet__now_mono();
	op->sent_real = fleet__now_real();
	fleet_pipe_sent(&f->pipe, op);
	if (!sql) {
		fleet_statement_free(&p);
		lose_connection(f, "out of memory");
		return;
	}
	/* libpq copies the parameters into its output buffer; the sync
	 * pushes what is buffered towards the server. */
	sent = f->pq.send_query_params(f->conn, sql, p.n, NULL, p.v, NULL, NULL, 0) &&
	       f->pq.pipeline_sync(f->conn);
	fleet_statement_free(&p);
	if (!sent) {
		lose_connection_pq(f);
		return;
	}
	flushed = f->pq.flush(f->conn);
	if (flushed < 0)
		lose_connection_pq(f);
	else
		f->want_write = flushed == 1;
}

/* Answers: fleet_answer.c says what each means, and it is done here */

static void become_ready(struct fleet *f, const struct fleet_verdict *v)
{
	if (!f->boundary && !(f->boundary = strdup(v->boundary))) {
		lose_connection(f, "out of memory");
		return;
	}
	fleet__wins_clock(f, v->db_now_ns);
	f->link = LINK_READY;
	f->backoff_ns = BACKOFF_FIRST_NS;
	f->outage_reported = false;
	fleet__wins_connected(f);
	fleet__replica_ready(f);
	/* Renewed at once: leases ran on while the connection was down. The
	 * cleanup waits a renewal period: a replica that starts has elapses
	 * to claim first. */
	timer_due(f, FLEET_TIMER_RENEW, true);
	if (f->keep_at == 0)
		f->keep_at = f->renew_at + f->cfg.lease_ns / 6;
	fleet_events_push(&f->events, &(struct fleet_event){ .kind = FLEET_EVENT_CONNECTED }, NULL,
			  NULL);
}

/* Each elapse of the batch as its row says; the ones to ask again go back
 * to the front of their queue in their order, to be the next statement's
 * (which sees what this one could not). An elapse the answer does not
 * name is asked again too. */
static void answer_claims(struct fleet *f, struct op *batch, const pq_result *r, int rows)
{
	struct queue *q = fleet__queue_of(f, fleet_policy(batch->kind)->queue);

	for (int row = 0; row < rows; row++) {
		enum fleet_outcome o = FLEET_MISSED;
		size_t i = 0;
		enum fleet_claim_row what = fleet_answer_claim(&f->pq, r, row, batch->nitems, &i,
							       &o);
		struct op *op = what == FLEET_ROW_NONE ? NULL : batch->items[i];

		if (!op)
			continue; /* no claim of the batch, or one answered before */
		if (what == FLEET_ROW_AGAIN) {
			op->again = true;
			continue;
		}
		if (o == FLEET_WON)
			fleet__win_add(f, op);
		fleet__pause_saw(f, op, o);
		fleet__push_outcome(f, op, o);
		fleet_op_free(op);
		batch->items[i] = NULL;
	}
	for (size_t i = batch->nitems; i > 0; i--)
		if (batch->items[i - 1]) {
			batch->items[i - 1]->again = true;
			fleet_queue_push_front(q, batch->items[i - 1]);
			batch->items[i - 1] = NULL;
		}
	fleet_op_free(batch);
}

/* Reported (a refusal that lasts once a connection), then given up as
 * its row's "refused" says: never retried for ever. */
static void answer_refused(struct fleet *f, struct op *op, const struct fleet_verdict *v)
{
	const struct fleet_policy *p = fleet_policy(op->kind);

	if (!v->lasts || !f->refusal_reported)
		fleet__push_error(f, "postgresql", v->message);
	f->refusal_reported = f->refusal_reported || v->lasts;
	if (p->refused == FLEET_REFUSED_MISS)
		for (size_t i = 0; i < op->nitems; i++)
			fleet__push_outcome(f, op->items[i], FLEET_MISSED);
	else if (p->refused == FLEET_REFUSED_LATER)
		timer_due(f, p->timer, false);
	fleet__pause_refused(f, op, v->message);
	fleet_op_free(op);
}

/* The next step of OP (the setup's, the cleanup's) is sent at once, or
 * waits in its queue, as its row says. */
static void follow(struct fleet *f, struct op *op, const struct fleet_verdict *v)
{
	struct queue *q;

	op->kind = v->next;
	op->scheduled_ns = v->scheduled_ns;
	op->token = v->token;
	if ((q = fleet__queue_of(f, fleet_policy(op->kind)->queue)))
		fleet_queue_push(q, op);
	else
		send_op(f, op);
}

/* A sub-module's step (fleet_int.h) returned RC and, maybe, the
 * statement NEXT to send at once. The step is called first, apart: it
 * sets NEXT, and a call's arguments are evaluated in no set order. */
static void send_step(struct fleet *f, int rc, struct op *next)
{
	if (rc < 0)
		lose_connection(f, "out of memory");
	else if (next)
		send_op(f, next);
}

/* What the verdict V on OP, the statement in flight answered by R, says
 * to do. */
static void carry_out(struct fleet *f, struct op *op, const pq_result *r,
		      const struct fleet_verdict *v)
{
	struct op *next;
	int rc;

	if (v->kind == FLEET_VERDICT_LOST) {
		if (v->refuse_claims)
			fleet__refuse_claims(f);
		lose_connection(f, v->message); /* OP among the others */
		return;
	}
	switch (v->kind) {
	case FLEET_VERDICT_NEXT:
		follow(f, op, v);
		return;
	case FLEET_VERDICT_READY:
		fleet_op_free(op);
		fleet__wins_started(f, r);
		become_ready(f, v);
		return;
	case FLEET_VERDICT_CLAIMS:
		fleet__wins_clock(f, v->db_now_ns);
		answer_claims(f, op, r, v->rows);
		return;
	case FLEET_VERDICT_RENEWED:
		fleet__wins_clock(f, v->db_now_ns);
		/* A stopping replica may release more rows than one renewal
		 * takes: the rest are taken at once, not a period later, when
		 * their deadline may have passed. */
		timer_due(f, fleet_policy(op->kind)->timer, fleet__wins_renewed(f, r));
		break;
	case FLEET_VERDICT_REPLICA:
		rc = fleet__replica_answer(f, op, r, &next);
		send_step(f, rc, next);
		return;
	case FLEET_VERDICT_PAUSE:
		fleet__pause_answer(f, op, r);
		return;
	case FLEET_VERDICT_ROLLED_BACK:
		send_again(f, op, fleet_policy(op->kind)->rolled_back);
		return;
	case FLEET_VERDICT_REFUSED:
		answer_refused(f, op, v);
		return;
	case FLEET_VERDICT_DONE:
	case FLEET_VERDICT_LOST:
		break;
	}
	fleet_op_free(op);
}

/* The oldest statement in flight is done (libpq has no more results for
 * it): its answer is read and the verdict carried out. It is taken out
 * of the pipe first, unless the connection is to be given up: then it
 * goes back to its queue with the others, the first of them. */
static void finish_statement(struct fleet *f)
{
	struct op *op = fleet_pipe_oldest(&f->pipe);
	pq_result *r = f->answer;
	struct fleet_verdict v;

	f->answer = NULL;
	f->sent_real = op->sent_real;
	if (r)
		fleet__check_backlog(f); /* the server answers: is the queue behind? */
	fleet_answer_read(&f->pq, op, r, f->pq.status(f->conn) == PQ_CONNECTION_OK, &v);
	if (v.kind != FLEET_VERDICT_LOST)
		fleet_pipe_take_answered(&f->pipe);
	carry_out(f, op, r, &v);
	if (r)
		f->pq.clear(r);
}

/* One result R (NULL: libpq's end of a statement's results) of the
 * pipeline, as fleet_pipe.h reads it: the first of its statement's kept,
 * its statement answered, or its sync. */
static void take_result(struct fleet *f, pq_result *r)
{
	f->waited_from = fleet__now_mono(); /* the server answers */
	switch (fleet_pipe_read(&f->pipe, r ? f->pq.result_status(r) : -1)) {
	case FLEET_PIPE_RESULT:
		if (f->answer)
			f->pq.clear(r);
		else
			f->answer = r;
		return;
	case FLEET_PIPE_ANSWERED:
		finish_statement(f);
		return;
	case FLEET_PIPE_SYNCED:
		f->pq.clear(r);
		return;
	case FLEET_PIPE_CONFUSED:
		if (r)
			f->pq.clear(r);
		lose_connection(f, "the server's answers do not match the statements sent");
		return;
	}
}

/* Reads what arrived: every result libpq has whole, while the pipeline
 * owes any (an idle connection's PQgetResult is NULL too). */
static void read_answers(struct fleet *f)
{
	if (!f->pq.consume_input(f->conn) || f->pq.status(f->conn) != PQ_CONNECTION_OK) {
		lose_connection_pq(f);
		return;
	}
	while (f->conn && fleet_pipe_awaits(&f->pipe) && !f->pq.is_busy(f->conn))
		take_result(f, f->pq.get_result(f->conn));
}

/* Scheduling the statements */

/* The queued claims wait for the ones the loop is about to make (see
 * fleet_claims_coming). */
static bool claims_gather(const struct fleet *f, int64_t now)
{
	const struct op *first = f->claims.head;

	return f->claims_coming && first && f->claims.n < FLEET_BATCH_MAX &&
	       now - first->queued_mono < FLEET_GATHER_NS;
}

/* A claim statement of new claims short of FLEET_BATCH_MAX is in
 * flight. */
static bool partial_claims_sent(const struct fleet *f)
{
	for (const struct op *op = fleet_pipe_oldest(&f->pipe); op; op = op->next)
		if (op->kind == OP_CLAIMS && !op->at_once)
			return true;
	return false;
}

/* The loop hands over a storm: more claims than one statement carries
 * wait, and more are coming. */
static bool storm(const struct fleet *f)
{
	return f->claims_coming && fleet_claims_waiting(f) > FLEET_BATCH_MAX;
}

/* The queued claims wait: gathering, or, short of a full statement of
 * new ones and outside a storm, while another such is in flight (its
 * answer will wake the loop). So a storm's statements go at once, and so
 * do the claims an answer asks again; other new claims one statement at
 * a time: a slow server or link gets fewer and larger statements rather
 * than a growing pipeline, and an end sent meanwhile waits on the server
 * behind one claim statement at most (a storm's aside). */
static bool claims_wait(const struct fleet *f, int64_t now)
{
	return claims_gather(f, now) ||
	       (!storm(f) && partial_claims_sent(f) && !fleet_batch_at_once(&f->claims));
}

/* The next claim statement; a storm's goes beside the others in flight,
 * full or not. */
static struct op *next_claims(struct fleet *f)
{
	bool in_storm = storm(f);
	struct op *op = fleet_batch_take(&f->claims, OP_CLAIMS);

	if (op && in_storm)
		op->at_once = true;
	return op;
}

/* Claims are queued or coming: the bookkeeping, the chores and the
 * cleanup wait until they are all sent. */
static bool claims_first(const struct fleet *f)
{
	return f->claims.head || f->claims_coming;
}

void fleet_claims_coming(struct fleet *f, bool coming)
{
	f->claims_coming = coming;
}

/* A run's rows: its ends many to a statement, a try or an abandon alone. */
static struct op *next_run_row(struct fleet *f)
{
	struct op *op = fleet_batch_take(&f->runs, OP_ENDS);

	return op ? op : fleet_queue_pop(&f->runs);
}

/* What waits, in the order of the queues (fleet_policy.h), all of it sent
 * at once: a reconnected replica's recent wins (before any claim could
 * take their keys); the runs' rows (an unwritten end holds its job's next
 * elapses skipped); the renewal when due; the claims, many to a
 * statement, unless they gather; and once the claims of an instant are
 * all sent, the bookkeeping, the chores and the cleanup, which would
 * otherwise hold the later claims back on the server. */
static struct op *next_op(struct fleet *f)
{
	int64_t now = fleet__now_mono();
	struct op *op;

	if (f->rewrite_due) {
		f->rewrite_due = false;
		if ((op = fleet__wins_rewrite(f)))
			return op;
	}
	if ((op = next_run_row(f)))
		return op;
	if (now >= f->renew_at) {
		f->renew_at = INT64_MAX; /* until its answer */
		/* It takes the released rows of this replica's jobs. */
		return fleet_op_new(OP_RENEW, fleet__replica_jobs(f), 0);
	}
	if (claims_first(f))
		return claims_wait(f, now) ? NULL : next_claims(f);
	if ((op = fleet_queue_pop(&f->writes)) || (op = fleet_queue_pop(&f->chores)))
		return op;
	if (now >= f->keep_at) {
		timer_due(f, FLEET_TIMER_KEEP, false);
		return fleet_op_new(OP_KEEP_CLAIM, NULL, 0);
	}
	return NULL;
}

static void step_connecting(struct fleet *f, short revents)
{
	bool ready = revents & (f->want_write ? POLLOUT : POLLIN);

	if (!ready && !(revents & (POLLERR | POLLHUP)))
		return;
	switch (f->pq.connect_poll(f->conn)) {
	case PQ_POLLING_READING:
		f->want_write = false;
		break;
	case PQ_POLLING_WRITING:
		f->want_write = true;
		break;
	case PQ_POLLING_OK: {
		struct op *op = fleet_op_new(OP_SETUP, NULL, 0);

		f->link = LINK_SETUP;
		f->want_write = false;
		if (f->pq.set_nonblocking(f->conn, 1) != 0 || !f->pq.enter_pipeline_mode(f->conn) ||
		    !op) {
			fleet_op_free(op);
			lose_connection_pq(f);
			return;
		}
		send_op(f, op);
		break;
	}
	default:
		lose_connection_pq(f);
	}
}

/* Sends what is queued, without waiting for the answers owed. */
static void send_next(struct fleet *f)
{
	while (f->link == LINK_READY) {
		struct op *op = next_op(f);

		if (!op)
			break;
		send_op(f, op);
	}
}

static void step_connected(struct fleet *f, short revents)
{
	if (revents & POLLOUT && f->want_write) {
		int flushed = f->pq.flush(f->conn);

		if (flushed < 0) {
			lose_connection_pq(f);
			return;
		}
		f->want_write = flushed == 1;
	}
	if (revents & (POLLIN | POLLERR | POLLHUP))
		read_answers(f);
	send_next(f);
}

void fleet_service(struct fleet *f, short revents)
{
	struct op *next;
	int rc;

	fleet__claims_expire(f);
	rc = fleet__replica_service(f, &next);
	send_step(f, rc, next);
	if (f->link == LINK_WAIT && fleet__now_mono() >= f->retry_at)
		begin_connecting(f);
	else if (f->link == LINK_CONNECTING)
		step_connecting(f, revents);
	else if (f->link == LINK_SETUP || f->link == LINK_READY)
		step_connected(f, revents);
	/* A connection being made, or a statement sent, that stays silent past
	 * the timeout is dead, even when TCP has not noticed (a peer that was
	 * stopped still acknowledges). */
	if ((f->link == LINK_CONNECTING || fleet_pipe_awaits(&f->pipe)) && f->conn &&
	    fleet__now_mono() - f->waited_from > f->params.answer_ns) {
		char msg[200];

		snprintf(msg, sizeof msg, "no answer from the server within %" PRId64 " s",
			 f->params.answer_ns / NSEC_PER_SEC);
		lose_connection(f, msg);
	}
	if (f->link == LINK_WAIT && fleet__now_mono() >= f->retry_at)
		begin_connecting(f);
}

/* What the loop sees */

int fleet_poll_fd(const struct fleet *f, short *events)
{
	int fd;

	*events = 0;
	if (!f->conn || f->link == LINK_WAIT || f->link == LINK_IDLE)
		return -1;
	fd = f->pq.socket(f->conn);
	if (fd < 0)
		return -1;
	if (f->link == LINK_CONNECTING)
		*events = f->want_write ? POLLOUT : POLLIN;
	else
		*events = (short)(POLLIN | (f->want_write ? POLLOUT : 0));
	return fd;
}

static int64_t earliest(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* When next_op has something to send (queued since the last
 * fleet_service, or coming due); claims that wait for an answer in
 * flight are woken by it, not by a time. */
static int64_t next_send(const struct fleet *f)
{
	int64_t now = fleet__now_mono();

	if (f->rewrite_due || f->runs.head)
		return now;
	if (!claims_first(f))
		return f->writes.head || f->chores.head ? now : earliest(f->renew_at, f->keep_at);
	if (f->claims.head && !claims_wait(f, now))
		return now;
	if (f->claims.head && claims_gather(f, now))
		return earliest(f->renew_at, f->claims.head->queued_mono + FLEET_GATHER_NS);
	return f->renew_at;
}

int64_t fleet_deadline(const struct fleet *f)
{
	int64_t d = fleet__claims_expiry(f);

	if (f->link == LINK_WAIT)
		d = earliest(d, f->retry_at);
	if (f->link == LINK_CONNECTING || fleet_pipe_awaits(&f->pipe))
		d = earliest(d, f->waited_from + f->params.answer_ns + 1);
	if (f->link == LINK_READY)
		d = earliest(d, next_send(f));
	return earliest(d, fleet__replica_deadline(f));
}

bool fleet_next_event(struct fleet *f, struct fleet_event *out)
{
	/* Told first, so that the loop stops rather than wait for ever. */
	if (f->events.lost) {
		f->events.lost = false;
		*out = (struct fleet_event){ .kind = FLEET_EVENT_LOST };
		return true;
	}
	return fleet_events_next(&f->events, out);
}

static size_t pending_in(const struct queue *q)
{
	size_t n = 0;

	for (const struct op *op = q->head; op; op = op->next)
		n += fleet_op_pending(op);
	return n;
}

size_t fleet_pending(const struct fleet *f)
{
	return f->claims.n + pending_in(&f->runs) + pending_in(&f->writes) +
	       pending_in(&f->pipe.sent);
}

size_t fleet_claims_waiting(const struct fleet *f)
{
	size_t n = f->claims.n;

	for (const struct op *op = fleet_pipe_oldest(&f->pipe); op; op = op->next)
		if (op->kind == OP_CLAIMS)
			n += op->nitems;
	return n;
}

bool fleet_answering(const struct fleet *f)
{
	return fleet_pipe_awaits(&f->pipe) && f->conn &&
	       (f->link == LINK_READY || f->link == LINK_SETUP);
}
