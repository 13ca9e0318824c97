/* SPDX-License-Identifier: MIT */
/* load: clients that ask tfd for a large answer again and again, from one
 * process with no thread, for tests/bats/63-http.bats and bench/http.sh
 * (a shell loop of curl or tfdctl would measure the cost of starting
 * processes, and take the CPU the measure needs).
 *
 * Usage: load -c CLIENTS -t SECONDS [-b ADDR] [-a N] TARGET
 *   TARGET is http://127.0.0.1:PORT/PATH (each client: connect, GET PATH
 *   with "Connection: close", read to the end, again at once) or
 *   unix:SOCKET (each client: connect to the control socket, send
 *   {"command":"list"}, read the answer's line, as `tfdctl --json list`
 *   does, again at once).
 *   -b ADDR: the TCP clients' own address (default 127.0.0.1); -a N: they
 *   take turns over N addresses from ADDR on (client K the (K mod N)-th),
 *   since tfd serves at most 16 connections from one.
 *
 * A client refused (tfd's limits) tries again 10 ms later, as a script's
 * loop would. At the end one line: answers read whole ("done"), bytes,
 * failures (refused, cut, or an answer that did not begin "HTTP/1.1 200"
 * or {"ok":true), and the answers' time from connect to the last byte,
 * p50 and max, in ms. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CLIENTS_MAX 1024
#define NS_PER_MS INT64_C(1000000)
#define RETRY_NS (10 * NS_PER_MS)

struct client {
	int fd;
	int64_t started, retry_at;   /* monotonic ns */
	size_t sent;                 /* of the request */
	char head[16];               /* the answer's first bytes */
	size_t head_len;
};

static struct {
	bool unix_socket;
	struct sockaddr_in to, from;
	struct sockaddr_un un;
	int addresses;
	char request[512];
	size_t request_len;
} cfg;

static struct {
	uint64_t done, bytes, failures;
	int64_t *ns;
	size_t n, cap;
} tally;

static struct client cl[CLIENTS_MAX];

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void note(int64_t ns)
{
	if (tally.n == tally.cap) {
		tally.cap = tally.cap ? tally.cap * 2 : 1024;
		tally.ns = realloc(tally.ns, tally.cap * sizeof *tally.ns);
		if (!tally.ns) {
			perror("load: realloc");
			exit(1);
		}
	}
	tally.ns[tally.n++] = ns;
}

static int connect_tcp(const struct client *c)
{
	struct sockaddr_in from = cfg.from;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	from.sin_addr.s_addr = htonl(ntohl(from.sin_addr.s_addr) +
				     (uint32_t)(c - cl) % (uint32_t)cfg.addresses);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&from, sizeof from) != 0) {
		perror("load: bind");
		exit(1);
	}
	if (fd >= 0 && connect(fd, (struct sockaddr *)&cfg.to, sizeof cfg.to) != 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int connect_unix(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&cfg.un, sizeof cfg.un) != 0 &&
	    errno != EINPROGRESS && errno != EAGAIN) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void open_client(struct client *c)
{
	int64_t retry_at = c->retry_at;

	if (mono_ns() < retry_at)
		return;
	*c = (struct client){ .started = mono_ns() };
	c->fd = cfg.unix_socket ? connect_unix() : connect_tcp(c);
	if (c->fd < 0) {
		tally.failures++;
		c->retry_at = mono_ns() + RETRY_NS;
	}
}

static void end_client(struct client *c, bool whole)
{
	const char *want = cfg.unix_socket ? "{\"ok\":true" : "HTTP/1.1 200";
	size_t n = strlen(want);

	close(c->fd);
	c->fd = -1;
	if (whole && c->head_len >= n && memcmp(c->head, want, n) == 0) {
		tally.done++;
		note(mono_ns() - c->started);
		return;
	}
	tally.failures++;
	c->retry_at = mono_ns() + RETRY_NS;
}

/* What is there to read; the answer ends at EOF (HTTP, Connection:
 * close) or at its newline (the control socket). */
