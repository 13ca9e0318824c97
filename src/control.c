/* SPDX-License-Identifier: MIT */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "claims.h"
#include "claims_control.h"
#include "jobdue.h"
#include "jobview.h"
#include "json.h"
#include "jsonw.h"
#include "loopstate.h"
#include "reload.h"
#include "tick.h"
#include "timens.h"

/* The answer buffer kept for the next answer, at most. */
#define CONTROL_KEEP_MAX (64 * 1024)

/* A list is written a slice of jobs at a time, while its client has less
 * than a window of it unread: ten thousand jobs are megabytes and tens
 * of milliseconds, which no elapse waits for, and a client that reads
 * slowly holds no more than the window. */
#define CONTROL_LIST_SLICE 256
#define CONTROL_LIST_WINDOW (256 * 1024)

/* A list answer on its way (jobview_sorted's jobs; a job that leaves the
 * table is NULL here, and left out). */
struct listing {
	struct job **jobs;
	size_t n, next;
	size_t written;           /* jobs written so far */
	int64_t now;              /* the wall clock at the request */
};

struct control_client {
	int fd;                   /* -1: closed, freed at control_collect */
	uid_t uid;
	char *in;                 /* a request's bytes until its newline */
	size_t in_len;
	bool in_closed;           /* the client shut its side: answer, then close */
	bool ended;               /* a request too big: its answer, then no more */
	struct jsonw out;         /* answers not yet written */
	size_t out_off;
	int64_t deadline;         /* monotonic: idle or unfinished past it ends it */
	bool waiting;             /* run --wait: the answer comes at the run's end */
	bool claiming;            /* --fleet: a run waits for its claim's answer */
	bool wait_end;            /* and then for its end (run --wait) */
	uint64_t fleet_token;     /* --fleet: a pause waits for the database; 0: none */
	struct listing *list;     /* a list answer being written, or NULL */
	struct job *wait_job;
	uint64_t wait_seq;
	struct control_client *next_closed;
};

struct control {
	int fd;
	char *path;
	struct control_client *c[CONTROL_CLIENTS];
	size_t n;
	struct control_client *closed;
	struct jsonw answer;      /* the answer being built */
	int64_t accept_after;     /* monotonic: accept failed (EMFILE); 0: none */
	uint64_t next_token;      /* --fleet: the last pause's, for its answer */
};

/* How long the listening socket rests after accept failed for want of a
 * descriptor or memory: it stays readable, and polling it at once again
 * would spin. */
#define CONTROL_ACCEPT_REST_NS (INT64_C(100) * 1000000)

/* Path and start */

static int make_parent(const char *path, char *err, size_t errlen)
{
	char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
	char *slash;

	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		return 0;
	snprintf(err, errlen, "--control '%s': mkdir '%s': %s", path, dir, strerror(errno));
	return -1;
}

/* A socket file at PATH: does something answer there? */
static bool socket_answers(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return true;
	live = connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0 ||
	       (errno != ECONNREFUSED && errno != ENOENT);
	close(fd);
	return live;
}

/* What is at PATH already: nothing, a stale socket (removed), or a
 * refusal. */
