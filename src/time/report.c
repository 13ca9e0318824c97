/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "civil.h"
#include "jsonesc.h"
#include "timens.h"

/* A bounded appender: the first piece that does not fit ends the line, so
 * a line is cut between fields and never inside a number. */
struct out {
	char *buf;
	size_t len;
	size_t cap; /* room for text; two bytes are kept for "\n\0" */
	bool full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full || o->len + n > o->cap) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct out *o, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);

	put(o, tmp, (size_t)n);
}

static void put_i64(struct out *o, int64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof tmp, "%" PRId64, v);

	put(o, tmp, (size_t)n);
}

static void put_seconds(struct out *o, int64_t ns)
{
	char tmp[32];
	size_t n = format_seconds(tmp, ns);

	put(o, tmp, n);
}

static void put_rfc3339(struct out *o, int64_t wall_ns)
{
	char tmp[40];
	size_t n = format_rfc3339(tmp, wall_ns);

	put(o, tmp, n);
}

static void put_unix(struct out *o, int64_t wall_ns)
{
	char tmp[40];
	size_t n = format_unix(tmp, wall_ns);

	put(o, tmp, n);
}

/* Strings */

/* S (N bytes) as a JSON string, quotes included. The one escaper every
 * event uses. */
static void put_json_text(struct out *o, const char *s, size_t n)
{
	put(o, "\"", 1);
	for (size_t i = 0; i < n;) {
		char esc[6];
		const char *piece;
		size_t len;

		i += json_text_piece(s + i, n - i, esc, &piece, &len);
		put(o, piece, len);
	}
	put(o, "\"", 1);
}

/* A C string as a JSON string, or null for NULL. */
static void put_json_string(struct out *o, const char *s)
{
	if (s)
		put_json_text(o, s, strlen(s));
	else
		put_str(o, "null");
}

/* ,"KEY": */
static void put_key(struct out *o, const char *key)
{
	put(o, ",\"", 2);
	put_str(o, key);
	put(o, "\":", 2);
}

/* ,"KEY":VALUE for each kind of value. */
static void field_u64(struct out *o, const char *key, uint64_t v)
{
	put_key(o, key);
	put_u64(o, v);
}

static void field_i64(struct out *o, const char *key, int64_t v)
{
	put_key(o, key);
	put_i64(o, v);
}

static void field_seconds(struct out *o, const char *key, int64_t ns)
{
	put_key(o, key);
	put_seconds(o, ns);
}

static void field_string(struct out *o, const char *key, const char *s)
{
	put_key(o, key);
	put_json_string(o, s);
}

static void field_bool(struct out *o, const char *key, bool v)
{
	put_key(o, key);
	put_str(o, v ? "true" : "false");
}

/* ,"time":"…Z","unix":S.N */
static void field_time(struct out *o, int64_t wall_ns)
{
	put_key(o, "time");
	put(o, "\"", 1);
	put_rfc3339(o, wall_ns);
	put(o, "\"", 1);
	put_key(o, "unix");
	put_unix(o, wall_ns);
}

/* {"event":"EVENT","job":JOB, and under --fleet "replica":REPLICA: every
 * object says which replica wrote it. */
static void put_event(struct out *o, const struct json_context *cx, const char *event,
		      const char *job)
{
	put_str(o, "{\"event\":\"");
	put_str(o, event);
	put_str(o, "\"");
	put_key(o, "job");
	put_json_string(o, job);
	if (cx && cx->replica)
		field_string(o, "replica", cx->replica);
}

/* The end of an event whose "time" is the one the context gives (events.c
 * stamps it as it writes the event): every event but "tick" and "clock",
 * whose "time" is the instant they report. It comes last, after the
 * members each event had before it. */
static void close_stamped_event(struct out *o, const struct json_context *cx)
{
	if (cx && cx->time_ns) {
		put_key(o, "time");
		put(o, "\"", 1);
		put_rfc3339(o, cx->time_ns);
		put(o, "\"", 1);
	}
	put_str(o, "}");
}

static void put_rfc3339_local(struct out *o, int64_t wall_ns, const struct tz *local)
{
	char tmp[48];
	size_t n = format_rfc3339_local(tmp, wall_ns, local);

	put(o, tmp, n);
}

static size_t finish_line(struct out *o)
{
	o->buf[o->len++] = '\n';
	o->buf[o->len] = '\0';
	return o->len;
}

