/* SPDX-License-Identifier: MIT */
/* owner: the shape every owner of the loop's descriptors and deadlines
 * takes (control, --listen's HTTP, the fleet, the mailer, reload, the
 * notifications' HTTP client): one row of the loop's table of owners.
 * The loop asks each row for its descriptors before a poll, hands each
 * ready slot back to the row that added it, arms its one CLOCK_MONOTONIC
 * timer at the earliest of the rows' deadlines and, when it fires, lets
 * every row expire what is due. A row knows nothing of the loop.
 *
 * The table is built in one place (src/serve/serve.c, serve_owners):
 * a new owner is one row there, and its module's functions behind it.
 * Every member but name may be NULL (nothing of that kind). */
#ifndef TFD_OWNER_H
#define TFD_OWNER_H

#include <stdint.h>

/* Adds FD, waiting for EVENTS, to the poll set SET; TAG comes back with
 * the slot's events (owner_ready). */
typedef void owner_add_fn(void *set, int fd, short events, void *tag);

struct owner_row {
	const char *name;   /* for a reader of the table, and error lines */
	/* Adds the row's descriptors to the poll set (none: adds nothing). */
	void (*poll)(void *self, owner_add_fn *add, void *set);
	/* One of its descriptors had REVENTS: TAG is what poll gave. */
	void (*ready)(void *self, int fd, short revents, void *tag);
	/* Its earliest CLOCK_MONOTONIC deadline in ns (INT64_MAX: none). */
	int64_t (*deadline)(void *self);
	/* The deadline timer fired at NOW: acts on what is due. */
	void (*expire)(void *self, int64_t now);
	/* Optional: after every poll, whether or not its descriptors were
	 * ready, with the events they had (ORed; 0: none), after every
	 * ready slot's owner was served (the fleet's client, which keeps
	 * its own timeouts and sends what the turn queued). */
	void (*after_poll)(void *self, short revents);
};

#endif
