/* SPDX-License-Identifier: MIT */
/* reload: the jobs file while tfd runs — inotify on its directory (an
 * editor's several steps settle into one reload), SIGHUP, and the merge of
 * the new table into the running one. The merge itself is pure
 * (reload_plan): which jobs are kept as they are (same line and
 * environment), which start, which retire; applying the plan is the
 * loop's. */
#ifndef TFD_RELOAD_H
#define TFD_RELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "job.h"

struct loop;

/* What a reload does, in the order it is done. */
struct reload_plan {
	struct job **table; /* the new table: file order (kept jobs as they
			     * were, new ones), then the removed jobs that
			     * still have runs, old and new retirees */
	size_t n;
	size_t nfile;        /* the file-order part of table */
	struct job **retire; /* old jobs the file no longer has, in old order */
	size_t nretire;
	struct job **start; /* new jobs to start, in file order (not @reboot) */
	size_t nstart;
	struct job **added; /* every new job, in file order (with @reboot) */
	size_t nadded;
	struct job **discard; /* new copies of kept jobs: freed, never started */
	size_t ndiscard;
	struct reload_counts counts;
};

/* Matches FRESH (a new reading) against OLD (the running table, with its
 * removed jobs) by identity; a line twice is two jobs. A kept job keeps
 * its name, so an old job named by default whose name a new --name takes
 * is not kept. Then names the new jobs named by default (name_base set)
 * after all the others (job_names_default): they are the only jobs it
 * changes. Reads nothing else than the jobs' identity, name, name_base,
 * reboot and, of the old ones, their state's removed. Returns 0, or -1 when memory ran out (then the
 * plan holds nothing, and a new job may have no name). */
int reload_plan(struct job *const *old, size_t nold, struct job *const *fresh, size_t nfresh,
		struct reload_plan *p);
void reload_plan_free(struct reload_plan *p);

/* A jobs file with no job, at start or after a reload, waits for a
 * reload that brings some: a save that empties the file for a moment
 * never ends tfd. */
bool reload_waits(const struct loop *l);

/* Who hears of each reload's outcome, its counts or its ERROR (NULL: it
 * was applied): tfdctl reload's waiters. The loop, above, sets it: reload.c
 * calls nothing above it. ARG is reload_new's. */
typedef void (*reload_done_fn)(void *arg, const struct reload_counts *counts, const char *error);

/* The state of the watches and of a reload that waits (l->reload), or
 * NULL when memory ran out; freed with its descriptor. */
struct reload *reload_new(reload_done_fn done, void *arg);
void reload_free(struct reload *r);

/* Watches the jobs file's directory (a warning when it cannot: SIGHUP
 * still reloads). */
void reload_watch(struct loop *l);

/* The inotify descriptor for the poll set (-1: none), and the monotonic
 * time a reload is due (INT64_MAX: none). */
int reload_poll_fd(const struct loop *l);
int64_t reload_deadline(const struct loop *l);

/* Whether the last reload was refused (REFUSED) and why (NULL: applied,
 * or no memory to say), for --listen's /readyz. */
const char *reload_refusal(const struct loop *l, bool *refused);

/* inotify said something changed: a reload once it settles. */
void reload_on_inotify(struct loop *l);

/* Watches lost (a directory gone) are tried again: SIGHUP's and tfdctl
 * reload's first step. */
void reload_retry_watches(struct loop *l);

/* SIGHUP: a reload now, even of an unchanged file. */
void reload_request(struct loop *l);

/* Reads the jobs files now and applies the plan (FORCED: even when
 * unchanged), as SIGHUP does: the loop must be running with --jobs.
 * Returns 0 with the counts, 1 when nothing changed (not FORCED), or -1
 * with one line in err (FILE:LINE: ...): the jobs run on as they were. */
int reload_run(struct loop *l, bool forced, struct reload_counts *counts, char *err, size_t errlen);

/* The reload that came due: once no jobs file is still being written (or
 * after RELOAD_WRITERS_WAIT_NS), reads the files and applies the plan. */
void reload_now(struct loop *l);

#endif
