/* SPDX-License-Identifier: MIT */
/* loopstate: the state of one event loop, shared by the loop's own modules
 * and by no one else: loop.c (setup, the poll set, dispatch, signals and
 * shutdown), tick.c (what a job does over time), runs.c (run starts and
 * ends), reload.c (the jobs file), deadlines.c (the monotonic timer).
 * Each job's own state is in jobstate.h. Output goes through events.h,
 * timerfds through timers.h, captured pipes through readers.h. */
#ifndef TFD_LOOPSTATE_H
#define TFD_LOOPSTATE_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "heap.h"
#include "job.h"
#include "jobstate.h"
#include "loopconfig.h"
#include "loopstatus.h"
#include "mailer.h"
#include "pidmap.h"
#include "readers.h"
#include "stats.h"
#include "timers.h"
#include "watch.h"
#include "writers.h"

/* The timer of one clock, armed at the earliest elapse of its jobs. */
struct clock_timer {
	struct timer t;
	struct heap heap;      /* jobs by due_ns */
};

#define CLOCKS 5

/* Who a slot of the poll set belongs to; dispatch hands its events there.
 * A new kind of descriptor (a database socket) is one more kind here and
 * one more case in dispatch_slot(). */
enum owner_kind {
	OWNER_NONE,       /* a slot whose owner went away during dispatch */
	OWNER_SIGNALS,
	OWNER_DEADLINES,
	OWNER_INOTIFY,
	OWNER_STDOUT,
	OWNER_STDERR,
	OWNER_CLOCK,      /* ptr: struct clock_timer */
	OWNER_JOIN,       /* ptr: struct job whose --join target is watched */
	OWNER_READER,     /* ptr: struct reader */
	OWNER_FLEET,      /* the --fleet database's socket (claims.h) */
	OWNER_MAIL,       /* a sendmail's stdin (mailer.h): every pipe is tried */
	OWNER_HTTP,       /* --listen's epoll descriptor (http.h) */
	OWNER_CONTROL,    /* the control socket (control.h): a client connects */
	OWNER_CONTROL_CLIENT, /* ptr: struct control_client */
};

struct poll_owner {
	enum owner_kind kind;
	void *ptr;
};

/* A wake-up whose action (the tick line and the run it starts) waits its
 * turn: the loop serves these in bounded batches between polls, so that
 * signals, reaping and pipes are served during a storm of due runs. The
 * clocks feed it; so may anything else that decides a run is due (a
 * fleet's claim, answered later). A ring of STARTS_MAX entries: while it
 * is full, due jobs stay due in their clock's heap. */
struct start {
	struct job *job;
	struct tick tick;
};

#define STARTS_MAX 256
#define STARTS_BATCH 64

struct start_queue {
	struct start q[STARTS_MAX];
	size_t head, n;
};

struct loop {
	struct loop_config *cfg;
	struct job **jobs;        /* the table, then removed jobs with runs left */
	size_t njobs;
	struct job_state *states; /* the first table's job states, in one block */
	struct job **grouped;     /* jobs whose runs left groups (runner_has_groups) */
	size_t ngrouped, grouped_cap;
	struct clock_timer clocks[CLOCKS];
	struct timer deadline;    /* CLOCK_MONOTONIC, at the earliest of aux and reload_due */
	struct heap aux;          /* jobs by their earliest deadline */
	int signal_fd, inotify_fd, tty_fd, precise_fd;
	struct watch *watches;    /* one a --jobs PATH, then --user-crontabs, on inotify_fd */
	size_t nwatches;
	struct link_watch *links; /* the targets of links among them (reload.c) */
	size_t nlinks;
	struct writers writers;   /* jobs files written, not yet closed */
	int64_t reload_due;       /* monotonic; INT64_MAX: none */
	bool reload_forced;       /* SIGHUP: reload even an unchanged file */
	bool reload_refused;      /* the last reload was refused: the jobs are older */
	char *reload_error;       /* why (NULL: no memory to say) */
	struct events ev;
	struct pidmap pids;
	pid_t tty_owner;          /* the run holding the terminal, or 0 */
	struct readers readers;
	struct mailer mailer;     /* MAILTO: the sendmails on their way */
	struct start_queue starts;
	size_t pipe_fds_max;      /* run pipes open at once: from RLIMIT_NOFILE */
	struct pollfd *pfd;       /* the poll set, and who owns each slot */
	struct poll_owner *owners;
	size_t pfd_cap;
	struct loop_status st;    /* the phase and exit status: written below, acted on by loop.c */
	bool metrics_dirty;
	struct stats stats;
	struct claims *claims;    /* --fleet: held ticks and won elapses; NULL without */
	struct control *control;  /* --control: the socket and its clients; NULL without */
};

#endif