/* LEN is at least 2: every caller passes a buffer of REPORT_LINE_MAX or a
 * fixed array. */
static struct out out_init(char *buf, size_t len)
{
	struct out o = { buf, 0, len - 2, false };

	return o;
}

size_t format_seconds(char *buf, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	uint64_t sec = mag / NSEC_PER_SEC, frac = mag % NSEC_PER_SEC;
	int digits = 9;
	int n;

	if (frac == 0)
		return (size_t)sprintf(buf, "%s%" PRIu64, ns < 0 ? "-" : "", sec);
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	n = sprintf(buf, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "", sec, digits, frac);
	return (size_t)n;
}

/* BUF holds 40 bytes (report.h). */
size_t format_rfc3339(char *buf, int64_t wall_ns)
{
	return civil_format_utc_us(buf, 40, wall_ns, 'T', "Z");
}

size_t format_unix(char *buf, int64_t wall_ns)
{
	struct timespec ts = ns_to_timespec(wall_ns);

	return (size_t)sprintf(buf, "%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
}

/* The wall time of second SECS shifted by OFFSET, broken down. Instants
 * are int64 ns, so SECS + OFFSET stays far from time_t's limits. */
static void local_tm(int64_t secs, int32_t offset, struct tm *tm)
{
	time_t t = (time_t)(secs + offset);

	gmtime_r(&t, tm);
}

static int32_t offset_in(const struct tz *local, int64_t secs)
{
	return local ? tz_offset_at(local, secs, NULL) : 0;
}

size_t format_rfc3339_local(char *buf, int64_t wall_ns, const struct tz *local)
{
	struct timespec ts = ns_to_timespec(wall_ns);
	int32_t off = offset_in(local, ts.tv_sec);
	int32_t mag = off < 0 ? -off : off;
	char zone[32];
	int n;

	n = sprintf(zone, "%c%02d:%02d", off < 0 ? '-' : '+', (int)(mag / 3600),
		    (int)(mag / 60 % 60));
	if (mag % 60)
		sprintf(zone + n, ":%02d", (int)(mag % 60));
	return civil_format_us(buf, 40, ts.tv_sec + off, (int)(ts.tv_nsec / 1000), 'T', zone);
}

static bool is_placeholder(char c)
{
	return c != '\0' && strchr("jneEtTuslri%", c) != NULL;
}

int format_check(const char *fmt, char *err, size_t errlen)
{
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '\0') {
			/* clang-format off */
			snprintf(err, errlen,
				 "invalid format '%s': lone '%%' at the end (write '%%%%' for a '%%')",
				 fmt);
			/* clang-format on */
			return -1;
		}
		if (!is_placeholder(p[1])) {
			snprintf(err, errlen, "invalid format '%s': unknown placeholder '%%%c'",
				 fmt, p[1]);
			return -1;
		}
		p++;
	}
	return 0;
}

/* Adds N to *SUM, saturating: a bound that cannot be represented is as good
 * as an allocation that fails. */
static void add_saturating(size_t *sum, size_t n)
{
	if (__builtin_add_overflow(*sum, n, sum))
		*sum = SIZE_MAX;
}

size_t format_line_max(const char *fmt, size_t job_len)
{
	size_t max = 2; /* "\n\0" */

	for (const char *p = fmt; *p; p++) {
		if (*p != '%' || p[1] == '\0') {
			add_saturating(&max, 1);
			continue;
		}
		p++;
		add_saturating(&max, *p == 'j' ? job_len : *p == '%' ? 1 : REPORT_FIELD_MAX);
	}
	return max;
}

size_t report_line_max(const struct json_context *cx, const char *format, size_t text_len)
{
	size_t max;

	if (format) {
		max = format_line_max(format, text_len);
	} else {
		if (cx && cx->replica)
			add_saturating(&text_len, strlen(cx->replica));
		max = text_len > (SIZE_MAX - REPORT_JSON_FIXED) / 6
			      ? SIZE_MAX
			      : REPORT_JSON_FIXED + 6 * text_len;
	}
	return max < REPORT_LINE_MAX ? REPORT_LINE_MAX : max;
}

