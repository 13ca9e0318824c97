/* SPDX-License-Identifier: MIT */
/* fleet_wins: the loop's claims and what becomes of them: queued (missed
 * when still queued past the deadline), won, tried again, ended or
 * dropped. The elapses this replica won lately are kept, with what became
 * of each (running, its end, dropped), so that a replica that reconnects,
 * perhaps to a promoted standby that never received their rows, writes
 * them again before any new claim (SPEC: "Database failover"): for
 * --fleet-deadline after the win, and while the run goes on. The wins
 * still running are the keys that the renewal renews, the ones it knows
 * to hold; it takes the rows other replicas released. Also the claims
 * held until the database's clock reaches their instant. */
#include "fleet.h"
#include "fleet_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_answer.h"
#include "fleet_sql.h"

/* Decisions:
 * - A renewal names the keys it renews (the runs going, the claims whose
 *   answers are awaited) rather than "every running row of this name":
 *   after an asynchronous failover the promoted server has rows of runs
 *   that ended on the old primary, and renewing them by name would hold
 *   their jobs skipped on every replica for ever. Its rows that it does
 *   not name end: by the lease, or at once at the first renewal of a
 *   connection, when nothing else of its is in flight.
 * - A won elapse that will not start here (tfd stops, its job was
 *   removed) is released, not abandoned: its row stays running with no
 *   replica, and another replica's next renewal takes it and runs it,
 *   within the deadline. Abandoned means "may have run", which a run
 *   never started is not.
 * - A run whose start waited (--random-delay) starts only within its
 *   claim's lease as this replica last had it confirmed (the claim, or
 *   a renewal that named it, sent before the lease less a margin): past
 *   it, another replica may have marked the claim abandoned (this one was
 *   stopped, or cut off). The lease, not a statement: it costs no round
 *   trip, and a database that does not answer then cannot say yes.
 * - A clock ahead of the database's would claim elapses before their
 *   instant, and run them early: claims wait for the database's instant,
 *   as the answers measure it. */

/* The part of the lease a delayed start keeps in hand: the clocks of the
 * replica and of the server may run at rates a little apart. */
#define LEASE_MARGIN_DIVISOR 10

/* An elapse this replica won lately, and what became of it: written
 * again after a reconnection (a failover may have lost its row). */
struct win {
	char *job;
	int64_t scheduled_ns, won_real;
	bool exclusive;
	bool manual;          /* tfdctl run's: its row's trigger is 'manual' */
	enum row_state state; /* running until its end (released: given up
			       * unstarted, for another replica to take) */
	struct fleet_end end;
	int64_t lease_from; /* monotonic: the claim or renewal that the server
			     * confirmed last was sent then; 0: not since a
			     * renewal found its row gone */
	uint64_t listed;    /* the renewal that listed it last */
};

struct fleet_wins {
	struct win *v; /* oldest first */
	size_t n, cap;
	uint64_t renew_gen;     /* the renewal in flight, or the last one */
	int64_t renew_sent;     /* monotonic: when it was sent */
	bool renew_check;       /* the next renewal ends the rows not held */
	int64_t clock_ahead_ns; /* this replica's clock ahead of the database's
				 * by more than FLEET_CLOCK_SLACK_NS (with the
				 * round trip's half); else 0 */
	bool clock_warned;      /* a clock apart was said */
	struct queue early;     /* claims held until the database's clock
				 * reaches their instant */
	bool claims_stopped;    /* tfd is stopping: nothing more is claimed */
	bool claims_refused;    /* refused for good (read-only, no privilege,
				 * the name another's): claims are missed at once */
};

int fleet__wins_init(struct fleet *f)
{
	return (f->wins = calloc(1, sizeof *f->wins)) ? 0 : -1;
}

void fleet__wins_free(struct fleet *f)
{
	if (!f->wins)
		return;
	fleet_queue_free(&f->wins->early);
	for (size_t i = 0; i < f->wins->n; i++)
		free(f->wins->v[i].job);
	free(f->wins->v);
	free(f->wins);
	f->wins = NULL;
}

void fleet__wins_connected(struct fleet *f)
{
	/* Its first renewal ends the rows it does not hold: nothing of its
	 * is in flight before it (the recent wins are written first). */
	f->wins->renew_check = true;
}

