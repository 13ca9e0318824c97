/* SPDX-License-Identifier: MIT */
#include "jobview.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "fleet.h"
#include "jobrefs.h"
#include "jobsfile.h"
#include "loopstate.h"
#include "options.h"
#include "slices.h"
#include "tick.h"

#define PIDS_SHOWN 16
#define NEXT_ELAPSES 3

struct job *jobview_find(const struct loop *l, const char *name)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->state->removed && strcmp(l->jobs[i]->name, name) == 0)
			return l->jobs[i];
	return NULL;
}

/* "success", "status 3", "signal SIGTERM", "timeout", "failure" (the run
 * never started). */
static void result_text(const struct run_record *r, char *buf, size_t len)
{
	char name[16];

	if (r->start_failed)
		snprintf(buf, len, "failure");
	else if (r->timed_out)
		snprintf(buf, len, "timeout");
	else if (r->signal)
		snprintf(buf, len, "signal %s", signal_name(r->signal, name, sizeof name));
	else if (r->status != 0)
		snprintf(buf, len, "status %d", r->status);
	else
		snprintf(buf, len, "success");
}

/* "KEY": the instant, and "KEY_unix", or nulls for 0. */
static void put_instant(struct jsonw *w, const char *key, int64_t wall_ns)
{
	char unix_key[32];

	snprintf(unix_key, sizeof unix_key, "%s_unix", key);
	jsonw_key(w, key);
	if (wall_ns)
		jsonw_time(w, wall_ns);
	else
		jsonw_null(w);
	jsonw_key(w, unix_key);
	if (wall_ns)
		jsonw_seconds(w, wall_ns);
	else
		jsonw_null(w);
}

static void put_span_or_null(struct jsonw *w, const char *key, bool have, int64_t ns)
{
	jsonw_key(w, key);
	if (have)
		jsonw_seconds(w, ns);
	else
		jsonw_null(w);
}

static const char *state_name(const struct job *j, size_t running)
{
	if (j->state->paused)
		return "paused";
	if (running)
		return "running";
	if (j->state->runner && runner_retrying(j->state->runner))
		return "retrying";
	return "idle";
}

/* Under --fleet: the fleet's last run of J, when it is later than this
 * replica's own by more than a second (the clocks' allowed skew: a run of
 * this replica's is claimed before it starts), else NULL. */
static const struct fleet_seen *fleet_later(const struct job *j)
{
	const struct fleet_seen *s = j->state->fleet_seen;
	int64_t own = j->state->metrics.last_start_ns;

	return s && (own == 0 || s->last.start_ns > own + NSEC_PER_SEC) ? s : NULL;
}

/* "replica": who ran the last run, under --fleet only. */
static void put_replica(struct jsonw *w, const struct loop *l, const struct fleet_seen *seen,
			int64_t start)
{
	const struct fleet *f = claims_fleet(l);

	if (!f)
		return;
	jsonw_key(w, "replica");
	if (seen)
		jsonw_string(w, seen->replica);
	else if (start)
		jsonw_string(w, fleet_self(f));
	else
		jsonw_null(w);
}

/* "user" its runs run as, and the "file" and "line" it comes from (null
 * on the command line): `list --wide` and `status` show them. */
static void put_origin(struct jsonw *w, const struct job *j)
{
	jsonw_key(w, "user");
	jsonw_string(w, j->run_as);
	jsonw_key(w, "file");
	jsonw_string(w, j->file);
	jsonw_key(w, "line");
	if (j->file)
		jsonw_u64(w, j->line);
	else
		jsonw_null(w);
}

