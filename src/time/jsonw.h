/* SPDX-License-Identifier: MIT */
/* jsonw: a JSON text built in a growing byte buffer, for answers whose
 * size has no bound known in advance (the control socket's, HTTP's /jobs).
 * Commas between members and elements are the writer's: the caller says
 * what comes (an object, a key, a value) and the text stays well formed.
 * Strings are escaped as report.c's events are (invalid UTF-8 becomes
 * U+FFFD). A writer that ran out of memory says so once, in failed, and
 * writes nothing more. */
#ifndef TFD_JSONW_H
#define TFD_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSONW_DEPTH 32

struct jsonw {
	char *text; /* NUL-terminated while not failed */
	size_t len, cap;
	bool failed; /* memory ran out: the text is incomplete */
	unsigned depth;
	bool first[JSONW_DEPTH]; /* nothing written yet in the open container */
	bool after_key;          /* a key was written: its value needs no comma */
};

/* Zeroed is an empty writer. jsonw_reset empties it for reuse and keeps
 * its memory; jsonw_free releases it. */
void jsonw_reset(struct jsonw *w);
void jsonw_free(struct jsonw *w);

void jsonw_object(struct jsonw *w);
void jsonw_end_object(struct jsonw *w);
void jsonw_array(struct jsonw *w);
void jsonw_end_array(struct jsonw *w);

/* "KEY": inside an object, followed by exactly one value. */
void jsonw_key(struct jsonw *w, const char *key);

/* Values. A NULL string is null; text is N bytes, NULs allowed. */
void jsonw_string(struct jsonw *w, const char *s);
void jsonw_text(struct jsonw *w, const char *s, size_t n);
void jsonw_u64(struct jsonw *w, uint64_t v);
void jsonw_i64(struct jsonw *w, int64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* Decimal seconds of NS, as the events print them ("0.25"). */
void jsonw_seconds(struct jsonw *w, int64_t ns);
/* A wall-clock instant as RFC 3339 UTC ("2026-12-03T10:00:01.000123Z"). */
void jsonw_time(struct jsonw *w, int64_t wall_ns);

/* Appends raw bytes (a newline after the object); no comma logic. */
void jsonw_raw(struct jsonw *w, const char *s, size_t n);

#endif
