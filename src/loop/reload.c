/* SPDX-License-Identifier: MIT */
#include "reload.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "claims.h"
#include "hash.h"
#include "jobsdir.h"
#include "loopstate.h"
#include "runs.h"
#include "tick.h"
#include "timens.h"
#include "watch.h"
#include "writers.h"

/* A change to the jobs file is read once it has been quiet this long, so
 * an editor's several steps (write, rename, chmod) make one reload. */
#define RELOAD_SETTLE_NS (INT64_C(100) * 1000000)

/* While a reload waits for jobs files still being written (writers.h), it
 * looks again this often; the loop runs on meanwhile. */
#define RELOAD_WRITERS_POLL_NS (INT64_C(100) * 1000000)

/* A watch on the target of a link among the jobs files and directories:
 * editing the target, or swapping a linked directory, reloads. Rebuilt
 * at every reload, as links change. */
struct link_watch {
	struct watch w;
	char *path; /* what w watches (owned) */
};

/* The jobs files' watches and the reload that waits: the loop's, kept
 * here alone. */
struct reload {
	int inotify_fd;
	struct watch *watches; /* one a --jobs PATH, then --user-crontabs, on inotify_fd */
	size_t nwatches;
	struct link_watch *links; /* the targets of links among them */
	size_t nlinks;
	struct writers writers; /* jobs files written, not yet closed */
	int64_t due;            /* monotonic; INT64_MAX: none */
	bool forced;            /* SIGHUP: reload even an unchanged file */
	bool refused;           /* the last reload was refused: the jobs are older */
	char *error;            /* why (NULL: no memory to say) */
	reload_done_fn done;    /* told of each reload's outcome */
	void *done_arg;
};

/* The plan */

static const char *identity_of(const void *item)
{
	return ((const struct job *)item)->identity;
}

static const char *name_of(const void *item)
{
	return ((const struct job *)item)->name;
}

/* Whether OLD can be kept under its name: a kept job keeps it, so one
 * named by default cannot be kept when a --name of the new file takes
 * that name (CLAIMED: the new file's explicit names). */
static bool keeps_name(const struct job *old, const struct hash_set *claimed)
{
	return !old->name_base || !old->name || !hash_set_has(claimed, old->name);
}

static int fill_plan(struct job *const *old, size_t nold, struct job *const *fresh, size_t nfresh,
		     struct hash_set *ix, struct hash_set *claimed, bool *kept,
		     struct reload_plan *p)
{
	for (size_t i = 0; i < nfresh; i++)
		if (fresh[i]->name && !fresh[i]->name_base)
			hash_set_add(claimed, fresh[i], i);
	for (size_t i = 0; i < nold; i++)
		if (!old[i]->state->removed && keeps_name(old[i], claimed))
			hash_set_add(ix, old[i], i);
	for (size_t i = 0; i < nfresh; i++) {
		size_t at;

		if (hash_set_take(ix, fresh[i]->identity, &at)) {
			kept[at] = true;
			p->table[p->n++] = old[at];
			p->discard[p->ndiscard++] = fresh[i];
			p->counts.kept++;
		} else {
			p->table[p->n++] = fresh[i];
			p->added[p->nadded++] = fresh[i];
			if (!fresh[i]->reboot)
				p->start[p->nstart++] = fresh[i];
			p->counts.added++;
		}
	}
	p->nfile = p->n;
	for (size_t i = 0; i < nold; i++) {
		if (old[i]->state->removed) {
			p->table[p->n++] = old[i];
		} else if (!kept[i]) {
			p->table[p->n++] = old[i];
			p->retire[p->nretire++] = old[i];
			p->counts.removed++;
		}
	}
	return 0;
}

/* The new jobs named by default are named again, after the kept ones:
 * a kept job keeps its name, whatever lines above it now take. */
static int name_added(struct reload_plan *p)
{
	for (size_t i = 0; i < p->nadded; i++) {
		struct job *j = p->added[i];

		if (j->name_base) {
			free(j->name);
			j->name = NULL;
		}
	}
	return job_names_default(p->table, p->nfile);
}

int reload_plan(struct job *const *old, size_t nold, struct job *const *fresh, size_t nfresh,
		struct reload_plan *p)
{
	struct hash_set ix, claimed = { 0 };
	bool *kept = calloc(nold + 1, sizeof *kept);
	int rc = -1;

