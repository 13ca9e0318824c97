#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "capture.h"
#include "metrics.h"
#include "output.h"
#include "persist.h"
#include "pidmap.h"
#include "precise.h"
#include "report.h"
#include "stats.h"
#include "timens.h"

/* How many elapses of a calendar or cron schedule one wake-up may count as
 * missed (after a long suspend); beyond this they are not enumerated. */
#define MISSED_ELAPSES_CAP 100000

/* A change to the jobs file is read once it has been quiet this long, so
 * an editor's several steps (write, rename, chmod) make one reload. */
#define RELOAD_SETTLE_NS (INT64_C(100) * 1000000)

/* At most this many bytes are read from one run's pipe per wake-up, so
 * one chatty run cannot starve the others. */
#define CAPTURE_READ_MAX (64 * 1024)

enum phase {
	PHASE_RUNNING,   /* schedules go on (some may have ended) */
	PHASE_SHUTDOWN,  /* a signal or a failure: runs were sent a signal */
};

/* A timerfd for one clock, armed at the earliest elapse of its jobs. */
struct clock_timer {
	clockid_t clock;
	clockid_t read_clock;
	int fd;
	struct heap heap;      /* jobs by due_ns */
	int64_t armed;         /* the kernel's next expiration; INT64_MAX: disarmed */
	int64_t period;        /* the kernel's interval (it_interval); 0: one-shot */
};

#define CLOCKS 5

/* A --tag-output run's pipes: its "exit" event waits until both end. */
struct run_outputs {
	struct job *job;
	pid_t pid;
	int open;              /* pipes not yet at end of stream */
	bool ended;            /* the run was reaped: END is its end */
	struct run_end end;
};

struct reader {
	int fd;
	int stream;            /* 1 stdout, 2 stderr */
	uint64_t seq;
	struct run_outputs *run;
	struct capture cap;
};

struct loop {
	struct loop_config *cfg;
	struct job **jobs;        /* the table, then removed jobs with runs left */
	size_t njobs;
	bool had_jobs;
	struct clock_timer timers[CLOCKS];
	int signal_fd, aux_fd, inotify_fd, tty_fd, precise_fd;
	struct heap aux;          /* jobs by their earliest deadline */
	int64_t aux_armed;
	int64_t reload_due;       /* monotonic; INT64_MAX: none */
	bool reload_forced;       /* SIGHUP: reload even an unchanged file */
	struct output out, err;
	bool out_reported;
	struct pidmap pids;
	pid_t tty_owner;          /* the run holding the terminal, or 0 */
	struct reader **readers;
	size_t nreaders, readers_cap;
	struct pollfd *pfd;
	size_t pfd_cap;
	size_t njoin_slots;       /* --join targets' pidfds in the poll set */
	enum phase phase;
	int status;
	bool status_final;        /* -E or a failure fixed the status */
	bool write_failed;        /* a --persist or --metrics write failed */
	bool metrics_dirty;
	struct stats stats;
	char *line;               /* sized for the longest line any job makes */
	size_t line_cap;
	char *big;                /* for "output" events of long lines */
	size_t big_cap;
};

static void begin_shutdown(struct loop *l, int sig);
static bool outputs_pending_for(const struct loop *l, const struct job *j);

/* Output */

static void end_all_schedules(struct loop *l);

/* A write to stdout that failed for another reason than EPIPE ends tfd
 * with status 1 and one line; EPIPE ends it quietly, as `tfd | head`
 * expects. Either way nothing more is printed there. */
static void check_output(struct loop *l)
{
	if (l->out.gone && !l->out_reported) {
		l->out_reported = true;
		end_all_schedules(l);
	} else if (l->out.error && !l->out_reported) {
		l->out_reported = true;
		fprintf(stderr, "tfd: write (stdout): %s\n", strerror(l->out.error));
		if (!l->status_final) {
			l->status = 1;
			l->status_final = true;
		}
		end_all_schedules(l);
	}
}

static void emit(struct loop *l, struct output *o, const char *buf, size_t len)
{
	if (output_put(o, buf, len) != 0) {
		errno = ENOMEM;
		o->error = ENOMEM;
	}
	check_output(l);
}

static void emit_out(struct loop *l, const char *buf, size_t len)
{
	emit(l, &l->out, buf, len);
}

static void emit_err(struct loop *l, const char *buf, size_t len)
{
	emit(l, &l->err, buf, len);
}

static void emit_errf(struct loop *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void emit_errf(struct loop *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->line, l->line_cap, fmt, ap);
	va_end(ap);
	if (n > 0)
		emit_err(l, l->line, (size_t)n < l->line_cap ? (size_t)n : l->line_cap - 1);
}

/* Failures of the loop's own calls end tfd with status 1. */
static void fail(struct loop *l, const char *call)
{
	emit_errf(l, "tfd: %s: %s\n", call, strerror(errno));
	if (!l->status_final) {
		l->status = 1;
		l->status_final = true;
	}
	begin_shutdown(l, SIGTERM);
}

/* Something failed at run time and tfd goes on: a line on stderr, an
 * "error" event, and status 1 at the end. */
static void report_error(struct loop *l, const struct job *j, const char *call,
			 const char *message)
{
	emit_errf(l, "tfd: %s\n", message);
	if (l->cfg->json)
		emit_out(l, l->line, json_error(l->line, l->line_cap, j ? j->name : NULL,
						call, message));
	l->write_failed = true;
}

/* In a jobs file the job's name says whose message it is. */
static const char *name_prefix(const struct loop *l, const struct job *j, char *buf, size_t len)
{
	if (!l->cfg->jobs_path)
		return "";
	snprintf(buf, len, "%s: ", j->name);
	return buf;
}

/* Clocks */

static struct clock_timer *timer_for(struct loop *l, clockid_t clock)
{
	for (int i = 0; i < CLOCKS; i++)
		if (l->timers[i].fd >= 0 && l->timers[i].clock == clock)
			return &l->timers[i];
	for (int i = 0; i < CLOCKS; i++) {
		struct clock_timer *ct = &l->timers[i];

		if (ct->fd >= 0)
			continue;
		ct->fd = timerfd_create(clock, TFD_CLOEXEC | TFD_NONBLOCK);
		if (ct->fd < 0)
			return NULL;
		ct->clock = clock;
		ct->read_clock = readable_clock(clock);
		ct->armed = INT64_MAX;
		return ct;
	}
	errno = EINVAL;
	return NULL;
}

static struct clock_timer *job_timer(struct loop *l, const struct job *j)
{
	for (int i = 0; i < CLOCKS; i++)
		if (l->timers[i].fd >= 0 && l->timers[i].clock == j->schedule.clock)
			return &l->timers[i];
	return NULL;
}

/* The interval the kernel may keep for CT: the earliest job's, when it
 * is a periodic timer. Then a single periodic job (tfd -i 1ms) costs no
 * timerfd_settime per tick: the kernel re-arms on the same grid. */
