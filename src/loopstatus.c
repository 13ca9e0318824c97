/* SPDX-License-Identifier: MIT */
#include "loopstatus.h"

#include <errno.h>
#include <signal.h>

#include "events.h"

void status_set(struct loop_status *s, int status)
{
	if (!s->final) {
		s->status = status;
		s->final = true;
	}
}

void status_so_far(struct loop_status *s, int status)
{
	if (s->phase != PHASE_SHUTDOWN && !s->final)
		s->status = status;
}

void status_stop(struct loop_status *s, int sig)
{
	if (s->phase != PHASE_SHUTDOWN && !s->final)
		s->status = 128 + sig;
	s->phase = PHASE_SHUTDOWN;
	s->stop_sig = sig;
}

void status_end(struct loop_status *s, int status)
{
	status_set(s, status);
	status_stop(s, SIGTERM);
}

void status_drain(struct loop_status *s)
{
	if (s->phase == PHASE_RUNNING)
		s->phase = PHASE_DRAINING;
}

/* Failures of the loop's own calls end tfd with status 1. */
void status_fail(struct loop_status *s, struct events *ev, const char *call)
{
	events_failure(ev, call, errno);
	status_end(s, 1);
}

void status_fail_oom(struct loop_status *s, struct events *ev)
{
	errno = ENOMEM;
	status_fail(s, ev, "malloc");
}

int status_take_stop(struct loop_status *s)
{
	int sig = s->stop_sig;

	s->stop_sig = 0;
	return sig;
}