	*p = (struct reload_plan){ 0 };
	p->table = calloc(nfresh + nold + 1, sizeof *p->table);
	p->retire = calloc(nold + 1, sizeof *p->retire);
	p->start = calloc(nfresh + 1, sizeof *p->start);
	p->added = calloc(nfresh + 1, sizeof *p->added);
	p->discard = calloc(nfresh + 1, sizeof *p->discard);
	if (kept && p->table && p->retire && p->start && p->added && p->discard &&
	    hash_set_init(&claimed, nfresh, name_of) == 0 &&
	    hash_set_init(&ix, nold, identity_of) == 0) {
		rc = fill_plan(old, nold, fresh, nfresh, &ix, &claimed, kept, p);
		hash_set_free(&ix);
		if (rc == 0)
			rc = name_added(p);
	}
	hash_set_free(&claimed);
	free(kept);
	if (rc != 0)
		reload_plan_free(p);
	return rc;
}

void reload_plan_free(struct reload_plan *p)
{
	free(p->table);
	free(p->retire);
	free(p->start);
	free(p->added);
	free(p->discard);
	*p = (struct reload_plan){ 0 };
}

/* Applying it */

/* The new jobs enter the loop's table: each gets its state. */
static int attach_added(const struct reload_plan *p)
{
	for (size_t i = 0; i < p->nadded; i++)
		if (job_state_attach(p->added[i]) != 0)
			return -1;
	return 0;
}

static void apply_plan(struct loop *l, struct reload_plan *p)
{
	for (size_t i = 0; i < p->nretire; i++)
		tick_retire_job(l, p->retire[i]);
	for (size_t i = 0; i < p->ndiscard; i++)
		job_free(p->discard[i]);
	free(l->jobs);
	l->jobs = p->table;
	l->njobs = p->n;
	p->table = NULL;
	for (size_t i = 0; i < p->nstart; i++)
		tick_start_job(l, p->start[i]);
	claims_jobs_changed(l);
}

/* A load's warning, queued on tfd's stderr as every line of the loop. */
static void warn_queued(void *arg, const char *line)
{
	events_errf(&((struct loop *)arg)->ev, "%s", line);
}

/* Whether the reload waits for a jobs file still being written: a half
 * file is never read. After WRITERS_WAIT_NS it reads them, with a warning,
 * up to their last newline (writers_held). */
static bool waits_for_writers(struct loop *l)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);
	char still[WATCH_DIR_MAX + NAME_MAX + 2];

	switch (writers_check(&l->reload->writers, now, still, sizeof still)) {
	case WRITERS_WAIT:
		l->reload->due = now + RELOAD_WRITERS_POLL_NS;
		return true;
	case WRITERS_GAVE_UP:
		events_errf(&l->ev,
			    "tfd: warning: '%s' is still open for writing after %d s: "
			    "read up to its last newline until it is closed\n",
			    still, (int)(WRITERS_WAIT_NS / 1000000000));
		return false;
	default:
		return false;
	}
}

static void watch_links(struct loop *l);

/* What the last reload said, for --listen's /readyz: ERR, or NULL when it
 * was applied (a copy that finds no memory is the refusal without why);
 * and for whoever waits for it (tfdctl reload). */
static void note_reload(struct loop *l, const struct reload_counts *counts, const char *err)
{
	free(l->reload->error);
	l->reload->error = err ? strdup(err) : NULL;
	l->reload->refused = err != NULL;
	l->reload->done(l->reload->done_arg, counts, err);
}

int reload_run(struct loop *l, bool forced, struct reload_counts *counts, char *err, size_t errlen)
{
	struct job_table t = { 0 };
	struct reload_plan p;
	int rc;

	*counts = (struct reload_counts){ 0 };
	l->reload->due = INT64_MAX;
	/* Before the read: a link changed after it is seen again. */
	watch_links(l);
	/* After a refused reload the jobs are older than the files: files as
	 * they were last loaded (a rollback) are a reload too, which clears
	 * the refusal. */
	rc = l->cfg->reload(l->cfg->reload_arg, &t, forced || l->reload->refused,
			    writers_held(&l->reload->writers), warn_queued, l, err, errlen);
	if (rc > 0)
		return 1; /* the file is as it was */
	if (rc < 0) {
		events_reload(&l->ev, counts, err);
		note_reload(l, counts, err);
		return -1;
	}
	if (reload_plan(l->jobs, l->njobs, t.jobs, t.n, &p) != 0 || attach_added(&p) != 0) {
		for (size_t i = 0; i < t.n; i++)
			job_state_free(t.jobs[i]);
		reload_plan_free(&p);
		job_table_free(&t);
		snprintf(err, errlen, "reload: out of memory");
		events_reload(&l->ev, counts, err);
		note_reload(l, counts, err);
		return -1;
	}
	free(t.jobs);
	apply_plan(l, &p);
	*counts = p.counts;
	events_reload(&l->ev, &p.counts, NULL);
	note_reload(l, &p.counts, NULL);
	reload_plan_free(&p);
	/* The reading's copies of the kept jobs are freed by now, their pages
	 * scattered between the jobs that stay: given back, or each reload
	 * of a large table would leave tfd's RSS a table larger. */
	malloc_trim(0);
	runs_end_removed_groups(l);
	tick_write_metrics(l, claims_metrics(l));
	return 0;
}