static int64_t kernel_period(const struct clock_timer *ct)
{
	const struct heap_node *top = heap_top(&ct->heap);
	const struct job *j = top ? top->item : NULL;

	return j && j->schedule.kind == SCHEDULE_TIMER ? j->schedule.interval_ns : 0;
}

/* Arms CT at the earliest elapse of its jobs (absolute). A realtime timer
 * also asks to hear of clock changes (ECANCELED). */
static void arm_clock(struct loop *l, struct clock_timer *ct)
{
	int64_t want = heap_min_key(&ct->heap), period = kernel_period(ct);
	struct itimerspec its = { .it_value = ns_to_timespec(want),
				  .it_interval = ns_to_timespec(period) };
	int flags = TFD_TIMER_ABSTIME;

	if (want == ct->armed && period == ct->period)
		return;
	if (want == INT64_MAX)
		its = (struct itimerspec){ { 0, 0 }, { 0, 0 } };
	else if (its.it_value.tv_sec <= 0 && its.it_value.tv_nsec == 0)
		/* A zero it_value would disarm it; the epoch itself (--at
		 * @0) is as past as any other past instant: fire at once. */
		its.it_value = (struct timespec){ 0, 1 };
	if (clock_is_realtime(ct->clock))
		flags |= TFD_TIMER_CANCEL_ON_SET;
	if (timerfd_settime(ct->fd, flags, &its, NULL) != 0) {
		fail(l, "timerfd_settime");
		return;
	}
	ct->armed = want;
	ct->period = want == INT64_MAX ? 0 : period;
}

/* After an expiration at or before NOW: where the kernel's periodic timer
 * goes off next (the first point of its grid after NOW), or -1 when only
 * timerfd_settime can say. */
static int64_t kernel_next(const struct clock_timer *ct, int64_t now)
{
	int64_t steps, next;

	if (ct->period <= 0 || ct->armed == INT64_MAX || ct->armed < 0)
		return -1;
	if (ct->armed > now)
		return ct->armed;
	steps = (now - ct->armed) / ct->period + 1;
	if (__builtin_mul_overflow(steps, ct->period, &next) ||
	    __builtin_add_overflow(ct->armed, next, &next))
		return -1;
	return next;
}

/* Deadlines */

static int64_t job_deadline(const struct job *j)
{
	int64_t d = j->runner ? runner_deadline(j->runner) : INT64_MAX;

	if (j->pending && j->pending_due < d)
		d = j->pending_due;
	if (j->running && j->for_deadline < d)
		d = j->for_deadline;
	return d;
}

static void update_deadline(struct loop *l, struct job *j)
{
	int64_t d = job_deadline(j);

	if (d == INT64_MAX)
		heap_remove(&l->aux, &j->aux_node);
	else if (heap_set(&l->aux, &j->aux_node, d) != 0) {
		errno = ENOMEM;
		fail(l, "malloc");
	}
}

