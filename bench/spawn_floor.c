/*
 * spawn_floor — the least it costs to run a command: posix_spawn() and
 * waitpid() of PATH, COUNT times in a row, as a yardstick for tfd's runs.
 *
 * Usage: spawn_floor COUNT PATH [LIMIT_US]
 *
 * Prints "runs=N wall_us=W per_run_us=P p50_us=M p99_us=Q over_limit=O
 * cpu_us=C": total wall time, mean, median and 99th percentile wall time of
 * one run, how many runs took longer than LIMIT_US (each of those would make
 * a ticker with that period skip a tick), and the CPU time of this process
 * and its children together.
 */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * INT64_C(1000000000) + ts.tv_nsec;
}

static int64_t cpu_us(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int run_once(char *path)
{
	char *argv[] = { path, NULL };
	pid_t pid;
	int status, err = posix_spawn(&pid, path, NULL, NULL, argv, environ);

	if (err) {
		fprintf(stderr, "spawn_floor: posix_spawn %s: %s\n", path, strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: spawn_floor COUNT PATH [LIMIT_US]\n");
		return 2;
	}
	long count = strtol(argv[1], NULL, 10);
	int64_t limit_us = argc == 4 ? strtoll(argv[3], NULL, 10) : INT64_MAX;
	if (count < 1) {
		fprintf(stderr, "spawn_floor: invalid count '%s'\n", argv[1]);
		return 2;
	}
	int64_t *run_us = calloc((size_t)count, sizeof *run_us);
	if (!run_us)
		return 1;
	int64_t began = monotonic_ns(), over = 0;
	for (long k = 0; k < count; k++) {
		int64_t t = monotonic_ns();

		if (run_once(argv[2]) < 0)
			return 1;
		run_us[k] = (monotonic_ns() - t) / 1000;
		over += run_us[k] > limit_us;
	}
	int64_t wall_us = (monotonic_ns() - began) / 1000;
	qsort(run_us, (size_t)count, sizeof *run_us, compare_i64);
	printf("runs=%ld wall_us=%" PRId64 " per_run_us=%" PRId64 " p50_us=%" PRId64
	       " p99_us=%" PRId64 " over_limit=%" PRId64 " cpu_us=%" PRId64 "\n",
	       count, wall_us, wall_us / count, run_us[(count - 1) / 2],
	       run_us[(count * 99 + 99) / 100 - 1], over,
	       cpu_us(RUSAGE_SELF) + cpu_us(RUSAGE_CHILDREN));
	free(run_us);
	return 0;
}
