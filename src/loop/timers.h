/* SPDX-License-Identifier: MIT */
/* timers: one timerfd armed at an absolute instant, knowing nothing of
 * what it times. The loop keeps one per clock in use (armed at the
 * earliest elapse of that clock's jobs, with the kernel's interval when a
 * periodic job leads) and one on CLOCK_MONOTONIC for every deadline. A
 * timer remembers what the kernel holds, so arming it again at the same
 * instant is no system call: a periodic single job ticks with none. */
#ifndef TFD_TIMERS_H
#define TFD_TIMERS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct timer {
	int fd;               /* -1: not open */
	clockid_t clock;      /* the timerfd's clock */
	clockid_t read_clock; /* clock_gettime's name for it */
	int64_t armed;        /* the kernel's next expiration; INT64_MAX: disarmed;
			       * -1: unknown, the next timer_arm asks the kernel */
	int64_t period;       /* the kernel's interval (it_interval); 0: one-shot */
};

/* A timer not yet open (fd -1); timer_open opens it. */
void timer_init(struct timer *t);

/* Opens a timerfd on CLOCK (READ_CLOCK is the clock that reads it: the
 * alarm clocks cannot be read themselves). Returns 0, or -1 with errno. */
int timer_open(struct timer *t, clockid_t clock, clockid_t read_clock);
void timer_close(struct timer *t);

/* Arms T at the absolute instant AT (INT64_MAX: disarm), repeating every
 * PERIOD ns (0: once). An instant at or before the clock's zero fires at
 * once (a zero it_value would disarm). CANCEL_ON_SET asks to hear of a
 * realtime clock being set (timer_read then says so). Nothing is asked of
 * the kernel when it already holds AT and PERIOD. Returns 0, or -1 with
 * errno; either way T counts as armed at AT, so a failure is reported once. */
int timer_arm(struct timer *t, int64_t at, int64_t period, bool cancel_on_set);

/* Forgets what the kernel holds: the next timer_arm asks it again. */
void timer_forget(struct timer *t);

enum timer_read {
	TIMER_READ_OK,        /* it expired, or nothing was there to read */
	TIMER_READ_CLOCK_SET, /* the realtime clock was set (ECANCELED) */
	TIMER_READ_ERROR,     /* errno says why */
};

/* Reads T's expiration count (non-blocking). */
enum timer_read timer_read(struct timer *t);

/* After an expiration at or before NOW: records where a periodic timer
 * goes off next (the first point of its grid after NOW), or that only
 * timer_arm can tell (armed -1). */
void timer_expired(struct timer *t, int64_t now);

#endif
