/* SPDX-License-Identifier: MIT */
/* pidmap: which job a run's pid belongs to, so the reaper finds a run's
 * job in O(1) however many jobs there are. Open addressing on the pid. */
#ifndef TFD_PIDMAP_H
#define TFD_PIDMAP_H

#include <stddef.h>
#include <sys/types.h>

struct pidmap_slot {
	pid_t pid; /* 0: empty; -1: deleted */
	void *value;
};

struct pidmap {
	struct pidmap_slot *slots;
	size_t cap, used, live;
};

void pidmap_init(struct pidmap *m);
void pidmap_free(struct pidmap *m);
/* Returns 0, or -1 when memory ran out. */
int pidmap_put(struct pidmap *m, pid_t pid, void *value);
/* The value for PID, or NULL. */
void *pidmap_get(const struct pidmap *m, pid_t pid);
void pidmap_del(struct pidmap *m, pid_t pid);

#endif
