/* SPDX-License-Identifier: MIT */
/* Unit tests for control.c, the socket alone: its framing driven with
 * hooks that record what it hands up, as the loop drives it (control_poll,
 * poll, control_ready), without the commands or the loop. Requests sent
 * together are handed up one at a time, in order, each once the answer
 * before it is out (a held one, a streamed one); a line over 64 KiB is
 * answered by the socket and never handed up; a client that hangs up is
 * closed at once and its slot free for the next; beyond the clients it
 * may hold one more is told so; a held answer past its span is the
 * layer above's to give, an idle client past its own is closed; a stream
 * goes on a part at a time, and waits for its budget; clients take turns
 * at the head of the poll set; PATH.lock keeps a second socket off the
 * path, and control_free removes both files. */
#include "control.h"
#include "harness.h"
#include "timens.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* What the socket handed up, and what the hooks do with it: a line
 * "hold" is held (control_hold, no limit), "stream" is streamed (PARTS
 * parts, then the end), any other is echoed at once. */
struct rec {
	struct control *ctl;
	char lines[16][96];
	size_t n;
	struct control_client *held, *last;
	size_t more, expired, closed;
	struct control_client *closed_c;
	int parts;
};

static void on_request(void *arg, struct control_client *c, const char *line, size_t len)
{
	struct rec *r = arg;
	struct jsonw *w;

	if (r->n < 16)
		snprintf(r->lines[r->n++], sizeof r->lines[0], "%.*s", (int)len, line);
	r->last = c;
	if (len == 4 && memcmp(line, "hold", 4) == 0) {
		r->held = c;
		control_hold(r->ctl, c, INT64_MAX);
	} else if (len == 6 && memcmp(line, "stream", 6) == 0) {
		r->parts = 0;
		control_stream(r->ctl, c);
	} else {
		w = control_answer_begin(r->ctl, true);
		jsonw_key(w, "echo");
		jsonw_text(w, line, len);
		jsonw_end_object(w);
		control_send_answer(r->ctl, c);
	}
}

static void on_more(void *arg, struct control_client *c)
{
	struct rec *r = arg;

	r->more++;
	if (r->parts < 2)
		control_stream_part(r->ctl, c, r->parts++ ? "b" : "a", 1, false);
	else
		control_stream_part(r->ctl, c, "z\n", 2, true);
}

static void on_expired(void *arg, struct control_client *c)
{
	struct rec *r = arg;

	r->expired++;
	control_answer_error(r->ctl, c, "expired");
}

static void on_closed(void *arg, struct control_client *c)
{
	struct rec *r = arg;

	r->closed++;
	r->closed_c = c;
}

static struct slice_budget budget = { .left_ns = SLICE_NS, .renew_at = INT64_MAX };

static struct control *open_control(struct rec *r, const char *path, size_t fds)
{
	char err[512];
	int lock_fd, fd = control_listen(path, &lock_fd, err, sizeof err);
	const struct control_hooks hooks = { on_request, on_more, on_expired, on_closed, r };

	check(fd >= 0, "listens at %s: %s", path, fd >= 0 ? "" : err);
	memset(r, 0, sizeof *r);
	r->ctl = control_new(fd, lock_fd, path, fds, &hooks, &budget);
	check(r->ctl != NULL, "control_new");
	return r->ctl;
}

/* The poll set of one turn. */
struct turn {
	struct pollfd p[CONTROL_CLIENTS + 1];
	void *tag[CONTROL_CLIENTS + 1];
	size_t n;
};

static void add_slot(void *arg, int fd, short events, void *tag)
{
	struct turn *t = arg;

	t->p[t->n] = (struct pollfd){ .fd = fd, .events = events };
	t->tag[t->n++] = tag;
}

/* One turn of a loop that has nothing but the socket: its poll set, a
 * poll of up to MS milliseconds, each ready descriptor served. */
static void turn(struct control *ctl, int ms)
{
	struct turn t = { .n = 0 };

	control_poll(ctl, add_slot, &t);
	if (poll(t.p, t.n, ms) <= 0)
		return;
	for (size_t i = 0; i < t.n; i++)
		if (t.p[i].revents)
			control_ready(ctl, t.tag[i]);
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	check(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s",
	      strerror(errno));
	return fd;
}

/* Turns of CTL until FD has sent LINES newlines (or EOF, or 5 s): what
 * it sent into BUF. */
static size_t read_lines(struct control *ctl, int fd, char *buf, size_t size, int lines)
{
	size_t len = 0;
	int64_t until = clock_now_ns(CLOCK_MONOTONIC) + INT64_C(5000000000);

	buf[0] = '\0';
	while (clock_now_ns(CLOCK_MONOTONIC) < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int got = 0;
		ssize_t n;

		for (size_t i = 0; i < len; i++)
			got += buf[i] == '\n';
		if (got >= lines)
			break;
		turn(ctl, 10);
		if (poll(&p, 1, 0) <= 0)
			continue;
		n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return len;
}

static void send_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n <= 0) {
			check(0, "write: %s", strerror(errno));
			return;
		}
		text += n;
		len -= (size_t)n;
	}
}

