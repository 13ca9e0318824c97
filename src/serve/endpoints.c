/* SPDX-License-Identifier: MIT */
#include "endpoints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "jobrefs.h"
#include "jobview.h"
#include "jsonw.h"
#include "loopstate.h"
#include "metrics.h"
#include "reload.h"
#include "slices.h"
#include "tick.h"

#define TEXT_TYPE "text/plain; charset=utf-8"
#define JSON_TYPE "application/json"
#define JOBS_PREFIX "/jobs/"

static void answer_static(struct http_answer *a, unsigned status, const char *text)
{
	*a = (struct http_answer){ .status = status, .type = TEXT_TYPE, .static_body = text };
}

static void answer_oom(struct http_answer *a)
{
	answer_static(a, 500, "out of memory\n");
}

/* /metrics: the text exposition of every family, made as the client
 * takes it, within the budget (slices.h). The jobs' figures are copied
 * first, a slice of jobs at a time (each job's at once, so they agree
 * with each other), then the text is made from the copy, its megabytes
 * for 10,000 jobs a part at a time. */
struct metrics_answer {
	struct loop *l;
	struct jobrefs jobs;        /* taken at the first slice */
	size_t copied;              /* of jobs */
	struct metrics_snapshot *s; /* NULL until the first slice */
};

/* The jobs whose figures one slice copies: some 0.1 ms of a quiet tfd,
 * 0.5 ms while the copies of many answers fault their pages in. */
#define METRICS_COPY_JOBS 256

/* The next slice of the copy. Returns -1 when memory ran out. */
static int copy_figures(struct metrics_answer *a)
{
	size_t k = a->jobs.n - a->copied < METRICS_COPY_JOBS ? a->jobs.n - a->copied
							     : METRICS_COPY_JOBS;

	if (!a->s) {
		if (jobrefs_take(&a->jobs, a->l) != 0)
			return -1;
		a->s = metrics_snapshot_new(a->jobs.n, claims_metrics(a->l));
		return a->s ? 0 : -1;
	}
	if (jobrefs_check(&a->jobs, a->l, a->copied) != 0 ||
	    tick_metrics_copy(a->s, a->jobs.jobs + a->copied, k) != 0)
		return -1;
	a->copied += k;
	return 0;
}

static long read_metrics(void *arg, char *buf, size_t max)
{
	struct metrics_answer *a = arg;
	struct slice_budget *b = &a->l->http_slices;
	int64_t began;
	long n;

	while (!a->s || a->copied < a->jobs.n) {
		int rc;

		if (slice_budget_spent(b))
			return HTTP_STREAM_LATER;
		began = slice_begin();
		rc = copy_figures(a);
		slice_end(b, began);
		if (rc != 0)
			return -1;
	}
	if (slice_budget_spent(b))
		return HTTP_STREAM_LATER;
	began = slice_begin();
	n = metrics_snapshot_read(a->s, buf, max < SLICE_PART_BYTES ? max : SLICE_PART_BYTES);
	slice_end(b, began);
	return n;
}

static void free_metrics(void *arg)
{
	struct metrics_answer *a = arg;

	jobrefs_free(&a->jobs);
	metrics_snapshot_free(a->s);
	free(a);
}

static void answer_metrics(struct loop *l, struct http_answer *a)
{
	struct metrics_answer *m = calloc(1, sizeof *m);

	if (!m) {
		answer_oom(a);
		return;
	}
	m->l = l;
	*a = (struct http_answer){ .status = 200,
				   .type = "text/plain; version=0.0.4; charset=utf-8",
				   .stream = read_metrics,
				   .stream_free = free_metrics,
				   .stream_arg = m };
}

/* Why tfd is not ready, in one line, or NULL when it is. */
static const char *not_ready(const struct loop *l, const char **detail)
{
	const struct fleet_metrics *fleet = claims_metrics(l);
	bool refused;
	const char *why = reload_refusal(l, &refused);

	*detail = NULL;
	/* Shutting down, or draining (--on-stop=wait): no new elapse runs here. */
	if (l->st.phase != PHASE_RUNNING)
		return "stopping: the schedules have ended";
	if (reload_waits(l))
		return "no jobs loaded: the jobs files hold no job";
	if (refused) {
		*detail = why;
		return "the last reload was refused; the jobs run as they were";
	}
	if (fleet && !fleet->connected)
		return "--fleet: the database is not connected";
	return NULL;
}

/* 503 with REASON[: DETAIL] on one line (a detail's newlines become
 * spaces). */
