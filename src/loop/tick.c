/* SPDX-License-Identifier: MIT */
#include "tick.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/timerfd.h>

#include "jobdue.h"
#include "metrics.h"
#include "persist.h"
#include "runs.h"
#include "starts.h"
#include "timens.h"

/* How many elapses of a calendar or cron schedule one wake-up may count as
 * missed (after a long suspend); beyond this they are not enumerated. */
#define MISSED_ELAPSES_CAP 100000

/* Clocks */

void tick_clocks_init(struct loop *l)
{
	for (int i = 0; i < CLOCKS; i++) {
		timer_init(&l->clocks[i].t);
		heap_init(&l->clocks[i].heap);
	}
}

void tick_clocks_free(struct loop *l)
{
	for (int i = 0; i < CLOCKS; i++) {
		timer_close(&l->clocks[i].t);
		heap_free(&l->clocks[i].heap);
	}
}

struct clock_timer *tick_clock_for(struct loop *l, clockid_t clock)
{
	for (int i = 0; i < CLOCKS; i++)
		if (l->clocks[i].t.fd >= 0 && l->clocks[i].t.clock == clock)
			return &l->clocks[i];
	for (int i = 0; i < CLOCKS; i++) {
		struct clock_timer *ct = &l->clocks[i];

		if (ct->t.fd >= 0)
			continue;
		if (timer_open(&ct->t, clock, readable_clock(clock)) != 0)
			return NULL;
		return ct;
	}
	errno = EINVAL;
	return NULL;
}

static struct clock_timer *job_clock(struct loop *l, const struct job *j)
{
	for (int i = 0; i < CLOCKS; i++)
		if (l->clocks[i].t.fd >= 0 && l->clocks[i].t.clock == j->schedule.clock)
			return &l->clocks[i];
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
 * also asks to hear of clock changes. */
static void arm_clock(struct loop *l, struct clock_timer *ct)
{
	if (timer_arm(&ct->t, heap_min_key(&ct->heap), kernel_period(ct),
		      clock_is_realtime(ct->t.clock)) != 0)
		status_fail(&l->st, &l->ev, "timerfd_settime");
}

void tick_arm_clocks(struct loop *l)
{
	for (int i = 0; i < CLOCKS; i++)
		if (l->clocks[i].t.fd >= 0)
			arm_clock(l, &l->clocks[i]);
}

/* Schedules */

void tick_end_schedule(struct loop *l, struct job *j)
{
	struct clock_timer *ct = job_clock(l, j);

	j->state->running = false;
	if (ct)
		heap_remove(&ct->heap, &j->state->due_node);
	jobdue_update(l, j);
	l->metrics_dirty = true;
}

void tick_end_all_schedules(struct loop *l)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (l->jobs[i]->state->running)
			tick_end_schedule(l, l->jobs[i]);
}

/* Puts J's next expiration (its walk's) in its clock's heap, or ends the
 * schedule when the walk has none: WALKED is the walk's answer. */
static void set_due(struct loop *l, struct job *j, int walked)
{
	struct clock_timer *ct = job_clock(l, j);

	if (walked != 0) {
		tick_end_schedule(l, j);
		return;
	}
	if (!ct || heap_set(&ct->heap, &j->state->due_node, j->state->walk.at_ns) != 0)
		status_fail_oom(&l->st, &l->ev);
}

/* The first expiration as the user gave it: an --at in the past fires at
 * once with every missed interval counted, as the kernel does. --for ends
 * the schedule by its deadline (monotonic), not by the walk. */
static void schedule_first(struct loop *l, struct job *j)
{
	j->state->running = true;
	set_due(l, j, schedule_walk_first(&j->state->walk, clock_now_ns(j->read_clock)));
}

int64_t tick_wall_of(const struct job *j, int64_t at_ns)
{
	int64_t left;

	if (clock_is_realtime(j->schedule.clock))
		return at_ns;
	if (__builtin_sub_overflow(at_ns, clock_now_ns(j->read_clock), &left))
		return 0;
	return ns_after(clock_now_ns(CLOCK_REALTIME), left);
}

/* Wall-clock time of J's next expiration, for metrics (0: none). */
static int64_t next_run_wall(const struct job *j)
{
	int64_t left;

	if (!j->state->running)
		return 0;
	if (clock_is_realtime(j->schedule.clock))
		return j->state->walk.at_ns;
	if (__builtin_sub_overflow(j->state->walk.at_ns, clock_now_ns(j->read_clock), &left))
		return 0;
	return ns_after(clock_now_ns(CLOCK_REALTIME), left);
}

