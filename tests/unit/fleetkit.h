/* SPDX-License-Identifier: MIT */
/* fleetkit: a struct fleet for the unit tests of the fleet's own files
 * (fleet_wins.c, fleet_replica.c, fleet_pause.c, fleet_statement.c),
 * with no server and no libpq: made as fleet_new makes it but for libpq,
 * whose result readers here read answers a test writes (pq.h declares
 * libpq's result only as an incomplete type, which this file completes;
 * test_fleet_answer.c reads its answers through the same readers). A
 * call that would reach the connection would crash the test: those files
 * make none. Also the events the fleet tells, drained. */
#ifndef TFD_FLEETKIT_H
#define TFD_FLEETKIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fleet_int.h"
#include "fleet_statement.h"
#include "harness.h"

#define KIT_SEC INT64_C(1000000000)
#define KIT_ROWS 8
#define KIT_FIELDS 8

struct pg_result {
	/* PQ_COMMAND_OK, PQ_TUPLES_OK or an error; 0 (libpq's
	 * PGRES_EMPTY_QUERY, which no test here answers) reads as
	 * PQ_TUPLES_OK, so a test of rows need not say it. */
	int status;
	const char *sqlstate, *primary, *message; /* an error's fields */
	const char *severity;                     /* NULL: ERROR, as libpq gives it */
	int rows, fields;
	const char *cells[KIT_ROWS][KIT_FIELDS]; /* NULL: SQL null */
};

static inline int kit_result_status(const pq_result *r)
{
	return r->status ? r->status : PQ_TUPLES_OK;
}

static inline char *kit_result_error_message(const pq_result *r)
{
	return (char *)r->message;
}

static inline char *kit_result_error_field(const pq_result *r, int field)
{
	if (field == PQ_DIAG_SQLSTATE)
		return (char *)r->sqlstate;
	if (field == PQ_DIAG_SEVERITY)
		return (char *)(r->severity ? r->severity : "ERROR");
	return field == PQ_DIAG_MESSAGE_PRIMARY ? (char *)r->primary : NULL;
}

static inline int kit_ntuples(const pq_result *r)
{
	return r->rows;
}

static inline int kit_nfields(const pq_result *r)
{
	return r->fields;
}

/* libpq gives "" for a null value. */
static inline char *kit_get_value(const pq_result *r, int row, int field)
{
	return (char *)(r->cells[row][field] ? r->cells[row][field] : "");
}

static inline int kit_get_is_null(const pq_result *r, int row, int field)
{
	return r->cells[row][field] == NULL;
}

/* A struct pq of the readers above alone: only what reading an answer
 * may use. */
/* clang-format off */
#define KIT_PQ                                              \
	{ .result_status = kit_result_status,               \
	  .result_error_message = kit_result_error_message, \
	  .result_error_field = kit_result_error_field,     \
	  .ntuples = kit_ntuples,                           \
	  .nfields = kit_nfields,                           \
	  .get_value = kit_get_value,                       \
	  .get_is_null = kit_get_is_null }
/* clang-format on */

static inline void *kit_need(void *p)
{
	if (!p) {
		fprintf(stderr, "fleetkit: out of memory\n");
		exit(1);
	}
	return p;
}

/* A fleet of replica NAME, not connected (LINK_IDLE), with a lease and a
 * deadline of 60 s; free it with fleet_free. */
static inline struct fleet *kit_fleet(const char *name)
{
	struct fleet *f = kit_need(calloc(1, sizeof *f));

	f->replica = kit_need(strdup(name));
	f->cfg = (struct fleet_config){ .replica = f->replica,
					.lease_ns = 60 * KIT_SEC,
					.deadline_ns = 60 * KIT_SEC,
					.keep_ns = 3600 * KIT_SEC };
	f->pq = (struct pq)KIT_PQ;
	f->renew_at = f->keep_at = INT64_MAX;
	if (fleet__replica_init(f) != 0 || fleet__wins_init(f) != 0)
		kit_need(NULL);
	return f;
}

/* An op of KIND for JOB at SCHEDULED_NS. */
static inline struct op *kit_op(enum op_kind kind, const char *job, int64_t scheduled_ns)
{
	return kit_need(fleet_op_new(kind, job, scheduled_ns));
}

/* A file's statement call WRITE writes exactly the kinds whose row of
 * the policy table names it (WHO): send_op asks it for those alone. */
typedef const char *kit_writer(struct fleet *f, const struct op *op, struct fleet_statement *p);

static inline void kit_check_writer(kit_writer *write, enum fleet_writer who)
{
	struct fleet *f = kit_fleet("r1");

	for (int k = 0; k < OP_KINDS; k++) {
		struct op *op = kit_op(k, "job", 0);
		struct fleet_statement p = { .n = 0 };
		const char *sql = write(f, op, &p);

		check((sql != NULL) == (fleet_policy(k)->statement == who),
		      "%s: written by this file if and only if its row says so",
		      fleet_policy(k)->name);
		fleet_statement_free(&p);
		fleet_op_free(op);
	}
	fleet_free(f);
}

/* Every event the fleet has queued, drained: how many of KIND (and, for
 * FLEET_EVENT_CLAIM, of OUTCOME; else OUTCOME is ignored). The last of
 * them is copied into *LAST when LAST (its job and message into JOB and
 * MSG, each KIT_TEXT bytes, "" when none, and ev's pointers at them, NULL
 * when none). */
#define KIT_TEXT 1024
struct kit_event {
	struct fleet_event ev;
	char job[KIT_TEXT], msg[KIT_TEXT];
};

static inline size_t kit_events(struct fleet *f, enum fleet_event_kind kind,
				enum fleet_outcome outcome, struct kit_event *last)
{
	struct fleet_event ev;
	size_t n = 0;

	while (fleet_next_event(f, &ev)) {
		if (ev.kind != kind || (kind == FLEET_EVENT_CLAIM && ev.outcome != outcome))
			continue;
		n++;
		if (!last)
			continue;
		last->ev = ev;
		snprintf(last->job, sizeof last->job, "%s", ev.job ? ev.job : "");
		snprintf(last->msg, sizeof last->msg, "%s", ev.message ? ev.message : "");
		last->ev.job = ev.job ? last->job : NULL;
		last->ev.message = ev.message ? last->msg : NULL;
	}
	return n;
}

/* How many ops of KIND wait in Q. */
static inline size_t kit_queued(const struct queue *q, enum op_kind kind)
{
	size_t n = 0;

	for (const struct op *op = q->head; op; op = op->next)
		n += op->kind == kind;
	return n;
}

#endif