void reload_now(struct loop *l)
{
	struct reload_counts counts;
	char err[1024];
	bool forced = l->reload->forced;

	l->reload->due = INT64_MAX;
	if (l->st.phase != PHASE_RUNNING || !l->cfg->reload || waits_for_writers(l))
		return;
	l->reload->forced = false;
	reload_run(l, forced, &counts, err, sizeof err);
}

bool reload_waits(const struct loop *l)
{
	if (!l->cfg->jobs_path)
		return false;
	for (size_t i = 0; i < l->njobs; i++)
		if (!l->jobs[i]->state->removed)
			return false;
	return true;
}

/* Watching the file */

/* A change settles before it is read. */
static void reload_after_settling(struct loop *l)
{
	int64_t at = mono_after(RELOAD_SETTLE_NS);

	if (at < l->reload->due)
		l->reload->due = at;
}

static void watch_lost_warning(struct loop *l, const struct watch *w)
{
	if (w->whole_dir)
		events_errf(&l->ev,
			    "tfd: warning: --jobs '%s': the directory is gone; the jobs "
			    "run on as they are until it is back\n",
			    w->path);
	else
		events_errf(&l->ev,
			    "tfd: warning: --jobs '%s': its directory '%s' is gone; the "
			    "jobs run on as they are until it is back\n",
			    w->path, w->dir);
}

/* What one event says of a jobs file or directory: read them all once the
 * change settles; a directory that came back may hold a new file. */
static void on_news(struct loop *l, const struct watch *w, enum watch_news news)
{
	if (news == WATCH_LOST)
		watch_lost_warning(l, w);
	else if (news == WATCH_CHANGED || news == WATCH_BACK)
		reload_after_settling(l);
}

/* The watch, among every one, that EV is about, or NULL. */
static const struct watch *owner_of(const struct loop *l, const struct inotify_event *ev)
{
	for (size_t i = 0; i < l->reload->nwatches; i++)
		if (watch_owns_name(&l->reload->watches[i], ev))
			return &l->reload->watches[i];
	for (size_t i = 0; i < l->reload->nlinks; i++)
		if (watch_owns_name(&l->reload->links[i].w, ev))
			return &l->reload->links[i].w;
	return NULL;
}

/* Keeps the list of jobs files being written. */
static void note_writer(struct loop *l, const struct inotify_event *ev)
{
	const struct watch *w = NULL;

	if (ev->mask & (IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM))
		w = owner_of(l, ev);
	writers_note(&l->reload->writers, ev, w ? w->dir : NULL);
}

/* What an event says of a link's target: a change reloads; a target gone
 * says nothing (the link's own watch does, or the reload that rebuilds
 * these watches). */
static void on_link_news(struct loop *l, enum watch_news news)
{
	if (news == WATCH_CHANGED || news == WATCH_BACK)
		reload_after_settling(l);
}

void reload_on_inotify(struct loop *l)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(l->reload->inotify_fd, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			note_writer(l, ev);
			/* Every watch sees every event: two may share a
			 * directory, each taking its own part. */
			for (size_t i = 0; i < l->reload->nwatches; i++)
				on_news(l, &l->reload->watches[i],
					watch_event(&l->reload->watches[i], l->reload->inotify_fd,
						    ev));
			for (size_t i = 0; i < l->reload->nlinks; i++)
				on_link_news(l, watch_event(&l->reload->links[i].w,
							    l->reload->inotify_fd, ev));
			p += sizeof *ev + ev->len;
		}
	}
}

void reload_retry_watches(struct loop *l)
{
	for (size_t i = 0; l->reload->inotify_fd >= 0 && i < l->reload->nwatches; i++)
		watch_retry(&l->reload->watches[i], l->reload->inotify_fd);
}

void reload_request(struct loop *l)
{
	reload_retry_watches(l);
	l->reload->due = clock_now_ns(CLOCK_MONOTONIC);
	l->reload->forced = true;
}

/* Watches PATH: a directory for its files (by a spool's names when
 * SPOOL), else the file's directory. */
