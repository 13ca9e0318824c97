/* SPDX-License-Identifier: MIT */
#include "notify.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "buf.h"
#include "curl.h"

/* One request held: its copy of what notify_send was given, and where it
 * stands. */
struct notify_req {
	enum notify_kind kind;
	char *url, *shown, *job, *body;
	size_t body_len;
	const char *content_type; /* a literal of the caller's */
	void *tag;
	unsigned tries;  /* made so far */
	int64_t due;     /* the next try (monotonic); INT64_MAX while on its way */
	curl_easy *easy; /* on its way; NULL: waiting */
	struct curl_slist *headers;
};

/* A socket curl asked the loop to watch. */
struct notify_sock {
	int fd;
	short events;
};

struct notify {
	struct curl curl;
	curl_multi *multi;
	struct notify_queue q;
	struct notify_sock *socks;
	size_t nsocks, socks_cap;
	int64_t curl_due; /* curl's timer (monotonic); INT64_MAX: none */
	size_t in_flight;
	/* The earliest try of a request that may start, as row_deadline
	 * last found it; due_dirty: the queue changed since (a wake-up that
	 * changed nothing here costs no walk of it). */
	int64_t waiting_due;
	bool due_dirty;
	int64_t give_up; /* after a stop: when what is held is dropped */
	struct events *ev;
	notify_result_fn on_result;
	void *arg;
	uint8_t key[16]; /* the runs' ids' */
};

/* The queue */

struct notify_req *notify_queue_at(const struct notify_queue *q, size_t i)
{
	return q->r[(q->head + i) % NOTIFY_QUEUE_CAP];
}

struct notify_req *notify_queue_push(struct notify_queue *q, struct notify_req *r)
{
	struct notify_req *out = NULL;

	if (q->n == NOTIFY_QUEUE_CAP) {
		out = q->r[q->head];
		q->head = (q->head + 1) % NOTIFY_QUEUE_CAP;
		q->n--;
	}
	q->r[(q->head + q->n++) % NOTIFY_QUEUE_CAP] = r;
	return out;
}

void notify_queue_remove(struct notify_queue *q, size_t i)
{
	for (; i + 1 < q->n; i++)
		q->r[(q->head + i) % NOTIFY_QUEUE_CAP] = q->r[(q->head + i + 1) % NOTIFY_QUEUE_CAP];
	q->n--;
}

/* Requests */

static void req_free(struct notify_req *r)
{
	free(r->url);
	free(r->shown);
	free(r->job);
	free(r->body);
	free(r);
}

/* R's transfer, if it is on its way, ended here. */
static void req_detach(struct notify *n, struct notify_req *r)
{
	if (!r->easy)
		return;
	n->curl.multi_remove_handle(n->multi, r->easy);
	n->curl.easy_cleanup(r->easy);
	n->curl.slist_free_all(r->headers);
	r->easy = NULL;
	r->headers = NULL;
	n->in_flight--;
}

static void req_done(struct notify *n, struct notify_req *r, enum notify_outcome outcome,
		     const char *text)
{
	n->due_dirty = true;
	req_detach(n, r);
	n->on_result(n->arg, r->tag, r->kind, outcome, text);
	req_free(r);
}

static size_t queue_index(const struct notify *n, const struct notify_req *r)
{
	for (size_t i = 0; i < n->q.n; i++)
		if (notify_queue_at(&n->q, i) == r)
			return i;
	return n->q.n;
}

/* curl's callbacks */

static size_t discard(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	(void)ptr;
	(void)userdata;
	return size * nmemb;
}

/* Every descriptor of tfd's is close-on-exec, curl's sockets too: a run
 * started while a request is on its way must not inherit it. */