/* Requests sent together: each handed up once the one before it is
 * answered, a held one included; the answers in order. */
static void test_pipelined(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, CONTROL_FDS);
	int fd = connect_to(path);
	char buf[1024];

	send_all(fd, "one\nhold\ntwo\nthree\n", 19);
	read_lines(ctl, fd, buf, sizeof buf, 1);
	for (int i = 0; i < 20; i++)
		turn(ctl, 5);
	check(r.n == 2 && strcmp(r.lines[0], "one") == 0 && strcmp(r.lines[1], "hold") == 0,
	      "the requests behind a held answer wait: %zu handed up", r.n);
	check(strcmp(buf, "{\"ok\":true,\"echo\":\"one\"}\n") == 0, "the first answered: %s", buf);
	check(control_client_uid(r.held) == geteuid(), "the peer's uid: %u",
	      (unsigned)control_client_uid(r.held));
	jsonw_end_object(control_answer_begin(ctl, true));
	control_send_answer(ctl, r.held);
	read_lines(ctl, fd, buf, sizeof buf, 3);
	check(r.n == 4 && strcmp(r.lines[2], "two") == 0 && strcmp(r.lines[3], "three") == 0,
	      "then the rest, in order: %zu", r.n);
	check(strcmp(buf, "{\"ok\":true}\n{\"ok\":true,\"echo\":\"two\"}\n"
			  "{\"ok\":true,\"echo\":\"three\"}\n") == 0,
	      "answered in order: %s", buf);
	close(fd);
	for (int i = 0; i < 20 && r.closed == 0; i++)
		turn(ctl, 5);
	check(r.closed == 1, "a client that hangs up is closed: %zu", r.closed);
	control_free(ctl);
}

/* The 64 KiB limit is each line's: a line of 65,535 bytes is handed up,
 * one without a newline in 64 KiB is answered by the socket alone. */
static void test_line_limit(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, CONTROL_FDS);
	int fd = connect_to(path);
	size_t big = CONTROL_REQUEST_MAX + 4000;
	char *text = malloc(big);
	char buf[70000];

	memset(text, 'a', big);
	text[CONTROL_REQUEST_MAX - 1] = '\n';
	send_all(fd, text, CONTROL_REQUEST_MAX);
	read_lines(ctl, fd, buf, sizeof buf, 1);
	check(r.n == 1 && strlen(r.lines[0]) == sizeof r.lines[0] - 1,
	      "a line of 65,535 bytes is a request: %zu", r.n);
	send_all(fd, text, big - CONTROL_REQUEST_MAX);
	send_all(fd, text, CONTROL_REQUEST_MAX);
	read_lines(ctl, fd, buf, sizeof buf, 1);
	check(r.n == 1, "a longer one is never handed up: %zu", r.n);
	/* clang-format off */
	check(strstr(buf, "{\"ok\":false,\"error\":\"request too big: over 65536 bytes\"}\n") != NULL,
	      "it is answered so: %.80s", buf);
	/* clang-format on */
	free(text);
	close(fd);
	control_free(ctl);
}

/* FDS 3: one client. A second is told so and closed; once the first
 * hangs up (holding an answer), its slot is free at once. */
static void test_clients_limit(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, 3);
	int a = connect_to(path), b;
	char buf[256];

	send_all(a, "hold\n", 5);
	for (int i = 0; i < 50 && r.n == 0; i++)
		turn(ctl, 5);
	b = connect_to(path);
	read_lines(ctl, b, buf, sizeof buf, 1);
	check(strcmp(buf,
		     "{\"ok\":false,\"error\":\"too many clients: tfd serves 1 at once\"}\n") == 0,
	      "the client beyond the limit is told so: %s", buf);
	close(b);
	close(a);
	for (int i = 0; i < 50 && r.closed == 0; i++)
		turn(ctl, 5);
	check(r.closed == 1 && r.closed_c == r.held, "the held client's hang-up closes it: %zu",
	      r.closed);
	b = connect_to(path);
	send_all(b, "x\n", 2);
	read_lines(ctl, b, buf, sizeof buf, 1);
	check(strcmp(buf, "{\"ok\":true,\"echo\":\"x\"}\n") == 0, "its slot is free: %s", buf);
	close(b);
	control_free(ctl);
}

/* A held answer past its span is the hook's to give; an idle client past
 * its time is closed. */
