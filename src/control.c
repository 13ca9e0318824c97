/* SPDX-License-Identifier: MIT */
/* control: the socket side of --control (control.h): the path, the
 * clients' buffers, limits and deadlines, the poll set, and the answers'
 * framing. What a request asks is control_cmds.c's. */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control_state.h"
#include "jobview.h"
#include "jsonw.h"
#include "loopstate.h"
#include "pathdir.h"
#include "timens.h"

/* The answer buffer kept for the next answer, at most. */
#define CONTROL_KEEP_MAX (64 * 1024)

/* A list is made a slice at a time (jobview.h), within the loop's
 * budget (slices.h), while its client has less than a window of it
 * unread: ten thousand jobs are megabytes and tens of milliseconds, which
 * no elapse waits for, and a client that reads slowly holds no more than
 * the window. */
#define CONTROL_LIST_WINDOW (256 * 1024)

/* How long the listening socket rests after accept failed for want of a
 * descriptor or memory: it stays readable, and polling it at once again
 * would spin. */
#define CONTROL_ACCEPT_REST_NS (INT64_C(100) * 1000000)

/* Path and start */

static int make_parent(const char *path, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		return 0;
	snprintf(err, errlen, "--control '%s': mkdir '%s': %s", path, dir, strerror(errno));
	return -1;
}

/* Whoever may write in the socket's directory may move the socket aside
 * and answer tfdctl in tfd's place, so the directory must be tfd's user's
 * and writable by no one else. A sticky directory (/tmp) is no exception:
 * its sticky bit keeps others from renaming tfd's socket, not from
 * binding theirs first. */
static int check_dir(const char *path, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) != 0) {
		snprintf(err, errlen, "--control '%s': stat '%s': %s", path, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--control '%s': '%s' is not a directory", path, dir);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "--control '%s': the directory '%s' belongs to uid %u, not to "
			 "tfd's user (uid %u): its owner could answer in tfd's place; give a "
			 "directory of tfd's user", path, dir, (unsigned)st.st_uid,
			 (unsigned)geteuid());
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "--control '%s': the directory '%s' is writable by %s (mode "
			 "%04o): another user could answer in tfd's place; chmod go-w it",
			 path, dir, st.st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/* PATH.lock into BUF. */
static int lock_path(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	int n = snprintf(buf, len, "%s.lock", path);

	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "--control '%s': the path is too long", path);
		return -1;
	}
	return 0;
}

/* Takes PATH.lock for the process's life (flock, released when tfd's
 * descriptor closes, whatever ends tfd). The file is removed at exit, so
 * a lock taken on a file that was removed meanwhile is no lock: the one
 * at the path now must be the one locked. */
static int take_lock(const char *path, char *err, size_t errlen)
{
	char lock[4096];
	struct stat held, there;

	if (lock_path(path, lock, sizeof lock, err, errlen) != 0)
		return -1;
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);

		if (fd < 0) {
			snprintf(err, errlen, "--control '%s': open '%s': %s", path, lock,
				 strerror(errno));
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			if (errno == EWOULDBLOCK)
				snprintf(err, errlen, "--control '%s': another tfd runs there (it "
					 "holds '%s')", path, lock);
			else
				snprintf(err, errlen, "--control '%s': flock '%s': %s", path, lock,
					 strerror(errno));
			close(fd);
			return -1;
		}
		if (fstat(fd, &held) == 0 && stat(lock, &there) == 0 && held.st_dev == there.st_dev &&
		    held.st_ino == there.st_ino)
			return fd;
		close(fd);
	}
	snprintf(err, errlen, "--control '%s': '%s' keeps being replaced", path, lock);
	return -1;
}

/* The lock given up: its file removed while it is still held, then its
 * descriptor closed. */