static int open_socket(void *clientp, int purpose, struct curl_shim_sockaddr *a)
{
	(void)clientp;
	(void)purpose;
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static int on_socket(curl_easy *easy, int fd, int what, void *userp, void *socketp)
{
	struct notify *n = userp;
	size_t i = 0;

	(void)easy;
	(void)socketp;
	while (i < n->nsocks && n->socks[i].fd != fd)
		i++;
	if (what == CURL_SHIM_POLL_REMOVE) {
		if (i < n->nsocks)
			n->socks[i] = n->socks[--n->nsocks];
		return 0;
	}
	if (i == n->nsocks) {
		if (array_reserve(&n->socks, &n->socks_cap, i + 1, sizeof *n->socks, SIZE_MAX) != 0)
			return -1; /* curl fails that transfer: a failed try */
		n->nsocks++;
	}
	n->socks[i] = (struct notify_sock){ fd,
					    (short)(((what & CURL_SHIM_POLL_IN) ? POLLIN : 0) |
						    ((what & CURL_SHIM_POLL_OUT) ? POLLOUT : 0)) };
	return 0;
}

/* curl asks to be called back TIMEOUT_MS from now (-1: never): the
 * loop's deadline timer does it (expire). */
static int on_timer(curl_multi *multi, long timeout_ms, void *userp)
{
	struct notify *n = userp;

	(void)multi;
	n->curl_due = timeout_ms < 0 ? INT64_MAX : mono_after((int64_t)timeout_ms * 1000000);
	return 0;
}

/* Tries */

static int setopts(struct notify *n, struct notify_req *r)
{
	const struct curl *c = &n->curl;
	curl_easy *e = r->easy;
	int rc = 0;

	rc |= c->easy_setopt(e, CURL_SHIM_OPT_URL, r->url);
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_PRIVATE, (void *)r);
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_NOSIGNAL, 1L);
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_TIMEOUT_MS, (long)(NOTIFY_TIMEOUT_NS / 1000000));
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_FOLLOWLOCATION, 1L);
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_MAXREDIRS, 5L);
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_USERAGENT, "tfd/" TFD_VERSION);
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_WRITEFUNCTION, (curl_write_fn)discard);
	rc |= c->easy_setopt(e, CURL_SHIM_OPT_OPENSOCKETFUNCTION, (curl_opensocket_fn)open_socket);
	/* http and https only, redirects too (libcurl before 7.85 lacks
	 * these: tfd's own check of the URL still holds). */
	c->easy_setopt(e, CURL_SHIM_OPT_PROTOCOLS_STR, "http,https");
	c->easy_setopt(e, CURL_SHIM_OPT_REDIR_PROTOCOLS_STR, "http,https");
	if (r->body) {
		char header[128];

		snprintf(header, sizeof header, "Content-Type: %s", r->content_type);
		r->headers = c->slist_append(NULL, header);
		if (!r->headers)
			return -1;
		rc |= c->easy_setopt(e, CURL_SHIM_OPT_HTTPHEADER, r->headers);
		rc |= c->easy_setopt(e, CURL_SHIM_OPT_POSTFIELDSIZE, (long)r->body_len);
		rc |= c->easy_setopt(e, CURL_SHIM_OPT_POSTFIELDS, r->body);
	}
	return rc;
}

static void try_failed(struct notify *n, struct notify_req *r, const char *why);

/* R's next try, on its way. */
static void start(struct notify *n, struct notify_req *r)
{
	n->due_dirty = true;
	r->due = INT64_MAX;
	r->tries++;
	r->easy = n->curl.easy_init();
	if (!r->easy) {
		try_failed(n, r, "out of memory");
		return;
	}
	n->in_flight++;
	if (setopts(n, r) != 0 || n->curl.multi_add_handle(n->multi, r->easy) != 0)
		try_failed(n, r, "curl_easy_setopt failed");
}

static bool same_sender(const struct notify_req *a, const struct notify_req *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->tag || b->tag)
		return a->tag == b->tag;
	return a->job && b->job && strcmp(a->job, b->job) == 0;
}

/* Whether the I-th request waits for an older one of its job and kind:
 * a job's requests leave in order, so that a run's end never reaches
 * healthchecks.io before its start (which would leave the check
 * "started" until its grace time). */
static bool waits_its_turn(const struct notify *n, size_t i)
{
	const struct notify_req *r = notify_queue_at(&n->q, i);

	for (size_t k = 0; k < i; k++)
		if (same_sender(notify_queue_at(&n->q, k), r))
			return true;
	return false;
}

/* The requests whose try is due, oldest first, as far as there is room
 * on the way. */
static void start_due(struct notify *n, int64_t now)
{
	for (size_t i = 0; i < n->q.n && n->in_flight < NOTIFY_IN_FLIGHT; i++) {
		struct notify_req *r = notify_queue_at(&n->q, i);

		if (!r->easy && r->due <= now && !waits_its_turn(n, i))
			start(n, r);
	}
}

