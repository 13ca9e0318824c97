/* SPDX-License-Identifier: MIT */
/* control_cmds: what tfdctl asks through --control (list, status, run,
 * stop, pause, resume, reload), each answered through control.c's
 * framing, and the clients that wait: for a run's end (run --wait) or
 * for the fleet's database (a run's claim, a pause). */
#include "control.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "claims_control.h"
#include "control_state.h"
#include "jobdue.h"
#include "jobview.h"
#include "json.h"
#include "jsonw.h"
#include "loopstate.h"
#include "nearest.h"
#include "reload.h"
#include "report.h"
#include "runs.h"
#include "tick.h"
#include "timens.h"
#include "utf8.h"
#include "writers.h"

/* Commands */

struct request {
	struct json_doc d;
	char *command;
	char *job;
	size_t job_len;           /* a "\u0000" in it makes it longer than strlen */
};

static void control_event(struct loop *l, struct control_client *c, const char *command,
			  const char *job)
{
	events_control(&l->ev, command, job, (unsigned)c->uid);
}

static void answer_ok(struct control *ctl, struct control_client *c)
{
	control_answer_begin(ctl, true);
	jsonw_end_object(&ctl->answer);
	control_send_answer(ctl, c);
}

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
static void answer_unknown(struct loop *l, struct control_client *c, const char *name)
{
	struct nearest near;
	const char *best;

	nearest_begin(&near, name);
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->state->removed)
			nearest_offer(&near, l->jobs[i]->name);
	best = nearest_found(&near);
	if (best)
		control_answer_error(l->control, c, "unknown job '%s'; did you mean '%s'?", name,
				     best);
	else
		control_answer_error(l->control, c, "unknown job '%s'", name);
}

/* The job NAME (LEN bytes) names, else answered: NULL when NAME is none,
 * holds a NUL (no job's name does: "a\u0000b" must not reach "a"), or
 * names no job. */
static struct job *find_named(struct loop *l, struct control_client *c, const char *name,
			      size_t len)
{
	struct job *j = NULL;

	if (!name)
		control_answer_error(l->control, c, "this command needs \"job\"");
	else if (strlen(name) != len)
		control_answer_error(l->control, c, "a job's name holds no NUL (\\u0000)");
	else if (!(j = lookup(l, name, len)))
		answer_unknown(l, c, name);
	return j;
}

static struct job *find_job(struct loop *l, struct control_client *c, const struct request *rq)
{
	return find_named(l, c, rq->job, rq->job_len);
}

/* list: made a slice at a time (control_list_more), from now if the
 * turn's budget allows. */
static void cmd_list(struct loop *l, struct control_client *c)
{
	c->list = jobview_listing_new(l);
	if (!c->list) {
		jsonw_reset(&l->control->answer);
		l->control->answer.failed = true;
		control_send_answer(l->control, c);
		return;
	}
	control_list_more(l, l->control, c);
	if (c->fd >= 0)
		control_flush(l->control, c);
}

static void cmd_status(struct loop *l, struct control_client *c, const struct request *rq)
{
	const struct job *j = find_job(l, c, rq);

	if (!j)
		return;
	jsonw_reset(&l->control->answer);
	jobview_status(&l->control->answer, l, j->name);
	control_send_answer(l->control, c);
}

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
static void answer_started(struct control *ctl, struct control_client *c,
			   const struct job *j, uint64_t seq, enum tick_action a)
{
	control_answer_begin(ctl, true);
	jsonw_key(&ctl->answer, "job");
	jsonw_string(&ctl->answer, j->name);
	jsonw_key(&ctl->answer, "seq");
	jsonw_u64(&ctl->answer, seq);
	jsonw_key(&ctl->answer, "action");
	jsonw_string(&ctl->answer, tick_action_name(a));
	jsonw_end_object(&ctl->answer);
	control_send_answer(ctl, c);
}