/* The fields `list` shows, inside the job's object. */
static void put_summary(struct jsonw *w, const struct loop *l, const struct job *j, int64_t now)
{
	const struct fleet_seen *seen = fleet_later(j);
	const struct run_record *last = !seen           ? job_history_get(j, 0)
					: seen->running ? NULL
							: &seen->last;
	int64_t next = tick_next_run_wall(j);
	int64_t start = seen ? seen->last.start_ns : j->state->metrics.last_start_ns;
	pid_t pids[PIDS_SHOWN];
	size_t npids = j->state->runner ? runner_pids(j->state->runner, pids, PIDS_SHOWN) : 0;
	char result[64];

	jsonw_key(w, "job");
	jsonw_string(w, j->name);
	put_origin(w, j);
	put_instant(w, "next", next);
	put_span_or_null(w, "left", next != 0, next > now ? next - now : 0);
	put_instant(w, "last", start);
	put_span_or_null(w, "passed", start != 0, now > start ? now - start : 0);
	jsonw_key(w, "result");
	if (last) {
		result_text(last, result, sizeof result);
		jsonw_string(w, result);
	} else {
		jsonw_null(w);
	}
	put_span_or_null(w, "duration", last != NULL, last ? last->duration_ns : 0);
	put_replica(w, l, seen, start);
	jsonw_key(w, "state");
	jsonw_string(w, state_name(j, npids));
	jsonw_key(w, "pids");
	jsonw_array(w);
	for (size_t i = 0; i < npids && i < PIDS_SHOWN; i++)
		jsonw_i64(w, pids[i]);
	jsonw_end_array(w);
}

/* One job's object in a list. */
static void put_listed(struct jsonw *w, const struct loop *l, const struct job *j, int64_t now)
{
	jsonw_object(w);
	put_summary(w, l, j, now);
	jsonw_end_object(w);
}

/* List order: by next elapse, none last, then by name. */
struct listed {
	const struct job *j;
	int64_t next;
};

