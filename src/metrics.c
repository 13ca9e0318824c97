#include "metrics.h"

#include <errno.h>
#include <inttypes.h>
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
	size_t n = strlen(name);

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

static bool put_count(uint64_t v, char *out)
{
	sprintf(out, "%" PRIu64, v);
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

struct family {
	const char *name, *type, *help;
	value_fn *value;
};

/* tfd_runs_total comes first and has a second label, so it is written by
 * its own function; these follow it in this order. */
static const struct family families[] = {
	{ "tfd_skipped_total", "counter",
	  "Wake-ups whose run was skipped by --overlap skip.", skipped },
	{ "tfd_missed_expirations_total", "counter",
	  "Timer expirations beyond one per wake-up.", missed },
	{ "tfd_running", "gauge", "Runs going now.", running },
	{ "tfd_last_run_start_timestamp_seconds", "gauge",
	  "Unix time of the last run's start.", last_start },
	{ "tfd_last_run_duration_seconds", "gauge",
	  "Duration of the last run that ended.", last_duration },
	{ "tfd_last_run_exit_status", "gauge",
	  "Exit status of the last run that ended (128+N if signal N ended it).",
	  last_status },
	{ "tfd_last_success_timestamp_seconds", "gauge",
	  "Unix time the last successful run ended.", last_success },
	{ "tfd_next_run_timestamp_seconds", "gauge",
	  "Unix time of the next scheduled expiration.", next_run },
};

static void put_header(struct buf *b, const char *name, const char *type,
		       const char *help)
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

/* NAME{job_name="JOB"[,result="RESULT"]} VALUE */
static void put_sample(struct buf *b, const char *name, const char *job,
		       const char *result, const char *value)
{
	put_str(b, name);
	put_str(b, "{job_name=\"");
	put_label_value(b, job);
	if (result) {
		put_str(b, "\",result=\"");
		put_str(b, result);
	}
	put_str(b, "\"} ");
	put_str(b, value);
	put_str(b, "\n");
}

static void put_runs_total(struct buf *b, const char *const *names,
			   const struct job_metrics *m, size_t n)
{
	static const char *const results[] = { "success", "failure", "timeout", "killed" };
	char value[32];

	put_header(b, "tfd_runs_total", "counter", "Runs ended, by result.");
	for (size_t i = 0; i < n; i++) {
		const uint64_t counts[] = { m[i].runs_success, m[i].runs_failure,
					    m[i].runs_timeout, m[i].runs_killed };

		for (size_t r = 0; r < sizeof results / sizeof *results; r++) {
			put_count(counts[r], value);
			put_sample(b, "tfd_runs_total", names[i], results[r], value);
		}
	}
}

int metrics_format(struct buf *b, const char *const *names,
		   const struct job_metrics *m, size_t n)
{
	char value[32];

	put_runs_total(b, names, m, n);
	for (size_t f = 0; f < sizeof families / sizeof *families; f++) {
		const struct family *fam = &families[f];

		put_header(b, fam->name, fam->type, fam->help);
		for (size_t i = 0; i < n; i++)
			if (fam->value(&m[i], value))
				put_sample(b, fam->name, names[i], NULL, value);
	}
	return b->failed ? -1 : 0;
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

/* Writing */

int metrics_write(const char *path, const char *const *names,
		  const struct job_metrics *m, size_t n, const struct fleet_metrics *fleet,
		  char *err, size_t errlen)
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
