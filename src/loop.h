/* loop: the event loop. One poll() over the timerfd, a signalfd, a second
 * timerfd for the runner's deadlines and, with --join, the target's pidfd.
 * Nothing sleeps and nothing wakes between expirations. */
#ifndef TFD_LOOP_H
#define TFD_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "runner.h"
#include "schedule.h"
#include "spawn.h"

struct loop_config {
	struct schedule schedule;
	const char *clock_name;      /* as the user named it, for messages */
	int64_t start_mono_ns;       /* when tfd started, for %s */
	uint64_t count;              /* stop after this many expirations; 0 = no limit */
	int64_t for_ns;              /* stop this long after start; 0 = no limit */
	const char *format;          /* the tick line; NULL prints none */
	bool json;                   /* tick events as JSON (unless quiet) */
	bool quiet;
	bool verbose;
	bool stats;
	bool precise;
	/* The command; path is NULL when tfd only prints. */
	const char *path;
	char *const *argv;
	enum overlap overlap;
	int64_t timeout_ns;
	bool exit_on_error;
	int64_t random_delay_ns;
	const char *persist_path;
	bool persist_catch_up;       /* a run was missed while tfd was down */
	struct spawn_target target;
};

/* Sets up the descriptors, arms the timer and runs until the schedule ends
 * or a signal stops it. Returns tfd's exit status. */
int loop_run(const struct loop_config *cfg);

#endif
