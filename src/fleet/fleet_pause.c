/* SPDX-License-Identifier: MIT */
/* fleet_pause: tfdctl under --fleet, the database's side. A pause is a row
 * of tfd_paused (job, paused_at, paused_by), written or deleted by any
 * replica and read by every claim: the claim statement itself leaves a
 * paused job's scheduled elapse unclaimed and answers "paused", so the
 * pause holds at the instant of the claim on every replica, whatever a
 * replica last heard. A manual run (tfdctl run) is claimed like an elapse,
 * its row's trigger 'manual', and is never paused (its caller asked for
 * it).
 *
 * What the replica shows (tfdctl list's STATE, LAST and RESULT, the
 * tfd_paused gauge) is its view of the fleet: one statement reads, for
 * each of its jobs, whether it is paused and the last row of tfd_runs
 * (not a skip), at each connection and each renewal of the replica's
 * name (lease/6), after the claims; claims' answers and this replica's
 * own pauses update it between reads. The loop never waits for it: it
 * reads the view as it stands. */
#include "fleet.h"
#include "fleet_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_sql.h"

/* Decisions:
 * - The claim decides: a paused job's elapse is left unclaimed by the
 *   claim statement of whichever replica asks, so a pause made on one
 *   replica holds on the others at once, and a replica that lost its
 *   connection learns nothing stale from its view: it claims nothing.
 * - The view (paused, last run) is a copy for display, read after the
 *   claims (the chores' queue) at each connection and each renewal of
 *   the replica's name: a list never waits for the database, and ten
 *   thousand jobs cost one statement every lease/6. */

/* A job of the view: its name, paused or not, its last row. */
struct view_job {
	char *job;
	char *replica;
	bool paused, has_last;
	struct fleet_last last;
};

struct fleet_view {
	struct view_job *v;
	size_t n, cap;
	bool changed; /* since fleet_view_changed was last asked */
};

static void view_job_free(struct view_job *e)
{
	free(e->job);
	free(e->replica);
}

void fleet__pause_free(struct fleet *f)
{
	if (!f->view)
		return;
	for (size_t i = 0; i < f->view->n; i++)
		view_job_free(&f->view->v[i]);
	free(f->view->v);
	free(f->view);
	f->view = NULL;
}

static struct fleet_view *view_of(struct fleet *f)
{
	if (!f->view && !(f->view = calloc(1, sizeof *f->view)))
		f->events.lost = true; /* the loop stops: out of memory */
	return f->view;
}

/* The place of JOB in the view, sorted by name: where it is (*found) or
 * would go. */
static size_t place_of(const struct fleet_view *v, const char *job, bool *found)
{
	size_t lo = 0, hi = v ? v->n : 0;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v->v[mid].job, job);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct view_job *find(const struct fleet *f, const char *job)
{
	bool found;
	size_t i = place_of(f->view, job, &found);

	return found ? &f->view->v[i] : NULL;
}

/* JOB's entry, made when missing; NULL when memory ran out. */
static struct view_job *entry_for(struct fleet *f, const char *job)
{
	struct fleet_view *v = view_of(f);
	bool found;
	size_t i;
	char *name;

	if (!v)
		return NULL;
	i = place_of(v, job, &found);
	if (found)
		return &v->v[i];
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		struct view_job *grown = realloc(v->v, cap * sizeof *grown);

		if (!grown)
			return NULL;
		v->v = grown;
		v->cap = cap;
	}
	if (!(name = strdup(job)))
		return NULL;
	memmove(&v->v[i + 1], &v->v[i], (v->n - i) * sizeof *v->v);
	v->v[i] = (struct view_job){ .job = name };
	v->n++;
	return &v->v[i];
}

static void set_paused(struct fleet *f, const char *job, bool paused)
{
	const struct view_job *seen = f->view ? find(f, job) : NULL;
	struct view_job *e;

	if ((seen ? seen->paused : false) == paused)
		return;
	if (!(e = entry_for(f, job))) {
		f->events.lost = true;
		return;
	}
	e->paused = paused;
	f->view->changed = true;
}

/* The loop's calls */

int fleet_claim_manual(struct fleet *f, const char *job, int64_t scheduled_ns, bool exclusive,
		       uint64_t token)
{
	return fleet__claim_as(f, job, scheduled_ns, exclusive, token, true);
}

int fleet_pause_write(struct fleet *f, size_t n, const char *const *jobs, bool paused, unsigned uid,
		      uint64_t token)
{
	enum op_kind kind = paused ? OP_PAUSE : OP_RESUME;
	char *literal = fleet_array_literal(n, jobs);
	struct op *op = literal ? fleet_op_new(kind, literal, uid) : NULL;

	free(literal);
	if (!op || !(op->items = calloc(n ? n : 1, sizeof *op->items))) {
		fleet_op_free(op);
		return -1;
	}
	/* The names, for the view once the answer says it is done. */
	for (; op->nitems < n; op->nitems++)
		if (!(op->items[op->nitems] = fleet_op_new(kind, jobs[op->nitems], 0))) {
			fleet_op_free(op);
			return -1;
		}
	op->token = token;
	fleet_queue_push(&f->writes, op);
	return 0;
}

bool fleet_view_changed(struct fleet *f)
{
	bool changed = f->view && f->view->changed;

	if (changed)
		f->view->changed = false;
	return changed;
}

bool fleet_job_paused(const struct fleet *f, const char *job)
{
	const struct view_job *e = f->view ? find(f, job) : NULL;

	return e && e->paused;
}

bool fleet_job_last(const struct fleet *f, const char *job, struct fleet_last *out)
{
	const struct view_job *e = f->view ? find(f, job) : NULL;

	if (!e || !e->has_last)
		return false;
	*out = e->last;
	return true;
}

