/* SPDX-License-Identifier: MIT */
/* Unit tests for writenow (the one non-blocking write loop): a pipe that
 * fills takes what it can and the rest waits (EAGAIN), then goes once it
 * is read; a signal's EINTR is tried again; short writes are continued; a
 * write that wrote nothing is EIO; a reader that left is EPIPE. */
#include "harness.h"
#include "writenow.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (1024 * 1024)

/* Reads what the pipe holds now; returns the count. */
static size_t drain(int fd)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		total += (size_t)n;
	return total;
}

static void test_pipe(void)
{
	int p[2];
	char *msg = malloc(BIG);
	size_t off = 0, read_back = 0;
	int err = 0;

	if (!msg || pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0) {
		check(0, "pipe2 or malloc");
		free(msg);
		return;
	}
	memset(msg, 'x', BIG);
	err = write_now(msg, BIG, &off, write_fd, &p[1]);
	check(err == EAGAIN && off > 0 && off < BIG, "a full pipe: EAGAIN after %zu bytes", off);
	for (int k = 0; k < 1000 && err == EAGAIN; k++) {
		read_back += drain(p[0]);
		err = write_now(msg, BIG, &off, write_fd, &p[1]);
	}
	read_back += drain(p[0]);
	check(err == 0 && off == BIG && read_back == BIG, "all of it went: %zu read", read_back);
	check(write_now(msg, BIG, &off, write_fd, &p[1]) == 0 && off == BIG,
	      "nothing left: 0, nothing written");
	close(p[0]);
	off = 0;
	err = write_now(msg, 10, &off, write_fd, &p[1]);
	check(err == EPIPE && off == 0, "the reader left: EPIPE (%d)", err);
	close(p[1]);
	free(msg);
}

/* A descriptor as a script: each call takes the next step. */
struct script {
	const int *steps; /* > 0: bytes taken (at most); 0: wrote nothing; < 0: -errno */
	size_t at, n;
	size_t calls;
};

static ssize_t scripted(void *arg, const char *buf, size_t len)
{
	struct script *s = arg;
	int step = s->at < s->n ? s->steps[s->at++] : -EAGAIN;

	(void)buf;
	s->calls++;
	if (step < 0) {
		errno = -step;
		return -1;
	}
	return (size_t)step < len ? step : (ssize_t)len;
}

static void test_script(void)
{
	static const int eintr[] = { 3, -EINTR, 4, -EINTR, -EINTR, 100 };
	static const int zero[] = { 2, 0 };
	static const int error[] = { 1, -EBADF, 5 };
	static const int nospace[] = { -ENOSPC };
	struct script s = { eintr, 0, 6, 0 };
	size_t off = 0;
	int err;

	err = write_now("0123456789", 10, &off, scripted, &s);
	check(err == 0 && off == 10 && s.calls == 6,
	      "EINTR tried again, short writes continued: "
	      "%d, %zu bytes, %zu calls",
	      err, off, s.calls);
	s = (struct script){ zero, 0, 2, 0 };
	off = 0;
	err = write_now("0123456789", 10, &off, scripted, &s);
	check(err == EIO && off == 2, "a write of nothing: EIO after 2 bytes (%d, %zu)", err, off);
	s = (struct script){ error, 0, 3, 0 };
	off = 0;
	err = write_now("0123456789", 10, &off, scripted, &s);
	check(err == EBADF && off == 1 && s.calls == 2, "a failed write stops at once (%d)", err);
	s = (struct script){ nospace, 0, 1, 0 };
	off = 4;
	err = write_now("0123456789", 10, &off, scripted, &s);
	check(err == ENOSPC && off == 4, "its errno is returned (%d), the offset kept", err);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_pipe();
	test_script();
	return tally_finish(&tally, "writenow");
}