int64_t tick_next_run_wall(const struct job *j)
{
	return next_run_wall(j);
}

/* Metrics */

/* J's figures now. */
static void job_figures(const struct job *j, struct job_metrics *m)
{
	*m = j->state->metrics;
	m->running = j->state->runner ? runner_active(j->state->runner) : 0;
	m->next_run_ns = next_run_wall(j);
	m->paused = j->state->paused;
}

/* Every job's figures now, each with its name (removed jobs left out).
 * Returns -1 when memory ran out; the caller frees both arrays. */
static int collect_metrics(struct loop *l, const char ***names_out, struct job_metrics **m_out,
			   size_t *n_out)
{
	const char **names = calloc(l->njobs + 1, sizeof *names);
	struct job_metrics *m = calloc(l->njobs + 1, sizeof *m);
	size_t n = 0;

	*names_out = names;
	*m_out = m;
	if (!names || !m)
		return -1;
	for (size_t i = 0; i < l->njobs; i++) {
		struct job *j = l->jobs[i];

		if (j->state->removed)
			continue;
		names[n] = j->name;
		job_figures(j, &m[n]);
		n++;
	}
	*n_out = n;
	return 0;
}

void tick_write_metrics(struct loop *l, const struct fleet_metrics *fm)
{
	const char **names;
	struct job_metrics *m;
	char err[1024];
	size_t n = 0;

	l->metrics_dirty = false;
	if (!l->cfg->metrics_path)
		return;
	if (collect_metrics(l, &names, &m, &n) != 0)
		events_error(&l->ev, NULL, "malloc", "--metrics: out of memory");
	else if (metrics_write(l->cfg->metrics_path, names, m, n, fm, err, sizeof err) != 0)
		events_error(&l->ev, NULL, "metrics", err);
	free(names);
	free(m);
}

int tick_metrics_copy(struct metrics_snapshot *s, const struct job *const *jobs, size_t n)
{
	struct job_metrics m;

	for (size_t i = 0; i < n; i++) {
		if (!jobs[i] || jobs[i]->state->removed)
			continue;
		job_figures(jobs[i], &m);
		if (metrics_snapshot_add(s, jobs[i]->name, &m) != 0)
			return -1;
	}
	return 0;
}

/* Actions */

static void persist_now(struct loop *l, struct job *j, int64_t wall_ns)
{
	char err[1024];

	if (j->persist_path && persist_write(j->persist_path, wall_ns, err, sizeof err) != 0)
		events_error(&l->ev, j->name, "persist", err);
}

/* J's runner acts on T now (per --overlap); what it started goes to runs.
 * TICK_ACTION_NONE: a failure of tfd's, and the loop fails. */
static enum tick_action run_tick(struct loop *l, struct job *j, const struct tick *t)
{
	struct run_start start;
	const char *what = NULL;
	enum tick_action a = runner_tick(j->state->runner, t, clock_now_ns(CLOCK_MONOTONIC),
					 jobdue_next_run_mono(j), &start, &what);

	runs_note_start(l, j, &start);
	if (a == TICK_ACTION_NONE)
		status_fail(&l->st, &l->ev, what);
	return a;
}

/* The action of one wake-up: start a run (per --overlap) and print. */
static void act(struct loop *l, struct job *j, struct tick *t)
{
	bool skipped = false;

	if (j->state->runner && !j->state->removed) {
		t->action = run_tick(l, j, t);
		if (t->action == TICK_ACTION_NONE)
			return;
		skipped = t->action == TICK_SKIP;
		if (skipped)
			j->state->metrics.skipped++;
		jobdue_update(l, j);
	}
	if (!skipped)
		persist_now(l, j, t->wall_ns);
	events_tick(&l->ev, j->format, t);
	l->metrics_dirty = l->metrics_dirty || skipped;
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

	if (j->state->running && t->next_in_ns > 0 && t->next_in_ns - 1 < bound)
		bound = t->next_in_ns - 1;
	j->state->pending = true;
	j->state->pending_tick = *t;
	j->state->pending_due = mono_after(random_upto(bound));
	jobdue_update(l, j);
}

bool tick_elapse_act(struct loop *l, struct job *j, struct tick *t)
{
	if (j->state->pending)
		act(l, j, &j->state->pending_tick);
	j->state->pending = false;
	if (j->random_delay_ns) {
		act_later(l, j, t);
		return true;
	}
	act(l, j, t);
	return t->action == TICK_RUN;
}

bool tick_act_manual(struct loop *l, struct job *j, struct tick *t)
{
	act(l, j, t);
	return t->action == TICK_RUN;
}