static void answer_unready(struct http_answer *a, const char *reason, const char *detail)
{
	size_t n = strlen(reason) + (detail ? 2 + strlen(detail) : 0) + 2;
	char *text = malloc(n);

	if (!text) {
		answer_static(a, 503, "not ready\n");
		return;
	}
	snprintf(text, n, "%s%s%s\n", reason, detail ? ": " : "", detail ? detail : "");
	for (char *p = text; p[1]; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	*a = (struct http_answer){ .status = 503, .type = TEXT_TYPE, .body = text, .len = n - 1 };
}

static void answer_ready(const struct loop *l, struct http_answer *a)
{
	const char *detail, *reason = not_ready(l, &detail);

	if (reason)
		answer_unready(a, reason, detail);
	else
		answer_static(a, 200, "ready\n");
}

/* W's object and a newline as the answer, with STATUS; W's text is handed
 * over. */
static void answer_json(struct http_answer *a, unsigned status, struct jsonw *w)
{
	jsonw_raw(w, "\n", 1);
	if (w->failed) {
		jsonw_free(w);
		answer_oom(a);
		return;
	}
	*a = (struct http_answer){ .status = status,
				   .type = JSON_TYPE,
				   .body = w->text,
				   .len = w->len };
}

/* /jobs: tfdctl --json list's answer, made a part at a time within the
 * turn's budget (jobview.h says what such a list promises). */
struct jobs_answer {
	struct loop *l;
	struct jobview_listing *ls;
	const char *text; /* the part made, not yet read */
	size_t len, off;
	bool done; /* it was the last */
};

static long read_jobs(void *arg, char *buf, size_t max)
{
	struct jobs_answer *a = arg;
	size_t k;

	if (a->off == a->len) {
		int rc;

		if (a->done)
			return 0;
		if (slice_budget_spent(&a->l->http_slices))
			return HTTP_STREAM_LATER;
		rc = jobview_listing_part(a->ls, &a->l->http_slices,
					  max < SLICE_PART_BYTES ? max : SLICE_PART_BYTES, &a->text,
					  &a->len);
		if (rc < 0)
			return -1;
		a->off = 0;
		a->done = rc == 1;
		if (a->len == 0)
			return a->done ? 0 : HTTP_STREAM_LATER;
	}
	k = a->len - a->off < max ? a->len - a->off : max;
	memcpy(buf, a->text + a->off, k);
	a->off += k;
	return (long)k;
}

static void free_jobs(void *arg)
{
	struct jobs_answer *a = arg;

	jobview_listing_free(a->ls);
	free(a);
}

static void answer_jobs(struct loop *l, struct http_answer *a)
{
	struct jobs_answer *j = calloc(1, sizeof *j);

	if (j)
		j->ls = jobview_listing_new(l);
	if (!j || !j->ls) {
		free(j);
		answer_oom(a);
		return;
	}
	j->l = l;
	*a = (struct http_answer){ .status = 200,
				   .type = JSON_TYPE,
				   .stream = read_jobs,
				   .stream_free = free_jobs,
				   .stream_arg = j };
}

/* The control socket's answer to a job that is not there. */
static void put_unknown_job(struct jsonw *w, const char *name)
{
	static const char prefix[] = "unknown job '";
	size_t np = sizeof prefix - 1, nn = strlen(name);
	char *text = malloc(np + nn + 2);

	if (!text) {
		w->failed = true;
		return;
	}
	memcpy(text, prefix, np);
	memcpy(text + np, name, nn);
	memcpy(text + np + nn, "'", 2);
	jsonw_object(w);
	jsonw_key(w, "ok");
	jsonw_bool(w, false);
	jsonw_key(w, "error");
	jsonw_string(w, text);
	jsonw_end_object(w);
	free(text);
}

/* /jobs/NAME: tfdctl --json status NAME's answer without what may hold
 * secrets (jobview_status_public), or 404 with the control socket's
 * error. */
static void answer_job(const struct loop *l, const char *name, struct http_answer *a)
{
	struct jsonw w = { 0 };

	if (jobview_status_public(&w, l, name) == 0) {
		answer_json(a, 200, &w);
		return;
	}
	put_unknown_job(&w, name);
	answer_json(a, 404, &w);
}

void endpoints_answer(void *arg, const char *path, struct http_answer *out)
{
	struct loop *l = arg;

	if (strcmp(path, "/metrics") == 0)
		answer_metrics(l, out);
	else if (strcmp(path, "/healthz") == 0)
		answer_static(out, 200, "ok\n");
	else if (strcmp(path, "/readyz") == 0)
		answer_ready(l, out);
	else if (strcmp(path, "/jobs") == 0)
		answer_jobs(l, out);
	else if (strncmp(path, JOBS_PREFIX, strlen(JOBS_PREFIX)) == 0 && path[strlen(JOBS_PREFIX)])
		answer_job(l, path + strlen(JOBS_PREFIX), out);
}
