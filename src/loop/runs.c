/* SPDX-License-Identifier: MIT */
#include "runs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "buf.h"
#include "jobdue.h"
#include "notify.h"
#include "pidmap.h"
#include "timens.h"

/* The runs' state, the loop's own: which pid is whose run, who holds the
 * terminal, the jobs whose runs left process groups behind. */
struct runs {
	struct pidmap pids;
	int tty_fd;           /* the terminal when tfd has it, or -1 */
	pid_t tty_owner;      /* the run holding the terminal, or 0 */
	struct job **grouped; /* jobs whose runs left groups (runner_has_groups) */
	size_t ngrouped, grouped_cap;
	runs_record_fn on_record; /* a run's record: tfdctl's waiters */
	runs_end_fn on_end;       /* a run's end: the fleet */
	void *arg;
};

static int run_status(const struct run_end *e)
{
	return e->signal ? 128 + e->signal : e->status;
}

struct runs *runs_new(runs_record_fn on_record, runs_end_fn on_end, void *arg)
{
	struct runs *rs = calloc(1, sizeof *rs);

	if (!rs)
		return NULL;
	pidmap_init(&rs->pids);
	rs->tty_fd = -1;
	rs->on_record = on_record;
	rs->on_end = on_end;
	rs->arg = arg;
	return rs;
}

void runs_free(struct runs *rs)
{
	if (!rs)
		return;
	if (rs->tty_fd >= 0)
		close(rs->tty_fd);
	pidmap_free(&rs->pids);
	free(rs->grouped);
	free(rs);
}

int runs_tty_fd(const struct loop *l)
{
	return l->runs->tty_fd;
}

void runs_find_terminal(struct loop *l)
{
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp())
		l->runs->tty_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
}

void runs_take_terminal(struct loop *l)
{
	struct runs *rs = l->runs;

	if (rs->tty_fd >= 0 && rs->tty_owner) {
		tcsetpgrp(rs->tty_fd, getpgrp());
		rs->tty_owner = 0;
	}
}

/* --ping and --notify (notify.h) */

/* What became of a request of J's (NULL: J is gone): its last answer,
 * for tfdctl status, and the counters. */
static void notify_result(void *arg, void *tag, enum notify_kind kind, enum notify_outcome outcome,
			  const char *text)
{
	struct loop *l = arg;
	struct job *j = tag;
	struct notify_last *last;

	if (!j)
		return;
	/* An answered request changes no metric: no --metrics write for it. */
	if (outcome == NOTIFY_FAILED)
		j->state->metrics.notify_failures[kind]++;
	else if (outcome == NOTIFY_DROPPED)
		j->state->metrics.notify_dropped[kind]++;
	if (outcome != NOTIFY_SENT)
		l->metrics_dirty = true;
	if (!j->state->notify_seen &&
	    !(j->state->notify_seen = calloc(1, sizeof *j->state->notify_seen)))
		return;
	last = &j->state->notify_seen->last[kind];
	last->at_ns = clock_now_ns(CLOCK_REALTIME);
	last->ok = outcome == NOTIFY_SENT;
	snprintf(last->text, sizeof last->text, "%s", text);
}

/* The loop's requests, set up when the first is sent (libcurl loaded
 * then, and not before); NULL when libcurl could not be loaded, which is
 * said once. */
static struct notify *notifier(struct loop *l)
{
	char err[512], message[600];

	if (l->notify || l->notify_failed)
		return l->notify;
	l->notify = notify_new(&l->ev, notify_result, l, err, sizeof err);
	if (!l->notify) {
		l->notify_failed = true;
		snprintf(message, sizeof message, "%s: nothing is pinged or notified", err);
		events_error(&l->ev, NULL, "dlopen", message);
	}
	return l->notify;
}

/* One request of J's to URL; a failure to queue it (no memory) is the
 * loop's. */
