/* SPDX-License-Identifier: MIT */
/* control_cmds: what tfdctl asks through --control (control_cmds.h): the
 * table of commands, and the answers owed to clients until a list is
 * made, a run ends, a reload is done or the fleet answers. */
#include "control_cmds.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "claims_control.h"
#include "due.h"
#include "jobdue.h"
#include "jobview.h"
#include "json.h"
#include "jsonw.h"
#include "nearest.h"
#include "reload.h"
#include "report.h"
#include "runs.h"
#include "tick.h"
#include "timens.h"
#include "utf8.h"
#include "writers.h"

/* The answers owed */

enum owed_kind {
	OWED_LIST,   /* a list made in parts as the client reads (control_stream) */
	OWED_CLAIM,  /* --fleet: a run's claim, and then perhaps its end */
	OWED_RUN,    /* run --wait: the run's end */
	OWED_RELOAD, /* reload: its outcome */
	OWED_CHANGE, /* --fleet: a pause or resume written to the database */
};

/* An answer owed to a client, to be given later. A client is owed one at
 * a time (the socket serves its next request once this one is given),
 * and an entry goes with its client (control_cmds_closed): so the table
 * never holds more than the socket's CONTROL_CLIENTS. The commands keep
 * this table rather than a pointer in each of the socket's clients: what
 * gives an answer (a run's end, a reload, the fleet's token) looks for it
 * among the few owed, not among every client, and the socket's client
 * stays the socket's. */
struct owed {
	struct control_client *c;
	enum owed_kind kind;
	struct job *job;              /* CLAIM, RUN */
	uint64_t seq;                 /* CLAIM, RUN: the run's */
	bool then_end;                /* CLAIM: run --wait: its end follows the claim */
	uint64_t token;               /* CHANGE: the fleet's answer's */
	struct jobview_listing *list; /* LIST */
};

struct control_cmds {
	struct owed owed[CONTROL_CLIENTS];
	size_t n;
	uint64_t next_token; /* --fleet: the last pause's, for its answer */
};

struct control_cmds *control_cmds_new(void)
{
	return calloc(1, sizeof(struct control_cmds));
}

/* C is owed an answer of KIND (the entry, zeroed but for those two). */
static struct owed *owe(struct control_cmds *cm, struct control_client *c, enum owed_kind kind)
{
	struct owed *o = &cm->owed[cm->n++];

	*o = (struct owed){ .c = c, .kind = kind };
	return o;
}

/* Entry I, taken out of the table: the last fills its place. */
static struct owed take(struct control_cmds *cm, size_t i)
{
	struct owed o = cm->owed[i];

	cm->owed[i] = cm->owed[--cm->n];
	return o;
}

/* What C is owed, or NULL. */
static struct owed *owed_of(struct control_cmds *cm, const struct control_client *c)
{
	for (size_t i = 0; i < cm->n; i++)
		if (cm->owed[i].c == c)
			return &cm->owed[i];
	return NULL;
}

/* C is owed nothing more: its list, if any, is freed. */
static void forget(struct control_cmds *cm, const struct control_client *c)
{
	for (size_t i = 0; i < cm->n; i++)
		if (cm->owed[i].c == c) {
			jobview_listing_free(take(cm, i).list);
			return;
		}
}

void control_cmds_closed(void *arg, struct control_client *c)
{
	struct loop *l = arg;

	forget(l->commands, c);
}

/* The owed run answers O stands for: its run, or its claim. */
static bool owes_run(const struct owed *o)
{
	return o->kind == OWED_CLAIM || o->kind == OWED_RUN;
}

/* Requests */

struct request {
	struct json_doc d;
	char *command;
	char *job;
	size_t job_len; /* a "\u0000" in it makes it longer than strlen */
};

/* One request being served: the loop, the socket and the client, the
 * request, and its arguments as the command's row says it takes them. */
