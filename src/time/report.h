/* SPDX-License-Identifier: MIT */
/* report: the lines tfd prints — --format lines, --json events, the
 * --verbose setting, durations as decimal seconds. Pure: every function
 * fills a caller's buffer and returns its length; writing is the caller's. */
#ifndef TFD_REPORT_H
#define TFD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tz.h"

/* What a wake-up did, the "action" of a tick. */
enum tick_action {
	TICK_ACTION_NONE, /* nothing to say (no command); "action" is left out */
	TICK_RUN,         /* a run started */
	TICK_SKIP,        /* --overlap skip: a run was still going */
	TICK_QUEUE,       /* --overlap queue: runs after the one going */
	TICK_KILL,        /* --overlap kill: the one going is ended first */
	TICK_ELSEWHERE,   /* --fleet: another replica runs it */
	TICK_MISSED,      /* --fleet: claimed too late, or not at all */
	TICK_PAUSED,      /* tfdctl pause: the elapse is not run */
};

/* The action's name in JSON and lines ("run", "skip", ...), or NULL for
 * TICK_ACTION_NONE. */
const char *tick_action_name(enum tick_action action);

/* One wake-up as the placeholders and JSON fields see it. */
struct tick {
	const char *job;        /* %j and "job"; NULL: %j prints nothing, "job" null */
	const struct tz *local; /* %T's zone; NULL means UTC */
	uint64_t seq;           /* %n: wake-up number, from 1 */
	uint64_t expirations;   /* %e: expirations in this read */
	uint64_t total;         /* %E: expirations so far */
	int64_t wall_ns;        /* %t %u: wall-clock time of the wake-up */
	int64_t elapsed_ns;     /* %s: since tfd started */
	int64_t late_ns;        /* %l: wake-up minus newest scheduled expiration */
	int64_t next_in_ns;     /* %r: time to the next elapse */
	int64_t interval_ns;    /* %i */
	enum tick_action action;
	bool manual; /* tfdctl run: "trigger": "manual" */
};

/* The elapse's scheduled instant on the wall clock, as the schedule gave
 * it: the wake-up less its lateness (exact on a realtime clock, where both
 * are the same reading). TFD_SCHEDULED, and --fleet's claims are keyed by
 * it, so both must read it here. */
static inline int64_t tick_scheduled_ns(const struct tick *t)
{
	return t->wall_ns - t->late_ns;
}

/* How a run ended, for the "exit" event. */
struct run_end {
	const char *job; /* "job"; NULL: null */
	uint64_t seq;
	int pid;
	int status; /* exit code, or -1 when a signal ended it */
	int signal; /* signal number, or 0 */
	int64_t duration_ns;
	bool timed_out;
	bool superseded;         /* ended by --overlap kill: tfd's doing, no failure */
	unsigned attempt;        /* "attempt": the try, from 1 (--retry) */
	bool failed;             /* "failed": counts as a failure after retries */
	const char *not_started; /* a run as another user that could not start
				    (its user gone, its PAM account check
				    failed): why, in one line; else NULL */
	bool manual;             /* a run tfdctl run started (its tick's) */
	int64_t scheduled_ns;    /* its elapse's scheduled instant on the wall
				    clock (tick_scheduled_ns), for its hooks */
};

/* Whether a run failed, before --retry has its say: a nonzero status or a
 * signal, unless --overlap kill ended it (tfd's doing). */
static inline bool run_end_unsuccessful(const struct run_end *e)
{
	return !e->superseded && (e->signal != 0 || e->status != 0);
}

/* The least any line buffer has: format_setting's line, the --stats line
 * and tfd's own messages on stderr fit in it. */
#define REPORT_LINE_MAX 4096

/* The longest JSON event without its strings, newline and NUL included. */
#define REPORT_JSON_FIXED 512

/* What every --json object carries besides its own fields: under --fleet,
 * the replica that wrote it. The caller owns it (events.c keeps one for
 * the loop); a NULL context, or a zeroed one, adds nothing. */
struct json_context {
	const char *replica; /* "replica" (NULL: left out); outlives the events */
	int64_t time_ns;     /* "time" of every event but "tick" and "clock"
			      * (which carry their own instant): when it was
			      * written, on the wall clock; 0: left out */
};

/* The one rule that sizes an event line: the buffer that always holds,
 * uncut, the line of an event whose strings (job name, call, message,
 * output line, reload error; CX's "replica" is counted here) add up to
 * TEXT_LEN bytes: as JSON when FORMAT is NULL
 * (escaping makes at most 6 bytes of one byte, "\u001f"; an invalid UTF-8
 * byte becomes U+FFFD, 3 bytes), else as FORMAT's line for a job name of
 * TEXT_LEN bytes (see format_line_max). At least REPORT_LINE_MAX; SIZE_MAX
 * when the bound does not fit a size_t. Every writer of an event asks it
 * for the buffer it fills. */
size_t report_line_max(const struct json_context *cx, const char *format, size_t text_len);

/* Checks FMT once at start. Returns 0, or -1 with err naming the bad
 * placeholder ("invalid format '%x': unknown placeholder '%x'"). */
int format_check(const char *fmt, char *err, size_t errlen);

/* A buffer this large holds any line FMT can make for a job whose name is
 * JOB_LEN bytes long, so a tick line is never cut: %j expands to the name,
 * every other placeholder to at most REPORT_FIELD_MAX bytes. */
#define REPORT_FIELD_MAX 40
size_t format_line_max(const char *fmt, size_t job_len);