static void answer_skipped(struct control *ctl, struct control_client *c)
{
	control_answer_begin(ctl, false);
	jsonw_key(&ctl->answer, "error");
	jsonw_string(&ctl->answer, "a run is still going and --overlap is skip");
	jsonw_key(&ctl->answer, "action");
	jsonw_string(&ctl->answer, "skip");
	jsonw_end_object(&ctl->answer);
	control_send_answer(ctl, c);
}

/* run under --fleet: claimed as an elapse is, its row's trigger 'manual';
 * the answer (or, with --wait, the run's end) comes with the claim's
 * (control_claimed), within CONTROL_TIMEOUT_NS. */
static void run_claimed(struct loop *l, struct control_client *c, struct job *j, bool wait)
{
	struct tick t;

	if (!claims_connected(l)) {
		control_answer_error(l->control, c, "the fleet's database is not connected: a "
				     "run now must be claimed");
		return;
	}
	control_event(l, c, "run", j->name);
	tick_manual(l, j, &t);
	c->waiting = true;
	c->claiming = true;
	c->wait_end = wait;
	c->wait_job = j;
	c->wait_seq = t.seq;
	c->deadline = control_later(CONTROL_TIMEOUT_NS);
	claims_hold(l, j, &t);
}

void control_claimed(struct loop *l, struct job *j, const struct tick *t)
{
	struct control *ctl = l->control;
	enum tick_action a = t->action;

	for (size_t i = 0; ctl && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->claiming || c->wait_job != j || c->wait_seq != t->seq)
			continue;
		c->claiming = false;
		if ((a == TICK_RUN || a == TICK_QUEUE) && c->wait_end) {
			c->deadline = INT64_MAX;   /* control_run_ended answers */
			return;
		}
		control_stop_waiting(c);
		if (a == TICK_RUN || a == TICK_QUEUE || a == TICK_KILL)
			answer_started(ctl, c, j, t->seq, a);
		else if (a == TICK_SKIP)
			answer_skipped(ctl, c);
		else if (a == TICK_ACTION_NONE)
			control_answer_error(ctl, c, "the run could not be started");
		else
			control_answer_error(ctl, c, "the fleet's claim of the run was %s: not "
					     "run here", tick_action_name(a));
		return;
	}
}

void control_fleet_done(struct loop *l, uint64_t token, const char *message)
{
	struct control *ctl = l->control;

	for (size_t i = 0; ctl && token && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->waiting || c->fleet_token != token)
			continue;
		control_stop_waiting(c);
		if (message)
			control_answer_error(ctl, c, "%s", message);
		else
			answer_ok(ctl, c);
		return;
	}
}

/* run, and run --wait: the client waits before the run starts, since a
 * start the kernel refuses ends the run at once (control_run_ended). */
static void cmd_run(struct loop *l, struct control_client *c, const struct request *rq)
{
	struct control *ctl = l->control;
	struct job *j = find_job(l, c, rq);
	bool wait = false;
	enum tick_action a;

	if (!j)
		return;
	json_bool(&rq->d, json_get(&rq->d, 0, "wait"), &wait);
	if (!j->state->runner) {
		control_answer_error(ctl, c, "job '%s' has no command to run", j->name);
		return;
	}
	if (l->st.phase != PHASE_RUNNING) {
		control_answer_error(ctl, c, "tfd is shutting down");
		return;
	}
	if (claims_decide(l, j)) {
		run_claimed(l, c, j, wait);
		return;
	}
	control_event(l, c, "run", j->name);
	if (wait) {
		c->waiting = true;
		c->wait_job = j;
		c->wait_seq = j->state->seq + 1;   /* the run's, once it has one */
		c->deadline = INT64_MAX;
	}
	a = tick_run_now(l, j);
	if (a == TICK_SKIP || a == TICK_ACTION_NONE) {
		control_stop_waiting(c);
		if (a == TICK_SKIP)
			answer_skipped(ctl, c);
		else
			control_answer_error(ctl, c, "the run could not be started");
	} else if (!wait) {
		answer_started(ctl, c, j, j->state->seq, a);
	}
}