static void notify_queue(struct loop *l, struct job *j, struct notify_request *r, const char *url)
{
	char shown[256];

	notify_url_shown(url, shown, sizeof shown);
	r->url = url;
	r->shown = shown;
	r->job = j->name;
	r->tag = j;
	if (notify_send(l->notify, r) != 0)
		status_fail_oom(&l->st, &l->ev);
}

/* healthchecks.io's ping to J's --ping URL + SUFFIX for run SEQ. */
static void ping(struct loop *l, struct job *j, uint64_t seq, const char *suffix,
		 struct notify_request *r)
{
	char rid[NOTIFY_RID_LEN], *url;

	if (!notifier(l))
		return;
	notify_rid(l->notify, j->name, seq, rid);
	url = notify_ping_url(j->notify.ping, suffix, rid);
	if (!url) {
		status_fail_oom(&l->st, &l->ev);
		return;
	}
	r->kind = NOTIFY_PING;
	notify_queue(l, j, r, url);
	free(url);
}

/* A run whose last try never started has failed: healthchecks.io hears
 * so (an earlier try may have sent its /start). */
static void ping_never_started(struct loop *l, struct job *j, uint64_t seq)
{
	if (j->notify.ping)
		ping(l, j, seq, "fail", &(struct notify_request){ 0 });
}

static void ping_start(struct loop *l, struct job *j, uint64_t seq)
{
	if (j->notify.ping)
		ping(l, j, seq, "start", &(struct notify_request){ 0 });
}

/* A buffer for --notify's JSON of STRINGS bytes of text, and its
 * context (stamped now) into *CX; NULL when memory ran out (the loop's
 * failure). */
static char *notify_body(struct loop *l, struct json_context *cx, size_t strings, size_t *cap)
{
	char *body;

	*cx = l->ev.jsonctx;
	cx->time_ns = clock_now_ns(CLOCK_REALTIME);
	*cap = report_line_max(cx, NULL, strings);
	if (!(body = malloc(*cap)))
		status_fail_oom(&l->st, &l->ev);
	return body;
}

/* --notify's POST of J's event BODY (LEN bytes with its newline, which
 * is not sent); BODY is freed. */
static void notify_post(struct loop *l, struct job *j, char *body, size_t len)
{
	notify_queue(l, j,
		     &(struct notify_request){ .kind = NOTIFY_HOOK,
					       .body = body,
					       .body_len = len - 1,
					       .content_type = "application/json" },
		     j->notify.notify);
	free(body);
}

/* A run's end, its last try's: healthchecks.io's success, /fail or
 * /STATUS, with the output's tail when tfd reads it; and --notify's
 * "exit" event. */
static void notify_run_end(struct loop *l, struct job *j, const struct run_end *e)
{
	bool failed = run_end_unsuccessful(e);

	if (j->notify.ping) {
		char tail[JOB_TAIL_MAX], status[16];
		struct notify_request r = { 0 };

		if (j->run.tag_output || j->mail) {
			r.body = tail;
			r.body_len = job_history_tail(j, tail);
			r.content_type = "text/plain; charset=utf-8";
		}
		snprintf(status, sizeof status, "%d", e->status);
		ping(l, j, e->seq,
		     !failed                     ? NULL
		     : e->signal || e->timed_out ? "fail"
						 : status,
		     &r);
	}
	if (j->notify.notify && (failed || j->notify.notify_always) && notifier(l)) {
		struct json_context cx;
		size_t cap;
		char *body = notify_body(l, &cx,
					 strlen(e->job ? e->job : "") +
						 strlen(e->not_started ? e->not_started : ""),
					 &cap);

		if (body)
			notify_post(l, j, body, json_exit(&cx, body, cap, e));
	}
}

/* A run of J's at SCHEDULED_NS that replica HELD_BY held and died with,
 * which this replica marked abandoned (--fleet): a failure, told as one.
 * Its run id is a new one (the dead replica's is not known), of a number
 * no run of this replica's has: the instant with the top bit set. */
