/* SPDX-License-Identifier: MIT */
#include "due.h"

#include "claims.h"
#include "claims_control.h"
#include "starts.h"
#include "tick.h"

bool due_ready(const struct loop *l)
{
	return l->st.phase == PHASE_RUNNING && starts_ready(&l->starts, l->readers.n);
}

/* The wake-up T of J acts: its run (per --overlap and --random-delay)
 * and its tick line. */
static void act_due(struct loop *l, struct job *j, struct tick *t)
{
	if (j->state->removed)
		return;
	/* An elapse is due. Under --fleet it acts once claimed (claims.h),
	 * and the claim says whether the job is paused. */
	if (j->state->paused && j->state->runner && !claims_decide(l, j))
		tick_elapse_paused(l, j, t);
	else if (!claims_hold(l, j, t))
		tick_elapse_act(l, j, t);
	tick_note_setting(l, j, t->seq);
}

void due_serve(struct loop *l)
{
	struct start s;

	for (size_t served = 0; served < STARTS_BATCH && due_ready(l); served++)
		if (starts_pop(&l->starts, &s))
			act_due(l, s.job, &s.tick);
}

enum due_manual due_manual(struct loop *l, struct job *j, struct tick *t)
{
	if (!j->state->runner)
		return DUE_MANUAL_NO_COMMAND;
	/* Draining, the runs going end and nothing new starts, as for the
	 * queued starts (due_ready). */
	if (l->st.phase != PHASE_RUNNING)
		return DUE_MANUAL_STOPPING;
	if (claims_decide(l, j) && !claims_connected(l))
		return DUE_MANUAL_NO_DATABASE;
	tick_manual(l, j, t);
	return claims_decide(l, j) ? DUE_MANUAL_CLAIM : DUE_MANUAL_NOW;
}

void due_manual_act(struct loop *l, struct job *j, struct tick *t)
{
	if (!claims_hold(l, j, t))
		tick_act_manual(l, j, t);
}