/* A try failed: another later, or an "error" event and the request gone. */
static void try_failed(struct notify *n, struct notify_req *r, const char *why)
{
	int64_t wait = notify_retry_delay(r->tries);
	char message[1024];

	req_detach(n, r);
	n->due_dirty = true;
	if (wait >= 0 && n->give_up == INT64_MAX) {
		r->due = mono_after(wait);
		return;
	}
	notify_queue_remove(&n->q, queue_index(n, r));
	snprintf(message, sizeof message, "%s%s--%s %s: %s; given up after %u %s",
		 r->job ? r->job : "", r->job ? ": " : "", notify_kind_name[r->kind], r->shown, why,
		 r->tries, r->tries == 1 ? "try" : "tries");
	events_error(n->ev, r->job, notify_kind_name[r->kind], message);
	req_done(n, r, NOTIFY_FAILED, why);
}

/* Transfers curl says are over: answered, or failed. */
static void collect(struct notify *n)
{
	struct curl_msg *m;
	int left;

	while ((m = n->curl.multi_info_read(n->multi, &left))) {
		struct notify_req *r = NULL;
		long code = 0;
		char text[64];

		if (m->msg != CURL_SHIM_MSG_DONE)
			continue;
		n->curl.easy_getinfo(m->easy_handle, CURL_SHIM_INFO_PRIVATE, (char **)&r);
		if (!r)
			continue;
		if (m->data.result != 0) {
			try_failed(n, r, n->curl.easy_strerror(m->data.result));
			continue;
		}
		n->curl.easy_getinfo(m->easy_handle, CURL_SHIM_INFO_RESPONSE_CODE, &code);
		if (code >= 200 && code < 300) {
			snprintf(text, sizeof text, "%ld", code);
			notify_queue_remove(&n->q, queue_index(n, r));
			req_done(n, r, NOTIFY_SENT, text);
		} else {
			snprintf(text, sizeof text, "HTTP %ld", code);
			try_failed(n, r, text);
		}
	}
}

/* The owner's row */

static void row_poll(void *self, owner_add_fn *add, void *set)
{
	struct notify *n = self;

	for (size_t i = 0; i < n->nsocks; i++)
		add(set, n->socks[i].fd, n->socks[i].events, n);
}

static void row_ready(void *self, int fd, short revents, void *tag)
{
	struct notify *n = self;
	int running, flags = 0;

	(void)tag;
	if (revents & (POLLIN | POLLHUP))
		flags |= CURL_SHIM_CSELECT_IN;
	if (revents & POLLOUT)
		flags |= CURL_SHIM_CSELECT_OUT;
	if (revents & (POLLERR | POLLNVAL))
		flags |= CURL_SHIM_CSELECT_ERR;
	n->curl.multi_socket_action(n->multi, fd, flags, &running);
	collect(n);
	start_due(n, clock_now_ns(CLOCK_MONOTONIC));
}

static int64_t row_deadline(void *self)
{
	struct notify *n = self;
	int64_t d = n->curl_due;

	if (n->due_dirty) {
		n->due_dirty = false;
		n->waiting_due = INT64_MAX;
		for (size_t i = 0; i < n->q.n && n->in_flight < NOTIFY_IN_FLIGHT; i++) {
			const struct notify_req *r = notify_queue_at(&n->q, i);

			if (!r->easy && r->due < n->waiting_due && !waits_its_turn(n, i))
				n->waiting_due = r->due;
		}
	}
	if (n->q.n > 0 && n->give_up < d)
		d = n->give_up;
	return n->waiting_due < d ? n->waiting_due : d;
}

/* After a stop's grace, what is left is dropped. */
static void drop_all(struct notify *n)
{
	while (n->q.n > 0) {
		struct notify_req *r = notify_queue_at(&n->q, 0);

		notify_queue_remove(&n->q, 0);
		req_done(n, r, NOTIFY_DROPPED, "dropped: tfd stopped");
	}
}

static void row_expire(void *self, int64_t now)
{
	struct notify *n = self;
	int running;

	if (n->curl_due <= now) {
		n->curl_due = INT64_MAX;
		n->curl.multi_socket_action(n->multi, CURL_SHIM_SOCKET_TIMEOUT, 0, &running);
		collect(n);
	}
	if (n->give_up <= now)
		drop_all(n);
	start_due(n, now);
}

