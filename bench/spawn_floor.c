/* SPDX-License-Identifier: MIT */
/*
 * spawn_floor — the least it costs to run a command, as a yardstick for
 * tfd's runs.
 *
 * Usage: spawn_floor COUNT PATH [ARG...]
 *        spawn_floor -p INTERVAL_US COUNT PATH [ARG...]
 *
 * The first form runs PATH (with ARGs) COUNT times in a row with posix_spawn() and
 * waitpid() and prints "runs=N wall_us=W per_run_us=P p50_us=M p99_us=Q
 * cpu_us=C own_cpu_us=O": total wall time, mean, median and 99th percentile
 * wall time of one run, and the CPU time of this process with its children's
 * and without.
 *
 * The second form paces the runs on a CLOCK_MONOTONIC timerfd with period
 * INTERVAL_US, first expiration one period from now, until COUNT expirations
 * have passed, with tfd's default overlap policy: a tick that expires while
 * a run is still going gets no run of its own.  It prints "ticks=T runs=N
 * without_run=S wall_us=W p50_us=M p99_us=Q cpu_us=C own_cpu_us=O", where M
 * and Q are the median and 99th percentile wall time of one run, each run
 * timed as in the first form: a run that starts on a timer tick finds the
 * CPU idle, and so is slower than one started right after another.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtime.h"

extern char **environ;

static int64_t cpu_us(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* " cpu_us=C own_cpu_us=O": with the children's CPU time, and without. */
static void print_cpu(void)
{
	int64_t own = cpu_us(RUSAGE_SELF);

	printf(" cpu_us=%" PRId64 " own_cpu_us=%" PRId64 "\n", own + cpu_us(RUSAGE_CHILDREN), own);
}

static int64_t parse_positive(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 1) {
		fprintf(stderr, "spawn_floor: invalid number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int run_once(char **argv)
{
	char *path = argv[0];
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

/* One run, timed: its wall time in µs, or -1. */
static int64_t timed_run(char **argv)
{
	int64_t t = clock_ns(CLOCK_MONOTONIC);

	if (run_once(argv) < 0)
		return -1;
	return (clock_ns(CLOCK_MONOTONIC) - t) / 1000;
}

/* " p50_us=M p99_us=Q" of COUNT run times, which it sorts. */
static void print_run_times(int64_t *run_us, int64_t count)
{
	qsort(run_us, (size_t)count, sizeof *run_us, compare_i64);
	printf(" p50_us=%" PRId64 " p99_us=%" PRId64, run_us[(count - 1) / 2],
	       run_us[(count * 99 + 99) / 100 - 1]);
}

static int run_in_a_row(int64_t count, char **argv)
{
	int64_t *run_us = calloc((size_t)count, sizeof *run_us);
	int64_t began = clock_ns(CLOCK_MONOTONIC);

	if (!run_us)
		return 1;
	for (int64_t k = 0; k < count; k++)
		if ((run_us[k] = timed_run(argv)) < 0)
			return 1;
	int64_t wall_us = (clock_ns(CLOCK_MONOTONIC) - began) / 1000;
	printf("runs=%" PRId64 " wall_us=%" PRId64 " per_run_us=%" PRId64, count, wall_us,
	       wall_us / count);
	print_run_times(run_us, count);
	print_cpu();
	free(run_us);
	return 0;
}

/* Waits for the next expiration; returns how many passed since the last read. */
static int64_t wait_expirations(int fd)
{
	uint64_t exp;

	while (read(fd, &exp, sizeof exp) != sizeof exp)
		if (errno != EINTR)
			return -1;
	return (int64_t)exp;
}

/* Expirations the timer holds now, without waiting for one. */
static int64_t pending_expirations(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 ? wait_expirations(fd) : 0;
}

static int run_paced(int64_t interval_us, int64_t count, char **argv)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	int64_t ns = interval_us * 1000, ticks = 0, runs = 0, began = clock_ns(CLOCK_MONOTONIC);
	struct timespec period = { .tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S };
	struct itimerspec its = { .it_value = period, .it_interval = period };
	int64_t *run_us = calloc((size_t)count, sizeof *run_us);

	if (!run_us)
		return 1;
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) < 0) {
		perror("spawn_floor: timerfd");
		return 1;
	}
	while (ticks < count) {
		int64_t exp = wait_expirations(fd);

		if (exp < 0 || (run_us[runs] = timed_run(argv)) < 0)
			return 1;
		runs++;
		/* Ticks that expired while the run went on get no run. */
		ticks += exp + pending_expirations(fd);
	}
	printf("ticks=%" PRId64 " runs=%" PRId64 " without_run=%" PRId64 " wall_us=%" PRId64,
	       count, runs, count - runs, (clock_ns(CLOCK_MONOTONIC) - began) / 1000);
	print_run_times(run_us, runs);
	print_cpu();
	free(run_us);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "-p"))
		return run_in_a_row(parse_positive(argv[1]), argv + 2);
	if (argc >= 5 && !strcmp(argv[1], "-p"))
		return run_paced(parse_positive(argv[2]), parse_positive(argv[3]), argv + 4);
	fprintf(stderr, "usage: spawn_floor [-p INTERVAL_US] COUNT PATH [ARG...]\n");
	return 2;
}