void tick_manual(struct loop *l, struct job *j, struct tick *out)
{
	struct tick t = { .job = j->name, .local = l->cfg->local, .manual = true };

	j->state->seq++;
	t.seq = j->state->seq;
	t.total = j->state->walk.passed;
	t.wall_ns = clock_now_ns(CLOCK_REALTIME);
	t.elapsed_ns = clock_now_ns(CLOCK_MONOTONIC) - l->cfg->start_mono_ns;
	t.interval_ns = j->schedule.kind == SCHEDULE_TIMER ? j->schedule.interval_ns : 0;
	if (j->state->running) {
		int64_t left = j->state->walk.at_ns - clock_now_ns(j->read_clock);

		t.next_in_ns = left > 0 ? left : 0;
	}
	*out = t;
}

/* Settings */

struct setting_of {
	struct loop *l;
	struct job *j;
};

/* The time to J's next expiration and its interval: timerfd_gettime's
 * answer when J's elapse is the one its clock's timer is armed at. */
static void job_setting(void *arg, int64_t *next_in, int64_t *interval)
{
	struct setting_of *s = arg;
	struct job *j = s->j;
	struct clock_timer *ct = job_clock(s->l, j);
	struct itimerspec cur;

	*interval = j->schedule.kind == SCHEDULE_TIMER ? j->schedule.interval_ns : 0;
	*next_in = 0;
	if (!j->state->running || !ct)
		return;
	arm_clock(s->l, ct);
	if (heap_top(&ct->heap) == &j->state->due_node && ct->t.armed == j->state->walk.at_ns &&
	    timerfd_gettime(ct->t.fd, &cur) == 0) {
		*next_in = timespec_to_ns(cur.it_value);
		return;
	}
	*next_in = j->state->walk.at_ns - clock_now_ns(j->read_clock);
	if (*next_in < 0)
		*next_in = 0;
}

void tick_print_setting(struct loop *l, struct job *j)
{
	struct setting_of s = { l, j };

	events_setting(&l->ev, j->name, "", job_setting, &s);
}

/* Wake-ups */

static void job_wake(struct loop *l, struct job *j, int64_t now)
{
	struct tick t = { .job = j->name, .local = l->cfg->local };
	int64_t newest;
	bool more;
	uint64_t n = schedule_walk_pass(&j->state->walk, now, MISSED_ELAPSES_CAP, &newest, &more);

	j->state->seq++;
	j->state->metrics.missed += n - 1;
	set_due(l, j, more ? 0 : -1);
	t.seq = j->state->seq;
	t.expirations = n;
	t.total = j->state->walk.passed;
	t.wall_ns = clock_is_realtime(j->read_clock) ? now : clock_now_ns(CLOCK_REALTIME);
	t.elapsed_ns = clock_now_ns(CLOCK_MONOTONIC) - l->cfg->start_mono_ns;
	t.late_ns = newest == INT64_MAX ? 0 : now - newest;
	t.interval_ns = j->schedule.kind == SCHEDULE_TIMER ? j->schedule.interval_ns : 0;
	if (j->state->running)
		t.next_in_ns = j->state->walk.at_ns > now ? j->state->walk.at_ns - now : 0;
	if (l->cfg->stats)
		stats_add(&l->stats, n, t.late_ns);
	starts_push(&l->starts, j, &t);
}

void tick_elapse_paused(struct loop *l, struct job *j, struct tick *t)
{
	t->action = TICK_PAUSED;
	j->state->metrics.paused_total++;
	l->metrics_dirty = true;
	events_tick(&l->ev, j->format, t);
}

void tick_note_setting(struct loop *l, struct job *j, uint64_t seq)
{
	struct setting_of s = { l, j };

	events_tick_setting(&l->ev, j->name, seq, job_setting, &s);
}

/* The realtime clock was set: elapses that the step skipped are counted
 * as missed at the next wake-up (now, for those already due), and the
 * others are recomputed from the new time, never before the last elapse
 * acted on (schedule_walk_clock_set). */
static void clock_was_set(struct loop *l, struct clock_timer *ct)
{
	int64_t now = clock_now_ns(ct->t.read_clock);
	size_t n = ct->heap.n;
	struct job **moved = calloc(n + 1, sizeof *moved);

	if (!moved) {
		status_fail_oom(&l->st, &l->ev);
		return;
	}
	for (size_t i = 0; i < n; i++)
		moved[i] = ct->heap.nodes[i]->item;
	for (size_t i = 0; i < n; i++) {
		struct job *j = moved[i];

		events_clock_set(&l->ev, j->name, clock_now_ns(CLOCK_REALTIME));
		if (j->state->walk.at_ns > now)
			set_due(l, j, schedule_walk_clock_set(&j->state->walk, now));
	}
	free(moved);
	events_clock_set_done(&l->ev);
	timer_forget(&ct->t);
}

