#include "report.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timens.h"

/* A bounded appender: the first piece that does not fit ends the line, so
 * a line is cut between fields and never inside a number. */
struct out {
	char *buf;
	size_t len;
	size_t cap;  /* room for text; two bytes are kept for "\n\0" */
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
	n = sprintf(buf, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "", sec,
		    digits, frac);
	return (size_t)n;
}

size_t format_rfc3339(char *buf, int64_t wall_ns)
{
	struct timespec ts = ns_to_timespec(wall_ns);
	struct tm tm;

	gmtime_r(&ts.tv_sec, &tm);
	return (size_t)sprintf(buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
			       tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			       tm.tm_hour, tm.tm_min, tm.tm_sec,
			       ts.tv_nsec / 1000);
}

size_t format_unix(char *buf, int64_t wall_ns)
{
	struct timespec ts = ns_to_timespec(wall_ns);

	return (size_t)sprintf(buf, "%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
}

static bool is_placeholder(char c)
{
	return c != '\0' && strchr("neEtuslri%", c) != NULL;
}

int format_check(const char *fmt, char *err, size_t errlen)
{
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '\0') {
			snprintf(err, errlen,
				 "invalid format '%s': lone '%%' at the end (write '%%%%' for a '%%')",
				 fmt);
			return -1;
		}
		if (!is_placeholder(p[1])) {
			snprintf(err, errlen,
				 "invalid format '%s': unknown placeholder '%%%c'",
				 fmt, p[1]);
			return -1;
		}
		p++;
	}
	return 0;
}

size_t format_line_max(const char *fmt)
{
	/* Every two bytes of FMT ("%t") make at most REPORT_FIELD_MAX. */
	return strlen(fmt) / 2 * REPORT_FIELD_MAX + REPORT_FIELD_MAX + 2;
}

bool format_uses_next(const char *fmt)
{
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == 'r')
			return true;
		if (p[1] != '\0')
			p++;
	}
	return false;
}

static void put_placeholder(struct out *o, char c, const struct tick *t)
{
	switch (c) {
	case 'n': put_u64(o, t->seq); break;
	case 'e': put_u64(o, t->expirations); break;
	case 'E': put_u64(o, t->total); break;
	case 't': put_rfc3339(o, t->wall_ns); break;
	case 'u': put_unix(o, t->wall_ns); break;
	case 's': put_seconds(o, t->elapsed_ns); break;
	case 'l': put_i64(o, t->late_ns / NSEC_PER_USEC); break;
	case 'r': put_seconds(o, t->next_in_ns); break;
	case 'i': put_seconds(o, t->interval_ns); break;
	default: put(o, "%", 1); break;
	}
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

size_t json_tick(char *buf, size_t len, const struct tick *t)
{
	struct out o = out_init(buf, len);

	put_str(&o, "{\"event\":\"tick\",\"seq\":");
	put_u64(&o, t->seq);
	put_str(&o, ",\"expirations\":");
	put_u64(&o, t->expirations);
	put_str(&o, ",\"total\":");
	put_u64(&o, t->total);
	put_str(&o, ",\"time\":\"");
	put_rfc3339(&o, t->wall_ns);
	put_str(&o, "\",\"unix\":");
	put_unix(&o, t->wall_ns);
	put_str(&o, ",\"elapsed\":");
	put_seconds(&o, t->elapsed_ns);
	put_str(&o, ",\"late_us\":");
	put_i64(&o, t->late_ns / NSEC_PER_USEC);
	put_str(&o, ",\"next_in\":");
	put_seconds(&o, t->next_in_ns);
	put_str(&o, ",\"interval\":");
	put_seconds(&o, t->interval_ns);
	if (t->action) {
		put_str(&o, ",\"action\":\"");
		put_str(&o, t->action);
		put_str(&o, "\"");
	}
	put_str(&o, "}");
	return finish_line(&o);
}

size_t json_exit(char *buf, size_t len, const struct run_end *e)
{
	struct out o = out_init(buf, len);
	char name[16];

	put_str(&o, "{\"event\":\"exit\",\"seq\":");
	put_u64(&o, e->seq);
	put_str(&o, ",\"pid\":");
	put_i64(&o, e->pid);
	put_str(&o, ",\"status\":");
	if (e->signal)
		put_str(&o, "null,\"signal\":\"");
	else {
		put_i64(&o, e->status);
		put_str(&o, ",\"signal\":null");
	}
	if (e->signal) {
		put_str(&o, signal_name(e->signal, name, sizeof name));
		put_str(&o, "\"");
	}
	put_str(&o, ",\"duration\":");
	put_seconds(&o, e->duration_ns);
	put_str(&o, e->timed_out ? ",\"timed_out\":true}" : ",\"timed_out\":false}");
	return finish_line(&o);
}

size_t json_clock(char *buf, size_t len, int64_t wall_ns)
{
	struct out o = out_init(buf, len);

	put_str(&o, "{\"event\":\"clock\",\"time\":\"");
	put_rfc3339(&o, wall_ns);
	put_str(&o, "\",\"unix\":");
	put_unix(&o, wall_ns);
	put_str(&o, "}");
	return finish_line(&o);
}

size_t format_setting(char *buf, size_t len, const char *label,
		      int64_t next_in_ns, int64_t interval_ns)
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

const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "SIG%d", sig);
	return buf;
}
