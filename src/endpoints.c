/* SPDX-License-Identifier: MIT */
#include "endpoints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "jobview.h"
#include "jsonw.h"
#include "loopstate.h"
#include "metrics.h"
#include "reload.h"
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

static long read_metrics(void *arg, char *buf, size_t max)
{
	return metrics_snapshot_read(arg, buf, max);
}

static void free_metrics(void *arg)
{
	metrics_snapshot_free(arg);
}

/* The text exposition of every family as it is now, made as the client
 * takes it: the figures are copied at once (a pass over the jobs), the
 * text of 10,000 jobs, megabytes, a block at a time between the loop's
 * other work. */
static void answer_metrics(struct loop *l, struct http_answer *a)
{
	struct metrics_snapshot *s = tick_metrics_snapshot(l, claims_metrics(l));

	if (!s) {
		answer_oom(a);
		return;
	}
	*a = (struct http_answer){ .status = 200, .type = "text/plain; version=0.0.4; charset=utf-8",
				   .stream = read_metrics, .stream_free = free_metrics,
				   .stream_arg = s };
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
	*a = (struct http_answer){ .status = 503, .type = TEXT_TYPE, .body = text,
				   .len = n - 1 };
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
	*a = (struct http_answer){ .status = status, .type = JSON_TYPE, .body = w->text,
				   .len = w->len };
}

/* /jobs: tfdctl --json list's answer. */
static void answer_jobs(const struct loop *l, struct http_answer *a)
{
	struct jsonw w = { 0 };

	jobview_list(&w, l);
	answer_json(a, 200, &w);
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

/* /jobs/NAME: tfdctl --json status NAME's answer, or 404 with the control
 * socket's error. */
static void answer_job(const struct loop *l, const char *name, struct http_answer *a)
{
	struct jsonw w = { 0 };

	if (jobview_status(&w, l, name) == 0) {
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
