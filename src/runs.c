/* SPDX-License-Identifier: MIT */
#include "runs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "claims.h"
#include "control.h"
#include "tick.h"
#include "timens.h"

static int run_status(const struct run_end *e)
{
	return e->signal ? 128 + e->signal : e->status;
}

void runs_find_terminal(struct loop *l)
{
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp())
		l->tty_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
}

void runs_take_terminal(struct loop *l)
{
	if (l->tty_fd >= 0 && l->tty_owner) {
		tcsetpgrp(l->tty_fd, getpgrp());
		l->tty_owner = 0;
	}
}

/* The start queue */

/* Descriptors tfd keeps for itself beside the run pipes: its own
 * (signalfd, timerfds, inotify, the terminal) and those it opens for a
 * moment (a jobs file, --metrics, --persist, a run's input memfd). */
#define OWN_FDS 64

/* How many run pipes may be open at once under RLIMIT_NOFILE: a storm of
 * --tag-output runs waits for pipes to close rather than fail. */
size_t runs_pipe_fds_max(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
	    lim.rlim_cur > SIZE_MAX)
		return SIZE_MAX;
	return lim.rlim_cur > 2 * OWN_FDS ? (size_t)lim.rlim_cur - OWN_FDS
					  : (size_t)lim.rlim_cur / 2;
}

bool runs_queue_full(const struct loop *l)
{
	return l->starts.n == STARTS_MAX;
}

void runs_queue_start(struct loop *l, struct job *j, const struct tick *t)
{
	struct start_queue *sq = &l->starts;

	sq->q[(sq->head + sq->n++) % STARTS_MAX] = (struct start){ j, *t };
}

/* Two pipes, both ends open while the run is started. */
#define START_PIPE_FDS 4

static bool start_fits(const struct loop *l, const struct start *s)
{
	if (!s->job->run.tag_output)
		return true;
	return l->readers.n + START_PIPE_FDS <= l->pipe_fds_max || l->readers.n == 0;
}

bool runs_starts_ready(const struct loop *l)
{
	return l->starts.n > 0 && l->st.phase == PHASE_RUNNING &&
	       start_fits(l, &l->starts.q[l->starts.head]);
}

void runs_serve_starts(struct loop *l)
{
	struct start_queue *sq = &l->starts;

	for (size_t served = 0; served < STARTS_BATCH && runs_starts_ready(l); served++) {
		struct start s = sq->q[sq->head];

		sq->head = (sq->head + 1) % STARTS_MAX;
		sq->n--;
		tick_act(l, s.job, &s.tick);
	}
}

void runs_drop_starts(struct loop *l, const struct job *j)
{
	struct start_queue *sq = &l->starts;
	size_t kept = 0;

	for (size_t i = 0; i < sq->n; i++) {
		struct start s = sq->q[(sq->head + i) % STARTS_MAX];

		if (j && s.job != j)
			sq->q[(sq->head + kept++) % STARTS_MAX] = s;
	}
	sq->n = kept;
}

