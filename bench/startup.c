/* SPDX-License-Identifier: MIT */
/*
 * startup — start-to-exit of two programs, started the same way and in
 * turns, as a yardstick for how long tfd takes to start and stop.
 *
 * Usage: startup PAIRS PROG_A [ARG...] -- PROG_B [ARG...]
 *
 * Runs A, then B, then A, ... PAIRS times each, every run with
 * posix_spawn() and waitpid() from this one loop, so that both see the same
 * host at nearly the same moment.  Prints "pairs=N a_p50_us=.. a_p90_us=..
 * b_p50_us=.. b_p90_us=.. failed=F", where F counts runs that did not exit
 * 0.  The standard streams are inherited.
 */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "benchtime.h"

extern char **environ;

/* Start-to-exit of one run in ns; *failed grows when it does not exit 0. */
static int64_t timed_run(char **argv, int64_t *failed)
{
	int64_t t = clock_ns(CLOCK_MONOTONIC);
	pid_t pid;
	int status, err = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);

	if (err) {
		fprintf(stderr, "startup: posix_spawn %s: %s\n", argv[0], strerror(err));
		exit(1);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("startup: waitpid");
			exit(1);
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		(*failed)++;
	return clock_ns(CLOCK_MONOTONIC) - t;
}

/* " NAME_p50_us=M NAME_p90_us=Q" of N times in ns, which it sorts. */
static void print_times(const char *name, int64_t *ns, int64_t n)
{
	qsort(ns, (size_t)n, sizeof *ns, compare_i64);
	printf(" %s_p50_us=%.1f %s_p90_us=%.1f", name, (double)ns[(n - 1) / 2] / 1000,
	       name, (double)ns[(n * 9 + 9) / 10 - 1] / 1000);
}

int main(int argc, char **argv)
{
	char **a = argv + 2, **b = NULL;
	char *end;
	long long pairs = argc > 1 ? strtoll(argv[1], &end, 10) : 0;
	int64_t failed = 0;

	for (int k = 2; k < argc; k++) {
		if (!strcmp(argv[k], "--")) {
			argv[k] = NULL;
			b = argv + k + 1;
			break;
		}
	}
	if (argc < 5 || pairs < 1 || *end || !b || !*a || !*b) {
		fprintf(stderr, "usage: startup PAIRS PROG_A [ARG...] -- PROG_B [ARG...]\n");
		return 2;
	}
	int64_t *ta = calloc((size_t)pairs, sizeof *ta), *tb = calloc((size_t)pairs, sizeof *tb);

	if (!ta || !tb)
		return 1;
	for (long long k = 0; k < pairs; k++) {
		ta[k] = timed_run(a, &failed);
		tb[k] = timed_run(b, &failed);
	}
	printf("pairs=%lld", pairs);
	print_times("a", ta, pairs);
	print_times("b", tb, pairs);
	printf(" failed=%" PRId64 "\n", failed);
	free(ta);
	free(tb);
	return 0;
}
