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

/* Lines told lately (errors and notes), so that one said again and again
 * (a full disk refusing each statement, a server that drops each idle
 * connection) is told once, then as a count, at most once a period. */
#define FLEET_REPEAT_NS (INT64_C(60) * 1000000000)
#define FLEET_REPEAT_MAX 32

struct fleet_told {
	char *key;                  /* NULL: a free slot */
	char *message;              /* the latest line of this key */
	enum fleet_event_kind kind; /* FLEET_EVENT_ERROR or FLEET_EVENT_NOTE */
	const char *call;           /* a static string */
	int64_t told_at;            /* monotonic: when it was last told */
	uint64_t more;              /* said since, not told */
};

struct fleet_repeats {
	struct fleet_told told[FLEET_REPEAT_MAX];
};

struct fleet_events {
	struct fleet_event_node *head, *tail;
	struct fleet_event_node *taken; /* the event last handed out */
	bool lost;                      /* an event could not be queued (no memory) */
	struct fleet_repeats repeats;
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

/* A note (FLEET_EVENT_NOTE: a line that is no failure, such as "connected")
 * MESSAGE, told at most once a period for KEY, as errors are. */
void fleet_events_note(struct fleet_events *q, const char *key, const char *message);

/* The counts of lines said again within their period, due by NOW
 * (monotonic), queued as their lines with the count; and when the next
 * is due (INT64_MAX: none). */
void fleet_events_flush(struct fleet_events *q, int64_t now);
int64_t fleet_events_flush_at(const struct fleet_events *q);

/* The rule, apart for its tests: whether a line of KEY (MESSAGE, of KIND
 * and CALL) said at NOW is told now (true: first, or its last telling is
 * a period old; *MORE then holds how many were said since and not told),
 * or only counted (false). Memory that runs out tells every line. */
bool fleet_repeats_tell(struct fleet_repeats *r, enum fleet_event_kind kind, const char *call,
			const char *key, const char *message, int64_t now, uint64_t *more);
/* A count due at NOW (its last telling a period old, and lines said
 * since): true with the slot's line in *OUT, whose count is then told;
 * slots a period old with nothing more are freed. */
bool fleet_repeats_due(struct fleet_repeats *r, int64_t now, struct fleet_told *out);
void fleet_repeats_free(struct fleet_repeats *r);

/* A claim's outcome O, for the claim TOKEN of JOB at SCHEDULED_NS. */
void fleet_events_outcome(struct fleet_events *q, uint64_t token, const char *job,
			  int64_t scheduled_ns, enum fleet_outcome o);

/* The oldest event into *OUT; false when none is queued. */
bool fleet_events_next(struct fleet_events *q, struct fleet_event *out);

/* Frees every event, handed out or not. */
void fleet_events_clear(struct fleet_events *q);

#endif