const struct owner_row notify_row = { .name = "notify",
				      .poll = row_poll,
				      .ready = row_ready,
				      .deadline = row_deadline,
				      .expire = row_expire };

/* The module's face */

struct notify *notify_new(struct events *ev, notify_result_fn on_result, void *arg, char *err,
			  size_t errlen)
{
	struct notify *n = calloc(1, sizeof *n);

	if (!n) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (curl_load(&n->curl, err, errlen) != 0) {
		free(n);
		return NULL;
	}
	n->multi = n->curl.multi_init();
	if (!n->multi) {
		snprintf(err, errlen, "curl_multi_init failed");
		free(n);
		return NULL;
	}
	n->curl.multi_setopt(n->multi, CURL_SHIM_MOPT_SOCKETFUNCTION, (curl_socket_fn)on_socket);
	n->curl.multi_setopt(n->multi, CURL_SHIM_MOPT_SOCKETDATA, (void *)n);
	n->curl.multi_setopt(n->multi, CURL_SHIM_MOPT_TIMERFUNCTION, (curl_timer_fn)on_timer);
	n->curl.multi_setopt(n->multi, CURL_SHIM_MOPT_TIMERDATA, (void *)n);
	n->curl_due = n->give_up = n->waiting_due = INT64_MAX;
	n->ev = ev;
	n->on_result = on_result;
	n->arg = arg;
	/* The runs' ids need only differ from another process's: a key
	 * that getrandom() cannot give yet (early boot) is the clock's. */
	if (getrandom(n->key, sizeof n->key, GRND_NONBLOCK) != (ssize_t)sizeof n->key) {
		int64_t t[2] = { clock_now_ns(CLOCK_REALTIME), clock_now_ns(CLOCK_MONOTONIC) };

		memcpy(n->key, t, sizeof n->key);
	}
	return n;
}

void notify_free(struct notify *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->q.n; i++) {
		struct notify_req *r = notify_queue_at(&n->q, i);

		req_detach(n, r);
		req_free(r);
	}
	n->curl.multi_cleanup(n->multi);
	free(n->socks);
	free(n);
}

void notify_rid(const struct notify *n, const char *job, uint64_t seq, char *out)
{
	notify_run_id(n->key, job, seq, out);
}

static char *copy(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Makes room for one more: the oldest request that waits (a request on
 * its way is about to be answered, and is let be). */
static void drop_oldest_waiting(struct notify *n)
{
	for (size_t i = 0; i < n->q.n; i++) {
		struct notify_req *r = notify_queue_at(&n->q, i);

		if (!r->easy) {
			notify_queue_remove(&n->q, i);
			req_done(n, r, NOTIFY_DROPPED, "dropped: too many requests waiting");
			return;
		}
	}
}

int notify_send(struct notify *n, const struct notify_request *q)
{
	struct notify_req *r = calloc(1, sizeof *r), *out;

	if (!r)
		return -1;
	*r = (struct notify_req){ .kind = q->kind,
				  .url = copy(q->url),
				  .shown = copy(q->shown),
				  .job = copy(q->job),
				  .tag = q->tag,
				  .body_len = q->body_len,
				  .content_type = q->content_type,
				  .due = clock_now_ns(CLOCK_MONOTONIC) };
	if (q->body) {
		r->body = malloc(q->body_len ? q->body_len : 1);
		if (r->body)
			memcpy(r->body, q->body, q->body_len);
	}
	if (!r->url || !r->shown || (q->job && !r->job) || (q->body && !r->body)) {
		req_free(r);
		return -1;
	}
	n->due_dirty = true;
	if (n->q.n - n->in_flight >= NOTIFY_QUEUE_MAX)
		drop_oldest_waiting(n);
	out = notify_queue_push(&n->q, r);
	if (out)
		req_done(n, out, NOTIFY_DROPPED, "dropped: too many requests waiting");
	start_due(n, r->due);
	return 0;
}

void notify_forget(struct notify *n, const void *tag)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->q.n; i++) {
		struct notify_req *r = notify_queue_at(&n->q, i);

		if (r->tag == tag)
			r->tag = NULL;
	}
}

void notify_stop(struct notify *n, int64_t now)
{
	if (n && n->give_up == INT64_MAX)
		n->give_up = ns_after(now, NOTIFY_STOP_GRACE_NS);
}

bool notify_busy(const struct notify *n)
{
	return n && n->q.n > 0;
}
