/* SPDX-License-Identifier: MIT */
#include "capture.h"

#include <string.h>

/* A failure to keep is reported at once (capture_feed's -1), so it does
 * not stick: the next line may find memory again. */
static int keep(struct capture *c, const char *data, size_t len)
{
	if (buf_put(&c->line, data, len) == 0)
		return 0;
	c->line.failed = false;
	return -1;
}

/* Sends the kept part and DATA[0..len) as one line. */
static void send_line(struct capture *c, const char *data, size_t len, capture_line_fn fn,
		      void *arg)
{
	if (c->line.len == 0) {
		fn(arg, data, len);
		return;
	}
	if (keep(c, data, len) == 0) {
		fn(arg, c->line.s, c->line.len);
	} else {
		/* No memory to join them: two pieces rather than a loss. */
		fn(arg, c->line.s, c->line.len);
		fn(arg, data, len);
	}
	c->line.len = 0;
}

int capture_feed(struct capture *c, const char *data, size_t len, capture_line_fn fn, void *arg)
{
	while (len > 0) {
		size_t room = CAPTURE_LINE_MAX - c->line.len;
		/* One byte past the room: a newline right after a full piece
		 * ends that line, it does not start an empty one. */
		size_t look = len <= room ? len : room + 1;
		const char *nl = memchr(data, '\n', look);

		if (nl) {
			send_line(c, data, (size_t)(nl - data), fn, arg);
			len -= (size_t)(nl - data) + 1;
			data = nl + 1;
		} else if (len > room) {
			/* A full piece and more without a newline: split here. */
			send_line(c, data, room, fn, arg);
			len -= room;
			data += room;
		} else {
			return keep(c, data, len);
		}
	}
	return 0;
}

void capture_finish(struct capture *c, capture_line_fn fn, void *arg)
{
	if (c->line.len > 0)
		fn(arg, c->line.s, c->line.len);
	c->line.len = 0;
}

void capture_free(struct capture *c)
{
	buf_free(&c->line);
}