static int clear_path(const char *path, const struct sockaddr_un *sa, char *err,
		      size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "--control '%s': the path exists and is not a socket", path);
		return -1;
	}
	if (socket_answers(sa)) {
		snprintf(err, errlen, "--control '%s': another tfd answers there", path);
		return -1;
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		snprintf(err, errlen, "--control '%s': unlink: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int fail_call(int fd, const char *path, const char *call, char *err, size_t errlen)
{
	snprintf(err, errlen, "--control '%s': %s: %s", path, call, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Binds FD at a temporary name beside PATH, listens, and renames it to
 * PATH: whoever sees the socket at PATH can connect to it. */
static int bind_and_listen(int fd, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s.%ld", path, (long)getpid());
	int rc;

	if (n < 0 || (size_t)n >= sizeof sa.sun_path) {
		snprintf(err, errlen, "--control '%s': a socket path is 1 to %zu bytes", path,
			 sizeof sa.sun_path - 12);
		return -1;
	}
	unlink(sa.sun_path);
	/* Made 0600 from the start: no moment when others may connect. */
	old = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (rc != 0)
		return fail_call(-1, path, "bind", err, errlen);
	if (listen(fd, CONTROL_CLIENTS) != 0 || rename(sa.sun_path, path) != 0) {
		fail_call(-1, path, "listen", err, errlen);
		unlink(sa.sun_path);
		return -1;
	}
	return 0;
}

int control_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!*path || strlen(path) >= sizeof sa.sun_path - 12) {
		snprintf(err, errlen, "--control '%s': a socket path is 1 to %zu bytes", path,
			 sizeof sa.sun_path - 12);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path));
	if (make_parent(path, err, errlen) != 0 || clear_path(path, &sa, err, errlen) != 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fail_call(fd, path, "socket", err, errlen);
	if (bind_and_listen(fd, path, err, errlen) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct control *control_new(int fd, const char *path)
{
	struct control *c = calloc(1, sizeof *c);

	if (!c || !(c->path = strdup(path))) {
		free(c);
		return NULL;
	}
	c->fd = fd;
	return c;
}

/* Clients */

static void close_client(struct control *ctl, struct control_client *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	for (size_t i = 0; i < ctl->n; i++)
		if (ctl->c[i] == c) {
			ctl->c[i] = ctl->c[--ctl->n];
			break;
		}
	c->next_closed = ctl->closed;
	ctl->closed = c;
}

/* A whole request waits in C's input, and C may be served it. */
static bool has_request(const struct control_client *c)
{
	return c->fd >= 0 && !c->waiting && !c->list && !c->ended && c->in_len > 0 &&
	       memchr(c->in, '\n', c->in_len);
}

static void free_listing(struct control_client *c)
{
	if (c->list)
		free(c->list->jobs);
	free(c->list);
	c->list = NULL;
}

static void free_client(struct control_client *c)
{
	free_listing(c);
	free(c->in);
	jsonw_free(&c->out);
	free(c);
}

void control_collect(struct loop *l)
{
	struct control *ctl = l->control;

	while (ctl && ctl->closed) {
		struct control_client *c = ctl->closed;

		ctl->closed = c->next_closed;
		free_client(c);
	}
}

static int64_t later(int64_t span)
{
	int64_t at;

	return __builtin_add_overflow(clock_now_ns(CLOCK_MONOTONIC), span, &at) ? INT64_MAX : at;
}

static void serve_lines(struct loop *l, struct control_client *c);

/* The next slice of C's list into its output, and the list's end after
 * the last. Returns -1 when memory ran out (the client is dropped). */
static int list_slice(const struct loop *l, struct control *ctl, struct control_client *c)
{
	struct listing *ls = c->list;
	size_t end = ls->next + CONTROL_LIST_SLICE < ls->n ? ls->next + CONTROL_LIST_SLICE : ls->n;
	bool failed;

	jsonw_reset(&ctl->answer);
	if (ls->written > 0)
		jsonw_raw(&ctl->answer, ",", 1);
	for (; ls->next < end; ls->next++) {
		if (!ls->jobs[ls->next])
			continue;
		jobview_list_job(&ctl->answer, l, ls->jobs[ls->next], ls->now);
		ls->written++;
	}
	if (ls->next == ls->n)
		jsonw_raw(&ctl->answer, JOBVIEW_LIST_TAIL "\n", strlen(JOBVIEW_LIST_TAIL) + 1);
	if (!ctl->answer.failed)
		jsonw_raw(&c->out, ctl->answer.text, ctl->answer.len);
	failed = ctl->answer.failed || c->out.failed;
	if (ctl->answer.cap > CONTROL_KEEP_MAX)
		jsonw_free(&ctl->answer);
	if (failed) {
		close_client(ctl, c);
		return -1;
	}
	if (ls->next == ls->n)
		free_listing(c);
	return 0;
}

/* C's list goes on while the client has less than the window unread.
 * At most one slice a call: the loop comes back when the socket takes
 * more. */
static void list_more(const struct loop *l, struct control *ctl, struct control_client *c)
{
	if (c->list && c->out.len - c->out_off < CONTROL_LIST_WINDOW)
		list_slice(l, ctl, c);
}

/* Writes what the socket takes now. Returns -1 when the client is gone. */
static int flush_client(struct control *ctl, struct control_client *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.text + c->out_off, c->out.len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) {
			close_client(ctl, c);
			return -1;
		}
		c->out_off += (size_t)n;
		c->deadline = later(CONTROL_TIMEOUT_NS);
	}
	if (c->out.cap > CONTROL_KEEP_MAX)
		jsonw_free(&c->out);
	jsonw_reset(&c->out);
	c->out_off = 0;
	if (c->list)
		return 0;
	/* The client still writing its request reads the answer and the
	 * end of the stream, and what it sends on is read and dropped. */
	if (c->ended)
		shutdown(c->fd, SHUT_WR);
	if (c->in_closed && !c->waiting && !has_request(c)) {
		close_client(ctl, c);
		return -1;
	}
	return 0;
}

/* The answer built in ctl->answer goes to C, with its newline. A client
 * whose unread answers would pass CONTROL_UNREAD_MAX is dropped. */
static void send_answer(struct control *ctl, struct control_client *c)
{
	size_t unread = c->out.len - c->out_off;

	if (ctl->answer.failed) {
		jsonw_reset(&ctl->answer);
		jsonw_object(&ctl->answer);
		jsonw_key(&ctl->answer, "ok");
		jsonw_bool(&ctl->answer, false);
		jsonw_key(&ctl->answer, "error");
		jsonw_string(&ctl->answer, "out of memory");
		jsonw_end_object(&ctl->answer);
	}
	if (unread > 0 && unread + ctl->answer.len > CONTROL_UNREAD_MAX) {
		close_client(ctl, c);
		return;
	}
	jsonw_raw(&c->out, ctl->answer.text, ctl->answer.len);
	jsonw_raw(&c->out, "\n", 1);
	/* A large answer's buffer is not kept for the next one. */
	if (ctl->answer.cap > CONTROL_KEEP_MAX)
		jsonw_free(&ctl->answer);
	if (c->out.failed) {
		close_client(ctl, c);
		return;
	}
	flush_client(ctl, c);
}

static void answer_begin(struct control *ctl, bool ok)
{
	jsonw_reset(&ctl->answer);
	jsonw_object(&ctl->answer);
	jsonw_key(&ctl->answer, "ok");
	jsonw_bool(&ctl->answer, ok);
}

static void answer_error(struct control *ctl, struct control_client *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void answer_error(struct control *ctl, struct control_client *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	answer_begin(ctl, false);
	jsonw_key(&ctl->answer, "error");
	jsonw_string(&ctl->answer, msg);
	jsonw_end_object(&ctl->answer);
	send_answer(ctl, c);
}

void control_accept(struct loop *l)
{
	struct control *ctl = l->control;
	struct control_client *c;
	struct ucred cred;
	socklen_t clen = sizeof cred;
	int fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			ctl->accept_after = later(CONTROL_ACCEPT_REST_NS);
		return;
	}
	if (ctl->n == CONTROL_CLIENTS) {
		static const char full[] = "{\"ok\":false,\"error\":\"too many clients: tfd "
					   "serves 32 at once\"}\n";

		send(fd, full, sizeof full - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		return;
	}
	c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->uid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 ? cred.uid
									    : (uid_t)-1;
	c->deadline = later(CONTROL_TIMEOUT_NS);
	ctl->c[ctl->n++] = c;
}

/* Commands */

struct request {
	struct json_doc d;
	char *command;
	char *job;
};

static void control_event(struct loop *l, struct control_client *c, const char *command,
			  const char *job)
{
	events_control(&l->ev, command, job, (unsigned)c->uid);
}

static void answer_ok(struct control *ctl, struct control_client *c)
{
	answer_begin(ctl, true);
	jsonw_end_object(&ctl->answer);
	send_answer(ctl, c);
}

static struct job *find_job(struct loop *l, struct control_client *c, const char *name)
{
	struct job *j = name ? jobview_find(l, name) : NULL;

	if (!name)
		answer_error(l->control, c, "this command needs \"job\"");
	else if (!j)
		answer_error(l->control, c, "unknown job '%s'", name);
	return j;
}

/* list: its head now, its jobs a slice at a time (list_more). */
static void cmd_list(struct loop *l, struct control_client *c)
{
	struct listing *ls = calloc(1, sizeof *ls);

	if (ls)
		ls->jobs = jobview_sorted(l, &ls->n);
	if (!ls || !ls->jobs) {
		free(ls);
		jsonw_reset(&l->control->answer);
		l->control->answer.failed = true;
		send_answer(l->control, c);
		return;
	}
	ls->now = clock_now_ns(CLOCK_REALTIME);
	c->list = ls;
	jsonw_raw(&c->out, JOBVIEW_LIST_HEAD, strlen(JOBVIEW_LIST_HEAD));
	list_more(l, l->control, c);
	if (c->fd >= 0)
		flush_client(l->control, c);
}

static void cmd_status(struct loop *l, struct control_client *c, const struct request *rq)
{
	if (!find_job(l, c, rq->job))
		return;
	jsonw_reset(&l->control->answer);
	jobview_status(&l->control->answer, l, rq->job);
	send_answer(l->control, c);
}

/* The exit status tfdctl run --wait gives for R: the run's own. */
static int record_exit(const struct run_record *r)
{
	if (r->start_failed)
		return 1;
	if (r->signal)
		return 128 + r->signal;
	return r->status;
}

/* The answer of a run that started (or was queued), and of one refused
 * by --overlap skip. */
static void answer_started(struct control *ctl, struct control_client *c,
			   const struct job *j, uint64_t seq, enum tick_action a)
{
	answer_begin(ctl, true);
	jsonw_key(&ctl->answer, "job");
	jsonw_string(&ctl->answer, j->name);
	jsonw_key(&ctl->answer, "seq");
	jsonw_u64(&ctl->answer, seq);
	jsonw_key(&ctl->answer, "action");
	jsonw_string(&ctl->answer, tick_action_name(a));
	jsonw_end_object(&ctl->answer);
	send_answer(ctl, c);
}

static void answer_skipped(struct control *ctl, struct control_client *c)
{
	answer_begin(ctl, false);
	jsonw_key(&ctl->answer, "error");
	jsonw_string(&ctl->answer, "a run is still going and --overlap is skip");
	jsonw_key(&ctl->answer, "action");
	jsonw_string(&ctl->answer, "skip");
	jsonw_end_object(&ctl->answer);
	send_answer(ctl, c);
}

static void stop_waiting(struct control_client *c)
{
	c->waiting = false;
	c->claiming = false;
	c->fleet_token = 0;
	c->deadline = later(CONTROL_TIMEOUT_NS);
}

/* run under --fleet: claimed as an elapse is, its row's trigger 'manual';
 * the answer (or, with --wait, the run's end) comes with the claim's
 * (control_claimed), within CONTROL_TIMEOUT_NS. */
static void run_claimed(struct loop *l, struct control_client *c, struct job *j, bool wait)
{
	struct tick t;

	if (!claims_connected(l)) {
		answer_error(l->control, c, "the fleet's database is not connected: a run now "
			     "must be claimed");
		return;
	}
	control_event(l, c, "run", j->name);
	tick_manual(l, j, &t);
	c->waiting = true;
	c->claiming = true;
	c->wait_end = wait;
	c->wait_job = j;
	c->wait_seq = t.seq;
	c->deadline = later(CONTROL_TIMEOUT_NS);
	claims_hold(l, j, &t);
}

void control_claimed(struct loop *l, struct job *j, const struct tick *t)
{
	struct control *ctl = l->control;
	enum tick_action a = t->action;

	for (size_t i = 0; ctl && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->claiming || c->wait_job != j || c->wait_seq != t->seq)
			continue;
		c->claiming = false;
		if ((a == TICK_RUN || a == TICK_QUEUE) && c->wait_end) {
			c->deadline = INT64_MAX;   /* control_run_ended answers */
			return;
		}
		stop_waiting(c);
		if (a == TICK_RUN || a == TICK_QUEUE || a == TICK_KILL)
			answer_started(ctl, c, j, t->seq, a);
		else if (a == TICK_SKIP)
			answer_skipped(ctl, c);
		else if (a == TICK_ACTION_NONE)
			answer_error(ctl, c, "the run could not be started");
		else
			answer_error(ctl, c, "the fleet's claim of the run was %s: not run here",
				     tick_action_name(a));
		return;
	}
}

void control_fleet_done(struct loop *l, uint64_t token, const char *message)
{
	struct control *ctl = l->control;

	for (size_t i = 0; ctl && token && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->waiting || c->fleet_token != token)
			continue;
		stop_waiting(c);
		if (message)
			answer_error(ctl, c, "%s", message);
		else
			answer_ok(ctl, c);
		return;
	}
}

/* run, and run --wait: the client waits before the run starts, since a
 * start the kernel refuses ends the run at once (control_run_ended). */
static void cmd_run(struct loop *l, struct control_client *c, const struct request *rq)
{
	struct control *ctl = l->control;
	struct job *j = find_job(l, c, rq->job);
	bool wait = false;
	enum tick_action a;

	if (!j)
		return;
	json_bool(&rq->d, json_get(&rq->d, 0, "wait"), &wait);
	if (!j->state->runner) {
		answer_error(ctl, c, "job '%s' has no command to run", j->name);
		return;
	}
	if (l->st.phase != PHASE_RUNNING) {
		answer_error(ctl, c, "tfd is shutting down");
		return;
	}
	if (claims_decide(l, j)) {
		run_claimed(l, c, j, wait);
		return;
	}
	control_event(l, c, "run", j->name);
	if (wait) {
		c->waiting = true;
		c->wait_job = j;
		c->wait_seq = j->state->seq + 1;   /* the run's, once it has one */
		c->deadline = INT64_MAX;
	}
	a = tick_run_now(l, j);
	if (a == TICK_SKIP || a == TICK_ACTION_NONE) {
		stop_waiting(c);
		if (a == TICK_SKIP)
			answer_skipped(ctl, c);
		else
			answer_error(ctl, c, "the run could not be started");
	} else if (!wait) {
		answer_started(ctl, c, j, j->state->seq, a);
	}
}

static void answer_ended(struct control *ctl, struct control_client *c, const struct job *j,
			 const struct run_record *r)
{
	char name[16];

	answer_begin(ctl, true);
	jsonw_key(&ctl->answer, "job");
	jsonw_string(&ctl->answer, j->name);
	jsonw_key(&ctl->answer, "seq");
	jsonw_u64(&ctl->answer, r->seq);
	jsonw_key(&ctl->answer, "status");
	if (r->signal || r->start_failed)
		jsonw_null(&ctl->answer);
	else
		jsonw_i64(&ctl->answer, r->status);
	jsonw_key(&ctl->answer, "signal");
	jsonw_string(&ctl->answer, r->signal ? signal_name(r->signal, name, sizeof name) : NULL);
	jsonw_key(&ctl->answer, "timed_out");
	jsonw_bool(&ctl->answer, r->timed_out);
	jsonw_key(&ctl->answer, "duration");
	jsonw_seconds(&ctl->answer, r->duration_ns);
	jsonw_key(&ctl->answer, "exit");
	jsonw_i64(&ctl->answer, record_exit(r));
	jsonw_end_object(&ctl->answer);
	send_answer(ctl, c);
}

void control_run_ended(struct loop *l, struct job *j, const struct run_record *r, bool final)
{
	struct control *ctl = l->control;

	for (size_t i = 0; ctl && final && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->waiting || c->wait_job != j || c->wait_seq != r->seq)
			continue;
		/* Under --fleet also while its claim's answer is on its way
		 * (a start refused ends the run before): it is this answer. */
		stop_waiting(c);
		answer_ended(ctl, c, j, r);
		/* Requests that came while it waited are served when poll
		 * next hands the client over (control_serve), not here, in
		 * the middle of a run's end. */
		i = (size_t)-1;   /* C may be closed: look again */
	}
}