static void put_placeholder(struct out *o, char c, const struct tick *t)
{
	/* clang-format off */
	switch (c) {
	case 'j': if (t->job) put_str(o, t->job); break;
	case 'n': put_u64(o, t->seq); break;
	case 'e': put_u64(o, t->expirations); break;
	case 'E': put_u64(o, t->total); break;
	case 't': put_rfc3339(o, t->wall_ns); break;
	case 'T': put_rfc3339_local(o, t->wall_ns, t->local); break;
	case 'u': put_unix(o, t->wall_ns); break;
	case 's': put_seconds(o, t->elapsed_ns); break;
	case 'l': put_i64(o, t->late_ns / NSEC_PER_USEC); break;
	case 'r': put_seconds(o, t->next_in_ns); break;
	case 'i': put_seconds(o, t->interval_ns); break;
	default: put(o, "%", 1); break;
	}
	/* clang-format on */
}

size_t format_tick(char *buf, size_t len, const char *fmt, const struct tick *t)
{
	struct out o = out_init(buf, len);
	const char *p = fmt, *pct;

	while ((pct = strchr(p, '%')) != NULL && pct[1] != '\0') {
		put(&o, p, (size_t)(pct - p));
		put_placeholder(&o, pct[1], t);
		p = pct + 2;
	}
	put_str(&o, p);
	return finish_line(&o);
}

const char *tick_action_name(enum tick_action action)
{
	static const char *const names[] = {
		[TICK_ACTION_NONE] = NULL, [TICK_RUN] = "run",       [TICK_SKIP] = "skip",
		[TICK_QUEUE] = "queue",    [TICK_KILL] = "kill",     [TICK_ELSEWHERE] = "elsewhere",
		[TICK_MISSED] = "missed",  [TICK_PAUSED] = "paused",
	};

	return (unsigned)action < sizeof names / sizeof names[0] ? names[action] : NULL;
}

/* JSON events */

size_t json_tick(const struct json_context *cx, char *buf, size_t len, const struct tick *t)
{
	struct out o = out_init(buf, len);

	put_event(&o, cx, "tick", t->job);
	field_u64(&o, "seq", t->seq);
	field_u64(&o, "expirations", t->expirations);
	field_u64(&o, "total", t->total);
	field_time(&o, t->wall_ns);
	field_seconds(&o, "elapsed", t->elapsed_ns);
	field_i64(&o, "late_us", t->late_ns / NSEC_PER_USEC);
	field_seconds(&o, "next_in", t->next_in_ns);
	field_seconds(&o, "interval", t->interval_ns);
	if (t->action != TICK_ACTION_NONE)
		field_string(&o, "action", tick_action_name(t->action));
	if (t->manual)
		field_string(&o, "trigger", "manual");
	put_str(&o, "}");
	return finish_line(&o);
}

size_t json_exit(const struct json_context *cx, char *buf, size_t len, const struct run_end *e)
{
	struct out o = out_init(buf, len);
	char name[16];

	put_event(&o, cx, "exit", e->job);
	field_u64(&o, "seq", e->seq);
	field_i64(&o, "pid", e->pid);
	put_key(&o, "status");
	if (e->signal)
		put_str(&o, "null");
	else
		put_i64(&o, e->status);
	field_string(&o, "signal", e->signal ? signal_name(e->signal, name, sizeof name) : NULL);
	field_seconds(&o, "duration", e->duration_ns);
	field_bool(&o, "timed_out", e->timed_out);
	field_u64(&o, "attempt", e->attempt);
	field_bool(&o, "failed", e->failed);
	close_stamped_event(&o, cx);
	return finish_line(&o);
}

size_t json_abandoned(const struct json_context *cx, char *buf, size_t len, const char *job,
		      int64_t scheduled_ns, const char *held_by)
{
	struct out o = out_init(buf, len);

	/* An "exit" event's keys, those no replica alive knows null, so
	 * that a receiver of --notify reads one shape. */
	put_event(&o, cx, "exit", job);
	put_str(&o, ",\"seq\":null,\"pid\":null,\"status\":null,\"signal\":null"
		    ",\"duration\":null,\"timed_out\":false,\"attempt\":null");
	field_bool(&o, "failed", true);
	field_bool(&o, "abandoned", true);
	put_key(&o, "scheduled");
	put(&o, "\"", 1);
	put_rfc3339(&o, scheduled_ns);
	put(&o, "\"", 1);
	field_string(&o, "held_by", held_by);
	close_stamped_event(&o, cx);
	return finish_line(&o);
}

