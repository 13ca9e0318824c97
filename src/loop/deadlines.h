/* SPDX-License-Identifier: MIT */
/* deadlines: the loop's one CLOCK_MONOTONIC timerfd (struct loop's
 * deadline), armed at the earliest of what waits on the monotonic clock:
 * the jobs' deadlines (timeouts, kill graces, retries, --random-delay,
 * --for: the heap of jobs by jobdue_update) and every row's of the table
 * of owners (ownertab.h: a reload's settle, the fleet's timeouts, a
 * sendmail's, --listen's and --control's clients). Each acts on its own
 * when the timer fires. */
#ifndef TFD_DEADLINES_H
#define TFD_DEADLINES_H

#include "loopstate.h"

/* The timer, not open, and the heap of jobs by deadline, empty; then
 * closed and freed. */
void deadlines_init(struct loop *l);
void deadlines_free(struct loop *l);

/* Arms the timer at the earliest deadline (disarms it when there is none). */
void deadlines_arm(struct loop *l);

/* The timer fired: every deadline due now is acted on. */
void deadlines_due(struct loop *l);

#endif