static void test_deadlines(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, CONTROL_FDS);
	int fd = connect_to(path);
	int64_t now;
	char buf[256];

	check(control_deadline(ctl) == INT64_MAX, "no client, no deadline");
	send_all(fd, "hold\n", 5);
	for (int i = 0; i < 50 && r.n == 0; i++)
		turn(ctl, 5);
	check(control_deadline(ctl) == INT64_MAX, "held without limit: no deadline");
	control_hold(ctl, r.held, 1000);
	now = clock_now_ns(CLOCK_MONOTONIC);
	check(control_deadline(ctl) <= now + 1000, "held for 1 µs: due");
	control_expire(ctl, now + 1000);
	check(r.expired == 1 && r.closed == 0, "the hook gives the answer: %zu", r.expired);
	read_lines(ctl, fd, buf, sizeof buf, 1);
	check(strcmp(buf, "{\"ok\":false,\"error\":\"expired\"}\n") == 0, "as it says: %s", buf);
	now = clock_now_ns(CLOCK_MONOTONIC);
	check(control_deadline(ctl) > now + CONTROL_TIMEOUT_NS / 2 &&
		      control_deadline(ctl) <= now + CONTROL_TIMEOUT_NS,
	      "idle again: 5 s");
	control_expire(ctl, now + CONTROL_TIMEOUT_NS + 1);
	check(r.closed == 1 && r.expired == 1, "idle past it: closed");
	check(read(fd, buf, sizeof buf) == 0, "the client reads the end");
	close(fd);
	control_free(ctl);
}

/* A stream: a part each time the socket takes more, the next request
 * served after its end; while the budget is spent the stream waits, and
 * the socket's deadline is the budget's renewal. */
static void test_stream(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, CONTROL_FDS);
	int fd = connect_to(path);
	char buf[256];

	send_all(fd, "stream\nafter\n", 13);
	read_lines(ctl, fd, buf, sizeof buf, 2);
	check(strcmp(buf, "abz\n{\"ok\":true,\"echo\":\"after\"}\n") == 0,
	      "the parts, then the next answer: %s", buf);
	check(r.more == 3 && r.n == 2, "one part a call: %zu", r.more);
	budget.left_ns = 0;
	budget.renew_at = clock_now_ns(CLOCK_MONOTONIC) + 1000;
	send_all(fd, "stream\n", 7);
	for (int i = 0; i < 50 && r.n < 3; i++)
		turn(ctl, 5);
	for (int i = 0; i < 10; i++)
		turn(ctl, 1);
	check(r.more == 4 && r.parts == 1,
	      "past its first part, the stream waits for its budget: %zu", r.more);
	check(control_deadline(ctl) == budget.renew_at, "until its renewal");
	budget.left_ns = SLICE_NS;
	budget.renew_at = INT64_MAX;
	read_lines(ctl, fd, buf, sizeof buf, 1);
	check(strcmp(buf, "abz\n") == 0, "then goes on: %s", buf);
	close(fd);
	control_free(ctl);
}

/* Two clients take turns at the head of the poll set. */
static void test_turns(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, CONTROL_FDS);
	int a = connect_to(path), b = connect_to(path);
	struct turn t1 = { .n = 0 }, t2 = { .n = 0 };

	for (int i = 0; i < 10; i++)
		turn(ctl, 5);
	control_poll(ctl, add_slot, &t1);
	control_poll(ctl, add_slot, &t2);
	check(t1.n == 3 && t2.n == 3 && t1.tag[0] == NULL && t1.tag[1] != NULL &&
		      t1.tag[1] == t2.tag[2] && t1.tag[2] == t2.tag[1],
	      "the listening socket, then the clients in turn: %zu %zu", t1.n, t2.n);
	close(a);
	close(b);
	control_free(ctl);
}

/* A client given on a descriptor is served as an accepted one. */
static void test_given(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, CONTROL_FDS);
	int sv[2];
	char buf[256];

	check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
	check(control_add_client(ctl, sv[0], 42) != NULL, "added");
	send_all(sv[1], "given\n", 6);
	read_lines(ctl, sv[1], buf, sizeof buf, 1);
	check(strcmp(buf, "{\"ok\":true,\"echo\":\"given\"}\n") == 0 &&
		      control_client_uid(r.last) == 42,
	      "served, its uid the given one: %s", buf);
	close(sv[1]);
	control_free(ctl);
}

/* PATH.lock: a second socket on the path is refused while the first
 * lives; control_free removes the socket and the lock. */
static void test_lock(const char *path)
{
	struct rec r = { .n = 0 };
	struct control *ctl = open_control(&r, path, CONTROL_FDS);
	char err[512], lock[4096];
	int lock_fd;

	snprintf(lock, sizeof lock, "%s.lock", path);
	check(control_listen(path, &lock_fd, err, sizeof err) < 0 &&
		      strstr(err, "another tfd runs there") != NULL,
	      "a second is refused: %s", err);
	control_free(ctl);
	check(access(path, F_OK) != 0 && access(lock, F_OK) != 0, "both files removed");
}

int main(void)
{
	char dir[] = "/tmp/test_control.XXXXXX";
	char path[256];

	harness_start(dir, 60);
	snprintf(path, sizeof path, "%s/control", dir);
	test_pipelined(path);
	test_line_limit(path);
	test_clients_limit(path);
	test_deadlines(path);
	test_stream(path);
	test_turns(path);
	test_given(path);
	test_lock(path);
	harness_remove_tree(dir);
	return tally_finish(&tally, "test_control");
}
