/* SPDX-License-Identifier: MIT */
#include "oplog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ascii.h"
#include "timens.h"

/* The journal's stream */

/* A decimal number ending at a byte of END (':' or '\0'); strtoumax alone
 * would take signs and blanks. */
static bool scan_decimal(const char **p, char end, uintmax_t *value)
{
	const char *s = *p;
	char *stop;

	if (!is_digit(*s))
		return false;
	errno = 0;
	*value = strtoumax(s, &stop, 10);
	if (errno || *stop != end)
		return false;
	*p = stop;
	return true;
}

bool oplog_stream_is(const char *text, dev_t dev, ino_t ino)
{
	uintmax_t d, i;

	if (!text || !scan_decimal(&text, ':', &d))
		return false;
	text++;
	return scan_decimal(&text, '\0', &i) && d == (uintmax_t)dev && i == (uintmax_t)ino;
}

bool oplog_stderr_is_journal(void)
{
	const char *stream = getenv("JOURNAL_STREAM");
	struct stat st;

	return stream && fstat(STDERR_FILENO, &st) == 0 &&
	       oplog_stream_is(stream, st.st_dev, st.st_ino);
}

enum oplog_level oplog_level_of(const char *line)
{
	static const char warning[] = "tfd: warning:";

	return strncmp(line, warning, sizeof warning - 1) == 0 ? OPLOG_WARNING : OPLOG_ERR;
}

size_t oplog_prefix(char *buf, bool journal, enum oplog_level level)
{
	buf[0] = '\0';
	if (!journal)
		return 0;
	buf[0] = '<';
	buf[1] = (char)('0' + level);
	buf[2] = '>';
	buf[3] = '\0';
	return 3;
}

void oplog_stderr(enum oplog_level level, const char *fmt, ...)
{
	char prefix[4];
	va_list ap;

	oplog_prefix(prefix, oplog_stderr_is_journal(), level);
	fputs(prefix, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* Lines */

/* snprintf's line into BUF, its newline kept when it is cut. */
static size_t line_printf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static size_t line_printf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || len < 2)
		return 0;
	if ((size_t)n < len)
		return (size_t)n;
	buf[len - 2] = '\n';
	return len - 1;
}

/* "1 run", "2 runs". */
static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* A duration to the millisecond, as decimal seconds: "3.2", "0.015". */
static const char *millis(char *buf, int64_t ns)
{
	buf[format_seconds(buf, ns / 1000000 * 1000000)] = '\0';
	return buf;
}

size_t oplog_start(char *buf, size_t len, size_t njobs, size_t nfiles)
{
	if (nfiles == 0)
		return line_printf(buf, len, "tfd %s: %zu job%s from the command line\n",
				   TFD_VERSION, njobs, plural(njobs));
	return line_printf(buf, len, "tfd %s: %zu job%s from %zu file%s\n", TFD_VERSION, njobs,
			   plural(njobs), nfiles, plural(nfiles));
}

size_t oplog_stop(char *buf, size_t len, const struct oplog_stop_line *s)
{
	char sig[16], what[160] = "", dropped[64] = "", grace[32];

	signal_name(s->sig, sig, sizeof sig);
	if (s->runs && s->how == OPLOG_STOP_SIGNALLED)
		snprintf(what, sizeof what, ": %zu run%s sent %s, SIGKILL after %ss", s->runs,
			 plural(s->runs), sig, millis(grace, s->kill_after_ns));
	else if (s->runs && s->how == OPLOG_STOP_WAITING)
		snprintf(what, sizeof what,
			 ": waiting for %zu run%s to end (a second signal "
			 "sends it on to them)",
			 s->runs, plural(s->runs));
	else if (s->runs)
		snprintf(what, sizeof what, ": %zu run%s left running", s->runs, plural(s->runs));
	if (s->dropped)
		snprintf(dropped, sizeof dropped, "%s%zu start%s dropped", s->runs ? "; " : ": ",
			 s->dropped, plural(s->dropped));
	return line_printf(buf, len, "tfd: stopping on %s%s%s\n", sig, what, dropped);
}

size_t oplog_run_start(char *buf, size_t len, const char *job, uint64_t seq, int pid,
		       const char *user)
{
	return line_printf(buf, len, "tfd: %s: run %" PRIu64 " (pid %d)%s%s: started\n", job, seq,
			   pid, user ? " as " : "", user ? user : "");
}

size_t oplog_run_end(char *buf, size_t len, const char *job, const struct run_end *e)
{
	char how[64], sig[16], took[32];

	if (e->signal)
		snprintf(how, sizeof how, "killed by %s", signal_name(e->signal, sig, sizeof sig));
	else
		snprintf(how, sizeof how, "exited %d", e->status);
	return line_printf(buf, len, "tfd: %s: run %" PRIu64 ": %s%s after %ss%s\n", job, e->seq,
			   e->timed_out ? "timed out, " : "", how, millis(took, e->duration_ns),
			   run_end_unsuccessful(e) && !e->failed ? ", to be tried again" : "");
}
