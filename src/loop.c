#include "loop.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "persist.h"
#include "precise.h"
#include "report.h"
#include "stats.h"
#include "timens.h"

/* How many elapses of a calendar or cron schedule one wake-up may count as
 * missed (after a long suspend); beyond this they are not enumerated. */
#define MISSED_ELAPSES_CAP 100000

enum phase {
	PHASE_RUNNING,   /* the timer is armed */
	PHASE_DRAINING,  /* the schedule ended; waiting for runs */
	PHASE_SHUTDOWN,  /* a signal came; runs were sent it */
};

enum { FD_TIMER, FD_SIGNAL, FD_AUX, FD_JOIN, FD_COUNT };

struct loop {
	const struct loop_config *cfg;
	struct pollfd pfd[FD_COUNT];
	clockid_t read_clock;     /* clock_gettime's name for the timer's clock */
	int64_t start_mono;
	uint64_t seq;             /* wake-ups so far */
	uint64_t total;           /* expirations so far */
	uint64_t next_k;          /* timer: grid number of the next expiration */
	int64_t armed_ns;         /* calendar, cron: the armed elapse */
	int64_t interval_ns;      /* for %i */
	enum phase phase;
	int status;
	bool need_next;           /* ask timerfd_gettime on each wake-up */
	bool stdout_closed;
	struct runner *runner;
	bool pending;             /* a --random-delay action waits */
	struct tick pending_tick;
	int64_t pending_due;
	int64_t for_deadline;
	int64_t aux_armed;
	int precise_fd;
	struct stats stats;
	size_t line_cap;
	char *line;               /* sized for the longest line --format can make */
};

/* Failures of the loop's own calls end tfd with status 1. */
static void fail(struct loop *l, const char *call)
{
	fprintf(stderr, "tfd: %s: %s\n", call, strerror(errno));
	l->status = 1;
	if (l->runner && l->phase != PHASE_SHUTDOWN)
		runner_signal_all(l->runner, SIGTERM, clock_now_ns(CLOCK_MONOTONIC));
	l->phase = PHASE_SHUTDOWN;
	l->pending = false;
}

/* Output */

static void end_schedule(struct loop *l, int status);

/* One write() per line; a short write is finished, never left half. */
static void emit(struct loop *l, int fd, const char *buf, size_t len)
{
	while (len > 0 && !(fd == STDOUT_FILENO && l->stdout_closed)) {
		ssize_t n = write(fd, buf, len);

		if (n >= 0) {
			buf += n;
			len -= (size_t)n;
		} else if (errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, -1);
		} else if (errno == EPIPE && fd == STDOUT_FILENO) {
			/* The reader is gone, as with `tfd | head`: done. */
			l->stdout_closed = true;
			end_schedule(l, 0);
		} else if (errno != EINTR) {
			return;
		}
	}
}

static void emit_setting(struct loop *l, const char *label)
{
	struct itimerspec cur;

	if (timerfd_gettime(l->pfd[FD_TIMER].fd, &cur) != 0) {
		fail(l, "timerfd_gettime");
		return;
	}
	emit(l, STDERR_FILENO, l->line,
	     format_setting(l->line, l->line_cap, label,
			    timespec_to_ns(cur.it_value),
			    timespec_to_ns(cur.it_interval)));
}

static void emit_tick(struct loop *l, const struct tick *t)
{
	const struct loop_config *cfg = l->cfg;

	if (cfg->quiet)
		return;
	if (cfg->json)
		emit(l, STDOUT_FILENO, l->line, json_tick(l->line, l->line_cap, t));
	else if (cfg->format)
		emit(l, STDOUT_FILENO, l->line,
		     format_tick(l->line, l->line_cap, cfg->format, t));
}

/* A run that --overlap kill ended made way for a newer one: not a failure. */
static bool run_failed(const struct run_end *e)
{
	return !e->superseded && (e->signal != 0 || e->status != 0);
}

static int run_status(const struct run_end *e)
{
	return e->signal ? 128 + e->signal : e->status;
}

static void emit_run_end(struct loop *l, const struct run_end *e)
{
	char name[16];
	int n;

	if (l->cfg->json) {
		emit(l, STDOUT_FILENO, l->line, json_exit(l->line, l->line_cap, e));
		return;
	}
	if (!run_failed(e))
		return;
	if (e->signal)
		n = snprintf(l->line, l->line_cap, "tfd: run %" PRIu64 " (pid %d)%s killed by %s\n",
			     e->seq, e->pid, e->timed_out ? " timed out and was" : " was",
			     signal_name(e->signal, name, sizeof name));
	else
		n = snprintf(l->line, l->line_cap, "tfd: run %" PRIu64 " (pid %d)%s exited with status %d\n",
			     e->seq, e->pid, e->timed_out ? " timed out and" : "",
			     e->status);
	emit(l, STDERR_FILENO, l->line, (size_t)n);
}

