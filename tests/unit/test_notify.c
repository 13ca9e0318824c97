/* SPDX-License-Identifier: MIT */
/* Unit tests for notify's pure parts: the options checked (notify_url.c),
 * a URL as it may be shown, healthchecks.io's ping URLs, the runs' ids,
 * the retry schedule, and the bounded queue of notify.c. */
#include "notify.h"
#include "notify_url.h"
#include "harness.h"
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

static void shown(const char *url, const char *want)
{
	char out[256];

	notify_url_shown(url, out, sizeof out);
	check(strcmp(out, want) == 0, "'%s' shown as '%s', want '%s'", url, out, want);
}

static void test_shown(void)
{
	shown("https://hc-ping.com/0b0e7c6e-4f57-4e1a-9c3c-0e0b5d2b8a11", "https://hc-ping.com/…");
	shown("http://user:pass@example.com:8080/hook?key=s3cret", "http://example.com:8080/…");
	shown("https://a:b@c@example.com", "https://example.com");
	shown("HTTPS://Example.com?token=x", "HTTPS://Example.com/…");
	shown("https://example.com#frag", "https://example.com/…");
	shown("gopher://secret-host/x", "gopher:/…");
	shown("short", "short");
	/* A buffer too small cuts, and still ends the string. */
	{
		char out[8];

		notify_url_shown("https://example.com/x", out, sizeof out);
		check(strlen(out) == 7, "cut to %zu", strlen(out));
	}
}

static void accepted(const char *ping, const char *notify, const char *on, bool always)
{
	struct notify_target t;
	char err[256];
	int rc = notify_target_build(ping, notify, on, &t, err, sizeof err);

	check(rc == 0, "refused %s %s %s: %s", ping, notify, on, err);
	if (rc != 0)
		return;
	check(t.notify_always == always, "%s: always %d", on ? on : "(none)", t.notify_always);
	check((!ping || strcmp(t.ping, ping) == 0) && (!notify || strcmp(t.notify, notify) == 0),
	      "copies");
	notify_target_free(&t);
}

static void refused(const char *ping, const char *notify, const char *on, const char *why)
{
	struct notify_target t;
	char err[256] = "";
	int rc = notify_target_build(ping, notify, on, &t, err, sizeof err);

	check(rc == 2 && strstr(err, why), "%s %s %s: %d '%s', want '%s'", ping, notify, on, rc,
	      err, why);
	check(!t.ping && !t.notify, "nothing kept");
}

static void test_options(void)
{
	accepted("https://hc-ping.com/k", NULL, NULL, false);
	accepted(NULL, "http://127.0.0.1:8/x", "always", true);
	accepted(NULL, "http://[::1]:8/x", "failure", false);
	accepted(NULL, NULL, "always", true);
	refused("ftp://x/y", NULL, NULL, "--ping 'ftp://x/…': not an http:// or https:// URL");
	refused("", NULL, NULL, "--ping: an empty URL");
	refused(NULL, "http://", NULL, "--notify 'http://'");
	refused(NULL, "http:///path", NULL, "not an http");
	refused(NULL, "https://@host/", NULL, "not an http");
	refused(NULL, "https://host/a b", NULL, "no space");
	refused(NULL, "https://host/a\tb", NULL, "no space");
	refused("https://user:pw@host/key x", NULL, NULL, "--ping 'https://host/…'");
	refused(NULL, "https://h/x", "never", "--notify-on 'never': must be failure or always");
}

static void ping_url(const char *base, const char *suffix, const char *want)
{
	char *url = notify_ping_url(base, suffix, "RID");

	check(url && strcmp(url, want) == 0, "%s + %s: '%s', want '%s'", base,
	      suffix ? suffix : "(none)", url ? url : "(null)", want);
	free(url);
}

static void test_ping_urls(void)
{
	ping_url("https://hc-ping.com/KEY", "start", "https://hc-ping.com/KEY/start?rid=RID");
	ping_url("https://hc-ping.com/KEY", NULL, "https://hc-ping.com/KEY?rid=RID");
	ping_url("https://hc-ping.com/KEY/", "fail", "https://hc-ping.com/KEY/fail?rid=RID");
	ping_url("https://hc-ping.com/KEY//", "3", "https://hc-ping.com/KEY/3?rid=RID");
	ping_url("https://h/p?create=1", "start", "https://h/p/start?create=1&rid=RID");
	ping_url("https://h/p?create=1#x", NULL, "https://h/p?create=1&rid=RID");
	ping_url("https://h/p#x", NULL, "https://h/p?rid=RID");
}

