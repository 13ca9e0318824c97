/* SPDX-License-Identifier: MIT */
#include "http.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mhd.h"
#include "timens.h"

/* A connection as libmicrohttpd announced it, and the instant by which
 * its request must be whole: libmicrohttpd's own timeout starts again at
 * every byte, so a client that trickles one every few seconds would keep
 * its slot forever. */
struct http_conn {
	int fd;             /* -1: a free slot */
	int64_t request_by; /* monotonic; INT64_MAX: a request is in */
};

struct http {
	struct mhd mhd;
	struct MHD_Daemon *daemon;
	int epoll_fd;
	http_answer_fn answer;
	void *arg;
	struct http_conn conns[HTTP_CONNECTIONS_MAX];
	bool held; /* a streamed body said HTTP_STREAM_LATER */
};

/* The listening socket */

/* No ADDR on a host without IPv6: IPv4's any address instead. */
static int socket_for(const struct listen_addr *a, struct listen_addr *v4)
{
	int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in *s4 = (struct sockaddr_in *)&v4->sa;

	if (fd >= 0 || !a->any || errno != EAFNOSUPPORT)
		return fd;
	*v4 = (struct listen_addr){ .len = sizeof *s4, .any = true, .port = a->port };
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(INADDR_ANY);
	s4->sin_port = htons(a->port);
	return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

/* Binds and listens on A. A bind that fails (the port in use, an address
 * that is not this host's, a port below 1024 without the right) is the
 * user's to mend: status 2. */
static int open_listener(const struct listen_addr *a, int *status, char *err, size_t errlen)
{
	struct listen_addr v4 = { .len = 0 };
	const struct listen_addr *at = a;
	char where[LISTEN_ADDR_TEXT_MAX];
	int one = 1, zero = 0, fd = socket_for(a, &v4);

	if (v4.len)
		at = &v4;
	listen_addr_format(at, where);
	*status = 1;
	if (fd < 0) {
		snprintf(err, errlen, "--listen: socket (%s): %s", where, strerror(errno));
		return -1;
	}
	/* A restarted tfd binds again while its last connections linger in
	 * TIME_WAIT; Linux still refuses a port another socket listens on. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (at->any && at->sa.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
	if (bind(fd, (const struct sockaddr *)&at->sa, at->len) != 0) {
		snprintf(err, errlen, "--listen: bind %s: %s%s", where, strerror(errno),
			 errno == EADDRINUSE ? " (another process listens on that port)"
			 : errno == EACCES && a->port < 1024
				 ? " (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
				 : "");
		*status = 2;
		close(fd);
		return -1;
	}
	if (listen(fd, HTTP_CONNECTIONS_MAX) != 0) {
		snprintf(err, errlen, "--listen: listen %s: %s", where, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Connections and their requests' deadlines */

static int64_t request_deadline(void)
{
	return mono_after((int64_t)HTTP_REQUEST_SECONDS * NSEC_PER_SEC);
}

static struct http_conn *free_conn(struct http *h)
{
	for (size_t i = 0; i < HTTP_CONNECTIONS_MAX; i++)
		if (h->conns[i].fd < 0)
			return &h->conns[i];
	return NULL;
}

/* Called by libmicrohttpd as a connection begins and as it ends. One
 * that cannot be watched (it never happens: there is a slot for each
 * connection allowed) is ended at once rather than left without its
 * deadline. */
static void on_connection(void *cls, struct MHD_Connection *c, void **context, int code)
{
	struct http *h = cls;
	struct http_conn *conn = *context;
	const union mhd_connection_info *info;

	if (code == MHD_SHIM_CONNECTION_NOTIFY_CLOSED) {
		if (conn)
			conn->fd = -1;
		*context = NULL;
		return;
	}
	info = h->mhd.get_connection_info(c, MHD_SHIM_CONNECTION_INFO_CONNECTION_FD);
	conn = info ? free_conn(h) : NULL;
	if (!conn) {
		if (info)
			shutdown(info->connect_fd, SHUT_RDWR);
		return;
	}
	*conn = (struct http_conn){ info->connect_fd, request_deadline() };
	*context = conn;
}

/* C's request is in (its header read): no deadline while it is answered. */
static void request_in(struct http *h, struct MHD_Connection *c)
{
	const union mhd_connection_info *info =
		h->mhd.get_connection_info(c, MHD_SHIM_CONNECTION_INFO_SOCKET_CONTEXT);
	struct http_conn *conn = info ? info->socket_context : NULL;

	if (conn)
		conn->request_by = INT64_MAX;
}

/* A request was answered: the next one on the connection (kept alive)
 * must be whole within the time again. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, int code)
{
	struct http *h = cls;
	const union mhd_connection_info *info =
		h->mhd.get_connection_info(c, MHD_SHIM_CONNECTION_INFO_SOCKET_CONTEXT);
	struct http_conn *conn = info ? info->socket_context : NULL;

	(void)con_cls;
	(void)code;
	if (conn)
		conn->request_by = request_deadline();
}

/* Connections whose request is late are shut down: libmicrohttpd sees
 * their end at its next run and closes them (the client reads no
 * answer, as from a server's header timeout). */
static void end_late_requests(struct http *h)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < HTTP_CONNECTIONS_MAX; i++) {
		struct http_conn *conn = &h->conns[i];

		if (conn->fd >= 0 && conn->request_by <= now) {
			shutdown(conn->fd, SHUT_RDWR);
			conn->request_by = INT64_MAX;
		}
	}
}

