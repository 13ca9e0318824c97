/* SPDX-License-Identifier: MIT */
/* pathdir: the directory part of a path, as dirname(1) gives it, for the
 * modules that watch or check the directory a file is in (watch.c's
 * inotify watches, control.c's socket). Pure. */
#ifndef TFD_PATHDIR_H
#define TFD_PATHDIR_H

#include <stdio.h>
#include <string.h>

/* PATH's directory into OUT (LEN bytes, cut to fit): "." for a bare name,
 * "/" for a name in the root. */
static inline void path_dir(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, len, ".");
	else if (slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

#endif
