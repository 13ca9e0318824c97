/* SPDX-License-Identifier: MIT */
#include "jobsread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cronfile.h"
#include "jobsdir.h"
#include "jobsfile.h"
#include "runuser.h"

/* Reading the file */

/* The file at PATH opened for reading, with its size, or -1 with why
 * (static text). O_NONBLOCK: a FIFO put at PATH (before a start, or
 * before a reload, which runs in the event loop) must not block tfd in
 * open(); it is then refused, as every kind of file but a regular one
 * is. */
static int open_jobs_file(const char *path, struct stat *st, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0 || fstat(fd, st) != 0)
		*why = strerror(errno);
	else
		*why = not_regular_why(st->st_mode);
	if (!*why)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Reads FD to its end into a new buffer, but never more than MAX + 1 bytes,
 * starting with room for SIZE, what fstat() said. Returns 0; 1 when there
 * was more than MAX (the file grew, or its size said nothing, as in /proc);
 * -1 with errno. */
static int read_at_most(int fd, off_t size, size_t max, char **text, size_t *len)
{
	/* Up to MAX + 1 bytes: one more than MAX says the file is too large.
	 * The first block is the size fstat gave, to the byte, not buf.h's
	 * power of two: it is freed as soon as the file's text is copied,
	 * and glibc raises its mmap threshold to the largest block freed, so
	 * a larger one would put the load's later large blocks (the parse's
	 * arrays, the table's hash) on the heap, to be copied as they grow. */
	size_t first = (size_t)size < max ? (size_t)size + 1 : max + 1;
	struct buf b = { .s = malloc(first), .cap = first };

	for (int rc = b.s ? 0 : -1;; rc = buf_reserve(&b, 1, max + 1)) {
		ssize_t got;

		if (rc != 0) {
			rc = b.len > max ? 1 : -1;
			buf_free(&b);
			errno = ENOMEM;
			return rc;
		}
		do
			got = read(fd, b.s + b.len, b.cap - b.len);
		while (got < 0 && errno == EINTR);
		if (got <= 0) {
			int e = errno;

			if (got == 0)
				break;
			buf_free(&b);
			errno = e;
			return -1;
		}
		b.len += (size_t)got;
	}
	*text = b.s;
	*len = b.len;
	return 0;
}

/* jobs_file_read_stat's work: 0; -1 with why alone in WHY (the file not
 * named); -2 when memory ran out. */
static int read_whole(const char *path, size_t max, char **text, size_t *len, struct stat *st,
		      char *why, size_t whylen)
{
	const char *cause;
	int fd = open_jobs_file(path, st, &cause), rc;

	if (fd < 0) {
		snprintf(why, whylen, "%s", cause);
		return -1;
	}
	/* The size first: a huge file is refused without reading any of it. */
	rc = (uintmax_t)st->st_size > max ? 1 : read_at_most(fd, st->st_size, max, text, len);
	if (rc > 0)
		snprintf(why, whylen, "too large: more than %zu bytes", max);
	else if (rc < 0 && errno == ENOMEM)
		rc = -2;
	else if (rc < 0)
		snprintf(why, whylen, "read: %s", strerror(errno));
	close(fd);
	return rc > 0 ? -1 : rc;
}

int jobs_file_read(const char *path, size_t max, char **text, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	char why[512];
	int rc = read_whole(path, max, text, len, &st, why, sizeof why);

	if (rc == -2)
		snprintf(err, errlen, "out of memory");
	else if (rc != 0)
		snprintf(err, errlen, "--jobs '%s': %s", path, why);
	return rc == 0 ? 0 : -1;
}

/* Warnings and names */

void warnf(struct warnings *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	/* The line and its NUL; the NUL is the next one's first byte. */
	if (n < 0 || buf_reserve(&w->text, (size_t)n + 1, SIZE_MAX) != 0) {
		w->text.failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(w->text.s + w->text.len, w->text.cap - w->text.len, fmt, ap);
	va_end(ap);
	w->text.len += (size_t)n;
}

void warnings_give(struct warnings *w, jobs_warn_fn warn, void *arg)
{
	char *text = w->text.s;

	for (size_t at = 0; warn && at < w->text.len;) {
		char *nl = memchr(text + at, '\n', w->text.len - at);
		size_t end = nl ? (size_t)(nl - text) + 1 : w->text.len;
		char saved = text[end]; /* len < cap: text[len] is its NUL */

		/* Each line on its own, with its newline. */
		text[end] = '\0';
		warn(arg, text + at);
		text[end] = saved;
		at = end;
	}
	if (warn && w->text.failed)
		warn(arg, "tfd: warning: out of memory: some warnings of this load are lost\n");
	buf_free(&w->text);
}

void names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void names_add(struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->v[i], name) == 0)
			return;
	/* One more, and the NULL after it. */
	if (array_reserve(&ns->v, &ns->cap, ns->n + 2, sizeof *ns->v, SIZE_MAX) != 0)
		return;
	if ((ns->v[ns->n] = strdup(name)))
		ns->v[++ns->n] = NULL;
}