/* Requests */

/* A request that carries a body says so in its header, before the body:
 * a Content-Length other than 0, or any Transfer-Encoding (chunked). */
static bool has_body(struct http *h, struct MHD_Connection *c)
{
	const char *length = h->mhd.lookup_connection_value(c, MHD_SHIM_HEADER_KIND,
							    "Content-Length");

	if (h->mhd.lookup_connection_value(c, MHD_SHIM_HEADER_KIND, "Transfer-Encoding"))
		return true;
	if (!length)
		return false;
	length += strspn(length, "0");
	return *length != '\0';
}

/* A streamed body's source, as libmicrohttpd's reader sees it. */
struct stream {
	struct http *h;
	http_stream_fn read;
	void (*free)(void *arg);
	void *arg;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	long n = s->read(s->arg, buf, max);

	(void)pos;
	if (n == HTTP_STREAM_LATER) {
		s->h->held = true;
		return 0;
	}
	if (n < 0)
		return MHD_SHIM_READER_ERROR;
	return n == 0 ? MHD_SHIM_READER_END : (ssize_t)n;
}

static void stream_free(void *cls)
{
	struct stream *s = cls;

	s->free(s->arg);
	free(s);
}

/* A's body as a response that reads it in parts; A's source is released
 * whatever happens. */
static struct MHD_Response *stream_response(struct http *h, struct http_answer *a)
{
	struct stream *s = malloc(sizeof *s);
	struct MHD_Response *r;

	if (!s) {
		a->stream_free(a->stream_arg);
		return NULL;
	}
	*s = (struct stream){ h, a->stream, a->stream_free, a->stream_arg };
	r = h->mhd.create_response_from_callback(MHD_SHIM_SIZE_UNKNOWN, HTTP_STREAM_BLOCK,
						 stream_read, s, stream_free);
	if (!r)
		stream_free(s);
	return r;
}

/* Queues A on C. Returns MHD_SHIM_NO (close the connection) when no
 * response could be made. */
static int reply(struct http *h, struct MHD_Connection *c, struct http_answer *a, const char *allow)
{
	struct MHD_Response *r;
	int rc;

	if (a->stream)
		r = stream_response(h, a);
	else if (a->static_body)
		r = h->mhd.create_response_from_buffer(strlen(a->static_body),
						       (void *)a->static_body,
						       MHD_SHIM_RESPMEM_PERSISTENT);
	else
		r = h->mhd.create_response_from_buffer(a->len, a->body, MHD_SHIM_RESPMEM_MUST_FREE);
	if (!r) {
		if (!a->static_body && !a->stream)
			free(a->body);
		return MHD_SHIM_NO;
	}
	if (h->mhd.add_response_header(r, "Content-Type", a->type) != MHD_SHIM_YES ||
	    (allow && h->mhd.add_response_header(r, "Allow", allow) != MHD_SHIM_YES)) {
		h->mhd.destroy_response(r);
		return MHD_SHIM_NO;
	}
	rc = h->mhd.queue_response(c, a->status, r);
	h->mhd.destroy_response(r);
	return rc;
}

static int reply_text(struct http *h, struct MHD_Connection *c, unsigned status, const char *text,
		      const char *allow)
{
	struct http_answer a = { .status = status,
				 .type = "text/plain; charset=utf-8",
				 .static_body = text };

	return reply(h, c, &a, allow);
}

/* Called by libmicrohttpd (from http_service only) once a request's header
 * is in, and again when it is whole. A wrong method or a body is answered
 * at the first call, before any body is read, so a body is never taken in
 * (and the connection is closed after the answer); a good request at the
 * second, which lets its connection be kept alive. */
static int on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
		      const char *version, const char *upload_data, size_t *upload_size,
		      void **con_cls)
{
	struct http *h = cls;
	struct http_answer a = { .status = 404,
				 .type = "text/plain; charset=utf-8",
				 .static_body = "not found\n" };

	(void)version;
	(void)upload_data;
	request_in(h, c);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply_text(h, c, 405,
				  "method not allowed: only GET and HEAD (tfd's "
				  "HTTP is read-only)\n",
				  "GET, HEAD");
	if (*upload_size > 0 || has_body(h, c))
		return reply_text(h, c, 413, "request bodies are refused\n", NULL);
	if (!*con_cls) {
		*con_cls = h; /* the header was read: the answer comes next call */
		return MHD_SHIM_YES;
	}
	if (h->answer)
		h->answer(h->arg, url, &a);
	return reply(h, c, &a, NULL);
}

