#include "reload.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claims.h"
#include "hash.h"
#include "loopstate.h"
#include "runs.h"
#include "tick.h"
#include "timens.h"
#include "watch.h"

/* A change to the jobs file is read once it has been quiet this long, so
 * an editor's several steps (write, rename, chmod) make one reload. */
#define RELOAD_SETTLE_NS (INT64_C(100) * 1000000)

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

static int fill_plan(struct job *const *old, size_t nold, struct job *const *fresh,
		     size_t nfresh, struct hash_set *ix, struct hash_set *claimed, bool *kept,
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

int reload_plan(struct job *const *old, size_t nold, struct job *const *fresh,
		size_t nfresh, struct reload_plan *p)
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

void reload_now(struct loop *l)
{
	struct job_table t = { 0 };
	struct reload_plan p;
	char err[1024];
	int rc;

	l->reload_due = INT64_MAX;
	if (l->phase != PHASE_RUNNING || !l->cfg->reload)
		return;
	rc = l->cfg->reload(l->cfg->reload_arg, &t, l->reload_forced, err, sizeof err);
	l->reload_forced = false;
	if (rc > 0)
		return;   /* the file is as it was */
	if (rc < 0) {
		events_reload(&l->ev, &(struct reload_counts){ 0 }, err);
		return;
	}
	if (reload_plan(l->jobs, l->njobs, t.jobs, t.n, &p) != 0 || attach_added(&p) != 0) {
		for (size_t i = 0; i < t.n; i++)
			job_state_free(t.jobs[i]);
		reload_plan_free(&p);
		job_table_free(&t);
		events_reload(&l->ev, &(struct reload_counts){ 0 }, "reload: out of memory");
		return;
	}
	free(t.jobs);
	apply_plan(l, &p);
	events_reload(&l->ev, &p.counts, NULL);
	reload_plan_free(&p);
	runs_drop_finished_removed(l);
	tick_write_metrics(l);
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
	int64_t at;

	if (__builtin_add_overflow(clock_now_ns(CLOCK_MONOTONIC), RELOAD_SETTLE_NS, &at))
		at = INT64_MAX;
	if (at < l->reload_due)
		l->reload_due = at;
}

static void watch_lost_warning(struct loop *l, const struct watch *w)
{
	if (w->whole_dir)
		events_errf(&l->ev, "tfd: warning: --jobs '%s': the directory is gone; the jobs "
			    "run on as they are until it is back\n", w->path);
	else
		events_errf(&l->ev, "tfd: warning: --jobs '%s': its directory '%s' is gone; the "
			    "jobs run on as they are until it is back\n", w->path, w->dir);
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

void reload_on_inotify(struct loop *l)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(l->inotify_fd, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			/* Every watch sees every event: two may share a
			 * directory, each taking its own part. */
			for (size_t i = 0; i < l->nwatches; i++)
				on_news(l, &l->watches[i],
					watch_event(&l->watches[i], l->inotify_fd, ev));
			p += sizeof *ev + ev->len;
		}
	}
}

void reload_request(struct loop *l)
{
	for (size_t i = 0; l->inotify_fd >= 0 && i < l->nwatches; i++)
		watch_retry(&l->watches[i], l->inotify_fd);
	l->reload_due = clock_now_ns(CLOCK_MONOTONIC);
	l->reload_forced = true;
}

/* Watches PATH: a directory for its files, else the file's directory. */
static int watch_path(struct watch *w, int fd, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return watch_open_dir(w, fd, path);
	return watch_open(w, fd, path);
}

void reload_watch(struct loop *l)
{
	size_t n = l->cfg->njobs_paths;

	if (!l->cfg->jobs_path)
		return;
	l->watches = calloc(n, sizeof *l->watches);
	l->inotify_fd = l->watches ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
	if (l->inotify_fd < 0) {
		/* SIGHUP still reloads. */
		events_errf(&l->ev, "tfd: warning: inotify: %s; reload with SIGHUP\n",
			    l->watches ? strerror(errno) : "out of memory");
		return;
	}
	l->nwatches = n;
	for (size_t i = 0; i < n; i++) {
		struct watch *w = &l->watches[i];

		if (watch_path(w, l->inotify_fd, l->cfg->jobs_paths[i]) == 0)
			continue;
		if (errno == ENOENT || errno == ENOTDIR)
			watch_lost_warning(l, w);
		else    /* SIGHUP still reloads what this watch would have. */
			events_errf(&l->ev, "tfd: warning: inotify (%s): %s; reload with SIGHUP\n",
				    w->dir, strerror(errno));
	}
}