static bool running(const struct win *w)
{
	return w->state == ROW_RUNNING;
}

/* Ended wins older than the deadline are forgotten: no replica claims
 * their elapses any more. Running ones are kept until they end. */
static void prune_wins(struct fleet *f)
{
	int64_t oldest = fleet__now_real() - f->cfg.deadline_ns;
	size_t kept = 0;

	for (size_t i = 0; i < f->wins->n; i++) {
		struct win *w = &f->wins->v[i];

		if (!running(w) && w->won_real < oldest)
			free(w->job);
		else
			f->wins->v[kept++] = *w;
	}
	f->wins->n = kept;
}

/* A win to keep: a memory failure stops tfd (events.lost), as a win not
 * kept would not be renewed, and its run's row would be abandoned. */
static struct win *win_new(struct fleet *f, const char *name)
{
	char *job;

	if (f->wins->n == f->wins->cap)
		prune_wins(f);
	if (f->wins->n == f->wins->cap) {
		size_t cap = f->wins->cap ? f->wins->cap * 2 : 64;
		struct win *p = realloc(f->wins->v, cap * sizeof *p);

		if (!p) {
			f->events.lost = true;
			return NULL;
		}
		f->wins->v = p;
		f->wins->cap = cap;
	}
	if (!(job = strdup(name))) {
		f->events.lost = true;
		return NULL;
	}
	f->wins->v[f->wins->n] = (struct win){ .job = job,
					       .won_real = fleet__now_real(),
					       .state = ROW_RUNNING,
					       .end = { .attempts = 1 } };
	return &f->wins->v[f->wins->n++];
}

void fleet__win_add(struct fleet *f, const struct op *claim)
{
	struct win *w = win_new(f, claim->job);

	if (!w)
		return;
	w->scheduled_ns = claim->scheduled_ns;
	w->exclusive = claim->exclusive;
	w->manual = claim->manual;
	/* Queued before it was sent: the server's now() is later. */
	w->lease_from = claim->queued_mono;
}

/* The newest first: a run's end is usually of a recent win. */
static struct win *win_find(struct fleet *f, const char *job, int64_t scheduled_ns)
{
	for (size_t i = f->wins->n; i > 0; i--) {
		struct win *w = &f->wins->v[i - 1];

		if (w->scheduled_ns == scheduled_ns && strcmp(w->job, job) == 0)
			return w;
	}
	return NULL;
}

/* A win whose row a reconnection writes again: not one released, which
 * is no longer this replica's. */
static bool rewritten(const struct win *w)
{
	return w->state != ROW_RELEASED;
}

struct op *fleet__wins_rewrite(struct fleet *f)
{
	size_t n = 0, k = 0, first;
	struct op **items, *batch;

	prune_wins(f);
	/* The newest FLEET_BATCH_MAX of them. */
	for (first = f->wins->n; first > 0 && n < FLEET_BATCH_MAX; first--)
		n += rewritten(&f->wins->v[first - 1]);
	if (n == 0 || !(items = calloc(n, sizeof *items)))
		return NULL;
	for (size_t i = first; i < f->wins->n && k < n; i++) {
		const struct win *w = &f->wins->v[i];

		if (!rewritten(w))
			continue;
		if (!(items[k] = fleet_op_new(OP_END, w->job, w->scheduled_ns)))
			break;
		items[k]->exclusive = w->exclusive;
		items[k]->manual = w->manual;
		items[k]->state = w->state;
		items[k++]->end = w->end;
	}
	if (k < n || !(batch = fleet_batch_new(OP_REWRITE, items, n))) {
		for (size_t i = 0; i < n; i++)
			fleet_op_free(items[i]);
		free(items);
		return NULL;
	}
	return batch;
}

/* The claims */

/* The database's now(), as this replica's clock and the answers tell it. */
static int64_t db_now(const struct fleet *f)
{
	return fleet__now_real() - f->wins->clock_ahead_ns;
}

/* Q's claims in the order of their instants: OP after the last that is
 * not later (the usual case: the tail). */
static void push_in_order(struct queue *q, struct op *op)
{
	struct op **link = &q->head;

	if (!q->tail || q->tail->scheduled_ns <= op->scheduled_ns) {
		fleet_queue_push(q, op);
		return;
	}
	while ((*link)->scheduled_ns <= op->scheduled_ns)
		link = &(*link)->next;
	op->next = *link;
	*link = op;
	q->n++;
}

