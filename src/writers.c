/* SPDX-License-Identifier: MIT */
#include "writers.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

static struct writer *find(struct writers *ws, int wd, const char *name)
{
	for (size_t i = 0; i < ws->n; i++)
		if (ws->v[i].wd == wd && strcmp(ws->v[i].path + ws->v[i].name_at, name) == 0)
			return &ws->v[i];
	return NULL;
}

static void add(struct writers *ws, int wd, const char *dir, const char *name)
{
	size_t dir_len = strlen(dir);
	char *path;

	if (find(ws, wd, name))
		return;
	if (array_reserve(&ws->v, &ws->cap, ws->n + 1, sizeof *ws->v, SIZE_MAX) != 0)
		return;
	if (!(path = malloc(dir_len + strlen(name) + 2)))
		return;
	sprintf(path, "%s/%s", dir, name);
	ws->v[ws->n] = (struct writer){ .wd = wd, .path = path, .name_at = dir_len + 1 };
	ws->n++;
}

static void drop(struct writers *ws, struct writer *gone)
{
	free(gone->path);
	*gone = ws->v[--ws->n];
}

void writers_note(struct writers *ws, const struct inotify_event *ev, const char *dir)
{
	struct writer *known;

	if (ev->mask & IN_IGNORED) {
		for (size_t i = ws->n; i-- > 0;)
			if (ws->v[i].wd == ev->wd)
				drop(ws, &ws->v[i]);
		return;
	}
	if (!dir || ev->len == 0)
		return;
	if ((ev->mask & IN_MODIFY) && (known = find(ws, ev->wd, ev->name)))
		*known = (struct writer){ known->wd, known->path, known->name_at, 0, false };
	else if (ev->mask & IN_MODIFY)
		add(ws, ev->wd, dir, ev->name);
	else if ((ev->mask & (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)) &&
		 (known = find(ws, ev->wd, ev->name)))
		drop(ws, known);
}

enum writers_verdict writers_check(struct writers *ws, int64_t now, char *still, size_t len)
{
	enum writers_verdict verdict = WRITERS_NONE;

	for (size_t i = 0; i < ws->n; i++) {
		struct writer *w = &ws->v[i];

		if (w->held)
			continue;
		if (w->since == 0)
			w->since = now;
		if (now - w->since < WRITERS_WAIT_NS)
			return WRITERS_WAIT;
	}
	for (size_t i = 0; i < ws->n; i++) {
		if (ws->v[i].held)
			continue;
		if (verdict == WRITERS_NONE)
			snprintf(still, len, "%s", ws->v[i].path);
		ws->v[i].held = true;
		verdict = WRITERS_GAVE_UP;
	}
	return verdict;
}

char *const *writers_held(struct writers *ws)
{
	size_t n = 0;

	free(ws->held);
	ws->held = calloc(ws->n + 1, sizeof *ws->held);
	for (size_t i = 0; ws->held && i < ws->n; i++)
		if (ws->v[i].held)
			ws->held[n++] = ws->v[i].path;
	return n ? ws->held : NULL;
}

void writers_free(struct writers *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->v[i].path);
	free(ws->v);
	free(ws->held);
	*ws = (struct writers){ 0 };
}
