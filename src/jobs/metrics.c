/* SPDX-License-Identifier: MIT */
#include "metrics.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"
#include "utf8.h"

/* The text: a struct buf, whose failure sticks, so that metrics_format
 * looks at it once, at the end. */

static void put_str(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* Label values */

/* NAME as a label value: backslash, double quote and newline escaped as the
 * text format wants; a byte that is not UTF-8 (which the format requires,
 * and node_exporter would reject the whole file for) becomes U+FFFD. */
static void put_label_value(struct buf *b, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), plain = 0;

	/* Most names are printable ASCII with nothing to escape: copied
	 * whole (--listen formats 10,000 jobs' ten series at each scrape). */
	while (plain < n && s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '\\' &&
	       s[plain] != '"')
		plain++;
	if (plain == n) {
		buf_put(b, name, n);
		return;
	}
	while (n > 0) {
		long k = utf8_sequence(s, n);

		/* One U+FFFD for each byte that starts no valid sequence. */
		if (k < 0)
			put_str(b, UTF8_REPLACEMENT);
		else if (*s == '\\')
			put_str(b, "\\\\");
		else if (*s == '"')
			put_str(b, "\\\"");
		else if (*s == '\n')
			put_str(b, "\\n");
		else
			buf_put(b, (const char *)s, (size_t)k);
		k = k < 0 ? 1 : k;
		s += k;
		n -= (size_t)k;
	}
}

/* Families */

/* One job's value of a family into OUT (at least 32 bytes); false when it
 * has none yet. */
typedef bool value_fn(const struct job_metrics *m, char *out);

/* V in decimal: sprintf's cost, once per sample, was a fifth of a
 * scrape's. */
static bool put_count(uint64_t v, char *out)
{
	char digits[24];
	size_t n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (size_t i = 0; i < n; i++)
		out[i] = digits[n - 1 - i];
	out[n] = '\0';
	return true;
}

/* Seconds as decimal, never with an exponent (format_seconds). */
static bool put_seconds_if(bool have, int64_t ns, char *out)
{
	if (have)
		format_seconds(out, ns);
	return have;
}

static bool skipped(const struct job_metrics *m, char *out)
{
	return put_count(m->skipped, out);
}

static bool missed(const struct job_metrics *m, char *out)
{
	return put_count(m->missed, out);
}

static bool running(const struct job_metrics *m, char *out)
{
	return put_count(m->running, out);
}

static bool last_start(const struct job_metrics *m, char *out)
{
	return put_seconds_if(m->last_start_ns != 0, m->last_start_ns, out);
}

static bool last_duration(const struct job_metrics *m, char *out)
{
	return put_seconds_if(m->last_duration_ns >= 0, m->last_duration_ns, out);
}

static bool last_status(const struct job_metrics *m, char *out)
{
	if (m->last_duration_ns >= 0)
		sprintf(out, "%d", m->last_exit_status);
	return m->last_duration_ns >= 0;
}

static bool last_success(const struct job_metrics *m, char *out)
{
	return put_seconds_if(m->last_success_ns != 0, m->last_success_ns, out);
}

static bool next_run(const struct job_metrics *m, char *out)
{
	return put_seconds_if(m->next_run_ns != 0, m->next_run_ns, out);
}

static bool paused_total(const struct job_metrics *m, char *out)
{
	return put_count(m->paused_total, out);
}

static bool paused(const struct job_metrics *m, char *out)
{
	return put_count(m->paused, out);
}

/* A family whose samples carry a second label writes them itself. */
typedef void samples_fn(struct buf *b, const char *family, const char *job,
			const struct job_metrics *m);

struct family {
	const char *name, *type, *help;
	value_fn *value;
	samples_fn *samples; /* instead of value */
};

static void notify_samples(struct buf *b, const char *family, const char *job,
			   const uint64_t counts[NOTIFY_KINDS]);

static void notify_failures(struct buf *b, const char *family, const char *job,
			    const struct job_metrics *m)
{
	notify_samples(b, family, job, m->notify_failures);
}

static void notify_dropped(struct buf *b, const char *family, const char *job,
			   const struct job_metrics *m)
{
	notify_samples(b, family, job, m->notify_dropped);
}

/* tfd_runs_total comes first and has a second label, so it is written by
 * its own function; these follow it in this order. */
