/* SPDX-License-Identifier: MIT */
/*
 * floor — the least a timerfd ticker can do, as a yardstick for tfd.
 *
 * Usage: floor [-s] START_NS INTERVAL_NS COUNT
 *
 * Arms one CLOCK_REALTIME timerfd at the absolute instant START_NS (Unix
 * nanoseconds) with period INTERVAL_NS, and on every wake-up reads it, takes
 * the time and writes "seq lateness_us expirations" with one write(), until
 * COUNT expirations have passed.  Lateness is measured as tfd's %l is: the
 * wake-up time minus the scheduled time of the newest expiration in the read.
 *
 * With -s it prints nothing per wake-up, and at the end one line
 * "wakeups=W missed=M avg_us=A p99_us=P max_us=X" of the lateness it
 * measured, as cyclictest and `tfd --stats` report a run: the same figure
 * with no reader to wake.  It then also does what cyclictest and
 * `tfd --precise` do besides the scheduling class: it locks its memory,
 * sets its timer slack to 1 ns and holds /dev/cpu_dma_latency at 0 (each
 * skipped silently when not permitted).  Run it under `chrt -f 80`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "benchtime.h"

static int64_t parse_count(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "floor: invalid number '%s'\n", s);
		exit(2);
	}
	return v;
}

static struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S };

	return ts;
}

/* The -s summary of N lateness samples in ns, which it sorts. */
static void print_summary(int64_t *late, int64_t n, int64_t missed)
{
	int64_t sum = 0;

	if (n == 0)
		return;
	qsort(late, (size_t)n, sizeof *late, compare_i64);
	for (int64_t k = 0; k < n; k++)
		sum += late[k];
	printf("wakeups=%" PRId64 " missed=%" PRId64 " avg_us=%" PRId64 " p99_us=%" PRId64
	       " max_us=%" PRId64 "\n", n, missed, sum / n / 1000,
	       late[(n * 99 + 99) / 100 - 1] / 1000, late[n - 1] / 1000);
}

/* The settings of -s; returns the descriptor that holds the latency at 0,
 * which stays open until exit, or -1. */
static int hold_low_latency(void)
{
	const int32_t zero = 0;
	int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);

	mlockall(MCL_CURRENT | MCL_FUTURE);
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (fd >= 0 && write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	int summary = argc == 5 && !strcmp(argv[1], "-s");

	if (argc != 4 && !summary) {
		fprintf(stderr, "usage: floor [-s] START_NS INTERVAL_NS COUNT\n");
		return 2;
	}
	argv += summary;
	int64_t start = parse_count(argv[1]);
	int64_t interval = parse_count(argv[2]);
	int64_t count = parse_count(argv[3]);
	int64_t *late_ns = summary ? calloc((size_t)count + 1, sizeof *late_ns) : NULL;
	int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
	struct itimerspec its = { .it_value = ns_to_timespec(start),
				  .it_interval = ns_to_timespec(interval) };

	if (summary && !late_ns)
		return 1;
	if (summary)
		hold_low_latency();
	if (fd < 0 || timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		perror("floor: timerfd");
		return 1;
	}
	int64_t total = 0, seq;
	for (seq = 1; total < count; seq++) {
		uint64_t exp;
		char line[64];

		if (read(fd, &exp, sizeof exp) != sizeof exp) {
			perror("floor: read");
			return 1;
		}
		total += (int64_t)exp;
		int64_t late = clock_ns(CLOCK_REALTIME) - (start + (total - 1) * interval);
		if (summary) {
			late_ns[seq - 1] = late;
			continue;
		}
		int len = snprintf(line, sizeof line, "%" PRId64 " %" PRId64 " %" PRIu64 "\n",
				   seq, late / 1000, exp);
		if (write(STDOUT_FILENO, line, (size_t)len) != len)
			return 0;
	}
	if (summary)
		print_summary(late_ns, seq - 1, total - (seq - 1));
	free(late_ns);
	return 0;
}
