/* SPDX-License-Identifier: MIT */
/* tick: what a job does over time — its schedule on its clock's timer
 * (first elapse, advance, missed counts, a realtime clock being set), the
 * action of a wake-up (a run per --overlap, the tick line, --persist),
 * --random-delay, --for, catch-up after downtime, its deadline in the
 * loop's deadline heap (jobdue.h), the metrics snapshot. Due wake-ups go
 * to the start queue (starts.h); due.c decides whether they act now. */
#ifndef TFD_TICK_H
#define TFD_TICK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "loopstate.h"
#include "metrics.h"

/* The clocks' timers, none open, and their heaps, empty; then closed
 * and freed. */
void tick_clocks_init(struct loop *l);
void tick_clocks_free(struct loop *l);

/* The timer of CLOCK, opened on first use. NULL with errno when it could
 * not be opened. */
struct clock_timer *tick_clock_for(struct loop *l, clockid_t clock);

/* Arms each clock's timer at its earliest elapse. */
void tick_arm_clocks(struct loop *l);

/* A clock's timer went off: every job due by now wakes. */
void tick_on_clock(struct loop *l, struct clock_timer *ct);

/* A paused job's elapse T: printed and counted, not run. */
void tick_elapse_paused(struct loop *l, struct job *j, struct tick *t);

/* The setting of J after its wake-up SEQ, for --verbose. */
void tick_note_setting(struct loop *l, struct job *j, uint64_t seq);

/* Starts J's schedule (and its runner, catch-up, --for). */
void tick_start_job(struct loop *l, struct job *j);

/* Shutdown: J's schedule ends, its delayed action, queued run and retry
 * are dropped (how many: the return) and its runs are sent SIG (SIGKILL
 * after the grace; NOW is monotonic); SIG 0: they go on (--on-stop wait
 * and leave). */
size_t tick_stop_job(struct loop *l, struct job *j, int sig, int64_t now);

/* A reload dropped J: no more elapses, no waiting run; its runs go on. */
void tick_retire_job(struct loop *l, struct job *j);

void tick_end_schedule(struct loop *l, struct job *j);
void tick_end_all_schedules(struct loop *l);

/* What is due at NOW of J's deadlines (runs, retries, delayed action,
 * --for). */
void tick_deadline_due(struct loop *l, struct job *j, int64_t now);

/* tfdctl run (due.c's due_manual decides whether it may): a wake-up of
 * J now, outside its schedule (which goes on), made into OUT with
 * "trigger": "manual" (J's seq advanced: OUT's seq is the run's); then
 * acted on as an elapse is (--overlap, --timeout, --retry, output, mail;
 * a paused job too: the caller asked for this run), now or once a fleet
 * claimed it. Returns true when a run started; T's action says what it
 * did (TICK_RUN, _SKIP, _QUEUE, _KILL; TICK_ACTION_NONE: the loop
 * failed). */
void tick_manual(struct loop *l, struct job *j, struct tick *out);
bool tick_act_manual(struct loop *l, struct job *j, struct tick *t);

/* Wall-clock time of J's next expiration (0: none), and of AT_NS, an
 * instant on J's clock. */
int64_t tick_next_run_wall(const struct job *j);
int64_t tick_wall_of(const struct job *j, int64_t at_ns);

/* An elapse of J is due and acts: a delayed action still waiting goes
 * first, then this one acts now or after its random delay. Returns true
 * when a run came of it (started now) or may (it waits for its random
 * delay); T's action says what it did when it acted now. Under --fleet,
 * claims.c calls it once this replica won the elapse. */
bool tick_elapse_act(struct loop *l, struct job *j, struct tick *t);

/* J's setting on stderr (SIGUSR1). */
void tick_print_setting(struct loop *l, struct job *j);

/* The --metrics file, from every job's counters now and the fleet's FM
 * (NULL without --fleet: claims_metrics). */
void tick_write_metrics(struct loop *l, const struct fleet_metrics *fm);

/* The figures of the N JOBS now, added to S (--listen's /metrics, which
 * copies them a slice of jobs at a time); a NULL job (freed) or one a
 * reload removed is left out. Returns -1 when memory ran out. */
int tick_metrics_copy(struct metrics_snapshot *s, const struct job *const *jobs, size_t n);

#endif
