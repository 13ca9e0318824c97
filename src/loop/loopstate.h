/* SPDX-License-Identifier: MIT */
/* loopstate: the state of one event loop, shared by the loop's own modules
 * and by no one else: loop.c (setup, the poll set, dispatch, signals and
 * shutdown), tick.c (what a job does over time), runs.c (run starts and
 * ends), reload.c (the jobs file), deadlines.c (the monotonic timer),
 * due.c (the turn of due wake-ups), claims.c (--fleet), jobdue.c (a job's
 * deadline). What each module alone keeps is behind a pointer to its own
 * private struct (claims, commands, control, reload, runs). Failures,
 * stops and the exit status are written to st (loopstatus.h) by the
 * modules and acted on by loop.c alone: none of them calls up into it.
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
#include "owner.h"
#include "readers.h"
#include "slices.h"
#include "starts.h"
#include "stats.h"
#include "timers.h"

/* The timer of one clock, armed at the earliest elapse of its jobs. */
struct clock_timer {
	struct timer t;
	struct heap heap; /* jobs by due_ns */
};

#define CLOCKS 5

/* Who a slot of the poll set belongs to; dispatch hands its events there.
 * The loop's own descriptors are kinds here; every other owner's (the
 * fleet, reload, the mailer, --listen, --control) is OWNER_ROW: a row of
 * the table of owners (owner.h, ownertab.h), which a new owner joins. */
enum owner_kind {
	OWNER_NONE, /* a slot whose owner went away during dispatch */
	OWNER_SIGNALS,
	OWNER_DEADLINES,
	OWNER_STDOUT,
	OWNER_STDERR,
	OWNER_CLOCK,  /* ptr: struct clock_timer */
	OWNER_JOIN,   /* ptr: struct job whose --join target is watched */
	OWNER_READER, /* ptr: struct reader */
	OWNER_ROW,    /* row: its index in the table; ptr: its tag */
};

struct poll_owner {
	enum owner_kind kind;
	unsigned row;
	void *ptr;
};

/* One row of the table of owners, and the events its slots had at the
 * last poll (for after_poll). */
struct owner_entry {
	const struct owner_row *row;
	void *self;
	short revents;
};

/* Rows in the table at most: five today (ownertab_add refuses more). */
#define OWNER_ROWS_MAX 8

struct claims_state;
struct control;
struct control_cmds;
struct notify;
struct reload;
struct runs;

struct loop {
	struct loop_config *cfg;
	struct job **jobs; /* the table, then removed jobs with runs left */
	size_t njobs;
	struct job_state *states; /* the first table's job states, in one block */
	struct clock_timer clocks[CLOCKS];
	struct timer deadline; /* CLOCK_MONOTONIC, at the earliest deadline (deadlines.c) */
	struct heap aux;       /* jobs by their earliest deadline */
	int signal_fd, precise_fd;
	struct reload *reload; /* inotify, the watches, a reload that waits (reload.c) */
	struct events ev;
	struct runs *runs; /* pids, the terminal, groups left behind (runs.c) */
	struct readers readers;
	struct mailer mailer; /* MAILTO: the sendmails on their way */
	struct hooks hooks;   /* --on-failure, --on-success: the hooks going */
	struct starts starts; /* due wake-ups waiting their turn (starts.h) */
	struct pollfd *pfd;   /* the poll set, and who owns each slot */
	struct poll_owner *owners;
	size_t pfd_cap;
	struct owner_entry rows[OWNER_ROWS_MAX]; /* the table of owners (ownertab.h) */
	size_t nrows;
	struct loop_status st; /* the phase and exit status: written below, acted on by loop.c */
	bool metrics_dirty;
	struct stats stats;
	struct claims_state *claims;   /* --fleet: held ticks and won elapses; NULL without */
	struct control *control;       /* --control: the socket and its clients; NULL without */
	struct control_cmds *commands; /* and its commands' answers owed (control_cmds.h) */
	/* What each server's large answers may still make (slices.h),
	 * renewed after a poll. */
	struct slice_budget http_slices, control_slices;
	/* Jobs freed so far (a reload's, once their runs ended): an answer
	 * made in parts that holds jobs looks at its jobs again when this
	 * moved (jobview.h). */
	uint64_t jobs_dropped;
	/* --ping, --notify: their HTTP requests (notify.h), made when a run
	 * first has one to send; NULL: none yet, or libcurl failed to load
	 * (notify_failed: said once). */
	struct notify *notify;
	bool notify_failed;
};

#endif
