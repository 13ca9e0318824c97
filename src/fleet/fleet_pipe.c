/* SPDX-License-Identifier: MIT */
#include "fleet_pipe.h"

#include "pq.h"

void fleet_pipe_sent(struct fleet_pipe *p, struct op *op)
{
	fleet_queue_push(&p->sent, op);
}

bool fleet_pipe_awaits(const struct fleet_pipe *p)
{
	return p->sent.head || p->sync_due;
}

struct op *fleet_pipe_oldest(const struct fleet_pipe *p)
{
	return p->sent.head;
}

enum fleet_pipe_read fleet_pipe_read(struct fleet_pipe *p, int status)
{
	if (p->answered)
		return FLEET_PIPE_CONFUSED; /* its answer would be read twice */
	if (p->sync_due) {
		if (status != PQ_RESULT_SYNC)
			return FLEET_PIPE_CONFUSED;
		p->sync_due = false;
		return FLEET_PIPE_SYNCED;
	}
	if (!p->sent.head || status == PQ_RESULT_SYNC)
		return FLEET_PIPE_CONFUSED;
	if (status >= 0)
		return FLEET_PIPE_RESULT;
	p->sync_due = true;
	p->answered = true;
	return FLEET_PIPE_ANSWERED;
}

struct op *fleet_pipe_take_answered(struct fleet_pipe *p)
{
	if (!p->answered)
		return NULL;
	p->answered = false;
	return fleet_queue_pop(&p->sent);
}

struct op *fleet_pipe_take_back(struct fleet_pipe *p)
{
	struct op *newest = NULL, *op;

	while ((op = fleet_queue_pop(&p->sent))) {
		op->next = newest;
		newest = op;
	}
	p->sync_due = p->answered = false;
	return newest;
}
