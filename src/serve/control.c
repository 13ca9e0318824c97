/* SPDX-License-Identifier: MIT */
/* control: the socket side of --control (control.h): the path and its
 * lock, the clients' buffers, limits and deadlines, the poll set, and the
 * answers' framing (one at a time, in order, each line whole). What a
 * request asks goes up through the hooks; this file calls nothing above
 * it. */
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

#include "pathdir.h"
#include "timens.h"
#include "writenow.h"

/* The answer buffer kept for the next answer, at most. */
#define CONTROL_KEEP_MAX (64 * 1024)

/* A streamed answer (a list) is made a part at a time, within the
 * budget (slices.h), while its client has less than a window of it
 * unread: ten thousand jobs are megabytes and tens of milliseconds, which
 * no elapse waits for, and a client that reads slowly holds no more than
 * the window. */
#define CONTROL_STREAM_WINDOW (256 * 1024)

/* How long the listening socket rests after accept failed for want of a
 * descriptor or memory: it stays readable, and polling it at once again
 * would spin. */
#define CONTROL_ACCEPT_REST_NS (INT64_C(100) * 1000000)

struct control_client {
	int fd; /* -1: closed, freed at the next control_poll */
	uid_t uid;
	char *in; /* requests read: in[in_off..in_len) not yet served */
	size_t in_off, in_len;
	bool in_closed;   /* the client shut its side: answer, then close */
	bool ended;       /* a request too big: its answer, then no more */
	bool held;        /* its answer comes later (control_hold) */
	bool streaming;   /* its answer is being made in parts (control_stream) */
	struct jsonw out; /* answers not yet written */
	size_t out_off;
	int64_t deadline; /* monotonic: idle, or a held answer, past it */
	struct control_client *next_closed;
};