/* Expands FMT for T into BUF, adds '\n' and a terminating NUL; output
 * longer than the buffer is cut at a field boundary, never mid-number.
 * Returns the length without the NUL. The JSON functions do the same. */
size_t format_tick(char *buf, size_t len, const char *fmt, const struct tick *t);

/* The --json events, one object a line. Every object has "event" and
 * "job" (a string, or null for a NULL name), then CX's fields. Strings are escaped as JSON
 * requires; bytes that are not valid UTF-8 become U+FFFD, one for each
 * maximal invalid sequence (Unicode's recommended practice, as Python's
 * "replace" does). */
size_t json_tick(const struct json_context *cx, char *buf, size_t len, const struct tick *t);

size_t json_exit(const struct json_context *cx, char *buf, size_t len, const struct run_end *e);
/* --notify's "exit" event of a run that another replica, HELD_BY, held
 * and died with (--fleet): JOB's elapse at SCHEDULED_NS (wall clock),
 * "abandoned", "failed", and null for what died with it (seq, pid,
 * status, signal, duration, attempt). */
size_t json_abandoned(const struct json_context *cx, char *buf, size_t len, const char *job,
		      int64_t scheduled_ns, const char *held_by);
size_t json_clock(const struct json_context *cx, char *buf, size_t len, const char *job,
		  int64_t wall_ns);

/* "output": LINE (LINE_LEN bytes, no newline; NULs allowed) that run SEQ
 * wrote on STREAM ("stdout" or "stderr"); the buffer is report_line_max of
 * LINE_LEN and the job's length together (for 64 KiB of output and a short
 * name, about 385 KiB). */
size_t json_output(const struct json_context *cx, char *buf, size_t len, const char *job,
		   uint64_t seq, const char *stream, const char *line, size_t line_len);

/* "reload" (job null): OK with the counts, or not OK with ERROR. */
size_t json_reload(const struct json_context *cx, char *buf, size_t len, bool ok, size_t added,
		   size_t removed, size_t kept, const char *error);

/* "control": COMMAND made through the control socket for JOB (NULL: no
 * one job) by the user UID. */
size_t json_control(const struct json_context *cx, char *buf, size_t len, const char *command,
		    const char *job, unsigned uid);

/* "error": CALL (the failing call or step) failed with MESSAGE. */
size_t json_error(const struct json_context *cx, char *buf, size_t len, const char *job,
		  const char *call, const char *message);

/* How format_span counts. */
enum span_style {
	SPAN_FINE,   /* from years down, the second unit as fine as the
		      * first ("1month 1w", "1s 250ms"): --dry-run's "in X" */
	SPAN_COLUMN, /* from days down ("40d"), no second unit below a
		      * second ("1s", "250ms"), as systemctl list-timers'
		      * columns: tfdctl's LEFT and PASSED */
};

/* A span as people read it: the largest unit that fits and the next
 * smaller one when it is not 0 ("18h 42min", "3d", "5min 3s", "250ms"),
 * both truncated, in format_timespan's units (y month w d h min s ms us;
 * a year is 365.25 days, a month 1/12 of that), as STYLE allows; "0"
 * below a microsecond. Returns the length written (BUF holds LEN, at
 * least 32: any span fits). */
size_t format_span(char *buf, size_t len, uint64_t ns, enum span_style style);

/* The terminal form of a --dry-run line: "Fri 2026-12-04 09:00:00 CET  in
 * 18h 42min". AT_NS is shown in LOCAL (NULL: UTC) to the second, with the
 * abbreviation in force then; after two spaces how far it is from NOW_NS:
 * "in X" ahead, "X ago" for an instant already past (an --at in the past),
 * "now" within a microsecond; X is format_span's, SPAN_FINE. With JOB
 * (not NULL), the line begins with the name and two spaces. */
size_t format_dry_run_human(char *buf, size_t len, const char *job, int64_t at_ns, int64_t now_ns,
			    const struct tz *local);

/* "in X", "X ago" or "now": how far AT_NS is from NOW_NS, in
 * format_dry_run_human's units. BUF holds at least 64. Returns the length. */
size_t format_distance(char *buf, int64_t at_ns, int64_t now_ns);

/* "0.25", "1", "-0.5": decimal seconds, up to 9 fraction digits, trailing
 * zeros dropped. Returns the length written (BUF holds at least 32). */
size_t format_seconds(char *buf, int64_t ns);

/* "2026-12-03T10:00:01.000123Z" (truncated to µs) and "1796292001.000123456".
 * BUF holds at least 40. */
size_t format_rfc3339(char *buf, int64_t wall_ns);
size_t format_unix(char *buf, int64_t wall_ns);

/* %T: "2026-12-03T11:00:01.000123+01:00", the wall time in LOCAL (NULL:
 * UTC, "+00:00") with its offset; an offset with seconds (local mean time
 * before 1900) keeps them ("+00:19:32") so the instant stays exact. BUF
 * holds at least 40. */
size_t format_rfc3339_local(char *buf, int64_t wall_ns, const struct tz *local);

/* "tfd: LABEL: next in S s, interval S s\n" for --verbose and SIGUSR1. */
size_t format_setting(char *buf, size_t len, const char *label, int64_t next_in_ns,
		      int64_t interval_ns);

/* "SIGTERM" for 15; "SIG42" for a number without a name (real-time
 * signals among them), from tfd's own table, not the C library's. */
const char *signal_name(int sig, char *buf, size_t len);

#endif
