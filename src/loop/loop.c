/* SPDX-License-Identifier: MIT */
#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "buf.h"
#include "claims.h"
#include "deadlines.h"
#include "due.h"
#include "keeper.h"
#include "loopstate.h"
#include "notify.h"
#include "ownertab.h"
#include "precise.h"
#include "reload.h"
#include "runs.h"
#include "target.h"
#include "tick.h"
#include "timens.h"

/* Status and failure */

/* Ends every schedule, drops every start that was due or waiting (how
 * many: the return) and sends SIG to every run (SIGKILL after the grace);
 * tfd exits once they are gone. SIG 0: the runs are left alone (--on-stop
 * wait and leave). A sendmail on its way gets MAILER_STOP_GRACE_NS,
 * unless tfd drains: then mail goes on as ever. */
static size_t stop_all(struct loop *l, int sig)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);
	size_t dropped = l->starts.n;

	starts_drop(&l->starts, NULL);
	if (l->st.phase == PHASE_SHUTDOWN) {
		mailer_stop(&l->mailer, now);
		notify_stop(l->notify, now);
	}
	for (size_t i = 0; i < l->njobs; i++)
		dropped += tick_stop_job(l, l->jobs[i], sig, now);
	return dropped;
}

/* What the handler just run left in the loop's status, acted on: a line
 * of output or a mail that found no memory fails the loop; a stop asked
 * for is carried out. Returns true when it carried out a stop. */
static bool settle(struct loop *l)
{
	int sig;

	if (l->st.oom) {
		l->st.oom = false;
		status_fail_oom(&l->st, &l->ev);
	}
	sig = status_take_stop(&l->st);
	if (sig)
		stop_all(l, sig);
	return sig != 0;
}

static void loop_fail(struct loop *l, const char *call)
{
	status_fail(&l->st, &l->ev, call);
	settle(l);
}

/* stdout went away (EPIPE: quietly) or failed (status 1): nothing more is
 * printed there, and the schedules end. */
static void stdout_lost(void *arg, int error)
{
	struct loop *l = arg;

	if (error)
		status_set(&l->st, 1);
	tick_end_all_schedules(l);
}

/* Signals */

/* Runs going now, of every job. */
static size_t runs_going(const struct loop *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->state->runner)
			n += runner_active(l->jobs[i]->state->runner);
	return n;
}

/* What --on-stop says SIG does: SIGTERM and SIGINT follow it the first
 * time; a second signal, and every other signal that ends tfd, forward. */
static enum on_stop stop_for(const struct loop *l, int sig)
{
	if ((sig != SIGTERM && sig != SIGINT) || l->st.phase != PHASE_RUNNING)
		return ON_STOP_FORWARD;
	return l->cfg->on_stop;
}

/* A signal that ends tfd, carried out as --on-stop says, and said in the
 * operator's log (a signal repeated during a forward stop is passed on
 * again, without a line; runs once left stay left). */
static void stop_on_signal(struct loop *l, int sig)
{
	enum on_stop how = stop_for(l, sig);
	struct oplog_stop_line line = { .sig = sig,
					.runs = runs_going(l),
					.kill_after_ns = l->cfg->kill_after_ns
								 ? l->cfg->kill_after_ns
								 : RUNNER_KILL_GRACE_NS };
	bool again = l->st.phase == PHASE_SHUTDOWN;

	if (l->st.left)
		return;
	if (how == ON_STOP_WAIT) {
		status_drain(&l->st);
		line.how = OPLOG_STOP_WAITING;
	} else {
		status_stop(&l->st, sig);
		status_take_stop(&l->st); /* carried out here */
		l->st.left = how == ON_STOP_LEAVE;
		line.how = l->st.left ? OPLOG_STOP_LEFT : OPLOG_STOP_SIGNALLED;
	}
	line.dropped = stop_all(l, how == ON_STOP_FORWARD ? sig : 0);
	/* Hooks are treated as the runs are: signalled, or left to end. */
	if (how == ON_STOP_FORWARD)
		hooks_signal(&l->hooks, sig, clock_now_ns(CLOCK_MONOTONIC));
	if (!again)
		events_stop(&l->ev, &line);
}

static void forward_signal(struct loop *l, int sig)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->state->runner)
			runner_forward(l->jobs[i]->state->runner, sig);
}

static void print_settings(struct loop *l)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->state->removed)
			tick_print_setting(l, l->jobs[i]);
}

