/* SPDX-License-Identifier: MIT */
/* fleet_wins: the elapses this replica won lately, and what became of
 * each (running, its end, dropped), so that a replica that reconnects,
 * perhaps to a promoted standby that never received their rows, writes
 * them again before any new claim (SPEC: "Database failover"). Kept for
 * --fleet-deadline after the win, and while the run goes on. */
#include "fleet_state.h"

#include <stdlib.h>
#include <string.h>

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
struct win *fleet_win_find(struct fleet *f, const char *job, int64_t scheduled_ns)
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
