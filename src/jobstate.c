/* SPDX-License-Identifier: MIT */
#include "jobstate.h"

#include <stdlib.h>

static void state_init(struct job_state *s, struct job *j)
{
	s->due_node.index = s->aux_node.index = HEAP_ABSENT;
	s->due_node.item = s->aux_node.item = j;
	s->for_deadline = INT64_MAX;
	s->metrics = (struct job_metrics)JOB_METRICS_INIT;
	j->state = s;
}

int job_state_attach(struct job *j)
{
	struct job_state *s = calloc(1, sizeof *s);

	if (!s)
		return -1;
	state_init(s, j);
	return 0;
}

struct job_state *job_states_attach(struct job *const *jobs, size_t n)
{
	struct job_state *block = calloc(n + 1, sizeof *block);

	for (size_t i = 0; block && i < n; i++) {
		state_init(&block[i], jobs[i]);
		block[i].in_block = true;
	}
	return block;
}

void job_state_free(struct job *j)
{
	if (!j->state)
		return;
	runner_free(j->state->runner);
	if (!j->state->in_block)
		free(j->state);
	j->state = NULL;
}