/* OP is claimed once the database's clock reaches its instant: held in
 * EARLY until then (fleet__claims_expire moves it on). */
static void queue_claim(struct fleet *f, struct op *op)
{
	if (op->scheduled_ns > db_now(f) && f->wins->clock_ahead_ns > 0)
		push_in_order(&f->wins->early, op);
	else
		fleet__enqueue(f, op);
}

int fleet__claim_as(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		    uint64_t token, bool manual)
{
	struct op *op = fleet_op_new(OP_CLAIM, job, scheduled_ns);

	if (!op)
		return -1;
	op->exclusive = exclusive;
	op->token = token;
	op->manual = manual;
	op->queued_mono = fleet__now_mono();
	if (f->wins->claims_refused || f->wins->claims_stopped) {
		/* The server refused claims for good (fleet__refuse_claims), or
		 * tfd stops: nobody here runs it. */
		fleet__push_outcome(f, op, FLEET_MISSED);
		fleet_op_free(op);
		return 0;
	}
	/* Sent by the fleet_service that ends the loop's turn, with every
	 * other elapse of this wake-up: one statement for all. */
	queue_claim(f, op);
	return 0;
}

int fleet_claim(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		uint64_t token)
{
	return fleet__claim_as(f, job, scheduled_ns, exclusive, token, false);
}

int fleet_run_attempt(struct fleet *f, const char *job, int64_t scheduled_ns, unsigned attempt)
{
	struct op *op = fleet_op_new(OP_ATTEMPT, job, scheduled_ns);
	struct win *w = win_find(f, job, scheduled_ns);

	if (!op)
		return -1;
	if (w)
		w->end.attempts = attempt;
	op->end.attempts = attempt;
	fleet__enqueue(f, op); /* sent as the claims are */
	return 0;
}

int fleet_run_ended(struct fleet *f, const char *job, int64_t scheduled_ns,
		    const struct fleet_end *e)
{
	struct op *op = fleet_op_new(OP_END, job, scheduled_ns);
	struct win *w = win_find(f, job, scheduled_ns);

	if (!op)
		return -1;
	op->end = *e;
	op->state = e->failed ? ROW_FAILED : ROW_SUCCEEDED;
	op->manual = w && w->manual; /* its row, if written again, says so */
	if (w) {
		w->end = *e;
		w->state = op->state;
	}
	fleet__enqueue(f, op); /* sent as the claims are */
	return 0;
}

int fleet_run_dropped(struct fleet *f, const char *job, int64_t scheduled_ns)
{
	struct op *op = fleet_op_new(OP_ABANDON, job, scheduled_ns);
	struct win *w = win_find(f, job, scheduled_ns);

	if (!op)
		return -1;
	if (w) {
		w->state = ROW_ABANDONED;
		w->end = (struct fleet_end){ .exit_status = -1,
					     .attempts = w->end.attempts,
					     .finished_ns = fleet__now_real() };
	}
	fleet__enqueue(f, op); /* sent as the claims are */
	return 0;
}

int fleet_run_released(struct fleet *f, const char *job, int64_t scheduled_ns)
{
	struct op *op = fleet_op_new(OP_END, job, scheduled_ns);
	struct win *w = win_find(f, job, scheduled_ns);

	if (!op)
		return -1;
	/* An end's item of state 'released' (fleet_sql_ends): written with
	 * the ends, many to a statement, and waited for at exit as they are. */
	op->state = ROW_RELEASED;
	op->manual = w && w->manual;
	if (w)
		w->state = ROW_RELEASED;
	fleet__enqueue(f, op);
	return 0;
}

bool fleet_claim_held(struct fleet *f, const char *job, int64_t scheduled_ns)
{
	const struct win *w = win_find(f, job, scheduled_ns);
	int64_t lease = f->cfg.lease_ns;

	/* A win that is not kept was never this fleet's (a job that does
	 * not claim): nothing to lose. */
	if (!w)
		return true;
	return w->lease_from > 0 &&
	       fleet__now_mono() < w->lease_from + lease - lease / LEASE_MARGIN_DIVISOR;
}

