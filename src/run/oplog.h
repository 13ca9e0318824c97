/* SPDX-License-Identifier: MIT */
/* oplog: the operator's log — the lines tfd writes on stderr so that an
 * operator can tell what it did (it started, reloaded, stopped; a run
 * started and ended, as cron logs CMD), and the level each of tfd's lines
 * carries when stderr is the journal. When systemd connects stderr to the
 * journal it sets JOURNAL_STREAM to that stream's "DEVICE:INODE"
 * (systemd.exec(5)); a line that then begins "<N>" is logged at syslog
 * level N, which journald strips. Pure but for oplog_stderr_is_journal
 * and oplog_stderr: the lines are made into the caller's buffer, as
 * report.h makes them. */
#ifndef TFD_OPLOG_H
#define TFD_OPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"

/* syslog(3)'s levels, those tfd uses. */
enum oplog_level { OPLOG_ERR = 3, OPLOG_WARNING = 4, OPLOG_INFO = 6 };

/* Whether TEXT, JOURNAL_STREAM's value ("DEVICE:INODE" in decimal), names
 * the file DEV:INO. NULL or anything else is false. */
bool oplog_stream_is(const char *text, dev_t dev, ino_t ino);

/* Whether tfd's stderr is the journal's stream: JOURNAL_STREAM names the
 * file descriptor 2 refers to (a stderr redirected elsewhere by a script
 * under the same unit is not). Asked once, at start. */
bool oplog_stderr_is_journal(void);

/* The level of a line of tfd's whose writer gave none: a warning when it
 * begins "tfd: warning:", else an error (tfd says nothing else unasked). */
enum oplog_level oplog_level_of(const char *line);

/* "<N>" for LEVEL into BUF (4 bytes at least) when JOURNAL, else "": the
 * prefix's length. */
size_t oplog_prefix(char *buf, bool journal, enum oplog_level level);

/* FMT's line straight to stderr at LEVEL, with its prefix when stderr is
 * the journal: for what is said before the loop's output runs, or beside
 * it (options, --precise, libpam). */
void oplog_stderr(enum oplog_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "tfd 0.5.0: 12 jobs from 3 files\n": the first line, once the jobs are
 * loaded. NFILES 0: the command line's job. */
size_t oplog_start(char *buf, size_t len, size_t njobs, size_t nfiles);

/* What a stop did to the runs going. */
enum oplog_stop {
	OPLOG_STOP_SIGNALLED, /* sent the signal, SIGKILL after the grace */
	OPLOG_STOP_WAITING,   /* --on-stop=wait: nothing new, the runs end on their own */
	OPLOG_STOP_LEFT,      /* --on-stop=leave: tfd exits, the runs go on */
};

struct oplog_stop_line {
	int sig; /* the signal tfd was sent */
	enum oplog_stop how;
	size_t runs;           /* runs going */
	size_t dropped;        /* starts that were due or waiting and will not be made */
	int64_t kill_after_ns; /* OPLOG_STOP_SIGNALLED: the grace before SIGKILL */
};

/* "tfd: stopping on SIGTERM: 2 runs left running\n", and its kin. */
size_t oplog_stop(char *buf, size_t len, const struct oplog_stop_line *s);

/* "tfd: backup: run 7 (pid 4242) as alice: started\n"; USER NULL: a run
 * as tfd's own user, which the line does not name. */
size_t oplog_run_start(char *buf, size_t len, const char *job, uint64_t seq, int pid,
		       const char *user);

/* "tfd: backup: run 7: exited 0 after 3.2s\n", "...: killed by SIGTERM
 * after 5s", "...: timed out, killed by SIGTERM after 3600s" (durations
 * to the millisecond), with ", to be tried again" when --retry will. */
size_t oplog_run_end(char *buf, size_t len, const char *job, const struct run_end *e);

#endif