size_t json_clock(const struct json_context *cx, char *buf, size_t len, const char *job,
		  int64_t wall_ns)
{
	struct out o = out_init(buf, len);

	put_event(&o, cx, "clock", job);
	field_time(&o, wall_ns);
	put_str(&o, "}");
	return finish_line(&o);
}

size_t json_output(const struct json_context *cx, char *buf, size_t len, const char *job,
		   uint64_t seq, const char *stream, const char *line, size_t line_len)
{
	struct out o = out_init(buf, len);

	put_event(&o, cx, "output", job);
	field_u64(&o, "seq", seq);
	field_string(&o, "stream", stream);
	put_key(&o, "line");
	put_json_text(&o, line, line_len);
	close_stamped_event(&o, cx);
	return finish_line(&o);
}

size_t json_reload(const struct json_context *cx, char *buf, size_t len, bool ok, size_t added,
		   size_t removed, size_t kept, const char *error)
{
	struct out o = out_init(buf, len);

	put_event(&o, cx, "reload", NULL);
	field_bool(&o, "ok", ok);
	if (ok) {
		field_u64(&o, "added", added);
		field_u64(&o, "removed", removed);
		field_u64(&o, "kept", kept);
	} else {
		field_string(&o, "error", error);
	}
	close_stamped_event(&o, cx);
	return finish_line(&o);
}

size_t json_control(const struct json_context *cx, char *buf, size_t len, const char *command,
		    const char *job, unsigned uid)
{
	struct out o = out_init(buf, len);

	put_event(&o, cx, "control", job);
	field_string(&o, "command", command);
	field_u64(&o, "uid", uid);
	close_stamped_event(&o, cx);
	return finish_line(&o);
}

size_t json_error(const struct json_context *cx, char *buf, size_t len, const char *job,
		  const char *call, const char *message)
{
	struct out o = out_init(buf, len);

	put_event(&o, cx, "error", job);
	field_string(&o, "call", call);
	field_string(&o, "message", message);
	close_stamped_event(&o, cx);
	return finish_line(&o);
}

/* The terminal form of --dry-run */

/* format_timespan's units, largest first. */
#define SPAN_DAY (INT64_C(86400) * NSEC_PER_SEC)
static const struct span_unit {
	const char *name;
	int64_t ns;
} span_units[] = {
	{ "y", INT64_C(31557600) * NSEC_PER_SEC },
	{ "month", INT64_C(2629800) * NSEC_PER_SEC },
	{ "w", INT64_C(604800) * NSEC_PER_SEC },
	{ "d", SPAN_DAY },
	{ "h", INT64_C(3600) * NSEC_PER_SEC },
	{ "min", INT64_C(60) * NSEC_PER_SEC },
	{ "s", NSEC_PER_SEC },
	{ "ms", INT64_C(1000000) },
	{ "us", NSEC_PER_USEC },
};

/* Whether STYLE counts in the unit at I; and shows it second. */
static bool span_counts_in(size_t i, enum span_style style)
{
	return style == SPAN_FINE || span_units[i].ns <= SPAN_DAY;
}

static bool span_shows_second(size_t i, enum span_style style)
{
	return style == SPAN_FINE || span_units[i].ns >= NSEC_PER_SEC;
}

/* "18h 42min": the largest unit of MAG and, when not 0, the next one. */
static void put_span(struct out *o, uint64_t mag, enum span_style style)
{
	const size_t n = sizeof(span_units) / sizeof(span_units[0]);

	for (size_t i = 0; i < n; i++) {
		uint64_t unit = (uint64_t)span_units[i].ns, rest;

		if (mag < unit || !span_counts_in(i, style))
			continue;
		put_u64(o, mag / unit);
		put_str(o, span_units[i].name);
		rest = i + 1 < n && span_shows_second(i + 1, style)
			       ? mag % unit / (uint64_t)span_units[i + 1].ns
			       : 0;
		if (rest) {
			put(o, " ", 1);
			put_u64(o, rest);
			put_str(o, span_units[i + 1].name);
		}
		return;
	}
	put(o, "0", 1);
}

size_t format_span(char *buf, size_t len, uint64_t ns, enum span_style style)
{
	struct out o = out_init(buf, len);

	put_span(&o, ns, style);
	o.buf[o.len] = '\0';
	return o.len;
}