/* Refusals */

void fleet__refuse_claims(struct fleet *f)
{
	struct op *op;

	f->wins->claims_refused = true;
	while ((op = fleet_queue_pop(&f->claims))) {
		fleet__push_outcome(f, op, FLEET_MISSED);
		fleet_op_free(op);
	}
}

void fleet__claims_accepted(struct fleet *f)
{
	f->wins->claims_refused = false;
}

bool fleet__claims_refused(const struct fleet *f)
{
	return f->wins->claims_refused;
}

/* Claims waiting */

/* The claims of Q whose instant the database's clock reached, in order,
 * to the claims' queue. */
static void claim_the_due(struct fleet *f)
{
	int64_t now = db_now(f);

	while (f->wins->early.head && f->wins->early.head->scheduled_ns <= now)
		fleet__enqueue(f, fleet_queue_pop(&f->wins->early));
}

/* A claim still waiting in its queue past its deadline is missed: the
 * loop hears it at the deadline, not when the database is back. One whose
 * insert may have been carried out (sent on a connection lost before the
 * answer) has its row, if any, abandoned when the database is back. */
void fleet__claims_expire(struct fleet *f)
{
	int64_t now = db_now(f);
	struct op **link = &f->claims.head;

	claim_the_due(f);
	f->claims.tail = NULL;
	while (*link) {
		struct op *op = *link;

		if (op->kind == OP_CLAIM && now > op->scheduled_ns + f->cfg.deadline_ns) {
			*link = op->next;
			f->claims.n--;
			fleet__push_outcome(f, op, FLEET_MISSED);
			if (op->resent && fleet_policy(op->kind)->abandon_if_resent) {
				op->kind = OP_ABANDON;
				fleet__enqueue(f, op);
			} else {
				fleet_op_free(op);
			}
			continue;
		}
		f->claims.tail = op;
		link = &op->next;
	}
}

/* fleet_deadline's part for fleet__claims_expire. */
int64_t fleet__claims_expiry(const struct fleet *f)
{
	int64_t first = INT64_MAX, db = db_now(f), mono = fleet__now_mono();

	for (const struct op *op = f->claims.head; op; op = op->next)
		if (op->kind == OP_CLAIM && op->scheduled_ns + f->cfg.deadline_ns < first)
			first = op->scheduled_ns + f->cfg.deadline_ns;
	if (f->wins->early.head && f->wins->early.head->scheduled_ns < first)
		first = f->wins->early.head->scheduled_ns;
	if (first == INT64_MAX)
		return INT64_MAX;
	return mono + (first - db) + 1;
}

/* OP, a claim never sent, is dropped: the loop hears it (it holds the
 * elapse's tick for an answer that will not come). */
static void drop_unsent(struct fleet *f, struct op *op)
{
	fleet_events_push(&f->events,
			  &(struct fleet_event){ .kind = FLEET_EVENT_UNSENT,
						 .token = op->token,
						 .scheduled_ns = op->scheduled_ns,
						 .manual = op->manual },
			  op->job, NULL);
	fleet_op_free(op);
}

void fleet_stop_claiming(struct fleet *f)
{
	struct op **link = &f->claims.head, *op;

	if (f->wins->claims_stopped)
		return;
	f->wins->claims_stopped = true;
	/* Never sent: the other replicas claim them as they would anyway. A
	 * claim sent once (resent) may have its row: asked again, and acted
	 * on as its answer says. */
	while ((op = fleet_queue_pop(&f->wins->early)))
		drop_unsent(f, op);
	f->claims.tail = NULL;
	while ((op = *link)) {
		if (op->kind == OP_CLAIM && !op->resent) {
			*link = op->next;
			f->claims.n--;
			drop_unsent(f, op);
			continue;
		}
		f->claims.tail = op;
		link = &op->next;
	}
}

/* The clock */

/* The claims queued before the clock's offset was known, held now if
 * they are early. */
static void hold_early(struct fleet *f)
{
	struct queue queued = f->claims;
	struct op *op;

	f->claims = (struct queue){ .head = NULL };
	while ((op = fleet_queue_pop(&queued)))
		queue_claim(f, op);
}

