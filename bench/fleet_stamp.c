/* SPDX-License-Identifier: MIT */
/*
 * fleet_stamp — the run of the fleet benchmarks: records when it started
 * against the instant it was scheduled for.
 *
 * Usage: fleet_stamp FILE [SECONDS]
 *
 * Reads the realtime clock first, then appends one line to FILE,
 * "JOB SCHEDULED REPLICA LATE_US PID", from TFD_JOB, TFD_SCHEDULED (Unix
 * seconds with nanoseconds, as tfd gives it to every run) and TFD_REPLICA;
 * LATE_US is the start minus TFD_SCHEDULED in microseconds. One write() to
 * a file opened with O_APPEND, so that the lines of runs started at once
 * never interleave. With SECONDS it then sleeps that long, as a run that
 * holds its claim.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchtime.h"

/* TFD_SCHEDULED ("1796367396.000000000") in ns, or -1 if it is not that. */
static int64_t scheduled_ns(const char *text)
{
	char *end;
	long long s;
	int64_t frac = 0, scale = NS_PER_S;

	if (!text)
		return -1;
	s = strtoll(text, &end, 10);
	if (end == text || s < 0)
		return -1;
	if (*end == '.')
		for (end++; *end >= '0' && *end <= '9'; end++)
			if (scale > 1) {
				scale /= 10;
				frac += (*end - '0') * scale;
			}
	return *end ? -1 : (int64_t)s * NS_PER_S + frac;
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

int main(int argc, char **argv)
{
	int64_t now = clock_ns(CLOCK_REALTIME), at;
	const char *sched = getenv("TFD_SCHEDULED");
	char line[512];
	int fd, n;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fleet_stamp FILE [SECONDS]\n");
		return 2;
	}
	if ((at = scheduled_ns(sched)) < 0) {
		fprintf(stderr, "fleet_stamp: TFD_SCHEDULED '%s': not Unix seconds\n", sched ? sched : "");
		return 2;
	}
	n = snprintf(line, sizeof line, "%s %s %s %.1f %d\n", env_or("TFD_JOB", "-"), sched,
		     env_or("TFD_REPLICA", "-"), (double)(now - at) / 1000.0, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof line) {
		fprintf(stderr, "fleet_stamp: line too long\n");
		return 1;
	}
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n) {
		perror("fleet_stamp: write");
		return 1;
	}
	close(fd);
	if (argc == 3) {
		struct timespec ts = {.tv_sec = atoi(argv[2])};

		while (nanosleep(&ts, &ts) < 0)
			;
	}
	return 0;
}