static void arm_aux(struct loop *l)
{
	int64_t d = heap_min_key(&l->aux);
	struct itimerspec its;

	if (l->reload_due < d)
		d = l->reload_due;
	if (d == l->aux_armed)
		return;
	its = (struct itimerspec){ .it_value = ns_to_timespec(d) };
	if (d == INT64_MAX)
		its.it_value = (struct timespec){ 0, 0 };
	else if (d <= 0)
		its.it_value = (struct timespec){ 0, 1 };
	if (timerfd_settime(l->aux_fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
		fail(l, "timerfd_settime");
	l->aux_armed = d;
}

/* Schedules */

static int64_t saturating_add(int64_t a, int64_t b)
{
	int64_t sum;

	return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

static void end_schedule(struct loop *l, struct job *j)
{
	struct clock_timer *ct = job_timer(l, j);

	j->running = false;
	if (ct)
		heap_remove(&ct->heap, &j->due_node);
	update_deadline(l, j);
	l->metrics_dirty = true;
}

static void end_all_schedules(struct loop *l)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->running)
			end_schedule(l, l->jobs[i]);
}

/* Puts J's next expiration AT in its clock's heap. */
static void set_due(struct loop *l, struct job *j, int64_t at)
{
	struct clock_timer *ct = job_timer(l, j);

	j->due_ns = at;
	if (!ct || heap_set(&ct->heap, &j->due_node, at) != 0) {
		errno = ENOMEM;
		fail(l, "malloc");
	}
}

/* The first expiration strictly after AFTER_NS (a wall-clock schedule) or
 * the grid point after it (a timer); ends the schedule when there is none. */
static void schedule_after(struct loop *l, struct job *j, int64_t after_ns)
{
	const struct schedule *s = &j->schedule;
	int64_t next;

	if (s->kind == SCHEDULE_TIMER) {
		if (after_ns < s->first_ns || s->interval_ns == 0) {
			j->next_k = 1;
			set_due(l, j, s->first_ns);
			return;
		}
		/* Back onto the grid after a clock change: no drift. */
		j->next_k = (uint64_t)((after_ns - s->first_ns) / s->interval_ns) + 2;
		if (schedule_nth(s, j->next_k, &next) != 0) {
			end_schedule(l, j);
			return;
		}
		set_due(l, j, next);
		return;
	}
	if (schedule_next(s, after_ns, &next) != 0) {
		end_schedule(l, j);
		return;
	}
	set_due(l, j, next);
}

/* The first expiration as the user gave it: an --at in the past fires at
 * once with every missed interval counted, as the kernel does. */
static void schedule_first(struct loop *l, struct job *j)
{
	const struct schedule *s = &j->schedule;

	j->running = true;
	if (s->kind != SCHEDULE_TIMER) {
		schedule_after(l, j, clock_now_ns(j->read_clock));
		return;
	}
	j->next_k = 1;
	set_due(l, j, s->first_ns);
}

/* How many expirations lie in the wake-up at NOW (the due one and every
 * one missed since), and the scheduled time of the newest. */
static uint64_t count_expirations(struct job *j, int64_t now, int64_t *newest)
{
	const struct schedule *s = &j->schedule;
	uint64_t n = 1;

	*newest = j->due_ns;
	if (s->kind != SCHEDULE_TIMER)
		return n + schedule_count_missed(s, j->due_ns, now, MISSED_ELAPSES_CAP, newest);
	if (s->interval_ns > 0 && now > j->due_ns) {
		n += (uint64_t)((now - j->due_ns) / s->interval_ns);
		if (schedule_nth(s, j->next_k + n - 1, newest) != 0)
			*newest = INT64_MAX;
	}
	j->next_k += n;
	return n;
}

/* After a wake-up: the next expiration, or the end of the schedule. */
static void continue_schedule(struct loop *l, struct job *j, int64_t newest)
{
	const struct schedule *s = &j->schedule;
	int64_t next;

	if (j->count && j->total >= j->count)
		end_schedule(l, j);
	else if (s->kind != SCHEDULE_TIMER)
		schedule_after(l, j, newest);
	else if (s->interval_ns == 0 || schedule_nth(s, j->next_k, &next) != 0)
		end_schedule(l, j);
	else
		set_due(l, j, next);
}

/* Monotonic time of J's next scheduled run, for retries. */
static int64_t next_run_mono(const struct job *j)
{
	int64_t now_clock, mono, left;

	if (!j->running)
		return INT64_MAX;
	now_clock = clock_now_ns(j->read_clock);
	mono = clock_now_ns(CLOCK_MONOTONIC);
	if (__builtin_sub_overflow(j->due_ns, now_clock, &left))
		return INT64_MAX;
	return saturating_add(mono, left);
}

/* Wall-clock time of J's next expiration, for metrics (0: none). */
static int64_t next_run_wall(const struct job *j)
{
	int64_t left;

	if (!j->running)
		return 0;
	if (clock_is_realtime(j->schedule.clock))
		return j->due_ns;
	if (__builtin_sub_overflow(j->due_ns, clock_now_ns(j->read_clock), &left))
		return 0;
	return saturating_add(clock_now_ns(CLOCK_REALTIME), left);
}

/* Metrics */

static void write_metrics(struct loop *l)
{
	const char **names;
	struct job_metrics *m;
	char err[1024];
	size_t n = 0;

	l->metrics_dirty = false;
	if (!l->cfg->metrics_path)
		return;
	names = calloc(l->njobs + 1, sizeof *names);
	m = calloc(l->njobs + 1, sizeof *m);
	if (!names || !m) {
		free(names);
		free(m);
		report_error(l, NULL, "malloc", "--metrics: out of memory");
		return;
	}
	for (size_t i = 0; i < l->njobs; i++) {
		struct job *j = l->jobs[i];

		if (j->removed)
			continue;
		names[n] = j->name;
		m[n] = j->metrics;
		m[n].running = j->runner ? runner_active(j->runner) : 0;
		m[n].next_run_ns = next_run_wall(j);
		n++;
	}
	if (metrics_write(l->cfg->metrics_path, names, m, n, err, sizeof err) != 0)
		report_error(l, NULL, "metrics", err);
	free(names);
	free(m);
}

/* Actions */

static void persist_now(struct loop *l, struct job *j, int64_t wall_ns)
{
	char err[1024];

	if (j->persist_path && persist_write(j->persist_path, wall_ns, err, sizeof err) != 0)
		report_error(l, j, "persist", err);
}

static void emit_tick(struct loop *l, const struct job *j, const struct tick *t)
{
	if (l->cfg->quiet)
		return;
	if (l->cfg->json)
		emit_out(l, l->line, json_tick(l->line, l->line_cap, t));
	else if (j->format)
		emit_out(l, l->line, format_tick(l->line, l->line_cap, j->format, t));
}

/* The action of one wake-up: start a run (per --overlap) and print. */
static void act(struct loop *l, struct job *j, struct tick *t)
{
	const char *what = NULL;

	if (j->runner && !j->removed) {
		t->action = runner_tick(j->runner, t, clock_now_ns(CLOCK_MONOTONIC), &what);
		if (!t->action) {
			fail(l, what);
			return;
		}
		if (strcmp(t->action, "skip") == 0)
			j->metrics.skipped++;
		update_deadline(l, j);
	}
	if (!j->runner || strcmp(t->action, "skip") != 0)
		persist_now(l, j, t->wall_ns);
	emit_tick(l, j, t);
	l->metrics_dirty = l->metrics_dirty || (t->action && strcmp(t->action, "skip") == 0);
}

/* A uniform draw from 0..bound (inclusive) taken from getrandom(), with
 * rejection so that no value is likelier than another. */
static int64_t random_upto(int64_t bound)
{
	uint64_t span = (uint64_t)bound + 1, limit, r;

	if (span == 0)
		span = UINT64_MAX;
	limit = UINT64_MAX - UINT64_MAX % span;
	do {
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			r = (uint64_t)clock_now_ns(CLOCK_MONOTONIC) * UINT64_C(0x9e3779b97f4a7c15);
	} while (r >= limit);
	return (int64_t)(r % span);
}

/* --random-delay: the action waits, but never past the next expiration, so
 * ticks never pile up behind delayed actions. */
static void act_later(struct loop *l, struct job *j, const struct tick *t)
{
	int64_t bound = j->random_delay_ns;

	if (j->running && t->next_in_ns > 0 && t->next_in_ns - 1 < bound)
		bound = t->next_in_ns - 1;
	j->pending = true;
	j->pending_tick = *t;
	j->pending_due = saturating_add(clock_now_ns(CLOCK_MONOTONIC), random_upto(bound));
	update_deadline(l, j);
}

/* The time to J's next expiration and its interval: timerfd_gettime's
 * answer when J's elapse is the one its clock's timer is armed at. */
static void job_setting(struct loop *l, struct job *j, int64_t *next_in, int64_t *interval)
{
	struct clock_timer *ct = job_timer(l, j);
	struct itimerspec cur;

	*interval = j->schedule.kind == SCHEDULE_TIMER ? j->schedule.interval_ns : 0;
	*next_in = 0;
	if (!j->running || !ct)
		return;
	arm_clock(l, ct);
	if (heap_top(&ct->heap) == &j->due_node && ct->armed == j->due_ns &&
	    timerfd_gettime(ct->fd, &cur) == 0) {
		*next_in = timespec_to_ns(cur.it_value);
		return;
	}
	*next_in = j->due_ns - clock_now_ns(j->read_clock);
	if (*next_in < 0)
		*next_in = 0;
}

static void emit_setting(struct loop *l, struct job *j, const char *what)
{
	char label[256];
	int64_t next_in, interval;

	if (l->cfg->jobs_path)
		snprintf(label, sizeof label, "%s%s%s", j->name, what[0] ? ": " : "", what);
	else
		snprintf(label, sizeof label, "%s", what[0] ? what : "setting");
	job_setting(l, j, &next_in, &interval);
	emit_err(l, l->line, format_setting(l->line, l->line_cap, label, next_in, interval));
}

/* Wake-ups */

static void job_wake(struct loop *l, struct job *j, int64_t now)
{
	struct tick t = { .job = j->name, .local = l->cfg->local };
	int64_t newest;
	uint64_t n = count_expirations(j, now, &newest);

	j->total += n;
	j->seq++;
	j->metrics.missed += n - 1;
	continue_schedule(l, j, newest);
	t.seq = j->seq;
	t.expirations = n;
	t.total = j->total;
	t.wall_ns = clock_is_realtime(j->read_clock) ? now : clock_now_ns(CLOCK_REALTIME);
	t.elapsed_ns = clock_now_ns(CLOCK_MONOTONIC) - l->cfg->start_mono_ns;
	t.late_ns = newest == INT64_MAX ? 0 : now - newest;
	t.interval_ns = j->schedule.kind == SCHEDULE_TIMER ? j->schedule.interval_ns : 0;
	if (j->running)
		t.next_in_ns = j->due_ns > now ? j->due_ns - now : 0;
	if (l->cfg->stats)
		stats_add(&l->stats, n, t.late_ns);
	if (j->pending)
		act(l, j, &j->pending_tick);
	j->pending = false;
	if (j->random_delay_ns)
		act_later(l, j, &t);
	else
		act(l, j, &t);
	if (l->cfg->verbose) {
		char what[32];

		snprintf(what, sizeof what, "tick %" PRIu64, t.seq);
		emit_setting(l, j, what);
	}
}

/* The realtime clock was set: elapses that the step skipped are counted
 * as missed at the next wake-up (now, for those already due), and the
 * others are recomputed from the new time. */
static void clock_was_set(struct loop *l, struct clock_timer *ct)
{
	int64_t now = clock_now_ns(ct->read_clock);
	size_t n = ct->heap.n;
	struct job **moved = calloc(n + 1, sizeof *moved);

	if (!moved) {
		errno = ENOMEM;
		fail(l, "malloc");
		return;
	}
	for (size_t i = 0; i < n; i++)
		moved[i] = ct->heap.nodes[i]->item;
	for (size_t i = 0; i < n; i++) {
		struct job *j = moved[i];

		if (l->cfg->json)
			emit_out(l, l->line, json_clock(l->line, l->line_cap, j->name,
							clock_now_ns(CLOCK_REALTIME)));
		if (j->due_ns > now)
			schedule_after(l, j, now);
	}
	free(moved);
	if (!l->cfg->json)
		emit_errf(l, "tfd: the realtime clock was set; schedule recomputed\n");
	ct->armed = -1;
}

static void on_clock_timer(struct loop *l, struct clock_timer *ct)
{
	uint64_t n;
	int64_t now;
	size_t budget;

	if (read(ct->fd, &n, sizeof n) != (ssize_t)sizeof n) {
		if (errno == ECANCELED)
			clock_was_set(l, ct);
		else if (errno != EAGAIN && errno != EINTR) {
			fail(l, "read (timerfd)");
			return;
		}
	}
	now = clock_now_ns(ct->read_clock);
	ct->armed = kernel_next(ct, now);
	/* Each due job is moved past NOW, so this ends; the budget only
	 * guards against a schedule that would not move. */
	for (budget = ct->heap.n; budget > 0 && heap_min_key(&ct->heap) <= now &&
				  l->phase == PHASE_RUNNING; budget--)
		job_wake(l, heap_top(&ct->heap)->item, now);
}

/* Runs and their ends */

static void take_terminal(struct loop *l)
{
	if (l->tty_fd >= 0 && l->tty_owner) {
		tcsetpgrp(l->tty_fd, getpgrp());
		l->tty_owner = 0;
	}
}

/* Called by a runner for every run it starts. */
static void run_started(void *arg, const struct run_started *s);

static bool run_failed(const struct run_end *e)
{
	return !e->superseded && (e->signal != 0 || e->status != 0);
}

static int run_status(const struct run_end *e)
{
	return e->signal ? 128 + e->signal : e->status;
}

static void emit_run_end(struct loop *l, const struct job *j, const struct run_end *e)
{
	char name[16], buf[300];
	const char *prefix;

	if (l->cfg->json) {
		emit_out(l, l->line, json_exit(l->line, l->line_cap, e));
		return;
	}
	if (!run_failed(e))
		return;
	prefix = name_prefix(l, j, buf, sizeof buf);
	if (e->signal)
		emit_errf(l, "tfd: %srun %" PRIu64 " (pid %d)%s killed by %s\n", prefix,
			  e->seq, e->pid, e->timed_out ? " timed out and was" : " was",
			  signal_name(e->signal, name, sizeof name));
	else
		emit_errf(l, "tfd: %srun %" PRIu64 " (pid %d)%s exited with status %d\n", prefix,
			  e->seq, e->pid, e->timed_out ? " timed out and" : "", e->status);
}

static void count_run_end(struct job *j, const struct run_end *e)
{
	struct job_metrics *m = &j->metrics;

	/* A try that will be tried again is not an outcome yet. */
	if (run_failed(e) && !e->failed)
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
	if (!run_failed(e))
		m->last_success_ns = clock_now_ns(CLOCK_REALTIME);
}

/* A run's end, once its output (if captured) has all been written. */
static void finish_run(struct loop *l, struct job *j, const struct run_end *e)
{
	emit_run_end(l, j, e);
	count_run_end(j, e);
	l->metrics_dirty = true;
	if (l->phase == PHASE_SHUTDOWN || l->status_final)
		return;
	if (!l->cfg->jobs_path && !schedule_repeats(&j->schedule))
		l->status = run_status(e);
	/* -E ends tfd: the other runs, of this job or any other, are ended as
	 * a SIGTERM to tfd would end them, not waited for (a long job's run
	 * would keep tfd up long after the failure). */
	if (l->cfg->exit_on_error && e->failed) {
		l->status = run_status(e);
		l->status_final = true;
		begin_shutdown(l, SIGTERM);
	}
}

static struct run_outputs *outputs_of(struct loop *l, pid_t pid)
{
	for (size_t i = 0; i < l->nreaders; i++)
		if (l->readers[i]->run->pid == pid && !l->readers[i]->run->ended)
			return l->readers[i]->run;
	return NULL;
}

static void run_ended(struct loop *l, struct job *j, const struct run_end *e)
{
	struct run_outputs *ro = outputs_of(l, e->pid);

	if (ro) {
		ro->ended = true;
		ro->end = *e;
		return;
	}
	finish_run(l, j, e);
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

static void drop_job(struct loop *l, size_t i);

/* A run's leader ended. ^C or ^\ in the terminal reached only the run
 * that held it: tfd ends as if it had been sent the signal itself. */
static void leader_ended(struct loop *l, struct job *j, const struct run_end *e)
{
	bool held = l->tty_owner == e->pid;

	pidmap_del(&l->pids, e->pid);
	if (held)
		take_terminal(l);
	run_ended(l, j, e);
	if (held && (e->signal == SIGINT || e->signal == SIGQUIT))
		begin_shutdown(l, e->signal);
}

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
		update_deadline(l, j);
	}
}

