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

bool claims_fleet_record(const struct fleet_last *f, struct run_record *out)
{
	bool running = strcmp(f->state, "running") == 0;

	*out = (struct run_record){ .start_ns = f->start_ns, .status = f->exit_status };
	if (running)
		return false;
	out->duration_ns = f->end_ns > f->start_ns ? f->end_ns - f->start_ns : 0;
	if (strcmp(f->state, "abandoned") == 0) {
		out->start_failed = true;   /* its replica died: no result */
	} else if (f->timed_out) {
		out->timed_out = true;
	} else if (strcmp(f->state, "succeeded") == 0) {
		out->status = 0;
	} else if (f->exit_status > 128 && f->exit_status < 128 + 65) {
		out->status = -1;           /* the fleet writes 128+N for signal N */
		out->signal = f->exit_status - 128;
	} else if (f->exit_status <= 0) {
		out->start_failed = true;   /* failed without a status: never started */
	}
	return true;
}

/* J's last run as the fleet has it, into its state (made when first
 * known). */
static void take_last(struct loop *l, struct job *j, struct fleet *f)
{
	struct fleet_last last;
	struct fleet_seen *seen = j->state->fleet_seen;

	if (!fleet_job_last(f, j->name, &last))
		return;
	if (!seen && !(seen = j->state->fleet_seen = calloc(1, sizeof *seen))) {
		loop_fail_oom(l);
		return;
	}
	seen->running = !claims_fleet_record(&last, &seen->last);
	snprintf(seen->replica, sizeof seen->replica, "%s", last.replica);
}

void claims_view_sync(struct loop *l)
{
	struct fleet *f = claims_fleet(l);

	for (size_t i = 0; f && i < l->njobs; i++) {
		struct job *j = l->jobs[i];

		if (j->state->removed || !claims_decide(l, j))
			continue;
		j->state->paused = fleet_job_paused(f, j->name);
		take_last(l, j, f);
	}
	l->metrics_dirty = true;
}
