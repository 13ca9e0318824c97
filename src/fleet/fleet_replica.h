/* SPDX-License-Identifier: MIT */
/* fleet_replica: what the replicas know of each other: the replica's
 * name in tfd_replicas, its jobs in tfd_jobs and their comparison with
 * the other replicas', the claims missed at once when the server refuses
 * them for good, the backlog (fleet_replica.c). Below fleet.c: a step
 * that needs a statement sent at once, or the connection given up,
 * returns it. */
#ifndef TFD_FLEET_REPLICA_H
#define TFD_FLEET_REPLICA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq.h"

struct fleet;
struct op;
struct fleet_statement;

/* The loop's calls */

/* This replica's jobs, for tfd_jobs: their names and fingerprints (of
 * schedule, command and policies), written at once or when the database
 * is back; a job that another live replica defines otherwise is reported
 * once (an error event, call "fleet"). Again after each reload. Returns
 * -1 when memory ran out. */
int fleet_set_jobs(struct fleet *f, size_t n, const char *const *names,
		   const uint64_t *fingerprints);

/* At exit: the replica's name is let go (a restart takes it at once);
 * counted by fleet_pending. */
void fleet_release(struct fleet *f);

/* The fleet's own files (fleet*.c) */

/* struct fleet_replica, the part of the fleet's state fleet_replica.c
 * owns, made (-1: out of memory) and freed. */
int fleet_replica_init(struct fleet *f);
void fleet_replica_free(struct fleet *f);
/* This replica's jobs' names as a text[] literal, or NULL before
 * fleet_set_jobs. */
const char *fleet_replica_jobs(const struct fleet *f);
/* The name's next renewal, at AT (monotonic). */
void fleet_replica_beat_at(struct fleet *f, int64_t at);
/* OP's SQL when it is one of fleet_replica.c's kinds, else NULL. */
const char *fleet_replica_statement(struct fleet *f, const struct op *op,
				    struct fleet_statement *p);
/* Status flows down: a step that must send a statement at once (the
 * setup's next) leaves it in *SEND for fleet.c to send, and one that ran
 * out of memory returns -ENOMEM (fleet.c gives the connection up); else
 * 0 and *SEND NULL. */
int fleet_replica_answer(struct fleet *f, struct op *op, const pq_result *r, struct op **send);
/* The table is ready: the name was held, the jobs are written again. */
void fleet_replica_ready(struct fleet *f);
/* Each service: the renewal of the name, its retry (as
 * fleet_replica_answer: in *SEND, or -ENOMEM). */
int fleet_replica_service(struct fleet *f, struct op **send);
int64_t fleet_replica_deadline(const struct fleet *f);
/* At each answer: a claim queue that falls behind is told. */
void fleet_check_backlog(struct fleet *f);
/* The connection is given up for WHY (libpq's message, or the server's):
 * told once an outage, with what tfd does meanwhile; one that could not
 * be made tries the next host first next time (fleet_params_next_host). */
void fleet_link_lost(struct fleet *f, const char *why);

#endif
