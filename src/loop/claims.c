/* SPDX-License-Identifier: MIT */
#include "claims.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fleet.h"
#include "fleet_print.h"
#include "jobstate.h"
#include "metrics.h"
#include "runs.h"
#include "starts.h"
#include "tick.h"
#include "timens.h"

/* How long tfd, once done, waits for the fleet's next answer while its last
 * claims and run ends are written: each answer starts the wait again, and
 * so does a statement still in flight (a batch of many ends on a slow
 * server; the fleet gives it up after its answer timeout), so a busy
 * server writes every row of a storm's runs, and a database that is down
 * keeps tfd up no longer than this. */
#define EXIT_GRACE_NS (INT64_C(2) * NSEC_PER_SEC)

/* How long a storm's claims hold the won runs back once its elapses are
 * all handed over (claims_service): a bound for a slow server. */
#define WON_HOLD_NS (INT64_C(2) * NSEC_PER_SEC)

/* How many won runs start in one turn of the loop (due runs start
 * STARTS_BATCH a turn): the fleet's answers are read, what they ask
 * again is sent, and a storm that falls due is handed over, between
 * every few forks, which a loaded machine makes slow. */
#define WON_BATCH 8

/* A tick held until the fleet answers its claim. J is NULL once the job
 * left the loop: a won answer is then given up. */
struct held {
	uint64_t token;
	struct job *j;
	struct tick t;
};

/* A won elapse whose run has not ended yet: its run ends are matched by
 * (job, seq). LAST is the end of a try that is to be retried. */
struct won {
	struct job *j;
	uint64_t seq;
	int64_t scheduled_ns;
	bool started; /* a run began (its start may wait for --random-delay) */
	bool has_end;
	struct fleet_end last;
};

struct claims_state {
	struct fleet *f;
	struct held *held;
	size_t nheld, held_cap;
	/* Won elapses not acted on yet: a burst's thousand wins start
	 * WON_BATCH at a time, one batch a loop turn, as due runs do
	 * (due.c), so that the fleet's next answers, ends and renewals are
	 * served in between. FIFO from ready_head. */
	struct held *ready;
	size_t nready, ready_head, ready_cap;
	int64_t handed_over; /* a storm's elapses were all handed over
			      * (monotonic); 0: no storm */
	struct won *won;
	size_t nwon, won_cap;
	uint64_t next_token;
	bool stopped; /* tfd stops: stop_claiming was done */
	struct fleet_metrics m;
	struct claims_hooks hooks;
};

/* The loop's jobs (not @reboot ones, nor the removed) to the fleet. */
static void tell_jobs(struct loop *l)
{
	const char **names = calloc(l->njobs + 1, sizeof *names);
	uint64_t *prints = calloc(l->njobs + 1, sizeof *prints);
	size_t n = 0;

	if (names && prints)
		for (size_t i = 0; i < l->njobs; i++) {
			const struct job *j = l->jobs[i];

			if (j->reboot || (j->state && j->state->removed))
				continue;
			names[n] = j->name;
			prints[n++] = fleet_job_fingerprint(j);
		}
	if (!names || !prints || fleet_set_jobs(l->claims->f, n, names, prints) != 0)
		status_fail_oom(&l->st, &l->ev);
	free(names);
	free(prints);
}

void claims_jobs_changed(struct loop *l)
{
	if (l->claims)
		tell_jobs(l);
}

int claims_start(struct loop *l, const struct claims_hooks *hooks)
{
	if (!l->cfg->fleet)
		return 0;
	l->claims = calloc(1, sizeof *l->claims);
	if (!l->claims)
		return -1;
	l->claims->f = l->cfg->fleet;
	l->claims->hooks = *hooks;
	tell_jobs(l);
	fleet_start(l->claims->f);
	return 0;
}

/* A tick that this replica does not act on, printed with ACTION. */
static void print_not_ours(struct loop *l, struct job *j, struct tick *t, enum tick_action action)
{
	t->action = action;
	if (action == TICK_SKIP)
		j->state->metrics.skipped++;
	if (action == TICK_PAUSED)
		j->state->metrics.paused_total++;
	events_tick(&l->ev, j->format, t);
	l->metrics_dirty = true;
	if (t->manual)
		l->claims->hooks.manual_answered(l->claims->hooks.arg, j, t);
}

