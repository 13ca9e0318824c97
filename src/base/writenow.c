/* SPDX-License-Identifier: MIT */
#include "writenow.h"

#include <errno.h>
#include <unistd.h>

ssize_t write_fd(void *arg, const char *buf, size_t len)
{
	return write(*(const int *)arg, buf, len);
}

int write_now(const char *buf, size_t len, size_t *off, write_fn fn, void *arg)
{
	while (*off < len) {
		ssize_t n = fn(arg, buf + *off, len - *off);

		if (n > 0)
			*off += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return EAGAIN;
		else
			return n < 0 ? errno : EIO;
	}
	return 0;
}
