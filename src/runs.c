#include "runs.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "claims.h"
#include "tick.h"
#include "timens.h"

static int run_status(const struct run_end *e)
{
	return e->signal ? 128 + e->signal : e->status;
}

void runs_take_terminal(struct loop *l)
{
	if (l->tty_fd >= 0 && l->tty_owner) {
		tcsetpgrp(l->tty_fd, getpgrp());
		l->tty_owner = 0;
	}
}

/* The start queue */

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
	return l->starts.n > 0 && l->phase == PHASE_RUNNING &&
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

void runs_started(void *arg, const struct run_started *s)
{
	struct job *j = arg;
	struct loop *l = j->loop;

	if (pidmap_put(&l->pids, s->pid, j) != 0)
		loop_fail_oom(l);
	if (l->tty_fd >= 0)
		l->tty_owner = s->pid;
	j->metrics.last_start_ns = clock_now_ns(CLOCK_REALTIME);
	l->metrics_dirty = true;
	if (s->out_fd >= 0 &&
	    readers_add_run(&l->readers, j, j->name, s->pid, s->seq, j->mail != NULL,
			    s->out_fd, s->err_fd) != 0)
		loop_fail_oom(l);
}

void runs_output_collected(void *arg, struct job *j, const char *name, uint64_t seq,
			   struct mail_body *body)
{
	struct loop *l = arg;

	mailer_send(&l->mailer, j->mail, name, seq, body, &l->ev, clock_now_ns(CLOCK_MONOTONIC));
	runs_check_mailer_oom(l);
}

void runs_check_mailer_oom(struct loop *l)
{
	if (l->mailer.oom) {
		l->mailer.oom = false;
		loop_fail_oom(l);
	}
}

void runs_start_failed(void *arg, const struct start_failure *f)
{
	struct job *j = arg;
	struct loop *l = j->loop;
	char message[512];

	snprintf(message, sizeof message, "%s: %s: %s; run %" PRIu64 " (try %u) did not start%s",
		 j->name, f->call, strerror(f->error), f->seq, f->attempt,
		 f->retried ? ", it will be tried again" : "");
	events_error(&l->ev, j->name, f->call, message);
	if (f->retried)
		return;
	j->metrics.runs_failure++;
	l->metrics_dirty = true;
	if (l->cfg->exit_on_error && l->phase == PHASE_RUNNING) {
		loop_set_status(l, 1);
		loop_shutdown(l, SIGTERM);
	}
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

void runs_finish(struct loop *l, struct job *j, const struct run_end *e)
{
	events_run_end(&l->ev, j->name, e);
	runs_count_end(&j->metrics, e, clock_now_ns(CLOCK_REALTIME));
	l->metrics_dirty = true;
	claims_run_ended(l, j, e);
	if (l->phase == PHASE_SHUTDOWN || l->status_final)
		return;
	if (!l->cfg->jobs_path && !schedule_repeats(&j->schedule))
		l->status = run_status(e);
	/* -E ends tfd: the other runs, of this job or any other, are ended as
	 * a SIGTERM to tfd would end them, not waited for (a long job's run
	 * would keep tfd up long after the failure). */
	if (l->cfg->exit_on_error && e->failed) {
		loop_set_status(l, run_status(e));
		loop_shutdown(l, SIGTERM);
	}
}

void runs_check_readers_oom(struct loop *l)
{
	if (l->readers.oom) {
		l->readers.oom = false;
		loop_fail_oom(l);
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
	runs_finish(l, j, e);
	if (held && (e->signal == SIGINT || e->signal == SIGQUIT))
		loop_shutdown(l, e->signal);
}

/* Not a run's leader: a member of some run's process group, or an
 * orphan. The runners that wait for groups hear of it. */
static void reap_unknown(struct loop *l, pid_t pid, int wstatus)
{
	for (size_t i = 0; i < l->njobs; i++) {
		struct job *j = l->jobs[i];
		struct run_end end;
		const char *failed = NULL;

		if (!j->runner || !runner_busy(j->runner))
			continue;
		runner_reaped(j->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
			      INT64_MAX, &end, &failed);
		tick_update_deadline(l, j);
	}
}

void runs_drop_finished_removed(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < l->njobs;) {
		struct job *j = l->jobs[i];

		if (!j->removed) {
			i++;
			continue;
		}
		/* A removed job's schedule has ended: the groups its runs
		 * leave behind are ended, as at the end of every schedule. */
		if (j->runner) {
			runner_finish_groups(j->runner, now);
			tick_update_deadline(l, j);
		}
		if (!(j->runner && runner_busy(j->runner)) && !readers_pending_for(&l->readers, j))
			loop_drop_job(l, i);
		else
			i++;
	}
}

void runs_reap(struct loop *l)
{
	int wstatus;
	pid_t pid;

	while ((pid = waitpid(-1, &wstatus, WNOHANG | WUNTRACED)) > 0) {
		struct job *j = pidmap_get(&l->pids, pid);
		struct run_end end = { 0 };
		const char *failed = NULL;
		enum reaped what;

		if (!j && mailer_reaped(&l->mailer, pid, wstatus, &l->ev)) {
			runs_check_mailer_oom(l);
			continue;
		}
		if (!j) {
			if (!WIFSTOPPED(wstatus))
				reap_unknown(l, pid, wstatus);
			continue;
		}
		what = runner_reaped(j->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
				     tick_next_run_mono(j), &end, &failed);
		if (what == REAPED_RUN)
			leader_ended(l, j, &end);
		else if (what == REAPED_STOPPED)
			run_stopped(l, pid);
		if (failed)
			loop_fail(l, failed);
		tick_update_deadline(l, j);
	}
	readers_close_gone(&l->readers, &l->ev);
	runs_check_readers_oom(l);
	runs_drop_finished_removed(l);
}

void runs_finish_groups(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->running || l->jobs[i]->pending)
			return;
	for (size_t i = 0; i < l->njobs; i++) {
		if (!l->jobs[i]->runner)
			continue;
		runner_finish_groups(l->jobs[i]->runner, now);
		tick_update_deadline(l, l->jobs[i]);
	}
}