static void on_signal(struct loop *l)
{
	struct signalfd_siginfo si[16];
	ssize_t n = read(l->signal_fd, si, sizeof si);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			loop_fail(l, "read (signalfd)");
		return;
	}
	for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++) {
		int sig = (int)si[i].ssi_signo;

		if (sig == SIGCHLD)
			do
				runs_reap(l);
			while (settle(l));
		else if (sig == SIGUSR1)
			print_settings(l);
		else if (sig == SIGUSR2)
			forward_signal(l, sig);
		else if (sig == SIGTTIN || sig == SIGTTOU)
			continue;
		else if (sig == SIGHUP && l->cfg->jobs_path && l->st.phase == PHASE_RUNNING)
			reload_request(l);
		/* Draining, a reload (systemctl reload) loads nothing and
		 * stops nothing. */
		else if (sig == SIGHUP && l->cfg->jobs_path && status_draining(&l->st))
			continue;
		else
			stop_on_signal(l, sig);
	}
}

/* The --join target exited: a run now would start in the wrong place. */
static void on_join_target_exit(struct loop *l, struct job *j)
{
	events_errf(&l->ev, "tfd: --join: the target process exited; stopping\n");
	spawn_target_close(&j->target);
	if (l->st.phase == PHASE_SHUTDOWN)
		return;
	status_end(&l->st, 1);
	settle(l);
}

/* Setup */

/* The signals that end tfd, as they would end it by default, except that
 * tfd first passes them to its runs and waits for them. */