void fleet__wins_clock(struct fleet *f, int64_t db_ns)
{
	int64_t off, half, was = f->wins->clock_ahead_ns;
	char msg[400];

	if (!fleet_answer_clock(db_ns, f->sent_real, fleet__now_real(), &off, &half))
		return;
	/* Beyond the slack and the round trip's uncertainty; the hold is
	 * the most the clock may be ahead, so no claim goes early. */
	if ((off < 0 ? -off : off) <= FLEET_CLOCK_SLACK_NS + half) {
		f->wins->clock_ahead_ns = 0;
		return;
	}
	f->wins->clock_ahead_ns = off > 0 ? off + half : 0;
	if (f->wins->clock_ahead_ns && !was)
		hold_early(f);
	if (f->wins->clock_warned)
		return;
	f->wins->clock_warned = true;
	fleet_clock_message(f->replica, off, msg, sizeof msg);
	fleet__push_error(f, "clock", msg);
}

/* The renewal */

/* Keys as two text[] literals: the jobs and their instants. */
struct keys {
	const char **jobs, **ats;
	char (*at)[40];
	size_t n;
};

static void add_key(struct keys *k, const char *job, int64_t scheduled_ns)
{
	k->jobs[k->n] = job;
	fleet_format_instant(k->at[k->n], sizeof k->at[k->n], scheduled_ns);
	k->ats[k->n] = k->at[k->n];
	k->n++;
}

/* The keys this replica holds (fleet_sql_renew's $4, $5): its wins still
 * running (marked as named by this renewal), the claims of the batches in
 * the pipeline (answered before the renewal: the server takes statements
 * in the order they were sent), and those sent on a connection lost
 * before their answer (their rows, if written, are its own). Array
 * literals into P. */
static int held_keys(struct fleet *f, struct fleet_statement *p)
{
	size_t n = 0;
	struct keys k = { .n = 0 };
	int rc = -1, given = p->n;

	for (const struct op *in = fleet_pipe_oldest(&f->pipe); in; in = in->next)
		n += in->kind == OP_CLAIMS ? in->nitems : 0;
	for (size_t i = 0; i < f->wins->n; i++)
		n += running(&f->wins->v[i]);
	for (const struct op *op = f->claims.head; op; op = op->next)
		n += op->kind == OP_CLAIM && op->resent;
	k.jobs = calloc(n + 1, sizeof *k.jobs);
	k.ats = calloc(n + 1, sizeof *k.ats);
	k.at = calloc(n + 1, sizeof *k.at);
	if (k.jobs && k.ats && k.at) {
		for (size_t i = 0; i < f->wins->n; i++)
			if (running(&f->wins->v[i])) {
				f->wins->v[i].listed = f->wins->renew_gen;
				add_key(&k, f->wins->v[i].job, f->wins->v[i].scheduled_ns);
			}
		for (const struct op *in = fleet_pipe_oldest(&f->pipe); in; in = in->next)
			for (size_t i = 0; in->kind == OP_CLAIMS && i < in->nitems; i++)
				add_key(&k, in->items[i]->job, in->items[i]->scheduled_ns);
		for (const struct op *op = f->claims.head; op; op = op->next)
			if (op->kind == OP_CLAIM && op->resent)
				add_key(&k, op->job, op->scheduled_ns);
		if ((p->arrays[p->narrays] = fleet_array_literal(k.n, k.jobs)))
			p->v[p->n++] = p->arrays[p->narrays++];
		if ((p->arrays[p->narrays] = fleet_array_literal(k.n, k.ats)))
			p->v[p->n++] = p->arrays[p->narrays++];
		rc = p->n == given + 2 ? 0 : -1;
	}
	free(k.jobs);
	free(k.ats);
	free(k.at);
	return rc;
}

const char *fleet__wins_statement(struct fleet *f, const struct op *op, struct fleet_statement *p)
{
	if (op->kind != OP_RENEW)
		return NULL;
	f->wins->renew_gen++;
	f->wins->renew_sent = fleet__now_mono();
	snprintf(p->buf[0], sizeof p->buf[0], "%" PRId64, f->cfg.lease_ns / 1000);
	snprintf(p->buf[1], sizeof p->buf[1], "%" PRId64, f->cfg.deadline_ns / 1000);
	p->v[p->n++] = f->replica;
	p->v[p->n++] = p->buf[0];
	p->v[p->n++] = f->boundary;
	if (held_keys(f, p) != 0)
		return NULL;
	/* At the first renewal of a connection the keys are all there is. A
	 * renewal lost or rolled back leaves its rows to their lease. */
	p->v[p->n++] = f->wins->renew_check ? "t" : "f";
	f->wins->renew_check = false;
	/* A replica that stops takes nothing: it would release it again. */
	p->v[p->n++] = op->job && !f->wins->claims_stopped ? op->job : "{}";
	p->v[p->n++] = p->buf[1];
	return fleet_sql_renew;
}

