/* SPDX-License-Identifier: MIT */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writenow.h"

/* A pipe or a terminal is shared with the runs, which inherit the same
 * open file description: setting O_NONBLOCK on it would hand them EAGAIN.
 * Opening it again through /proc gives tfd a description of its own. A
 * regular file is never reopened: its offset must stay the one the runs
 * share, and writing to it does not wait for a reader anyway. */
static int reopen_nonblocking(int fd)
{
	/* Only 1 and 2 come here; no printf, whose pages tfd need not map. */
	char path[] = "/proc/self/fd/N";

	path[sizeof path - 2] = (char)('0' + fd);
	return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

void output_open(struct output *o, int fd, const char *name)
{
	struct stat st;

	int flags = fcntl(fd, F_GETFL);

	*o = (struct output){ .fd = fd, .orig_fd = fd, .name = name, .mode = OUTPUT_CHUNKED };
	/* A descriptor not open for writing (a closed stdout, see main)
	 * must keep failing: reopening it for writing would hide that. */
	if (fstat(fd, &st) != 0 || flags < 0 || (flags & O_ACCMODE) == O_RDONLY ||
	    S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
		o->mode = OUTPUT_PLAIN;
		return;
	}
	if (S_ISSOCK(st.st_mode)) {
		o->mode = OUTPUT_SOCKET;
		return;
	}
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		int own = reopen_nonblocking(fd);

		if (own >= 0) {
			o->fd = own;
			o->mode = OUTPUT_OWN;
		}
	}
}

void output_close(struct output *o)
{
	if (o->mode == OUTPUT_OWN && o->fd >= 0)
		close(o->fd);
	buf_free(&o->q);
	o->fd = -1;
}

/* One write to the output at ARG as its mode allows (a write_fn). */
static ssize_t write_some(void *arg, const char *buf, size_t len)
{
	struct output *o = arg;

	switch (o->mode) {
	case OUTPUT_SOCKET: {
		ssize_t n = send(o->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == ENOTSOCK) {
			o->mode = OUTPUT_CHUNKED;
			return write_some(o, buf, len);
		}
		return n;
	}
	case OUTPUT_CHUNKED: {
		/* A pipe that poll() calls writable takes PIPE_BUF bytes
		 * without waiting. */
		struct pollfd p = { .fd = o->fd, .events = POLLOUT };

		if (poll(&p, 1, 0) == 0) {
			errno = EAGAIN;
			return -1;
		}
		return write(o->fd, buf, len < PIPE_BUF ? len : PIPE_BUF);
	}
	default:
		return write(o->fd, buf, len);
	}
}

void output_flush(struct output *o)
{
	int err = output_pending(o) ? write_now(o->q.s, o->q.len, &o->off, write_some, o) : 0;

	if (err == EAGAIN)
		return;
	if (err == EPIPE)
		o->gone = true;
	else if (err)
		o->error = err;
	/* All of it went, or none of the rest ever will. */
	o->off = o->q.len = 0;
}

/* Room for MORE bytes: what was written is dropped from the front before
 * the queue grows. */
static int reserve(struct output *o, size_t more)
{
	if (o->off > 0 && o->off == o->q.len)
		o->off = o->q.len = 0;
	if (o->off > 0 && more > o->q.cap - o->q.len) {
		memmove(o->q.s, o->q.s + o->off, o->q.len - o->off);
		o->q.len -= o->off;
		o->off = 0;
	}
	return buf_reserve(&o->q, more, SIZE_MAX);
}

int output_put(struct output *o, const char *buf, size_t len)
{
	if (o->gone || o->error || len == 0)
		return 0;
	if (reserve(o, len) != 0)
		return -1;
	memcpy(o->q.s + o->q.len, buf, len);
	o->q.len += len;
	output_flush(o);
	return 0;
}
