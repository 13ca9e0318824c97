/* SPDX-License-Identifier: MIT */
/* control: the control socket (--control), the socket alone. A Unix
 * stream socket, mode 0600; one JSON request per line, one JSON answer
 * per line (tfdctl(1) has the protocol). Clients are read and written
 * without blocking; a request line over CONTROL_REQUEST_MAX bytes or a
 * client idle past CONTROL_TIMEOUT_NS is ended, a client whose unread
 * answers pass CONTROL_UNREAD_MAX is dropped, and at most CONTROL_CLIENTS
 * are served at once (the next is told so and closed). Requests sent
 * together are answered one at a time, in order.
 *
 * What a request asks is not this file's: each line goes up through the
 * hooks given at control_new (control_cmds.c's, wired by the loop, as
 * runs_new takes its hooks), and the answer comes back down through the
 * calls below. control.c knows nothing of the loop, the jobs or the
 * commands, and calls nothing above it. */
#ifndef TFD_CONTROL_H
#define TFD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jsonw.h"
#include "slices.h"

#define CONTROL_REQUEST_MAX (64 * 1024)
#define CONTROL_UNREAD_MAX (1024 * 1024)
#define CONTROL_CLIENTS 32
#define CONTROL_TIMEOUT_NS (INT64_C(5) * 1000000000)

/* The descriptors the control socket may hold at once: its clients, the
 * listening socket and the lock beside it. The loop sets them aside from
 * the run pipes' share, as --listen's (loop.c). */
#define CONTROL_FDS (CONTROL_CLIENTS + 2)

struct control;
struct control_client; /* one connected client; the socket's, opaque above it */

/* What the socket hands to the layer above it. ARG is the hooks'. Each
 * may answer (the calls under "Answers") or close the client. */
struct control_hooks {
	/* A request line of C (LEN bytes, without its newline): answered
	 * now, or later after control_hold. */
	void (*request)(void *arg, struct control_client *c, const char *line, size_t len);
	/* C's answer goes on (control_stream): the socket takes another
	 * part now (control_stream_part). */
	void (*more)(void *arg, struct control_client *c);
	/* C's held answer was not given within its span: it is given now. */
	void (*expired)(void *arg, struct control_client *c);
	/* C is closed (hung up, failed, ended or dropped): whatever the layer
	 * above keeps for it goes. Called at once, before any other call
	 * returns; the client is freed later, never during a hook. */
	void (*closed)(void *arg, struct control_client *c);
	void *arg;
};

/* Start */

/* At start: listens at PATH. Its directory (made 0755 when missing) must
 * be tfd's user's and writable by no one else, as ssh wants ~/.ssh: who
 * may write there may move the socket aside and answer in tfd's place.
 * PATH.lock is held (flock) for the process's life, so two tfds started
 * at once on one PATH never both listen. A socket at PATH that refuses
 * connections is stale and replaced; one where a tfd answers, or anything
 * not a socket, is refused. Returns the listening descriptor, the lock's
 * in *LOCK_FD, or -1 with one line in err naming PATH. */
int control_listen(const char *path, int *lock_fd, char *err, size_t errlen);

/* The socket's state: takes FD and LOCK_FD (from control_listen) and
 * PATH, both files removed at control_free (FD -1 and PATH NULL: no
 * listening socket, clients only given by control_add_client); FDS is
 * the descriptors it may hold (at most CONTROL_FDS: fewer under a low
 * RLIMIT_NOFILE serve fewer clients). HOOKS are copied. BUDGET is the
 * time a streamed answer may take (slices.h), renewed by its owner after
 * each poll: a stream waits for it. NULL when memory ran out: then FD
 * and LOCK_FD are closed and the files removed. */
struct control *control_new(int fd, int lock_fd, const char *path, size_t fds,
			    const struct control_hooks *hooks, const struct slice_budget *budget);

/* At exit: every client closed (no hook is called: the layer above has
 * had its last word), the socket file and the lock removed. */
void control_free(struct control *ctl);

/* A client already connected on FD (a socketpair's end, a descriptor
 * given by a supervisor), with the peer's UID, served as an accepted one.
 * NULL when it was refused (too many clients, no memory): FD closed. */
struct control_client *control_add_client(struct control *ctl, int fd, uid_t uid);

/* The loop's side. Each call is free without a control socket (CTL
 * NULL). */

/* One descriptor for poll: FD, the EVENTS it waits for, and the TAG
 * control_ready wants back. */
typedef void (*control_poll_fn)(void *arg, int fd, short events, void *tag);

/* Once a turn, when the last poll set is done with: the clients closed
 * since are freed (a slot of that set may still name them), and each
 * descriptor is handed to ADD: the listening socket (unless it rests
 * after a failed accept), then each client, a different one first at
 * each turn (the first has the turn's budget for a stream). A client
 * that waits for nothing is polled all the same: its hang-up frees its
 * slot at once. */
void control_poll(struct control *ctl, control_poll_fn add, void *arg);

/* Poll said TAG's descriptor is ready: a client connects, or one reads
 * or writes. */
void control_ready(struct control *ctl, void *tag);

/* The earliest deadline (monotonic; INT64_MAX: none): a client's, the
 * budget's renewal a stream waits for, the end of the listening socket's
 * rest. And what is due at NOW: an idle client closed, a held answer
 * expired (the hook's). */
int64_t control_deadline(const struct control *ctl);
void control_expire(struct control *ctl, int64_t now);

/* Answers, for the layer above. One answer per request, in order: a
 * client's next request is served once its answer is out. */

/* The answer being built, empty; or begun: {"ok": OK and the keys to
 * come (closed with jsonw_end_object). */
struct jsonw *control_answer(struct control *ctl);
struct jsonw *control_answer_begin(struct control *ctl, bool ok);

/* The answer built goes to C, with its newline (an answer whose making
 * ran out of memory goes as that error), and C's held answer is given.
 * A client whose unread answers would pass CONTROL_UNREAD_MAX is dropped;
 * a closed client's answer goes nowhere. */
void control_send_answer(struct control *ctl, struct control_client *c);
void control_answer_error(struct control *ctl, struct control_client *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* C's answer comes later, within SPAN (INT64_MAX: no limit; else the
 * expired hook): its next requests wait for it. Called again, a new span
 * from now. */
void control_hold(struct control *ctl, struct control_client *c, int64_t span);

/* C's answer is made in parts, as the client reads it: the more hook is
 * called while the client has less than a window unread and the budget
 * lasts, and each call gives one part (TEXT, LEN bytes; LAST: the
 * answer's end, its newline included). */
void control_stream(struct control *ctl, struct control_client *c);
void control_stream_part(struct control *ctl, struct control_client *c, const char *text,
			 size_t len, bool last);

/* C is closed at once (its answer cannot be made). */
void control_drop(struct control *ctl, struct control_client *c);

/* The peer's uid (SO_PEERCRED; (uid_t)-1 when unknown). */
uid_t control_client_uid(const struct control_client *c);

#endif