static void answer_ended(struct control *ctl, struct control_client *c, const struct job *j,
			 const struct run_record *r)
{
	char name[16];

	control_answer_begin(ctl, true);
	jsonw_key(&ctl->answer, "job");
	jsonw_string(&ctl->answer, j->name);
	jsonw_key(&ctl->answer, "seq");
	jsonw_u64(&ctl->answer, r->seq);
	jsonw_key(&ctl->answer, "status");
	if (r->signal || r->start_failed)
		jsonw_null(&ctl->answer);
	else
		jsonw_i64(&ctl->answer, r->status);
	jsonw_key(&ctl->answer, "signal");
	jsonw_string(&ctl->answer, r->signal ? signal_name(r->signal, name, sizeof name) : NULL);
	jsonw_key(&ctl->answer, "timed_out");
	jsonw_bool(&ctl->answer, r->timed_out);
	jsonw_key(&ctl->answer, "duration");
	jsonw_seconds(&ctl->answer, r->duration_ns);
	jsonw_key(&ctl->answer, "exit");
	jsonw_i64(&ctl->answer, record_exit(r));
	jsonw_end_object(&ctl->answer);
	control_send_answer(ctl, c);
}

void control_run_ended(struct loop *l, struct job *j, const struct run_record *r, bool final)
{
	struct control *ctl = l->control;

	for (size_t i = 0; ctl && final && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->waiting || c->wait_job != j || c->wait_seq != r->seq)
			continue;
		/* Under --fleet also while its claim's answer is on its way
		 * (a start refused ends the run before): it is this answer. */
		control_stop_waiting(c);
		answer_ended(ctl, c, j, r);
		/* Requests that came while it waited are served when poll
		 * next hands the client over (control_serve), not here, in
		 * the middle of a run's end. */
		i = (size_t)-1;   /* C may be closed: look again */
	}
}

void control_job_gone(struct loop *l, struct job *j)
{
	struct control *ctl = l->control;

	for (size_t i = 0; ctl && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->waiting || c->wait_job != j)
			continue;
		control_stop_waiting(c);
		control_answer_error(ctl, c, "job '%s' left the table before its run ended",
				     j->name);
		i = (size_t)-1;
	}
}

/* A run --wait on queued run SEQ of J, which stop dropped: told so. */
static void answer_dropped(struct loop *l, struct job *j, uint64_t seq)
{
	struct control *ctl = l->control;

	for (size_t i = 0; i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->waiting || c->wait_job != j || c->wait_seq != seq)
			continue;
		control_stop_waiting(c);
		control_answer_error(ctl, c, "run %" PRIu64 " of '%s' was dropped from the queue "
				     "by tfdctl stop: it did not run", seq, j->name);
		i = (size_t)-1;   /* C may be closed: look again */
	}
}

/* stop: the runs going are ended (SIGTERM, SIGKILL after the grace), and
 * what would have run next is dropped: a queued run (its waiter told), a
 * failed try's retry (the run then ends failed: counted, printed, its
 * waiter answered). */
static void cmd_stop(struct loop *l, struct control_client *c, const struct request *rq)
{
	struct control *ctl = l->control;
	struct job *j = find_job(l, c, rq);
	struct runner_stopped st = { 0 };

	if (!j)
		return;
	control_event(l, c, "stop", j->name);
	if (j->state->runner)
		runner_stop(j->state->runner, clock_now_ns(CLOCK_MONOTONIC), &st);
	if (st.queued)
		answer_dropped(l, j, st.queued_seq);
	runs_retry_dropped(l, j, &st);
	jobdue_update(l, j);
	if (c->fd < 0)
		return;
	control_answer_begin(ctl, true);
	jsonw_key(&ctl->answer, "job");
	jsonw_string(&ctl->answer, j->name);
	jsonw_key(&ctl->answer, "stopped");
	jsonw_u64(&ctl->answer, st.signalled);
	jsonw_key(&ctl->answer, "queued_dropped");
	if (st.queued)
		jsonw_u64(&ctl->answer, st.queued_seq);
	else
		jsonw_null(&ctl->answer);
	jsonw_key(&ctl->answer, "retry_dropped");
	if (st.retry)
		jsonw_u64(&ctl->answer, st.last_try.seq);
	else
		jsonw_null(&ctl->answer);
	jsonw_end_object(&ctl->answer);
	control_send_answer(ctl, c);
}