bool names_user_found(char **unknown)
{
	uid_t uid;

	for (size_t i = 0; unknown && unknown[i]; i++)
		if (run_user_known(unknown[i], &uid) == 1)
			return true;
	return false;
}

/* Every file of the sources */

void loaded_free(struct loaded *l)
{
	for (size_t i = 0; i < l->nfiles; i++) {
		free(l->files[i].path);
		if (l->parsed)
			jobs_free(l->parsed[i]);
	}
	free(l->files);
	free(l->parsed);
	buf_free(&l->text);
	buf_free(&l->warnings.text);
	names_free(l->unknown.v);
	*l = (struct loaded){ 0 };
}

/* Adds the file PATH: a spool's (SPOOL), a directory's, or NAMED by a
 * --jobs PATH itself. */
static int add_file(struct loaded *l, const char *path, bool spool, bool named)
{
	const char *base;

	if (array_reserve(&l->files, &l->cap, l->nfiles + 1, sizeof *l->files, SIZE_MAX) != 0)
		return -1;
	l->files[l->nfiles] = (struct load_file){ .path = strdup(path), .named = named };
	if (!l->files[l->nfiles].path)
		return -1;
	base = strrchr(l->files[l->nfiles].path, '/');
	if (spool)
		l->files[l->nfiles].user = base ? base + 1 : l->files[l->nfiles].path;
	l->nfiles++;
	return 0;
}

/* The files PATH stands for: itself, or a directory's by jobsdir's rule;
 * the spool (SPOOL) by its own. */
