/* SPDX-License-Identifier: MIT */
#include "pidmap.h"

#include <stdint.h>
#include <stdlib.h>

#define DELETED ((pid_t)-1)

void pidmap_init(struct pidmap *m)
{
	*m = (struct pidmap){ 0 };
}

void pidmap_free(struct pidmap *m)
{
	free(m->slots);
	*m = (struct pidmap){ 0 };
}

static size_t slot_of(size_t cap, pid_t pid)
{
	return ((size_t)(uint32_t)pid * 2654435761u) & (cap - 1);
}

static struct pidmap_slot *find(const struct pidmap *m, pid_t pid)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(m->cap, pid), n = 0; n < m->cap; i = (i + 1) & (m->cap - 1), n++) {
		if (m->slots[i].pid == pid)
			return &m->slots[i];
		if (m->slots[i].pid == 0)
			return NULL;
	}
	return NULL;
}

static int rehash(struct pidmap *m, size_t cap)
{
	struct pidmap_slot *old = m->slots;
	size_t oldcap = m->cap;

	m->slots = calloc(cap, sizeof *m->slots);
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = cap;
	m->used = m->live = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].pid > 0)
			pidmap_put(m, old[i].pid, old[i].value);
	free(old);
	return 0;
}

int pidmap_put(struct pidmap *m, pid_t pid, void *value)
{
	struct pidmap_slot *s = find(m, pid);
	size_t i;

	if (s) {
		s->value = value;
		return 0;
	}
	if ((m->used + 1) * 2 > m->cap) {
		/* Deleted slots are dropped, so the table only grows with
		 * the pids that are live. */
		size_t cap = 64;

		while ((m->live + 1) * 4 > cap)
			cap *= 2;
		if (rehash(m, cap) != 0)
			return -1;
	}
	for (i = slot_of(m->cap, pid); m->slots[i].pid > 0; i = (i + 1) & (m->cap - 1))
		;
	if (m->slots[i].pid == 0)
		m->used++;
	m->slots[i] = (struct pidmap_slot){ pid, value };
	m->live++;
	return 0;
}

void *pidmap_get(const struct pidmap *m, pid_t pid)
{
	struct pidmap_slot *s = find(m, pid);

	return s ? s->value : NULL;
}

void pidmap_del(struct pidmap *m, pid_t pid)
{
	struct pidmap_slot *s = find(m, pid);

	if (s) {
		s->pid = DELETED;
		s->value = NULL;
		m->live--;
	}
}
