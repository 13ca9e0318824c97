/* SPDX-License-Identifier: MIT */
#include "jobstate.h"

#include <stdlib.h>
#include <string.h>

static void state_init(struct job_state *s, struct job *j)
{
	s->due_node.index = s->aux_node.index = HEAP_ABSENT;
	s->due_node.item = s->aux_node.item = j;
	s->for_deadline = INT64_MAX;
	s->metrics = (struct job_metrics)JOB_METRICS_INIT;
	s->metrics.notifies = notify_target_any(&j->notify);
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
	if (j->state->history)
		free(j->state->history->tail);
	free(j->state->history);
	free(j->state->fleet_seen);
	free(j->state->notify_seen);
	if (!j->state->in_block)
		free(j->state);
	j->state = NULL;
}

/* History */

struct job_history *job_history_of(struct job *j)
{
	if (!j->state->history)
		j->state->history = calloc(1, sizeof *j->state->history);
	return j->state->history;
}

void job_history_add(struct job *j, const struct run_record *r)
{
	struct job_history *h = job_history_of(j);

	if (!h)
		return;
	h->runs[h->next] = *r;
	h->next = (h->next + 1) % JOB_HISTORY;
	if (h->n < JOB_HISTORY)
		h->n++;
}

const struct run_record *job_history_get(const struct job *j, unsigned i)
{
	const struct job_history *h = j->state->history;

	if (!h || i >= h->n)
		return NULL;
	return &h->runs[(h->next + JOB_HISTORY - 1 - i) % JOB_HISTORY];
}

void job_history_tail_reset(struct job *j)
{
	struct job_history *h = j->state->history;

	if (h)
		h->tail_len = h->tail_head = 0;
}

void job_history_tail_add(struct job *j, const char *buf, size_t n)
{
	struct job_history *h = job_history_of(j);

	if (h && !h->tail)
		h->tail = malloc(JOB_TAIL_MAX);
	if (!h || !h->tail)
		return;
	if (n >= JOB_TAIL_MAX) {
		memcpy(h->tail, buf + n - JOB_TAIL_MAX, JOB_TAIL_MAX);
		h->tail_len = JOB_TAIL_MAX;
		h->tail_head = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		h->tail[(h->tail_head + h->tail_len) % JOB_TAIL_MAX] = buf[i];
		if (h->tail_len < JOB_TAIL_MAX)
			h->tail_len++;
		else
			h->tail_head = (h->tail_head + 1) % JOB_TAIL_MAX;
	}
}

size_t job_history_tail(const struct job *j, char *buf)
{
	const struct job_history *h = j->state->history;

	if (!h || !h->tail)
		return 0;
	for (size_t i = 0; i < h->tail_len; i++)
		buf[i] = h->tail[(h->tail_head + i) % JOB_TAIL_MAX];
	return h->tail_len;
}