void control_job_gone(struct loop *l, struct job *j)
{
	struct control *ctl = l->control;

	for (size_t i = 0; ctl && i < ctl->n; i++)
		for (size_t k = 0; ctl->c[i]->list && k < ctl->c[i]->list->n; k++)
			if (ctl->c[i]->list->jobs[k] == j)
				ctl->c[i]->list->jobs[k] = NULL;
	for (size_t i = 0; ctl && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->waiting || c->wait_job != j)
			continue;
		stop_waiting(c);
		answer_error(ctl, c, "job '%s' left the table before its run ended", j->name);
		i = (size_t)-1;
	}
}

static void cmd_stop(struct loop *l, struct control_client *c, const struct request *rq)
{
	struct control *ctl = l->control;
	struct job *j = find_job(l, c, rq->job);
	size_t n;

	if (!j)
		return;
	control_event(l, c, "stop", j->name);
	n = j->state->runner ? runner_stop(j->state->runner, clock_now_ns(CLOCK_MONOTONIC)) : 0;
	jobdue_update(l, j);
	answer_begin(ctl, true);
	jsonw_key(&ctl->answer, "job");
	jsonw_string(&ctl->answer, j->name);
	jsonw_key(&ctl->answer, "stopped");
	jsonw_u64(&ctl->answer, n);
	jsonw_end_object(&ctl->answer);
	send_answer(ctl, c);
}

