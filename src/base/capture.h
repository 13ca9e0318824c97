/* SPDX-License-Identifier: MIT */
/* capture: a run's output stream cut into lines, for --tag-output. Pure:
 * the loop reads the pipe and feeds the bytes in; whole lines come out
 * through a callback, in order. A line longer than CAPTURE_LINE_MAX comes
 * out in pieces of that size; a last line without a newline comes out at
 * the end of the stream. */
#ifndef TFD_CAPTURE_H
#define TFD_CAPTURE_H

#include <stddef.h>

#include "buf.h"

#define CAPTURE_LINE_MAX (64 * 1024)

struct capture {
	struct buf line; /* a line not yet ended */
};

/* LINE is not NUL-terminated and has no newline. */
typedef void (*capture_line_fn)(void *arg, const char *line, size_t len);

/* Returns 0, or -1 when memory ran out (the bytes not kept are lost and
 * the caller reports it). */
int capture_feed(struct capture *c, const char *data, size_t len, capture_line_fn fn, void *arg);
void capture_finish(struct capture *c, capture_line_fn fn, void *arg);
void capture_free(struct capture *c);

#endif
