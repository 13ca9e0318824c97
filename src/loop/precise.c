/* SPDX-License-Identifier: MIT */
#include "precise.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "oplog.h"

/* cyclictest's default priority: high, yet below the kernel's own
 * threaded IRQ handlers at 50 would be too low to matter. */
#define PRECISE_PRIORITY 80

static void warn_skip(const char *part, int err)
{
	oplog_stderr(OPLOG_WARNING, "tfd: --precise: %s skipped: %s\n", part, strerror(err));
}

static void enable_fifo(void)
{
	struct sched_param param = { .sched_priority = PRECISE_PRIORITY };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) != 0)
		warn_skip("SCHED_FIFO", errno);
}

static void lock_memory(void)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
		warn_skip("mlockall", errno);
}

/* The kernel keeps the request only while the descriptor stays open. */
static int hold_dma_latency(void)
{
	int32_t zero = 0;
	int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		warn_skip("/dev/cpu_dma_latency", errno);
		return -1;
	}
	if (write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
		warn_skip("/dev/cpu_dma_latency", errno);
		close(fd);
		return -1;
	}
	return fd;
}

static void set_timer_slack(void)
{
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0)
		warn_skip("timer slack", errno);
}

int precise_enable(void)
{
	enable_fifo();
	lock_memory();
	set_timer_slack();
	return hold_dma_latency();
}
