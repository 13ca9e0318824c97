/* SPDX-License-Identifier: MIT */
/* claims_control: tfdctl under --fleet, the loop's side. A manual run is
 * claimed as an elapse is (claims_hold, its tick's manual flag); pauses
 * are the fleet's, written to tfd_paused; and what the replica shows of
 * the fleet (a job paused, its last run on any replica) is copied from
 * the fleet's view into the jobs' state when it changes, for tfdctl list,
 * status and the tfd_paused gauge. Without --fleet none of it is called. */
#ifndef TFD_CLAIMS_CONTROL_H
#define TFD_CLAIMS_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"
#include "jobstate.h"
#include "loopstate.h"

/* The fleet's claim decides J's elapses, and whether J is paused: under
 * --fleet, for a job that is not @reboot. */
bool claims_decide(const struct loop *l, const struct job *j);

/* The fleet's database is connected (its tables ready). */
bool claims_connected(const struct loop *l);

/* tfdctl pause (PAUSED) or resume of the N JOBS by UID, fleet-wide: the
 * answer comes as control_cmds_fleet_done(TOKEN). Returns -1 when memory ran
 * out (nothing asked). */
int claims_pause(struct loop *l, struct job *const *jobs, size_t n, bool paused, unsigned uid,
		 uint64_t token);

#endif