static const int stop_signals[] = {
	SIGHUP,    SIGINT,  SIGQUIT, SIGTERM, SIGALRM, SIGVTALRM,
	SIGPROF,   SIGXCPU, SIGXFSZ, SIGPWR,  SIGIO,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

/* A HUP, INT or QUIT that tfd's parent left ignored (nohup, `&` in a
 * script) stays ignored: tfd neither stops on it nor passes it on. */
static bool inherited_ignore(int sig)
{
	struct sigaction sa;

	if (sig != SIGHUP && sig != SIGINT && sig != SIGQUIT)
		return false;
	return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

/* The signals the loop reads from its signalfd, into MASK. */
static void loop_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGCHLD);
	sigaddset(mask, SIGUSR1);
	sigaddset(mask, SIGUSR2);
	/* tfd hands the terminal to its runs and takes it back; as a
	 * background group it must not be stopped for that. */
	sigaddset(mask, SIGTTIN);
	sigaddset(mask, SIGTTOU);
	for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
		if (!inherited_ignore(stop_signals[i]))
			sigaddset(mask, stop_signals[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(mask, sig);
}

int loop_block_signals(void)
{
	sigset_t mask;

	loop_signals(&mask);
	/* A parent that ignores SIGCHLD would have children auto-reaped and
	 * their statuses lost; EPIPE is handled where write() returns it. */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	return sigprocmask(SIG_BLOCK, &mask, NULL);
}

static int open_signalfd(void)
{
	sigset_t mask;

	if (loop_block_signals() != 0)
		return -1;
	loop_signals(&mask);
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* A job left the table (its runs and readers are gone). */
static void drop_job(struct loop *l, size_t i)
{
	struct job *j = l->jobs[i];

	/* A poll slot of this dispatch may still name it. */
	if (j->target.join_pidfd >= 0)
		for (size_t k = 0; k < l->pfd_cap; k++)
			if (l->owners[k].ptr == j)
				l->owners[k] = (struct poll_owner){ OWNER_NONE, 0, NULL };
	heap_remove(&l->aux, &j->state->aux_node);
	claims_job_gone(l, j);
	l->cfg->serve->job_gone(l, j);
	notify_forget(l->notify, j);
	starts_drop(&l->starts, j);
	runs_forget_groups(l, j);
	job_state_free(j);
	job_free(j);
	l->jobs_dropped++;
	memmove(&l->jobs[i], &l->jobs[i + 1], (l->njobs - i - 1) * sizeof *l->jobs);
	l->njobs--;
}

/* Jobs a reload removed leave the table once their last run is gone
 * (the table's tail: reload_plan puts them there). */
static void drop_gone(struct loop *l)
{
	for (size_t i = l->njobs; i > 0 && l->jobs[i - 1]->state->removed; i--)
		if (runs_gone(l, l->jobs[i - 1]))
			drop_job(l, i - 1);
}

/* After each handler: its status acted on, the jobs it let go dropped.
 * Inline and two tests when there is nothing to do: it runs after every
 * handler, on the tick path too. */
static inline void after_handler(struct loop *l)
{
	if (__builtin_expect(l->st.oom || l->st.stop_sig, 0))
		settle(l);
	if (__builtin_expect(l->st.gone, 0)) {
		l->st.gone = false;
		drop_gone(l);
	}
}

/* The signalfd and the deadline timer; stdout and stderr are open before
 * them (events_open), so their failure is reported on stderr. */
static int open_descriptors(struct loop *l)
{
	l->signal_fd = open_signalfd();
	if (l->signal_fd < 0) {
		loop_fail(l, "signalfd");
		return -1;
	}
	if (timer_open(&l->deadline, CLOCK_MONOTONIC, CLOCK_MONOTONIC) != 0) {
		loop_fail(l, "timerfd_create (monotonic)");
		return -1;
	}
	return 0;
}

/* The loop */

static bool busy(const struct loop *l)
{
	for (size_t i = 0; i < l->njobs; i++) {
		const struct job *j = l->jobs[i];

		if (j->state->running || j->state->pending ||
		    (j->state->runner && runner_busy(j->state->runner)))
			return true;
	}
	return l->readers.n > 0 || l->starts.n > 0 || mailer_busy(&l->mailer) ||
	       hooks_busy(&l->hooks, NULL) || notify_busy(l->notify);
}

/* Whether tfd stays with nothing to run: a host's cron waits for files
 * and users to come, as cron does, and a cron line whose dates never come
 * is a schedule that never ends. */
static bool stays(const struct loop *l)
{
	if (l->cfg->host_cron)
		return true;
	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->never && !l->jobs[i]->state->removed)
			return true;
	return false;
}

static bool finished(struct loop *l)
{
	/* Left runs are not waited for; a mail on its way is (at most
	 * MAILER_STOP_GRACE_NS). */
	if (l->st.phase == PHASE_SHUTDOWN)
		return l->st.left ? !mailer_busy(&l->mailer) : !busy(l);
	/* A host's cron with no job waits for files, unless it drains. */
	if (l->st.phase == PHASE_RUNNING && reload_waits(l))
		return false;
	if (events_blocked(&l->ev) || claims_waiting(l))
		return false;
	if (!busy(l))
		return !stays(l);
	runs_finish_groups(l);
	return false;
}

/* The poll set, each slot with its owner. While a line waits for tfd's
 * stdout or stderr, timers and run output are left unread: the kernel
 * counts expirations meanwhile and runs block on their pipes, while
 * signals, deadlines, children and mailed runs (whose output goes to no
 * stream of tfd's) are still served. In shutdown a stuck
 * reader is not waited for (events_drain), so run pipes are read on:
 * their ends must be seen for tfd to exit. */
static size_t build_poll_set(struct loop *l)
{
	bool blocked = events_blocked(&l->ev);
	bool read_pipes = !blocked || l->st.phase == PHASE_SHUTDOWN;
	size_t n = 0;

	poll_set_add(l, &n, l->signal_fd, POLLIN, OWNER_SIGNALS, 0, NULL);
	poll_set_add(l, &n, l->deadline.fd, POLLIN, OWNER_DEADLINES, 0, NULL);
	if (output_pending(&l->ev.out))
		poll_set_add(l, &n, l->ev.out.fd, POLLOUT, OWNER_STDOUT, 0, NULL);
	if (output_pending(&l->ev.err))
		poll_set_add(l, &n, l->ev.err.fd, POLLOUT, OWNER_STDERR, 0, NULL);
	/* While the start queue is full, due jobs stay due in their heaps. */
	for (int i = 0; i < CLOCKS && !blocked && !starts_full(&l->starts); i++)
		if (l->clocks[i].t.fd >= 0)
			poll_set_add(l, &n, l->clocks[i].t.fd, POLLIN, OWNER_CLOCK, 0,
				     &l->clocks[i]);
	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->target.join_pidfd >= 0)
			poll_set_add(l, &n, l->jobs[i]->target.join_pidfd, POLLIN, OWNER_JOIN, 0,
				     l->jobs[i]);
	/* A mailed run's output goes to no stream of tfd's: it is read on. */
	for (size_t i = 0; i < l->readers.n; i++)
		if (read_pipes || l->readers.r[i]->run->mail)
			poll_set_add(l, &n, l->readers.r[i]->fd, POLLIN, OWNER_READER, 0,
				     l->readers.r[i]);
	/* The owners' rows (the fleet, reload, the mailer, --listen,
	 * --control): their descriptors are theirs to choose, served
	 * whatever else waits, as they never block. */
	ownertab_poll(l, &n);
	return n;
}

static void on_reader(struct loop *l, struct reader *r)
{
	readers_read(&l->readers, r, &l->ev);
}

/* Hands one slot's events to its owner. A handler may retire an owner
 * of a later slot (a reload or a reap drops a job): it clears that slot. */
static void dispatch_slot(struct loop *l, size_t i)
{
	const struct poll_owner *o = &l->owners[i];

	switch (o->kind) {
	case OWNER_NONE:
		break;
	case OWNER_SIGNALS:
		on_signal(l);
		break;
	case OWNER_DEADLINES:
		deadlines_due(l);
		break;
	case OWNER_STDOUT:
		events_flush_out(&l->ev);
		break;
	case OWNER_STDERR:
		events_flush_err(&l->ev);
		break;
	case OWNER_CLOCK:
		tick_on_clock(l, o->ptr);
		break;
	case OWNER_JOIN:
		on_join_target_exit(l, o->ptr);
		break;
	case OWNER_READER:
		on_reader(l, o->ptr);
		break;
	case OWNER_ROW:
		ownertab_ready(l, i);
		break;
	}
}

static void wait_for_events(struct loop *l)
{
	size_t n;

	readers_collect(&l->readers);
	tick_arm_clocks(l);
	deadlines_arm(l);
	if (l->metrics_dirty)
		tick_write_metrics(l, claims_metrics(l));
	after_handler(l);
	n = build_poll_set(l);
	/* Queued starts waiting their turn: a look at every descriptor
	 * (signals first), then the next batch. */
	if (poll(l->pfd, n, due_ready(l) ? 0 : -1) < 0) {
		if (errno != EINTR)
			loop_fail(l, "poll");
		return;
	}
	if (l->cfg->http || l->control) {
		int64_t now = clock_now_ns(CLOCK_MONOTONIC);

		slice_budget_renew(&l->http_slices, now);
		slice_budget_renew(&l->control_slices, now);
	}
	for (size_t i = 0; i < n; i++)
		if (l->pfd[i].revents) {
			dispatch_slot(l, i);
			after_handler(l);
		}
	ownertab_after_poll(l, after_handler);
	due_serve(l);
	after_handler(l);
	if (l->claims)
		claims_note_coming(l);
}

/* A run's end, for the fleet. */
static void run_ended(void *arg, struct job *j, const struct run_end *e)
{
	claims_run_ended(arg, j, e);
}

/* The descriptors set aside for a server (--listen's connections,
 * --control's clients) out of the run pipes' share, so that a storm of
 * runs never leaves it none to accept with, nor its clients the runs none
 * to start with: FDS, or half the share when it is under twice FDS.
 * Returns what it took. */
static size_t set_aside(size_t *pipes, size_t fds)
{
	size_t take;

	if (*pipes == SIZE_MAX)
		return fds;
	take = *pipes > 2 * fds ? fds : *pipes / 2;
	*pipes -= take;
	return take;
}

/* Everything the loop holds, from a zeroed start: what is open is closed. */
static void free_loop(struct loop *l)
{
	int fds[] = { l->signal_fd, l->precise_fd };

	claims_free(l);
	/* The commands' last answers go out through the socket, then it
	 * closes; --listen no longer reads the loop. */
	l->cfg->serve->close(l);
	/* Output still collected at this point is printed, not mailed:
	 * no sendmail started now would be reaped. */
	l->mailer.closing = true;
	readers_free(&l->readers, &l->ev);
	mailer_free(&l->mailer, &l->ev);
	hooks_free(&l->hooks);
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	notify_free(l->notify);
	deadlines_free(l);
	tick_clocks_free(l);
	events_close(&l->ev);
	for (size_t i = 0; i < l->njobs; i++) {
		job_state_free(l->jobs[i]);
		job_free(l->jobs[i]);
	}
	free(l->jobs);
	free(l->states);
	runs_free(l->runs);
	free(l->pfd);
	free(l->owners);
	reload_free(l->reload);
	free(l);
}

/* Sets up what every loop needs: the jobs, stdout and stderr, the poll
 * set's memory. Returns NULL (having said why on stderr) when memory ran
 * out. */
static struct loop *new_loop(struct loop_config *cfg)
{
	struct loop *l = calloc(1, sizeof *l);
	/* clang-format off */
	struct events_config ec = { .json = cfg->json, .quiet = cfg->quiet,
				    .verbose = cfg->verbose, .jobs_path = cfg->jobs_path,
				    .jobs_more = cfg->njobs_paths + !!cfg->user_crontabs > 1
						 ? cfg->njobs_paths + !!cfg->user_crontabs - 1 : 0,
				    .replica = cfg->replica, .log = cfg->log,
				    .log_runs = cfg->log_runs, .journal = cfg->journal };
	/* clang-format on */
	size_t pipes, control_fds = 0;

	if (!l || events_open(&l->ev, &ec) != 0) {
		fputs("tfd: out of memory\n", stderr);
		free(l);
		return NULL;
	}
	l->ev.on_stdout_lost = stdout_lost;
	l->ev.arg = l;
	l->readers.on_collected = runs_output_collected;
	l->readers.on_bytes = runs_output_bytes;
	l->readers.arg = l;
	l->readers.oom = l->mailer.oom = &l->st.oom;
	l->cfg = cfg;
	l->signal_fd = l->precise_fd = -1;
	tick_clocks_init(l);
	deadlines_init(l);
	pipes = starts_pipe_fds_max();
	if (cfg->http)
		set_aside(&pipes, cfg->serve->http_fds);
	if (cfg->control_fd >= 0)
		control_fds = set_aside(&pipes, cfg->serve->control_fds);
	starts_init(&l->starts, pipes);
	l->jobs = cfg->table.jobs;
	l->njobs = cfg->table.n;
	cfg->table = (struct job_table){ 0 };
	stats_init(&l->stats);
	l->states = job_states_attach(l->jobs, l->njobs);
	l->runs = runs_new(cfg->serve->run_record, run_ended, l);
	l->reload = reload_new(cfg->serve->reload_done, l);
	if (!l->states || !l->runs || !l->reload || cfg->serve->open(l, control_fds) != 0) {
		fputs("tfd: out of memory\n", stderr);
		free_loop(l);
		return NULL;
	}
	/* The fixed part of the poll set is there from the start; a slot
	 * for a pipe that finds no memory later is only left out once. */
	l->pfd_cap = 5 + CLOCKS;
	l->pfd = calloc(l->pfd_cap, sizeof *l->pfd);
	l->owners = calloc(l->pfd_cap, sizeof *l->owners);
	if (!l->pfd || !l->owners) {
		fputs("tfd: out of memory\n", stderr);
		free_loop(l);
		return NULL;
	}
	return l;
}

/* Runs left going (--on-stop=leave) whose output tfd reads are handed
 * to a keeper (keeper.h), which reads on after tfd exits; tfd prints and
 * mails none of it then. Without a keeper, what was read is printed at
 * the exit, as ever, and the runs' next write gets EPIPE. */
static void keep_left_output(struct loop *l)
{
	if (!l->st.left || l->readers.n == 0)
		return;
	if (keeper_start(l) < 0) {
		events_failure(&l->ev, "fork (the left runs' output keeper)", errno);
		return;
	}
	readers_forget(&l->readers);
}

int loop_run(struct loop_config *cfg)
{
	struct loop *l = new_loop(cfg);
	int status;

	if (!l)
		return 1;
	if (open_descriptors(l) == 0) {
		if (cfg->precise)
			l->precise_fd = precise_enable();
		/* Orphans of a run become ours, so none is left a zombie and
		 * shutdown can wait for a run's whole process group. */
		prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
		if (claims_start(l, &(struct claims_hooks){ cfg->serve->manual_answered,
							    cfg->serve->pause_answered, l }) != 0)
			status_fail_oom(&l->st, &l->ev);
		/* Every owner's row, the fleet's among them (src/serve/serve.c). */
		if (cfg->serve->owners(l) != 0)
			status_fail(&l->st, &l->ev, "the table of owners (full)");
		runs_find_terminal(l);
		reload_watch(l);
		events_start(&l->ev, l->njobs, cfg->nfiles);
		for (size_t i = 0; i < l->njobs && l->st.phase == PHASE_RUNNING; i++)
			if (!(l->jobs[i]->reboot && cfg->reboot_done))
				tick_start_job(l, l->jobs[i]);
		after_handler(l);
		tick_write_metrics(l, claims_metrics(l));
		while (!finished(l))
			wait_for_events(l);
		runs_take_terminal(l);
		claims_finish(l);
		if (l->metrics_dirty)
			tick_write_metrics(l, claims_metrics(l));
		if (cfg->stats)
			events_stats(&l->ev, &l->stats);
		events_drain(&l->ev, l->st.phase == PHASE_SHUTDOWN);
		keep_left_output(l);
	}
	status = l->st.status;
	if (status == 0 && l->ev.write_failed)
		status = 1;
	free_loop(l);
	return status;
}