/* Arming */

static bool clock_is_realtime(clockid_t clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_ALARM;
}

static int arm_timer(struct loop *l, int64_t first_ns, int64_t interval_ns)
{
	struct itimerspec its = {
		.it_value = ns_to_timespec(first_ns),
		.it_interval = ns_to_timespec(interval_ns),
	};
	int flags = TFD_TIMER_ABSTIME;

	/* A zero it_value would disarm the timer; the epoch itself (--at @0)
	 * is as past as any other past instant: fire at once. */
	if (its.it_value.tv_sec <= 0 && its.it_value.tv_nsec == 0)
		its.it_value = (struct timespec){ 0, 1 };
	/* A realtime schedule names wall-clock instants: when the clock is
	 * set, the kernel tells us (ECANCELED) so the schedule is recomputed. */
	if (clock_is_realtime(l->cfg->schedule.clock))
		flags |= TFD_TIMER_CANCEL_ON_SET;
	if (timerfd_settime(l->pfd[FD_TIMER].fd, flags, &its, NULL) != 0) {
		fail(l, "timerfd_settime");
		return -1;
	}
	return 0;
}

static void disarm_timer(struct loop *l)
{
	struct itimerspec zero = { { 0, 0 }, { 0, 0 } };

	timerfd_settime(l->pfd[FD_TIMER].fd, 0, &zero, NULL);
}

/* Arms the first expiration at or after AFTER_NS (timer) or strictly after
 * it (calendar, cron). Returns -1 when the schedule has no more. */
static int arm_next(struct loop *l, int64_t after_ns)
{
	const struct schedule *s = &l->cfg->schedule;
	int64_t next;

	if (s->kind == SCHEDULE_TIMER) {
		if (after_ns < s->first_ns || s->interval_ns == 0) {
			l->next_k = 1;
			return arm_timer(l, s->first_ns, s->interval_ns);
		}
		/* Back onto the grid after a clock change: no drift. */
		l->next_k = (uint64_t)((after_ns - s->first_ns - 1) / s->interval_ns) + 2;
		if (schedule_nth(s, l->next_k, &next) != 0)
			return -1;
		return arm_timer(l, next, s->interval_ns);
	}
	if (schedule_next(s, after_ns, &next) != 0)
		return -1;
	l->armed_ns = next;
	return arm_timer(l, next, 0);
}

/* The first expiration as the user gave it: an --at in the past fires at
 * once with every missed interval counted, as the kernel does. */
static int arm_first(struct loop *l)
{
	const struct schedule *s = &l->cfg->schedule;

	if (s->kind != SCHEDULE_TIMER)
		return arm_next(l, clock_now_ns(l->read_clock));
	l->next_k = 1;
	return arm_timer(l, s->first_ns, s->interval_ns);
}

static void end_schedule(struct loop *l, int status)
{
	if (l->phase != PHASE_RUNNING)
		return;
	l->phase = PHASE_DRAINING;
	l->status = status;
	disarm_timer(l);
}

/* Actions */

static void persist_now(struct loop *l, int64_t wall_ns)
{
	char err[512];

	if (l->cfg->persist_path &&
	    persist_write(l->cfg->persist_path, wall_ns, err, sizeof err) != 0)
		fprintf(stderr, "tfd: %s\n", err);
}

/* The action of one wake-up: start a run (per --overlap) and print. */
static void act(struct loop *l, struct tick *t)
{
	const char *what = NULL;

	if (l->runner) {
		t->action = runner_tick(l->runner, t, clock_now_ns(CLOCK_MONOTONIC), &what);
		if (!t->action) {
			fail(l, what);
			return;
		}
	}
	if (!l->runner || strcmp(t->action, "skip") != 0)
		persist_now(l, t->wall_ns);
	emit_tick(l, t);
}

/* A uniform draw from 0..bound (inclusive) taken from getrandom(). */
static int64_t random_upto(int64_t bound)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
		r = (uint64_t)clock_now_ns(CLOCK_MONOTONIC) * UINT64_C(0x9e3779b97f4a7c15);
	return (int64_t)(((unsigned __int128)r * ((uint64_t)bound + 1)) >> 64);
}

/* --random-delay: the action waits, but never past the next expiration, so
 * ticks never pile up behind delayed actions. */
