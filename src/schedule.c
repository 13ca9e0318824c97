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

uint64_t schedule_count_missed(const struct schedule *s, int64_t armed_ns,
			       int64_t now_ns, uint64_t cap, int64_t *newest_ns)
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
