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

struct job_state {
	struct runner *runner;      /* its runs; NULL when the job only prints */
	uint64_t seq;               /* wake-ups so far */
	struct schedule_walk walk;  /* expirations so far and the next one */
	bool running;               /* the schedule goes on */
	bool removed;               /* dropped by a reload: only its runs remain */
	bool pending;               /* a --random-delay action waits */
	struct tick pending_tick;
	int64_t pending_due;        /* monotonic */
	int64_t for_deadline;       /* monotonic; INT64_MAX for none */
	struct heap_node due_node;  /* in the loop's heap for the schedule's clock */
	struct heap_node aux_node;  /* in the loop's heap of deadlines */
	struct job_metrics metrics;
	bool grouped;               /* in the loop's list of jobs whose runs left groups */
	bool in_block;              /* one of job_states_attach's: not freed alone */
};

/* Gives J a state of its own: no runs, no schedule yet. Returns 0, or -1
 * when memory ran out. */
int job_state_attach(struct job *j);

/* The same for the N jobs of JOBS at once, from one allocation (a table
 * of ten thousand jobs costs one, not ten thousand): returns the block,
 * which the caller frees after every job of it is gone, or NULL when
 * memory ran out (then no job has a state). */
struct job_state *job_states_attach(struct job *const *jobs, size_t n);

/* Ends J's runner and frees its state (none: nothing to do); J is as
 * job_build left it. */
void job_state_free(struct job *j);

#endif
