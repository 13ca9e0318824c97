/* SPDX-License-Identifier: MIT */
/* pathsearch: finds the file a command names, as execvp(3) would, before
 * any run starts: tfd reports a command that cannot run (127/126) at
 * start-up instead of failing in every child. */
#include "pathsearch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Returns 0 when PATH is a file we may execute, else the errno value that
 * explains why not: EISDIR for a directory, EACCES for any other file, and
 * stat's own error (ENOENT, or EACCES for a directory we may not search)
 * when there is nothing to look at. */
static int executable_error(const char *path, int *exists)
{
	struct stat st;

	*exists = stat(path, &st) == 0;
	if (!*exists)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
		return EACCES;
	return 0;
}

static int path_in_dir(char *buf, size_t len, const char *dir, size_t dirlen, const char *name)
{
	int n = snprintf(buf, len, "%.*s/%s", (int)dirlen, dir, name);

	return n >= 0 && (size_t)n < len ? 0 : -1;
}

static int resolve_path(const char *path, char *buf, size_t len, const char **why)
{
	int n = snprintf(buf, len, "%s", path);
	int exists;
	int e = n >= 0 && (size_t)n < len ? executable_error(buf, &exists) : ENAMETOOLONG;

	if (e == 0)
		return 0;
	*why = strerror(e);
	return e == ENOENT ? 127 : 126;
}

int resolve_command_in(const char *command, const char *dirs, char *buf, size_t len,
		       const char **why)
{
	int blocked = 0;

	if (strchr(command, '/'))
		return resolve_path(command, buf, len, why);
	*why = "command not found";
	if (command[0] == '\0')
		return 127;
	if (!dirs)
		dirs = "/usr/local/bin:/bin:/usr/bin";
	/* As execvp: an empty entry is the current directory, and a match
	 * that cannot be run does not stop the search; "Permission denied"
	 * wins over "Is a directory" when nothing runnable turns up. Unlike
	 * execvp, an entry we may not search (another user's ~/bin) is not
	 * a match that cannot be run: nothing was found there. */
	for (const char *dir = dirs;; dir++) {
		size_t dirlen = strcspn(dir, ":");
		int exists = 0;
		int e = path_in_dir(buf, len, dirlen ? dir : ".", dirlen ? dirlen : 1, command) == 0
				? executable_error(buf, &exists)
				: ENAMETOOLONG;

		if (e == 0)
			return 0;
		if (exists && (e == EACCES || (e == EISDIR && blocked != EACCES)))
			blocked = e;
		dir += dirlen;
		if (*dir == '\0')
			break;
	}
	if (blocked) {
		*why = strerror(blocked);
		return 126;
	}
	return 127;
}