static void set_paused(struct loop *l, struct job *j, bool paused)
{
	j->state->paused = paused;
	l->metrics_dirty = true;
}

/* The names of the array at JOBS, each a job of the table; else the
 * first that is not, answered. */
static bool names_known(struct loop *l, struct control_client *c, const struct json_doc *d,
			size_t jobs)
{
	for (size_t i = jobs + 1; i < d->v[jobs].next; i = d->v[i].next) {
		char *name = json_string(d, i);
		bool known = name && jobview_find(l, name);

		if (!known)
			answer_error(l->control, c, "unknown job '%s'", name ? name : "(not a string)");
		free(name);
		if (!known)
			return false;
	}
	return true;
}

/* The jobs that pause or resume names: "all": true (every job of the
 * table), "jobs": [names] or "job"; every name checked before any job
 * changes. NULL (answered) when one is unknown or none is named; *ALL
 * says "all". */
static struct job **pause_targets(struct loop *l, struct control_client *c,
				  const struct request *rq, const char *command, size_t *n,
				  bool *all)
{
	const struct json_doc *d = &rq->d;
	size_t jobs = json_get(d, 0, "jobs");
	bool listed = jobs && d->v[jobs].type == JSON_ARRAY && d->v[jobs].count > 0;
	struct job **v = calloc(l->njobs + 1, sizeof *v);
	struct job *j;

	*n = 0;
	*all = false;
	json_bool(d, json_get(d, 0, "all"), all);
	if (!v) {
		answer_error(l->control, c, "out of memory");
	} else if (*all) {
		for (size_t i = 0; i < l->njobs; i++)
			if (!l->jobs[i]->state->removed)
				v[(*n)++] = l->jobs[i];
		return v;
	} else if (!listed && rq->job) {
		if ((j = find_job(l, c, rq->job))) {
			v[(*n)++] = j;
			return v;
		}
	} else if (!listed) {
		answer_error(l->control, c, "%s needs \"jobs\" (names) or \"all\": true", command);
	} else if (names_known(l, c, d, jobs)) {
		for (size_t i = jobs + 1; i < d->v[jobs].next && *n < l->njobs; i = d->v[i].next) {
			char *name = json_string(d, i);

			if (name && (j = jobview_find(l, name)))
				v[(*n)++] = j;
			free(name);
		}
		return v;
	}
	free(v);
	return NULL;
}