static const struct family families[] = {
	/* clang-format off */
	{ "tfd_skipped_total", "counter",
	  "Wake-ups whose run was skipped by --overlap skip.", skipped, NULL },
	{ "tfd_missed_expirations_total", "counter",
	  "Timer expirations beyond one per wake-up.", missed, NULL },
	{ "tfd_running", "gauge", "Runs going now.", running, NULL },
	{ "tfd_last_run_start_timestamp_seconds", "gauge",
	  "Unix time of the last run's start.", last_start, NULL },
	{ "tfd_last_run_duration_seconds", "gauge",
	  "Duration of the last run that ended.", last_duration, NULL },
	{ "tfd_last_run_exit_status", "gauge",
	  "Exit status of the last run that ended (128+N if signal N ended it).",
	  last_status, NULL },
	{ "tfd_last_success_timestamp_seconds", "gauge",
	  "Unix time the last successful run ended.", last_success, NULL },
	{ "tfd_next_run_timestamp_seconds", "gauge",
	  "Unix time of the next scheduled expiration.", next_run, NULL },
	{ "tfd_paused_total", "counter",
	  "Elapses not run because the job was paused (tfdctl pause).", paused_total, NULL },
	{ "tfd_paused", "gauge", "1 while the job is paused.", paused, NULL },
	{ "tfd_notify_failures_total", "counter",
	  "--ping and --notify requests given up after their tries, by kind.", NULL,
	  notify_failures },
	{ "tfd_notify_dropped_total", "counter",
	  "--ping and --notify requests dropped unsent (256 were waiting, or tfd stopped), by kind.",
	  NULL, notify_dropped },
	/* clang-format on */
};

static void put_header(struct buf *b, const char *name, const char *type, const char *help)
{
	put_str(b, "# HELP ");
	put_str(b, name);
	put_str(b, " ");
	put_str(b, help);
	put_str(b, "\n# TYPE ");
	put_str(b, name);
	put_str(b, " ");
	put_str(b, type);
	put_str(b, "\n");
}

/* NAME{job_name="JOB"[,LABEL="VALUE"]} VALUE */
static void put_sample(struct buf *b, const char *name, const char *job, const char *label,
		       const char *label_value, const char *value)
{
	put_str(b, name);
	put_str(b, "{job_name=\"");
	put_label_value(b, job);
	if (label_value) {
		put_str(b, "\",");
		put_str(b, label);
		put_str(b, "=\"");
		put_str(b, label_value);
	}
	put_str(b, "\"} ");
	put_str(b, value);
	put_str(b, "\n");
}

/* One job's four tfd_runs_total samples. */
static void put_runs_total(struct buf *b, const char *name, const struct job_metrics *m)
{
	static const char *const results[] = { "success", "failure", "timeout", "killed" };
	const uint64_t counts[] = { m->runs_success, m->runs_failure, m->runs_timeout,
				    m->runs_killed };
	char value[32];

	for (size_t r = 0; r < sizeof results / sizeof *results; r++) {
		put_count(counts[r], value);
		put_sample(b, "tfd_runs_total", name, "result", results[r], value);
	}
}

/* A job's samples of a --ping/--notify family, one by kind; none for a
 * job that has neither. */
static void notify_samples(struct buf *b, const char *family, const char *job,
			   const uint64_t counts[NOTIFY_KINDS])
{
	char value[32];

	for (size_t k = 0; k < NOTIFY_KINDS; k++) {
		put_count(counts[k], value);
		put_sample(b, family, job, "kind", notify_kind_name[k], value);
	}
}

#define FAMILIES (1 + sizeof families / sizeof *families)

/* Family F's header (0 is tfd_runs_total, then families[]). */
static void put_family_header(struct buf *b, size_t f)
{
	if (f == 0)
		put_header(b, "tfd_runs_total", "counter", "Runs ended, by result.");
	else
		put_header(b, families[f - 1].name, families[f - 1].type, families[f - 1].help);
}

/* Family F's samples of one job. */
static void put_family_job(struct buf *b, size_t f, const char *name, const struct job_metrics *m)
{
	char value[32];

	if (f == 0)
		put_runs_total(b, name, m);
	else if (families[f - 1].samples) {
		if (m->notifies)
			families[f - 1].samples(b, families[f - 1].name, name, m);
	} else if (families[f - 1].value(m, value))
		put_sample(b, families[f - 1].name, name, NULL, NULL, value);
}

/* Appends from where C stands, a job at a time, until B holds LIMIT
 * bytes or more or the families are done (a family's header always comes
 * with its first job, so each call moves on). Returns 1 when they are
 * done, 0 when more follows, -1 when memory ran out. */
static int format_part(struct buf *b, const char *const *names, const struct job_metrics *m,
		       size_t n, struct metrics_cursor *c, size_t limit)
{
	while (c->family < FAMILIES && b->len < limit && !b->failed) {
		/* --ping's and --notify's families appear with their first
		 * job that has one: a table without them has none. */
		if (c->job == 0) {
			c->header = c->family == 0 || !families[c->family - 1].samples;
			if (c->header)
				put_family_header(b, c->family);
		}
		while (c->job < n) {
			if (!c->header && m[c->job].notifies) {
				put_family_header(b, c->family);
				c->header = true;
			}
			put_family_job(b, c->family, names[c->job], &m[c->job]);
			if (++c->job < n && b->len >= limit)
				break;
		}
		if (c->job == n) {
			c->family++;
			c->job = 0;
		}
	}
	if (b->failed)
		return -1;
	return c->family == FAMILIES;
}

