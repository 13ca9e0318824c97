/* SPDX-License-Identifier: MIT */
#include "starts.h"

#include <stdint.h>
#include <sys/resource.h>

/* Descriptors tfd keeps for itself beside the run pipes: its own
 * (signalfd, timerfds, inotify, the terminal) and those it opens for a
 * moment (a jobs file, --metrics, --persist, a run's input memfd). */
#define OWN_FDS 64

void starts_init(struct starts *sq, size_t pipe_fds_max)
{
	sq->head = sq->n = 0;
	sq->pipe_fds_max = pipe_fds_max;
}

size_t starts_pipe_fds_max(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
	    lim.rlim_cur > SIZE_MAX)
		return SIZE_MAX;
	return lim.rlim_cur > 2 * OWN_FDS ? (size_t)lim.rlim_cur - OWN_FDS
					  : (size_t)lim.rlim_cur / 2;
}

void starts_drop(struct starts *sq, const struct job *j)
{
	size_t kept = 0;

	for (size_t i = 0; i < sq->n; i++) {
		struct start s = sq->q[(sq->head + i) % STARTS_MAX];

		if (j && s.job != j)
			sq->q[(sq->head + kept++) % STARTS_MAX] = s;
	}
	sq->n = kept;
}
