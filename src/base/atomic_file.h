/* SPDX-License-Identifier: MIT */
/* atomic_file: state files (--persist, --metrics) replaced whole, so that a
 * reader (tfd at its next start, node_exporter at a scrape) sees the old text
 * or the new, never a part, and so that tfd never opens a name another user
 * could have planted a symlink or a FIFO at. */
#ifndef TFD_ATOMIC_FILE_H
#define TFD_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Why a file of MODE cannot be read or replaced whole, as the end of an
 * error line ("a FIFO, not a regular file"), or NULL for a regular file.
 * A FIFO or a device has no end to read to, and opening a FIFO blocks. */
const char *not_regular_why(mode_t mode);

/* The check before arming: PATH is not empty, its directory exists and is a
 * directory, and PATH itself is missing or a regular file (not a directory,
 * a FIFO, a socket or a device). Returns 0, or -1 with one line in err that
 * begins "OPTION 'PATH': " and says why (a usage error). */
int atomic_check_target(const char *option, const char *path, char *err, size_t errlen);

/* Replaces PATH with the LEN bytes of DATA: a temporary file with an
 * unpredictable name is created exclusively in PATH's directory (mode 0644
 * less the umask; never at a name that exists, never through a symlink),
 * written, fsync'ed and renamed over PATH, and the directory is fsync'ed so
 * the rename outlives a crash. Returns 0, or -1 with the temporary removed
 * and one line in err, "CALL 'PATH': MESSAGE", where CALL is the one word
 * naming the failed call (open, write, fsync, close, rename), whether it
 * failed on PATH's directory, the temporary or PATH itself. */
int atomic_replace(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
