/* SPDX-License-Identifier: MIT */
/* notify: --ping's and --notify's HTTP requests, sent through libcurl
 * (curl.h, loaded on demand) from the loop's one poll(): curl's multi
 * interface on the loop's own descriptors and deadline, no thread of
 * tfd's, no child. A request is tried up to NOTIFY_TRIES times (10 s
 * each, 1 s, 5 s and 25 s between), then given up with an "error" event;
 * at most NOTIFY_QUEUE_MAX are held (waiting, or on their way), the
 * oldest dropped for a new one. So a receiver that hangs, refuses or
 * answers 500 delays no tick and no run, and costs at most those
 * requests' memory. It is one row of the loop's owners (owner.h): it
 * knows nothing of jobs or the loop; what became of a request goes back
 * through the hook given to notify_new, with the tag it was sent with. */
#ifndef TFD_NOTIFY_H
#define TFD_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "notify_url.h"
#include "owner.h"
#include "timens.h"

/* Requests waiting (for their turn, or a retry); those on their way,
 * NOTIFY_IN_FLIGHT at most, are not dropped for a new one. */
#define NOTIFY_QUEUE_MAX 256
#define NOTIFY_TIMEOUT_NS (10 * NSEC_PER_SEC)
/* Requests on their way at once; the others wait their turn. */
#define NOTIFY_IN_FLIGHT 16
/* Every request held: the waiting ones and those on their way. */
#define NOTIFY_QUEUE_CAP (NOTIFY_QUEUE_MAX + NOTIFY_IN_FLIGHT)
/* After a stop signal, what is held gets this long, with no retry. */
#define NOTIFY_STOP_GRACE_NS (2 * NSEC_PER_SEC)

/* What became of a request: answered 2xx, given up after its tries, or
 * dropped unsent (the queue was full, or tfd stopped). */
enum notify_outcome { NOTIFY_SENT, NOTIFY_FAILED, NOTIFY_DROPPED };

/* TAG is notify_send's (NULL once notify_forget let it go); TEXT says the
 * answer ("200", "HTTP 500", "Could not connect to server"). */
typedef void (*notify_result_fn)(void *arg, void *tag, enum notify_kind kind,
				 enum notify_outcome outcome, const char *text);

/* One request, as the caller hands it over. */
struct notify_request {
	enum notify_kind kind;
	const char *url;   /* the whole URL, secrets and all */
	const char *shown; /* the endpoint as it may be printed (notify_url_shown's) */
	const char *job;   /* for the "error" event */
	void *tag;
	const char *body; /* POSTed when not NULL (BODY_LEN bytes) */
	size_t body_len;
	const char *content_type; /* the body's */
};

/* Loads libcurl and sets up its multi handle; errors and give-ups are
 * printed through EV. Returns NULL with err saying why. */
struct notify *notify_new(struct events *ev, notify_result_fn on_result, void *arg, char *err,
			  size_t errlen);
void notify_free(struct notify *n);

/* A run's id for --ping (notify_url.h), from this process's random key. */
void notify_rid(const struct notify *n, const char *job, uint64_t seq, char *out);

/* Queues R (copied), sent now when fewer than NOTIFY_IN_FLIGHT are on
 * their way; when NOTIFY_QUEUE_MAX wait already, the oldest waiting one
 * is dropped. Returns 0, or -1 when memory ran out. */
int notify_send(struct notify *n, const struct notify_request *r);

/* TAG goes away: its requests are still sent, their outcome reported
 * with no tag. */
void notify_forget(struct notify *n, const void *tag);

/* tfd stops: what is held gets NOTIFY_STOP_GRACE_NS from NOW, no retry. */
void notify_stop(struct notify *n, int64_t now);

/* Whether requests are held (the loop waits for them before it exits). */
bool notify_busy(const struct notify *n);

/* The loop's row for it; each call's SELF is the struct notify. */
extern const struct owner_row notify_row;

/* The bounded queue, oldest first (pure: the unit test drives it). */
struct notify_req;
struct notify_queue {
	struct notify_req *r[NOTIFY_QUEUE_CAP];
	size_t head, n;
};

/* Adds R at the end; returns the oldest request it pushed out to make
 * room when NOTIFY_QUEUE_CAP were held (for the caller to drop), or
 * NULL. */
struct notify_req *notify_queue_push(struct notify_queue *q, struct notify_req *r);
/* The I-th oldest held (I < q->n). */
struct notify_req *notify_queue_at(const struct notify_queue *q, size_t i);
/* Takes the I-th oldest out, the others keeping their order. */
void notify_queue_remove(struct notify_queue *q, size_t i);

#endif