bool claims_hold(struct loop *l, struct job *j, const struct tick *t)
{
	struct claims_state *c = l->claims;
	struct held *h;

	if (!c || j->reboot)
		return false;
	if (array_reserve(&c->held, &c->held_cap, c->nheld + 1, sizeof *c->held, SIZE_MAX) != 0 ||
	    (t->manual ? fleet_claim_manual : fleet_claim)(c->f, j->name, tick_scheduled_ns(t),
							   j->run.overlap == OVERLAP_SKIP,
							   c->next_token) != 0) {
		/* Never run unclaimed: without memory for the claim nobody runs it. */
		struct tick missed = *t;

		c->m.claims[FLEET_MISSED]++;
		print_not_ours(l, j, &missed, TICK_MISSED);
		return true;
	}
	h = &c->held[c->nheld++];
	*h = (struct held){ .token = c->next_token++, .j = j, .t = *t };
	return true;
}

int claims_poll_fd(const struct loop *l, short *events)
{
	return l->claims ? fleet_poll_fd(l->claims->f, events) : -1;
}

/* Due elapses wait their turn in the start queue while the loop runs
 * (due.c serves them 64 a turn, as due_ready says; claims sits below due
 * and cannot ask it): their claims are coming. */
static bool elapses_coming(const struct loop *l)
{
	return l->st.phase == PHASE_RUNNING && starts_ready(&l->starts, l->readers.n);
}

/* A storm of claims holds the won runs back, new or left from an earlier
 * minute, so that every claim statement is sent, and every answer read
 * and asked again at once, while the loop does not spend its turns (nor
 * the machine its CPU) forking: runs that cannot all start before the
 * next storm leave its claims alone. It lasts while the loop hands due
 * elapses over (64 a turn, no fork between), then while more claims
 * wait for their answers than one statement carries (fleet.h), for
 * WON_HOLD_NS at most. Noted each service: when the elapses were all
 * handed over, or 0 when no storm holds anything. */
static void note_storm(struct loop *l)
{
	struct claims_state *c = l->claims;
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	if (elapses_coming(l))
		c->handed_over = now;
	else if (fleet_claims_waiting(c->f) <= FLEET_BATCH_MAX)
		c->handed_over = 0;
}

/* When the won runs start again (monotonic; 0: they are not held). */
static int64_t wins_held_until(const struct claims_state *c)
{
	return c->handed_over ? c->handed_over + WON_HOLD_NS : 0;
}

static bool wins_held(const struct claims_state *c)
{
	return clock_now_ns(CLOCK_MONOTONIC) < wins_held_until(c);
}

int64_t claims_deadline(const struct loop *l)
{
	const struct claims_state *c = l->claims;
	int64_t d;

	if (!c)
		return INT64_MAX;
	if (c->nready > c->ready_head && !wins_held(c))
		return clock_now_ns(CLOCK_MONOTONIC); /* wins wait their turn */
	d = fleet_deadline(c->f);
	if (c->nready > c->ready_head && wins_held_until(c) < d)
		d = wins_held_until(c);
	return d;
}

bool claims_waiting(const struct loop *l)
{
	return l->claims && (l->claims->nheld > 0 || l->claims->nready > l->claims->ready_head);
}

const struct fleet_metrics *claims_metrics(const struct loop *l)
{
	return l->claims ? &l->claims->m : NULL;
}

struct fleet *claims_fleet(const struct loop *l)
{
	return l->claims ? l->claims->f : NULL;
}

/* The fleet's view: its pauses and its last runs */

bool claims_fleet_record(const struct fleet_last *f, struct run_record *out)
{
	bool running = strcmp(f->state, "running") == 0;

	*out = (struct run_record){ .start_ns = f->start_ns, .status = f->exit_status };
	if (running)
		return false;
	out->duration_ns = f->end_ns > f->start_ns ? f->end_ns - f->start_ns : 0;
	if (strcmp(f->state, "abandoned") == 0) {
		out->start_failed = true; /* its replica died: no result */
	} else if (f->timed_out) {
		out->timed_out = true;
	} else if (strcmp(f->state, "succeeded") == 0) {
		out->status = 0;
	} else if (f->exit_status > 128 && f->exit_status < 128 + 65) {
		out->status = -1; /* the fleet writes 128+N for signal N */
		out->signal = f->exit_status - 128;
	} else if (f->exit_status <= 0) {
		out->start_failed = true; /* failed without a status: never started */
	}
	return true;
}

/* J's last run as the fleet has it, into its state (made when first
 * known). */