static void act_later(struct loop *l, const struct tick *t)
{
	int64_t bound = l->cfg->random_delay_ns;

	if (l->phase == PHASE_RUNNING && t->next_in_ns > 0 && t->next_in_ns - 1 < bound)
		bound = t->next_in_ns - 1;
	l->pending = true;
	l->pending_tick = *t;
	l->pending_due = clock_now_ns(CLOCK_MONOTONIC) + random_upto(bound);
}

/* The persisted schedule missed a run while tfd was not running: one run at
 * once, numbered 0, printed as no tick. */
static void catch_up(struct loop *l)
{
	struct tick t = { .wall_ns = clock_now_ns(CLOCK_REALTIME),
			  .interval_ns = l->interval_ns };
	const char *what = NULL;

	if (l->runner && !runner_tick(l->runner, &t, clock_now_ns(CLOCK_MONOTONIC), &what)) {
		fail(l, what);
		return;
	}
	persist_now(l, t.wall_ns);
}

/* Wake-ups */

/* The scheduled time of the newest expiration in a read of N, and the
 * count, which grows by elapses a calendar schedule missed in a suspend. */
static int64_t newest_expiration(struct loop *l, uint64_t *n, int64_t now_wall)
{
	const struct schedule *s = &l->cfg->schedule;
	int64_t newest = 0;

	if (s->kind == SCHEDULE_TIMER) {
		l->next_k += *n;
		if (schedule_nth(s, l->next_k - 1, &newest) != 0)
			newest = INT64_MAX;
		return newest;
	}
	*n += schedule_count_missed(s, l->armed_ns, now_wall, MISSED_ELAPSES_CAP, &newest);
	return newest;
}

/* After a calendar or cron wake-up, the next elapse is armed; a timer's
 * interval is the kernel's. Ends the schedule when it has no more. */
static void continue_schedule(struct loop *l, int64_t newest)
{
	const struct schedule *s = &l->cfg->schedule;

	if (l->cfg->count && l->total >= l->cfg->count)
		end_schedule(l, 0);
	else if (s->kind != SCHEDULE_TIMER) {
		if (arm_next(l, newest) != 0 && l->phase == PHASE_RUNNING)
			end_schedule(l, 0);
	} else if (s->interval_ns == 0)
		end_schedule(l, 0);
}

static void clock_was_set(struct loop *l)
{
	int64_t wall = clock_now_ns(CLOCK_REALTIME);

	if (l->cfg->json)
		emit(l, STDOUT_FILENO, l->line, json_clock(l->line, l->line_cap, NULL, wall));
	else
		emit(l, STDERR_FILENO, "tfd: the realtime clock was set; schedule recomputed\n", 53);
	if (arm_next(l, clock_now_ns(l->read_clock)) != 0 && l->phase == PHASE_RUNNING)
		end_schedule(l, 0);
}

static void on_timer(struct loop *l)
{
	struct tick t = { 0 };
	uint64_t n;
	int64_t now, newest;

	if (read(l->pfd[FD_TIMER].fd, &n, sizeof n) != (ssize_t)sizeof n) {
		if (errno == ECANCELED)
			clock_was_set(l);
		else if (errno != EAGAIN && errno != EINTR)
			fail(l, "read (timerfd)");
		return;
	}
	now = clock_now_ns(l->read_clock);
	t.wall_ns = clock_is_realtime(l->read_clock) ? now : clock_now_ns(CLOCK_REALTIME);
	newest = newest_expiration(l, &n, t.wall_ns);
	l->total += n;
	l->seq++;
	continue_schedule(l, newest);
	t.seq = l->seq;
	t.expirations = n;
	t.total = l->total;
	t.elapsed_ns = clock_now_ns(CLOCK_MONOTONIC) - l->start_mono;
	t.late_ns = now - newest;
	t.interval_ns = l->interval_ns;
	if (l->need_next) {
		struct itimerspec cur;

		if (timerfd_gettime(l->pfd[FD_TIMER].fd, &cur) == 0)
			t.next_in_ns = timespec_to_ns(cur.it_value);
	}
	if (l->cfg->stats)
		stats_add(&l->stats, n, t.late_ns);
	if (l->pending)
		act(l, &l->pending_tick);
	l->pending = false;
	if (l->cfg->random_delay_ns)
		act_later(l, &t);
	else
		act(l, &t);
	if (l->cfg->verbose) {
		char label[32];

		snprintf(label, sizeof label, "tick %" PRIu64, t.seq);
		emit_setting(l, label);
	}
}

/* Signals and children */

