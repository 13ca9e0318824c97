/* SPDX-License-Identifier: MIT */
/* pathsearch: the command lookup of execvp(3), done once before any run.
 *
 * Pure apart from stat(2) and faccessat(2): no state, nothing kept. The
 * exit statuses match a shell's (127 not found, 126 cannot run), so a jobs
 * file's bad command is reported as the run would have ended. */
#ifndef TFD_PATHSEARCH_H
#define TFD_PATHSEARCH_H

#include <stddef.h>

/* Looks COMMAND up as execvp(3) would (a search of DIRS, a jobs file's PATH
 * or tfd's, unless it has a '/'; NULL: the default list). Returns 0 with
 * the path in buf, 127 when not found, 126 when found but not executable
 * (or a directory); *why gets strerror-style text. */
int resolve_command_in(const char *command, const char *dirs, char *buf, size_t len,
		       const char **why);

#endif
