/* SPDX-License-Identifier: MIT */
#include "fleet_events.h"

#include <stdlib.h>
#include <string.h>

#include "fleet_params.h"

struct fleet_event_node {
	struct fleet_event_node *next;
	struct fleet_event ev;
	char *job, *message;
};

static void free_node(struct fleet_event_node *e)
{
	if (!e)
		return;
	free(e->job);
	free(e->message);
	free(e);
}

int fleet_events_push(struct fleet_events *q, const struct fleet_event *ev, const char *job,
		      const char *message)
{
	struct fleet_event_node *e = calloc(1, sizeof *e);

	if (e) {
		e->ev = *ev;
		e->job = job ? strdup(job) : NULL;
		e->message = message ? fleet_one_line(message) : NULL;
	}
	if (!e || (job && !e->job) || (message && !e->message)) {
		free_node(e);
		q->lost = true;
		return -1;
	}
	e->ev.job = e->job;
	e->ev.message = e->message;
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	return 0;
}

void fleet_events_error(struct fleet_events *q, const struct fleet_secrets *secrets,
			const char *call, const char *message)
{
	char clean[2048];

	fleet_secrets_scrub(secrets, message ? message : "unknown error", clean, sizeof clean);
	fleet_events_push(q, &(struct fleet_event){ .kind = FLEET_EVENT_ERROR, .call = call }, NULL,
			  clean);
}

void fleet_events_outcome(struct fleet_events *q, uint64_t token, const char *job,
			  int64_t scheduled_ns, enum fleet_outcome o)
{
	fleet_events_push(q,
			  &(struct fleet_event){ .kind = FLEET_EVENT_CLAIM, .token = token,
						 .scheduled_ns = scheduled_ns, .outcome = o },
			  job, NULL);
}

bool fleet_events_next(struct fleet_events *q, struct fleet_event *out)
{
	struct fleet_event_node *e = q->head;

	free_node(q->taken);
	q->taken = NULL;
	if (!e)
		return false;
	q->head = e->next;
	if (!q->head)
		q->tail = NULL;
	q->taken = e;
	*out = e->ev;
	return true;
}

void fleet_events_clear(struct fleet_events *q)
{
	struct fleet_event_node *e;

	while ((e = q->head)) {
		q->head = e->next;
		free_node(e);
	}
	free_node(q->taken);
	q->head = q->tail = q->taken = NULL;
}