struct call {
	struct loop *l;
	struct control *ctl;
	struct control_client *c;
	const struct request *rq;
	const char *name;  /* the command's */
	struct job *j;     /* TAKES_JOB: the job named */
	struct job **jobs; /* TAKES_JOBS: the jobs named */
	size_t njobs;
	bool all;  /* TAKES_JOBS: "all": true */
	bool wait; /* TAKES_WAIT: "wait": true */
};

static void control_event(const struct call *x, const char *job)
{
	events_control(&x->l->ev, x->name, job, (unsigned)control_client_uid(x->c));
}

static void answer_ok(struct control *ctl, struct control_client *c)
{
	jsonw_end_object(control_answer_begin(ctl, true));
	control_send_answer(ctl, c);
}

/* Jobs by name */

/* The job named NAME (LEN bytes): its name exactly, or for a name that
 * is not UTF-8, which a JSON request can only carry as it was shown (each
 * invalid part U+FFFD), the one job shown so. NULL when none is, or when
 * that shown name is several jobs'. */
static struct job *lookup(const struct loop *l, const char *name, size_t len)
{
	struct job *j = jobview_find(l, name), *shown = NULL;

	if (j || !memmem(name, len, UTF8_REPLACEMENT, sizeof UTF8_REPLACEMENT - 1))
		return j;
	for (size_t i = 0; i < l->njobs; i++) {
		j = l->jobs[i];
		if (j->state->removed || !utf8_shown_as(j->name, strlen(j->name), name, len))
			continue;
		if (shown)
			return NULL;
		shown = j;
	}
	return shown;
}

/* An unknown job, answered with the nearest name of the table when one
 * is near ("did you mean"). */
static void answer_unknown(const struct call *x, const char *name)
{
	const struct loop *l = x->l;
	struct nearest near;
	const char *best;

	nearest_begin(&near, name);
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->state->removed)
			nearest_offer(&near, l->jobs[i]->name);
	best = nearest_found(&near);
	if (best)
		control_answer_error(x->ctl, x->c, "unknown job '%s'; did you mean '%s'?", name,
				     best);
	else
		control_answer_error(x->ctl, x->c, "unknown job '%s'", name);
}

/* The job NAME (LEN bytes) names, else answered: NULL when NAME is none,
 * holds a NUL (no job's name does: "a\u0000b" must not reach "a"), or
 * names no job. */
static struct job *find_named(const struct call *x, const char *name, size_t len)
{
	struct job *j = NULL;

	if (!name)
		control_answer_error(x->ctl, x->c, "this command needs \"job\"");
	else if (strlen(name) != len)
		control_answer_error(x->ctl, x->c, "a job's name holds no NUL (\\u0000)");
	else if (!(j = lookup(x->l, name, len)))
		answer_unknown(x, name);
	return j;
}

/* The jobs the names of the array at JOBS name, into V (*N of them);
 * else false, the first name that is no job's answered. */
static bool names_known(const struct call *x, size_t jobs, struct job **v, size_t *n)
{
	const struct json_doc *d = &x->rq->d;

	for (size_t i = jobs + 1; i < d->v[jobs].next; i = d->v[i].next) {
		size_t len;
		char *name = json_string_n(d, i, &len);
		struct job *j = NULL;

		if (!name && d->v[i].type != JSON_STRING)
			control_answer_error(x->ctl, x->c, "\"jobs\" holds names (strings)");
		else if (!name)
			control_answer_error(x->ctl, x->c, "out of memory");
		else
			j = find_named(x, name, len);
		free(name);
		if (!j)
			return false;
		if (*n < x->l->njobs)
			v[(*n)++] = j;
	}
	return true;
}

/* The jobs a request names: "all": true (every job of the table),
 * "jobs": [names] or "job"; every name checked before any job changes.
 * Into X's jobs; false (answered) when one is unknown or none is named. */