static void run_started(struct loop *l, struct job *j, const struct run_started *s)
{
	if (pidmap_put(&l->pids, s->pid, j) != 0)
		status_fail_oom(&l->st, &l->ev);
	/* Another user's run has a session of its own, not the terminal. */
	if (l->tty_fd >= 0 && !j->target.session)
		l->tty_owner = s->pid;
	j->state->metrics.last_start_ns = clock_now_ns(CLOCK_REALTIME);
	job_history_tail_reset(j);
	l->metrics_dirty = true;
	if (s->out_fd >= 0 &&
	    readers_add_run(&l->readers, j, j->name, s->pid, s->seq, j->mail != NULL,
			    s->out_fd, s->err_fd) != 0)
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
	struct run_record r = { .seq = f->seq, .start_ns = clock_now_ns(CLOCK_REALTIME),
				.status = -1, .attempt = f->attempt, .start_failed = true,
				.manual = f->manual };

	job_history_add(j, &r);
	control_run_ended(l, j, &r, !f->retried);
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
	j->state->metrics.runs_failure++;
	l->metrics_dirty = true;
	if (l->cfg->exit_on_error && l->st.phase == PHASE_RUNNING) {
		status_set(&l->st, 1);
		status_stop(&l->st, SIGTERM);
	}
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

/* The run's record for tfdctl status, and for a tfdctl run --wait. */
static void record_end(struct loop *l, struct job *j, const struct run_end *e)
{
	int64_t now = clock_now_ns(CLOCK_REALTIME);
	struct run_record r = { .seq = e->seq, .start_ns = now - e->duration_ns,
				.duration_ns = e->duration_ns, .status = e->status,
				.signal = e->signal, .attempt = e->attempt,
				.timed_out = e->timed_out, .manual = e->manual };

	job_history_add(j, &r);
	/* A try that will be tried again is not the run's end. */
	control_run_ended(l, j, &r, !(run_end_unsuccessful(e) && !e->failed));
}

void runs_finish(struct loop *l, struct job *j, const struct run_end *e)
{
	events_run_end(&l->ev, j->name, e);
	record_end(l, j, e);
	runs_count_end(&j->state->metrics, e, clock_now_ns(CLOCK_REALTIME));
	l->metrics_dirty = true;
	claims_run_ended(l, j, e);
	if (l->st.phase == PHASE_SHUTDOWN || l->st.final)
		return;
	if (!l->cfg->jobs_path && !schedule_repeats(&j->schedule))
		l->st.status = run_status(e);
	/* -E ends tfd: the other runs, of this job or any other, are ended as
	 * a SIGTERM to tfd would end them, not waited for (a long job's run
	 * would keep tfd up long after the failure). */
	if (l->cfg->exit_on_error && e->failed) {
		status_set(&l->st, run_status(e));
		status_stop(&l->st, SIGTERM);
	}
}



/* ^Z stopped the run that holds the terminal: tfd takes the terminal
 * back and stops too, as a shell's job does; `fg` continues tfd, which
 * hands the terminal back and continues the run. */
static void run_stopped(struct loop *l, pid_t pid)
{
	if (l->tty_fd < 0 || l->tty_owner != pid)
		return;
	tcsetpgrp(l->tty_fd, getpgrp());
	kill(getpid(), SIGSTOP);
	tcsetpgrp(l->tty_fd, pid);
	kill(-pid, SIGCONT);
}

/* A run as another user whose user or PAM session refused it: an "error"
 * event, before its "exit" (status 125, the command never ran). */
static void not_started(struct loop *l, struct job *j, const struct run_end *e)
{
	char message[1536];

	snprintf(message, sizeof message, "%s: %s; run %" PRIu64 " (try %u) did not start",
		 j->name, e->not_started, e->seq, e->attempt);
	events_error(&l->ev, j->name, "user", message);
}

/* A run's leader ended. ^C or ^\ in the terminal reached only the run
 * that held it: tfd ends as if it had been sent the signal itself. */
static void leader_ended(struct loop *l, struct job *j, const struct run_end *e)
{
	bool held = l->tty_owner == e->pid;

	pidmap_del(&l->pids, e->pid);
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
	if (j->state->grouped || !runner_has_groups(j->state->runner))
		return;
	if (l->ngrouped == l->grouped_cap) {
		size_t cap = l->grouped_cap ? l->grouped_cap * 2 : 16;
		struct job **g = realloc(l->grouped, cap * sizeof *g);

		if (!g) {
			status_fail_oom(&l->st, &l->ev);
			return;
		}
		l->grouped = g;
		l->grouped_cap = cap;
	}
	l->grouped[l->ngrouped++] = j;
	j->state->grouped = true;
}

void runs_forget_groups(struct loop *l, struct job *j)
{
	for (size_t i = 0; j->state->grouped && i < l->ngrouped; i++)
		if (l->grouped[i] == j) {
			l->grouped[i] = l->grouped[--l->ngrouped];
			j->state->grouped = false;
		}
}

/* Not a run's leader: a member of some run's process group, or an
 * orphan. Only the runners that keep groups hear of it, not every job;
 * those whose groups are all gone leave the list. */
static void reap_unknown(struct loop *l, pid_t pid, int wstatus)
{
	for (size_t i = 0; i < l->ngrouped;) {
		struct job *j = l->grouped[i];
		struct run_end end;
		struct run_start start;
		const char *failed = NULL;

		runner_reaped(j->state->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
			      INT64_MAX, &end, &start, &failed);
		runs_note_start(l, j, &start);
		tick_update_deadline(l, j);
		if (runner_has_groups(j->state->runner))
			i++;
		else
			runs_forget_groups(l, j);
	}
}

void runs_end_removed_groups(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	/* Removed jobs are the table's tail (reload_plan puts them there):
	 * only they are visited, not every job at every reap. A removed
	 * job's schedule has ended: the groups its runs leave behind are
	 * ended, as at the end of every schedule. */
	for (size_t i = l->njobs; i > 0 && l->jobs[i - 1]->state->removed; i--) {
		struct job *j = l->jobs[i - 1];

		if (j->state->runner) {
			runner_finish_groups(j->state->runner, now);
			tick_update_deadline(l, j);
		}
	}
}

bool runs_gone(const struct loop *l, const struct job *j)
{
	return !(j->state->runner && runner_busy(j->state->runner)) &&
	       !readers_pending_for(&l->readers, j);
}

void runs_reap(struct loop *l)
{
	int wstatus;
	pid_t pid;

	/* A stop asked for (-E, ^C) is carried out by the loop before the
	 * next child is reaped: it calls again. */
	while (!l->st.stop_sig && (pid = waitpid(-1, &wstatus, WNOHANG | WUNTRACED)) > 0) {
		struct job *j = pidmap_get(&l->pids, pid);
		struct run_end end = { 0 };
		struct run_start start;
		const char *failed = NULL;
		enum reaped what;

		if (!j && mailer_reaped(&l->mailer, pid, wstatus, &l->ev))
			continue;
		if (!j) {
			if (!WIFSTOPPED(wstatus))
				reap_unknown(l, pid, wstatus);
			continue;
		}
		what = runner_reaped(j->state->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
				     tick_next_run_mono(j), &end, &start, &failed);
		runs_note_start(l, j, &start);
		note_groups(l, j);
		if (what == REAPED_RUN)
			leader_ended(l, j, &end);
		else if (what == REAPED_STOPPED)
			run_stopped(l, pid);
		if (failed)
			status_fail(&l->st, &l->ev, failed);
		tick_update_deadline(l, j);
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
		tick_update_deadline(l, l->jobs[i]);
	}
}