/* "in X", "X ago" or "now" for the distance from NOW_NS to AT_NS. */
static void put_distance(struct out *o, int64_t at_ns, int64_t now_ns)
{
	/* Both are int64, so their distance fits a uint64. */
	bool ahead = at_ns >= now_ns;
	uint64_t mag = ahead ? (uint64_t)at_ns - (uint64_t)now_ns
			     : (uint64_t)now_ns - (uint64_t)at_ns;

	if (mag < (uint64_t)NSEC_PER_USEC) {
		put_str(o, "now");
		return;
	}
	if (ahead)
		put_str(o, "in ");
	put_span(o, mag, SPAN_FINE);
	if (!ahead)
		put_str(o, " ago");
}

size_t format_distance(char *buf, int64_t at_ns, int64_t now_ns)
{
	struct out o = out_init(buf, 64);

	put_distance(&o, at_ns, now_ns);
	o.buf[o.len] = '\0';
	return o.len;
}

size_t format_dry_run_human(char *buf, size_t len, const char *job, int64_t at_ns, int64_t now_ns,
			    const struct tz *local)
{
	struct out o = out_init(buf, len);
	int64_t secs = floor_div(at_ns, NSEC_PER_SEC);
	struct tm tm;
	char tmp[64];
	int n;

	local_tm(secs, offset_in(local, secs), &tm);
	if (job) {
		put_str(&o, job);
		put(&o, "  ", 2);
	}
	n = snprintf(tmp, sizeof tmp, "%.3s %04d-%02d-%02d %02d:%02d:%02d ",
		     civil_day_names[tm.tm_wday], tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		     tm.tm_hour, tm.tm_min, tm.tm_sec);
	put(&o, tmp, (size_t)n);
	put_str(&o, local ? tz_abbr_at(local, secs) : "UTC");
	put(&o, "  ", 2);
	put_distance(&o, at_ns, now_ns);
	return finish_line(&o);
}

/* --verbose */

size_t format_setting(char *buf, size_t len, const char *label, int64_t next_in_ns,
		      int64_t interval_ns)
{
	struct out o = out_init(buf, len);

	put_str(&o, "tfd: ");
	put_str(&o, label);
	put_str(&o, ": next in ");
	put_seconds(&o, next_in_ns);
	put_str(&o, " s, interval ");
	put_seconds(&o, interval_ns);
	put_str(&o, " s");
	return finish_line(&o);
}

/* Signal names */

/* The names without "SIG", by number. glibc has sigabbrev_np(3) since 2.32,
 * other C libraries have nothing of the kind; a table of the macros is the
 * same everywhere. */
static const char *const signal_names[] = {
	/* clang-format off */
	[SIGHUP] = "HUP", [SIGINT] = "INT", [SIGQUIT] = "QUIT",
	[SIGILL] = "ILL", [SIGTRAP] = "TRAP", [SIGABRT] = "ABRT",
	[SIGBUS] = "BUS", [SIGFPE] = "FPE", [SIGKILL] = "KILL",
	[SIGUSR1] = "USR1", [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
	[SIGPIPE] = "PIPE", [SIGALRM] = "ALRM", [SIGTERM] = "TERM",
#ifdef SIGSTKFLT
	[SIGSTKFLT] = "STKFLT",
#endif
	[SIGCHLD] = "CHLD", [SIGCONT] = "CONT", [SIGSTOP] = "STOP",
	[SIGTSTP] = "TSTP", [SIGTTIN] = "TTIN", [SIGTTOU] = "TTOU",
	[SIGURG] = "URG", [SIGXCPU] = "XCPU", [SIGXFSZ] = "XFSZ",
	[SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF", [SIGWINCH] = "WINCH",
#ifdef SIGPOLL
	[SIGPOLL] = "POLL",     /* = SIGIO on Linux; glibc names it so */
#endif
#ifdef SIGPWR
	[SIGPWR] = "PWR",
#endif
	[SIGSYS] = "SYS",
	/* clang-format on */
};

const char *signal_name(int sig, char *buf, size_t len)
{
	size_t n = sizeof(signal_names) / sizeof(signal_names[0]);

	if (sig > 0 && (size_t)sig < n && signal_names[sig])
		snprintf(buf, len, "SIG%s", signal_names[sig]);
	else
		snprintf(buf, len, "SIG%d", sig);
	return buf;
}