static bool find_jobs(struct call *x)
{
	const struct loop *l = x->l;
	const struct json_doc *d = &x->rq->d;
	size_t jobs = json_get(d, 0, "jobs");
	bool listed = jobs && d->v[jobs].type == JSON_ARRAY && d->v[jobs].count > 0;
	struct job **v = calloc(l->njobs + 1, sizeof *v);
	size_t n = 0;

	json_bool(d, json_get(d, 0, "all"), &x->all);
	if (!v) {
		control_answer_error(x->ctl, x->c, "out of memory");
		return false;
	}
	if (x->all) {
		for (size_t i = 0; i < l->njobs; i++)
			if (!l->jobs[i]->state->removed)
				v[n++] = l->jobs[i];
	} else if (!listed && x->rq->job) {
		if ((v[0] = find_named(x, x->rq->job, x->rq->job_len)))
			n = 1;
	} else if (!listed) {
		control_answer_error(x->ctl, x->c, "%s needs \"jobs\" (names) or \"all\": true",
				     x->name);
	} else if (!names_known(x, jobs, v, &n)) {
		n = 0;
	}
	if (n == 0 && !x->all) {
		free(v);
		return false;
	}
	x->jobs = v;
	x->njobs = n;
	return true;
}

/* list */

/* list: made a part at a time as the client reads (control_cmds_more),
 * from now if the turn's budget allows. */
static void cmd_list(const struct call *x)
{
	struct jobview_listing *ls = jobview_listing_new(x->l);

	if (!ls) {
		control_answer_error(x->ctl, x->c, "out of memory");
		return;
	}
	owe(x->l->commands, x->c, OWED_LIST)->list = ls;
	control_stream(x->ctl, x->c);
}

void control_cmds_more(void *arg, struct control_client *c)
{
	struct loop *l = arg;
	struct owed *o = owed_of(l->commands, c);
	const char *text;
	size_t len;
	int rc;

	if (!o || o->kind != OWED_LIST)
		return;
	rc = jobview_listing_part(o->list, &l->control_slices, SLICE_PART_BYTES, &text, &len);
	if (rc < 0) {
		control_drop(l->control, c);
		return;
	}
	/* TEXT is the listing's until it is freed, after. */
	control_stream_part(l->control, c, text, len, rc == 1);
	if (rc == 1)
		forget(l->commands, c);
}

/* status */

static void cmd_status(const struct call *x)
{
	jobview_status(control_answer(x->ctl), x->l, x->j->name);
	control_send_answer(x->ctl, x->c);
}

/* run */

/* The exit status tfdctl run --wait gives for R: the run's own. */
static int record_exit(const struct run_record *r)
{
	if (r->start_failed)
		return 1;
	if (r->signal)
		return 128 + r->signal;
	return r->status;
}

/* The answer of a run that started (or was queued), and of one refused
 * by --overlap skip. */
static void answer_started(struct control *ctl, struct control_client *c, const struct job *j,
			   uint64_t seq, enum tick_action a)
{
	struct jsonw *w = control_answer_begin(ctl, true);

	jsonw_key(w, "job");
	jsonw_string(w, j->name);
	jsonw_key(w, "seq");
	jsonw_u64(w, seq);
	jsonw_key(w, "action");
	jsonw_string(w, tick_action_name(a));
	jsonw_end_object(w);
	control_send_answer(ctl, c);
}

static void answer_skipped(struct control *ctl, struct control_client *c)
{
	struct jsonw *w = control_answer_begin(ctl, false);

	jsonw_key(w, "error");
	jsonw_string(w, "a run is still going and --overlap is skip");
	jsonw_key(w, "action");
	jsonw_string(w, "skip");
	jsonw_end_object(w);
	control_send_answer(ctl, c);
}

/* A run acted on now or once claimed: A's answer (a run's end comes by
 * control_cmds_run_ended instead). */
static void answer_acted(struct control *ctl, struct control_client *c, const struct job *j,
			 uint64_t seq, enum tick_action a)
{
	if (a == TICK_RUN || a == TICK_QUEUE || a == TICK_KILL)
		answer_started(ctl, c, j, seq, a);
	else if (a == TICK_SKIP)
		answer_skipped(ctl, c);
	else if (a == TICK_ACTION_NONE)
		control_answer_error(ctl, c, "the run could not be started");
	else
		control_answer_error(ctl, c, "the fleet's claim of the run was %s: not run here",
				     tick_action_name(a));
}

