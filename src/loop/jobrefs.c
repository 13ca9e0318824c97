/* SPDX-License-Identifier: MIT */
#include "jobrefs.h"

#include <stdlib.h>
#include <string.h>

#include "loopstate.h"

int jobrefs_take(struct jobrefs *r, const struct loop *l)
{
	*r = (struct jobrefs){ .jobs = calloc(l->njobs + 1, sizeof *r->jobs),
			       .dropped = l->jobs_dropped };
	if (!r->jobs)
		return -1;
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->state->removed)
			r->jobs[r->n++] = l->jobs[i];
	return 0;
}

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const struct job *const *)a;
	uintptr_t y = (uintptr_t) * (const struct job *const *)b;

	return (x > y) - (x < y);
}

int jobrefs_check(struct jobrefs *r, const struct loop *l, size_t from)
{
	const struct job **live;

	if (r->dropped == l->jobs_dropped)
		return 0;
	live = malloc((l->njobs + 1) * sizeof *live);
	if (!live)
		return -1;
	memcpy(live, l->jobs, l->njobs * sizeof *live);
	qsort(live, l->njobs, sizeof *live, by_address);
	for (size_t k = from; k < r->n; k++)
		if (r->jobs[k] && !bsearch(&r->jobs[k], live, l->njobs, sizeof *live, by_address))
			r->jobs[k] = NULL;
	free(live);
	r->dropped = l->jobs_dropped;
	return 0;
}

void jobrefs_free(struct jobrefs *r)
{
	free(r->jobs);
	*r = (struct jobrefs){ 0 };
}
