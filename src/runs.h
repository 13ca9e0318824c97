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

/* The start queue (struct start_queue): J's wake-up T acts when its turn
 * comes. The caller checks runs_queue_full first. */
void runs_queue_start(struct loop *l, struct job *j, const struct tick *t);
bool runs_queue_full(const struct loop *l);

/* How many run pipes may be open at once under RLIMIT_NOFILE (struct
 * loop's pipe_fds_max): a storm of --tag-output runs waits for pipes to
 * close rather than fail. */
size_t runs_pipe_fds_max(void);

/* True when the next queued start can be served now: the loop then polls
 * without waiting. A --tag-output run waits while the pipes of other runs
 * hold as many descriptors as tfd may open. */
bool runs_starts_ready(const struct loop *l);

/* Serves at most STARTS_BATCH queued starts (none in shutdown). */
void runs_serve_starts(struct loop *l);

/* Forgets the queued starts of J (NULL: of every job). */
void runs_drop_starts(struct loop *l, const struct job *j);

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

/* In the foreground of a terminal, runs get it in turn (and tfd back):
 * the loop's tty_fd, or -1 elsewhere. */
void runs_find_terminal(struct loop *l);

/* tfd takes the terminal back from the run holding it. */
void runs_take_terminal(struct loop *l);

/* After the last schedule ends, groups that runs left behind are ended
 * too (unless a timeout will): a one-shot tfd leaves nothing running. */
void runs_finish_groups(struct loop *l);

/* The process groups that runs of jobs a reload removed left behind are
 * ended (SIGTERM, SIGKILL after the grace), at the removal or when a run
 * still going ends. */
void runs_end_removed_groups(struct loop *l);

/* Whether J, removed, has nothing left (no run, no output to read): the
 * loop then drops it from the table. */
bool runs_gone(const struct loop *l, const struct job *j);

/* The job outcome counters of END: success, failure, timeout, killed. */
void runs_count_end(struct job_metrics *m, const struct run_end *e, int64_t wall_now);

#endif