/* Under --fleet: the pause is the fleet's, written to tfd_paused; the
 * answer waits for the database (control_fleet_done), within
 * CONTROL_TIMEOUT_NS. An @reboot job, which each replica runs unclaimed,
 * is paused here only. */
static void pause_fleet(struct loop *l, struct control_client *c, struct job **v, size_t n,
			bool paused)
{
	struct control *ctl = l->control;
	size_t claimed = 0;

	if (!claims_connected(l)) {
		answer_error(ctl, c, "the fleet's database is not connected: a pause is written "
			     "to tfd_paused");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (claims_decide(l, v[i]))
			v[claimed++] = v[i];
		else
			set_paused(l, v[i], paused);
	if (claimed == 0) {
		answer_ok(ctl, c);
		return;
	}
	if (claims_pause(l, v, claimed, paused, (unsigned)c->uid, ++ctl->next_token) != 0) {
		answer_error(ctl, c, "out of memory");
		return;
	}
	c->waiting = true;
	c->wait_job = NULL;   /* a former run's: not this wait's */
	c->fleet_token = ctl->next_token;
	c->deadline = later(CONTROL_TIMEOUT_NS);
}

/* pause and resume: each change a "control" event ("all": one). */
static void cmd_pause(struct loop *l, struct control_client *c, const struct request *rq,
		      bool paused)
{
	const char *command = paused ? "pause" : "resume";
	size_t n;
	bool all;
	struct job **v = pause_targets(l, c, rq, command, &n, &all);

	if (!v)
		return;
	for (size_t i = 0; !all && i < n; i++)
		control_event(l, c, command, v[i]->name);
	if (all)
		control_event(l, c, command, NULL);
	if (l->claims) {
		pause_fleet(l, c, v, n, paused);
	} else {
		for (size_t i = 0; i < n; i++)
			set_paused(l, v[i], paused);
		answer_ok(l->control, c);
	}
	free(v);
}

static void cmd_reload(struct loop *l, struct control_client *c)
{
	struct control *ctl = l->control;
	struct reload_counts counts;
	char err[1024];

	if (!l->cfg->jobs_path || !l->cfg->reload || l->st.phase != PHASE_RUNNING) {
		answer_error(ctl, c, "reload needs a tfd started with --jobs");
		return;
	}
	control_event(l, c, "reload", NULL);
	reload_retry_watches(l);
	if (reload_run(l, true, &counts, err, sizeof err) < 0) {
		answer_error(ctl, c, "%s", err);
		return;
	}
	answer_begin(ctl, true);
	jsonw_key(&ctl->answer, "added");
	jsonw_u64(&ctl->answer, counts.added);
	jsonw_key(&ctl->answer, "removed");
	jsonw_u64(&ctl->answer, counts.removed);
	jsonw_key(&ctl->answer, "kept");
	jsonw_u64(&ctl->answer, counts.kept);
	jsonw_end_object(&ctl->answer);
	send_answer(ctl, c);
}

static void dispatch(struct loop *l, struct control_client *c, const struct request *rq)
{
	const char *cmd = rq->command;

	if (strcmp(cmd, "list") == 0)
		cmd_list(l, c);
	else if (strcmp(cmd, "status") == 0)
		cmd_status(l, c, rq);
	else if (strcmp(cmd, "run") == 0)
		cmd_run(l, c, rq);
	else if (strcmp(cmd, "stop") == 0)
		cmd_stop(l, c, rq);
	else if (strcmp(cmd, "pause") == 0)
		cmd_pause(l, c, rq, true);
	else if (strcmp(cmd, "resume") == 0)
		cmd_pause(l, c, rq, false);
	else if (strcmp(cmd, "reload") == 0)
		cmd_reload(l, c);
	else
		answer_error(l->control, c, "unknown command '%s'", cmd);
}

/* One request line (without its newline). */
static void serve_request(struct loop *l, struct control_client *c, const char *line,
			  size_t len)
{
	struct request rq = { 0 };
	char err[256];
	size_t cmd;

	if (json_parse(&rq.d, line, len, err, sizeof err) != 0) {
		answer_error(l->control, c, "bad request: %s", err);
	} else if (rq.d.v[0].type != JSON_OBJECT ||
		   !(cmd = json_get(&rq.d, 0, "command")) ||
		   !(rq.command = json_string(&rq.d, cmd))) {
		answer_error(l->control, c, "bad request: an object with \"command\" expected");
	} else {
		rq.job = json_string(&rq.d, json_get(&rq.d, 0, "job"));
		dispatch(l, c, &rq);
	}
	free(rq.command);
	free(rq.job);
	json_free(&rq.d);
}

/* Requests complete in C's input, each answered in turn; a waiting
 * client's next request waits for the answer it waits for. */
static void serve_lines(struct loop *l, struct control_client *c)
{
	char *nl;

	while (c->fd >= 0 && !c->waiting && !c->list && (nl = memchr(c->in, '\n', c->in_len))) {
		size_t len = (size_t)(nl - c->in);

		serve_request(l, c, c->in, len);
		if (c->fd < 0)
			return;
		memmove(c->in, nl + 1, c->in_len - len - 1);
		c->in_len -= len + 1;
		if (!c->waiting)
			c->deadline = later(CONTROL_TIMEOUT_NS);
	}
	if (c->fd >= 0 && c->in_len >= CONTROL_REQUEST_MAX) {
		c->ended = true;
		answer_error(l->control, c, "request too big: over %d bytes", CONTROL_REQUEST_MAX);
	}
}

/* An ended client's bytes are read and dropped until it closes (or its
 * deadline passes), so that it can read its answer without EPIPE. */
static void discard_client(struct control *ctl, struct control_client *c)
{
	char buf[4096];
	ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		close_client(ctl, c);
}

/* Reads what C sent, at most one buffer's worth a poll. */
static void read_client(struct loop *l, struct control_client *c)
{
	ssize_t n;

	if (c->ended) {
		discard_client(l->control, c);
		return;
	}
	if (c->in_closed || c->in_len >= CONTROL_REQUEST_MAX)
		return;
	if (!c->in && !(c->in = malloc(CONTROL_REQUEST_MAX))) {
		close_client(l->control, c);
		return;
	}
	n = recv(c->fd, c->in + c->in_len, CONTROL_REQUEST_MAX - c->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->in_closed = true;
		if (n < 0 || (!c->waiting && !c->list && !has_request(c) && c->out.len == c->out_off))
			close_client(l->control, c);
		return;
	}
	c->in_len += (size_t)n;
	serve_lines(l, c);
}

void control_serve(struct loop *l, struct control_client *c)
{
	if (c->fd >= 0 && c->out.len > c->out_off)
		flush_client(l->control, c);
	if (c->fd >= 0 && c->list)
		list_more(l, l->control, c);
	/* Requests that came while a list was written or a run waited for. */
	if (has_request(c))
		serve_lines(l, c);
	if (c->fd >= 0)
		read_client(l, c);
}

/* The poll set */

int control_listen_fd(const struct loop *l)
{
	if (!l->control || l->control->accept_after > clock_now_ns(CLOCK_MONOTONIC))
		return -1;
	return l->control->fd;
}

int control_client_fd(const struct loop *l, size_t i, short *events,
		      struct control_client **c)
{
	if (!l->control || i >= l->control->n)
		return -1;
	*c = l->control->c[i];
	*events = 0;
	if ((!(*c)->in_closed && (*c)->in_len < CONTROL_REQUEST_MAX) || (*c)->ended)
		*events |= POLLIN;
	/* POLLOUT also for a list to go on, and for requests that waited
	 * behind an answer (the socket is writable: served at once). */
	if ((*c)->out.len > (*c)->out_off || (*c)->list || has_request(*c))
		*events |= POLLOUT;
	return (*c)->fd;
}

int64_t control_deadline(const struct loop *l)
{
	int64_t d = l->control && l->control->accept_after ? l->control->accept_after : INT64_MAX;

	for (size_t i = 0; l->control && i < l->control->n; i++)
		if (l->control->c[i]->deadline < d)
			d = l->control->c[i]->deadline;
	return d;
}

void control_expire(struct loop *l, int64_t now)
{
	struct control *ctl = l->control;

	if (ctl && ctl->accept_after && ctl->accept_after <= now)
		ctl->accept_after = 0;
	for (size_t i = 0; ctl && i < ctl->n;) {
		struct control_client *c = ctl->c[i];

		if (c->deadline > now) {
			i++;
		} else if (c->claiming || c->fleet_token) {
			/* The fleet's database did not answer in time: told so,
			 * the client is not left without an answer. */
			const char *what = c->claiming ? "the run's claim" : "the change";

			stop_waiting(c);
			answer_error(ctl, c, "the fleet's database did not answer within %d s: %s is "
				     "sent when it answers", (int)(CONTROL_TIMEOUT_NS / 1000000000), what);
		} else {
			close_client(ctl, c);
		}
	}
}

/* At exit: a waiting client is told; the socket file is removed. */
void control_free(struct loop *l)
{
	struct control *ctl = l->control;

	if (!ctl)
		return;
	while (ctl->n > 0) {
		struct control_client *c = ctl->c[0];

		if (c->waiting)
			answer_error(ctl, c, "tfd exited before the run ended");
		close_client(ctl, c);
	}
	control_collect(l);
	close(ctl->fd);
	unlink(ctl->path);
	free(ctl->path);
	jsonw_free(&ctl->answer);
	free(ctl);
	l->control = NULL;
}
