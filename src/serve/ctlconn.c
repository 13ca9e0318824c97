/* SPDX-License-Identifier: MIT */
#include "ctlconn.h"

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "timens.h"

/* The monotonic instant SPAN from now (INT64_MAX: no limit, SPAN -1),
 * and what is left of it now in poll's milliseconds (0 past it). */
static int64_t deadline_in(int64_t span)
{
	return span < 0 ? INT64_MAX : mono_after(span);
}

static int ms_left(int64_t deadline)
{
	int64_t left;

	if (deadline == INT64_MAX)
		return -1;
	left = deadline - clock_now_ns(CLOCK_MONOTONIC);
	if (left <= 0)
		return 0;
	return left / 1000000 >= 1000000000 ? 1000000000 : (int)(left / 1000000) + 1;
}

static void timed_out(const struct ctlconn *c)
{
	fprintf(stderr,
		"tfdctl: %s: no answer within %s (--timeout): tfd is stopped or too "
		"busy\n",
		c->path, c->timeout_text ? c->timeout_text : "10s");
}

/* "root's", "alice's", "uid 1234's": whose ST is. */
static void owner_text(char *buf, size_t len, const struct stat *st)
{
	const struct passwd *pw = getpwuid(st->st_uid);

	if (pw)
		snprintf(buf, len, "%s's", pw->pw_name);
	else
		snprintf(buf, len, "uid %u's", (unsigned)st->st_uid);
}

/* connect() said EACCES: the socket is another user's (mode 0600), or a
 * directory on the way may not be searched. Names which, and whose. */
static void permission_denied(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], who[300];
	struct stat st;

	if (stat(path, &st) == 0) {
		owner_text(who, sizeof who, &st);
		fprintf(stderr, "tfdctl: %s: permission denied (the socket is %s, mode %04o)\n",
			path, who, (unsigned)(st.st_mode & 07777));
		return;
	}
	/* The first directory from the top that may not be searched. */
	snprintf(dir, sizeof dir, "%s", path);
	for (char *slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (stat(dir, &st) == 0 && access(dir, X_OK) != 0) {
			owner_text(who, sizeof who, &st);
			fprintf(stderr,
				"tfdctl: %s: permission denied (the directory %s is %s, "
				"mode %04o)\n",
				path, dir, who, (unsigned)(st.st_mode & 07777));
			return;
		}
		*slash = '/';
	}
	fprintf(stderr, "tfdctl: %s: permission denied\n", path);
}

/* The process answering must be tfd under this user's uid, or root's: a
 * socket in a directory another user could write is not trusted. */
static int check_peer(int fd, const char *path)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		fprintf(stderr, "tfdctl: %s: getsockopt (SO_PEERCRED): %s\n", path,
			strerror(errno));
		return -1;
	}
	if (cred.uid == geteuid() || cred.uid == 0)
		return 0;
	fprintf(stderr,
		"tfdctl: %s: the process answering runs as uid %u, not as you (uid %u) "
		"or root: not trusted\n",
		path, (unsigned)cred.uid, (unsigned)geteuid());
	return -1;
}

/* Connected to tfd before DEADLINE: the descriptor, or -1 with the reason
 * on stderr. A connect waits only while the listening queue is full
 * (a stopped tfd's): SO_SNDTIMEO bounds it. */
static int connect_to(const struct ctlconn *c, int64_t deadline)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ms = ms_left(deadline);
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	int fd;

	if (strlen(c->path) >= sizeof sa.sun_path) {
		fprintf(stderr, "tfdctl: %s: the socket path is too long\n", c->path);
		return -1;
	}
	memcpy(sa.sun_path, c->path, strlen(c->path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "tfdctl: socket: %s\n", strerror(errno));
		return -1;
	}
	if (ms >= 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		if (errno == EACCES)
			permission_denied(c->path);
		else if (errno == EAGAIN || errno == EINPROGRESS)
			timed_out(c);
		else
			fprintf(stderr, "tfdctl: no tfd answers at %s: %s\n", c->path,
				strerror(errno));
		close(fd);
		return -1;
	}
	if (check_peer(fd, c->path) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits until FD is ready for EVENTS before DEADLINE: 0, or -1 when the
 * deadline passed. */
static int wait_ready(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int rc;

	while ((rc = poll(&p, 1, ms_left(deadline))) < 0 && errno == EINTR)
		continue;
	return rc > 0 ? 0 : -1;
}

/* Returns 0, -1 when tfd closed first (or the send failed), -2 when the
 * deadline passed. */
static int send_all(int fd, const char *s, size_t n, int64_t deadline)
{
	while (n > 0) {
		ssize_t k;

		if (wait_ready(fd, POLLOUT, deadline) != 0)
			return -2;
		k = send(fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Reads the answer's line into A. Returns 0, -1 when tfd closed the
 * connection first (or reading failed), -2 when the deadline passed. */
static int read_answer(int fd, struct jsonw *a, int64_t deadline)
{
	char buf[65536];

	for (;;) {
		ssize_t n;
		char *nl;

		if (wait_ready(fd, POLLIN, deadline) != 0)
			return -2;
		n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		nl = memchr(buf, '\n', (size_t)n);
		jsonw_raw(a, buf, nl ? (size_t)(nl - buf) : (size_t)n);
		if (a->failed)
			return -1;
		if (nl)
			return 0;
	}
}

int ctlconn_talk(const struct ctlconn *cc, const struct jsonw *req, struct jsonw *answer)
{
	int64_t deadline = deadline_in(cc->send_ns);
	int fd = connect_to(cc, deadline);
	int rc;

	if (fd < 0)
		return -1;
	/* A tfd that refuses the client (too many) answers and closes at
	 * once, maybe before the request is sent: its answer is read all
	 * the same. */
	rc = send_all(fd, req->text, req->len, deadline);
	if (rc != -2)
		rc = read_answer(fd, answer, deadline_in(cc->answer_ns));
	close(fd);
	if (rc == -2) {
		timed_out(cc);
		return -1;
	}
	if (rc != 0) {
		fprintf(stderr, "tfdctl: %s: tfd closed the connection without an answer\n",
			cc->path);
		return -1;
	}
	return 0;
}