static void take_last(struct loop *l, struct job *j, struct fleet *f)
{
	struct fleet_last last;
	struct fleet_seen *seen = j->state->fleet_seen;

	if (!fleet_job_last(f, j->name, &last))
		return;
	if (!seen && !(seen = j->state->fleet_seen = calloc(1, sizeof *seen))) {
		status_fail_oom(&l->st, &l->ev);
		return;
	}
	seen->running = !claims_fleet_record(&last, &seen->last);
	snprintf(seen->replica, sizeof seen->replica, "%s", last.replica);
}

/* The fleet's view changed: each job's paused flag and last run are
 * taken from it. */
static void claims_view_sync(struct loop *l)
{
	struct fleet *f = claims_fleet(l);

	for (size_t i = 0; f && i < l->njobs; i++) {
		struct job *j = l->jobs[i];

		if (j->state->removed || j->reboot)
			continue;
		j->state->paused = fleet_job_paused(f, j->name);
		take_last(l, j, f);
	}
	l->metrics_dirty = true;
}

/* Won elapses */

static int track_won(struct loop *l, struct job *j, uint64_t seq, int64_t scheduled_ns,
		     bool started)
{
	struct claims_state *c = l->claims;

	if (array_reserve(&c->won, &c->won_cap, c->nwon + 1, sizeof *c->won, SIZE_MAX) != 0)
		return -1;
	c->won[c->nwon++] = (struct won){ .j = j,
					  .seq = seq,
					  .scheduled_ns = scheduled_ns,
					  .started = started };
	return 0;
}

static struct won *find_won(struct claims_state *c, const struct job *j, uint64_t seq)
{
	for (size_t i = 0; i < c->nwon; i++)
		if (c->won[i].j == j && c->won[i].seq == seq)
			return &c->won[i];
	return NULL;
}

static void forget_won(struct claims_state *c, struct won *w)
{
	*w = c->won[--c->nwon];
}

static void check_written(struct loop *l, int rc)
{
	if (rc != 0)
		events_error(&l->ev, NULL, "malloc",
			     "--fleet: out of memory; a run's end is not written");
}

/* A won elapse that did not end as a run: the last try's end when a retry
 * was waiting; released when its run never began (its --random-delay
 * still waiting), for another replica to run; else dropped. */
static void give_up_won(struct loop *l, struct won *w)
{
	struct claims_state *c = l->claims;

	if (w->has_end)
		check_written(l, fleet_run_ended(c->f, w->j->name, w->scheduled_ns, &w->last));
	else if (!w->started)
		check_written(l, fleet_run_released(c->f, w->j->name, w->scheduled_ns));
	else
		check_written(l, fleet_run_dropped(c->f, w->j->name, w->scheduled_ns));
	forget_won(c, w);
}

static struct fleet_end end_of(const struct run_end *e)
{
	return (struct fleet_end){
		.failed = e->failed || run_end_unsuccessful(e),
		.exit_status = e->signal ? 128 + e->signal : e->status,
		.attempts = e->attempt,
		.timed_out = e->timed_out,
		.finished_ns = clock_now_ns(CLOCK_REALTIME),
	};
}

void claims_run_ended(struct loop *l, struct job *j, const struct run_end *e)
{
	struct claims_state *c = l->claims;
	struct won *w = c ? find_won(c, j, e->seq) : NULL;

	if (!w)
		return;
	w->last = end_of(e);
	w->has_end = true;
	/* A try that will be tried again: the row counts the next try. */
	if (run_end_unsuccessful(e) && !e->failed) {
		check_written(l, fleet_run_attempt(c->f, j->name, w->scheduled_ns, e->attempt + 1));
		return;
	}
	check_written(l, fleet_run_ended(c->f, j->name, w->scheduled_ns, &w->last));
	forget_won(c, w);
}

/* The action of J's tick T that waited for --random-delay is about to
 * start: true when it may, false when this replica no longer holds its
 * claim by the lease (fleet_claim_held): then its row is released, T
 * printed as "missed", and it does not start. True for an elapse that
 * was not claimed (none of a won one's). */
static bool delayed_start(struct loop *l, struct job *j, struct tick *t)
{
	struct claims_state *c = l->claims;
	struct won *w = find_won(c, j, t->seq);

	if (!w || w->started)
		return true;
	if (fleet_claim_held(c->f, j->name, w->scheduled_ns)) {
		w->started = true;
		return true;
	}
	/* Its lease passed while it waited (tfd was stopped, or cut off from
	 * the database): the claim may be another's abandoned one now. */
	check_written(l, fleet_run_released(c->f, j->name, w->scheduled_ns));
	forget_won(c, w);
	print_not_ours(l, j, t, TICK_MISSED);
	return false;
}