/* Why due.c refused a manual run (V), answered; false when it did not. */
static bool refused(const struct call *x, enum due_manual v)
{
	if (v == DUE_MANUAL_NO_COMMAND)
		control_answer_error(x->ctl, x->c, "job '%s' has no command to run", x->j->name);
	else if (v == DUE_MANUAL_STOPPING)
		control_answer_error(x->ctl, x->c, "tfd is shutting down");
	else if (v == DUE_MANUAL_NO_DATABASE)
		control_answer_error(x->ctl, x->c,
				     "the fleet's database is not connected: a "
				     "run now must be claimed");
	else
		return false;
	return true;
}

/* run, and run --wait: the manual run enters as an elapse does (due.c).
 * Its answer is owed before it acts, since a start the kernel refuses
 * ends the run at once (control_cmds_run_ended). Under --fleet it is
 * claimed as an elapse is, its row's trigger 'manual': the answer (or,
 * with --wait, the run's end) comes with the claim's
 * (control_cmds_claimed), within CONTROL_TIMEOUT_NS. */
static void cmd_run(const struct call *x)
{
	struct control_cmds *cm = x->l->commands;
	struct tick t = { 0 };
	enum due_manual v = due_manual(x->l, x->j, &t);
	struct owed *o = NULL;

	if (refused(x, v))
		return;
	control_event(x, x->j->name);
	if (v == DUE_MANUAL_CLAIM) {
		o = owe(cm, x->c, OWED_CLAIM);
		o->then_end = x->wait;
		control_hold(x->ctl, x->c, CONTROL_TIMEOUT_NS);
	} else if (x->wait) {
		o = owe(cm, x->c, OWED_RUN);
		control_hold(x->ctl, x->c, INT64_MAX);
	}
	if (o) {
		o->job = x->j;
		o->seq = t.seq;
	}
	due_manual_act(x->l, x->j, &t);
	if (v == DUE_MANUAL_CLAIM)
		return;
	if (t.action == TICK_SKIP || t.action == TICK_ACTION_NONE) {
		forget(cm, x->c);
		answer_acted(x->ctl, x->c, x->j, t.seq, t.action);
	} else if (!x->wait) {
		answer_started(x->ctl, x->c, x->j, t.seq, t.action);
	}
}

void control_cmds_claimed(struct loop *l, struct job *j, const struct tick *t)
{
	struct control_cmds *cm = l->commands;
	enum tick_action a = t->action;

	for (size_t i = 0; cm && i < cm->n; i++) {
		struct owed *o = &cm->owed[i];

		if (o->kind != OWED_CLAIM || o->job != j || o->seq != t->seq)
			continue;
		if ((a == TICK_RUN || a == TICK_QUEUE) && o->then_end) {
			o->kind = OWED_RUN; /* control_cmds_run_ended answers */
			control_hold(l->control, o->c, INT64_MAX);
			return;
		}
		answer_acted(l->control, take(cm, i).c, j, t->seq, a);
		return;
	}
}

static void answer_ended(struct control *ctl, struct control_client *c, const struct job *j,
			 const struct run_record *r)
{
	struct jsonw *w = control_answer_begin(ctl, true);

	jsonw_key(w, "job");
	jsonw_string(w, j->name);
	jsonw_key(w, "seq");
	jsonw_u64(w, r->seq);
	jobview_put_exit(w, r);
	jsonw_key(w, "timed_out");
	jsonw_bool(w, r->timed_out);
	jsonw_key(w, "duration");
	jsonw_seconds(w, r->duration_ns);
	jsonw_key(w, "exit");
	jsonw_i64(w, record_exit(r));
	jsonw_end_object(w);
	control_send_answer(ctl, c);
}

