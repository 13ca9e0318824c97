/* SPDX-License-Identifier: MIT */
#include "fleet_events.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_params.h"
#include "timens.h"

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

/* Repeats */

static void free_told(struct fleet_told *t)
{
	free(t->key);
	free(t->message);
	*t = (struct fleet_told){ .key = NULL };
}

static struct fleet_told *told_of(struct fleet_repeats *r, const char *key)
{
	for (size_t i = 0; i < FLEET_REPEAT_MAX; i++)
		if (r->told[i].key && strcmp(r->told[i].key, key) == 0)
			return &r->told[i];
	return NULL;
}

static struct fleet_told *free_slot(struct fleet_repeats *r)
{
	for (size_t i = 0; i < FLEET_REPEAT_MAX; i++)
		if (!r->told[i].key)
			return &r->told[i];
	return NULL;
}

bool fleet_repeats_tell(struct fleet_repeats *r, enum fleet_event_kind kind, const char *call,
			const char *key, const char *message, int64_t now, uint64_t *more)
{
	struct fleet_told *t = told_of(r, key);
	char *latest;

	*more = 0;
	if (t && now - t->told_at < FLEET_REPEAT_NS) {
		/* The latest line is the one its count is told with. */
		if ((latest = strdup(message))) {
			free(t->message);
			t->message = latest;
		}
		t->more++;
		return false;
	}
	if (t) {
		*more = t->more;
		t->more = 0;
		t->told_at = now;
		return true;
	}
	if ((t = free_slot(r)) && (t->key = strdup(key)) && (t->message = strdup(message))) {
		t->kind = kind;
		t->call = call;
		t->told_at = now;
	} else if (t) {
		free_told(t); /* no memory: told every time */
	}
	return true;
}

bool fleet_repeats_due(struct fleet_repeats *r, int64_t now, struct fleet_told *out)
{
	for (size_t i = 0; i < FLEET_REPEAT_MAX; i++) {
		struct fleet_told *t = &r->told[i];

		if (!t->key || now - t->told_at < FLEET_REPEAT_NS)
			continue;
		if (t->more == 0) {
			free_told(t);
			continue;
		}
		*out = *t;
		t->more = 0;
		t->told_at = now;
		return true;
	}
	return false;
}

void fleet_repeats_free(struct fleet_repeats *r)
{
	for (size_t i = 0; i < FLEET_REPEAT_MAX; i++)
		free_told(&r->told[i]);
}

/* MESSAGE as the line told, with the count of those said and not told
 * since the last telling. */
static void push_told(struct fleet_events *q, enum fleet_event_kind kind, const char *call,
		      const char *message, uint64_t more)
{
	char line[2200];

	if (more)
		snprintf(line, sizeof line, "%s (%" PRIu64 " more time%s in the last %d s)",
			 message, more, more == 1 ? "" : "s",
			 (int)(FLEET_REPEAT_NS / NSEC_PER_SEC));
	fleet_events_push(q, &(struct fleet_event){ .kind = kind, .call = call }, NULL,
			  more ? line : message);
}

static void say(struct fleet_events *q, enum fleet_event_kind kind, const char *call,
		const char *key, const char *message)
{
	uint64_t more;

	if (fleet_repeats_tell(&q->repeats, kind, call, key, message, clock_now_ns(CLOCK_MONOTONIC),
			       &more))
		push_told(q, kind, call, message, more);
}

void fleet_events_error(struct fleet_events *q, const struct fleet_secrets *secrets,
			const char *call, const char *message)
{
	char clean[2048], line[2100], key[2200];

	fleet_secrets_scrub(secrets, message ? message : "unknown error", clean, sizeof clean);
	snprintf(line, sizeof line, "--fleet: %s", clean);
	snprintf(key, sizeof key, "%s\x1f%s", call, line);
	say(q, FLEET_EVENT_ERROR, call, key, line);
}

void fleet_events_note(struct fleet_events *q, const char *key, const char *message)
{
	say(q, FLEET_EVENT_NOTE, NULL, key, message);
}

void fleet_events_flush(struct fleet_events *q, int64_t now)
{
	struct fleet_told t;

	while (fleet_repeats_due(&q->repeats, now, &t))
		push_told(q, t.kind, t.call, t.message, t.more);
}

int64_t fleet_events_flush_at(const struct fleet_events *q)
{
	int64_t first = INT64_MAX;

	for (size_t i = 0; i < FLEET_REPEAT_MAX; i++) {
		const struct fleet_told *t = &q->repeats.told[i];

		if (t->key && t->more > 0 && t->told_at + FLEET_REPEAT_NS < first)
			first = t->told_at + FLEET_REPEAT_NS;
	}
	return first;
}

void fleet_events_outcome(struct fleet_events *q, uint64_t token, const char *job,
			  int64_t scheduled_ns, enum fleet_outcome o)
{
	fleet_events_push(q,
			  &(struct fleet_event){ .kind = FLEET_EVENT_CLAIM,
						 .token = token,
						 .scheduled_ns = scheduled_ns,
						 .outcome = o },
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
	fleet_repeats_free(&q->repeats);
}