/* J's delayed action, if it waits, is given up when its claim was lost;
 * else it acts as it would (tick.c). */
static void check_pending(struct loop *l, struct job *j)
{
	if (j->state->pending && !delayed_start(l, j, &j->state->pending_tick))
		j->state->pending = false;
}

void claims_pending_due(struct loop *l, struct job *j, int64_t now)
{
	if (l->claims && j->state->pending && j->state->pending_due <= now)
		check_pending(l, j);
}

/* Whether J's won elapse T acts here. While tfd drains (--on-stop=wait)
 * it does when it starts at once: its claim was won before the signal or
 * sent before it, and a replica that waits starts what it won and waits
 * for it (it claims nothing more). One whose start would wait
 * (--random-delay, a run going under --overlap queue or kill) does not:
 * the drain would last as long, or a kill end the run it waits for. */
static bool acts_here(const struct loop *l, const struct job *j, const struct tick *t)
{
	if (j->state->removed)
		return false;
	if (l->st.phase == PHASE_RUNNING)
		return true;
	if (!status_draining(&l->st) || (j->random_delay_ns && !t->manual))
		return false;
	return !j->state->runner || !runner_would_wait(j->state->runner);
}

/* This replica won the elapse: it acts as without --fleet. What the act
 * did decides the row: a run (now or after --random-delay) ends later; a
 * job without a command has done its part; anything else will not run.
 * One that will not start here (its job removed, tfd stopping, acts_here)
 * is released, for another replica to run. */
static void act_won(struct loop *l, struct job *j, struct tick *t)
{
	struct claims_state *c = l->claims;
	int64_t scheduled_ns = tick_scheduled_ns(t);

	if (!acts_here(l, j, t)) {
		check_written(l, fleet_run_released(c->f, j->name, scheduled_ns));
		return;
	}
	t->action = TICK_ACTION_NONE;
	/* A delayed action still waiting acts first (tick_elapse_act), if
	 * its claim is still this replica's. */
	check_pending(l, j);
	/* tfdctl run: now, as without --fleet. */
	if (t->manual ? tick_act_manual(l, j, t) : tick_elapse_act(l, j, t)) {
		if (track_won(l, j, t->seq, scheduled_ns, t->action == TICK_RUN) != 0)
			status_fail_oom(&l->st, &l->ev);
	} else if (!j->state->runner) {
		struct fleet_end done = { .attempts = 1,
					  .finished_ns = clock_now_ns(CLOCK_REALTIME) };

		check_written(l, fleet_run_ended(c->f, j->name, scheduled_ns, &done));
	} else {
		check_written(l, fleet_run_dropped(c->f, j->name, scheduled_ns));
	}
	if (t->manual)
		c->hooks.manual_answered(c->hooks.arg, j, t);
}

/* The fleet's events */

/* The held tick of TOKEN, taken out. The last one fills its place: their
 * order means nothing, and a burst's thousands of answers must not each
 * move the rest. */
static bool take_held(struct claims_state *c, uint64_t token, struct held *out)
{
	for (size_t i = 0; i < c->nheld; i++) {
		if (c->held[i].token != token)
			continue;
		*out = c->held[i];
		c->held[i] = c->held[--c->nheld];
		return true;
	}
	return false;
}

static int queue_won(struct claims_state *c, const struct held *h)
{
	if (c->ready_head == c->nready)
		c->ready_head = c->nready = 0;
	if (array_reserve(&c->ready, &c->ready_cap, c->nready + 1, sizeof *c->ready, SIZE_MAX) != 0)
		return -1;
	c->ready[c->nready++] = *h;
	return 0;
}

/* One batch of the won elapses that wait, acted on as without --fleet
 * (one whose job left the loop was dropped then: J is NULL). */
static void act_ready(struct loop *l)
{
	struct claims_state *c = l->claims;

	for (size_t n = 0; n < WON_BATCH && c->ready_head < c->nready; n++) {
		struct held h = c->ready[c->ready_head++];

		if (h.j)
			act_won(l, h.j, &h.t);
	}
}

/* The won elapses of J that wait (of every job: J NULL) will not run
 * here: their rows are released now, while the job's name is valid. */
