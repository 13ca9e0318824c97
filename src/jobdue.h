/* SPDX-License-Identifier: MIT */
/* jobdue: when a job next needs the loop on the monotonic clock — its
 * next scheduled run, and its earliest deadline (a run's timeout or kill
 * grace, a retry, a delayed action, --for) kept in the loop's heap of
 * deadlines (deadlines.h). Below tick and runs: both move a job's
 * deadline, neither through the other. */
#ifndef TFD_JOBDUE_H
#define TFD_JOBDUE_H

#include <stdint.h>

#include "loopstate.h"

/* J's earliest deadline into the loop's heap (out of it: none). A heap
 * that cannot grow fails the loop (l->st). */
void jobdue_update(struct loop *l, struct job *j);

/* Monotonic time of J's next scheduled run (INT64_MAX: none). */
int64_t jobdue_next_run_mono(const struct job *j);

#endif