int metrics_format(struct buf *b, const char *const *names, const struct job_metrics *m, size_t n)
{
	struct metrics_cursor c = { 0, 0, false };

	return format_part(b, names, m, n, &c, SIZE_MAX) < 0 ? -1 : 0;
}

int metrics_format_fleet(struct buf *b, const struct fleet_metrics *f)
{
	static const char *const results[] = { "won", "elsewhere", "skipped", "missed" };
	char value[32];

	put_header(b, "tfd_fleet_claims_total", "counter",
		   "Elapses this replica asked the fleet for, by answer.");
	for (size_t r = 0; r < sizeof results / sizeof *results; r++) {
		put_count(f->claims[r], value);
		put_str(b, "tfd_fleet_claims_total{result=\"");
		put_str(b, results[r]);
		put_str(b, "\"} ");
		put_str(b, value);
		put_str(b, "\n");
	}
	put_header(b, "tfd_fleet_connected", "gauge",
		   "1 while the fleet's database is reachable and its table ready.");
	put_str(b, f->connected ? "tfd_fleet_connected 1\n" : "tfd_fleet_connected 0\n");
	return b->failed ? -1 : 0;
}

/* A snapshot, read in parts */

struct metrics_snapshot {
	size_t n, cap; /* jobs added, room for */
	struct job_metrics *m;
	size_t *name_at;       /* each name's offset in names_text */
	struct buf names_text; /* the names, one after another, NUL-ended */
	const char **names;    /* into names_text, once reading began */
	struct fleet_metrics fleet;
	bool has_fleet;
	struct metrics_cursor c;
	bool done;          /* every family and the fleet's are in pending */
	struct buf pending; /* made, not yet read */
	size_t off;         /* read of pending */
};

void metrics_snapshot_free(struct metrics_snapshot *s)
{
	if (!s)
		return;
	free(s->m);
	free(s->name_at);
	free(s->names);
	buf_free(&s->names_text);
	buf_free(&s->pending);
	free(s);
}

struct metrics_snapshot *metrics_snapshot_new(size_t n, const struct fleet_metrics *fleet)
{
	struct metrics_snapshot *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->cap = n;
	s->m = malloc((n ? n : 1) * sizeof *s->m);
	s->name_at = malloc((n ? n : 1) * sizeof *s->name_at);
	if (!s->m || !s->name_at) {
		metrics_snapshot_free(s);
		return NULL;
	}
	if (fleet) {
		s->fleet = *fleet;
		s->has_fleet = true;
	}
	return s;
}

int metrics_snapshot_add(struct metrics_snapshot *s, const char *name, const struct job_metrics *m)
{
	if (s->n == s->cap || s->names)
		return -1;
	s->name_at[s->n] = s->names_text.len;
	if (buf_put(&s->names_text, name, strlen(name) + 1) != 0)
		return -1;
	s->m[s->n++] = *m;
	return 0;
}

/* The names as the text's maker takes them, pointing into names_text
 * (which no longer grows). */
static int point_names(struct metrics_snapshot *s)
{
	s->names = calloc(s->n + 1, sizeof *s->names);
	if (!s->names)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		s->names[i] = s->names_text.s + s->name_at[i];
	return 0;
}

/* Makes about MAX more bytes of the text into pending (all of it read). */
static int snapshot_fill(struct metrics_snapshot *s, size_t max)
{
	int rc;

	s->pending.len = 0;
	s->off = 0;
	rc = format_part(&s->pending, s->names, s->m, s->n, &s->c, max);
	if (rc == 1 && s->has_fleet)
		rc = metrics_format_fleet(&s->pending, &s->fleet) == 0 ? 1 : -1;
	s->done = rc == 1;
	return rc < 0 ? -1 : 0;
}

long metrics_snapshot_read(struct metrics_snapshot *s, char *buf, size_t max)
{
	size_t k;

	if (max > LONG_MAX)
		max = LONG_MAX;
	if (!s->names && point_names(s) != 0)
		return -1;
	if (s->off == s->pending.len) {
		if (s->done)
			return 0;
		if (snapshot_fill(s, max) != 0)
			return -1;
	}
	k = s->pending.len - s->off < max ? s->pending.len - s->off : max;
	memcpy(buf, s->pending.s + s->off, k);
	s->off += k;
	return (long)k;
}

/* Writing */

int metrics_write(const char *path, const char *const *names, const struct job_metrics *m, size_t n,
		  const struct fleet_metrics *fleet, char *err, size_t errlen)
{
	struct buf b = { 0 };
	int rc;

	if (metrics_format(&b, names, m, n) != 0 ||
	    (fleet && metrics_format_fleet(&b, fleet) != 0)) {
		snprintf(err, errlen, "malloc '%s': %s", path, strerror(ENOMEM));
		buf_free(&b);
		return -1;
	}
	rc = atomic_replace(path, b.s, b.len, err, errlen);
	buf_free(&b);
	return rc;
}

int metrics_check_path(const char *path, char *err, size_t errlen)
{
	return atomic_check_target("--metrics", path, err, errlen);
}
