/* SPDX-License-Identifier: MIT */
#include "jobdue.h"

#include "timens.h"

static int64_t job_deadline(const struct job *j)
{
	int64_t d = j->state->runner ? runner_deadline(j->state->runner) : INT64_MAX;

	if (j->state->pending && j->state->pending_due < d)
		d = j->state->pending_due;
	if (j->state->running && j->state->for_deadline < d)
		d = j->state->for_deadline;
	return d;
}

void jobdue_update(struct loop *l, struct job *j)
{
	int64_t d = job_deadline(j);

	if (d == INT64_MAX)
		heap_remove(&l->aux, &j->state->aux_node);
	else if (heap_set(&l->aux, &j->state->aux_node, d) != 0)
		status_fail_oom(&l->st, &l->ev);
}

int64_t jobdue_next_run_mono(const struct job *j)
{
	int64_t now_clock, mono, left;

	if (!j->state->running)
		return INT64_MAX;
	now_clock = clock_now_ns(j->read_clock);
	mono = clock_now_ns(CLOCK_MONOTONIC);
	if (__builtin_sub_overflow(j->state->walk.at_ns, now_clock, &left))
		return INT64_MAX;
	return ns_after(mono, left);
}
