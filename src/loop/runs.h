/* SPDX-License-Identifier: MIT */
/* runs: the loop's side of the runs — a started run's pid in the pid map,
 * its pipes handed to the readers and the terminal to its group; every
 * child reaped (runs, their process groups' members and, as subreaper or
 * PID 1, orphans); a run's end counted, printed and turned into tfd's
 * exit status; ^Z, ^C and ^\ in the terminal a run holds; jobs a reload
 * removed leaving once their last run is gone. */
#ifndef TFD_RUNS_H
#define TFD_RUNS_H

#include "loopstate.h"

/* Who hears of a run: its record (R; FINAL: no retry follows), for
 * tfdctl's waiters, and its end (E), for the fleet. The loop, above, sets
 * them: runs.c calls nothing above it. ARG is runs_new's. */
typedef void (*runs_record_fn)(void *arg, struct job *j, const struct run_record *r, bool final);
typedef void (*runs_end_fn)(void *arg, struct job *j, const struct run_end *e);

/* The runs' own state (l->runs), or NULL when memory ran out. */
struct runs *runs_new(runs_record_fn on_record, runs_end_fn on_end, void *arg);
void runs_free(struct runs *rs);

/* The terminal runs are handed (-1: none), for their runners. */
int runs_tty_fd(const struct loop *l);

/* What a call of J's runner started (runner.h): a run's pid goes in the
 * pid map, its pipes to the readers, the terminal to its group; a failed
 * start is an "error" event naming the job and the call and, without a
 * retry to come, a failed run (metrics, -E). */
void runs_note_start(struct loop *l, struct job *j, const struct run_start *s);

/* J leaves the table: it is no longer told of reaped group members. */
void runs_forget_groups(struct loop *l, struct job *j);

/* The readers' on_collected: a mailed run's output, all read, goes to
 * its sendmail (mailer.h). ARG is the loop. */
void runs_output_collected(void *arg, struct job *j, const char *name, uint64_t seq,
			   struct mail_body *body);

/* The readers' on_bytes: a run's output goes to its job's tail (tfdctl
 * status). ARG is the loop. */
void runs_output_bytes(void *arg, struct job *j, const char *buf, size_t n);

/* SIGCHLD: reaps every child (runs, sendmails) that changed state; it
 * returns early when a run's end asked for a stop (l->st.stop_sig), for
 * the loop to carry it out and call again. */
void runs_reap(struct loop *l);

/* A run's end, once its output (if captured) has all been written. */
void runs_finish(struct loop *l, struct job *j, const struct run_end *e);

/* --fleet: J's run at SCHEDULED_NS (wall clock), which replica HELD_BY
 * held and died with, marked abandoned by this replica: --ping's /fail
 * (a run id of its own, no body) and --notify's "exit" event
 * (json_abandoned), as a failed run's. */
void runs_abandoned_elsewhere(struct loop *l, struct job *j, int64_t scheduled_ns,
			      const char *held_by);

/* tfdctl stop dropped the retry that J's run waited for (S): the run has
 * ended, failed, with its last try: counted, an "exit" event (a try that
 * never started has none: its "error" was said), its waiters answered,
 * the fleet's row ended. The try is in the history already. */
void runs_retry_dropped(struct loop *l, struct job *j, const struct runner_stopped *s);

/* In the foreground of a terminal, runs get it in turn (and tfd back):
 * runs_tty_fd then says which. */
void runs_find_terminal(struct loop *l);

/* tfd takes the terminal back from the run holding it. */
void runs_take_terminal(struct loop *l);

/* After the last schedule ends, groups that runs left behind are ended
 * too (unless a timeout will): a one-shot tfd leaves nothing running. */
void runs_finish_groups(struct loop *l);

/* The process groups that runs of jobs a reload removed left behind are
 * ended (SIGTERM, SIGKILL after the grace), at the removal or when a run
 * still going ends; then the loop drops those with nothing left
 * (l->st.gone). */
void runs_end_removed_groups(struct loop *l);

/* Whether J, removed, has nothing left (no run, no output to read): the
 * loop then drops it from the table. */
bool runs_gone(const struct loop *l, const struct job *j);

/* The job outcome counters of END: success, failure, timeout, killed. */
void runs_count_end(struct job_metrics *m, const struct run_end *e, int64_t wall_now);

#endif
