/* SPDX-License-Identifier: MIT */
/* fleet_wins: the loop's claims and what becomes of them: queued (missed
 * when still queued past the deadline), won, tried again, ended or
 * dropped. The elapses this replica won lately are kept, with what became
 * of each (running, its end, dropped), so that a replica that reconnects,
 * perhaps to a promoted standby that never received their rows, writes
 * them again before any new claim (SPEC: "Database failover"): for
 * --fleet-deadline after the win, and while the run goes on. */
#include "fleet_wins.h"

#include <stdlib.h>
#include <string.h>

#include "fleet_state.h"

/* Ended wins older than the deadline are forgotten: no replica claims
 * their elapses any more. Running ones are kept until they end. */
static void prune_wins(struct fleet *f)
{
	int64_t oldest = now_real() - f->cfg.deadline_ns;
	size_t kept = 0;

	for (size_t i = 0; i < f->nwins; i++) {
		struct win *w = &f->wins[i];

		if (strcmp(w->state, "running") != 0 && w->won_real < oldest)
			free(w->job);
		else
			f->wins[kept++] = *w;
	}
	f->nwins = kept;
}

void fleet_win_add(struct fleet *f, const struct op *claim)
{
	char *job;

	if (f->nwins == f->wins_cap)
		prune_wins(f);
	if (f->nwins == f->wins_cap) {
		size_t cap = f->wins_cap ? f->wins_cap * 2 : 64;
		struct win *p = realloc(f->wins, cap * sizeof *p);

		if (!p)
			return;  /* only a failover's rewrite misses it */
		f->wins = p;
		f->wins_cap = cap;
	}
	if (!(job = strdup(claim->job)))
		return;
	f->wins[f->nwins++] = (struct win){ .job = job, .scheduled_ns = claim->scheduled_ns,
					    .won_real = now_real(), .exclusive = claim->exclusive,
					    .manual = claim->manual, .state = "running", .end = { .attempts = 1 } };
}

/* The newest first: a run's end is usually of a recent win. */
static struct win *win_find(struct fleet *f, const char *job, int64_t scheduled_ns)
{
	for (size_t i = f->nwins; i > 0; i--) {
		struct win *w = &f->wins[i - 1];

		if (w->scheduled_ns == scheduled_ns && strcmp(w->job, job) == 0)
			return w;
	}
	return NULL;
}

struct op *fleet_wins_rewrite(struct fleet *f)
{
	size_t n, first;
	struct op **items, *batch;

	prune_wins(f);
	n = f->nwins < FLEET_BATCH_MAX ? f->nwins : FLEET_BATCH_MAX;
	first = f->nwins - n;
	if (n == 0 || !(items = calloc(n, sizeof *items)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct win *w = &f->wins[first + i];

		if (!(items[i] = fleet_op_new(OP_END, w->job, w->scheduled_ns)))
			break;
		items[i]->exclusive = w->exclusive;
		items[i]->manual = w->manual;
		items[i]->state = w->state;
		items[i]->end = w->end;
	}
	if (!items[n - 1] || !(batch = fleet_batch_new(OP_REWRITE, items, n))) {
		for (size_t i = 0; i < n; i++)
			fleet_op_free(items[i]);
		free(items);
		return NULL;
	}
	return batch;
}

/* The claims */

int fleet_claim(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		uint64_t token)
{
	struct op *op = fleet_op_new(OP_CLAIM, job, scheduled_ns);

	if (!op)
		return -1;
	op->exclusive = exclusive;
	op->token = token;
	op->queued_mono = now_mono();
	if (f->claims_refused) {
		/* The server refused claims for good (fleet_refuse_claims). */
		fleet_push_outcome(f, op, FLEET_MISSED);
		fleet_op_free(op);
		return 0;
	}
	/* Sent by the fleet_service that ends the loop's turn, with every
	 * other elapse of this wake-up: one statement for all. */
	fleet_enqueue(f, op);
	return 0;
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
	fleet_enqueue(f, op);  /* sent as the claims are */
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
	op->state = e->failed ? "failed" : "succeeded";
	op->manual = w && w->manual;  /* its row, if written again, says so */
	if (w) {
		w->end = *e;
		w->state = op->state;
	}
	fleet_enqueue(f, op);  /* sent as the claims are */
	return 0;
}

int fleet_run_dropped(struct fleet *f, const char *job, int64_t scheduled_ns)
{
	struct op *op = fleet_op_new(OP_ABANDON, job, scheduled_ns);
	struct win *w = win_find(f, job, scheduled_ns);

	if (!op)
		return -1;
	if (w) {
		w->state = "abandoned";
		w->end = (struct fleet_end){ .exit_status = -1, .attempts = w->end.attempts,
					     .finished_ns = now_real() };
	}
	fleet_enqueue(f, op);  /* sent as the claims are */
	return 0;
}

/* A claim still waiting in the queue past its deadline is missed: the
 * loop hears it at the deadline, not when the database is back. One whose
 * insert may have been carried out (sent on a connection lost before the
 * answer) has its row, if any, abandoned when the database is back. */
void fleet_claims_expire(struct fleet *f)
{
	int64_t now = now_real();
	struct op **link = &f->claims.head;

	f->claims.tail = NULL;
	while (*link) {
		struct op *op = *link;

		if (op->kind == OP_CLAIM && now > op->scheduled_ns + f->cfg.deadline_ns) {
			*link = op->next;
			f->claims.n--;
			fleet_push_outcome(f, op, FLEET_MISSED);
			if (op->resent && fleet_policy(op->kind)->abandon_if_resent) {
				op->kind = OP_ABANDON;
				fleet_enqueue(f, op);
			} else {
				fleet_op_free(op);
			}
			continue;
		}
		f->claims.tail = op;
		link = &op->next;
	}
}

/* fleet_deadline's part for fleet_claims_expire. */
int64_t fleet_claims_expiry(const struct fleet *f)
{
	int64_t first = INT64_MAX, real = now_real(), mono = now_mono();

	for (const struct op *op = f->claims.head; op; op = op->next)
		if (op->kind == OP_CLAIM && op->scheduled_ns + f->cfg.deadline_ns < first)
			first = op->scheduled_ns + f->cfg.deadline_ns;
	if (first == INT64_MAX)
		return INT64_MAX;
	return mono + (first - real) + 1;
}