void runs_abandoned_elsewhere(struct loop *l, struct job *j, int64_t scheduled_ns,
			      const char *held_by)
{
	if (j->notify.ping)
		ping(l, j, (uint64_t)scheduled_ns | UINT64_C(1) << 63, "fail",
		     &(struct notify_request){ 0 });
	if (j->notify.notify && notifier(l)) {
		struct json_context cx;
		size_t cap;
		char *body = notify_body(l, &cx, strlen(j->name) + strlen(held_by), &cap);

		if (body)
			notify_post(l, j, body,
				    json_abandoned(&cx, body, cap, j->name, scheduled_ns, held_by));
	}
}

static void run_started(struct loop *l, struct job *j, const struct run_started *s)
{
	struct runs *rs = l->runs;

	if (pidmap_put(&rs->pids, s->pid, j) != 0)
		status_fail_oom(&l->st, &l->ev);
	/* Another user's run has a session of its own, not the terminal. */
	if (rs->tty_fd >= 0 && !j->target.session)
		rs->tty_owner = s->pid;
	events_run_start(&l->ev, j->name, s->seq, s->pid, j->user.spec ? j->user.name : NULL);
	j->state->metrics.last_start_ns = clock_now_ns(CLOCK_REALTIME);
	job_history_tail_reset(j);
	l->metrics_dirty = true;
	ping_start(l, j, s->seq);
	if (s->out_fd >= 0 && readers_add_run(&l->readers, j, j->name, s->pid, s->seq,
					      j->mail != NULL, s->out_fd, s->err_fd) != 0)
		status_fail_oom(&l->st, &l->ev);
}

void runs_output_collected(void *arg, struct job *j, const char *name, uint64_t seq,
			   struct mail_body *body)
{
	struct loop *l = arg;
	/* Sent as cron sends it: as the runs' user, with their environment. */
	struct mail_sender as = { &j->target, j->envp };

	mailer_send(&l->mailer, j->mail, &as, name, seq, body, &l->ev,
		    clock_now_ns(CLOCK_MONOTONIC));
}

void runs_output_bytes(void *arg, struct job *j, const char *buf, size_t n)
{
	(void)arg;
	job_history_tail_add(j, buf, n);
}

/* A start the kernel refused is a run of the history, and of --wait. */
static void record_start_failure(struct loop *l, struct job *j, const struct start_failure *f)
{
	struct run_record r = { .seq = f->seq,
				.start_ns = clock_now_ns(CLOCK_REALTIME),
				.status = -1,
				.attempt = f->attempt,
				.start_failed = true,
				.manual = f->manual };

	job_history_add(j, &r);
	l->runs->on_record(l->runs->arg, j, &r, !f->retried);
}

static void start_failed(struct loop *l, struct job *j, const struct start_failure *f)
{
	char message[512];

	snprintf(message, sizeof message, "%s: %s: %s; run %" PRIu64 " (try %u) did not start%s",
		 j->name, f->call, strerror(f->error), f->seq, f->attempt,
		 f->retried ? ", it will be tried again" : "");
	events_error(&l->ev, j->name, f->call, message);
	record_start_failure(l, j, f);
	if (f->retried)
		return;
	ping_never_started(l, j, f->seq);
	j->state->metrics.runs_failure++;
	l->metrics_dirty = true;
	if (l->cfg->exit_on_error && l->st.phase == PHASE_RUNNING)
		status_end(&l->st, 1);
}

void runs_note_start(struct loop *l, struct job *j, const struct run_start *s)
{
	if (s->kind == RUN_START_RUN)
		run_started(l, j, &s->run);
	else if (s->kind == RUN_START_FAILED)
		start_failed(l, j, &s->failure);
}

void runs_count_end(struct job_metrics *m, const struct run_end *e, int64_t wall_now)
{
	/* A try that will be tried again is not an outcome yet. */
	if (run_end_unsuccessful(e) && !e->failed)
		return;
	if (e->timed_out)
		m->runs_timeout++;
	else if (e->superseded || e->signal)
		m->runs_killed++;
	else if (e->status != 0)
		m->runs_failure++;
	else
		m->runs_success++;
	m->last_duration_ns = e->duration_ns;
	m->last_exit_status = run_status(e);
	if (!run_end_unsuccessful(e))
		m->last_success_ns = wall_now;
}