void control_cmds_run_ended(struct loop *l, struct job *j, const struct run_record *r, bool final)
{
	struct control_cmds *cm = l->commands;

	for (size_t i = 0; cm && final && i < cm->n;) {
		struct owed *o = &cm->owed[i];

		/* Under --fleet also while its claim's answer is on its way
		 * (a start refused ends the run before): it is this answer. */
		if (!owes_run(o) || o->job != j || o->seq != r->seq) {
			i++;
			continue;
		}
		/* Requests that came while it waited are served when poll
		 * next hands the client over, not here, in the middle of a
		 * run's end. */
		answer_ended(l->control, take(cm, i).c, j, r);
	}
}

void control_cmds_job_gone(struct loop *l, struct job *j)
{
	struct control_cmds *cm = l->commands;

	for (size_t i = 0; cm && i < cm->n;) {
		if (!owes_run(&cm->owed[i]) || cm->owed[i].job != j) {
			i++;
			continue;
		}
		control_answer_error(l->control, take(cm, i).c,
				     "job '%s' left the table before its run ended", j->name);
	}
}

/* stop */

/* A run --wait on queued run SEQ of J, which stop dropped: told so. */
static void answer_dropped(struct loop *l, struct job *j, uint64_t seq)
{
	struct control_cmds *cm = l->commands;

	for (size_t i = 0; i < cm->n;) {
		const struct owed *o = &cm->owed[i];

		if (!owes_run(o) || o->job != j || o->seq != seq) {
			i++;
			continue;
		}
		control_answer_error(l->control, take(cm, i).c,
				     "run %" PRIu64 " of '%s' was "
				     "dropped from the queue by tfdctl stop: it did not run",
				     seq, j->name);
	}
}

/* stop: the runs going are ended (SIGTERM, SIGKILL after the grace), and
 * what would have run next is dropped: a queued run (its waiter told), a
 * failed try's retry (the run then ends failed: counted, printed, its
 * waiter answered). */
static void cmd_stop(const struct call *x)
{
	struct job *j = x->j;
	struct runner_stopped st = { 0 };
	struct jsonw *w;

	control_event(x, j->name);
	if (j->state->runner)
		runner_stop(j->state->runner, clock_now_ns(CLOCK_MONOTONIC), &st);
	if (st.queued)
		answer_dropped(x->l, j, st.queued_seq);
	runs_retry_dropped(x->l, j, &st);
	jobdue_update(x->l, j);
	w = control_answer_begin(x->ctl, true);
	jsonw_key(w, "job");
	jsonw_string(w, j->name);
	jsonw_key(w, "stopped");
	jsonw_u64(w, st.signalled);
	jsonw_key(w, "queued_dropped");
	if (st.queued)
		jsonw_u64(w, st.queued_seq);
	else
		jsonw_null(w);
	jsonw_key(w, "retry_dropped");
	if (st.retry)
		jsonw_u64(w, st.last_try.seq);
	else
		jsonw_null(w);
	jsonw_end_object(w);
	control_send_answer(x->ctl, x->c);
}

/* pause and resume */

static void set_paused(struct loop *l, struct job *j, bool paused)
{
	j->state->paused = paused;
	l->metrics_dirty = true;
}

/* Under --fleet: the pause is the fleet's, written to tfd_paused; the
 * answer waits for the database (control_cmds_fleet_done), within
 * CONTROL_TIMEOUT_NS. An @reboot job, which each replica runs unclaimed,
 * is paused here only. */
static void pause_fleet(const struct call *x, bool paused)
{
	struct loop *l = x->l;
	struct control_cmds *cm = l->commands;
	struct job **v = x->jobs;
	size_t claimed = 0;

	if (!claims_connected(l)) {
		control_answer_error(x->ctl, x->c,
				     "the fleet's database is not connected: a "
				     "pause is written to tfd_paused");
		return;
	}
	for (size_t i = 0; i < x->njobs; i++)
		if (claims_decide(l, v[i]))
			v[claimed++] = v[i];
		else
			set_paused(l, v[i], paused);
	if (claimed == 0) {
		answer_ok(x->ctl, x->c);
		return;
	}
	if (claims_pause(l, v, claimed, paused, (unsigned)control_client_uid(x->c),
			 ++cm->next_token) != 0) {
		control_answer_error(x->ctl, x->c, "out of memory");
		return;
	}
	owe(cm, x->c, OWED_CHANGE)->token = cm->next_token;
	control_hold(x->ctl, x->c, CONTROL_TIMEOUT_NS);
}

