/* SPDX-License-Identifier: MIT */
/* benchtime: the clock readings and the sort order the bench programs
 * share. Header-only, so each program still builds from one .c file. */
#ifndef TFD_BENCHTIME_H
#define TFD_BENCHTIME_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define NS_PER_S INT64_C(1000000000)

static inline int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* For qsort over int64_t samples. */
static inline int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The CPU time a process's main thread ran, from /proc/PID/schedstat (in
 * nanoseconds, unlike the clock ticks of /proc/PID/stat), or -1. The
 * programs measured here are single-threaded. */
static inline int64_t own_cpu_ns(pid_t pid)
{
	char path[64];
	long long ns = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	if (fscanf(f, "%lld", &ns) != 1)
		ns = -1;
	fclose(f);
	return ns;
}

#endif