/* The server */

struct http *http_open(const struct listen_addr *a, int *status, char *err, size_t errlen)
{
	struct http *h = calloc(1, sizeof *h);
	const union mhd_daemon_info *info;
	int fd;

	*status = 1;
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < HTTP_CONNECTIONS_MAX; i++)
		h->conns[i].fd = -1;
	if (mhd_load(&h->mhd, err, errlen) != 0) {
#ifdef TFD_NO_HTTP
		*status = 2;
#endif
		free(h);
		return NULL;
	}
	fd = open_listener(a, status, err, errlen);
	if (fd < 0) {
		http_close(h);
		return NULL;
	}
	/* Driven from the caller's loop: no MHD_USE_INTERNAL_POLLING_THREAD,
	 * so libmicrohttpd starts no thread; it owns FD from here on. */
	h->daemon = h->mhd.start_daemon(MHD_SHIM_USE_EPOLL, 0, NULL, NULL, on_request, h,
					MHD_SHIM_OPTION_LISTEN_SOCKET, fd,
					MHD_SHIM_OPTION_CONNECTION_LIMIT,
					(unsigned int)HTTP_CONNECTIONS_MAX,
					MHD_SHIM_OPTION_PER_IP_CONNECTION_LIMIT,
					(unsigned int)HTTP_PER_ADDRESS_MAX,
					MHD_SHIM_OPTION_CONNECTION_TIMEOUT,
					(unsigned int)HTTP_IDLE_SECONDS,
					MHD_SHIM_OPTION_NOTIFY_CONNECTION, on_connection, h,
					MHD_SHIM_OPTION_NOTIFY_COMPLETED, on_completed, h,
					MHD_SHIM_OPTION_END);
	info = h->daemon ? h->mhd.get_daemon_info(h->daemon, MHD_SHIM_DAEMON_INFO_EPOLL_FD) : NULL;
	if (!info || info->epoll_fd < 0) {
		snprintf(err, errlen,
			 "--listen: libmicrohttpd did not start (its epoll mode "
			 "is needed)");
		if (!h->daemon)
			close(fd);
		http_close(h);
		*status = 1;
		return NULL;
	}
	h->epoll_fd = info->epoll_fd;
	return h;
}

void http_serve(struct http *h, http_answer_fn answer, void *arg)
{
	h->answer = answer;
	h->arg = arg;
}

int http_poll_fd(const struct http *h)
{
	return h->epoll_fd;
}

/* The earliest of the requests' deadlines. */
static int64_t request_due(const struct http *h)
{
	int64_t at = INT64_MAX;

	for (size_t i = 0; i < HTTP_CONNECTIONS_MAX; i++)
		if (h->conns[i].fd >= 0 && h->conns[i].request_by < at)
			at = h->conns[i].request_by;
	return at;
}

bool http_held(const struct http *h)
{
	return h->held;
}

int64_t http_deadline(const struct http *h)
{
	unsigned long long ms;
	int64_t at, requests = request_due(h);

	/* A body held back makes libmicrohttpd want a run at once, always;
	 * the caller, who said later, says when (http_held). */
	if (h->held || h->mhd.get_timeout(h->daemon, &ms) != MHD_SHIM_YES ||
	    ms > (unsigned long long)(INT64_MAX / 1000000))
		return requests;
	at = mono_after((int64_t)ms * 1000000);
	return at < requests ? at : requests;
}

static unsigned connections(struct http *h)
{
	const union mhd_daemon_info *info =
		h->mhd.get_daemon_info(h->daemon, MHD_SHIM_DAEMON_INFO_CURRENT_CONNECTIONS);

	return info ? info->num_connections : 0;
}

void http_service(struct http *h)
{
	unsigned before = connections(h);

	end_late_requests(h);
	h->held = false;
	h->mhd.run(h->daemon);
	/* At the limit, libmicrohttpd takes its listening socket out of its
	 * epoll set, and puts it back only at the start of a later run: a
	 * client waiting to connect would wait for the next event (an idle
	 * timeout, seconds away) after a connection closed. That run is now. */
	if (before >= HTTP_CONNECTIONS_MAX && connections(h) < before)
		h->mhd.run(h->daemon);
}

void http_close(struct http *h)
{
	if (!h)
		return;
	if (h->daemon)
		h->mhd.stop_daemon(h->daemon);
	mhd_unload(&h->mhd);
	free(h);
}
