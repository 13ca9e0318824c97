/* SPDX-License-Identifier: MIT */
/* jobsfile: tfd's jobs file (--jobs=FILE, tfd-jobs(5)) as a list of
 * entries, one per job line, each with the environment it sees. Pure: no
 * I/O, no globals; the caller reads the file and passes its bytes, then
 * builds schedules and parses the tfd lines' options itself.
 *
 * The file is crontab(5) as Vixie cron and cronie read it, plus tfd lines:
 * - blank lines, and lines whose first non-blank is '#', are ignored;
 * - NAME=VALUE sets a variable for the lines below it (cronie's rules:
 *   blanks around '=' allowed, quotes around the value keep its blanks and
 *   are removed, a quoted name is allowed, an empty value needs quotes);
 * - a crontab line is 5 time fields or an @nickname, then (in a system
 *   crontab only) a user name, then a command: the
 *   rest of the line, split at its first unescaped '%' into the command and
 *   its standard input (as cronie's do_command does);
 * - a tfd line begins with '-': tfd's per-job options, split into words
 *   with a shell's quoting but no expansion.
 * Lines end at '\n'; a '\r' before it is dropped (CRLF files); the last
 * line needs no '\n'. */
#ifndef TFD_JOBSFILE_H
#define TFD_JOBSFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "cronline.h"

/* The longest line taken, without its end: one byte less than Linux's
 * MAX_ARG_STRLEN, so that a command or "NAME=VALUE" from one line always
 * fits in one execve(2) string with its terminating NUL. */
#define JOBS_LINE_MAX 131071

struct jobs_entry {
	enum jobs_kind kind;
	unsigned line;        /* 1-based line number in the file */
	const char *text;     /* the line as written, without its end
				 ("\n" or "\r\n"): its identity on reload */
	char **env;           /* NULL-terminated "NAME=VALUE" list of every
				 environment line above this one, a later
				 NAME replacing an earlier one in place
				 (first-seen order). Includes SHELL, CRON_TZ
				 and MAILTO when set. Entries with no
				 environment line between them share one
				 array. */
	const char *shell;    /* SHELL= above this line, else "/bin/sh" */
	const char *cron_tz;  /* CRON_TZ= above this line (maybe ""), or NULL */
	const char *user;     /* JOBS_CRONTAB, JOBS_REBOOT of a system
				 crontab (JOBS_SYSTEM): the user field, as
				 written; NULL otherwise */
	const char *schedule; /* JOBS_CRONTAB: the five fields joined by one
				 space ("0 4 * * 1-5") or the nickname
				 ("@daily"), not checked; NULL otherwise */
	const char *command;  /* JOBS_CRONTAB, JOBS_REBOOT: the shell command,
				 up to the first unescaped '%', with "\%" as
				 '%'; never empty. NULL for JOBS_TFD. */
	const char *input;    /* the text after that '%': its standard input,
				 each further unescaped '%' as '\n', "\%" as
				 '%', and a final '\n' added as cronie adds it;
				 "" for a bare trailing '%'; NULL when the
				 command has no '%' */
	char **argv;          /* JOBS_TFD: the words, NULL-terminated, argv[0]
				 beginning with '-'; NULL otherwise */
	int argc;
};

/* How the parser gets memory: realloc(CTX, PTR, SIZE) as realloc(3) (SIZE
 * never 0), free(CTX, PTR) as free(3). For tests that make allocations
 * fail; jobs_parse uses the C library's. */
struct jobs_alloc {
	void *(*realloc)(void *ctx, void *ptr, size_t size);
	void (*free)(void *ctx, void *ptr);
	void *ctx;
};

struct jobs_block;

/* A line passed over (JOBS_LENIENT). */
struct jobs_bad {
	unsigned line;
	const char *why; /* "NAME:LINE: why, naming the bad text" */
};

struct jobs_file {
	struct jobs_entry *entries; /* in file order */
	size_t n;
	struct jobs_bad *bad; /* JOBS_LENIENT: the lines passed over, in
				 file order */
	size_t nbad;
	/* The parser's own storage: every string and array above. */
	struct jobs_alloc alloc;
	struct jobs_block *blocks;
};

/* Parses TEXT (LEN bytes, not NUL-terminated) read from the file NAME
 * (used in messages only). Returns 0 and *OUT (free it with jobs_free), or
 * -1 with one line in ERR: "NAME:LINE: why, naming the bad text", or "out
 * of memory". A file with no job is valid (N is 0). */
int jobs_parse(const char *name, const char *text, size_t len, struct jobs_file **out, char *err,
	       size_t errlen);

/* How to read the file: JOBS_SYSTEM for a system crontab (/etc/crontab,
 * /etc/cron.d; --system-crontab), whose crontab lines carry a user name
 * between the time fields (or the @nickname) and the command; JOBS_USER
 * for a user's crontab (--user-crontabs), which takes no tfd line: their
 * options (--user, --persist, --cgroup) are the host's, not a user's.
 * JOBS_LENIENT, for a host's cron: a bad line is passed over (listed in
 * BAD, its environment line not set) and the rest parses, as cron skips
 * such a line; only memory running out fails the parse. */
enum { JOBS_SYSTEM = 1, JOBS_USER = 2, JOBS_LENIENT = 4 };

/* jobs_parse of a file read as FLAGS says. */
int jobs_parse_as(const char *name, const char *text, size_t len, unsigned flags,
		  struct jobs_file **out, char *err, size_t errlen);

/* jobs_parse_as with the memory of ALLOC (copied). */
int jobs_parse_with(const struct jobs_alloc *alloc, unsigned flags, const char *name,
		    const char *text, size_t len, struct jobs_file **out, char *err, size_t errlen);

void jobs_free(struct jobs_file *f);

#endif