/* The run's record for tfdctl status (unless KEPT: it is there), and
 * for a tfdctl run --wait. */
static void record_end(struct loop *l, struct job *j, const struct run_end *e, bool kept)
{
	int64_t now = clock_now_ns(CLOCK_REALTIME);
	struct run_record r = { .seq = e->seq,
				.start_ns = now - e->duration_ns,
				.duration_ns = e->duration_ns,
				.status = e->status,
				.signal = e->signal,
				.attempt = e->attempt,
				.timed_out = e->timed_out,
				.manual = e->manual };

	if (!kept)
		job_history_add(j, &r);
	/* A try that will be tried again is not the run's end. */
	l->runs->on_record(l->runs->arg, j, &r, !(run_end_unsuccessful(e) && !e->failed));
}

/* Hooks */

/* The hook of the run's end E, if J has one for it, started as the runs
 * start: as their user, with their environment and, when tfd read their
 * output, its tail in TFD_OUTPUT_FILE. */
static void start_hook(struct loop *l, struct job *j, const struct run_end *e)
{
	char tail[JOB_TAIL_MAX];
	struct hook_start s = { .shell = j->hooks.shell,
				.job = j->name,
				.end = e,
				.envp = j->envp,
				.target = &j->target,
				.owner = j,
				.kill_grace_ns = l->cfg->kill_after_ns ? l->cfg->kill_after_ns
								       : RUNNER_KILL_GRACE_NS };
	struct job_history *h;
	struct hook_record rec;
	struct hook_started out;
	bool started;

	if (!(s.command = job_hook_for(&j->hooks, e, &s.kind)))
		return;
	/* Its output goes where the runs' goes: read, as theirs is. */
	if (j->run.tag_output) {
		s.tail_len = job_history_tail(j, tail);
		s.tail = tail;
		s.capture = true;
		s.one_pipe = j->run.one_pipe;
	}
	if (j->user.spec && j->user.change) {
		s.chown = true;
		s.uid = j->user.uid;
		s.gid = j->user.gid;
	}
	started = hooks_start(&l->hooks, &s, &l->ev, clock_now_ns(CLOCK_MONOTONIC),
			      clock_now_ns(CLOCK_REALTIME), &rec, &out);
	if (out.out_fd >= 0 && readers_add_hook(&l->readers, j, j->name, out.pid, e->seq,
						j->mail != NULL, out.out_fd, out.err_fd) != 0)
		status_fail_oom(&l->st, &l->ev);
	if (l->hooks.stopping || !(h = job_history_of(j)))
		return;
	h->last_hook = rec;
	h->hooked = true;
	h->hook_running = started;
}

/* A hook of J ended as REC says: tfdctl status shows it. */
static void hook_ended(struct job *j, const struct hook_record *rec)
{
	struct job_history *h = job_history_of(j);

	if (!h)
		return;
	h->last_hook = *rec;
	h->hooked = true;
	h->hook_running = false;
}

static void finish(struct loop *l, struct job *j, const struct run_end *e, bool kept)
{
	events_run_end(&l->ev, j->name, e);
	start_hook(l, j, e);
	record_end(l, j, e, kept);
	runs_count_end(&j->state->metrics, e, clock_now_ns(CLOCK_REALTIME));
	l->metrics_dirty = true;
	/* A try that will be tried again is not the run's end. */
	if (notify_target_any(&j->notify) && !(run_end_unsuccessful(e) && !e->failed))
		notify_run_end(l, j, e);
	l->runs->on_end(l->runs->arg, j, e);
	if (l->st.phase == PHASE_SHUTDOWN || l->st.final)
		return;
	if (!l->cfg->jobs_path && !schedule_repeats(&j->schedule))
		status_so_far(&l->st, run_status(e));
	/* -E ends tfd: the other runs, of this job or any other, are ended as
	 * a SIGTERM to tfd would end them, not waited for (a long job's run
	 * would keep tfd up long after the failure). */
	if (l->cfg->exit_on_error && e->failed)
		status_end(&l->st, run_status(e));
}