static int watch_path(struct watch *w, int fd, const char *path, bool spool)
{
	struct stat st;
	int rc;

	if (!spool && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
		return watch_open(w, fd, path);
	rc = watch_open_dir(w, fd, path);
	w->spool = spool;
	return rc;
}

/* Links */

/* The links' targets found so far. */
struct link_list {
	struct link_watch *v;
	size_t n, cap;
};

/* PATH to watch: a file's name in its directory, or a directory's files
 * (by a spool's names when SPOOL). */
static void link_add(struct link_list *ls, const char *path, bool dir, bool spool)
{
	if (array_reserve(&ls->v, &ls->cap, ls->n + 1, sizeof *ls->v, SIZE_MAX) != 0)
		return; /* not watched: SIGHUP still reloads */
	ls->v[ls->n] = (struct link_watch){ .path = strdup(path) };
	if (ls->v[ls->n].path) {
		ls->v[ls->n].w.whole_dir = dir;
		ls->v[ls->n].w.spool = spool;
		ls->n++;
	}
}

/* The targets of the links among the files of the directory DIR. */
static void links_in_dir(struct link_list *ls, const char *dir)
{
	char **paths, real[PATH_MAX], err[256];
	size_t n;

	if (jobsdir_list(dir, &paths, &n, err, sizeof err) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (lstat(paths[i], &st) == 0 && S_ISLNK(st.st_mode) && realpath(paths[i], real))
			link_add(ls, real, false, false);
	}
	jobsdir_free(paths);
}

/* A source PATH that is a link: its target, and for a directory the link
 * itself, by name in its own directory (a file's is watched so already);
 * then the links among a directory's files (a spool takes none). */
static void links_of_source(struct link_list *ls, const char *path, bool spool)
{
	struct stat st, lst;
	char real[PATH_MAX];
	bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);

	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if (dir)
			link_add(ls, path, false, false);
		if (realpath(path, real))
			link_add(ls, real, dir, spool);
	}
	if (dir && !spool)
		links_in_dir(ls, path);
}

static void links_free(struct link_watch *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* Watches every link's target as it is now, in place of those of the last
 * reload (their kernel watches stay: a directory's is shared, watch.h). */
static void watch_links(struct loop *l)
{
	struct link_list ls = { 0 };

	if (l->reload->inotify_fd < 0)
		return;
	for (size_t i = 0; i < l->cfg->njobs_paths; i++)
		links_of_source(&ls, l->cfg->jobs_paths[i], false);
	if (l->cfg->user_crontabs)
		links_of_source(&ls, l->cfg->user_crontabs, true);
	for (size_t i = 0; i < ls.n; i++) {
		struct link_watch *lw = &ls.v[i];
		bool spool = lw->w.spool; /* the open sets it false */

		/* A target that cannot be watched now is looked for again at
		 * the next reload. */
		if (lw->w.whole_dir) {
			watch_open_dir(&lw->w, l->reload->inotify_fd, lw->path);
			lw->w.spool = spool;
		} else {
			watch_open(&lw->w, l->reload->inotify_fd, lw->path);
		}
	}
	links_free(l->reload->links, l->reload->nlinks);
	l->reload->links = ls.v;
	l->reload->nlinks = ls.n;
}

struct reload *reload_new(reload_done_fn done, void *arg)
{
	struct reload *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->inotify_fd = -1;
	r->due = INT64_MAX;
	r->done = done;
	r->done_arg = arg;
	return r;
}

void reload_free(struct reload *r)
{
	if (!r)
		return;
	links_free(r->links, r->nlinks);
	writers_free(&r->writers);
	free(r->watches);
	if (r->inotify_fd >= 0)
		close(r->inotify_fd);
	free(r->error);
	free(r);
}

int reload_poll_fd(const struct loop *l)
{
	return l->reload->inotify_fd;
}

int64_t reload_deadline(const struct loop *l)
{
	return l->reload->due;
}

const char *reload_refusal(const struct loop *l, bool *refused)
{
	*refused = l->reload->refused;
	return l->reload->error;
}

void reload_watch(struct loop *l)
{
	size_t n = l->cfg->njobs_paths + !!l->cfg->user_crontabs;

	if (!l->cfg->jobs_path)
		return;
	l->reload->watches = calloc(n, sizeof *l->reload->watches);
	l->reload->inotify_fd = l->reload->watches ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
	if (l->reload->inotify_fd < 0) {
		/* SIGHUP still reloads. */
		events_errf(&l->ev, "tfd: warning: inotify: %s; reload with SIGHUP\n",
			    l->reload->watches ? strerror(errno) : "out of memory");
		return;
	}
	l->reload->nwatches = n;
	for (size_t i = 0; i < n; i++) {
		struct watch *w = &l->reload->watches[i];
		bool spool = i == l->cfg->njobs_paths;

		if (watch_path(w, l->reload->inotify_fd,
			       spool ? l->cfg->user_crontabs : l->cfg->jobs_paths[i], spool) == 0)
			continue;
		if (errno == ENOENT || errno == ENOTDIR)
			watch_lost_warning(l, w);
		else /* SIGHUP still reloads what this watch would have. */
			events_errf(&l->ev, "tfd: warning: inotify (%s): %s; reload with SIGHUP\n",
				    w->dir, strerror(errno));
	}
	watch_links(l);
}
