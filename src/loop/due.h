/* SPDX-License-Identifier: MIT */
/* due: the one place where "a wake-up is due and would act" becomes "act
 * now or later", for an elapse and for tfdctl run alike. The clocks queue
 * due wake-ups (starts.h); each turn of the loop serves a batch of them
 * here: a paused job's elapse is printed and counted, an elapse under
 * --fleet waits for its claim (claims.h), any other acts now
 * (tick_elapse_act; --overlap is the runner's). A manual run enters here
 * too (due_manual). Whatever must agree before a run starts goes here.
 * Above tick and claims: it calls both, neither calls it. */
#ifndef TFD_DUE_H
#define TFD_DUE_H

#include <stdbool.h>

#include "loopstate.h"

/* True when a queued start can be served now (the loop then polls
 * without waiting). */
bool due_ready(const struct loop *l);

/* Serves at most STARTS_BATCH queued starts (none in shutdown). */
void due_serve(struct loop *l);

/* tfdctl run of J, outside its schedule: whether it may run now. */
enum due_manual {
	DUE_MANUAL_NOW,         /* it acts at due_manual_act */
	DUE_MANUAL_CLAIM,       /* --fleet: due_manual_act asks its claim, and it
				  * acts once won (claims.h's manual_answered) */
	DUE_MANUAL_NO_COMMAND,  /* J only prints: nothing to run */
	DUE_MANUAL_STOPPING,    /* tfd shuts down or drains (--on-stop=wait):
				  * nothing new starts */
	DUE_MANUAL_NO_DATABASE, /* --fleet without its database: a run now
				  * must be claimed, and nobody can */
};

/* The verdict on a manual run of J and, for NOW and CLAIM, its wake-up
 * made into T ("trigger": "manual"; J's seq advanced): T's seq is the
 * run's number. A paused job runs (the caller asked for this run); its
 * overlap with a run going is --overlap's, as an elapse's. The run
 * starts in a second call, due_manual_act, because a start the kernel
 * refuses ends the run inside it: whoever waits for its end must know
 * its number first. */
enum due_manual due_manual(struct loop *l, struct job *j, struct tick *t);

/* T (due_manual's) acts: under --fleet its claim is asked, else it acts
 * now and T's action says what it did (TICK_RUN, _QUEUE, _KILL, _SKIP;
 * TICK_ACTION_NONE: the loop failed). */
void due_manual_act(struct loop *l, struct job *j, struct tick *t);

#endif