/* Jobs a reload removed leave the table once their last run is gone. */
static void drop_finished_removed(struct loop *l)
{
	for (size_t i = 0; i < l->njobs;) {
		struct job *j = l->jobs[i];

		if (j->removed && !(j->runner && runner_busy(j->runner)) &&
		    !outputs_pending_for(l, j))
			drop_job(l, i);
		else
			i++;
	}
}

/* Every child is reaped here: runs and, as subreaper or PID 1, orphans. */
static void reap_children(struct loop *l)
{
	int wstatus;
	pid_t pid;

	while ((pid = waitpid(-1, &wstatus, WNOHANG | WUNTRACED)) > 0) {
		struct job *j = pidmap_get(&l->pids, pid);
		struct run_end end = { 0 };
		const char *failed = NULL;
		enum reaped what;

		if (!j) {
			if (!WIFSTOPPED(wstatus))
				reap_unknown(l, pid, wstatus);
			continue;
		}
		what = runner_reaped(j->runner, pid, wstatus, clock_now_ns(CLOCK_MONOTONIC),
				     next_run_mono(j), &end, &failed);
		if (what == REAPED_RUN)
			leader_ended(l, j, &end);
		else if (what == REAPED_STOPPED)
			run_stopped(l, pid);
		if (failed)
			fail(l, failed);
		update_deadline(l, j);
	}
	drop_finished_removed(l);
}