static void drop_lock(const char *path, int fd)
{
	char lock[4096];
	char err[64];

	if (fd < 0)
		return;
	if (lock_path(path, lock, sizeof lock, err, sizeof err) == 0)
		unlink(lock);
	close(fd);
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

/* The directory checked, the lock taken: the socket, or -1. */
static int open_socket(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	memcpy(sa.sun_path, path, strlen(path));
	if (clear_path(path, &sa, err, errlen) != 0)
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

int control_listen(const char *path, int *lock_fd, char *err, size_t errlen)
{
	char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
	int fd;

	*lock_fd = -1;
	if (!*path || strlen(path) >= sizeof dir - 12) {
		snprintf(err, errlen, "--control '%s': a socket path is 1 to %zu bytes", path,
			 sizeof dir - 12);
		return -1;
	}
	path_dir(path, dir, sizeof dir);
	if (make_parent(path, dir, err, errlen) != 0 || check_dir(path, dir, err, errlen) != 0)
		return -1;
	*lock_fd = take_lock(path, err, errlen);
	if (*lock_fd < 0)
		return -1;
	fd = open_socket(path, err, errlen);
	if (fd < 0) {
		drop_lock(path, *lock_fd);
		*lock_fd = -1;
	}
	return fd;
}

struct control *control_new(int fd, int lock_fd, const char *path, size_t fds)
{
	struct control *c = calloc(1, sizeof *c);

	if (!c || !(c->path = strdup(path))) {
		free(c);
		close(fd);
		unlink(path);
		drop_lock(path, lock_fd);
		return NULL;
	}
	c->fd = fd;
	c->lock_fd = lock_fd;
	/* The listening socket and the lock are two of them. */
	c->max_clients = fds > CONTROL_FDS ? CONTROL_CLIENTS : fds > 3 ? fds - 2 : 1;
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

/* C's input holds a line longer than CONTROL_REQUEST_MAX: no newline in
 * a whole buffer of what is not yet served. */
static bool too_big(const struct control_client *c)
{
	return c->in_len - c->in_off >= CONTROL_REQUEST_MAX &&
	       !memchr(c->in + c->in_off, '\n', c->in_len - c->in_off);
}

/* A whole request (or one too big) waits in C's input, and C may be
 * served it: no answer of C's is still on its way. */
static bool has_request(const struct control_client *c)
{
	return c->fd >= 0 && !c->waiting && !c->list && !c->ended && c->in_len > c->in_off &&
	       (memchr(c->in + c->in_off, '\n', c->in_len - c->in_off) || too_big(c));
}

/* What poll should wait for on C's behalf: 0 when only its hang-up. */
/* What C waits for. POLLOUT also for a list to go on (when LIST_MAY_GO:
 * else the loop wakes at the budget's renewal, slices.h), and for
 * requests that waited behind an answer (the socket is writable: served
 * at once). */
static short client_events(const struct control_client *c, bool list_may_go)
{
	short events = 0;

	if ((!c->in_closed && c->in_len - c->in_off < CONTROL_REQUEST_MAX) || c->ended)
		events |= POLLIN;
	if (c->out.len > c->out_off || (c->list && list_may_go) || has_request(c))
		events |= POLLOUT;
	return events;
}

static void free_listing(struct control_client *c)
{
	jobview_listing_free(c->list);
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
	/* The clients take turns at the head of the poll set: the first
	 * served has the turn's budget for lists, and a list under way
	 * must never wait on others until its deadline passes. */
	if (ctl)
		ctl->first++;
}

int64_t control_later(int64_t span)
{
	int64_t at;

	return __builtin_add_overflow(clock_now_ns(CLOCK_MONOTONIC), span, &at) ? INT64_MAX : at;
}

/* The next slice of C's list into its output. Returns -1 when memory
 * ran out (the client is dropped). */
static int list_slice(struct loop *l, struct control *ctl, struct control_client *c)
{
	const char *text;
	size_t len;
	int rc = jobview_listing_part(c->list, &l->control_slices, SLICE_PART_BYTES, &text, &len);

	if (rc >= 0)
		jsonw_raw(&c->out, text, len);
	if (rc < 0 || c->out.failed) {
		close_client(ctl, c);
		return -1;
	}
	if (rc == 1)
		free_listing(c);
	return 0;
}

/* C's list goes on while the client has less than the window unread.
 * At most one slice a call: the loop comes back when the socket takes
 * more, or at its next turn when the budget was spent. */
void control_list_more(struct loop *l, struct control *ctl, struct control_client *c)
{
	if (c->list && c->out.len - c->out_off < CONTROL_LIST_WINDOW)
		list_slice(l, ctl, c);
}

/* Writes what the socket takes now. Returns -1 when the client is gone. */
int control_flush(struct control *ctl, struct control_client *c)
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
		c->deadline = control_later(CONTROL_TIMEOUT_NS);
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
void control_send_answer(struct control *ctl, struct control_client *c)
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
	control_flush(ctl, c);
}

void control_answer_begin(struct control *ctl, bool ok)
{
	jsonw_reset(&ctl->answer);
	jsonw_object(&ctl->answer);
	jsonw_key(&ctl->answer, "ok");
	jsonw_bool(&ctl->answer, ok);
}

void control_answer_error(struct control *ctl, struct control_client *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	control_answer_begin(ctl, false);
	jsonw_key(&ctl->answer, "error");
	jsonw_string(&ctl->answer, msg);
	jsonw_end_object(&ctl->answer);
	control_send_answer(ctl, c);
}

/* Every client is full: those whose peers closed (or sent their last
 * request and closed) are served and let go first, as the next poll
 * would, so that clients already gone never count against the limit. */
static void collect_gone(struct loop *l)
{
	struct control *ctl = l->control;
	struct pollfd p[CONTROL_CLIENTS];
	struct control_client *who[CONTROL_CLIENTS];
	size_t n = ctl->n;

	for (size_t i = 0; i < n; i++) {
		who[i] = ctl->c[i];
		p[i] = (struct pollfd){ .fd = who[i]->fd, .events = client_events(who[i], true) };
	}
	if (poll(p, n, 0) <= 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (p[i].revents & (POLLHUP | POLLERR | POLLIN))
			control_serve(l, who[i]);
}

/* Another client is refused: told so at once and closed. */
static void refuse_client(const struct control *ctl, int fd)
{
	char full[128];
	int n = snprintf(full, sizeof full, "{\"ok\":false,\"error\":\"too many clients: tfd "
			 "serves %zu at once\"}\n", ctl->max_clients);

	send(fd, full, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

void control_accept(struct loop *l)
{
	struct control *ctl = l->control;
	struct control_client *c;
	struct ucred cred;
	socklen_t clen = sizeof cred;
	int fd;

	if (ctl->n == ctl->max_clients)
		collect_gone(l);
	fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			ctl->accept_after = control_later(CONTROL_ACCEPT_REST_NS);
		return;
	}
	if (ctl->n == ctl->max_clients) {
		refuse_client(ctl, fd);
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
	c->deadline = control_later(CONTROL_TIMEOUT_NS);
	ctl->c[ctl->n++] = c;
}

void control_stop_waiting(struct control_client *c)
{
	c->waiting = false;
	c->reloading = false;
	c->claiming = false;
	c->fleet_token = 0;
	c->deadline = control_later(CONTROL_TIMEOUT_NS);
}

/* Requests complete in C's input, each answered in full before the next
 * is read: a client that waits (run --wait, reload) or whose list is
 * still being written is served its next request once that answer is
 * out (control_serve). The 64 KiB limit is each line's. */
static void serve_lines(struct loop *l, struct control_client *c)
{
	char *nl;

	while (c->fd >= 0 && !c->waiting && !c->list && !c->ended &&
	       (nl = memchr(c->in + c->in_off, '\n', c->in_len - c->in_off))) {
		const char *line = c->in + c->in_off;
		size_t len = (size_t)(nl - line);

		/* The line stays where it is until the next read. */
		c->in_off += len + 1;
		control_serve_request(l, c, line, len);
		if (c->fd >= 0 && !c->waiting)
			c->deadline = control_later(CONTROL_TIMEOUT_NS);
	}
	if (c->fd >= 0 && has_request(c) && too_big(c)) {
		c->ended = true;
		control_answer_error(l->control, c, "request too big: over %d bytes",
				     CONTROL_REQUEST_MAX);
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

/* Requests served are dropped from the front of C's input, so that a
 * whole CONTROL_REQUEST_MAX is free for the next line. */
static void compact_input(struct control_client *c)
{
	if (c->in_off == 0)
		return;
	memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
	c->in_len -= c->in_off;
	c->in_off = 0;
}

/* Reads what C sent, at most one buffer's worth a poll; none while its
 * unserved requests fill the buffer (they wait behind an answer). */
static void read_client(struct loop *l, struct control_client *c)
{
	ssize_t n;

	if (c->ended) {
		discard_client(l->control, c);
		return;
	}
	compact_input(c);
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
	/* Poll woke a client that asked for nothing: it hung up (closed
	 * while it waited for a run or a reload): its slot is free now. */
	if (c->fd >= 0 && client_events(c, true) == 0) {
		close_client(l->control, c);
		return;
	}
	if (c->fd >= 0 && c->out.len > c->out_off)
		control_flush(l->control, c);
	if (c->fd >= 0 && c->list)
		control_list_more(l, l->control, c);
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

/* C's list waits for the budget's renewal (slices.h) to go on. */
static bool list_waits(const struct loop *l, const struct control_client *c)
{
	return c->list && c->out.len - c->out_off < CONTROL_LIST_WINDOW &&
	       slice_budget_spent(&l->control_slices);
}

int control_client_fd(const struct loop *l, size_t i, short *events,
		      struct control_client **c)
{
	if (!l->control || i >= l->control->n)
		return -1;
	*c = l->control->c[(i + l->control->first) % l->control->n];
	*events = client_events(*c, !list_waits(l, *c));
	return (*c)->fd;
}

int64_t control_deadline(const struct loop *l)
{
	int64_t d = l->control && l->control->accept_after ? l->control->accept_after : INT64_MAX;

	for (size_t i = 0; l->control && i < l->control->n; i++) {
		const struct control_client *c = l->control->c[i];

		if (c->deadline < d)
			d = c->deadline;
		if (list_waits(l, c) && l->control_slices.renew_at < d)
			d = l->control_slices.renew_at;
	}
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
		} else if (c->reloading) {
			control_stop_waiting(c);
			control_answer_error(ctl, c, "%s", l->st.phase == PHASE_RUNNING
					     ? "the reload did not come in time"
					     : "tfd is stopping: the reload was not done");
		} else if (c->claiming || c->fleet_token) {
			/* The fleet's database did not answer in time: told so,
			 * the client is not left without an answer. */
			const char *what = c->claiming ? "the run's claim" : "the change";

			control_stop_waiting(c);
			control_answer_error(ctl, c, "the fleet's database did not answer within "
					     "%d s: %s is sent when it answers",
					     (int)(CONTROL_TIMEOUT_NS / 1000000000), what);
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

		if (c->reloading)
			control_answer_error(ctl, c, "tfd is stopping: the reload was not done");
		else if (c->waiting)
			control_answer_error(ctl, c, "tfd exited before the run ended");
		close_client(ctl, c);
	}
	control_collect(l);
	close(ctl->fd);
	unlink(ctl->path);
	drop_lock(ctl->path, ctl->lock_fd);
	free(ctl->path);
	jsonw_free(&ctl->answer);
	free(ctl);
	l->control = NULL;
}
