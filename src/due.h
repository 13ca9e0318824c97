/* SPDX-License-Identifier: MIT */
/* due: the one place where "an elapse is due and would act" becomes "act
 * now or later". The clocks queue due wake-ups (starts.h); each turn of
 * the loop serves a batch of them here: a paused job's elapse is printed
 * and counted, an elapse under --fleet waits for its claim (claims.h),
 * any other acts now (tick_elapse_act). Whatever must agree before a run
 * starts goes here. Above tick and claims: it calls both, neither calls
 * it. */
#ifndef TFD_DUE_H
#define TFD_DUE_H

#include <stdbool.h>

#include "loopstate.h"

/* True when a queued start can be served now (the loop then polls
 * without waiting). */
bool due_ready(const struct loop *l);

/* Serves at most STARTS_BATCH queued starts (none in shutdown). */
void due_serve(struct loop *l);

#endif