/* Captured output */

struct line_target {
	struct loop *l;
	const struct reader *r;
};

static size_t big_reserve(struct loop *l, size_t need)
{
	if (need > l->big_cap) {
		char *big = realloc(l->big, need);

		if (!big)
			return 0;
		l->big = big;
		l->big_cap = need;
	}
	return l->big_cap;
}

/* One line of a run's output, as "JOB[SEQ]: LINE" on the stream it came
 * from, or as an "output" event. */
static void captured_line(void *arg, const char *line, size_t len)
{
	struct line_target *t = arg;
	struct loop *l = t->l;
	const struct reader *r = t->r;
	const char *name = r->run->job->name;
	size_t cap;

	if (l->cfg->json) {
		cap = big_reserve(l, REPORT_OUTPUT_MAX(len, strlen(name)));
		if (!cap) {
			errno = ENOMEM;
			fail(l, "malloc");
			return;
		}
		emit_out(l, l->big, json_output(l->big, cap, name, r->seq,
						 r->stream == 1 ? "stdout" : "stderr", line, len));
		return;
	}
	cap = big_reserve(l, strlen(name) + len + 32);
	if (!cap) {
		errno = ENOMEM;
		fail(l, "malloc");
		return;
	}
	{
		int head = snprintf(l->big, cap, "%s[%" PRIu64 "]: ", name, r->seq);

		memcpy(l->big + head, line, len);
		l->big[(size_t)head + len] = '\n';
		emit(l, r->stream == 1 ? &l->out : &l->err, l->big, (size_t)head + len + 1);
	}
}

static void close_reader(struct loop *l, size_t i)
{
	struct reader *r = l->readers[i];
	struct run_outputs *ro = r->run;
	struct line_target t = { l, r };

	capture_finish(&r->cap, captured_line, &t);
	capture_free(&r->cap);
	close(r->fd);
	l->readers[i] = l->readers[--l->nreaders];
	free(r);
	if (--ro->open == 0) {
		if (ro->ended)
			finish_run(l, ro->job, &ro->end);
		free(ro);
	}
}

static void on_reader(struct loop *l, size_t i)
{
	struct reader *r = l->readers[i];
	struct line_target t = { l, r };
	char buf[CAPTURE_READ_MAX];
	ssize_t n = read(r->fd, buf, sizeof buf);

	if (n > 0) {
		if (capture_feed(&r->cap, buf, (size_t)n, captured_line, &t) != 0) {
			errno = ENOMEM;
			fail(l, "malloc");
		}
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	close_reader(l, i);
}

static int add_reader(struct loop *l, struct run_outputs *ro, int fd, int stream, uint64_t seq)
{
	struct reader *r;

	if (l->nreaders == l->readers_cap) {
		size_t cap = l->readers_cap ? l->readers_cap * 2 : 8;
		struct reader **rs = realloc(l->readers, cap * sizeof *rs);

		if (!rs)
			return -1;
		l->readers = rs;
		l->readers_cap = cap;
	}
	r = calloc(1, sizeof *r);
	if (!r)
		return -1;
	*r = (struct reader){ .fd = fd, .stream = stream, .seq = seq, .run = ro };
	l->readers[l->nreaders++] = r;
	ro->open++;
	return 0;
}

static bool outputs_pending_for(const struct loop *l, const struct job *j)
{
	for (size_t i = 0; i < l->nreaders; i++)
		if (l->readers[i]->run->job == j)
			return true;
	return false;
}

static void run_started(void *arg, const struct run_started *s)
{
	struct job *j = arg;
	struct loop *l = j->loop;
	struct run_outputs *ro;

	if (pidmap_put(&l->pids, s->pid, j) != 0) {
		errno = ENOMEM;
		fail(l, "malloc");
	}
	if (l->tty_fd >= 0)
		l->tty_owner = s->pid;
	j->metrics.last_start_ns = clock_now_ns(CLOCK_REALTIME);
	l->metrics_dirty = true;
	if (s->out_fd < 0)
		return;
	ro = calloc(1, sizeof *ro);
	if (!ro || add_reader(l, ro, s->out_fd, 1, s->seq) != 0 ||
	    add_reader(l, ro, s->err_fd, 2, s->seq) != 0) {
		/* Without a reader the pipe has no other end: the run
		 * sees EPIPE, tfd says why. */
		if (ro && ro->open == 0)
			free(ro);
		errno = ENOMEM;
		fail(l, "malloc");
		return;
	}
	ro->job = j;
	ro->pid = s->pid;
}

/* Signals */

static void begin_shutdown(struct loop *l, int sig)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	if (l->phase != PHASE_SHUTDOWN && !l->status_final)
		l->status = 128 + sig;
	l->phase = PHASE_SHUTDOWN;
	for (size_t i = 0; i < l->njobs; i++) {
		struct job *j = l->jobs[i];

		if (j->running)
			end_schedule(l, j);
		j->pending = false;
		if (j->runner)
			runner_signal_all(j->runner, sig, now);
		update_deadline(l, j);
	}
}

static void forward_signal(struct loop *l, int sig)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->runner)
			runner_forward(l->jobs[i]->runner, sig);
}

static void print_settings(struct loop *l)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->removed)
			emit_setting(l, l->jobs[i], "");
}

static void on_signal(struct loop *l)
{
	struct signalfd_siginfo si[16];
	ssize_t n = read(l->signal_fd, si, sizeof si);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			fail(l, "read (signalfd)");
		return;
	}
	for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++) {
		int sig = (int)si[i].ssi_signo;

		if (sig == SIGCHLD)
			reap_children(l);
		else if (sig == SIGUSR1)
			print_settings(l);
		else if (sig == SIGUSR2)
			forward_signal(l, sig);
		else if (sig == SIGTTIN || sig == SIGTTOU)
			continue;
		else if (sig == SIGHUP && l->cfg->jobs_path && l->phase == PHASE_RUNNING) {
			l->reload_due = clock_now_ns(CLOCK_MONOTONIC);
			l->reload_forced = true;
		} else
			begin_shutdown(l, sig);
	}
}