static bool is_uuid4(const char *s)
{
	if (strlen(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
		return false;
	for (int i = 0; i < 36; i++)
		if (s[i] != '-' && !strchr("0123456789abcdef", s[i]))
			return false;
	return s[14] == '4' && strchr("89ab", s[19]);
}

static void test_run_ids(void)
{
	const uint8_t key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	const uint8_t other[16] = { 2 };
	char a[NOTIFY_RID_LEN], b[NOTIFY_RID_LEN], c[NOTIFY_RID_LEN];

	notify_run_id(key, "backup", 1, a);
	notify_run_id(key, "backup", 1, b);
	check(is_uuid4(a), "'%s' is no UUID v4", a);
	check(strcmp(a, b) == 0, "one run, two ids: %s %s", a, b);
	notify_run_id(key, "backup", 2, b);
	notify_run_id(key, "backupx", 1, c);
	check(strcmp(a, b) != 0 && strcmp(a, c) != 0, "two runs, one id: %s", a);
	notify_run_id(other, "backup", 1, b);
	check(strcmp(a, b) != 0, "another process's key, the same id: %s", a);
	notify_run_id(key, NULL, 1, b);
	check(is_uuid4(b), "no name: '%s'", b);
}

static void test_retry_schedule(void)
{
	check(notify_retry_delay(1) == NSEC_PER_SEC, "after 1 failed try: 1 s");
	check(notify_retry_delay(2) == 5 * NSEC_PER_SEC, "after 2: 5 s");
	check(notify_retry_delay(3) == 25 * NSEC_PER_SEC, "after 3: 25 s");
	check(notify_retry_delay(NOTIFY_TRIES) == -1, "after 4: given up");
	check(notify_retry_delay(0) == -1, "0 tries: nothing to retry");
}

static void test_queue(void)
{
	static struct notify_queue q;
	static int items[NOTIFY_QUEUE_CAP + 10];
	struct notify_req *out;
	size_t dropped = 0;

	for (int i = 0; i < NOTIFY_QUEUE_CAP + 10; i++) {
		out = notify_queue_push(&q, (struct notify_req *)&items[i]);
		if (out) {
			check(out == (struct notify_req *)&items[dropped],
			      "dropped %p, not the oldest", (void *)out);
			dropped++;
		}
	}
	check(dropped == 10 && q.n == NOTIFY_QUEUE_CAP, "%zu dropped, %zu held", dropped, q.n);
	check(notify_queue_at(&q, 0) == (struct notify_req *)&items[10], "oldest held");
	check(notify_queue_at(&q, NOTIFY_QUEUE_CAP - 1) ==
		      (struct notify_req *)&items[NOTIFY_QUEUE_CAP + 9],
	      "newest held");
	notify_queue_remove(&q, 1);
	check(q.n == NOTIFY_QUEUE_CAP - 1 &&
		      notify_queue_at(&q, 0) == (struct notify_req *)&items[10] &&
		      notify_queue_at(&q, 1) == (struct notify_req *)&items[12],
	      "the order kept after a removal");
	out = notify_queue_push(&q, (struct notify_req *)&items[0]);
	check(!out && q.n == NOTIFY_QUEUE_CAP, "room again after a removal");
	while (q.n > 0)
		notify_queue_remove(&q, 0);
	check(!notify_queue_push(&q, (struct notify_req *)&items[1]) && q.n == 1, "empty again");
}

/* The failures and drops by kind, only for jobs that have --ping or
 * --notify; a table with none has not even the families' headers. */
static void test_metrics(void)
{
	const char *names[] = { "plain", "pinged" };
	struct job_metrics m[2] = { JOB_METRICS_INIT, JOB_METRICS_INIT };
	struct buf b = { 0 };

	check(metrics_format(&b, names, m, 1) == 0 && buf_put(&b, "", 1) == 0, "formatted");
	check(!b.failed && !strstr(b.s, "tfd_notify"), "a table without them:\n%s",
	      b.failed ? "" : b.s);
	b.len = 0;
	m[1].notifies = true;
	m[1].notify_failures[NOTIFY_PING] = 3;
	m[1].notify_dropped[NOTIFY_HOOK] = 7;
	check(metrics_format(&b, names, m, 2) == 0 && buf_put(&b, "", 1) == 0 && !b.failed,
	      "formatted");
	check(!b.failed &&
		      strstr(b.s,
			     "# TYPE tfd_notify_failures_total counter\n"
			     "tfd_notify_failures_total{job_name=\"pinged\",kind=\"ping\"} 3\n"
			     "tfd_notify_failures_total{job_name=\"pinged\",kind=\"notify\"} 0\n") &&
		      strstr(b.s,
			     "tfd_notify_dropped_total{job_name=\"pinged\",kind=\"notify\"} 7\n") &&
		      !strstr(b.s, "tfd_notify_failures_total{job_name=\"plain\""),
	      "%s", b.failed ? "" : b.s);
	buf_free(&b);
}

int main(void)
{
	test_metrics();
	test_shown();
	test_options();
	test_ping_urls();
	test_run_ids();
	test_retry_schedule();
	test_queue();
	return tally_finish(&tally, "notify");
}