static void set_paused(struct loop *l, struct job *j, bool paused)
{
	j->state->paused = paused;
	l->metrics_dirty = true;
}

/* The jobs the names of the array at JOBS name, into V (*N of them);
 * else false, the first name that is no job's answered. */
static bool names_known(struct loop *l, struct control_client *c, const struct json_doc *d,
			size_t jobs, struct job **v, size_t *n)
{
	for (size_t i = jobs + 1; i < d->v[jobs].next; i = d->v[i].next) {
		size_t len;
		char *name = json_string_n(d, i, &len);
		struct job *j = NULL;

		if (!name && d->v[i].type != JSON_STRING)
			control_answer_error(l->control, c, "\"jobs\" holds names (strings)");
		else if (!name)
			control_answer_error(l->control, c, "out of memory");
		else
			j = find_named(l, c, name, len);
		free(name);
		if (!j)
			return false;
		if (*n < l->njobs)
			v[(*n)++] = j;
	}
	return true;
}

/* The jobs that pause or resume names: "all": true (every job of the
 * table), "jobs": [names] or "job"; every name checked before any job
 * changes. NULL (answered) when one is unknown or none is named; *ALL
 * says "all". */
static struct job **pause_targets(struct loop *l, struct control_client *c,
				  const struct request *rq, const char *command, size_t *n,
				  bool *all)
{
	const struct json_doc *d = &rq->d;
	size_t jobs = json_get(d, 0, "jobs");
	bool listed = jobs && d->v[jobs].type == JSON_ARRAY && d->v[jobs].count > 0;
	struct job **v = calloc(l->njobs + 1, sizeof *v);
	struct job *j;

	*n = 0;
	*all = false;
	json_bool(d, json_get(d, 0, "all"), all);
	if (!v) {
		control_answer_error(l->control, c, "out of memory");
	} else if (*all) {
		for (size_t i = 0; i < l->njobs; i++)
			if (!l->jobs[i]->state->removed)
				v[(*n)++] = l->jobs[i];
		return v;
	} else if (!listed && rq->job) {
		if ((j = find_job(l, c, rq))) {
			v[(*n)++] = j;
			return v;
		}
	} else if (!listed) {
		control_answer_error(l->control, c, "%s needs \"jobs\" (names) or \"all\": true",
				     command);
	} else if (names_known(l, c, d, jobs, v, n)) {
		return v;
	}
	free(v);
	return NULL;
}

/* Under --fleet: the pause is the fleet's, written to tfd_paused; the
 * answer waits for the database (control_fleet_done), within
 * CONTROL_TIMEOUT_NS. An @reboot job, which each replica runs unclaimed,
 * is paused here only. */
