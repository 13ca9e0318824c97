/* SPDX-License-Identifier: MIT */
#include "serve.h"

#include <poll.h>

#include "claims.h"
#include "control.h"
#include "control_cmds.h"
#include "endpoints.h"
#include "hooks.h"
#include "notify.h"
#include "http.h"
#include "jobtable.h"
#include "loopstate.h"
#include "mailer.h"
#include "ownertab.h"
#include "reload.h"

/* The fleet's client (claims.h): its socket, its timeouts, and its work
 * done after every poll, whether its socket was ready or not; it keeps
 * its own timeouts there, so the deadline timer only wakes the loop. */
static void fleet_row_poll(void *self, owner_add_fn *add, void *set)
{
	short events = 0;
	int fd = claims_poll_fd(self, &events);

	if (fd >= 0)
		add(set, fd, events, NULL);
}

static int64_t fleet_row_deadline(void *self)
{
	return claims_deadline(self);
}

static void fleet_after_poll(void *self, short revents)
{
	claims_service(self, revents);
}

static const struct owner_row fleet_row = { .name = "fleet",
					    .poll = fleet_row_poll,
					    .deadline = fleet_row_deadline,
					    .after_poll = fleet_after_poll };

/* Reload (reload.h): the inotify watches, and a reload that settles. */
static void reload_poll(void *self, owner_add_fn *add, void *set)
{
	int fd = reload_poll_fd(self);

	if (fd >= 0)
		add(set, fd, POLLIN, NULL);
}

static void reload_ready(void *self, int fd, short revents, void *tag)
{
	(void)fd, (void)revents, (void)tag;
	reload_on_inotify(self);
}

static int64_t reload_row_deadline(void *self)
{
	return reload_deadline(self);
}

static void reload_expire(void *self, int64_t now)
{
	if (reload_deadline(self) <= now)
		reload_now(self);
}

static const struct owner_row reload_row = { .name = "reload",
					     .poll = reload_poll,
					     .ready = reload_ready,
					     .deadline = reload_row_deadline,
					     .expire = reload_expire };

/* MAILTO's sendmails (mailer.h): each one's stdin; a ready one has every
 * pipe tried. */
static void mailer_poll(void *self, owner_add_fn *add, void *set)
{
	const struct mailer *ms = self;

	for (size_t i = 0; i < ms->n; i++)
		if (ms->s[i]->fd >= 0)
			add(set, ms->s[i]->fd, POLLOUT, NULL);
}

static void mailer_ready(void *self, int fd, short revents, void *tag)
{
	(void)fd, (void)revents, (void)tag;
	mailer_write_all(self);
}

static int64_t mailer_row_deadline(void *self)
{
	return mailer_deadline(self);
}

static void mailer_row_expire(void *self, int64_t now)
{
	mailer_expire(self, now);
}

static const struct owner_row mailer_row = { .name = "mail",
					     .poll = mailer_poll,
					     .ready = mailer_ready,
					     .deadline = mailer_row_deadline,
					     .expire = mailer_row_expire };

/* The hooks (hooks.h): no descriptor of their own (their output is the
 * readers'), a deadline each: the 5-minute limit, then the kill grace. */
static int64_t hooks_row_deadline(void *self)
{
	return hooks_deadline(self);
}

static void hooks_row_expire(void *self, int64_t now)
{
	hooks_expire(self, now);
}

static const struct owner_row hooks_row = { .name = "hooks",
					    .deadline = hooks_row_deadline,
					    .expire = hooks_row_expire };

/* --ping and --notify (notify.h): the sockets and timeouts of their
 * requests, once a run has sent one (the loop makes its notify then,
 * loading libcurl): until then, nothing. SELF is the loop. */
static void notify_loop_poll(void *self, owner_add_fn *add, void *set)
{
	struct loop *l = self;

	if (l->notify)
		notify_row.poll(l->notify, add, set);
}

static void notify_loop_ready(void *self, int fd, short revents, void *tag)
{
	struct loop *l = self;

	notify_row.ready(l->notify, fd, revents, tag);
}

static int64_t notify_loop_deadline(void *self)
{
	struct loop *l = self;

	return l->notify ? notify_row.deadline(l->notify) : INT64_MAX;
}

static void notify_loop_expire(void *self, int64_t now)
{
	struct loop *l = self;

	if (l->notify)
		notify_row.expire(l->notify, now);
}

static const struct owner_row notify_loop_row = { .name = "notify",
						  .poll = notify_loop_poll,
						  .ready = notify_loop_ready,
						  .deadline = notify_loop_deadline,
						  .expire = notify_loop_expire };

/* --listen (http.h): libmicrohttpd's epoll descriptor and its timeouts,
 * and the loop's budget for the answers that wait for it (slices.h).
 * SELF is the loop, for that budget. */
static void http_row_poll(void *self, owner_add_fn *add, void *set)
{
	const struct loop *l = self;

	add(set, http_poll_fd(l->cfg->http), POLLIN, NULL);
}

static void http_ready(void *self, int fd, short revents, void *tag)
{
	const struct loop *l = self;

	(void)fd, (void)revents, (void)tag;
	http_service(l->cfg->http);
}

