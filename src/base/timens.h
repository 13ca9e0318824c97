/* SPDX-License-Identifier: MIT */
/* timens: nanosecond counts and the kernel's struct timespec. */
#ifndef TFD_TIMENS_H
#define TFD_TIMENS_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_USEC INT64_C(1000)
#define NSEC_PER_SEC INT64_C(1000000000)

static inline int64_t timespec_to_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Floor division, so instants before the epoch split correctly too. */
static inline struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts;
	int64_t sec = ns / NSEC_PER_SEC, rem = ns % NSEC_PER_SEC;

	if (rem < 0) {
		sec--;
		rem += NSEC_PER_SEC;
	}
	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)rem;
	return ts;
}

/* clock_gettime cannot fail for the clocks tfd uses once timerfd_create
 * accepted them, so the reading is returned directly. */
static inline int64_t clock_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return timespec_to_ns(ts);
}

/* AT + SPAN, or INT64_MAX when the sum is past what int64_t holds: an
 * instant that far off is one that never comes, as INT64_MAX means "no
 * deadline" wherever tfd keeps one. */
static inline int64_t ns_after(int64_t at, int64_t span)
{
	int64_t sum;

	return __builtin_add_overflow(at, span, &sum) ? INT64_MAX : sum;
}

/* The monotonic instant SPAN from now, as ns_after. */
static inline int64_t mono_after(int64_t span)
{
	return ns_after(clock_now_ns(CLOCK_MONOTONIC), span);
}

#endif