static void pause_fleet(struct loop *l, struct control_client *c, struct job **v, size_t n,
			bool paused)
{
	struct control *ctl = l->control;
	size_t claimed = 0;

	if (!claims_connected(l)) {
		control_answer_error(ctl, c, "the fleet's database is not connected: a pause is "
				     "written to tfd_paused");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (claims_decide(l, v[i]))
			v[claimed++] = v[i];
		else
			set_paused(l, v[i], paused);
	if (claimed == 0) {
		answer_ok(ctl, c);
		return;
	}
	if (claims_pause(l, v, claimed, paused, (unsigned)c->uid, ++ctl->next_token) != 0) {
		control_answer_error(ctl, c, "out of memory");
		return;
	}
	c->waiting = true;
	c->wait_job = NULL;   /* a former run's: not this wait's */
	c->fleet_token = ctl->next_token;
	c->deadline = control_later(CONTROL_TIMEOUT_NS);
}

/* pause and resume: each change a "control" event ("all": one). */
static void cmd_pause(struct loop *l, struct control_client *c, const struct request *rq,
		      bool paused)
{
	const char *command = paused ? "pause" : "resume";
	size_t n;
	bool all;
	struct job **v = pause_targets(l, c, rq, command, &n, &all);

	if (!v)
		return;
	for (size_t i = 0; !all && i < n; i++)
		control_event(l, c, command, v[i]->name);
	if (all)
		control_event(l, c, command, NULL);
	if (l->claims) {
		pause_fleet(l, c, v, n, paused);
	} else {
		for (size_t i = 0; i < n; i++)
			set_paused(l, v[i], paused);
		answer_ok(l->control, c);
	}
	free(v);
}

/* reload: what SIGHUP does, answered once it is done. SIGHUP's reload
 * waits for the jobs files still being written (reload.h), so this one
 * waits too: the client is answered by control_reloaded, the next
 * reload's outcome (within the writers' wait and CONTROL_TIMEOUT_NS). */
static void cmd_reload(struct loop *l, struct control_client *c)
{
	struct control *ctl = l->control;

	if (l->st.phase != PHASE_RUNNING) {
		control_answer_error(ctl, c, "tfd is stopping: no reload now");
		return;
	}
	if (!l->cfg->jobs_path || !l->cfg->reload) {
		control_answer_error(ctl, c, "reload needs a tfd started with --jobs");
		return;
	}
	control_event(l, c, "reload", NULL);
	reload_request(l);
	c->waiting = true;
	c->reloading = true;
	c->wait_job = NULL;   /* a former run's: not this wait's */
	c->deadline = control_later(WRITERS_WAIT_NS + CONTROL_TIMEOUT_NS);
}

void control_reloaded(struct loop *l, const struct reload_counts *counts, const char *error)
{
	struct control *ctl = l->control;

	for (size_t i = 0; ctl && i < ctl->n; i++) {
		struct control_client *c = ctl->c[i];

		if (!c->reloading)
			continue;
		control_stop_waiting(c);
		if (error) {
			control_answer_error(ctl, c, "%s", error);
		} else {
			control_answer_begin(ctl, true);
			jsonw_key(&ctl->answer, "added");
			jsonw_u64(&ctl->answer, counts->added);
			jsonw_key(&ctl->answer, "removed");
			jsonw_u64(&ctl->answer, counts->removed);
			jsonw_key(&ctl->answer, "kept");
			jsonw_u64(&ctl->answer, counts->kept);
			jsonw_end_object(&ctl->answer);
			control_send_answer(ctl, c);
		}
		i = (size_t)-1;   /* C may be closed: look again */
	}
}

static void dispatch(struct loop *l, struct control_client *c, const struct request *rq)
{
	const char *cmd = rq->command;

	if (strcmp(cmd, "list") == 0)
		cmd_list(l, c);
	else if (strcmp(cmd, "status") == 0)
		cmd_status(l, c, rq);
	else if (strcmp(cmd, "run") == 0)
		cmd_run(l, c, rq);
	else if (strcmp(cmd, "stop") == 0)
		cmd_stop(l, c, rq);
	else if (strcmp(cmd, "pause") == 0)
		cmd_pause(l, c, rq, true);
	else if (strcmp(cmd, "resume") == 0)
		cmd_pause(l, c, rq, false);
	else if (strcmp(cmd, "reload") == 0)
		cmd_reload(l, c);
	else
		control_answer_error(l->control, c, "unknown command '%s'", cmd);
}

/* One request line (without its newline). */
void control_serve_request(struct loop *l, struct control_client *c, const char *line,
			   size_t len)
{
	struct request rq = { 0 };
	char err[256];
	size_t cmd;

	if (json_parse(&rq.d, line, len, err, sizeof err) != 0) {
		control_answer_error(l->control, c, "bad request: %s", err);
	} else if (rq.d.v[0].type != JSON_OBJECT ||
		   !(cmd = json_get(&rq.d, 0, "command")) ||
		   !(rq.command = json_string(&rq.d, cmd))) {
		control_answer_error(l->control, c,
				     "bad request: an object with \"command\" expected");
	} else {
		rq.job = json_string_n(&rq.d, json_get(&rq.d, 0, "job"), &rq.job_len);
		dispatch(l, c, &rq);
	}
	free(rq.command);
	free(rq.job);
	json_free(&rq.d);
}

