/* SPDX-License-Identifier: MIT */
/* conns: holds TCP connections to 127.0.0.1:PORT open from one local
 * address, for tests/bats/63-http.bats and bench/http.sh (bash's
 * /dev/tcp cannot choose the address a connection comes from, and tfd
 * serves at most 16 connections from one).
 *
 * Usage: conns [-b ADDR] [-n N] [-i MS] [-r] PORT
 *   -b ADDR  the connections' own address (default 127.0.0.1)
 *   -n N     how many (default 1)
 *   -i MS    each sends one byte of a request header that never ends
 *            every MS milliseconds (a slowloris); without it they send
 *            nothing
 *   -r       a connection the server closed is opened again, 100 ms later
 *
 * Prints "open N" once every connection is made, then "closed K MS" for
 * each that the server closed (K its number, MS how long it lived), and
 * runs until it is killed. Exit 1 when a connection cannot be made. */
#include <arpa/inet.h>
#include <errno.h>
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

#define CONNS_MAX 256
#define REOPEN_MS 100

/* A header a byte at a time: a request line, then header lines that go
 * on for as long as the test does. */
static const char header[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

struct conn {
	int fd;
	int64_t opened, next_byte;   /* ms, monotonic */
	size_t sent;
};

static struct sockaddr_in from, to;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_conn(struct conn *c)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof from) != 0 ||
	    connect(fd, (struct sockaddr *)&to, sizeof to) != 0) {
		perror("conns: connect");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*c = (struct conn){ .fd = fd, .opened = now_ms(), .next_byte = now_ms() };
	return 0;
}

/* The next byte of C's header, when it is due. */
static void trickle(struct conn *c, int64_t every)
{
	char byte;

	if (c->fd < 0 || every <= 0 || now_ms() < c->next_byte)
		return;
	byte = c->sent < sizeof header - 1 ? header[c->sent] : 'x';
	if (send(c->fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
		c->sent++;
	c->next_byte = now_ms() + every;
}

int main(int argc, char **argv)
{
	static struct conn c[CONNS_MAX];
	static struct pollfd pfd[CONNS_MAX];
	int n = 1, opt;
	int64_t every = 0;
	bool reopen = false;
	const char *addr = "127.0.0.1";

	while ((opt = getopt(argc, argv, "b:n:i:r")) != -1) {
		if (opt == 'b')
			addr = optarg;
		else if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'i')
			every = atoll(optarg);
		else if (opt == 'r')
			reopen = true;
		else
			return 2;
	}
	if (optind != argc - 1 || n < 1 || n > CONNS_MAX) {
		fprintf(stderr, "usage: conns [-b ADDR] [-n N] [-i MS] [-r] PORT\n");
		return 2;
	}
	from.sin_family = to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)atoi(argv[optind]));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (inet_pton(AF_INET, addr, &from.sin_addr) != 1) {
		fprintf(stderr, "conns: bad address '%s'\n", addr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < n; i++)
		if (open_conn(&c[i]) != 0)
			return 1;
	printf("open %d\n", n);
	for (;;) {
		for (int i = 0; i < n; i++) {
			if (c[i].fd < 0 && reopen && now_ms() - c[i].opened >= REOPEN_MS &&
			    open_conn(&c[i]) != 0)
				return 1;
			trickle(&c[i], every);
			pfd[i] = (struct pollfd){ .fd = c[i].fd, .events = POLLIN };
		}
		poll(pfd, (nfds_t)n, 50);
		for (int i = 0; i < n; i++) {
			char buf[4096];
			ssize_t k;

			if (c[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			/* Whatever the server says, the end is what counts. */
			k = recv(c[i].fd, buf, sizeof buf, MSG_DONTWAIT);
			if (k > 0 || (k < 0 && (errno == EAGAIN || errno == EINTR)))
				continue;
			printf("closed %d %lld\n", i, (long long)(now_ms() - c[i].opened));
			close(c[i].fd);
			c[i].fd = -1;
			c[i].opened = now_ms();
		}
	}
}
