/* SPDX-License-Identifier: MIT */
/* notify_url: what --ping, --notify and --notify-on say, checked (the
 * pure half of notify.h): a job's endpoints, a URL as it may be shown
 * (no user, password, path or query: a healthchecks.io URL holds its key
 * in its path, a webhook's in its query), healthchecks.io's ping URLs
 * with a run's id, the id itself, and the retry schedule. */
#ifndef TFD_NOTIFY_URL_H
#define TFD_NOTIFY_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A job's endpoints; NULL: none. Owned by the job. */
struct notify_target {
	char *ping;         /* --ping: healthchecks.io's protocol */
	char *notify;       /* --notify: the "exit" event POSTed as JSON */
	bool notify_always; /* --notify-on=always; else failures only */
};

/* The two kinds of request, as the metrics' label and the "error"
 * event's call name them. */
enum notify_kind { NOTIFY_PING, NOTIFY_HOOK, NOTIFY_KINDS };
extern const char *const notify_kind_name[NOTIFY_KINDS];

/* Checks and copies the options' text into T. Returns 0, 1 when memory
 * ran out, or 2 with one line in err naming the option and the bad text
 * (its URL shown as notify_url_shown shows it). */
int notify_target_build(const char *ping, const char *notify, const char *notify_on,
			struct notify_target *t, char *err, size_t errlen);
void notify_target_free(struct notify_target *t);

/* Whether T has an endpoint. */
static inline bool notify_target_any(const struct notify_target *t)
{
	return t->ping || t->notify;
}

/* URL as it may be printed: "https://hc-ping.com/…", its scheme, host and
 * port, "/…" for whatever followed. Writes at most LEN bytes (cut, NUL
 * ended). */
void notify_url_shown(const char *url, char *out, size_t len);

/* healthchecks.io's ping URL: BASE, then "/SUFFIX" (NULL: none), then
 * "?rid=RID" (or "&rid=" after BASE's own query). Returns a new string,
 * or NULL when memory ran out. */
char *notify_ping_url(const char *base, const char *suffix, const char *rid);

/* A run's id, a UUID as healthchecks.io takes it (version 4's shape):
 * from KEY (random, the process's), the job's name and the run's number,
 * so that a run's start and end carry the same id and two runs never do.
 * OUT: 37 bytes. */
#define NOTIFY_RID_LEN 37
void notify_run_id(const uint8_t key[16], const char *job, uint64_t seq, char *out);

/* The wait before the next try after TRIES failed ones: 1 s, 5 s, 25 s;
 * -1: no try is left (four were made). */
#define NOTIFY_TRIES 4
int64_t notify_retry_delay(unsigned tries);

#endif
