/* SPDX-License-Identifier: MIT */
#include "watch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "jobsdir.h"
#include "pathdir.h"

/* A file written and closed, moved or linked into place, or created; its
 * owner or mode changed (a host's cron may now load it, or no longer);
 * for a directory of files, one removed or moved away; and a write not yet
 * closed, which a reload waits for. One mask for every watch: two on the
 * same directory share a descriptor. */
#define DIR_EVENTS \
	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB | \
	 IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF | IN_MASK_ADD)
/* A directory made (or moved) below the ancestor, or the ancestor gone. */
#define ANCESTOR_EVENTS \
	(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD)
/* The watch itself is gone (IN_IGNORED) or no longer on that path. */
#define GONE_EVENTS (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)

/* Whether DIR has an ancestor to watch instead: "/" and "." have none. */
static bool has_parent(const char *dir)
{
	return strcmp(dir, "/") != 0 && strcmp(dir, ".") != 0;
}

/* Forgets W's descriptor WD, leaving it in the kernel: another watch on
 * the same directory may hold the same one (watch.h). */
static void unwatch(int *wd)
{
	*wd = -1;
}

/* The deepest of DIR and its ancestors that is a directory now (OUT),
 * or false when none is. */
static bool nearest_dir(const char *dir, char *out, size_t len)
{
	struct stat st;

	snprintf(out, len, "%s", dir);
	for (;;) {
		if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
			return true;
		char up[WATCH_DIR_MAX];

		if (!has_parent(out))
			return false;
		path_dir(out, up, sizeof up);
		snprintf(out, len, "%s", up);
	}
}

/* How many times a directory made while the watches are being moved may
 * send them round again. */
#define ESTABLISH_TRIES 16

/* Watches the directory, or else the nearest ancestor that exists. A
 * directory below that ancestor made meanwhile would send no event: it is
 * looked for again once the ancestor is watched. */
static int establish(struct watch *w, int fd)
{
	for (int tries = 0; tries < ESTABLISH_TRIES; tries++) {
		char again[WATCH_DIR_MAX];

		unwatch(&w->ancestor_wd);
		w->wd = inotify_add_watch(fd, w->dir, DIR_EVENTS);
		if (w->wd >= 0)
			return 0;
		if (errno != ENOENT && errno != ENOTDIR)
			return -1;
		if (!nearest_dir(w->dir, w->ancestor, sizeof w->ancestor))
			break;
		if (strcmp(w->ancestor, w->dir) == 0)
			continue;
		w->ancestor_wd = inotify_add_watch(fd, w->ancestor, ANCESTOR_EVENTS);
		if (w->ancestor_wd >= 0 && nearest_dir(w->dir, again, sizeof again) &&
		    strcmp(again, w->ancestor) == 0)
			break;
	}
	errno = ENOENT;
	return -1;
}

int watch_open(struct watch *w, int fd, const char *path)
{
	w->path = path;
	w->whole_dir = w->spool = false;
	w->wd = w->ancestor_wd = -1;
	path_dir(path, w->dir, sizeof w->dir);
	return establish(w, fd);
}

int watch_open_dir(struct watch *w, int fd, const char *dir)
{
	size_t len = strlen(dir);

	w->path = dir;
	w->whole_dir = true;
	w->spool = false;
	w->wd = w->ancestor_wd = -1;
	/* "d/" is "d": its parent is the ancestor to fall back to. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	snprintf(w->dir, sizeof w->dir, "%.*s", (int)len, dir);
	return establish(w, fd);
}

bool watch_lost(const struct watch *w)
{
	return w->wd < 0;
}

enum watch_news watch_retry(struct watch *w, int fd)
{
	if (!watch_lost(w))
		return WATCH_NONE;
	return establish(w, fd) == 0 ? WATCH_BACK : WATCH_NONE;
}

/* Whether the file just created at PATH came whole: a symbolic link or a
 * second name of a file (ln). A file that open() created is still being
 * written; its IN_CLOSE_WRITE says when it is whole. */
static bool linked_into_place(const char *path)
{
	struct stat st;

	return lstat(path, &st) != 0 || S_ISLNK(st.st_mode) || st.st_nlink > 1;
}

/* A change in the directory: the file itself written and closed or moved
 * into place, or a "..data" symlink swapped (a Kubernetes ConfigMap).
 * Events on other names are someone else's, and so is the file going
 * away: an editor's delete comes before its write. */
static bool file_changed(const char *path, const struct inotify_event *ev)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	/* A write: its close is the change. */
	if (ev->len == 0 || (ev->mask & IN_MODIFY))
		return false;
	if (strncmp(ev->name, "..", 2) == 0)
		return true;
	if (strcmp(ev->name, base) != 0 || (ev->mask & (IN_DELETE | IN_MOVED_FROM)))
		return false;
	return !(ev->mask & IN_CREATE) || linked_into_place(path);
}

/* Whether NAME is one of the directory's files by its rule. */
static bool dir_name_ok(const struct watch *w, const char *name)
{
	return w->spool ? jobsdir_spool_name_ok(name) : jobsdir_name_ok(name);
}

bool watch_owns_name(const struct watch *w, const struct inotify_event *ev)
{
	const char *base;

	if (w->wd < 0 || ev->wd != w->wd || ev->len == 0)
		return false;
	if (w->whole_dir)
		return dir_name_ok(w, ev->name);
	base = strrchr(w->path, '/');
	return strcmp(ev->name, base ? base + 1 : w->path) == 0;
}

/* A change among a directory's files: one of the names the directory
 * stands for (jobsdir) written, put in place, removed or renamed, or a
 * ConfigMap's "..data" swapped. */
static bool dir_file_changed(const struct watch *w, const struct inotify_event *ev)
{
	char path[WATCH_DIR_MAX + NAME_MAX + 2];

	if (ev->len == 0 || (ev->mask & IN_MODIFY))
		return false;
	if (strncmp(ev->name, "..", 2) == 0)
		return true;
	if (!dir_name_ok(w, ev->name))
		return false;
	if (!(ev->mask & IN_CREATE))
		return true;
	snprintf(path, sizeof path, "%s/%s", w->dir, ev->name);
	return linked_into_place(path);
}

enum watch_news watch_event(struct watch *w, int fd, const struct inotify_event *ev)
{
	if (w->wd >= 0 && ev->wd == w->wd) {
		if (!(ev->mask & GONE_EVENTS))
			return (w->whole_dir ? dir_file_changed(w, ev) : file_changed(w->path, ev))
				       ? WATCH_CHANGED
				       : WATCH_NONE;
		/* Deleted, or moved away: the path is what is watched, so
		 * the watch goes to wherever the path leads now. */
		unwatch(&w->wd);
		return establish(w, fd) == 0 ? WATCH_BACK : WATCH_LOST;
	}
	if (w->ancestor_wd >= 0 && ev->wd == w->ancestor_wd) {
		if (ev->mask & GONE_EVENTS)
			unwatch(&w->ancestor_wd);
		return establish(w, fd) == 0 ? WATCH_BACK : WATCH_NONE;
	}
	return WATCH_NONE;
}
