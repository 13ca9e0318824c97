/* SPDX-License-Identifier: MIT */
/* claims: the event loop's side of --fleet. An elapse of a job under
 * --fleet is not acted on when it is due: it is claimed (fleet_claim) and
 * its tick held here until the fleet answers; then it acts as without
 * --fleet (won), or is printed with action "elsewhere", "skip" or "missed".
 * A won elapse that ran is reported once when its run, retries included,
 * ends (or dropped when it will not run). The loop sees no SQL and no
 * fleet call: the poll slot, its deadline and the events go through here.
 * Without --fleet (l->claims NULL) every call costs nothing. */
#ifndef TFD_CLAIMS_H
#define TFD_CLAIMS_H

#include <stdbool.h>
#include <stdint.h>

#include "fleet.h"
#include "jobstate.h"
#include "loopstate.h"

/* What the fleet's answers to tfdctl are handed to (control_cmds.c, which is
 * above: the loop sets them, as it sets runs.h's hooks). ARG is the
 * loop's. */
struct claims_hooks {
	/* The claim of tfdctl run's tick T of J was answered and acted on
	 * (T's action). */
	void (*manual_answered)(void *arg, struct job *j, const struct tick *t);
	/* A pause or resume, TOKEN's, written (MESSAGE NULL) or refused. */
	void (*pause_answered)(void *arg, uint64_t token, const char *message);
	void *arg;
};

/* Sets up l->claims when the loop has a fleet and begins connecting; the
 * answers to tfdctl go to HOOKS. Returns -1 when memory ran out. */
int claims_start(struct loop *l, const struct claims_hooks *hooks);

/* The loop's jobs changed (a reload): the fleet is told their
 * fingerprints. */
void claims_jobs_changed(struct loop *l);

/* At the decision point of an elapse of J: true when the tick T is held
 * for the fleet's answer (it acts later), false when it acts now (no
 * fleet, or an @reboot job, which each replica runs). */
bool claims_hold(struct loop *l, struct job *j, const struct tick *t);

/* The fleet's descriptor for the poll set (-1: none now) and the
 * monotonic time by which claims_service must run (INT64_MAX: none). */
int claims_poll_fd(const struct loop *l, short *events);
int64_t claims_deadline(const struct loop *l);

/* After each poll: the fleet does what is due (REVENTS of its slot, or 0)
 * and its events are acted on. */
void claims_service(struct loop *l, short revents);

/* After the turn's starts: whether claims just queued wait for more (more
 * starts are due) or go now. */
void claims_note_coming(struct loop *l);

/* Held ticks that wait for their answer: tfd does not end before them. */
bool claims_waiting(const struct loop *l);

/* At J's deadlines (NOW, monotonic), before tick_deadline_due: a won
 * elapse whose action waited for --random-delay and is due now starts
 * only if this replica still holds its claim by the lease
 * (fleet_claim_held); else its row is released, its tick printed as
 * "missed", and J's pending action cleared. Nothing without --fleet. */
void claims_pending_due(struct loop *l, struct job *j, int64_t now);

/* A run of J ended (a try that will be retried, or the last). */
void claims_run_ended(struct loop *l, struct job *j, const struct run_end *e);

/* J leaves the loop: its held ticks and won elapses are given up. */
void claims_job_gone(struct loop *l, struct job *j);

/* At exit: won elapses without an end are written as ended or dropped,
 * and the fleet is served until it has written everything or 2 s passed
 * without an answer. */
void claims_finish(struct loop *l);
void claims_free(struct loop *l);

/* --metrics: the fleet's figures, or NULL without --fleet. */
const struct fleet_metrics *claims_metrics(const struct loop *l);

/* The fleet, or NULL without --fleet (claims_control.c). */
struct fleet *claims_fleet(const struct loop *l);

/* The fleet's last row of a job (F) as a run record: "success", "status
 * N", "signal NAME" (128+N), "timeout", "failure" (abandoned). Returns
 * false while it runs (no result yet; the start is still set). */
bool claims_fleet_record(const struct fleet_last *f, struct run_record *out);

#endif
