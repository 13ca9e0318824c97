/* SPDX-License-Identifier: MIT */
/* jobstate: where a job is, beside what it is (job.h): its counters and
 * schedule walk, the armed elapse, its runs, a delayed action, its
 * deadlines and its metrics. The loop's modules (loop, tick, runs, reload,
 * claims) keep it and no one else reads it: a job gets one when it enters
 * the loop's table and loses it when it leaves. */
#ifndef TFD_JOBSTATE_H
#define TFD_JOBSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"
#include "job.h"
#include "metrics.h"
#include "report.h"
#include "runner.h"
#include "schedule.h"

/* One ended run as `tfdctl status` shows it. */
struct run_record {
	uint64_t seq;
	int64_t start_ns; /* wall clock */
	int64_t duration_ns;
	int status; /* exit code, or -1 when a signal ended it */
	int signal;
	unsigned attempt;
	bool timed_out;
	bool start_failed; /* it never started (the kernel refused) */
	bool manual;       /* tfdctl run */
};

#define JOB_HISTORY 10
#define JOB_TAIL_MAX 4096

/* A job's last JOB_HISTORY runs (a ring, oldest overwritten) and the last
 * JOB_TAIL_MAX bytes its latest run wrote, when tfd reads its output
 * (--tag-output, MAILTO). Made when the first run ends (the tail when
 * output is first read), so a table of jobs that never ran costs a
 * pointer each. */
struct job_history {
	struct run_record runs[JOB_HISTORY];
	unsigned n, next;           /* records kept; where the next one goes */
	char *tail;                 /* a ring of the output's last bytes, made
				     * when output is first read */
	size_t tail_len, tail_head; /* bytes kept; where the oldest begins */
	/* Its last hook (--on-failure, --on-success): started, or ended */
	struct hook_record last_hook;
	bool hooked;       /* last_hook holds one */
	bool hook_running; /* it has not ended yet */
};

/* --fleet: a job's last run as the fleet's table has it, on whichever
 * replica (claims_control.c keeps it; tfdctl list shows it). */
struct fleet_seen {
	struct run_record last; /* start_ns: the claim's; no duration while running */
	bool running;
	char replica[256]; /* a --replica is at most 255 bytes */
};

/* --ping's and --notify's last answer, for tfdctl status (notify.h). */
struct notify_seen {
	struct notify_last {
		int64_t at_ns; /* wall clock; 0: none yet */
		bool ok;       /* answered 2xx */
		char text[96]; /* "200", "HTTP 500", curl's reason */
	} last[NOTIFY_KINDS];
};

struct job_state {
	struct runner *runner;     /* its runs; NULL when the job only prints */
	uint64_t seq;              /* wake-ups so far */
	struct schedule_walk walk; /* expirations so far and the next one */
	bool running;              /* the schedule goes on */
	bool removed;              /* dropped by a reload: only its runs remain */
	bool pending;              /* a --random-delay action waits */
	struct tick pending_tick;
	int64_t pending_due;       /* monotonic */
	int64_t for_deadline;      /* monotonic; INT64_MAX for none */
	struct heap_node due_node; /* in the loop's heap for the schedule's clock */
	struct heap_node aux_node; /* in the loop's heap of deadlines */
	struct job_metrics metrics;
	bool grouped;                    /* in the loop's list of jobs whose runs left groups */
	bool in_block;                   /* one of job_states_attach's: not freed alone */
	bool paused;                     /* tfdctl pause: elapses are printed, not run */
	struct job_history *history;     /* its last runs; NULL until one ended */
	struct fleet_seen *fleet_seen;   /* --fleet: its last run in tfd_runs; NULL: none known */
	struct notify_seen *notify_seen; /* --ping, --notify: the last answers; NULL: none yet */
};

/* Gives J a state of its own: no runs, no schedule yet. Returns 0, or -1
 * when memory ran out. */
int job_state_attach(struct job *j);

/* The same for the N jobs of JOBS at once, from one allocation (a table
 * of ten thousand jobs costs one, not ten thousand): returns the block,
 * which the caller frees after every job of it is gone, or NULL when
 * memory ran out (then no job has a state). */
struct job_state *job_states_attach(struct job *const *jobs, size_t n);

/* J's history, made on first use; NULL when memory ran out. */
struct job_history *job_history_of(struct job *j);

/* A run of J ended (or failed to start): its record goes in the ring. */
void job_history_add(struct job *j, const struct run_record *r);

/* A run of J started: the output tail starts anew. Then its output's
 * bytes, as read, keep the last JOB_TAIL_MAX of them. */
void job_history_tail_reset(struct job *j);
void job_history_tail_add(struct job *j, const char *buf, size_t n);

/* The I-th newest record (0: the last run), or NULL. */
const struct run_record *job_history_get(const struct job *j, unsigned i);

/* The tail in order, into BUF of JOB_TAIL_MAX bytes: its length. */
size_t job_history_tail(const struct job *j, char *buf);

/* Ends J's runner and frees its state (none: nothing to do); J is as
 * job_build left it. */
void job_state_free(struct job *j);

#endif