struct control {
	int fd;      /* the listening socket; -1: none */
	int lock_fd; /* PATH.lock, held (flock) until control_free */
	char *path;
	struct control_client *c[CONTROL_CLIENTS];
	size_t n;
	size_t first;       /* the client the poll set starts with (turns) */
	size_t max_clients; /* CONTROL_CLIENTS, or fewer under a low RLIMIT_NOFILE */
	struct control_client *closed;
	struct jsonw answer;  /* the answer being built */
	int64_t accept_after; /* monotonic: accept failed (EMFILE); 0: none */
	struct control_hooks hooks;
	const struct slice_budget *budget;
};

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
		snprintf(err, errlen,
			 "--control '%s': the directory '%s' belongs to uid %u, not to "
			 "tfd's user (uid %u): its owner could answer in tfd's place; give a "
			 "directory of tfd's user",
			 path, dir, (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "--control '%s': the directory '%s' is writable by %s (mode "
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
				snprintf(err, errlen,
					 "--control '%s': another tfd runs there (it "
					 "holds '%s')",
					 path, lock);
			else
				snprintf(err, errlen, "--control '%s': flock '%s': %s", path, lock,
					 strerror(errno));
			close(fd);
			return -1;
		}
		if (fstat(fd, &held) == 0 && stat(lock, &there) == 0 &&
		    held.st_dev == there.st_dev && held.st_ino == there.st_ino)
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
static int clear_path(const char *path, const struct sockaddr_un *sa, char *err, size_t errlen)
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
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
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

struct control *control_new(int fd, int lock_fd, const char *path, size_t fds,
			    const struct control_hooks *hooks, const struct slice_budget *budget)
{
	struct control *c = calloc(1, sizeof *c);

	if (!c || (path && !(c->path = strdup(path)))) {
		free(c);
		if (fd >= 0)
			close(fd);
		if (path) {
			unlink(path);
			drop_lock(path, lock_fd);
		}
		return NULL;
	}
	c->fd = fd;
	c->lock_fd = lock_fd;
	c->hooks = *hooks;
	c->budget = budget;
	/* The listening socket and the lock are two of them. */
	c->max_clients = fds > CONTROL_FDS ? CONTROL_CLIENTS : fds > 3 ? fds - 2 : 1;
	return c;
}

/* Clients */

/* The monotonic instant SPAN from now (INT64_MAX when that overflows). */
static int64_t later(int64_t span)
{
	int64_t at;

	return __builtin_add_overflow(clock_now_ns(CLOCK_MONOTONIC), span, &at) ? INT64_MAX : at;
}

/* C is idle again: its next request has CONTROL_TIMEOUT_NS to come. */
static void idle(struct control_client *c)
{
	c->deadline = later(CONTROL_TIMEOUT_NS);
}

/* C's descriptor is closed and its slot free at once; the client itself
 * is freed at the next control_poll, since a slot of the poll set being
 * dispatched may still name it. */
static void close_client(struct control *ctl, struct control_client *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	c->held = c->streaming = false;
	for (size_t i = 0; i < ctl->n; i++)
		if (ctl->c[i] == c) {
			ctl->c[i] = ctl->c[--ctl->n];
			break;
		}
	c->next_closed = ctl->closed;
	ctl->closed = c;
	ctl->hooks.closed(ctl->hooks.arg, c);
}

void control_drop(struct control *ctl, struct control_client *c)
{
	close_client(ctl, c);
}

uid_t control_client_uid(const struct control_client *c)
{
	return c->uid;
}

/* C's input holds a line longer than CONTROL_REQUEST_MAX: no newline in
 * a whole buffer of what is not yet served. */
static bool too_big(const struct control_client *c)
{
	return c->in_len - c->in_off >= CONTROL_REQUEST_MAX &&
	       !memchr(c->in + c->in_off, '\n', c->in_len - c->in_off);
}

/* C's answer is still on its way: its next request waits. */
static bool answering(const struct control_client *c)
{
	return c->held || c->streaming;
}

/* A whole request (or one too big) waits in C's input, and C may be
 * served it: no answer of C's is still on its way. */
static bool has_request(const struct control_client *c)
{
	return c->fd >= 0 && !answering(c) && !c->ended && c->in_len > c->in_off &&
	       (memchr(c->in + c->in_off, '\n', c->in_len - c->in_off) || too_big(c));
}

/* What C waits for: 0 when only its hang-up. POLLOUT also for a stream
 * to go on (when STREAM_MAY_GO: else the loop wakes at the budget's
 * renewal, slices.h), and for requests that waited behind an answer (the
 * socket is writable: served at once). */
static short client_events(const struct control_client *c, bool stream_may_go)
{
	short events = 0;

	if ((!c->in_closed && c->in_len - c->in_off < CONTROL_REQUEST_MAX) || c->ended)
		events |= POLLIN;
	if (c->out.len > c->out_off || (c->streaming && stream_may_go) || has_request(c))
		events |= POLLOUT;
	return events;
}

static void free_client(struct control_client *c)
{
	free(c->in);
	jsonw_free(&c->out);
	free(c);
}

/* The clients closed since the last call are freed. */
static void collect(struct control *ctl)
{
	while (ctl->closed) {
		struct control_client *c = ctl->closed;

		ctl->closed = c->next_closed;
		free_client(c);
	}
}

/* Another client is refused: told so at once and closed. */
static void refuse_client(const struct control *ctl, int fd)
{
	char full[128];
	int n = snprintf(full, sizeof full,
			 "{\"ok\":false,\"error\":\"too many clients: tfd "
			 "serves %zu at once\"}\n",
			 ctl->max_clients);

	send(fd, full, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

struct control_client *control_add_client(struct control *ctl, int fd, uid_t uid)
{
	struct control_client *c;

	if (ctl->n == ctl->max_clients) {
		refuse_client(ctl, fd);
		return NULL;
	}
	c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->uid = uid;
	idle(c);
	ctl->c[ctl->n++] = c;
	return c;
}

/* Answers */

static ssize_t send_fd(void *arg, const char *buf, size_t len)
{
	return send(*(const int *)arg, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Writes what the socket takes now. Returns -1 when the client is gone. */
static int flush(struct control *ctl, struct control_client *c)
{
	size_t off = c->out_off;
	int rc = write_now(c->out.text, c->out.len, &c->out_off, send_fd, &c->fd);

	/* A client that reads keeps its time, however long the answer. */
	if (c->out_off > off)
		idle(c);
	if (rc != 0 && rc != EAGAIN) {
		close_client(ctl, c);
		return -1;
	}
	if (rc == EAGAIN)
		return 0;
	if (c->out.cap > CONTROL_KEEP_MAX)
		jsonw_free(&c->out);
	jsonw_reset(&c->out);
	c->out_off = 0;
	if (c->streaming)
		return 0;
	/* The client still writing its request reads the answer and the
	 * end of the stream, and what it sends on is read and dropped. */
	if (c->ended)
		shutdown(c->fd, SHUT_WR);
	if (c->in_closed && !c->held && !has_request(c)) {
		close_client(ctl, c);
		return -1;
	}
	return 0;
}

/* TEXT goes after C's unread output; no memory for it drops C. Returns
 * -1 when C is gone. */
static int put_out(struct control *ctl, struct control_client *c, const char *text, size_t len)
{
	jsonw_raw(&c->out, text, len);
	if (!c->out.failed)
		return 0;
	close_client(ctl, c);
	return -1;
}

struct jsonw *control_answer(struct control *ctl)
{
	jsonw_reset(&ctl->answer);
	return &ctl->answer;
}

struct jsonw *control_answer_begin(struct control *ctl, bool ok)
{
	struct jsonw *a = control_answer(ctl);

	jsonw_object(a);
	jsonw_key(a, "ok");
	jsonw_bool(a, ok);
	return a;
}

/* The answer whose making ran out of memory says so. */
static void answer_oom(struct control *ctl)
{
	struct jsonw *a = control_answer_begin(ctl, false);

	jsonw_key(a, "error");
	jsonw_string(a, "out of memory");
	jsonw_end_object(a);
}

void control_send_answer(struct control *ctl, struct control_client *c)
{
	size_t unread = c->out.len - c->out_off;

	if (c->fd < 0)
		return;
	if (c->held) {
		c->held = false;
		idle(c);
	}
	if (ctl->answer.failed)
		answer_oom(ctl);
	if (unread > 0 && unread + ctl->answer.len > CONTROL_UNREAD_MAX) {
		close_client(ctl, c);
		return;
	}
	jsonw_raw(&c->out, ctl->answer.text, ctl->answer.len);
	/* A large answer's buffer is not kept for the next one. */
	if (ctl->answer.cap > CONTROL_KEEP_MAX)
		jsonw_free(&ctl->answer);
	if (put_out(ctl, c, "\n", 1) == 0)
		flush(ctl, c);
}

void control_answer_error(struct control *ctl, struct control_client *c, const char *fmt, ...)
{
	char msg[1024];
	struct jsonw *a;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	a = control_answer_begin(ctl, false);
	jsonw_key(a, "error");
	jsonw_string(a, msg);
	jsonw_end_object(a);
	control_send_answer(ctl, c);
}

void control_hold(struct control *ctl, struct control_client *c, int64_t span)
{
	(void)ctl;
	if (c->fd < 0)
		return;
	c->held = true;
	c->deadline = span == INT64_MAX ? INT64_MAX : later(span);
}

/* C's stream goes on while the client has less than the window unread.
 * At most one part a call: the loop comes back when the socket takes
 * more, or at its next turn when the budget was spent. */
static void stream_more(struct control *ctl, struct control_client *c)
{
	if (c->streaming && c->out.len - c->out_off < CONTROL_STREAM_WINDOW)
		ctl->hooks.more(ctl->hooks.arg, c);
}

void control_stream(struct control *ctl, struct control_client *c)
{
	if (c->fd < 0)
		return;
	c->streaming = true;
	stream_more(ctl, c);
	if (c->fd >= 0)
		flush(ctl, c);
}

void control_stream_part(struct control *ctl, struct control_client *c, const char *text,
			 size_t len, bool last)
{
	if (c->fd < 0 || put_out(ctl, c, text, len) != 0)
		return;
	if (last)
		c->streaming = false;
}

/* Serving */

/* Requests complete in C's input, each answered in full before the next
 * is read: a client whose answer is held (run --wait, reload) or still
 * being streamed is served its next request once that answer is out
 * (serve_client). The 64 KiB limit is each line's. */
static void serve_lines(struct control *ctl, struct control_client *c)
{
	char *nl;

	while (c->fd >= 0 && !answering(c) && !c->ended &&
	       (nl = memchr(c->in + c->in_off, '\n', c->in_len - c->in_off))) {
		const char *line = c->in + c->in_off;
		size_t len = (size_t)(nl - line);

		/* The line stays where it is until the next read. */
		c->in_off += len + 1;
		ctl->hooks.request(ctl->hooks.arg, c, line, len);
		if (c->fd >= 0 && !c->held)
			idle(c);
	}
	if (c->fd >= 0 && has_request(c) && too_big(c)) {
		c->ended = true;
		control_answer_error(ctl, c, "request too big: over %d bytes", CONTROL_REQUEST_MAX);
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
static void read_client(struct control *ctl, struct control_client *c)
{
	ssize_t n;

	if (c->ended) {
		discard_client(ctl, c);
		return;
	}
	compact_input(c);
	if (c->in_closed || c->in_len >= CONTROL_REQUEST_MAX)
		return;
	if (!c->in && !(c->in = malloc(CONTROL_REQUEST_MAX))) {
		close_client(ctl, c);
		return;
	}
	n = recv(c->fd, c->in + c->in_len, CONTROL_REQUEST_MAX - c->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->in_closed = true;
		if (n < 0 || (!answering(c) && !has_request(c) && c->out.len == c->out_off))
			close_client(ctl, c);
		return;
	}
	c->in_len += (size_t)n;
	serve_lines(ctl, c);
}

static void serve_client(struct control *ctl, struct control_client *c)
{
	/* Poll woke a client that asked for nothing: it hung up (closed
	 * while it waited for a run or a reload): its slot is free now. */
	if (c->fd >= 0 && client_events(c, true) == 0) {
		close_client(ctl, c);
		return;
	}
	if (c->fd >= 0 && c->out.len > c->out_off)
		flush(ctl, c);
	if (c->fd >= 0)
		stream_more(ctl, c);
	/* Requests that came while an answer was on its way. */
	if (has_request(c))
		serve_lines(ctl, c);
	if (c->fd >= 0)
		read_client(ctl, c);
}

/* Every client is full: those whose peers closed (or sent their last
 * request and closed) are served and let go first, as the next poll
 * would, so that clients already gone never count against the limit. */
static void collect_gone(struct control *ctl)
{
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
			serve_client(ctl, who[i]);
}

static void accept_client(struct control *ctl)
{
	struct ucred cred;
	socklen_t clen = sizeof cred;
	int fd;

	if (ctl->n == ctl->max_clients)
		collect_gone(ctl);
	fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			ctl->accept_after = later(CONTROL_ACCEPT_REST_NS);
		return;
	}
	control_add_client(ctl, fd,
			   getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 ? cred.uid
										      : (uid_t)-1);
}

/* The loop's side */

/* C's stream waits for the budget's renewal (slices.h) to go on. */
static bool stream_waits(const struct control *ctl, const struct control_client *c)
{
	return c->streaming && c->out.len - c->out_off < CONTROL_STREAM_WINDOW &&
	       slice_budget_spent(ctl->budget);
}

void control_poll(struct control *ctl, control_poll_fn add, void *arg)
{
	if (!ctl)
		return;
	collect(ctl);
	/* The clients take turns at the head of the poll set: the first
	 * served has the turn's budget for streams, and a list under way
	 * must never wait on others until its deadline passes. */
	ctl->first++;
	if (ctl->fd >= 0 && ctl->accept_after <= clock_now_ns(CLOCK_MONOTONIC))
		add(arg, ctl->fd, POLLIN, NULL);
	for (size_t i = 0; i < ctl->n; i++) {
		struct control_client *c = ctl->c[(i + ctl->first) % ctl->n];

		add(arg, c->fd, client_events(c, !stream_waits(ctl, c)), c);
	}
}

void control_ready(struct control *ctl, void *tag)
{
	if (tag)
		serve_client(ctl, tag);
	else
		accept_client(ctl);
}

int64_t control_deadline(const struct control *ctl)
{
	int64_t d = ctl && ctl->accept_after ? ctl->accept_after : INT64_MAX;

	for (size_t i = 0; ctl && i < ctl->n; i++) {
		const struct control_client *c = ctl->c[i];

		if (c->deadline < d)
			d = c->deadline;
		if (stream_waits(ctl, c) && ctl->budget->renew_at < d)
			d = ctl->budget->renew_at;
	}
	return d;
}

void control_expire(struct control *ctl, int64_t now)
{
	if (ctl && ctl->accept_after && ctl->accept_after <= now)
		ctl->accept_after = 0;
	for (size_t i = 0; ctl && i < ctl->n;) {
		struct control_client *c = ctl->c[i];

		if (c->deadline > now) {
			i++;
		} else if (c->held) {
			/* Answered by the layer above, told so: the client
			 * is not left without an answer. */
			c->held = false;
			idle(c);
			ctl->hooks.expired(ctl->hooks.arg, c);
		} else {
			close_client(ctl, c);
		}
	}
}

void control_free(struct control *ctl)
{
	if (!ctl)
		return;
	/* The layer above has had its last word: no hook is called. */
	while (ctl->n > 0) {
		struct control_client *c = ctl->c[--ctl->n];

		close(c->fd);
		free_client(c);
	}
	collect(ctl);
	if (ctl->fd >= 0)
		close(ctl->fd);
	if (ctl->path) {
		unlink(ctl->path);
		drop_lock(ctl->path, ctl->lock_fd);
	}
	free(ctl->path);
	jsonw_free(&ctl->answer);
	free(ctl);
}