/* pause and resume: each change a "control" event ("all": one). */
static void pause_jobs(const struct call *x, bool paused)
{
	for (size_t i = 0; !x->all && i < x->njobs; i++)
		control_event(x, x->jobs[i]->name);
	if (x->all)
		control_event(x, NULL);
	if (x->l->claims) {
		pause_fleet(x, paused);
		return;
	}
	for (size_t i = 0; i < x->njobs; i++)
		set_paused(x->l, x->jobs[i], paused);
	answer_ok(x->ctl, x->c);
}

static void cmd_pause(const struct call *x)
{
	pause_jobs(x, true);
}

static void cmd_resume(const struct call *x)
{
	pause_jobs(x, false);
}

void control_cmds_fleet_done(struct loop *l, uint64_t token, const char *message)
{
	struct control_cmds *cm = l->commands;

	for (size_t i = 0; cm && token && i < cm->n; i++) {
		struct control_client *c = cm->owed[i].c;

		if (cm->owed[i].kind != OWED_CHANGE || cm->owed[i].token != token)
			continue;
		take(cm, i);
		if (message)
			control_answer_error(l->control, c, "%s", message);
		else
			answer_ok(l->control, c);
		return;
	}
}

/* reload */

/* reload: what SIGHUP does, answered once it is done. SIGHUP's reload
 * waits for the jobs files still being written (reload.h), so this one
 * waits too: the client is answered by control_cmds_reloaded, the next
 * reload's outcome (within the writers' wait and CONTROL_TIMEOUT_NS). */
static void cmd_reload(const struct call *x)
{
	struct loop *l = x->l;

	if (l->st.phase != PHASE_RUNNING) {
		control_answer_error(x->ctl, x->c, "tfd is stopping: no reload now");
		return;
	}
	if (!l->cfg->jobs_path || !l->cfg->reload) {
		control_answer_error(x->ctl, x->c, "reload needs a tfd started with --jobs");
		return;
	}
	control_event(x, NULL);
	reload_request(l);
	owe(l->commands, x->c, OWED_RELOAD);
	control_hold(x->ctl, x->c, WRITERS_WAIT_NS + CONTROL_TIMEOUT_NS);
}

static void answer_reloaded(struct control *ctl, struct control_client *c,
			    const struct reload_counts *counts)
{
	struct jsonw *w = control_answer_begin(ctl, true);

	jsonw_key(w, "added");
	jsonw_u64(w, counts->added);
	jsonw_key(w, "removed");
	jsonw_u64(w, counts->removed);
	jsonw_key(w, "kept");
	jsonw_u64(w, counts->kept);
	jsonw_end_object(w);
	control_send_answer(ctl, c);
}

void control_cmds_reloaded(struct loop *l, const struct reload_counts *counts, const char *error)
{
	struct control_cmds *cm = l->commands;

	for (size_t i = 0; cm && i < cm->n;) {
		struct control_client *c;

		if (cm->owed[i].kind != OWED_RELOAD) {
			i++;
			continue;
		}
		c = take(cm, i).c;
		if (error)
			control_answer_error(l->control, c, "%s", error);
		else
			answer_reloaded(l->control, c, counts);
	}
}

/* Answers that did not come */

/* Why O's answer did not come within its span (the socket's expired
 * hook): a reload that did not come, or the fleet's database that did
 * not answer. */
