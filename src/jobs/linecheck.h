/* SPDX-License-Identifier: MIT */
/* linecheck: what a load can see of a jobs file's line that would only fail
 * when it runs, said as a warning, never a refusal (the host may install
 * what is missing before the first run): the shell that runs a crontab
 * line or an --exec string is not there (a scratch image without
 * /bin/sh), and a crontab line's command is not found where its shell
 * will look for it (its PATH). Each shell, and each command with its PATH,
 * is looked at once a load however many lines share it, and said once;
 * LINE_CHECK_COMMANDS_MAX commands at most. */
#ifndef TFD_LINECHECK_H
#define TFD_LINECHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "hash.h"
#include "job.h"
#include "jobsread.h"

/* The most commands a load looks up in PATH (each a stat(2) per PATH
 * directory, in the event loop at a reload): a host's crontabs hold far
 * fewer; a generated file of thousands of distinct commands is not
 * looked through. */
#define LINE_CHECK_COMMANDS_MAX 256

struct line_checks {
	struct hash_set seen; /* the shells and commands looked at */
	char **keys;          /* their keys, owned */
	size_t nkeys, max;
	size_t commands; /* commands looked up so far */
	struct warnings *warnings;
};

/* Ready for a load of up to N lines, whose warnings go to W. Returns 0,
 * or -1 when memory ran out. */
int line_checks_init(struct line_checks *c, size_t n, struct warnings *w);
void line_checks_free(struct line_checks *c);

/* Warns of line LINE of FILE, built as J: when SCRIPT (a crontab line's
 * command or an --exec string, run by J's shell; NULL for a command tfd
 * looked up itself) is given, J's shell that cannot run; with COMMAND (a
 * crontab line's, at a real load), SCRIPT's command word that is not
 * found in the PATH its runs get, nor as an absolute path. Builtins and
 * keywords of a POSIX shell, a word the shell would expand, or a shell not
 * of the sh family are not looked at. */
void line_checks_warn(struct line_checks *c, const struct job *j, const char *script, bool command,
		      const char *file, unsigned line);

/* Whether WORD is a builtin or a reserved word of a POSIX shell, or of
 * bash's: found without a look-up in PATH. Pure. */
bool line_shell_builtin(const char *word);

#endif
