/* SPDX-License-Identifier: MIT */
/* output: tfd's own stdout and stderr, written without ever blocking the
 * event loop. A line goes out whole with one write() when the descriptor
 * takes it; what it does not take waits in a queue that the loop drains when
 * poll() says the descriptor is writable. While a queue holds anything the
 * loop stops reading timers and run output (expirations are counted by the
 * kernel meanwhile, runs block on their full pipes), so a stuck reader never
 * makes tfd deaf to signals, deadlines or children, and no line is torn or
 * dropped. */
#ifndef TFD_OUTPUT_H
#define TFD_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum output_mode {
	OUTPUT_PLAIN,   /* a regular file: write() never waits for a reader */
	OUTPUT_OWN,     /* our own O_NONBLOCK description of the same pipe or tty */
	OUTPUT_SOCKET,  /* send(MSG_DONTWAIT) */
	OUTPUT_CHUNKED, /* no way to avoid blocking: PIPE_BUF at a time after POLLOUT */
};

struct output {
	int fd;      /* what tfd writes to */
	int orig_fd; /* 1 or 2 */
	enum output_mode mode;
	const char *name; /* "stdout", "stderr" for messages */
	struct buf q;     /* queued bytes: q.s[off..q.len) */
	size_t off;
	bool gone; /* EPIPE: the reader left */
	int error; /* errno of a failed write other than EPIPE; 0 */
};

/* Sets O up for descriptor FD (1 or 2). Never fails: without a better way
 * it writes in chunks a pipe takes whole. */
void output_open(struct output *o, int fd, const char *name);
void output_close(struct output *o);

/* Queues LEN bytes and writes as much as the descriptor takes now. After
 * EPIPE or an error the bytes are discarded (the caller looks at gone and
 * error). Returns -1 when memory for the queue ran out. */
int output_put(struct output *o, const char *buf, size_t len);

/* Writes what is queued, as far as the descriptor takes it. */
void output_flush(struct output *o);

static inline bool output_pending(const struct output *o)
{
	return o->q.len > o->off && !o->gone && !o->error;
}

#endif
