/* SPDX-License-Identifier: MIT */
/* writers: the jobs files being written, as inotify tells them: a write
 * (IN_MODIFY) opens an entry, its close (IN_CLOSE_WRITE), the file's
 * removal or move away closes it, and a directory no longer watched
 * (IN_IGNORED) closes all of its own. A reload waits while any is open, so
 * that a save of one file never loads another half written; it waits
 * WRITERS_WAIT_NS at most for each, since a writer may never close. A
 * file given up on stays held until its writer closes it: every load
 * meanwhile reads it without a last line that has no newline yet. No
 * I/O: the caller says which events are about jobs files. */
#ifndef TFD_WRITERS_H
#define TFD_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/inotify.h>

#define WRITERS_WAIT_NS (INT64_C(10) * 1000000000)

struct writer {
	int wd;
	char *path;     /* DIR/NAME, for the warning and the load */
	size_t name_at; /* where NAME begins in it */
	int64_t since;  /* when a reload began to wait for it; 0: none
			   has yet */
	bool held;      /* waited for WRITERS_WAIT_NS: read without
			   its unended last line until it closes */
};

struct writers {
	struct writer *v;
	size_t n, cap;
	char **held; /* writers_held's answer, owned */
};

/* What EV says: DIR is the directory of the watch whose jobs file EV
 * names, or NULL when it names none (only IN_IGNORED counts then). An
 * entry that memory does not allow is not waited for. A write to a file
 * held is waited for anew. */
void writers_note(struct writers *ws, const struct inotify_event *ev, const char *dir);

enum writers_verdict {
	WRITERS_NONE,    /* none open but those held: read now */
	WRITERS_WAIT,    /* some open: look again later */
	WRITERS_GAVE_UP, /* open for WRITERS_WAIT_NS: read now, and
			    STILL names one; they are held now */
};

/* Whether a reload due at NOW (monotonic) waits. */
enum writers_verdict writers_check(struct writers *ws, int64_t now, char *still, size_t len);

/* The paths of the files held (NULL-terminated), for the load that reads
 * now; valid until the next call on WS. NULL when there are none, or when
 * memory ran out. */
char *const *writers_held(struct writers *ws);

void writers_free(struct writers *ws);

#endif