static void drop_ready(struct loop *l, const struct job *j)
{
	struct claims_state *c = l->claims;

	for (size_t i = c->ready_head; i < c->nready; i++) {
		struct held *h = &c->ready[i];

		if (!h->j || (j && h->j != j))
			continue;
		check_written(l, fleet_run_released(c->f, h->j->name, tick_scheduled_ns(&h->t)));
		h->j = NULL;
	}
}

static void answered(struct loop *l, const struct fleet_event *ev)
{
	static const enum tick_action actions[] = {
		[FLEET_ELSEWHERE] = TICK_ELSEWHERE,
		[FLEET_SKIPPED] = TICK_SKIP,
		[FLEET_MISSED] = TICK_MISSED,
		[FLEET_PAUSED] = TICK_PAUSED,
	};
	struct claims_state *c = l->claims;
	struct held h;

	if (!take_held(c, ev->token, &h))
		return;
	if (ev->outcome != FLEET_PAUSED) /* counted as the job's paused elapse */
		c->m.claims[ev->outcome]++;
	l->metrics_dirty = true;
	if (!h.j) {
		if (ev->outcome == FLEET_WON)
			check_written(l, fleet_run_released(c->f, ev->job, ev->scheduled_ns));
	} else if (ev->outcome == FLEET_WON) {
		if (queue_won(c, &h) != 0)
			act_won(l, h.j, &h.t); /* no memory to wait: now */
	} else {
		print_not_ours(l, h.j, &h.t, actions[ev->outcome]);
	}
}

/* A claim dropped unsent as tfd stops: its tick is not printed (this
 * replica did not ask, the others claim the elapse as they would), but
 * tfdctl run's, which no other replica asks for, is missed. */
static void unsent(struct loop *l, const struct fleet_event *ev)
{
	struct held h;

	if (take_held(l->claims, ev->token, &h) && h.j && ev->manual)
		print_not_ours(l, h.j, &h.t, TICK_MISSED);
}

/* The job named NAME that the loop runs, or NULL. */
static struct job *job_named(struct loop *l, const char *name)
{
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->state->removed && !l->jobs[i]->reboot &&
		    strcmp(l->jobs[i]->name, name) == 0)
			return l->jobs[i];
	return NULL;
}

/* An elapse another replica won and released unstarted, taken by this
 * one: a tick of J at its instant, acted on as a won one. */
static void taken(struct loop *l, const struct fleet_event *ev)
{
	struct claims_state *c = l->claims;
	struct job *j = job_named(l, ev->job);
	struct held h = { .j = j };

	if (!j || l->st.phase != PHASE_RUNNING) {
		check_written(l, fleet_run_released(c->f, ev->job, ev->scheduled_ns));
		return;
	}
	tick_manual(l, j, &h.t);
	h.t.manual = ev->manual;
	h.t.late_ns = h.t.wall_ns - ev->scheduled_ns; /* keyed by its instant */
	c->m.claims[FLEET_WON]++;
	l->metrics_dirty = true;
	if (queue_won(c, &h) != 0)
		act_won(l, j, &h.t);
}

/* Another replica's run that this one's renewal marked abandoned: told
 * by its job's --ping and --notify here, when this replica has the job
 * (jobs may differ between replicas). */
static void abandoned(struct loop *l, const struct fleet_event *ev)
{
	struct job *j = job_named(l, ev->job);

	if (j && notify_target_any(&j->notify))
		runs_abandoned_elsewhere(l, j, ev->scheduled_ns, ev->message ? ev->message : "");
}

static void take_events(struct loop *l)
{
	struct claims_state *c = l->claims;
	struct fleet_event ev;

	while (fleet_next_event(c->f, &ev)) {
		switch (ev.kind) {
		case FLEET_EVENT_CLAIM:
			answered(l, &ev);
			break;
		case FLEET_EVENT_ERROR:
			events_error(&l->ev, NULL, ev.call, ev.message);
			break;
		case FLEET_EVENT_LOST:
			/* A lost answer would hold its tick for ever. */
			status_fail_oom(&l->st, &l->ev);
			return;
		case FLEET_EVENT_FATAL:
			/* Another process holds this replica's name. */
			events_error(&l->ev, NULL, ev.call, ev.message);
			status_set(&l->st, 1);
			status_stop(&l->st, SIGTERM);
			break;
		case FLEET_EVENT_DONE:
			c->hooks.pause_answered(c->hooks.arg, ev.token, ev.message);
			break;
		case FLEET_EVENT_TAKEN:
			taken(l, &ev);
			break;
		case FLEET_EVENT_UNSENT:
			unsent(l, &ev);
			break;
		case FLEET_EVENT_ABANDONED:
			abandoned(l, &ev);
			break;
		case FLEET_EVENT_NOTE:
			/* Not a failure: stderr only, no "error" event. */
			events_errf(&l->ev, "tfd: %s\n", ev.message);
			break;
		case FLEET_EVENT_CONNECTED:
		case FLEET_EVENT_DISCONNECTED:
			c->m.connected = ev.kind == FLEET_EVENT_CONNECTED;
			l->metrics_dirty = true;
			break;
		}
	}
}