static void read_client(struct client *c)
{
	char buf[65536];
	ssize_t n;

	while ((n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
		size_t k = (size_t)n < sizeof c->head - c->head_len ? (size_t)n
								    : sizeof c->head - c->head_len;

		memcpy(c->head + c->head_len, buf, k);
		c->head_len += k;
		tally.bytes += (uint64_t)n;
		if (cfg.unix_socket && buf[n - 1] == '\n') {
			end_client(c, true);
			return;
		}
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		end_client(c, n == 0 && !cfg.unix_socket);
}

static void write_client(struct client *c)
{
	ssize_t n = send(c->fd, cfg.request + c->sent, cfg.request_len - c->sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n > 0)
		c->sent += (size_t)n;
	else if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ENOTCONN)
		end_client(c, false);
}

static int parse_target(const char *t)
{
	char path[256];
	unsigned port;

	if (strncmp(t, "unix:", 5) == 0) {
		cfg.unix_socket = true;
		cfg.un.sun_family = AF_UNIX;
		snprintf(cfg.un.sun_path, sizeof cfg.un.sun_path, "%s", t + 5);
		cfg.request_len = (size_t)snprintf(cfg.request, sizeof cfg.request,
						   "{\"command\":\"list\"}\n");
		return 0;
	}
	if (sscanf(t, "http://127.0.0.1:%u%255s", &port, path) != 2 || port > 65535)
		return -1;
	cfg.to.sin_family = AF_INET;
	cfg.to.sin_port = htons((uint16_t)port);
	cfg.to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cfg.request_len = (size_t)snprintf(cfg.request, sizeof cfg.request,
					   "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
					   "Connection: close\r\n\r\n", path);
	return 0;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static struct pollfd pfd[CLIENTS_MAX];
	int clients = 1, seconds = 5, opt;
	int64_t end;

	cfg.from.sin_family = AF_INET;
	cfg.from.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cfg.addresses = 1;
	while ((opt = getopt(argc, argv, "c:t:b:a:")) != -1) {
		if (opt == 'c')
			clients = atoi(optarg);
		else if (opt == 't')
			seconds = atoi(optarg);
		else if (opt == 'a')
			cfg.addresses = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else if (opt != 'b' || inet_pton(AF_INET, optarg, &cfg.from.sin_addr) != 1)
			return 2;
	}
	if (optind != argc - 1 || parse_target(argv[optind]) != 0 || clients < 1 ||
	    clients > CLIENTS_MAX) {
		fprintf(stderr, "usage: load -c CLIENTS -t SECONDS [-b ADDR] [-a N] "
			"http://127.0.0.1:PORT/PATH | unix:SOCKET\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < clients; i++)
		cl[i].fd = -1;
	end = mono_ns() + seconds * INT64_C(1000000000);
	while (mono_ns() < end) {
		for (int i = 0; i < clients; i++) {
			if (cl[i].fd < 0)
				open_client(&cl[i]);
			pfd[i] = (struct pollfd){ .fd = cl[i].fd, .events = POLLIN };
			if (cl[i].fd >= 0 && cl[i].sent < cfg.request_len)
				pfd[i].events |= POLLOUT;
		}
		if (poll(pfd, (nfds_t)clients, 1) < 0 && errno != EINTR) {
			perror("load: poll");
			return 1;
		}
		for (int i = 0; i < clients; i++) {
			if (cl[i].fd < 0 || !pfd[i].revents)
				continue;
			if (pfd[i].revents & POLLOUT)
				write_client(&cl[i]);
			if (cl[i].fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				read_client(&cl[i]);
		}
	}
	qsort(tally.ns, tally.n, sizeof *tally.ns, by_value);
	printf("done=%" PRIu64 " bytes=%" PRIu64 " failures=%" PRIu64, tally.done, tally.bytes,
	       tally.failures);
	if (tally.n)
		printf(" p50_ms=%.1f max_ms=%.1f", (double)tally.ns[(tally.n - 1) / 2] / 1e6,
		       (double)tally.ns[tally.n - 1] / 1e6);
	printf("\n");
	return 0;
}
