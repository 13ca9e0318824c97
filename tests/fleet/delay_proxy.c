/* SPDX-License-Identifier: MIT */
/* delay_proxy: a TCP proxy that delays every byte, for the fleet's tests
 * of a slow link (tests/bats/76-fleet-client.bats; socat can stop a link,
 * not slow it):
 *
 *   delay_proxy PORT TARGET_PORT DELAY_MS
 *
 * listens on 127.0.0.1:PORT and joins each connection to
 * 127.0.0.1:TARGET_PORT; what either side sends reaches the other
 * DELAY_MS after the proxy read it, in order, however much is in flight
 * (a link of long delay and wide bandwidth: a round trip costs 2 *
 * DELAY_MS, many statements in flight cost no more). A side that closes
 * is closed on the other DELAY_MS later. One process, one poll loop; it
 * runs until killed. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 64

/* Bytes read from one side, to be written to the other at AT (len 0: the
 * side closed). */
struct chunk {
	struct chunk *next;
	int64_t at;
	size_t len, off;
	char data[];
};

/* One direction of a pair: read from FROM, queued, written to TO. */
struct way {
	int from, to;
	struct chunk *head, *tail;
	bool eof_read;
};

struct pair {
	bool used;
	struct way way[2];
};

static struct pair pairs[MAX_PAIRS];
static int64_t delay_ns;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int tcp_socket(void)
{
	return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

static struct sockaddr_in loopback(int port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				     .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
}

static void queue_chunk(struct way *w, const char *data, size_t len)
{
	struct chunk *c = malloc(sizeof *c + len);

	if (!c) {
		perror("delay_proxy: malloc");
		exit(1);
	}
	*c = (struct chunk){ .at = now_ns() + delay_ns, .len = len };
	memcpy(c->data, data, len);
	if (w->tail)
		w->tail->next = c;
	else
		w->head = c;
	w->tail = c;
}

static void close_pair(struct pair *p)
{
	for (int i = 0; i < 2; i++) {
		struct chunk *c, *next;

		for (c = p->way[i].head; c; c = next) {
			next = c->next;
			free(c);
		}
	}
	close(p->way[0].from);
	close(p->way[1].from);
	*p = (struct pair){ 0 };
}

static void accept_one(int listener, int target_port)
{
	struct sockaddr_in to = loopback(target_port);
	int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), server;

	if (client < 0)
		return;
	server = tcp_socket();
	/* A nonblocking connect to the loopback completes at once or soon:
	 * what is written before it does waits in the queue (POLLOUT). */
	if (server < 0 || (connect(server, (struct sockaddr *)&to, sizeof to) != 0 &&
			   errno != EINPROGRESS)) {
		close(client);
		if (server >= 0)
			close(server);
		return;
	}
	for (int i = 0; i < MAX_PAIRS; i++)
		if (!pairs[i].used) {
			pairs[i] = (struct pair){ .used = true,
						  .way = { { .from = client, .to = server },
							   { .from = server, .to = client } } };
			return;
		}
	close(client);
	close(server);
}

/* Reads what FROM has; false when the pair must end. */
static bool read_way(struct way *w)
{
	char buf[65536];
	ssize_t n = read(w->from, buf, sizeof buf);

	if (n > 0) {
		queue_chunk(w, buf, (size_t)n);
		return true;
	}
	if (n == 0) {
		w->eof_read = true;
		queue_chunk(w, NULL, 0);
		return true;
	}
	return errno == EAGAIN || errno == EINTR;
}

/* Writes what is due to TO; false when the pair must end. */
static bool write_way(struct way *w, int64_t now)
{
	while (w->head && w->head->at <= now) {
		struct chunk *c = w->head;
		ssize_t n;

		if (c->len == 0) {
			shutdown(w->to, SHUT_WR);
		} else {
			n = write(w->to, c->data + c->off, c->len - c->off);
			if (n < 0)
				return errno == EAGAIN || errno == EINTR;
			c->off += (size_t)n;
			if (c->off < c->len)
				return true;
		}
		w->head = c->next;
		if (!w->head)
			w->tail = NULL;
		free(c);
	}
	return true;
}

/* The poll set: the listener, then each pair's two sockets; the timeout
 * is the next chunk due. */
static int build(struct pollfd *pfd, int listener, int64_t now, int *timeout)
{
	int n = 0;
	int64_t next = INT64_MAX;

	pfd[n++] = (struct pollfd){ .fd = listener, .events = POLLIN };
	for (int i = 0; i < MAX_PAIRS; i++) {
		struct pair *p = &pairs[i];

		for (int k = 0; k < 2 && p->used; k++) {
			struct way *w = &p->way[k], *back = &p->way[1 - k];
			short events = w->eof_read ? 0 : POLLIN;

			/* The socket w reads from is the one back writes to. */
			if (back->head && back->head->at <= now)
				events |= POLLOUT;
			if (back->head && back->head->at < next)
				next = back->head->at;
			pfd[n++] = (struct pollfd){ .fd = w->from, .events = events };
		}
	}
	*timeout = next == INT64_MAX ? -1 : next <= now ? 0 : (int)((next - now) / 1000000 + 1);
	return n;
}

static void serve(struct pollfd *pfd, int listener, int target_port)
{
	int64_t now = now_ns();
	int k = 1;

	if (pfd[0].revents & POLLIN)
		accept_one(listener, target_port);
	for (int i = 0; i < MAX_PAIRS; i++) {
		struct pair *p = &pairs[i];
		bool ok = true;

		if (!p->used || pfd[k].fd != p->way[0].from)
			continue;
		for (int d = 0; d < 2; d++, k++)
			if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR) && !p->way[d].eof_read)
				ok = ok && read_way(&p->way[d]);
		for (int d = 0; d < 2; d++)
			ok = ok && write_way(&p->way[d], now);
		if (!ok || (p->way[0].eof_read && p->way[1].eof_read && !p->way[0].head &&
			    !p->way[1].head))
			close_pair(p);
	}
}

int main(int argc, char **argv)
{
	struct pollfd pfd[1 + 2 * MAX_PAIRS];
	struct sockaddr_in at;
	int listener, port, target_port, one = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: delay_proxy PORT TARGET_PORT DELAY_MS\n");
		return 2;
	}
	port = atoi(argv[1]);
	target_port = atoi(argv[2]);
	delay_ns = strtoll(argv[3], NULL, 10) * 1000000;
	signal(SIGPIPE, SIG_IGN);
	at = loopback(port);
	listener = tcp_socket();
	if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
	    bind(listener, (struct sockaddr *)&at, sizeof at) != 0 || listen(listener, 16) != 0) {
		perror("delay_proxy: listen");
		return 1;
	}
	for (;;) {
		int timeout, n = build(pfd, listener, now_ns(), &timeout);

		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
			perror("delay_proxy: poll");
			return 1;
		}
		serve(pfd, listener, target_port);
	}
}