const char *fleet_self(const struct fleet *f)
{
	return f->replica;
}

/* The fleet's side */

const char *fleet__pause_statement(struct fleet *f, const struct op *op, struct fleet_statement *p)
{
	switch (op->kind) {
	case OP_PAUSE:
		p->v[p->n++] = op->job;
		/* The caller's uid rides in scheduled_ns (fleet_pause_write). */
		snprintf(p->buf[0], sizeof p->buf[0], "%" PRId64, op->scheduled_ns);
		p->v[p->n++] = p->buf[0];
		p->v[p->n++] = f->replica;
		return fleet_sql_pause;
	case OP_RESUME:
		p->v[p->n++] = op->job;
		return fleet_sql_resume;
	case OP_VIEW:
		p->v[p->n++] = op->job; /* the jobs' names as the refresh had them */
		return fleet_sql_view;
	default:
		return NULL;
	}
}

static const char *state_name(const char *s)
{
	static const char *const states[] = { "running", "succeeded", "failed", "abandoned" };

	for (size_t i = 0; i < sizeof states / sizeof *states; i++)
		if (strcmp(s, states[i]) == 0)
			return states[i];
	return "failed";
}

static int64_t micros_at(const struct fleet *f, const pq_result *r, int row, int field)
{
	if (f->pq.get_is_null(r, row, field))
		return 0;
	return strtoll(f->pq.get_value(r, row, field), NULL, 10) * 1000;
}

/* One row of the view's answer into E (a fresh entry). Returns -1 when
 * memory ran out. */
static int read_row(const struct fleet *f, const pq_result *r, int row, struct view_job *e)
{
	if (!(e->job = strdup(f->pq.get_value(r, row, 0))))
		return -1;
	e->paused = strcmp(f->pq.get_value(r, row, 1), "t") == 0;
	if (f->pq.get_is_null(r, row, 2))
		return 0;
	if (!(e->replica = strdup(f->pq.get_value(r, row, 2))))
		return -1;
	e->has_last = true;
	e->last = (struct fleet_last){
		.replica = e->replica,
		.state = state_name(f->pq.get_value(r, row, 3)),
		.start_ns = micros_at(f, r, row, 4),
		.end_ns = micros_at(f, r, row, 5),
		/* clang-format off */
		.exit_status = f->pq.get_is_null(r, row, 6)
			       ? -1 : (int)strtol(f->pq.get_value(r, row, 6), NULL, 10),
		/* clang-format on */
		.timed_out = !f->pq.get_is_null(r, row, 7) &&
			     strcmp(f->pq.get_value(r, row, 7), "t") == 0,
	};
	return 0;
}

static int by_job(const void *a, const void *b)
{
	return strcmp(((const struct view_job *)a)->job, ((const struct view_job *)b)->job);
}

/* The view read: it replaces the former one whole. */
static void answer_view(struct fleet *f, const pq_result *r)
{
	struct fleet_view *v = view_of(f);
	size_t rows = (size_t)f->pq.ntuples(r);
	struct view_job *fresh;

	if (!v || f->pq.nfields(r) < 8)
		return;
	if (!(fresh = calloc(rows ? rows : 1, sizeof *fresh))) {
		f->events.lost = true;
		return;
	}
	for (size_t i = 0; i < rows; i++)
		if (read_row(f, r, (int)i, &fresh[i]) != 0) {
			for (size_t k = 0; k <= i; k++)
				view_job_free(&fresh[k]);
			free(fresh);
			f->events.lost = true;
			return;
		}
	/* The server sorted them in byte order already; strcmp's is the
	 * order place_of searches. */
	qsort(fresh, rows, sizeof *fresh, by_job);
	for (size_t i = 0; i < v->n; i++)
		view_job_free(&v->v[i]);
	free(v->v);
	v->v = fresh;
	v->n = rows;
	v->cap = rows ? rows : 1;
	v->changed = true;
}

void fleet__pause_answer(struct fleet *f, struct op *op, const pq_result *r)
{
	if (op->kind == OP_VIEW) {
		answer_view(f, r);
	} else {
		for (size_t i = 0; i < op->nitems; i++)
			set_paused(f, op->items[i]->job, op->kind == OP_PAUSE);
		fleet_events_push(&f->events,
				  &(struct fleet_event){ .kind = FLEET_EVENT_DONE,
							 .token = op->token },
				  NULL, NULL);
	}
	fleet_op_free(op);
}

void fleet__pause_refused(struct fleet *f, const struct op *op, const char *message)
{
	if (op->kind != OP_PAUSE && op->kind != OP_RESUME)
		return;
	fleet_events_push(&f->events,
			  &(struct fleet_event){ .kind = FLEET_EVENT_DONE, .token = op->token },
			  NULL, message);
}

void fleet__pause_saw(struct fleet *f, const struct op *claim, enum fleet_outcome o)
{
	/* A manual run is never paused. Only a won claim says the job is
	 * not paused: "elsewhere" or a skip may answer from a row written
	 * before the pause, and a missed elapse says nothing. */
	if (claim->manual || (o != FLEET_PAUSED && o != FLEET_WON))
		return;
	set_paused(f, claim->job, o == FLEET_PAUSED);
}

void fleet__pause_refresh(struct fleet *f, const char *jobs)
{
	struct op *op;

	if (!jobs)
		return;
	for (op = fleet_pipe_oldest(&f->pipe); op; op = op->next)
		if (op->kind == OP_VIEW)
			return; /* one is being read */
	for (op = f->chores.head; op; op = op->next)
		if (op->kind == OP_VIEW)
			return; /* one is waiting already */
	if (!(op = fleet_op_new(OP_VIEW, jobs, 0))) {
		f->events.lost = true;
		return;
	}
	fleet_queue_push(&f->chores, op);
}
