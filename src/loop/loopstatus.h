/* SPDX-License-Identifier: MIT */
/* loopstatus: how the event loop is doing — running or shutting down, the
 * exit status so far, and a stop that was asked for. The loop's modules
 * (tick, runs, claims, reload, deadlines) write it where they fail or
 * decide that tfd ends; none of them calls up into loop.c. loop.c reads
 * it after each handler it dispatches and carries out an asked-for stop
 * (libuv's way: status flows down, nothing below reaches up to fail the
 * loop). The phase changes at once, so that what a handler does after
 * its failure already sees the shutdown. */
#ifndef TFD_LOOPSTATUS_H
#define TFD_LOOPSTATUS_H

#include <stdbool.h>

struct events;

enum phase {
	PHASE_RUNNING,  /* schedules go on (some may have ended) */
	PHASE_DRAINING, /* --on-stop=wait after a signal: every schedule has
			 * ended and nothing new starts (no elapse, queued
			 * run, retry, reload or tfdctl run); the runs going
			 * end on their own, their ends are written (the
			 * fleet's too), then tfd exits as if its schedules
			 * had ended */
	PHASE_SHUTDOWN, /* a signal or a failure: runs were sent a signal
			 * (or, left, go on without tfd) */
};

struct loop_status {
	enum phase phase;
	int status;   /* tfd's exit status so far */
	bool final;   /* -E or a failure fixed the status */
	int stop_sig; /* a stop asked for and not carried out yet (0: none) */
	bool oom;     /* an allocation below failed (the readers' lines, a
		       * mail printed): sticky until loop.c fails once */
	bool gone;    /* removed jobs may have nothing left: loop.c looks */
	bool left;    /* --on-stop=leave: tfd exits without its runs */
};

/* tfd ends with STATUS whatever happens later (-E, a failure). */
void status_set(struct loop_status *s, int status);

/* A lone schedule's run ended with STATUS: tfd's exit status so far, as
 * the next run's may be; kept unless a status was fixed or tfd is
 * shutting down (then that says how tfd ends). */
void status_so_far(struct loop_status *s, int status);

/* tfd ends with STATUS (unless one was fixed before) and stops as if
 * sent SIGTERM: a failure, -E, a --join target gone. */
void status_end(struct loop_status *s, int status);

/* tfd stops as if sent SIG: every schedule ends and the runs are sent
 * SIG (loop.c does it, once the handler returns). */
void status_stop(struct loop_status *s, int sig);

/* --on-stop=wait: tfd drains (PHASE_DRAINING), unless it is already
 * shutting down. */
void status_drain(struct loop_status *s);

/* Whether tfd drains (--on-stop=wait after a signal): what --fleet asks
 * to claim nothing more while the runs going end and their ends are
 * written. (Any phase but PHASE_RUNNING starts nothing new.) */
static inline bool status_draining(const struct loop_status *s)
{
	return s->phase == PHASE_DRAINING;
}

/* One of the loop's own calls failed (errno says why): a line on EV's
 * stderr, and tfd stops with status 1. */
void status_fail(struct loop_status *s, struct events *ev, const char *call);
void status_fail_oom(struct loop_status *s, struct events *ev);

/* The stop asked for since the last call (0: none), now taken. */
int status_take_stop(struct loop_status *s);

#endif
