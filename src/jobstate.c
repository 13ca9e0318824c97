#include "jobstate.h"

#include <stdlib.h>

int job_state_attach(struct job *j)
{
	struct job_state *s = calloc(1, sizeof *s);

	if (!s)
		return -1;
	s->due_node.index = s->aux_node.index = HEAP_ABSENT;
	s->due_node.item = s->aux_node.item = j;
	s->for_deadline = INT64_MAX;
	s->metrics = (struct job_metrics)JOB_METRICS_INIT;
	j->state = s;
	return 0;
}

void job_state_free(struct job *j)
{
	if (!j->state)
		return;
	runner_free(j->state->runner);
	free(j->state);
	j->state = NULL;
}