/* The --join target exited: a run now would start in the wrong place. */
static void on_join_target_exit(struct loop *l, struct job *j)
{
	emit_errf(l, "tfd: --join: the target process exited; stopping\n");
	spawn_target_close(&j->target);
	if (l->phase == PHASE_SHUTDOWN)
		return;
	begin_shutdown(l, SIGTERM);
	l->status = 1;
	l->status_final = true;
}

/* Deadlines: timeouts, graces, retries, --random-delay, --for, reload */

static void reload_jobs(struct loop *l);

static void job_deadline_due(struct loop *l, struct job *j, int64_t now)
{
	const char *failed = NULL;

	if (j->runner) {
		runner_expire(j->runner, now, &failed);
		if (failed)
			fail(l, failed);
	}
	if (j->pending && j->pending_due <= now) {
		j->pending = false;
		act(l, j, &j->pending_tick);
	}
	if (j->running && j->for_deadline <= now)
		end_schedule(l, j);
	update_deadline(l, j);
}

static void on_deadline(struct loop *l)
{
	uint64_t n;
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);
	size_t budget = l->aux.n;

	if (read(l->aux_fd, &n, sizeof n) < 0 && errno != EAGAIN)
		fail(l, "read (timerfd)");
	l->aux_armed = -1;
	for (; budget > 0 && heap_min_key(&l->aux) <= now; budget--)
		job_deadline_due(l, heap_top(&l->aux)->item, now);
	if (l->reload_due <= now)
		reload_jobs(l);
}

/* The jobs file */

static void start_job(struct loop *l, struct job *j);

static uint64_t hash_text(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	while (*s)
		h = (h ^ (unsigned char)*s++) * UINT64_C(1099511628211);
	return h;
}

/* Old jobs by identity, for a reload to find the ones it keeps. */
struct identity_index {
	struct job **slots;
	size_t mask;
};

static int index_jobs(struct identity_index *ix, struct job **jobs, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	ix->slots = calloc(cap, sizeof *ix->slots);
	if (!ix->slots)
		return -1;
	ix->mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (jobs[i]->removed)
			continue;
		for (k = hash_text(jobs[i]->identity) & ix->mask; ix->slots[k]; k = (k + 1) & ix->mask)
			;
		ix->slots[k] = jobs[i];
	}
	return 0;
}

/* Takes the kept job out of the index so that a line twice is two jobs. */
static struct job *take_identity(struct identity_index *ix, const char *identity)
{
	for (size_t k = hash_text(identity) & ix->mask; ix->slots[k]; k = (k + 1) & ix->mask) {
		struct job *j = ix->slots[k];

		if (j != (struct job *)ix && strcmp(j->identity, identity) == 0) {
			ix->slots[k] = (struct job *)ix;  /* a tombstone */
			return j;
		}
	}
	return NULL;
}

static void remove_job(struct loop *l, struct job *j)
{
	if (j->running)
		end_schedule(l, j);
	j->removed = true;
	j->pending = false;
	if (j->runner)
		runner_drop_waiting(j->runner);
	update_deadline(l, j);
}

struct reload_counts {
	size_t added, removed, kept;
};

/* The new table in file order: kept jobs as they were, new ones started,
 * then the removed jobs that still have runs. */
static int merge_table(struct loop *l, struct job_table *t, struct reload_counts *c)
{
	struct identity_index ix;
	struct job **jobs = calloc(t->n + l->njobs + 1, sizeof *jobs);
	size_t n = 0;

	if (!jobs || index_jobs(&ix, l->jobs, l->njobs) != 0) {
		free(jobs);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct job *old = take_identity(&ix, t->jobs[i]->identity);

		if (old) {
			job_free(t->jobs[i]);
			jobs[n++] = old;
			old->kept = true;
			c->kept++;
		} else {
			jobs[n++] = t->jobs[i];
			t->jobs[i]->kept = false;
			t->jobs[i]->fresh = true;
			c->added++;
		}
	}
	for (size_t i = 0; i < l->njobs; i++) {
		struct job *j = l->jobs[i];

		if (j->removed) {
			jobs[n++] = j;
		} else if (!j->kept) {
			remove_job(l, j);
			jobs[n++] = j;
			c->removed++;
		}
		j->kept = false;
	}
	free(ix.slots);
	free(l->jobs);
	free(t->jobs);
	l->jobs = jobs;
	l->njobs = n;
	for (size_t i = 0; i < n; i++) {
		if (jobs[i]->fresh) {
			jobs[i]->fresh = false;
			/* @reboot lines run at start only, never on reload. */
			if (!jobs[i]->reboot)
				start_job(l, jobs[i]);
		}
	}
	return 0;
}

static void report_reload(struct loop *l, const struct reload_counts *c, const char *error)
{
	if (error)
		emit_errf(l, "tfd: %s\n", error);
	else if (l->cfg->verbose)
		emit_errf(l, "tfd: reloaded %s: %zu added, %zu removed, %zu kept\n",
			  l->cfg->jobs_path, c->added, c->removed, c->kept);
	if (l->cfg->json)
		emit_out(l, l->line, json_reload(l->line, l->line_cap, !error, c->added,
						 c->removed, c->kept, error));
}

static void reload_jobs(struct loop *l)
{
	struct job_table t = { 0 };
	struct reload_counts c = { 0 };
	char err[1024];
	int rc;

	l->reload_due = INT64_MAX;
	if (l->phase != PHASE_RUNNING || !l->cfg->reload)
		return;
	rc = l->cfg->reload(l->cfg->reload_arg, &t, l->reload_forced, err, sizeof err);
	l->reload_forced = false;
	if (rc > 0)
		return;   /* the file is as it was */
	if (rc < 0) {
		report_reload(l, &c, err);
		return;
	}
	if (merge_table(l, &t, &c) != 0) {
		for (size_t i = 0; i < t.n; i++)
			job_free(t.jobs[i]);
		free(t.jobs);
		report_reload(l, &c, "reload: out of memory");
		return;
	}
	l->had_jobs = l->had_jobs || t.n > 0;
	report_reload(l, &c, NULL);
	drop_finished_removed(l);
	write_metrics(l);
}

/* Whether the file just created at PATH came whole: a symbolic link or a
 * second name of a file (ln). A file that open() created is still being
 * written; its IN_CLOSE_WRITE says when it is whole. */
static bool linked_into_place(const char *path)
{
	struct stat st;

	return lstat(path, &st) != 0 || S_ISLNK(st.st_mode) || st.st_nlink > 1;
}

/* A change in the jobs file's directory: the file itself written and
 * closed or moved into place, or a "..data" symlink swapped (a Kubernetes
 * ConfigMap). Events on other names are someone else's. */
static bool event_concerns(const struct loop *l, const struct inotify_event *ev)
{
	const char *path = l->cfg->jobs_path, *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (ev->len == 0)
		return false;
	if (strncmp(ev->name, "..", 2) == 0)
		return true;
	if (strcmp(ev->name, base) != 0)
		return false;
	return !(ev->mask & IN_CREATE) || linked_into_place(path);
}