static void answer_expired(const struct loop *l, const struct owed *o)
{
	if (o->kind == OWED_RELOAD)
		control_answer_error(l->control, o->c, "%s",
				     l->st.phase == PHASE_RUNNING
					     ? "the reload did not come in time"
					     : "tfd is stopping: the reload was not done");
	else
		/* The client is not left without an answer. */
		control_answer_error(l->control, o->c,
				     "the fleet's database did not answer "
				     "within %d s: %s is sent when it answers",
				     (int)(CONTROL_TIMEOUT_NS / 1000000000),
				     o->kind == OWED_CLAIM ? "the run's claim" : "the change");
}

void control_cmds_expired(void *arg, struct control_client *c)
{
	struct loop *l = arg;
	struct control_cmds *cm = l->commands;

	for (size_t i = 0; i < cm->n; i++)
		if (cm->owed[i].c == c) {
			struct owed o = take(cm, i);

			answer_expired(l, &o);
			return;
		}
}

void control_cmds_free(struct loop *l)
{
	struct control_cmds *cm = l->commands;

	while (cm && cm->n > 0) {
		struct owed o = take(cm, cm->n - 1);

		if (o.kind == OWED_RELOAD)
			control_answer_error(l->control, o.c,
					     "tfd is stopping: the reload was not "
					     "done");
		else if (o.kind != OWED_LIST)
			control_answer_error(l->control, o.c, "tfd exited before the run ended");
		jobview_listing_free(o.list);
	}
	free(cm);
	l->commands = NULL;
}

/* The table of commands */

/* What a command takes besides "command", found before it runs (each
 * missing or unknown name answered, and the command not run). */
enum {
	TAKES_JOB = 1,  /* "job": one job of the table */
	TAKES_JOBS = 2, /* "jobs": [names], "all": true, or "job" */
	TAKES_WAIT = 4, /* "wait": true or false */
};

static const struct command {
	const char *name;
	unsigned takes;
	void (*serve)(const struct call *x);
} commands[] = {
	{ "list", 0, cmd_list },
	{ "status", TAKES_JOB, cmd_status },
	{ "run", TAKES_JOB | TAKES_WAIT, cmd_run },
	{ "stop", TAKES_JOB, cmd_stop },
	{ "pause", TAKES_JOBS, cmd_pause },
	{ "resume", TAKES_JOBS, cmd_resume },
	{ "reload", 0, cmd_reload },
};

static const struct command *command_named(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* X's command, its arguments found first. */
static void dispatch(struct call *x)
{
	const struct command *cmd = command_named(x->rq->command);

	if (!cmd) {
		control_answer_error(x->ctl, x->c, "unknown command '%s'", x->rq->command);
		return;
	}
	x->name = cmd->name;
	if ((cmd->takes & TAKES_JOB) && !(x->j = find_named(x, x->rq->job, x->rq->job_len)))
		return;
	if ((cmd->takes & TAKES_JOBS) && !find_jobs(x))
		return;
	if (cmd->takes & TAKES_WAIT)
		json_bool(&x->rq->d, json_get(&x->rq->d, 0, "wait"), &x->wait);
	cmd->serve(x);
	free(x->jobs);
}

void control_cmds_request(void *arg, struct control_client *c, const char *line, size_t len)
{
	struct loop *l = arg;
	struct request rq = { 0 };
	struct call x = { .l = l, .ctl = l->control, .c = c, .rq = &rq };
	char err[256];
	size_t cmd;

	if (json_parse(&rq.d, line, len, err, sizeof err) != 0) {
		control_answer_error(l->control, c, "bad request: %s", err);
	} else if (rq.d.v[0].type != JSON_OBJECT || !(cmd = json_get(&rq.d, 0, "command")) ||
		   !(rq.command = json_string(&rq.d, cmd))) {
		control_answer_error(l->control, c,
				     "bad request: an object with \"command\" expected");
	} else {
		rq.job = json_string_n(&rq.d, json_get(&rq.d, 0, "job"), &rq.job_len);
		dispatch(&x);
	}
	free(rq.command);
	free(rq.job);
	json_free(&rq.d);
}
