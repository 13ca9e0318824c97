/* SPDX-License-Identifier: MIT */
/* persist: --persist FILE, the time of the last run, so a run missed while
 * tfd was not running is made up at start (systemd's Persistent=). */
#ifndef TFD_PERSIST_H
#define TFD_PERSIST_H

#include <stddef.h>
#include <stdint.h>

/* The check before arming (a usage error): FILE is not '', its directory
 * exists, and FILE is missing or a regular file. Returns 0, or -1 with one
 * line in err naming FILE and why. */
int persist_check_path(const char *path, char *err, size_t errlen);

/* Reads the last run's time. The whole file must be what persist_write
 * writes and nothing else. Returns 1 and *wall_ns, 0 when FILE does not
 * exist, -1 when it cannot be read (or is not a regular file), -2 when it
 * holds anything else (corrupt; it is left as it is); both with one line in
 * err. */
int persist_read(const char *path, int64_t *wall_ns, char *err, size_t errlen);

/* Replaces FILE atomically with WALL_NS as one line "SECONDS.NANOSECONDS"
 * (see atomic_replace). Returns 0, or -1 with one line in err, "CALL 'FILE':
 * MESSAGE", naming the failed call. */
int persist_write(const char *path, int64_t wall_ns, char *err, size_t errlen);

#endif