void runs_finish(struct loop *l, struct job *j, const struct run_end *e)
{
	finish(l, j, e, false);
}

void runs_retry_dropped(struct loop *l, struct job *j, const struct runner_stopped *s)
{
	const struct run_end *e = &s->last_try;
	struct run_record r = { .seq = e->seq,
				.start_ns = clock_now_ns(CLOCK_REALTIME),
				.status = -1,
				.attempt = e->attempt,
				.start_failed = true,
				.manual = e->manual };

	if (!s->retry)
		return;
	if (!s->retry_not_started) {
		finish(l, j, e, true);
		return;
	}
	/* As start_failed ends a run without a retry; its "error" was said. */
	l->runs->on_record(l->runs->arg, j, &r, true);
	ping_never_started(l, j, e->seq);
	j->state->metrics.runs_failure++;
	l->metrics_dirty = true;
}

/* ^Z stopped the run that holds the terminal: tfd takes the terminal
 * back and stops too, as a shell's job does; `fg` continues tfd, which
 * hands the terminal back and continues the run. */
static void run_stopped(struct loop *l, pid_t pid)
{
	int tty_fd = l->runs->tty_fd;

	if (tty_fd < 0 || l->runs->tty_owner != pid)
		return;
	tcsetpgrp(tty_fd, getpgrp());
	kill(getpid(), SIGSTOP);
	tcsetpgrp(tty_fd, pid);
	kill(-pid, SIGCONT);
}

/* A run as another user whose user or PAM session refused it: an "error"
 * event, before its "exit" (status 125, the command never ran). */
static void not_started(struct loop *l, struct job *j, const struct run_end *e)
{
	char message[1536];

	snprintf(message, sizeof message, "%s: %s; run %" PRIu64 " (try %u) did not start", j->name,
		 e->not_started, e->seq, e->attempt);
	events_error(&l->ev, j->name, "user", message);
}

/* A run's leader ended. ^C or ^\ in the terminal reached only the run
 * that held it: tfd ends as if it had been sent the signal itself. */
static void leader_ended(struct loop *l, struct job *j, const struct run_end *e)
{
	bool held = l->runs->tty_owner == e->pid;

	pidmap_del(&l->runs->pids, e->pid);
	if (held)
		runs_take_terminal(l);
	/* Its lines come before its "exit"; what it left running may write on. */
	readers_leader_ended(&l->readers, e->pid, &l->ev);
	if (e->not_started)
		not_started(l, j, e);
	runs_finish(l, j, e);
	if (held && (e->signal == SIGINT || e->signal == SIGQUIT))
		status_stop(&l->st, e->signal);
}

/* A run's leader was reaped and its group may live on: J joins the jobs
 * that a reaped pid of no run's leader is told to. */
static void note_groups(struct loop *l, struct job *j)
{
	struct runs *rs = l->runs;

	if (j->state->grouped || !runner_has_groups(j->state->runner))
		return;
	if (array_reserve(&rs->grouped, &rs->grouped_cap, rs->ngrouped + 1, sizeof *rs->grouped,
			  SIZE_MAX) != 0) {
		status_fail_oom(&l->st, &l->ev);
		return;
	}
	rs->grouped[rs->ngrouped++] = j;
	j->state->grouped = true;
}

void runs_forget_groups(struct loop *l, struct job *j)
{
	struct runs *rs = l->runs;

	for (size_t i = 0; j->state->grouped && i < rs->ngrouped; i++)
		if (rs->grouped[i] == j) {
			rs->grouped[i] = rs->grouped[--rs->ngrouped];
			j->state->grouped = false;
		}
}