static int by_next(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int64_t nx = x->next ? x->next : INT64_MAX, ny = y->next ? y->next : INT64_MAX;

	if (nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(x->j->name, y->j->name);
}

/* The table's jobs now, in list order. Returns -1 when memory ran out. */
static int sorted_jobs(const struct loop *l, struct jobrefs *r)
{
	struct listed *v;

	if (jobrefs_take(r, l) != 0)
		return -1;
	v = calloc(r->n + 1, sizeof *v);
	if (!v) {
		jobrefs_free(r);
		return -1;
	}
	for (size_t i = 0; i < r->n; i++)
		v[i] = (struct listed){ r->jobs[i], tick_next_run_wall(r->jobs[i]) };
	qsort(v, r->n, sizeof *v, by_next);
	for (size_t i = 0; i < r->n; i++)
		r->jobs[i] = v[i].j;
	free(v);
	return 0;
}

/* A list in parts */

#define LIST_HEAD "{\"ok\":true,\"jobs\":["
#define LIST_TAIL "]}\n"

struct jobview_listing {
	const struct loop *l;
	struct jobrefs jobs; /* sorted at the first part */
	bool begun;
	size_t next;
	size_t written;    /* jobs written so far */
	int64_t now;       /* the wall clock at the sort */
	struct jsonw part; /* the last part made */
};

struct jobview_listing *jobview_listing_new(const struct loop *l)
{
	struct jobview_listing *ls = calloc(1, sizeof *ls);

	if (ls)
		ls->l = l;
	return ls;
}

void jobview_listing_free(struct jobview_listing *ls)
{
	if (!ls)
		return;
	jobrefs_free(&ls->jobs);
	jsonw_free(&ls->part);
	free(ls);
}

/* The first part: the sort (a pass over the table) and the head. */
static int begin_list(struct jobview_listing *ls)
{
	if (sorted_jobs(ls->l, &ls->jobs) != 0)
		return -1;
	ls->begun = true;
	ls->now = clock_now_ns(CLOCK_REALTIME);
	jsonw_raw(&ls->part, LIST_HEAD, strlen(LIST_HEAD));
	return 0;
}

/* Whole jobs until the part holds MAX bytes, and the tail after the
 * last. */
static void put_jobs(struct jobview_listing *ls, size_t max)
{
	for (; ls->next < ls->jobs.n && ls->part.len < max; ls->next++) {
		const struct job *j = ls->jobs.jobs[ls->next];

		if (!j || j->state->removed)
			continue;
		/* Between two parts; inside one, the writer puts the commas. */
		if (ls->written > 0 && ls->part.len == 0)
			jsonw_raw(&ls->part, ",", 1);
		put_listed(&ls->part, ls->l, j, ls->now);
		ls->written++;
	}
	if (ls->next == ls->jobs.n)
		jsonw_raw(&ls->part, LIST_TAIL, strlen(LIST_TAIL));
}

int jobview_listing_part(struct jobview_listing *ls, struct slice_budget *b, size_t max,
			 const char **text, size_t *len)
{
	int64_t began;

	jsonw_reset(&ls->part);
	*text = "";
	*len = 0;
	if (slice_budget_spent(b))
		return 0;
	began = slice_begin();
	if (!ls->begun) {
		int rc = begin_list(ls);

		slice_end(b, began);
		if (rc != 0 || ls->part.failed)
			return -1;
		/* The sort was this slice; the jobs follow in the next. */
		if (slice_budget_spent(b)) {
			*text = ls->part.text;
			*len = ls->part.len;
			return 0;
		}
		began = slice_begin();
	}
	if (jobrefs_check(&ls->jobs, ls->l, ls->next) != 0)
		return -1;
	put_jobs(ls, max);
	slice_end(b, began);
	if (ls->part.failed)
		return -1;
	*text = ls->part.text;
	*len = ls->part.len;
	return ls->next == ls->jobs.n;
}

/* Status */

static const char *overlap_name(enum overlap o)
{
	static const char *const names[] = { "skip", "queue", "kill", "parallel" };

	return (unsigned)o < 4 ? names[o] : "skip";
}

static void put_command(struct jsonw *w, const struct job *j)
{
	jsonw_key(w, "command");
	if (!j->argv) {
		jsonw_null(w);
		return;
	}
	jsonw_array(w);
	for (size_t i = 0; j->argv[i]; i++)
		jsonw_string(w, j->argv[i]);
	jsonw_end_array(w);
}

static void put_policies(struct jsonw *w, const struct job *j)
{
	jsonw_key(w, "overlap");
	jsonw_string(w, overlap_name(j->run.overlap));
	put_span_or_null(w, "timeout", j->run.timeout_ns != 0, j->run.timeout_ns);
	jsonw_key(w, "retry");
	jsonw_u64(w, j->run.retry);
	jsonw_key(w, "retry_delay");
	jsonw_seconds(w, j->run.retry_delay_ns);
	jsonw_key(w, "random_delay");
	jsonw_seconds(w, j->random_delay_ns);
	jsonw_key(w, "output");
	jsonw_string(w, j->mail ? "mail" : j->run.tag_output ? "tagged" : "inherited");
}

static void put_counter(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_u64(w, v);
}

static void put_counters(struct jsonw *w, const struct job *j)
{
	const struct job_metrics *m = &j->state->metrics;

	jsonw_key(w, "counters");
	jsonw_object(w);
	put_counter(w, "runs",
		    m->runs_success + m->runs_failure + m->runs_timeout + m->runs_killed);
	put_counter(w, "success", m->runs_success);
	put_counter(w, "failures", m->runs_failure);
	put_counter(w, "timeouts", m->runs_timeout);
	put_counter(w, "killed", m->runs_killed);
	put_counter(w, "missed", m->missed);
	put_counter(w, "skipped", m->skipped);
	put_counter(w, "paused", m->paused_total);
	jsonw_end_object(w);
}

/* The next elapses from a copy of the job's walk: the schedule's own
 * answer, --count and all. */
static void put_next_elapses(struct jsonw *w, const struct job *j)
{
	struct schedule_walk walk = j->state->walk;
	bool more = j->state->running;

	jsonw_key(w, "next_elapses");
	jsonw_array(w);
	for (int i = 0; i < NEXT_ELAPSES && more; i++) {
		int64_t newest;

		int64_t at = tick_wall_of(j, walk.at_ns);

		jsonw_object(w);
		jsonw_key(w, "time");
		jsonw_time(w, at);
		jsonw_key(w, "unix");
		jsonw_seconds(w, at);
		jsonw_end_object(w);
		schedule_walk_pass(&walk, walk.at_ns, 1, &newest, &more);
	}
	jsonw_end_array(w);
}

void jobview_put_exit(struct jsonw *w, const struct run_record *r)
{
	char name[16];

	jsonw_key(w, "status");
	if (r->signal || r->start_failed)
		jsonw_null(w);
	else
		jsonw_i64(w, r->status);
	jsonw_key(w, "signal");
	jsonw_string(w, r->signal ? signal_name(r->signal, name, sizeof name) : NULL);
}

static void put_record(struct jsonw *w, const struct run_record *r)
{
	char result[64];

	result_text(r, result, sizeof result);
	jsonw_object(w);
	put_counter(w, "seq", r->seq);
	put_instant(w, "start", r->start_ns);
	jsonw_key(w, "duration");
	jsonw_seconds(w, r->duration_ns);
	jsonw_key(w, "result");
	jsonw_string(w, result);
	jobview_put_exit(w, r);
	put_counter(w, "attempt", r->attempt);
	jsonw_key(w, "trigger");
	jsonw_string(w, r->manual ? "manual" : "schedule");
	jsonw_end_object(w);
}

static void put_runs(struct jsonw *w, const struct job *j)
{
	const struct run_record *r;

	jsonw_key(w, "runs");
	jsonw_array(w);
	for (unsigned i = 0; (r = job_history_get(j, i)); i++)
		put_record(w, r);
	jsonw_end_array(w);
}

/* Hooks: "hooks", each STRING (a command: the socket's alone), and
 * "last_hook", what the last one did (null: none yet). */
static void put_hooks(struct jsonw *w, const struct job *j)
{
	jsonw_key(w, "hooks");
	jsonw_object(w);
	jsonw_key(w, "on_failure");
	jsonw_string(w, j->hooks.command[HOOK_FAILURE]);
	jsonw_key(w, "on_success");
	jsonw_string(w, j->hooks.command[HOOK_SUCCESS]);
	jsonw_end_object(w);
}

static void put_last_hook(struct jsonw *w, const struct job *j)
{
	const struct job_history *h = j->state->history;
	const struct hook_record *k = h && h->hooked ? &h->last_hook : NULL;
	/* Told as a run's end is told: one rule for "result". */
	struct run_record r = { 0 };
	char result[64];

	jsonw_key(w, "last_hook");
	if (!k) {
		jsonw_null(w);
		return;
	}
	r = (struct run_record){ .start_ns = k->start_ns,
				 .duration_ns = k->duration_ns,
				 .status = k->status,
				 .signal = k->signal,
				 .timed_out = k->timed_out,
				 .start_failed = k->start_failed };
	jsonw_object(w);
	jsonw_key(w, "hook");
	jsonw_string(w, hook_kind_name(k->kind));
	put_counter(w, "seq", k->seq);
	put_instant(w, "start", k->start_ns);
	jsonw_key(w, "running");
	jsonw_bool(w, h->hook_running);
	jsonw_key(w, "duration");
	if (h->hook_running)
		jsonw_null(w);
	else
		jsonw_seconds(w, k->duration_ns);
	jsonw_key(w, "result");
	if (h->hook_running) {
		/* No end yet: no result, status nor signal. */
		jsonw_null(w);
		jsonw_key(w, "status");
		jsonw_null(w);
		jsonw_key(w, "signal");
		jsonw_null(w);
	} else {
		result_text(&r, result, sizeof result);
		jsonw_string(w, result);
		jobview_put_exit(w, &r);
	}
	jsonw_end_object(w);
}

static void put_tail(struct jsonw *w, const struct job *j)
{
	char tail[JOB_TAIL_MAX];
	size_t n;

	jsonw_key(w, "output_tail");
	if (!j->run.tag_output) {
		jsonw_null(w);
		return;
	}
	n = job_history_tail(j, tail);
	jsonw_text(w, tail, n);
}

/* The schedule as written: the command line's, kept; a jobs file line's,
 * read again from its text: a crontab line's fields or @nickname, a tfd
 * line's schedule options. NULL when memory ran out. */
static char *schedule_as_written(const struct job *j)
{
	static const struct job_options none = { 0 };
	struct job_options o = { 0 };
	struct jobs_file *f;
	char err[256], *text = NULL;
	const struct jobs_entry *e;

	if (j->schedule_text || !j->identity)
		return j->schedule_text ? strdup(j->schedule_text) : NULL;
	if (jobs_parse("", j->identity, strcspn(j->identity, "\n"), &f, err, sizeof err) != 0)
		return NULL;
	e = f->n == 1 ? &f->entries[0] : NULL;
	if (e && e->kind == JOBS_CRONTAB)
		text = strdup(e->schedule);
	else if (e && e->kind == JOBS_REBOOT)
		text = strdup("@reboot");
	else if (e && options_read_job_line(e->argv, &none, &o, err, sizeof err) == 0)
		text = job_schedule_words(&o);
	job_options_free(&o);
	jobs_free(f);
	return text;
}

/* --ping's or --notify's endpoint (shown without its secrets) and its
 * last answer, or null when the job has none. */
static void put_endpoint(struct jsonw *w, const char *key, const char *url,
			 const struct notify_last *last)
{
	char shown[256];

	jsonw_key(w, key);
	if (!url) {
		jsonw_null(w);
		return;
	}
	notify_url_shown(url, shown, sizeof shown);
	jsonw_object(w);
	jsonw_key(w, "url");
	jsonw_string(w, shown);
	put_instant(w, "last", last ? last->at_ns : 0);
	jsonw_key(w, "last_ok");
	if (last && last->at_ns)
		jsonw_bool(w, last->ok);
	else
		jsonw_null(w);
	jsonw_key(w, "last_result");
	jsonw_string(w, last && last->at_ns ? last->text : NULL);
	jsonw_end_object(w);
}

static void put_notify(struct jsonw *w, const struct job *j)
{
	const struct notify_seen *seen = j->state->notify_seen;

	put_endpoint(w, "ping", j->notify.ping, seen ? &seen->last[NOTIFY_PING] : NULL);
	put_endpoint(w, "notify", j->notify.notify, seen ? &seen->last[NOTIFY_HOOK] : NULL);
	jsonw_key(w, "notify_on");
	jsonw_string(w, !j->notify.notify ? NULL : j->notify.notify_always ? "always" : "failure");
}

/* The status of NAME; SECRETS: with what only the control socket shows
 * (jobview_status_public). */
static int put_status(struct jsonw *w, const struct loop *l, const char *name, bool secrets)
{
	char *schedule;
	const struct job *j = jobview_find(l, name);

	if (!j)
		return -1;
	jsonw_object(w);
	jsonw_key(w, "ok");
	jsonw_bool(w, true);
	jsonw_key(w, "job");
	jsonw_object(w);
	put_summary(w, l, j, clock_now_ns(CLOCK_REALTIME));
	jsonw_key(w, "schedule");
	schedule = schedule_as_written(j);
	jsonw_string(w, schedule);
	free(schedule);
	jsonw_key(w, "clock");
	jsonw_string(w, j->clock_name);
	if (secrets)
		put_command(w, j);
	put_policies(w, j);
	put_counters(w, j);
	put_next_elapses(w, j);
	put_runs(w, j);
	put_notify(w, j);
	if (secrets)
		put_hooks(w, j);
	put_last_hook(w, j);
	if (secrets)
		put_tail(w, j);
	jsonw_end_object(w);
	jsonw_end_object(w);
	return 0;
}

int jobview_status(struct jsonw *w, const struct loop *l, const char *name)
{
	return put_status(w, l, name, true);
}

int jobview_status_public(struct jsonw *w, const struct loop *l, const char *name)
{
	return put_status(w, l, name, false);
}
