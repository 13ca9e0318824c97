/* SPDX-License-Identifier: MIT */
/* events: everything the loop prints — ticks, run ends, settings, reloads,
 * clock changes, captured output lines, errors, the --stats summary — on
 * tfd's own stdout and stderr (struct output: never blocking, never torn).
 * The only reader of --json, --quiet and --verbose: the loop says what
 * happened, this module decides whether and how it is shown. A failed or
 * vanished stdout is reported once through on_stdout_lost, for the loop to
 * end the schedules (and, for an error, exit 1). */
#ifndef TFD_EVENTS_H
#define TFD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "oplog.h"
#include "output.h"
#include "report.h"
#include "stats.h"

struct events_config {
	bool json;             /* events as JSON lines on stdout */
	bool quiet;            /* no tick lines */
	bool verbose;          /* settings at arming and after each tick, reloads */
	const char *jobs_path; /* a jobs file: messages name their job */
	size_t jobs_more;      /* --jobs PATHs after the first, for the reload line */
	const char *replica;   /* --fleet: "replica" in every JSON object */
	bool log;              /* the operator's log (oplog.h): start, reload, stop */
	bool log_runs;         /* and a line per run start and end */
	bool journal;          /* stderr is the journal: lines carry their level */
};

struct events {
	struct events_config cfg;
	struct json_context jsonctx; /* what every --json object carries (cfg.replica) */
	struct output out, err;
	bool out_reported;        /* stdout's loss was reported */
	bool write_failed;        /* an error was reported: exit 1 at the end */
	uint64_t control_dropped; /* control events dropped while their stream was stuck */
	struct buf line;          /* every line is made here (line.s), grown as needed */
	/* stdout went away (ERROR 0: EPIPE, quietly) or failed (ERROR). */
	void (*on_stdout_lost)(void *arg, int error);
	void *arg;
};

/* The next setting of a job, asked only when it is printed. */
typedef void (*events_setting_fn)(void *arg, int64_t *next_in, int64_t *interval);

/* Takes CFG. Returns 0, or -1 when memory ran out (then nothing is to be
 * freed). stdout and stderr are opened: from here on every failure can be
 * reported. Each line is sized for its event by report_line_max. */
int events_open(struct events *ev, const struct events_config *cfg);
void events_close(struct events *ev);

/* True while a line waits for stdout or stderr to take it. */
bool events_blocked(const struct events *ev);

/* poll() said stdout (or stderr) takes more. */
void events_flush_out(struct events *ev);
void events_flush_err(struct events *ev);

/* Writes what is still queued before tfd exits; with GIVE_UP (after a
 * signal) a reader that does not read is not waited for. */
void events_drain(struct events *ev, bool give_up);

/* "tfd: ..." on stderr, as it is: an error, or a warning when it begins
 * "tfd: warning:" (its level in the journal). */
void events_errf(struct events *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The operator's log (cfg.log): the first line, once the jobs are loaded
 * (NFILES 0: the command line's job), and the line of a stop on a signal. */
void events_start(struct events *ev, size_t njobs, size_t nfiles);
void events_stop(struct events *ev, const struct oplog_stop_line *s);

/* A run started (cfg.log_runs): its line, naming USER when it runs as
 * another user (NULL: tfd's). */
void events_run_start(struct events *ev, const char *job, uint64_t seq, int pid, const char *user);

/* One of tfd's own calls failed with ERRNUM: "tfd: CALL: strerror". */
void events_failure(struct events *ev, const char *call, int errnum);

/* Something failed at run time and tfd goes on: a line on stderr, an
 * "error" event for JOB (NULL: tfd's own), and status 1 at the end. */
void events_error(struct events *ev, const char *job, const char *call, const char *message);

/* A wake-up of a job that prints FORMAT (NULL: no line) unless --json. */
void events_tick(struct events *ev, const char *format, const struct tick *t);

/* A job's setting on stderr: SIGUSR1's answer (events_setting) and, with
 * --verbose, after arming and after each tick (events_verbose_setting). */
void events_setting(struct events *ev, const char *job, const char *what, events_setting_fn next,
		    void *arg);
void events_verbose_setting(struct events *ev, const char *job, const char *what,
			    events_setting_fn next, void *arg);
/* With --verbose, the setting after wake-up SEQ ("tick SEQ"). */
void events_tick_setting(struct events *ev, const char *job, uint64_t seq, events_setting_fn next,
			 void *arg);

/* A run ended: an "exit" event, or a line when it failed, or always
 * with cfg.log_runs. */
void events_run_end(struct events *ev, const char *job, const struct run_end *e);

/* One line of a run's output (STREAM 1 or 2, LEN bytes, no newline), as
 * "JOB[SEQ]: LINE" on the stream it came from or an "output" event.
 * Returns -1 when memory ran out. */
int events_output_line(struct events *ev, const char *job, uint64_t seq, int stream,
		       const char *line, size_t len);

/* The realtime clock was set: a "clock" event per job of that clock, then
 * (without --json) one line. */
void events_clock_set(struct events *ev, const char *job, int64_t wall_ns);
void events_clock_set_done(struct events *ev);

/* A reload of the jobs file: ERROR, or its counts (the log, --verbose,
 * --json). */
struct reload_counts {
	size_t added, removed, kept;
};
void events_reload(struct events *ev, const struct reload_counts *c, const char *error);

/* A change made through the control socket: COMMAND on JOB (NULL: none
 * or every job) by user UID, an event with --json, else a line on
 * stderr. While that stream does not take its lines, past
 * EVENTS_CONTROL_BACKLOG bytes queued there the event is dropped and
 * counted, as a stuck stdout stops ticks from being read: requests that
 * keep coming never grow memory without bound. The count is said (an
 * "error" event, call "control", and a line) once the stream takes lines
 * again. */
#define EVENTS_CONTROL_BACKLOG (64 * 1024)
void events_control(struct events *ev, const char *command, const char *job, unsigned uid);

/* The --stats summary on stderr. */
void events_stats(struct events *ev, const struct stats *st);

#endif