/* tfd stops (a signal, forwarded or waited out): what was not sent is
 * not claimed (the others take it), and the won elapses whose run is not
 * going are given up now rather than at exit (a drain may last as long
 * as its longest run): a start the stop dropped (its --random-delay, a
 * queued run) is released, a retry it dropped writes its last try's end.
 * Once. */
static void stop_claiming(struct loop *l)
{
	struct claims_state *c = l->claims;

	if (c->stopped)
		return;
	c->stopped = true;
	fleet_stop_claiming(c->f);
	for (size_t i = 0; i < c->nwon;) {
		struct won *w = &c->won[i];
		const struct runner *r = w->j->state->runner;

		if (r && runner_runs_seq(r, w->seq))
			i++;
		else
			give_up_won(l, w);
	}
}

void claims_service(struct loop *l, short revents)
{
	if (!l->claims)
		return;
	if (l->st.phase != PHASE_RUNNING)
		stop_claiming(l);
	/* The elapses due now are claimed 64 a turn (due.c): one statement
	 * for them all. */
	fleet_claims_coming(l->claims->f, elapses_coming(l));
	fleet_service(l->claims->f, revents);
	take_events(l);
	if (l->claims && fleet_view_changed(l->claims->f))
		claims_view_sync(l);
	if (!l->claims)
		return;
	note_storm(l);
	if (!wins_held(l->claims))
		act_ready(l);
}

void claims_note_coming(struct loop *l)
{
	/* After this turn's starts: a claim they queued waits for more only
	 * while more are due (a single elapse goes at once, not after
	 * FLEET_GATHER_NS). */
	fleet_claims_coming(l->claims->f, elapses_coming(l));
}

void claims_job_gone(struct loop *l, struct job *j)
{
	struct claims_state *c = l->claims;

	if (!c)
		return;
	for (size_t i = 0; i < c->nheld; i++)
		if (c->held[i].j == j)
			c->held[i].j = NULL;
	drop_ready(l, j);
	for (size_t i = 0; i < c->nwon;)
		if (c->won[i].j == j)
			give_up_won(l, &c->won[i]);
		else
			i++;
}

/* One wait of the exit's grace: the fleet's descriptor until its own
 * deadline or the grace's end. */
static void serve_once(struct loop *l, int64_t until)
{
	struct fleet *f = l->claims->f;
	struct pollfd p = { .fd = -1 };
	int64_t now = clock_now_ns(CLOCK_MONOTONIC), due = fleet_deadline(f);
	int timeout;

	if (due > until)
		due = until;
	timeout = due <= now ? 0 : (int)((due - now + 999999) / 1000000);
	p.fd = fleet_poll_fd(f, &p.events);
	if (poll(&p, p.fd >= 0 ? 1 : 0, timeout) < 0 && errno != EINTR)
		return;
	claims_service(l, p.fd >= 0 ? p.revents : 0);
}

void claims_finish(struct loop *l)
{
	struct claims_state *c = l->claims;
	int64_t until = clock_now_ns(CLOCK_MONOTONIC) + EXIT_GRACE_NS;
	size_t pending, left;

	if (!c)
		return;
	for (size_t i = 0; i < c->nheld; i++)
		c->held[i].j = NULL;
	drop_ready(l, NULL);
	while (c->nwon > 0)
		give_up_won(l, &c->won[0]);
	fleet_release(c->f);
	pending = fleet_pending(c->f);
	while (pending > 0 && clock_now_ns(CLOCK_MONOTONIC) < until) {
		serve_once(l, until);
		left = fleet_pending(c->f);
		if (left < pending || fleet_answering(c->f))
			until = clock_now_ns(CLOCK_MONOTONIC) + EXIT_GRACE_NS;
		pending = left;
	}
}

void claims_free(struct loop *l)
{
	if (!l->claims)
		return;
	free(l->claims->held);
	free(l->claims->ready);
	free(l->claims->won);
	free(l->claims);
	l->claims = NULL;
}
