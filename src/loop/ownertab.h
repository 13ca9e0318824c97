/* SPDX-License-Identifier: MIT */
/* ownertab: the loop's table of owners (owner.h): the rows added once at
 * start (by serve.c, above the loop, which sees every owner), their
 * descriptors added to the poll set, each ready slot handed back to its
 * row, their deadlines' minimum and their expiry. The poll set itself
 * (slots and who owns each) is here too, as the loop's own slots join it
 * the same way. The loop's own descriptors (signals, deadlines, stdout and
 * stderr, clocks, --join pidfds, readers) are kinds of enum owner_kind,
 * not rows. */
#ifndef TFD_OWNERTAB_H
#define TFD_OWNERTAB_H

#include <stdbool.h>

#include "loopstate.h"

/* Adds ROW, with SELF, to L's table (in the order they are added: the
 * order of their slots and their expiry). Returns -1 when the table is
 * full (OWNER_ROWS_MAX). */
int ownertab_add(struct loop *l, const struct owner_row *row, void *self);

/* The poll set grown by a slot; false when no memory was found. */
bool poll_set_grow(struct loop *l, size_t n);

/* Adds FD to the poll set as slot *N for KIND (ROW: the row's index) and
 * PTR (a full set that finds no memory leaves the slot out, once).
 * Inline: the tick's path adds a few slots every turn. */
static inline void poll_set_add(struct loop *l, size_t *n, int fd, short events,
				enum owner_kind kind, unsigned row, void *ptr)
{
	if (*n == l->pfd_cap && !poll_set_grow(l, *n))
		return;
	l->pfd[*n] = (struct pollfd){ .fd = fd, .events = events };
	l->owners[(*n)++] = (struct poll_owner){ kind, row, ptr };
}

/* Every row's descriptors added to the poll set from slot *N, and each
 * row's events of the last poll forgotten. */
void ownertab_poll(struct loop *l, size_t *n);

/* Slot I of the last poll, an OWNER_ROW's, is ready: its row is told. */
void ownertab_ready(struct loop *l, size_t i);

/* The rows served after every poll (after_poll), each after ran. */
typedef void ownertab_after_fn(struct loop *l);
void ownertab_after_poll(struct loop *l, ownertab_after_fn *after);

/* The earliest of the rows' deadlines (INT64_MAX: none). */
int64_t ownertab_deadline(struct loop *l);

/* The deadline timer fired at NOW: every row expires what is due. */
void ownertab_expire(struct loop *l, int64_t now);

#endif
