/* SPDX-License-Identifier: MIT */
/* target: opens and checks where runs start (--cgroup, --join).
 *
 * Called once per job at start-up; the descriptors kept in struct
 * spawn_target are tfd's until spawn_target_close, and spawn_run reads
 * them without checking again. */
#ifndef TFD_TARGET_H
#define TFD_TARGET_H

#include <stddef.h>

#include "spawn.h"

/* Fills TARGET for --cgroup DIR and --join PID (its namespaces, and its
 * root and working directory as they are now). Each returns 0, or -1 with one
 * line in err ("--cgroup '/x': not a cgroup v2 directory") and the exit
 * status to use in *status (2 for a bad value, 1 for a missing kernel
 * feature). A pidfd is taken once, so a later reuse of PID is never joined. */
int spawn_open_cgroup(struct spawn_target *target, const char *dir, int *status, char *err,
		      size_t errlen);
int spawn_open_join(struct spawn_target *target, const char *pid_text, int *status, char *err,
		    size_t errlen);
void spawn_target_close(struct spawn_target *target);

#endif
