/* SPDX-License-Identifier: MIT */
/* cronuser: a plain jobs file that looks like a system crontab. A line of
 * /etc/crontab or /etc/cron.d names a user between its schedule and its
 * command; read without --system-crontab that user becomes the command's
 * first word ("root cd / && run-parts ..."), which runs nothing useful and
 * names the job "root". tfd then says so (jobtable.c warns, naming
 * --system-crontab). Pure: who is a user of this host is the caller's
 * question. */
#ifndef TFD_CRONUSER_H
#define TFD_CRONUSER_H

#include <stdbool.h>
#include <stddef.h>

#include "jobsfile.h"

/* Whether WORD is a user of this host that no command is named after. */
typedef bool (*cronuser_known_fn)(void *arg, const char *word);

/* The first crontab or @reboot line of F (read as a plain jobs file) whose command
 * begins with a user name that KNOWN says is one, then more words: its index, with
 * the name in WORD (LEN bytes, cut); -1 when there is none. */
long cronuser_first_line(const struct jobs_file *f, cronuser_known_fn known, void *arg, char *word,
			 size_t len);

#endif
