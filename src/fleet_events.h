/* SPDX-License-Identifier: MIT */
/* fleet_events: what the fleet has to tell the loop (a claim's outcome, an
 * error, the link going up or down), queued in the order it happened and
 * handed out one at a time, private to the fleet's files. The queue owns
 * copies of the texts; an event handed out stays valid until the next is
 * asked for or the queue is cleared. */
#ifndef TFD_FLEET_EVENTS_H
#define TFD_FLEET_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fleet_types.h"
#include "fleet_secrets.h"

struct fleet_event_node;

struct fleet_events {
	struct fleet_event_node *head, *tail;
	struct fleet_event_node *taken;  /* the event last handed out */
	bool lost;                       /* an event could not be queued (no memory) */
};

/* Queues EV with copies of JOB and MESSAGE (made one line); either may be
 * NULL. Returns -1, and sets lost, when memory runs out. */
int fleet_events_push(struct fleet_events *q, const struct fleet_event *ev, const char *job,
		      const char *message);

/* An error event: CALL ("postgresql", "clock", "fleet") and MESSAGE
 * (NULL: "unknown error") scrubbed of every fragment of the passwords in
 * SECRETS, since libpq's messages quote its input, which may hold one. */
void fleet_events_error(struct fleet_events *q, const struct fleet_secrets *secrets,
			const char *call, const char *message);

/* A claim's outcome O, for the claim TOKEN of JOB at SCHEDULED_NS. */
void fleet_events_outcome(struct fleet_events *q, uint64_t token, const char *job,
			  int64_t scheduled_ns, enum fleet_outcome o);

/* The oldest event into *OUT; false when none is queued. */
bool fleet_events_next(struct fleet_events *q, struct fleet_event *out);

/* Frees every event, handed out or not. */
void fleet_events_clear(struct fleet_events *q);

#endif
