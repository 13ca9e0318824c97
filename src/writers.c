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
	ws->v[ws->n].wd = wd;
	ws->v[ws->n].path = path;
	ws->v[ws->n].name_at = dir_len + 1;
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
	if (ev->mask & IN_MODIFY)
		add(ws, ev->wd, dir, ev->name);
	else if ((ev->mask & (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)) &&
		 (known = find(ws, ev->wd, ev->name)))
		drop(ws, known);
}

static void forget(struct writers *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->v[i].path);
	ws->n = 0;
	ws->since = 0;
}

enum writers_verdict writers_check(struct writers *ws, int64_t now, char *still, size_t len)
{
	if (ws->n == 0) {
		ws->since = 0;
		return WRITERS_NONE;
	}
	if (ws->since == 0)
		ws->since = now;
	if (now - ws->since < WRITERS_WAIT_NS)
		return WRITERS_WAIT;
	snprintf(still, len, "%s", ws->v[0].path);
	forget(ws);
	return WRITERS_GAVE_UP;
}

void writers_free(struct writers *ws)
{
	forget(ws);
	free(ws->v);
	*ws = (struct writers){ 0 };
}
