/* SPDX-License-Identifier: MIT */
/* http: --listen's read-only HTTP/1.1 server, libmicrohttpd (mhd.h) driven
 * from the caller's poll loop with no thread: one epoll descriptor to poll
 * for reading, one deadline, and http_service when either is due. This
 * module speaks HTTP (methods, bodies, limits, the answer's headers);
 * what a path answers is the caller's (http_serve's ANSWER), so it knows
 * nothing of jobs.
 *
 * The loop's part, in order: http_open at start (a port in use is a usage
 * error there, before any job runs), http_serve when the loop has its
 * state; every poll: http_poll_fd and http_deadline; http_service when the
 * descriptor is readable or the deadline passed; http_close at exit. */
#ifndef TFD_HTTP_H
#define TFD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "listen_addr.h"

/* At most this many connections at once, of which this many from one
 * client address (so that one address cannot take every slot); one idle
 * this long is closed, and so is one whose request is not whole this
 * long after the connection began or its last answer ended, however it
 * trickles (a byte now and then would keep an idle timeout from ever
 * passing). */
#define HTTP_CONNECTIONS_MAX 64
#define HTTP_PER_ADDRESS_MAX 16
#define HTTP_IDLE_SECONDS 10
#define HTTP_REQUEST_SECONDS 10

/* The descriptors the server may hold at once: its connections, the
 * listening socket and the epoll descriptor. */
#define HTTP_FDS (HTTP_CONNECTIONS_MAX + 2)

/* A body made as the client takes it: puts the next bytes in BUF (at most
 * MAX, MAX > 0) and returns how many; 0 at the end, -1 to cut the
 * connection (memory ran out), HTTP_STREAM_LATER for nothing now (the
 * caller's budget is spent: it is asked again at a later http_service,
 * see http_held). */
typedef long (*http_stream_fn)(void *arg, char *buf, size_t max);
#define HTTP_STREAM_LATER (-2L)

/* What a path answers. BODY is malloc'd and taken over (NULL with LEN 0:
 * no body), or a static text when STATIC_BODY is set, or, with STREAM,
 * made in parts from STREAM_ARG, which STREAM_FREE releases once the
 * answer is sent or dropped. */
struct http_answer {
	unsigned status;  /* 200, 404, 503, or 500 (out of memory) */
	const char *type; /* Content-Type */
	char *body;
	size_t len;
	const char *static_body;
	http_stream_fn stream;
	void (*stream_free)(void *arg);
	void *stream_arg;
};

/* The size of a streamed body's parts when it is sent unchunked (to
 * HTTP/1.0); chunked, a part is the size of a connection's buffer.
 * libmicrohttpd allocates it, zeroed, with every streamed answer, chunked
 * or not: a burst of new requests makes a burst of fresh pages for the
 * kernel to fault in, which the loop waits for. */
#define HTTP_STREAM_BLOCK (8 * 1024)

/* Fills OUT for PATH (decoded, without the query), called only from
 * http_service. */
typedef void (*http_answer_fn)(void *arg, const char *path, struct http_answer *out);

struct http;

/* Loads libmicrohttpd, binds and listens on A (its any address dual-stack)
 * and starts the daemon, serving nothing until http_serve. Returns NULL
 * with err and *status: 2 for the port in use or an address not this
 * host's (the bind refused), a build without HTTP; 1 for the library
 * missing or the system refusing. */
struct http *http_open(const struct listen_addr *a, int *status, char *err, size_t errlen);

void http_serve(struct http *h, http_answer_fn answer, void *arg);

/* The descriptor to poll for POLLIN. */
int http_poll_fd(const struct http *h);

/* The CLOCK_MONOTONIC time by which http_service must be called (an idle
 * connection's timeout, a request's, data that libmicrohttpd holds), or
 * INT64_MAX. */
int64_t http_deadline(const struct http *h);

/* Whether a streamed body said HTTP_STREAM_LATER at the last
 * http_service: the caller calls it again when it has more to give
 * (http_deadline leaves that time to it). */
bool http_held(const struct http *h);

/* Accepts, reads, answers and times out what is ready; ends the
 * connections whose request is late. Never blocks. */
void http_service(struct http *h);

/* Closes every connection and the listening socket. NULL is ignored. */
void http_close(struct http *h);

#endif
