/* SPDX-License-Identifier: MIT */
/* watch: an inotify watch on the directory of one file, or on a directory
 * of files (a --jobs directory), kept across that directory being deleted,
 * moved away and made again. While the directory
 * is gone, the nearest ancestor that exists is watched instead, and the
 * directory's watch is put back as soon as it is there again. Several
 * watches (files, directories) can share one inotify descriptor: each
 * event is handed to every watch, and a watch takes only its own. A
 * directory has one watch descriptor per inotify descriptor, so two
 * watches may share one: masks are only ever added to, and a descriptor
 * is never removed (an event on one that no watch holds is nobody's). */
#ifndef TFD_WATCH_H
#define TFD_WATCH_H

#include <stdbool.h>
#include <sys/inotify.h>

#define WATCH_DIR_MAX 4096

struct watch {
	const char *path; /* the file; its directory is watched.
			   * With whole_dir: the directory itself */
	bool whole_dir;   /* every file of the directory counts */
	bool spool;       /* whole_dir by a crontab spool's names
			   * (jobsdir), not run-parts' */
	char dir[WATCH_DIR_MAX];
	char ancestor[WATCH_DIR_MAX];
	int wd;          /* on dir, or -1 */
	int ancestor_wd; /* on ancestor while dir is gone, or -1 */
};

/* What an event meant to a watch. */
enum watch_news {
	WATCH_NONE,    /* not this watch's, or nothing to do */
	WATCH_CHANGED, /* the file was written, or put in place;
			* whole_dir: a file of it also removed
			* or renamed */
	WATCH_LOST,    /* the directory went away */
	WATCH_BACK,    /* the directory is watched again: the file
			* may have changed meanwhile */
};

/* Watches PATH's directory on the inotify descriptor FD. Returns 0, or
 * -1 with errno (the watch is then lost: watch_retry tries again). */
int watch_open(struct watch *w, int fd, const char *path);

/* Watches the directory DIR itself on FD for its files: a file that
 * passes run-parts' rule (jobsdir; a spool's rule once spool is set)
 * written, put in place, removed or renamed, or a "..data" link swapped (a
 * ConfigMap). Returns as watch_open. */
int watch_open_dir(struct watch *w, int fd, const char *dir);

/* Whether EV names one of W's files (the file, or a file of the
 * directory by its rule), whatever happened to it. */
bool watch_owns_name(const struct watch *w, const struct inotify_event *ev);

/* What the event EV on FD means to W. */
enum watch_news watch_event(struct watch *w, int fd, const struct inotify_event *ev);

/* Whether W's directory is not being watched. */
bool watch_lost(const struct watch *w);

/* Tries to watch the directory again (SIGHUP): WATCH_BACK when it now
 * is, WATCH_NONE when it was or still is not. */
enum watch_news watch_retry(struct watch *w, int fd);

#endif