static int expand_path(struct loaded *l, const char *path, bool spool, char *err, size_t errlen)
{
	struct stat st;
	char **paths = NULL;
	size_t n = 0;
	int rc = 0;

	if (!spool && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
		return add_file(l, path, false, true) == 0
			       ? 0
			       : (snprintf(err, errlen, "out of memory"), -1);
	rc = spool ? jobsdir_list_spool(path, &paths, &n, err, errlen)
		   : jobsdir_list(path, &paths, &n, err, errlen);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (add_file(l, paths[i], spool, false) != 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	jobsdir_free(paths);
	return rc;
}

/* Appends "NAME\0HEAD\0" and TEXT to the buffer of every file's text. */
static int append_text(struct loaded *l, const char *name, const char *head, const char *text,
		       size_t len)
{
	size_t name_len = strlen(name) + 1, head_len = strlen(head) + 1, more;

	/* Room for the three at once (and a byte after them), so that a
	 * failure leaves none of them; the buffer doubles as it fills, so 100
	 * files of a directory are not 100 copies of the whole. */
	if (__builtin_add_overflow(name_len + head_len + 1, len, &more) ||
	    buf_reserve(&l->text, more, SIZE_MAX) != 0)
		return -1;
	buf_put(&l->text, name, name_len);
	buf_put(&l->text, head, head_len);
	buf_put(&l->text, text, len);
	return 0;
}

/* The file read before I that is the same file (device and inode), or
 * NULL: two paths to one file (--jobs F --jobs ./F, a cron.d link to
 * /etc/crontab) would run each line twice. */
static const char *twin_of(const struct loaded *l, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!l->files[k].skipped && l->files[k].dev == l->files[i].dev &&
		    l->files[k].ino == l->files[i].ino)
			return l->files[k].path;
	return NULL;
}

/* Why file I, read (ST), is passed over, or NULL: for a host's cron, not
 * written by whom cron would take it from (cronfile), or read twice. The
 * owner's rule first: a link that may not load is said to be that, even
 * when another link reaches the same file. */
static const char *skip_why(const struct jobs_from *src, struct loaded *l, size_t i,
			    const struct stat *st, char *buf, size_t len)
{
	const struct load_file *f = &l->files[i];
	const char *twin, *why = NULL;
	bool unknown = false;

	if (f->user)
		why = cronfile_user_why(f->user, st, &unknown, buf, len);
	else if (src->system)
		why = cronfile_system_why(f->path, st, buf, len);
	if (unknown)
		names_add(&l->unknown, f->user);
	if (why || !(twin = twin_of(l, i)))
		return why;
	snprintf(buf, len, "the same file as '%s', read once", twin);
	return buf;
}

/* Whether file I is one that a writer still held open when the reload
 * gave up waiting for it (writers.h): the same file as one of HELD. */
static bool held_open(const struct jobs_from *src, const struct load_file *f)
{
	struct stat st;

	for (size_t k = 0; src->held && src->held[k]; k++)
		if (stat(src->held[k], &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino)
			return true;
	return false;
}

/* Cuts file I at its last newline where a line without one may be still
 * being written: a host's crontab always, as cron does, and any file that
 * a writer still holds open. A line that has no end never runs half. */
static size_t cut_unended(const struct jobs_from *src, struct loaded *l, size_t i, const char *text,
			  size_t len)
{
	bool held = held_open(src, &l->files[i]);
	unsigned line;
	size_t whole;

	if (!held && !jobs_from_host(src))
		return len;
	whole = cronfile_whole_lines(text, len, &line);
	if (line && held)
		warnf(&l->warnings,
		      "tfd: warning: %s:%u: not loaded: the file is still open for "
		      "writing and this last line has no newline yet\n",
		      l->files[i].path, line);
	else if (line)
		warnf(&l->warnings,
		      "tfd: warning: %s:%u: not loaded: the last line has no "
		      "newline (cron ignores it too)\n",
		      l->files[i].path, line);
	return whole;
}

/* Whether file I, which could not be read (WHY), is passed over rather
 * than refusing the load: a spool's file always, and, for a host's cron,
 * any file but a --jobs PATH that is not there (a mistyped path is said
 * at start, as --user-crontabs' is). */
static bool passed_over(const struct jobs_from *src, const struct load_file *f)
{
	struct stat st;

	if (f->user)
		return true;
	if (!jobs_from_host(src))
		return false;
	return !f->named || stat(f->path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* Reads file I into the buffer, or records why it is passed over. A file
 * that cannot be read is an error, but where passed_over says. */
static int read_file(const struct jobs_from *src, struct loaded *l, size_t i, char *err,
		     size_t errlen)
{
	struct load_file *f = &l->files[i];
	struct stat st, link;
	const char *why = NULL;
	char buf[512], head[32];
	char *text = NULL;
	size_t len = 0;
	int rc;

	/* A link in the spool is no file crontab(1) wrote: cron refuses it. */
	if (f->user && lstat(f->path, &link) == 0 && S_ISLNK(link.st_mode)) {
		why = "a symbolic link";
		/* clang-format off */
	} else if ((rc = read_whole(f->path, JOBS_FILE_MAX, &text, &len, &st, buf,
				    sizeof buf)) != 0) {
		/* clang-format on */
		if (rc == -2) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (!passed_over(src, f)) {
			snprintf(err, errlen, "--jobs '%s': %s", f->path, buf);
			return -1;
		}
		why = buf;
	} else {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		why = skip_why(src, l, i, &st, buf, sizeof buf);
	}
	if (why) {
		f->skipped = true;
		warnf(&l->warnings, "tfd: warning: %s: not loaded: %s\n", f->path, why);
		/* With its NUL: the parse finds where it ends. */
		rc = append_text(l, f->path, "-", why, strlen(why) + 1);
	} else {
		len = cut_unended(src, l, i, text, len);
		snprintf(head, sizeof head, "%zu", len);
		rc = append_text(l, f->path, head, text, len);
	}
	free(text);
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}

int jobs_read_files(const struct jobs_from *src, struct loaded *l, char *err, size_t errlen)
{
	for (size_t i = 0; i < src->npaths; i++)
		if (expand_path(l, src->paths[i], false, err, errlen) != 0)
			return -1;
	if (src->user_crontabs && expand_path(l, src->user_crontabs, true, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < l->nfiles; i++)
		if (read_file(src, l, i, err, errlen) != 0)
			return -1;
	return 0;
}