void tick_on_clock(struct loop *l, struct clock_timer *ct)
{
	enum timer_read r = timer_read(&ct->t);
	int64_t now;
	size_t budget;

	if (r == TIMER_READ_CLOCK_SET) {
		clock_was_set(l, ct);
	} else if (r == TIMER_READ_ERROR) {
		status_fail(&l->st, &l->ev, "read (timerfd)");
		return;
	}
	now = clock_now_ns(ct->t.read_clock);
	timer_expired(&ct->t, now);
	/* Each due job is moved past NOW, so this ends; the budget only
	 * guards against a schedule that would not move. */
	for (budget = ct->heap.n; budget > 0 && heap_min_key(&ct->heap) <= now &&
				  l->st.phase == PHASE_RUNNING && !starts_full(&l->starts);
	     budget--)
		job_wake(l, heap_top(&ct->heap)->item, now);
	/* A full start queue leaves the rest due: the timer is armed anew
	 * (in the past, so it fires at once) when the queue has room. */
	if (heap_min_key(&ct->heap) <= now)
		timer_forget(&ct->t);
}

void tick_deadline_due(struct loop *l, struct job *j, int64_t now)
{
	const char *failed = NULL;
	struct run_start start;

	if (j->state->runner) {
		runner_expire(j->state->runner, now, &start, &failed);
		runs_note_start(l, j, &start);
		if (failed)
			status_fail(&l->st, &l->ev, failed);
	}
	if (j->state->pending && j->state->pending_due <= now) {
		j->state->pending = false;
		act(l, j, &j->state->pending_tick);
	}
	if (j->state->running && j->state->for_deadline <= now)
		tick_end_schedule(l, j);
	jobdue_update(l, j);
}

/* Starting and retiring */

static int start_runner(struct loop *l, struct job *j)
{
	struct runner_config rc = j->run;

	if (!j->path)
		return 0;
	rc.name = j->name;
	rc.exit_on_error = l->cfg->exit_on_error;
	rc.kill_after_ns = l->cfg->kill_after_ns;
	rc.tty_fd = runs_tty_fd(l);
	j->state->runner = runner_new(&rc);
	if (!j->state->runner) {
		status_fail_oom(&l->st, &l->ev);
		return -1;
	}
	return 0;
}

/* The persisted schedule missed a run while tfd was not running: one run
 * at once, numbered 0, printed as no tick. */
static void catch_up(struct loop *l, struct job *j)
{
	struct tick t = { .job = j->name,
			  .local = l->cfg->local,
			  .wall_ns = clock_now_ns(CLOCK_REALTIME) };

	if (j->state->runner && run_tick(l, j, &t) == TICK_ACTION_NONE)
		return;
	persist_now(l, j, t.wall_ns);
}

void tick_start_job(struct loop *l, struct job *j)
{
	struct setting_of s = { l, j };

	schedule_walk_init(&j->state->walk, &j->schedule, j->count, INT64_MAX);
	if (start_runner(l, j) != 0)
		return;
	if (!tick_clock_for(l, j->schedule.clock)) {
		events_errf(&l->ev, "tfd: timerfd_create (%s): %s\n", j->clock_name,
			    strerror(errno));
		status_end(&l->st, 1);
		return;
	}
	if (j->for_ns)
		j->state->for_deadline = ns_after(j->start_mono_ns, j->for_ns);
	if (j->persist_catch_up)
		catch_up(l, j);
	if (l->st.phase == PHASE_RUNNING)
		schedule_first(l, j);
	jobdue_update(l, j);
	if (j->state->running)
		events_verbose_setting(&l->ev, j->name, "armed", job_setting, &s);
}

size_t tick_stop_job(struct loop *l, struct job *j, int sig, int64_t now)
{
	size_t dropped = j->state->pending;
	struct runner *r = j->state->runner;

	if (j->state->running)
		tick_end_schedule(l, j);
	j->state->pending = false;
	if (r)
		dropped += sig ? runner_signal_all(r, sig, now) : runner_drain(r);
	jobdue_update(l, j);
	return dropped;
}

void tick_retire_job(struct loop *l, struct job *j)
{
	if (j->state->running)
		tick_end_schedule(l, j);
	j->state->removed = true;
	j->state->pending = false;
	if (j->state->runner)
		runner_drop_waiting(j->state->runner);
	jobdue_update(l, j);
}
