/* SPDX-License-Identifier: MIT */
/* fleet_pipe: the fleet's statements in flight. The connection runs in
 * libpq's pipeline mode: a statement is sent as soon as it is queued,
 * without waiting for the answers of those sent before it, and the server
 * answers them in the order they were sent. Each statement is followed by
 * a sync of its own, so each is a transaction of its own, as it would be
 * sent alone: an error aborts that statement and no other, and a commit
 * never waits for a later statement. For each statement libpq gives its
 * result(s), then NULL, then the sync's result (PGRES_PIPELINE_SYNC).
 * This file keeps the statements in that order and says what each result
 * read is; it calls no libpq function (fleet.c reads), so a test drives it
 * with the results' statuses alone. */
#ifndef TFD_FLEET_PIPE_H
#define TFD_FLEET_PIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet_op.h"

struct fleet_pipe {
	struct queue sent; /* sent and not taken out, oldest first */
	bool sync_due;     /* a statement's answer is read: its sync comes next */
	bool answered;     /* the oldest is answered, not taken out yet */
};

/* What a result read from the connection is. */
enum fleet_pipe_read {
	FLEET_PIPE_RESULT,   /* a result of the oldest statement */
	FLEET_PIPE_ANSWERED, /* NULL: the oldest statement's results are all in;
			      * it stays the oldest until taken out */
	FLEET_PIPE_SYNCED,   /* its sync: the next result is the next statement's */
	FLEET_PIPE_CONFUSED, /* not what the pipeline holds: the connection is
			      * not to be trusted any more */
};

/* OP was sent (the pipe owns it until it is answered or taken back). */
void fleet_pipe_sent(struct fleet_pipe *p, struct op *op);

/* Whether a result is awaited: only then may libpq's next one be read
 * (an idle connection's PQgetResult returns NULL too). */
bool fleet_pipe_awaits(const struct fleet_pipe *p);

/* The result read, by its status (STATUS, PQresultStatus's value, or -1
 * for NULL), and the pipe's step past it. After FLEET_PIPE_ANSWERED the
 * caller takes the oldest statement out (fleet_pipe_take_answered), or
 * takes them all back, before the next read. */
enum fleet_pipe_read fleet_pipe_read(struct fleet_pipe *p, int status);

/* The oldest statement, answered (FLEET_PIPE_ANSWERED), taken out: the
 * caller owns it. */
struct op *fleet_pipe_take_answered(struct fleet_pipe *p);

/* The oldest statement in the pipe (NULL: none); the others follow it by
 * their next. */
struct op *fleet_pipe_oldest(const struct fleet_pipe *p);

/* The statements in the pipe (an answered one not taken out yet among
 * them), taken out, newest first (so that each put back at the front of
 * its queue leaves them in their order); the pipe is empty after, as a
 * new connection's is. */
struct op *fleet_pipe_take_back(struct fleet_pipe *p);

#endif
