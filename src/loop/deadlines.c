/* SPDX-License-Identifier: MIT */
#include "deadlines.h"

#include "claims.h"
#include "ownertab.h"
#include "tick.h"
#include "timens.h"

void deadlines_init(struct loop *l)
{
	timer_init(&l->deadline);
	heap_init(&l->aux);
}

void deadlines_free(struct loop *l)
{
	timer_close(&l->deadline);
	heap_free(&l->aux);
}

void deadlines_arm(struct loop *l)
{
	int64_t d = heap_min_key(&l->aux);
	int64_t rows = ownertab_deadline(l);

	if (rows < d)
		d = rows;
	if (timer_arm(&l->deadline, d, 0, false) != 0)
		status_fail(&l->st, &l->ev, "timerfd_settime");
}

void deadlines_due(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);
	size_t budget = l->aux.n;

	if (timer_read(&l->deadline) == TIMER_READ_ERROR)
		status_fail(&l->st, &l->ev, "read (timerfd)");
	timer_forget(&l->deadline);
	/* A stop asked for (a failed start under -E) is carried out before
	 * the next job's deadline: the loop arms the timer again, at once. */
	for (; budget > 0 && heap_min_key(&l->aux) <= now && !l->st.stop_sig; budget--) {
		struct job *j = heap_top(&l->aux)->item;

		claims_pending_due(l, j, now);
		tick_deadline_due(l, j, now);
	}
	ownertab_expire(l, now);
}