static int64_t http_row_deadline(void *self)
{
	const struct loop *l = self;
	int64_t d = http_deadline(l->cfg->http);

	if (http_held(l->cfg->http) && slice_budget_next(&l->http_slices) < d)
		d = slice_budget_next(&l->http_slices);
	return d;
}

/* libmicrohttpd counts its timeouts in milliseconds from its own reading
 * of the clock: it is asked, not compared with NOW. */
static void http_expire(void *self, int64_t now)
{
	(void)now;
	http_ready(self, -1, 0, NULL);
}

static const struct owner_row http_row = { .name = "http",
					   .poll = http_row_poll,
					   .ready = http_ready,
					   .deadline = http_row_deadline,
					   .expire = http_expire };

/* --control (control.h): the socket and its clients, each slot's tag the
 * socket's own. */
static void control_row_poll(void *self, owner_add_fn *add, void *set)
{
	control_poll(self, add, set);
}

static void control_row_ready(void *self, int fd, short revents, void *tag)
{
	(void)fd, (void)revents;
	control_ready(self, tag);
}

static int64_t control_row_deadline(void *self)
{
	return control_deadline(self);
}

static void control_row_expire(void *self, int64_t now)
{
	control_expire(self, now);
}

static const struct owner_row control_row = { .name = "control",
					      .poll = control_row_poll,
					      .ready = control_row_ready,
					      .deadline = control_row_deadline,
					      .expire = control_row_expire };

/* The table of the loop's owners, in the order their slots are polled
 * and they expire. An owner absent (no --fleet, --listen, --control) is
 * not in it. A new owner: its row above (or in its own module), and one
 * line here. Reload is there only with --jobs (nothing else reloads),
 * the mailer only where mail can come, the hooks and the notifications
 * where they can: without --jobs the first table never changes, and a
 * tfd whose jobs mail nothing has no sendmail to serve. */
static int serve_owners(struct loop *l)
{
	int failed = 0;

	if (l->claims)
		failed |= ownertab_add(l, &fleet_row, l);
	if (l->cfg->jobs_path)
		failed |= ownertab_add(l, &reload_row, l);
	if (l->cfg->jobs_path || jobs_any(l->jobs, l->njobs, job_mails))
		failed |= ownertab_add(l, &mailer_row, &l->mailer);
	if (l->cfg->jobs_path || jobs_any(l->jobs, l->njobs, job_has_hook))
		failed |= ownertab_add(l, &hooks_row, &l->hooks);
	if (l->cfg->jobs_path || jobs_any(l->jobs, l->njobs, job_notifies))
		failed |= ownertab_add(l, &notify_loop_row, l);
	if (l->cfg->http)
		failed |= ownertab_add(l, &http_row, l);
	if (l->control)
		failed |= ownertab_add(l, &control_row, l->control);
	return failed;
}

/* --control: the socket, its requests handed up to the commands (whose
 * answers go down through it), FDS descriptors its own; --listen: the
 * endpoints read the loop from now on. Returns -1 when memory ran out
 * (the socket's own failure closes its descriptors). */
static int serve_open(struct loop *l, size_t fds)
{
	const struct control_hooks hooks = { control_cmds_request, control_cmds_more,
					     control_cmds_expired, control_cmds_closed, l };
	const struct loop_config *cfg = l->cfg;

	if (cfg->http)
		http_serve(cfg->http, endpoints_answer, l);
	if (cfg->control_fd < 0)
		return 0;
	l->commands = control_cmds_new();
	l->control = control_new(cfg->control_fd, cfg->control_lock_fd, cfg->control_path, fds,
				 &hooks, &l->control_slices);
	if (!l->commands) {
		control_free(l->control);
		l->control = NULL;
	}
	return l->control ? 0 : -1;
}

/* The commands' last answers go out through the socket, then it closes.
 * The HTTP server outlives the loop (tfd.c closes it): it must not reach
 * the loop's state after this. */
static void serve_close(struct loop *l)
{
	control_cmds_free(l);
	control_free(l->control);
	l->control = NULL;
	if (l->cfg->http)
		http_serve(l->cfg->http, NULL, NULL);
}

/* The loop's news, for tfdctl's waiters (control_cmds.h). */
static void job_gone(struct loop *l, struct job *j)
{
	control_cmds_job_gone(l, j);
}

static void run_record(void *arg, struct job *j, const struct run_record *r, bool final)
{
	control_cmds_run_ended(arg, j, r, final);
}

static void reload_done(void *arg, const struct reload_counts *counts, const char *error)
{
	control_cmds_reloaded(arg, counts, error);
}

static void manual_answered(void *arg, struct job *j, const struct tick *t)
{
	control_cmds_claimed(arg, j, t);
}

static void pause_answered(void *arg, uint64_t token, const char *message)
{
	control_cmds_fleet_done(arg, token, message);
}

const struct loop_serve serve_loop = {
	.http_fds = HTTP_FDS,
	.control_fds = CONTROL_FDS,
	.open = serve_open,
	.owners = serve_owners,
	.close = serve_close,
	.job_gone = job_gone,
	.run_record = run_record,
	.reload_done = reload_done,
	.manual_answered = manual_answered,
	.pause_answered = pause_answered,
};
