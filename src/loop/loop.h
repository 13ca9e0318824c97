/* SPDX-License-Identifier: MIT */
/* loop: the event loop of every job. One poll() over a timerfd per clock
 * in use (armed at the earliest elapse of that clock's heap of jobs), one
 * monotonic timerfd for every deadline (timeouts, kill graces, retries,
 * random delays, --for, a pending reload), a signalfd, the runs' output
 * pipes, tfd's own stdout and stderr while they hold queued lines, the
 * --join targets' pidfds, and the descriptors of every row of its table
 * of owners (ownertab.h: reload's inotify, the fleet, the mailer,
 * --listen, --control), which cfg->serve builds. Nothing sleeps and
 * nothing wakes between elapses. */
#ifndef TFD_LOOP_H
#define TFD_LOOP_H

#include "loopconfig.h"

/* Sets up the descriptors, arms the timers and runs until every schedule
 * ends or a signal stops tfd. Returns tfd's exit status. */
int loop_run(struct loop_config *cfg);

/* Blocks the signals the loop will read (a stop signal, SIGCHLD, ...),
 * before it runs: tfd calls it before it makes what a stop must remove
 * (the control socket), so a SIGTERM that comes meanwhile waits for the
 * loop and is a stop like any other, not a death by default action.
 * Returns -1 (errno) when sigprocmask fails. */
int loop_block_signals(void);

#endif
