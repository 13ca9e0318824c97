/* SPDX-License-Identifier: MIT */
#include "ownertab.h"

#include <stdint.h>

#include "buf.h"

int ownertab_add(struct loop *l, const struct owner_row *row, void *self)
{
	if (l->nrows == OWNER_ROWS_MAX)
		return -1;
	l->rows[l->nrows++] = (struct owner_entry){ row, self, 0 };
	return 0;
}

bool poll_set_grow(struct loop *l, size_t n)
{
	size_t cap = l->pfd_cap, owners_cap = l->pfd_cap;

	/* Both arrays grow alike; the slots are the fewer of them. */
	array_reserve(&l->pfd, &cap, n + 1, sizeof *l->pfd, SIZE_MAX);
	if (cap > n)
		array_reserve(&l->owners, &owners_cap, n + 1, sizeof *l->owners, SIZE_MAX);
	l->pfd_cap = cap < owners_cap ? cap : owners_cap;
	return n < l->pfd_cap;
}

/* What a row's poll adds its slots through (owner_add_fn's SET). */
struct row_slots {
	struct loop *l;
	size_t *n;
	unsigned row;
};

static void add_row_slot(void *set, int fd, short events, void *tag)
{
	struct row_slots *s = set;

	poll_set_add(s->l, s->n, fd, events, OWNER_ROW, s->row, tag);
}

void ownertab_poll(struct loop *l, size_t *n)
{
	for (unsigned i = 0; i < l->nrows; i++) {
		struct row_slots s = { l, n, i };

		l->rows[i].revents = 0;
		if (l->rows[i].row->poll)
			l->rows[i].row->poll(l->rows[i].self, add_row_slot, &s);
	}
}

void ownertab_ready(struct loop *l, size_t i)
{
	struct owner_entry *e = &l->rows[l->owners[i].row];

	e->revents |= l->pfd[i].revents;
	if (e->row->ready)
		e->row->ready(e->self, l->pfd[i].fd, l->pfd[i].revents, l->owners[i].ptr);
}

void ownertab_after_poll(struct loop *l, ownertab_after_fn *after)
{
	for (size_t i = 0; i < l->nrows; i++)
		if (l->rows[i].row->after_poll) {
			l->rows[i].row->after_poll(l->rows[i].self, l->rows[i].revents);
			after(l);
		}
}

int64_t ownertab_deadline(struct loop *l)
{
	int64_t d = INT64_MAX;

	for (size_t i = 0; i < l->nrows; i++)
		if (l->rows[i].row->deadline) {
			int64_t row_d = l->rows[i].row->deadline(l->rows[i].self);

			if (row_d < d)
				d = row_d;
		}
	return d;
}

void ownertab_expire(struct loop *l, int64_t now)
{
	for (size_t i = 0; i < l->nrows; i++)
		if (l->rows[i].row->expire)
			l->rows[i].row->expire(l->rows[i].self, now);
}
