/* SPDX-License-Identifier: MIT */
/* jobsread: what a load of the jobs reads, before any line is parsed:
 * every file of the --jobs paths (a directory stands for its files, by
 * run-parts' rule) and of --user-crontabs (by a spool's), each read whole
 * into one buffer that a reload compares with the last, so that a real
 * change is seen cheaply. A host's cron passes files over as cron does
 * (cronfile): each such file is a warning and a record of why, so that a
 * chmod or chown alone is a change too. A file reached twice is read
 * once. */
#ifndef TFD_JOBSREAD_H
#define TFD_JOBSREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "buf.h"

/* The most of a jobs file that is read: the whole file is read at start and
 * at every reload, in the event loop, so this bounds both the memory and the
 * time a reload takes. 16 MiB is 30 times a 10,000-line crontab. */
#define JOBS_FILE_MAX ((size_t)16 << 20)

/* Reads the jobs file PATH whole into *TEXT (*LEN bytes, to be freed).
 * Returns 0, or -1 with err naming PATH and why: it is not a regular file
 * (a FIFO is refused without blocking), cannot be read, or holds more than
 * MAX bytes (refused by its size before reading, or when it grows while it
 * is read). */
int jobs_file_read(const char *path, size_t max, char **text, size_t *len, char *err,
		   size_t errlen);

/* Where a load's warnings go, one line each ("tfd: warning: ...\n"): stderr
 * at start, the loop's queued stderr at a reload. */
typedef void (*jobs_warn_fn)(void *arg, const char *line);

/* A load's warnings, one line each, given out when the load is over (and
 * not when nothing changed, nor when the load is refused). */
struct warnings {
	struct buf text; /* text.failed: memory ran out, some
			    are missing */
};

void warnf(struct warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Gives out every warning to WARN (none when it is NULL), a line at a
 * time, and empties W. */
void warnings_give(struct warnings *w, jobs_warn_fn warn, void *arg);

/* Names, such as the users a load found missing. */
struct names {
	char **v; /* NULL-terminated once one is added */
	size_t n, cap;
};

/* Adds NAME once. Memory running out loses it: a line of that user then
 * waits for a change to its file, or SIGHUP, rather than for any reload. */
void names_add(struct names *ns, const char *name);
void names_free(char **v);

/* Whether one of the users of UNKNOWN (NULL-terminated, or NULL) exists
 * now. */
bool names_user_found(char **unknown);

/* Where the files come from. */
struct jobs_from {
	char *const *paths; /* every --jobs PATH, files and directories */
	size_t npaths;
	bool system;               /* --system-crontab: root's files alone */
	const char *user_crontabs; /* --user-crontabs DIR, or NULL */
	char *const *held;         /* files a writer still held open when the
				      reload gave up waiting (NULL-terminated,
				      or NULL): their last line without a
				      newline is not loaded */
};

/* Whether the files are a host's cron (--system-crontab, --user-crontabs):
 * as cron does, a file or line it cannot use is passed over with a
 * warning, and the rest loads. */
static inline bool jobs_from_host(const struct jobs_from *from)
{
	return from->system || from->user_crontabs;
}

/* One file a load reads. */
struct load_file {
	char *path;
	const char *user; /* a spool's file: its name, the user's */
	bool named;       /* a --jobs PATH itself, not a directory's */
	bool skipped;     /* passed over, with a warning */
	dev_t dev;        /* what fstat said, to read a file once */
	ino_t ino;
};

/* What one load reads: the files, their texts in one buffer (each name,
 * its length and its text; a file passed over has "-" and why, with its
 * NUL, instead), and what the parse makes of them. */
struct loaded {
	struct load_file *files; /* in load order */
	size_t nfiles, cap;
	struct buf text;           /* "NAME\0LEN\0TEXT" or "NAME\0-\0WHY\0" each */
	struct jobs_file **parsed; /* the parse's: one per file, NULL when
				      passed over */
	struct warnings warnings;
	struct names unknown; /* the users found missing */
};

/* Reads every file of FROM into L (zeroed), one record each. A --jobs
 * file that is missing or cannot be read is an error (-1, err); a spool's
 * is passed over with a warning, as is a file cron would not load, and
 * for a host's cron any file but a --jobs PATH that is not there. */
int jobs_read_files(const struct jobs_from *from, struct loaded *l, char *err, size_t errlen);

/* Frees L, with its parses (jobs_free). */
void loaded_free(struct loaded *l);

#endif