static void begin_shutdown(struct loop *l, int sig)
{
	if (l->phase != PHASE_SHUTDOWN)
		l->status = 128 + sig;
	if (l->phase == PHASE_RUNNING)
		disarm_timer(l);
	l->phase = PHASE_SHUTDOWN;
	l->pending = false;
	if (l->runner)
		runner_signal_all(l->runner, sig, clock_now_ns(CLOCK_MONOTONIC));
}

static void on_run_end(struct loop *l, const struct run_end *e)
{
	emit_run_end(l, e);
	if (l->phase == PHASE_SHUTDOWN)
		return;
	if (!schedule_repeats(&l->cfg->schedule))
		l->status = run_status(e);
	if (l->cfg->exit_on_error && run_failed(e)) {
		if (l->phase == PHASE_RUNNING)
			end_schedule(l, run_status(e));
		else
			l->status = run_status(e);
	}
}

/* Every child is reaped here, runs and (as PID 1 or subreaper) orphans. */
static void reap_children(struct loop *l)
{
	int wstatus;
	pid_t pid;

	while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
		struct run_end end;
		const char *failed = NULL;

		if (!l->runner)
			continue;
		if (runner_reaped(l->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
				  &end, &failed))
			on_run_end(l, &end);
		if (failed)
			fail(l, failed);
	}
}

static void on_signal(struct loop *l)
{
	struct signalfd_siginfo si[8];
	ssize_t n = read(l->pfd[FD_SIGNAL].fd, si, sizeof si);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			fail(l, "read (signalfd)");
		return;
	}
	for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++) {
		switch (si[i].ssi_signo) {
		case SIGCHLD:
			reap_children(l);
			break;
		case SIGUSR1:
			emit_setting(l, "setting");
			break;
		default:
			begin_shutdown(l, (int)si[i].ssi_signo);
			break;
		}
	}
}

/* The --join target exited: a run now would start in the wrong place. */
static void on_join_target_exit(struct loop *l)
{
	fprintf(stderr, "tfd: --join: the target process exited; stopping\n");
	l->pfd[FD_JOIN].fd = -1;
	if (l->phase == PHASE_SHUTDOWN)
		return;
	begin_shutdown(l, SIGTERM);
	l->status = 1;
}

/* Deadlines: one timerfd for the runner, --random-delay and --for */

static int64_t next_deadline(const struct loop *l)
{
	int64_t d = l->runner ? runner_deadline(l->runner) : INT64_MAX;

	if (l->pending && l->pending_due < d)
		d = l->pending_due;
	if (l->phase == PHASE_RUNNING && l->for_deadline < d)
		d = l->for_deadline;
	return d;
}

static void arm_aux(struct loop *l)
{
	int64_t d = next_deadline(l);
	struct itimerspec its = { .it_value = ns_to_timespec(d) };

	if (d == l->aux_armed)
		return;
	if (d == INT64_MAX)
		its.it_value = (struct timespec){ 0, 0 };
	else if (d <= 0)
		its.it_value = (struct timespec){ 0, 1 };
	if (timerfd_settime(l->pfd[FD_AUX].fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
		fail(l, "timerfd_settime");
	l->aux_armed = d;
}

static void on_deadline(struct loop *l)
{
	uint64_t n;
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	if (read(l->pfd[FD_AUX].fd, &n, sizeof n) < 0 && errno != EAGAIN)
		fail(l, "read (timerfd)");
	l->aux_armed = -1;
	if (l->runner)
		runner_expire(l->runner, now);
	if (l->pending && l->pending_due <= now) {
		l->pending = false;
		act(l, &l->pending_tick);
	}
	if (l->phase == PHASE_RUNNING && l->for_deadline <= now)
		end_schedule(l, 0);
}

/* Setup */

static int open_signalfd(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGCHLD);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGUSR1);
	/* A parent that ignores SIGCHLD would have children auto-reaped and
	 * their statuses lost; EPIPE is handled where write() returns it. */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, mask, NULL) != 0)
		return -1;
	return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

static clockid_t readable_clock(clockid_t clock)
{
	if (clock == CLOCK_REALTIME_ALARM)
		return CLOCK_REALTIME;
	if (clock == CLOCK_BOOTTIME_ALARM)
		return CLOCK_BOOTTIME;
	return clock;
}

static int open_descriptors(struct loop *l)
{
	sigset_t mask;
	const struct loop_config *cfg = l->cfg;

	for (int i = 0; i < FD_COUNT; i++)
		l->pfd[i] = (struct pollfd){ .fd = -1, .events = POLLIN };
	l->pfd[FD_TIMER].fd = timerfd_create(cfg->schedule.clock, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->pfd[FD_TIMER].fd < 0)
		return -1;
	l->pfd[FD_SIGNAL].fd = open_signalfd(&mask);
	if (l->pfd[FD_SIGNAL].fd < 0) {
		fail(l, "signalfd");
		return -1;
	}
	l->pfd[FD_AUX].fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->pfd[FD_AUX].fd < 0) {
		fail(l, "timerfd_create (monotonic)");
		return -1;
	}
	l->pfd[FD_JOIN].fd = cfg->target.join_pidfd;
	return 0;
}

