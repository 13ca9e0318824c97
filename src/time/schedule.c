/* SPDX-License-Identifier: MIT */
#include "schedule.h"

static int timer_next(const struct schedule *s, int64_t after_ns, int64_t *next_ns)
{
	int64_t k, at, step, since;

	if (after_ns < s->first_ns) {
		*next_ns = s->first_ns;
		return 0;
	}
	if (s->interval_ns == 0)
		return -1;
	/* Expiration k+1 is the first one past AFTER: the grid never drifts.
	 * AFTER - FIRST overflows only past the end of time: no expiration. */
	if (__builtin_sub_overflow(after_ns, s->first_ns, &since))
		return -1;
	k = since / s->interval_ns + 1;
	if (__builtin_mul_overflow(k, s->interval_ns, &step) ||
	    __builtin_add_overflow(s->first_ns, step, &at))
		return -1;
	*next_ns = at;
	return 0;
}

int schedule_next(const struct schedule *s, int64_t after_ns, int64_t *next_ns)
{
	switch (s->kind) {
	case SCHEDULE_CALENDAR:
		return calendar_next(s->calendar, s->zone, after_ns, next_ns);
	case SCHEDULE_CRON:
		return cron_next(s->cron, s->zone, after_ns, next_ns);
	case SCHEDULE_TIMER:
		break;
	}
	return timer_next(s, after_ns, next_ns);
}

int schedule_nth(const struct schedule *s, uint64_t k, int64_t *at_ns)
{
	int64_t step;

	if (k == 0 || (k > 1 && s->interval_ns == 0) || k - 1 > INT64_MAX)
		return -1;
	if (__builtin_mul_overflow((int64_t)(k - 1), s->interval_ns, &step) ||
	    __builtin_add_overflow(s->first_ns, step, at_ns))
		return -1;
	return 0;
}

bool schedule_missed(const struct schedule *s, int64_t since_ns, int64_t now_ns)
{
	int64_t next, due;

	if (s->kind == SCHEDULE_TIMER) {
		/* An interval timer restarts with tfd; what was missed is one
		 * whole interval without a run since the last one. */
		if (s->interval_ns == 0)
			return false;
		if (__builtin_add_overflow(since_ns, s->interval_ns, &due))
			return false;
		return due <= now_ns;
	}
	return schedule_next(s, since_ns, &next) == 0 && next <= now_ns;
}

/* For calendar and cron after a wake-up: how many elapses lie in
 * (ARMED_NS, NOW_NS] beyond the armed one (missed while suspended), capped at
 * CAP, and the newest of them (ARMED_NS when none). */
static uint64_t count_missed(const struct schedule *s, int64_t armed_ns, int64_t now_ns,
			     uint64_t cap, int64_t *newest_ns)
{
	uint64_t n = 0;
	int64_t t = armed_ns, next;

	while (n < cap && schedule_next(s, t, &next) == 0 && next <= now_ns) {
		t = next;
		n++;
	}
	*newest_ns = t;
	return n;
}

bool schedule_repeats(const struct schedule *s)
{
	return s->kind != SCHEDULE_TIMER || s->interval_ns != 0;
}

void schedule_walk_init(struct schedule_walk *w, const struct schedule *s, uint64_t count,
			int64_t end_ns)
{
	*w = (struct schedule_walk){ .s = s,
				     .count = count,
				     .end_ns = end_ns,
				     .k = 1,
				     .at_ns = INT64_MAX,
				     .last_ns = INT64_MIN };
}

static int walk_within(const struct schedule_walk *w)
{
	return w->at_ns <= w->end_ns ? 0 : -1;
}

int schedule_walk_first(struct schedule_walk *w, int64_t now_ns)
{
	if (w->s->kind != SCHEDULE_TIMER)
		return schedule_walk_after(w, now_ns);
	w->k = 1;
	w->at_ns = w->s->first_ns;
	return walk_within(w);
}

int schedule_walk_after(struct schedule_walk *w, int64_t after_ns)
{
	const struct schedule *s = w->s;

	if (s->kind != SCHEDULE_TIMER)
		return schedule_next(s, after_ns, &w->at_ns) == 0 ? walk_within(w) : -1;
	if (after_ns < s->first_ns || s->interval_ns == 0) {
		w->k = 1;
		w->at_ns = s->first_ns;
		return walk_within(w);
	}
	/* Back onto the grid: no drift. */
	w->k = (uint64_t)((after_ns - s->first_ns) / s->interval_ns) + 2;
	return schedule_nth(s, w->k, &w->at_ns) == 0 ? walk_within(w) : -1;
}

int schedule_walk_clock_set(struct schedule_walk *w, int64_t now_ns)
{
	if (w->at_ns <= now_ns)
		return walk_within(w);
	return schedule_walk_after(w, now_ns > w->last_ns ? now_ns : w->last_ns);
}

/* How many expirations a wake-up at NOW passes: AT and those missed since. */
static uint64_t walk_count(struct schedule_walk *w, int64_t now_ns, uint64_t cap,
			   int64_t *newest_ns)
{
	const struct schedule *s = w->s;
	uint64_t n = 1;

	*newest_ns = w->at_ns;
	if (s->kind != SCHEDULE_TIMER)
		return n + count_missed(s, w->at_ns, now_ns, cap, newest_ns);
	if (s->interval_ns > 0 && now_ns > w->at_ns) {
		n += (uint64_t)((now_ns - w->at_ns) / s->interval_ns);
		if (schedule_nth(s, w->k + n - 1, newest_ns) != 0)
			*newest_ns = INT64_MAX;
	}
	w->k += n;
	return n;
}

uint64_t schedule_walk_pass(struct schedule_walk *w, int64_t now_ns, uint64_t cap,
			    int64_t *newest_ns, bool *more)
{
	const struct schedule *s = w->s;
	uint64_t n = walk_count(w, now_ns, cap, newest_ns);

	w->passed += n;
	w->last_ns = *newest_ns;
	if (w->count && w->passed >= w->count)
		*more = false;
	else if (s->kind != SCHEDULE_TIMER)
		*more = schedule_walk_after(w, *newest_ns) == 0;
	else
		*more = s->interval_ns != 0 && schedule_nth(s, w->k, &w->at_ns) == 0 &&
			walk_within(w) == 0;
	return n;
}
