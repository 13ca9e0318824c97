#include "endpoints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "loopstate.h"
#include "metrics.h"
#include "reload.h"
#include "tick.h"

#define TEXT_TYPE "text/plain; charset=utf-8"

static void answer_static(struct http_answer *a, unsigned status, const char *text)
{
	*a = (struct http_answer){ .status = status, .type = TEXT_TYPE, .static_body = text };
}

static void answer_oom(struct http_answer *a)
{
	answer_static(a, 500, "out of memory\n");
}

/* The text exposition of every family, current now; BUF's text is
 * handed over to the answer. */
static void answer_metrics(struct loop *l, struct http_answer *a)
{
	struct metrics_buf b = METRICS_BUF_INIT;

	if (tick_format_metrics(l, &b) != 0) {
		metrics_buf_free(&b);
		answer_oom(a);
		return;
	}
	*a = (struct http_answer){ .status = 200, .type = "text/plain; version=0.0.4; charset=utf-8",
				   .body = b.text, .len = b.len };
}

/* Why tfd is not ready, in one line, or NULL when it is. */
static const char *not_ready(const struct loop *l, const char **detail)
{
	const struct fleet_metrics *fleet = claims_metrics(l);

	*detail = NULL;
	if (l->phase == PHASE_SHUTDOWN)
		return "stopping: the schedules have ended";
	if (reload_waits(l))
		return "no jobs loaded: the jobs files hold no job";
	if (l->reload_refused) {
		*detail = l->reload_error;
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

void endpoints_answer(void *arg, const char *path, struct http_answer *out)
{
	struct loop *l = arg;

	if (strcmp(path, "/metrics") == 0)
		answer_metrics(l, out);
	else if (strcmp(path, "/healthz") == 0)
		answer_static(out, 200, "ok\n");
	else if (strcmp(path, "/readyz") == 0)
		answer_ready(l, out);
}