/* Not a run's leader: a member of some run's process group, or an
 * orphan. Only the runners that keep groups hear of it, not every job;
 * those whose groups are all gone leave the list. */
static void reap_unknown(struct loop *l, pid_t pid, int wstatus)
{
	for (size_t i = 0; i < l->runs->ngrouped;) {
		struct job *j = l->runs->grouped[i];
		struct run_end end;
		struct run_start start;
		const char *failed = NULL;

		runner_reaped(j->state->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
			      INT64_MAX, &end, &start, &failed);
		runs_note_start(l, j, &start);
		jobdue_update(l, j);
		if (runner_has_groups(j->state->runner))
			i++;
		else
			runs_forget_groups(l, j);
	}
}

void runs_end_removed_groups(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	l->st.gone = true; /* the loop drops those with nothing left */
	/* Removed jobs are the table's tail (reload_plan puts them there):
	 * only they are visited, not every job at every reap. A removed
	 * job's schedule has ended: the groups its runs leave behind are
	 * ended, as at the end of every schedule. */
	for (size_t i = l->njobs; i > 0 && l->jobs[i - 1]->state->removed; i--) {
		struct job *j = l->jobs[i - 1];

		if (j->state->runner) {
			runner_finish_groups(j->state->runner, now);
			jobdue_update(l, j);
		}
	}
}

bool runs_gone(const struct loop *l, const struct job *j)
{
	return !(j->state->runner && runner_busy(j->state->runner)) &&
	       !readers_pending_for(&l->readers, j) && !hooks_busy(&l->hooks, j);
}

/* PID is a hook's: true (its end kept for tfdctl status). */
static bool reap_hook(struct loop *l, pid_t pid, int wstatus)
{
	struct hook_record rec;
	void *owner = NULL;
	bool ended;

	if (!hooks_owns(&l->hooks, pid))
		return false;
	/* Its lines come before its "error". */
	if (!WIFSTOPPED(wstatus) && !WIFCONTINUED(wstatus))
		readers_leader_ended(&l->readers, pid, &l->ev);
	if (!hooks_reaped(&l->hooks, pid, wstatus, &l->ev, clock_now_ns(CLOCK_MONOTONIC), &ended,
			  &owner, &rec))
		return false;
	if (ended)
		hook_ended(owner, &rec);
	return true;
}

void runs_reap(struct loop *l)
{
	int wstatus;
	pid_t pid;

	/* A stop asked for (-E, ^C) is carried out by the loop before the
	 * next child is reaped: it calls again. */
	while (!l->st.stop_sig && (pid = waitpid(-1, &wstatus, WNOHANG | WUNTRACED)) > 0) {
		struct job *j = pidmap_get(&l->runs->pids, pid);
		struct run_end end = { 0 };
		struct run_start start;
		const char *failed = NULL;
		enum reaped what;

		if (!j && mailer_reaped(&l->mailer, pid, wstatus, &l->ev))
			continue;
		if (!j && reap_hook(l, pid, wstatus))
			continue;
		if (!j) {
			if (!WIFSTOPPED(wstatus))
				reap_unknown(l, pid, wstatus);
			continue;
		}
		what = runner_reaped(j->state->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
				     jobdue_next_run_mono(j), &end, &start, &failed);
		runs_note_start(l, j, &start);
		note_groups(l, j);
		if (what == REAPED_RUN)
			leader_ended(l, j, &end);
		else if (what == REAPED_STOPPED)
			run_stopped(l, pid);
		if (failed)
			status_fail(&l->st, &l->ev, failed);
		jobdue_update(l, j);
	}
	readers_close_gone(&l->readers, &l->ev);
	runs_end_removed_groups(l);
}

void runs_finish_groups(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->state->running || l->jobs[i]->state->pending)
			return;
	for (size_t i = 0; i < l->njobs; i++) {
		if (!l->jobs[i]->state->runner)
			continue;
		runner_finish_groups(l->jobs[i]->state->runner, now);
		jobdue_update(l, l->jobs[i]);
	}
}
