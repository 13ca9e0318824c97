/* persist: --persist FILE, the time of the last run, so a run missed while
 * tfd was not running is made up at start (systemd's Persistent=). */
#ifndef TFD_PERSIST_H
#define TFD_PERSIST_H

#include <stddef.h>
#include <stdint.h>

/* Reads the last run's time. Returns 1 and *wall_ns, 0 when FILE does not
 * exist, -1 when it cannot be read, -2 when it holds something other than a
 * time tfd wrote; both with one line in err. */
int persist_read(const char *path, int64_t *wall_ns, char *err, size_t errlen);

/* Replaces FILE atomically (temporary file, fsync, rename) with WALL_NS.
 * Returns 0, or -1 with one line in err naming the failing call. */
int persist_write(const char *path, int64_t wall_ns, char *err, size_t errlen);

#endif
