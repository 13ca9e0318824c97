/* SPDX-License-Identifier: MIT */
/* control: the control socket (--control), served in the loop's one poll
 * loop. A Unix stream socket, mode 0600; one JSON request per line, one
 * JSON answer per line (tfdctl(1) has the protocol). Clients are read
 * and written without blocking; a request over CONTROL_REQUEST_MAX bytes
 * or a client idle past CONTROL_TIMEOUT_NS is ended, a client whose unread
 * answers pass CONTROL_UNREAD_MAX is dropped, and at most CONTROL_CLIENTS
 * are served at once (the next is told so and closed). Every change made
 * through it is a "control" event with the caller's uid (SO_PEERCRED). */
#ifndef TFD_CONTROL_H
#define TFD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctlpath.h"
#include "jobstate.h"

#define CONTROL_REQUEST_MAX (64 * 1024)
#define CONTROL_UNREAD_MAX (1024 * 1024)
#define CONTROL_CLIENTS 32
#define CONTROL_TIMEOUT_NS (INT64_C(5) * 1000000000)

/* The descriptors the control socket may hold at once: its clients, the
 * listening socket and the lock beside it. The loop sets them aside from
 * the run pipes' share, as --listen's (loop.c). */
#define CONTROL_FDS (CONTROL_CLIENTS + 2)

struct loop;
struct job;
struct control_client;

/* At start: listens at PATH. Its directory (made 0755 when missing) must
 * be tfd's user's and writable by no one else, as ssh wants ~/.ssh: who
 * may write there may move the socket aside and answer in tfd's place.
 * PATH.lock is held (flock) for the process's life, so two tfds started
 * at once on one PATH never both listen. A socket at PATH that refuses
 * connections is stale and replaced; one where a tfd answers, or anything
 * not a socket, is refused. Returns the listening descriptor, the lock's
 * in *LOCK_FD, or -1 with one line in err naming PATH. */
int control_listen(const char *path, int *lock_fd, char *err, size_t errlen);

/* The loop's side: takes FD and LOCK_FD (from control_listen) and PATH,
 * both files removed at control_free; FDS is the descriptors it may hold
 * (at most CONTROL_FDS: fewer under a low RLIMIT_NOFILE serve fewer
 * clients). NULL when memory ran out: then FD and LOCK_FD are closed and
 * the files removed. */
struct control *control_new(int fd, int lock_fd, const char *path, size_t fds);
void control_free(struct loop *l);

/* The poll set: the listening socket, then each client's descriptor and
 * the events it waits for (POLLIN, POLLOUT; none: a client polled only
 * for its hang-up, which frees its slot at once). I from 0 while it
 * returns a descriptor (-1: no more). */
int control_listen_fd(const struct loop *l);
int control_client_fd(const struct loop *l, size_t i, short *events,
		      struct control_client **c);

/* Poll said so: a client connects, or one reads or writes. */
void control_accept(struct loop *l);
void control_serve(struct loop *l, struct control_client *c);

/* Frees the clients closed since the last call (a poll set may still name
 * them until then). */
void control_collect(struct loop *l);

/* The earliest client deadline (monotonic; INT64_MAX: none), and the
 * clients past theirs ended at NOW. */
int64_t control_deadline(const struct loop *l);
void control_expire(struct loop *l, int64_t now);

/* A run of J ended (R; FINAL: no retry follows): a `run --wait` for it
 * is answered. J leaves the table: its waiters are told. */
void control_run_ended(struct loop *l, struct job *j, const struct run_record *r, bool final);
void control_job_gone(struct loop *l, struct job *j);

/* A reload was done (COUNTS) or refused (ERROR): `tfdctl reload`s that
 * wait for it are answered. */
struct reload_counts;
void control_reloaded(struct loop *l, const struct reload_counts *counts, const char *error);

/* --fleet: the claim of tfdctl run's tick T of J was answered and acted
 * on (T's action); a pause or resume written (MESSAGE NULL) or refused,
 * TOKEN's. Each answers the client that waits for it. */
struct tick;
void control_claimed(struct loop *l, struct job *j, const struct tick *t);
void control_fleet_done(struct loop *l, uint64_t token, const char *message);

#endif
