/* SPDX-License-Identifier: MIT */
/* control_state: the control socket's state, private to its two files
 * and seen by nothing else (the loop sees only control.h). control.c is
 * the lower one: the socket, its clients' buffers, limits and deadlines,
 * and the answers' framing (control_send_answer and the calls below it).
 * control_cmds.c reads the requests and answers them: the commands and
 * the clients that wait for a run or the fleet. control.c calls it only
 * to serve a request line (control_serve_request). */
#ifndef TFD_CONTROL_STATE_H
#define TFD_CONTROL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "control.h"
#include "jsonw.h"

struct control_client {
	int fd;                   /* -1: closed, freed at control_collect */
	uid_t uid;
	char *in;                 /* requests read: in[in_off..in_len) not yet served */
	size_t in_off, in_len;
	bool in_closed;           /* the client shut its side: answer, then close */
	bool ended;               /* a request too big: its answer, then no more */
	struct jsonw out;         /* answers not yet written */
	size_t out_off;
	int64_t deadline;         /* monotonic: idle or unfinished past it ends it */
	bool waiting;             /* the answer comes later: run --wait's at the run's end */
	bool reloading;           /* and reload's once the reload is done */
	bool claiming;            /* --fleet: a run waits for its claim's answer */
	bool wait_end;            /* and then for its end (run --wait) */
	uint64_t fleet_token;     /* --fleet: a pause waits for the database; 0: none */
	struct jobview_listing *list; /* a list answer being made, or NULL */
	struct job *wait_job;
	uint64_t wait_seq;
	struct control_client *next_closed;
};

struct control {
	int fd;
	int lock_fd;              /* PATH.lock, held (flock) until control_free */
	char *path;
	struct control_client *c[CONTROL_CLIENTS];
	size_t n;
	size_t first;             /* the client the poll set starts with (turns) */
	size_t max_clients;       /* CONTROL_CLIENTS, or fewer under a low RLIMIT_NOFILE */
	struct control_client *closed;
	struct jsonw answer;      /* the answer being built */
	int64_t accept_after;     /* monotonic: accept failed (EMFILE); 0: none */
	uint64_t next_token;      /* --fleet: the last pause's, for its answer */
};

/* control.c, for control_cmds.c */

/* The monotonic instant SPAN from now (INT64_MAX when that overflows). */
int64_t control_later(int64_t span);

/* The answer built in ctl->answer: begun (its "ok"), sent to C with its
 * newline, or an error sent. A client whose unread answers would pass
 * CONTROL_UNREAD_MAX is dropped: C may be closed after a send. */
void control_answer_begin(struct control *ctl, bool ok);
void control_send_answer(struct control *ctl, struct control_client *c);
void control_answer_error(struct control *ctl, struct control_client *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* C's list goes on (a slice at most, within the turn's budget); C's
 * output written as the socket takes it (-1: the client is gone). */
void control_list_more(struct loop *l, struct control *ctl, struct control_client *c);
int control_flush(struct control *ctl, struct control_client *c);

/* C waits no more: its deadline is the idle one again. */
void control_stop_waiting(struct control_client *c);

/* control_cmds.c, for control.c: one request line (without its newline)
 * read, carried out and answered. */
void control_serve_request(struct loop *l, struct control_client *c, const char *line,
			   size_t len);

#endif
