/* SPDX-License-Identifier: MIT */
/* keeper: the reader of the left runs' output, which outlives tfd. Under
 * --on-stop=leave tfd exits at once and its runs go on; the pipes it read
 * their output from (--tag-output, MAILTO: every run of a host's cron)
 * would lose their only reader, and a run's next write would end it
 * (SIGPIPE), its mail never sent. So, as cron's per-run child outlives a
 * restart of cron, tfd hands those pipes to a copy of itself, forked as
 * it exits: the keeper. It keeps the pipes, the jobs' mail settings and
 * tfd's stdout and stderr (with what tfd left queued there, so no line
 * is left half-written), closes every other descriptor (the control
 * socket and its lock, --listen's socket, inotify, the timerfds), so that
 * the tfd a restart starts takes them at once, and is named "tfd-keeper"
 * (comm). It reads each pipe to its end, prints the lines and mails the
 * output as the loop does, waits for its sendmails, and exits. It is not
 * the runs' parent: it sees no exit status, and says no run's end. A
 * stopping signal (SIGTERM, SIGINT, SIGHUP, ...) makes it stop reading:
 * what it read is mailed, the sendmails have MAILER_STOP_GRACE_NS.
 * Nothing waits for it: tfd does not reap it, and it is not a run. */
#ifndef TFD_KEEPER_H
#define TFD_KEEPER_H

#include <sys/types.h>

#include "loopstate.h"

/* Forks the keeper for L's readers, as tfd exits with runs left. Returns
 * its pid (the caller then forgets the readers: readers_forget), or -1
 * with errno when it could not start (the caller prints what was read, as
 * before). Never returns in the keeper. */
pid_t keeper_start(struct loop *l);

#endif
