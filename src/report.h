/* report: the lines tfd prints — --format lines, --json events, the
 * --verbose setting, durations as decimal seconds. Pure: every function
 * fills a caller's buffer and returns its length; writing is the caller's. */
#ifndef TFD_REPORT_H
#define TFD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One wake-up as the placeholders and JSON fields see it. */
struct tick {
	uint64_t seq;          /* %n: wake-up number, from 1 */
	uint64_t expirations;  /* %e: expirations in this read */
	uint64_t total;        /* %E: expirations so far */
	int64_t wall_ns;       /* %t %u: wall-clock time of the wake-up */
	int64_t elapsed_ns;    /* %s: since tfd started */
	int64_t late_ns;       /* %l: wake-up minus newest scheduled expiration */
	int64_t next_in_ns;    /* %r: timerfd_gettime's it_value */
	int64_t interval_ns;   /* %i */
	const char *action;    /* "run", "skip", "queue", "kill", or NULL */
};

/* How a run ended, for the "exit" event. */
struct run_end {
	uint64_t seq;
	int pid;
	int status;            /* exit code, or -1 when a signal ended it */
	int signal;            /* signal number, or 0 */
	int64_t duration_ns;
	bool timed_out;
	bool superseded;       /* ended by --overlap kill: tfd's doing, no failure */
};

/* Longest line any of these functions writes, newline included. */
#define REPORT_LINE_MAX 4096

/* Checks FMT once at start. Returns 0, or -1 with err naming the bad
 * placeholder ("invalid format '%x': unknown placeholder '%x'"). */
int format_check(const char *fmt, char *err, size_t errlen);

/* A buffer this large holds any line FMT can make, so a tick line is never
 * cut: no placeholder expands to more than REPORT_FIELD_MAX bytes. */
#define REPORT_FIELD_MAX 32
size_t format_line_max(const char *fmt);

/* True when FMT prints %r, so the loop asks timerfd_gettime only then. */
bool format_uses_next(const char *fmt);

/* Expands FMT for T into BUF, adds '\n' and a terminating NUL; output
 * longer than the buffer is cut at a field boundary, never mid-number.
 * Returns the length without the NUL. The JSON functions do the same. */
size_t format_tick(char *buf, size_t len, const char *fmt, const struct tick *t);

size_t json_tick(char *buf, size_t len, const struct tick *t);
size_t json_exit(char *buf, size_t len, const struct run_end *e);
size_t json_clock(char *buf, size_t len, int64_t wall_ns);

/* "0.25", "1", "-0.5": decimal seconds, up to 9 fraction digits, trailing
 * zeros dropped. Returns the length written (BUF holds at least 32). */
size_t format_seconds(char *buf, int64_t ns);

/* "2026-12-03T10:00:01.000123Z" (truncated to µs) and "1796292001.000123456". */
size_t format_rfc3339(char *buf, int64_t wall_ns);
size_t format_unix(char *buf, int64_t wall_ns);

/* "tfd: LABEL: next in S s, interval S s\n" for --verbose and SIGUSR1. */
size_t format_setting(char *buf, size_t len, const char *label,
		      int64_t next_in_ns, int64_t interval_ns);

/* "SIGTERM" for 15; "SIG42" for a number without a name. */
const char *signal_name(int sig, char *buf, size_t len);

#endif
