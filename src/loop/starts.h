/* SPDX-License-Identifier: MIT */
/* starts: the queue of wake-ups whose action (the tick line and the run it
 * starts) waits its turn. The loop serves these in bounded batches between
 * polls, so that signals, reaping and pipes are served during a storm of
 * due runs. The clocks feed it (tick.c); due.c serves it. A ring of
 * STARTS_MAX entries: while it is full, due jobs stay due in their clock's
 * heap. It knows nothing of the loop: the caller says how many run pipes
 * are open. */
#ifndef TFD_STARTS_H
#define TFD_STARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "job.h"
#include "report.h"

struct start {
	struct job *job;
	struct tick tick;
};

#define STARTS_MAX 256
#define STARTS_BATCH 64

struct starts {
	struct start q[STARTS_MAX];
	size_t head, n;
	size_t pipe_fds_max; /* run pipes open at once: from RLIMIT_NOFILE */
};

/* An empty queue; a --tag-output start waits while PIPE_FDS_MAX run pipes
 * are open. */
void starts_init(struct starts *sq, size_t pipe_fds_max);

/* How many run pipes may be open at once under RLIMIT_NOFILE: a storm of
 * --tag-output runs waits for pipes to close rather than fail. */
size_t starts_pipe_fds_max(void);

/* Two pipes, both ends open while the run is started. */
#define STARTS_PIPE_FDS 4

/* J's wake-up T acts when its turn comes. The caller checks starts_full
 * first. Inline, as the three below: every tick passes here. */
static inline void starts_push(struct starts *sq, struct job *j, const struct tick *t)
{
	sq->q[(sq->head + sq->n++) % STARTS_MAX] = (struct start){ j, *t };
}

static inline bool starts_full(const struct starts *sq)
{
	return sq->n == STARTS_MAX;
}

/* True when the next start can be served now, with OPEN_PIPES run pipes
 * open: the loop then polls without waiting. A --tag-output run waits
 * while the pipes of other runs hold as many descriptors as tfd may
 * open (but never for ever: not when none is open). */
static inline bool starts_ready(const struct starts *sq, size_t open_pipes)
{
	return sq->n > 0 && (!sq->q[sq->head].job->run.tag_output ||
			     open_pipes + STARTS_PIPE_FDS <= sq->pipe_fds_max || open_pipes == 0);
}

/* Takes the next start into OUT; false when there is none. */
static inline bool starts_pop(struct starts *sq, struct start *out)
{
	if (sq->n == 0)
		return false;
	*out = sq->q[sq->head];
	sq->head = (sq->head + 1) % STARTS_MAX;
	sq->n--;
	return true;
}

/* Forgets the starts of J (NULL: of every job). */
void starts_drop(struct starts *sq, const struct job *j);

#endif
