/* SPDX-License-Identifier: MIT */
#include "deadlines.h"

#include "claims.h"
#include "http.h"
#include "control.h"
#include "mailer.h"
#include "notify.h"   /* notify row (issue 34) */
#include "reload.h"
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

	if (reload_deadline(l) < d)
		d = reload_deadline(l);
	if (claims_deadline(l) < d)
		d = claims_deadline(l);
	if (mailer_deadline(&l->mailer) < d)
		d = mailer_deadline(&l->mailer);
	if (l->cfg->http && http_deadline(l->cfg->http) < d)
		d = http_deadline(l->cfg->http);
	if (control_deadline(l->control) < d)
		d = control_deadline(l->control);
	if (l->notify && notify_row.deadline(l->notify) < d)   /* notify row (issue 34) */
		d = notify_row.deadline(l->notify);
	/* HTTP's answers that wait for their budget (slices.h). */
	if (l->cfg->http && http_held(l->cfg->http) && slice_budget_next(&l->http_slices) < d)
		d = slice_budget_next(&l->http_slices);
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
	if (reload_deadline(l) <= now)
		reload_now(l);
	mailer_expire(&l->mailer, now);
	/* libmicrohttpd counts its timeouts in milliseconds from its own
	 * reading of the clock: it is asked, not compared with NOW. */
	if (l->cfg->http)
		http_service(l->cfg->http);
	control_expire(l->control, now);
	if (l->notify)   /* notify row (issue 34) */
		notify_row.expire(l->notify, now);
}