static void on_inotify(struct loop *l)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	bool hit = false;

	while ((n = read(l->inotify_fd, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			hit = hit || event_concerns(l, ev);
			p += sizeof *ev + ev->len;
		}
	}
	if (hit)
		l->reload_due = saturating_add(clock_now_ns(CLOCK_MONOTONIC), RELOAD_SETTLE_NS);
}

static void watch_jobs_file(struct loop *l)
{
	const char *path = l->cfg->jobs_path, *slash;
	char dir[4096];

	if (!path)
		return;
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	l->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (l->inotify_fd < 0 ||
	    inotify_add_watch(l->inotify_fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
		/* SIGHUP still reloads. */
		emit_errf(l, "tfd: warning: inotify (%s): %s; reload with SIGHUP\n", dir,
			  strerror(errno));
		if (l->inotify_fd >= 0)
			close(l->inotify_fd);
		l->inotify_fd = -1;
	}
}

/* Setup */

/* The signals that end tfd, as they would end it by default, except that
 * tfd first passes them to its runs and waits for them. */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGVTALRM, SIGPROF,
	SIGXCPU, SIGXFSZ, SIGPWR, SIGIO,
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

static int open_signalfd(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	/* tfd hands the terminal to its runs and takes it back; as a
	 * background group it must not be stopped for that. */
	sigaddset(&mask, SIGTTIN);
	sigaddset(&mask, SIGTTOU);
	for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
		if (!inherited_ignore(stop_signals[i]))
			sigaddset(&mask, stop_signals[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(&mask, sig);
	/* A parent that ignores SIGCHLD would have children auto-reaped and
	 * their statuses lost; EPIPE is handled where write() returns it. */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) != 0)
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* In the foreground of a terminal, runs get it in turn (and tfd back). */
static void find_terminal(struct loop *l)
{
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp())
		l->tty_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
}

static int start_runner(struct loop *l, struct job *j)
{
	struct runner_config rc = j->run;

	if (!j->path)
		return 0;
	rc.name = j->name;
	rc.envp = j->envp;
	rc.exit_on_error = l->cfg->exit_on_error;
	rc.tty_fd = l->tty_fd;
	rc.on_start = run_started;
	rc.on_start_arg = j;
	j->runner = runner_new(&rc);
	if (!j->runner) {
		errno = ENOMEM;
		fail(l, "malloc");
		return -1;
	}
	return 0;
}

/* The persisted schedule missed a run while tfd was not running: one run
 * at once, numbered 0, printed as no tick. */
static void catch_up(struct loop *l, struct job *j)
{
	struct tick t = { .job = j->name, .local = l->cfg->local,
			  .wall_ns = clock_now_ns(CLOCK_REALTIME) };
	const char *what = NULL;

	if (j->runner && !runner_tick(j->runner, &t, clock_now_ns(CLOCK_MONOTONIC), &what)) {
		fail(l, what);
		return;
	}
	persist_now(l, j, t.wall_ns);
}

static void start_job(struct loop *l, struct job *j)
{
	j->loop = l;
	if (start_runner(l, j) != 0)
		return;
	if (!timer_for(l, j->schedule.clock)) {
		emit_errf(l, "tfd: timerfd_create (%s): %s\n", j->clock_name, strerror(errno));
		if (!l->status_final) {
			l->status = 1;
			l->status_final = true;
		}
		begin_shutdown(l, SIGTERM);
		return;
	}
	if (j->for_ns)
		j->for_deadline = saturating_add(l->cfg->start_mono_ns, j->for_ns);
	if (j->persist_catch_up)
		catch_up(l, j);
	if (l->phase == PHASE_RUNNING)
		schedule_first(l, j);
	update_deadline(l, j);
	if (l->cfg->verbose && j->running)
		emit_setting(l, j, "armed");
}

static void drop_job(struct loop *l, size_t i)
{
	struct job *j = l->jobs[i];

	heap_remove(&l->aux, &j->aux_node);
	job_free(j);
	memmove(&l->jobs[i], &l->jobs[i + 1], (l->njobs - i - 1) * sizeof *l->jobs);
	l->njobs--;
}

/* stdout and stderr first: a failure below is reported on stderr (the
 * struct output for it, zeroed, would otherwise write to descriptor 0). */
static int open_descriptors(struct loop *l)
{
	output_open(&l->out, STDOUT_FILENO, "stdout");
	output_open(&l->err, STDERR_FILENO, "stderr");
	l->signal_fd = open_signalfd();
	if (l->signal_fd < 0) {
		fail(l, "signalfd");
		return -1;
	}
	l->aux_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->aux_fd < 0) {
		fail(l, "timerfd_create (monotonic)");
		return -1;
	}
	return 0;
}

static void close_descriptors(struct loop *l)
{
	int fds[] = { l->signal_fd, l->aux_fd, l->inotify_fd, l->tty_fd, l->precise_fd };

	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < CLOCKS; i++) {
		if (l->timers[i].fd >= 0)
			close(l->timers[i].fd);
		heap_free(&l->timers[i].heap);
	}
	while (l->nreaders > 0)
		close_reader(l, l->nreaders - 1);
	output_close(&l->out);
	output_close(&l->err);
}

/* The loop */

static bool busy(const struct loop *l)
{
	for (size_t i = 0; i < l->njobs; i++) {
		const struct job *j = l->jobs[i];

		if (j->running || j->pending || (j->runner && runner_busy(j->runner)))
			return true;
	}
	return l->nreaders > 0;
}

/* After the last schedule ends, groups that runs left behind are ended
 * too (unless a timeout will): a one-shot tfd leaves nothing running. */
static void finish_groups(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->running || l->jobs[i]->pending)
			return;
	for (size_t i = 0; i < l->njobs; i++) {
		if (!l->jobs[i]->runner)
			continue;
		runner_finish_groups(l->jobs[i]->runner, now);
		update_deadline(l, l->jobs[i]);
	}
}

static bool finished(struct loop *l)
{
	if (l->phase == PHASE_SHUTDOWN)
		return !busy(l);
	/* A jobs file that never had a job waits for a reload. */
	if (l->cfg->jobs_path && !l->had_jobs)
		return false;
	if (output_pending(&l->out) || output_pending(&l->err))
		return false;
	if (!busy(l))
		return true;
	finish_groups(l);
	return false;
}

static struct pollfd *poll_slot(struct loop *l, size_t *n, int fd, short events)
{
	if (*n == l->pfd_cap) {
		size_t cap = l->pfd_cap ? l->pfd_cap * 2 : 32;
		struct pollfd *p = realloc(l->pfd, cap * sizeof *p);

		if (!p)
			return NULL;
		l->pfd = p;
		l->pfd_cap = cap;
	}
	l->pfd[*n] = (struct pollfd){ .fd = fd, .events = events };
	return &l->pfd[(*n)++];
}