static void close_descriptors(struct loop *l)
{
	for (int i = 0; i < FD_JOIN; i++)
		if (l->pfd[i].fd >= 0)
			close(l->pfd[i].fd);
	if (l->precise_fd >= 0)
		close(l->precise_fd);
}

static int start_runner(struct loop *l)
{
	const struct loop_config *cfg = l->cfg;
	struct runner_config rc = {
		.path = cfg->path,
		.argv = cfg->argv,
		.overlap = cfg->overlap,
		.timeout_ns = cfg->timeout_ns,
		.target = &cfg->target,
	};

	if (!cfg->path)
		return 0;
	/* Orphans of a run become ours, so none is left a zombie and shutdown
	 * can wait for a run's whole process group. */
	prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
	l->runner = runner_new(&rc);
	if (!l->runner) {
		fail(l, "malloc");
		return -1;
	}
	return 0;
}

static bool finished(const struct loop *l)
{
	return l->phase != PHASE_RUNNING && !l->pending &&
	       !(l->runner && runner_busy(l->runner));
}

/* Not inlined: gcc 12 with sanitizers misreads the pollfd array once this
 * is inlined into loop_run and warns of an overflow that is not there. */
__attribute__((noinline)) static void wait_for_events(struct loop *l)
{
	if (poll(l->pfd, FD_COUNT, -1) < 0) {
		if (errno != EINTR)
			fail(l, "poll");
		return;
	}
	if (l->pfd[FD_SIGNAL].revents)
		on_signal(l);
	if (l->pfd[FD_TIMER].revents && l->phase == PHASE_RUNNING)
		on_timer(l);
	if (l->pfd[FD_AUX].revents)
		on_deadline(l);
	if (l->pfd[FD_JOIN].fd >= 0 && l->pfd[FD_JOIN].revents)
		on_join_target_exit(l);
}

static void init_loop(struct loop *l, const struct loop_config *cfg)
{
	memset(l, 0, sizeof *l);
	l->cfg = cfg;
	l->read_clock = readable_clock(cfg->schedule.clock);
	l->precise_fd = -1;
	l->aux_armed = INT64_MAX;
	l->start_mono = cfg->start_mono_ns;
	l->for_deadline = cfg->for_ns ? l->start_mono + cfg->for_ns : INT64_MAX;
	l->interval_ns = cfg->schedule.kind == SCHEDULE_TIMER ? cfg->schedule.interval_ns : 0;
	l->line_cap = cfg->format ? format_line_max(cfg->format, 0) : 0;
	if (l->line_cap < REPORT_LINE_MAX)
		l->line_cap = REPORT_LINE_MAX;
	l->need_next = cfg->json || cfg->random_delay_ns ||
		       (cfg->format && format_uses_next(cfg->format));
	stats_init(&l->stats);
}

int loop_run(const struct loop_config *cfg)
{
	struct loop *l = malloc(sizeof *l);
	int status;

	if (!l) {
		perror("tfd: malloc");
		return 1;
	}
	init_loop(l, cfg);
	l->line = malloc(l->line_cap);
	if (!l->line) {
		perror("tfd: malloc");
		free(l);
		return 1;
	}
	if (open_descriptors(l) != 0) {
		status = l->status ? l->status : 1;
		if (!l->status)
			fprintf(stderr, "tfd: timerfd_create (%s): %s\n",
				cfg->clock_name, strerror(errno));
		close_descriptors(l);
		free(l->line);
		free(l);
		return status;
	}
	if (cfg->precise)
		l->precise_fd = precise_enable();
	if (start_runner(l) == 0) {
		if (cfg->persist_catch_up)
			catch_up(l);
		if (l->phase == PHASE_RUNNING && arm_first(l) != 0 &&
		    l->phase == PHASE_RUNNING)
			end_schedule(l, 0);
		if (cfg->verbose && l->phase == PHASE_RUNNING)
			emit_setting(l, "armed");
	}
	while (!finished(l)) {
		arm_aux(l);
		wait_for_events(l);
	}
	if (cfg->stats)
		emit(l, STDERR_FILENO, l->line, stats_format(&l->stats, l->line, l->line_cap));
	status = l->status;
	runner_free(l->runner);
	close_descriptors(l);
	free(l->line);
	free(l);
	return status;
}
