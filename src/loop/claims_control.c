/* SPDX-License-Identifier: MIT */
#include "claims_control.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "metrics.h"

bool claims_decide(const struct loop *l, const struct job *j)
{
	return l->claims && !j->reboot;
}

bool claims_connected(const struct loop *l)
{
	const struct fleet_metrics *m = claims_metrics(l);

	return m && m->connected;
}

int claims_pause(struct loop *l, struct job *const *jobs, size_t n, bool paused, unsigned uid,
		 uint64_t token)
{
	const char **names = calloc(n ? n : 1, sizeof *names);
	int rc;

	if (!names)
		return -1;
	for (size_t i = 0; i < n; i++)
		names[i] = jobs[i]->name;
	rc = fleet_pause_write(claims_fleet(l), n, names, paused, uid, token);
	free(names);
	return rc;
}
