/*
 * floor — the least a timerfd ticker can do, as a yardstick for tfd.
 *
 * Usage: floor START_NS INTERVAL_NS COUNT
 *
 * Arms one CLOCK_REALTIME timerfd at the absolute instant START_NS (Unix
 * nanoseconds) with period INTERVAL_NS, and on every wake-up reads it, takes
 * the time and writes "seq lateness_us expirations" with one write(), until
 * COUNT expirations have passed.  Lateness is measured as tfd's %l is: the
 * wake-up time minus the scheduled time of the newest expiration in the read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)

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

static int64_t now_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: floor START_NS INTERVAL_NS COUNT\n");
		return 2;
	}
	int64_t start = parse_count(argv[1]);
	int64_t interval = parse_count(argv[2]);
	int64_t count = parse_count(argv[3]);
	int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
	struct itimerspec its = { .it_value = ns_to_timespec(start),
				  .it_interval = ns_to_timespec(interval) };

	if (fd < 0 || timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		perror("floor: timerfd");
		return 1;
	}
	int64_t total = 0;
	for (int64_t seq = 1; total < count; seq++) {
		uint64_t exp;
		char line[64];

		if (read(fd, &exp, sizeof exp) != sizeof exp) {
			perror("floor: read");
			return 1;
		}
		total += (int64_t)exp;
		int64_t late = now_realtime_ns() - (start + (total - 1) * interval);
		int len = snprintf(line, sizeof line, "%" PRId64 " %" PRId64 " %" PRIu64 "\n",
				   seq, late / 1000, exp);
		if (write(STDOUT_FILENO, line, (size_t)len) != len)
			return 0;
	}
	return 0;
}
