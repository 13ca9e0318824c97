/* SPDX-License-Identifier: MIT */
/* jobsdir: the files a --jobs directory stands for, by run-parts' rule as
 * cron applies it to /etc/cron.d: regular files (or links to one) whose
 * names are made only of A-Z a-z 0-9 _ -, in byte order of the names. So a
 * ConfigMap's "..data" and timestamped folders, an editor's "x~" and
 * dpkg's "x.dpkg-old" are passed over. */
#ifndef TFD_JOBSDIR_H
#define TFD_JOBSDIR_H

#include <stdbool.h>
#include <stddef.h>

/* Whether NAME passes run-parts' rule (not empty, only A-Z a-z 0-9 _ -). */
bool jobsdir_name_ok(const char *name);

/* One name of a directory, and whether it is a regular file or a link to
 * one. */
struct jobsdir_entry {
	const char *name;
	bool regular;
};

/* Keeps the entries of E (N of them) that are regular and whose names pass,
 * moved to the front in byte order of their names (strcmp, whatever the
 * locale), the others behind them; returns how many. Pure. */
size_t jobsdir_filter(struct jobsdir_entry *e, size_t n);

/* The paths "DIR/NAME" of the files DIR stands for, in that order: *PATHS
 * (NULL-terminated, *N of them; free with jobsdir_free). Returns 0, or -1
 * with one line in err ("--jobs 'DIR': why"). */
int jobsdir_list(const char *dir, char ***paths, size_t *n, char *err, size_t errlen);

/* A crontab spool's rule (--user-crontabs): every name but hidden ones
 * ('.'), crontab(1)'s temporary "tmp.*" and editors' "x~"; a user's name
 * may hold a '.', which run-parts' rule passes over. */
bool jobsdir_spool_name_ok(const char *name);

/* jobsdir_list by the spool's rule, links included (the loader refuses
 * them, naming them), for --user-crontabs DIR. */
int jobsdir_list_spool(const char *dir, char ***paths, size_t *n, char *err, size_t errlen);

/* Whether the --jobs directory DIR looks like a crontab spool: one of its
 * files (FILE: its name) is named after the user who owns it and has no
 * permission for group or others, as crontab(1) writes them. Its lines
 * would run as tfd's user: tfd warns. */
bool jobsdir_looks_like_spool(const char *dir, char *file, size_t len);

void jobsdir_free(char **paths);

#endif
