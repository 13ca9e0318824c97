/* SPDX-License-Identifier: MIT */
#include "timers.h"

#include <errno.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "timens.h"

void timer_init(struct timer *t)
{
	*t = (struct timer){ .fd = -1, .armed = INT64_MAX };
}

int timer_open(struct timer *t, clockid_t clock, clockid_t read_clock)
{
	int fd = timerfd_create(clock, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -1;
	*t = (struct timer){ .fd = fd,
			     .clock = clock,
			     .read_clock = read_clock,
			     .armed = INT64_MAX };
	return 0;
}

void timer_close(struct timer *t)
{
	if (t->fd >= 0)
		close(t->fd);
	timer_init(t);
}

int timer_arm(struct timer *t, int64_t at, int64_t period, bool cancel_on_set)
{
	struct itimerspec its = { .it_value = ns_to_timespec(at),
				  .it_interval = ns_to_timespec(period) };
	int flags = TFD_TIMER_ABSTIME, rc;

	if (at == INT64_MAX)
		period = 0;
	if (at == t->armed && period == t->period)
		return 0;
	if (at == INT64_MAX)
		its = (struct itimerspec){ { 0, 0 }, { 0, 0 } };
	else if (at <= 0)
		/* A zero it_value would disarm it; the epoch itself (--at
		 * @0) is as past as any other past instant: fire at once. */
		its.it_value = (struct timespec){ 0, 1 };
	if (cancel_on_set)
		flags |= TFD_TIMER_CANCEL_ON_SET;
	rc = timerfd_settime(t->fd, flags, &its, NULL);
	t->armed = at;
	t->period = period;
	return rc == 0 ? 0 : -1;
}

void timer_forget(struct timer *t)
{
	t->armed = -1;
}

enum timer_read timer_read(struct timer *t)
{
	uint64_t n;

	if (read(t->fd, &n, sizeof n) == (ssize_t)sizeof n)
		return TIMER_READ_OK;
	if (errno == ECANCELED)
		return TIMER_READ_CLOCK_SET;
	if (errno == EAGAIN || errno == EINTR)
		return TIMER_READ_OK;
	return TIMER_READ_ERROR;
}

void timer_expired(struct timer *t, int64_t now)
{
	int64_t steps, next;

	if (t->period <= 0 || t->armed == INT64_MAX || t->armed < 0) {
		t->armed = -1;
		return;
	}
	if (t->armed > now)
		return;
	steps = (now - t->armed) / t->period + 1;
	if (__builtin_mul_overflow(steps, t->period, &next) ||
	    __builtin_add_overflow(t->armed, next, &next))
		t->armed = -1;
	else
		t->armed = next;
}
