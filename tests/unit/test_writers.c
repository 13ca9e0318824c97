/* SPDX-License-Identifier: MIT */
/* test_writers: the jobs files being written, from inotify's events: a
 * write opens an entry, a close, removal or move closes it, a directory
 * no longer watched closes its own; a reload waits 10 s at most for
 * each, then holds it: read up to its last newline until it closes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tsv.h"
#include "writers.h"

#define SEC INT64_C(1000000000)

/* An event as read(2) gives it: the name after the header. */
static struct inotify_event *event(int wd, uint32_t mask, const char *name)
{
	static union {
		struct inotify_event ev;
		char buf[sizeof(struct inotify_event) + 64];
	} u;

	u.ev.wd = wd;
	u.ev.mask = mask;
	u.ev.cookie = 0;
	u.ev.len = name ? (uint32_t)strlen(name) + 1 : 0;
	if (name)
		memcpy(u.ev.name, name, strlen(name) + 1);
	return &u.ev;
}

static void test_open_and_close(void)
{
	struct writers ws = { 0 };
	char still[64] = "";

	check(writers_check(&ws, 1 * SEC, still, sizeof still) == WRITERS_NONE, "none");
	writers_note(&ws, event(1, IN_MODIFY, "a"), "d");
	writers_note(&ws, event(1, IN_MODIFY, "a"), "d");
	check(ws.n == 1, "one writer twice: %zu", ws.n);
	/* Not a jobs file's: nothing. */
	writers_note(&ws, event(1, IN_MODIFY, "log"), NULL);
	check(ws.n == 1, "another file counted");
	check(writers_check(&ws, 1 * SEC, still, sizeof still) == WRITERS_WAIT, "no wait");
	/* The same name in another directory is another file. */
	writers_note(&ws, event(2, IN_CLOSE_WRITE, "a"), "e");
	check(ws.n == 1, "closed by another directory's file");
	writers_note(&ws, event(1, IN_CLOSE_WRITE, "a"), "d");
	check(ws.n == 0, "not closed");
	check(writers_check(&ws, 2 * SEC, still, sizeof still) == WRITERS_NONE, "still waits");
	check(writers_held(&ws) == NULL, "a closed file held");
	/* Removed or moved away while written: no longer waited for. */
	writers_note(&ws, event(1, IN_MODIFY, "b"), "d");
	writers_note(&ws, event(1, IN_MODIFY, "c"), "d");
	writers_note(&ws, event(1, IN_DELETE, "b"), "d");
	writers_note(&ws, event(1, IN_MOVED_FROM, "c"), "d");
	check(ws.n == 0, "removed or moved, still waited for: %zu", ws.n);
	/* A directory no longer watched takes its writers with it. */
	writers_note(&ws, event(1, IN_MODIFY, "b"), "d");
	writers_note(&ws, event(2, IN_MODIFY, "b"), "e");
	writers_note(&ws, event(1, IN_IGNORED, NULL), NULL);
	check(ws.n == 1 && strcmp(ws.v[0].path, "e/b") == 0, "IN_IGNORED: %zu", ws.n);
	writers_free(&ws);
}

static void test_gives_up(void)
{
	struct writers ws = { 0 };
	char still[64] = "";
	char *const *held;

	writers_note(&ws, event(3, IN_MODIFY, "crontab"), "/etc");
	check(writers_check(&ws, 100 * SEC, still, sizeof still) == WRITERS_WAIT, "t0");
	check(writers_check(&ws, 109 * SEC, still, sizeof still) == WRITERS_WAIT, "9 s");
	check(writers_held(&ws) == NULL, "held before its 10 s");
	check(writers_check(&ws, 110 * SEC, still, sizeof still) == WRITERS_GAVE_UP, "10 s");
	check(strcmp(still, "/etc/crontab") == 0, "still: '%s'", still);
	/* Held, not forgotten: the next reload does not wait for it again,
	 * and reads it without its unended last line until it is closed. */
	check(writers_check(&ws, 111 * SEC, still, sizeof still) == WRITERS_NONE, "again");
	held = writers_held(&ws);
	check(held && strcmp(held[0], "/etc/crontab") == 0 && !held[1], "not held");
	/* Another file written meanwhile is waited for from its own start. */
	writers_note(&ws, event(3, IN_MODIFY, "cron.d"), "/etc");
	check(writers_check(&ws, 112 * SEC, still, sizeof still) == WRITERS_WAIT, "the other");
	check(writers_check(&ws, 122 * SEC, still, sizeof still) == WRITERS_GAVE_UP, "10 s on");
	check(strcmp(still, "/etc/cron.d") == 0, "still: '%s'", still);
	held = writers_held(&ws);
	check(held && held[0] && held[1] && !held[2], "two held");
	/* A new write is waited for anew, from its own start. */
	writers_note(&ws, event(3, IN_MODIFY, "crontab"), "/etc");
	check(writers_check(&ws, 200 * SEC, still, sizeof still) == WRITERS_WAIT, "anew");
	/* Closed: no longer held. */
	writers_note(&ws, event(3, IN_CLOSE_WRITE, "crontab"), "/etc");
	writers_note(&ws, event(3, IN_CLOSE_WRITE, "cron.d"), "/etc");
	check(writers_check(&ws, 201 * SEC, still, sizeof still) == WRITERS_NONE, "closed");
	check(writers_held(&ws) == NULL, "held after its close");
	writers_free(&ws);
}

int main(void)
{
	test_open_and_close();
	test_gives_up();
	return tally_finish(&tally, "test_writers");
}
