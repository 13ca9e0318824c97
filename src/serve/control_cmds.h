/* SPDX-License-Identifier: MIT */
/* control_cmds: what tfdctl asks through --control (list, status, run,
 * stop, pause, resume, reload), one table of commands above the socket
 * (control.h): each request line the socket hands up is read, carried
 * out on the loop and answered down through the socket's calls. The
 * answers that come later are this file's: a list made in parts, a
 * `run --wait` answered at the run's end, a run or a pause that waits for
 * the fleet's database, a reload that waits for its outcome. It calls
 * down only: the socket, the loop's modules (due, tick, runs, claims,
 * reload) and jobview; nothing calls it but the loop, which wires the
 * socket's hooks and its own to the calls below. */
#ifndef TFD_CONTROL_CMDS_H
#define TFD_CONTROL_CMDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control.h"
#include "loopstate.h"

struct reload_counts;
struct tick;

/* The commands' own state (l->commands): the answers owed. NULL when
 * memory ran out. */
struct control_cmds *control_cmds_new(void);

/* At exit, before the socket is freed: each answer still owed is given
 * (tfd stops: the run or the reload will not come), then the state is
 * freed. */
void control_cmds_free(struct loop *l);

/* The socket's hooks (control.h); ARG is the loop. */
void control_cmds_request(void *arg, struct control_client *c, const char *line, size_t len);
void control_cmds_more(void *arg, struct control_client *c);
void control_cmds_expired(void *arg, struct control_client *c);
void control_cmds_closed(void *arg, struct control_client *c);

/* What the loop hears and passes on (its hooks of runs.h, reload.h and
 * claims.h). Each is free without --control (l->commands NULL). */

/* A run of J ended (R; FINAL: no retry follows): a `run --wait` for it
 * is answered. J leaves the table: its waiters are told. */
void control_cmds_run_ended(struct loop *l, struct job *j, const struct run_record *r, bool final);
void control_cmds_job_gone(struct loop *l, struct job *j);

/* A reload was done (COUNTS) or refused (ERROR): `tfdctl reload`s that
 * wait for it are answered. */
void control_cmds_reloaded(struct loop *l, const struct reload_counts *counts, const char *error);

/* --fleet: the claim of tfdctl run's tick T of J was answered and acted
 * on (T's action); a pause or resume written (MESSAGE NULL) or refused,
 * TOKEN's. Each answers the client that waits for it. */
void control_cmds_claimed(struct loop *l, struct job *j, const struct tick *t);
void control_cmds_fleet_done(struct loop *l, uint64_t token, const char *message);

#endif