static int64_t micros_at(const struct pq *pq, const pq_result *r, int row, int field)
{
	return strtoll(pq->get_value(r, row, field), NULL, 10) * 1000;
}

/* A row a stopping replica released, taken by this one's renewal: won,
 * and told to the loop, which runs it. */
static void take(struct fleet *f, const pq_result *r, int row)
{
	const struct pq *pq = &f->pq;
	struct win *w = win_new(f, pq->get_value(r, row, FLEET_RENEW_JOB));

	if (!w)
		return;
	w->scheduled_ns = micros_at(pq, r, row, FLEET_RENEW_SCHEDULED);
	w->exclusive = strcmp(pq->get_value(r, row, FLEET_RENEW_EXCLUSIVE), "t") == 0;
	w->manual = strcmp(pq->get_value(r, row, FLEET_RENEW_MANUAL), "t") == 0;
	w->lease_from = f->wins->renew_sent;
	w->listed = f->wins->renew_gen;
	fleet_events_push(&f->events,
			  &(struct fleet_event){ .kind = FLEET_EVENT_TAKEN,
						 .scheduled_ns = w->scheduled_ns,
						 .manual = w->manual },
			  w->job, NULL);
}

/* A run that replica HELD_BY held and died with, marked abandoned here:
 * told to the loop (which pings it as failed). */
static void abandoned(struct fleet *f, const char *job, int64_t scheduled_ns, const char *held_by)
{
	fleet_events_push(&f->events,
			  &(struct fleet_event){ .kind = FLEET_EVENT_ABANDONED,
						 .scheduled_ns = scheduled_ns },
			  job, held_by);
}

void fleet__wins_started(struct fleet *f, const pq_result *r)
{
	const struct pq *pq = &f->pq;
	int rows = pq->nfields(r) == FLEET_START_COLUMNS ? pq->ntuples(r) : 0;

	for (int row = 0; row < rows; row++)
		if (!pq->get_is_null(r, row, FLEET_START_JOB))
			abandoned(f, pq->get_value(r, row, FLEET_START_JOB),
				  micros_at(pq, r, row, FLEET_START_SCHEDULED), f->cfg.replica);
}

bool fleet__wins_renewed(struct fleet *f, const pq_result *r)
{
	const struct pq *pq = &f->pq;
	int rows = pq->nfields(r) == FLEET_RENEW_COLUMNS ? pq->ntuples(r) : 0;
	int taken = 0;

	/* Every key it named was renewed as the statement was sent, but the
	 * lost ones, whose lease is no longer this replica's to count on. */
	for (size_t i = 0; i < f->wins->n; i++)
		if (f->wins->v[i].listed == f->wins->renew_gen && f->wins->v[i].lease_from > 0)
			f->wins->v[i].lease_from = f->wins->renew_sent;
	for (int row = 0; row < rows; row++) {
		const char *what = pq->get_value(r, row, FLEET_RENEW_WHAT);
		struct win *w;

		if (strcmp(what, "taken") == 0) {
			take(f, r, row);
			taken++;
		} else if (strcmp(what, "abandoned") == 0) {
			abandoned(f, pq->get_value(r, row, FLEET_RENEW_JOB),
				  micros_at(pq, r, row, FLEET_RENEW_SCHEDULED),
				  pq->get_value(r, row, FLEET_RENEW_REPLICA));
		} else if (strcmp(what, "lost") == 0 &&
			   (w = win_find(f, pq->get_value(r, row, FLEET_RENEW_JOB),
					 micros_at(pq, r, row, FLEET_RENEW_SCHEDULED)))) {
			w->lease_from = 0;
		}
	}
	return taken >= FLEET_TAKE_ROWS_MAX;
}