/* The poll set, in a fixed order that dispatch() walks again. While a
 * line waits for tfd's stdout or stderr, timers and run output are left
 * unread: the kernel counts expirations meanwhile and runs block on their
 * pipes, while signals, deadlines and children are still served. In
 * shutdown a stuck reader is not waited for (drain_output), so run pipes
 * are read on: their ends must be seen for tfd to exit. */
static size_t build_poll_set(struct loop *l, bool *blocked)
{
	size_t n = 0;

	*blocked = output_pending(&l->out) || output_pending(&l->err);
	poll_slot(l, &n, l->signal_fd, POLLIN);
	poll_slot(l, &n, l->aux_fd, POLLIN);
	poll_slot(l, &n, l->inotify_fd, POLLIN);
	poll_slot(l, &n, output_pending(&l->out) ? l->out.fd : -1, POLLOUT);
	poll_slot(l, &n, output_pending(&l->err) ? l->err.fd : -1, POLLOUT);
	for (int i = 0; i < CLOCKS; i++)
		poll_slot(l, &n, *blocked ? -1 : l->timers[i].fd, POLLIN);
	l->njoin_slots = 0;
	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->target.join_pidfd >= 0 && poll_slot(l, &n, l->jobs[i]->target.join_pidfd, POLLIN))
			l->njoin_slots++;
	for (size_t i = 0; i < l->nreaders; i++)
		poll_slot(l, &n, *blocked && l->phase != PHASE_SHUTDOWN ? -1 : l->readers[i]->fd,
			  POLLIN);
	return n;
}

static void dispatch(struct loop *l, size_t n)
{
	size_t k = 5 + CLOCKS, njoin = l->njoin_slots, nreaders = l->nreaders;

	if (l->pfd[0].revents)
		on_signal(l);
	if (l->pfd[1].revents)
		on_deadline(l);
	if (l->pfd[2].revents)
		on_inotify(l);
	if (l->pfd[3].revents) {
		output_flush(&l->out);
		check_output(l);
	}
	if (l->pfd[4].revents)
		output_flush(&l->err);
	for (int i = 0; i < CLOCKS; i++)
		if (l->pfd[5 + i].revents && l->timers[i].fd >= 0)
			on_clock_timer(l, &l->timers[i]);
	/* The table may have changed under a reload or a reap: what the
	 * poll set saw is matched by descriptor, not by position. */
	for (size_t i = 0; i < njoin && k < n; i++, k++) {
		if (!l->pfd[k].revents)
			continue;
		for (size_t x = 0; x < l->njobs; x++)
			if (l->jobs[x]->target.join_pidfd == l->pfd[k].fd) {
				on_join_target_exit(l, l->jobs[x]);
				break;
			}
	}
	for (size_t i = 0; i < nreaders && k < n; i++, k++) {
		if (!l->pfd[k].revents)
			continue;
		for (size_t x = 0; x < l->nreaders; x++)
			if (l->readers[x]->fd == l->pfd[k].fd) {
				on_reader(l, x);
				break;
			}
	}
}

static void wait_for_events(struct loop *l)
{
	bool blocked;
	size_t n;

	for (int i = 0; i < CLOCKS; i++)
		if (l->timers[i].fd >= 0)
			arm_clock(l, &l->timers[i]);
	arm_aux(l);
	if (l->metrics_dirty)
		write_metrics(l);
	n = build_poll_set(l, &blocked);
	if (poll(l->pfd, n, -1) < 0) {
		if (errno != EINTR)
			fail(l, "poll");
		return;
	}
	dispatch(l, n);
}

static void init_loop(struct loop *l, struct loop_config *cfg)
{
	memset(l, 0, sizeof *l);
	l->cfg = cfg;
	l->signal_fd = l->aux_fd = l->inotify_fd = l->tty_fd = l->precise_fd = -1;
	for (int i = 0; i < CLOCKS; i++) {
		l->timers[i].fd = -1;
		heap_init(&l->timers[i].heap);
	}
	heap_init(&l->aux);
	pidmap_init(&l->pids);
	l->aux_armed = INT64_MAX;
	l->reload_due = INT64_MAX;
	l->jobs = cfg->table.jobs;
	l->njobs = cfg->table.n;
	l->had_jobs = cfg->table.n > 0;
	cfg->table = (struct job_table){ 0 };
	stats_init(&l->stats);
}

static size_t longest_line(const struct loop *l)
{
	size_t cap = REPORT_LINE_MAX;

	for (size_t i = 0; i < l->njobs; i++) {
		size_t n = job_line_max(l->jobs[i]);

		if (n > cap)
			cap = n;
	}
	return cap;
}

static void free_loop(struct loop *l)
{
	close_descriptors(l);
	for (size_t i = 0; i < l->njobs; i++)
		job_free(l->jobs[i]);
	free(l->jobs);
	heap_free(&l->aux);
	pidmap_free(&l->pids);
	free(l->readers);
	free(l->pfd);
	free(l->line);
	free(l->big);
	free(l);
}

/* Writes what is still queued before tfd exits; after a signal a reader
 * that does not read is not waited for. */
static void drain_output(struct loop *l)
{
	while (l->phase != PHASE_SHUTDOWN && output_pending(&l->out)) {
		struct pollfd p = { .fd = l->out.fd, .events = POLLOUT };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		output_flush(&l->out);
	}
	output_flush(&l->out);
	output_flush(&l->err);
	check_output(l);
}

int loop_run(struct loop_config *cfg)
{
	struct loop *l = malloc(sizeof *l);
	int status;

	if (!l) {
		fputs("tfd: out of memory\n", stderr);
		return 1;
	}
	init_loop(l, cfg);
	l->line_cap = longest_line(l);
	l->line = malloc(l->line_cap);
	/* The fixed part of the poll set is there from the start; a slot
	 * for a pipe that finds no memory later is only left out once. */
	l->pfd_cap = 5 + CLOCKS;
	l->pfd = calloc(l->pfd_cap, sizeof *l->pfd);
	if (!l->pfd) {
		free(l->line);
		l->line = NULL;
	}
	if (!l->line || open_descriptors(l) != 0) {
		if (!l->line)
			fputs("tfd: out of memory\n", stderr);
		status = l->line ? l->status : 1;
		free_loop(l);
		return status;
	}
	if (cfg->precise)
		l->precise_fd = precise_enable();
	/* Orphans of a run become ours, so none is left a zombie and shutdown
	 * can wait for a run's whole process group. */
	prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
	find_terminal(l);
	watch_jobs_file(l);
	for (size_t i = 0; i < l->njobs && l->phase == PHASE_RUNNING; i++)
		start_job(l, l->jobs[i]);
	write_metrics(l);
	while (!finished(l))
		wait_for_events(l);
	take_terminal(l);
	if (l->metrics_dirty)
		write_metrics(l);
	if (cfg->stats)
		emit_err(l, l->line, stats_format(&l->stats, l->line, l->line_cap));
	drain_output(l);
	status = l->status;
	if (status == 0 && l->write_failed)
		status = 1;
	free_loop(l);
	return status;
}
