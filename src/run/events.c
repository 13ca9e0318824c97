/* SPDX-License-Identifier: MIT */
#include "events.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timens.h"

int events_open(struct events *ev, const struct events_config *cfg)
{
	*ev = (struct events){ .cfg = *cfg, .jsonctx = { .replica = cfg->replica } };
	if (buf_reserve(&ev->line, REPORT_LINE_MAX, SIZE_MAX) != 0)
		return -1;
	output_open(&ev->out, STDOUT_FILENO, "stdout");
	output_open(&ev->err, STDERR_FILENO, "stderr");
	return 0;
}

void events_close(struct events *ev)
{
	output_close(&ev->out);
	output_close(&ev->err);
	buf_free(&ev->line);
}

/* The line buffer holds NEED bytes (report_line_max's figure for the event
 * at hand, the only rule for it), grown when a longer name or message
 * comes: a job added by a reload may bring one. Returns the size it has:
 * less than NEED only when memory ran out, and then the writers cut the
 * line at a field boundary rather than write past the buffer. */
static size_t line_reserve(struct events *ev, size_t need)
{
	/* Each line starts from an empty buffer: a failure is this line's
	 * alone, and does not stick. */
	if (buf_reserve(&ev->line, need, SIZE_MAX) != 0)
		ev->line.failed = false;
	return ev->line.cap;
}

/* The buffer for a JSON event whose strings other than "replica" are
 * TEXT_LEN bytes. */
static size_t json_reserve(struct events *ev, size_t text_len)
{
	return line_reserve(ev, report_line_max(&ev->jsonctx, NULL, text_len));
}

/* The same for an event whose "time" is when it is written (all but
 * "tick" and "clock", which carry their own instant): the context is
 * stamped here, the one place that reads the clock for it, so that the
 * tick's path reads none. */
static size_t json_stamped(struct events *ev, size_t text_len)
{
	ev->jsonctx.time_ns = clock_now_ns(CLOCK_REALTIME);
	return json_reserve(ev, text_len);
}

static size_t name_len(const char *s)
{
	return s ? strlen(s) : 0;
}

bool events_blocked(const struct events *ev)
{
	return output_pending(&ev->out) || output_pending(&ev->err);
}

/* A write to stdout that failed for another reason than EPIPE ends tfd
 * with status 1 and one line; EPIPE ends it quietly, as `tfd | head`
 * expects. Either way nothing more is printed there. */
static void check_output(struct events *ev)
{
	char level[4];

	if (ev->out_reported || (!ev->out.gone && !ev->out.error))
		return;
	ev->out_reported = true;
	if (ev->out.gone) {
		ev->on_stdout_lost(ev->arg, 0);
		return;
	}
	oplog_prefix(level, ev->cfg.journal, OPLOG_ERR);
	fprintf(stderr, "%stfd: write (stdout): %s\n", level, strerror(ev->out.error));
	ev->on_stdout_lost(ev->arg, ev->out.error);
}

static void put(struct events *ev, struct output *o, const char *buf, size_t len)
{
	if (output_put(o, buf, len) != 0) {
		errno = ENOMEM;
		o->error = ENOMEM;
	}
	check_output(ev);
}

static void put_out(struct events *ev, size_t len)
{
	put(ev, &ev->out, ev->line.s, len);
}

/* The line of LEN bytes in the line buffer on stderr, at LEVEL: in the
 * journal it begins with the level's prefix, written with it in one piece
 * so that no run's output comes between. */
static void put_err(struct events *ev, enum oplog_level level, size_t len)
{
	char prefix[4];
	size_t n = oplog_prefix(prefix, ev->cfg.journal, level);

	if (n && line_reserve(ev, len + n + 1) > len + n) {
		memmove(ev->line.s + n, ev->line.s, len);
		memcpy(ev->line.s, prefix, n);
		len += n;
	}
	put(ev, &ev->err, ev->line.s, len);
}

/* The stream control events go to. */
static struct output *control_stream(struct events *ev)
{
	return ev->cfg.json ? &ev->out : &ev->err;
}

/* The control events dropped while their stream was stuck, said once it
 * has taken everything queued (events_control). Not a failure of tfd's:
 * no exit status 1 for it. */
static void say_dropped(struct events *ev)
{
	char message[160];
	uint64_t n = ev->control_dropped;

	if (n == 0 || output_pending(control_stream(ev)))
		return;
	ev->control_dropped = 0;
	snprintf(message, sizeof message,
		 "%" PRIu64 " control event%s dropped: %s did not "
		 "take them in time",
		 n, n == 1 ? "" : "s", ev->cfg.json ? "stdout" : "stderr");
	events_errf(ev, "tfd: %s\n", message);
	if (ev->cfg.json) {
		size_t cap = json_reserve(ev, strlen(message) + strlen("control"));

		put_out(ev, json_error(&ev->jsonctx, ev->line.s, cap, NULL, "control", message));
	}
}

void events_flush_out(struct events *ev)
{
	output_flush(&ev->out);
	check_output(ev);
	say_dropped(ev);
}

void events_flush_err(struct events *ev)
{
	output_flush(&ev->err);
	say_dropped(ev);
}

void events_drain(struct events *ev, bool give_up)
{
	while (!give_up && output_pending(&ev->out)) {
		struct pollfd p = { .fd = ev->out.fd, .events = POLLOUT };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		output_flush(&ev->out);
	}
	output_flush(&ev->out);
	output_flush(&ev->err);
	check_output(ev);
	say_dropped(ev);
	output_flush(&ev->err);
}

/* FMT's line on stderr at LEVEL; 0: the level its text says
 * (oplog_level_of), for events_errf's callers. */
static void put_errv(struct events *ev, enum oplog_level level, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(ev->line.s, ev->line.cap, fmt, ap);
	if (n > 0 && (size_t)n >= ev->line.cap && line_reserve(ev, (size_t)n + 1) > (size_t)n)
		n = vsnprintf(ev->line.s, ev->line.cap, fmt, again);
	va_end(again);
	if (n > 0)
		put_err(ev, level ? level : oplog_level_of(ev->line.s),
			(size_t)n < ev->line.cap ? (size_t)n : ev->line.cap - 1);
}

static void put_errf(struct events *ev, enum oplog_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put_errf(struct events *ev, enum oplog_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_errv(ev, level, fmt, ap);
	va_end(ap);
}

void events_errf(struct events *ev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_errv(ev, 0, fmt, ap);
	va_end(ap);
}

void events_failure(struct events *ev, const char *call, int errnum)
{
	events_errf(ev, "tfd: %s: %s\n", call, strerror(errnum));
}

void events_error(struct events *ev, const char *job, const char *call, const char *message)
{
	events_errf(ev, "tfd: %s\n", message);
	if (ev->cfg.json) {
		size_t cap = json_stamped(ev, name_len(job) + name_len(call) + name_len(message));

		put_out(ev, json_error(&ev->jsonctx, ev->line.s, cap, job, call, message));
	}
	ev->write_failed = true;
}

void events_tick(struct events *ev, const char *format, const struct tick *t)
{
	size_t cap;

	if (ev->cfg.quiet || (!ev->cfg.json && !format))
		return;
	if (ev->cfg.json) {
		cap = json_reserve(ev, name_len(t->job));
		put_out(ev, json_tick(&ev->jsonctx, ev->line.s, cap, t));
	} else {
		cap = line_reserve(ev, report_line_max(&ev->jsonctx, format, name_len(t->job)));
		put_out(ev, format_tick(ev->line.s, cap, format, t));
	}
}

void events_setting(struct events *ev, const char *job, const char *what, events_setting_fn next,
		    void *arg)
{
	char label[256];
	int64_t next_in, interval;

	if (ev->cfg.jobs_path)
		snprintf(label, sizeof label, "%s%s%s", job, what[0] ? ": " : "", what);
	else
		snprintf(label, sizeof label, "%s", what[0] ? what : "setting");
	next(arg, &next_in, &interval);
	put_err(ev, OPLOG_INFO, format_setting(ev->line.s, ev->line.cap, label, next_in, interval));
}

void events_verbose_setting(struct events *ev, const char *job, const char *what,
			    events_setting_fn next, void *arg)
{
	if (ev->cfg.verbose)
		events_setting(ev, job, what, next, arg);
}

void events_tick_setting(struct events *ev, const char *job, uint64_t seq, events_setting_fn next,
			 void *arg)
{
	char what[32];

	if (!ev->cfg.verbose)
		return;
	snprintf(what, sizeof what, "tick %" PRIu64, seq);
	events_setting(ev, job, what, next, arg);
}

/* The operator's log */

void events_start(struct events *ev, size_t njobs, size_t nfiles)
{
	if (ev->cfg.log)
		put_err(ev, OPLOG_INFO, oplog_start(ev->line.s, ev->line.cap, njobs, nfiles));
}

void events_stop(struct events *ev, const struct oplog_stop_line *s)
{
	if (ev->cfg.log)
		put_err(ev, OPLOG_INFO, oplog_stop(ev->line.s, ev->line.cap, s));
}

void events_run_start(struct events *ev, const char *job, uint64_t seq, int pid, const char *user)
{
	size_t cap;

	if (!ev->cfg.log_runs)
		return;
	cap = line_reserve(ev, name_len(job) + name_len(user) + 128);
	put_err(ev, OPLOG_INFO, oplog_run_start(ev->line.s, cap, job, seq, pid, user));
}

void events_run_end(struct events *ev, const char *job, const struct run_end *e)
{
	char name[16], buf[300];
	const char *prefix = "";

	if (ev->cfg.json) {
		size_t cap = json_stamped(ev, name_len(e->job));

		put_out(ev, json_exit(&ev->jsonctx, ev->line.s, cap, e));
		return;
	}
	/* A failure is a warning: tfd goes on, and it is the run's. */
	if (ev->cfg.log_runs) {
		size_t cap = line_reserve(ev, name_len(job) + 160);

		put_err(ev, run_end_unsuccessful(e) ? OPLOG_WARNING : OPLOG_INFO,
			oplog_run_end(ev->line.s, cap, job, e));
		return;
	}
	if (!run_end_unsuccessful(e))
		return;
	/* In a jobs file the job's name says whose message it is. */
	if (ev->cfg.jobs_path) {
		snprintf(buf, sizeof buf, "%s: ", job);
		prefix = buf;
	}
	if (e->signal)
		put_errf(ev, OPLOG_WARNING, "tfd: %srun %" PRIu64 " (pid %d)%s killed by %s\n",
			 prefix, e->seq, e->pid, e->timed_out ? " timed out and was" : " was",
			 signal_name(e->signal, name, sizeof name));
	else
		put_errf(ev, OPLOG_WARNING,
			 "tfd: %srun %" PRIu64 " (pid %d)%s exited with status %d\n", prefix,
			 e->seq, e->pid, e->timed_out ? " timed out and" : "", e->status);
}

/* A captured line is never cut: when the buffer cannot hold it, the
 * caller keeps it and says memory ran out. */
int events_output_line(struct events *ev, const char *job, uint64_t seq, int stream,
		       const char *line, size_t len)
{
	size_t need;
	int head;

	if (ev->cfg.json) {
		ev->jsonctx.time_ns = clock_now_ns(CLOCK_REALTIME);
		need = report_line_max(&ev->jsonctx, NULL, len + strlen(job));
		if (line_reserve(ev, need) < need)
			return -1;
		put_out(ev, json_output(&ev->jsonctx, ev->line.s, need, job, seq,
					stream == 1 ? "stdout" : "stderr", line, len));
		return 0;
	}
	need = strlen(job) + len + 32;
	if (line_reserve(ev, need) < need)
		return -1;
	head = snprintf(ev->line.s, need, "%s[%" PRIu64 "]: ", job, seq);
	memcpy(ev->line.s + head, line, len);
	ev->line.s[(size_t)head + len] = '\n';
	put(ev, stream == 1 ? &ev->out : &ev->err, ev->line.s, (size_t)head + len + 1);
	return 0;
}

void events_clock_set(struct events *ev, const char *job, int64_t wall_ns)
{
	if (ev->cfg.json) {
		size_t cap = json_reserve(ev, name_len(job));

		put_out(ev, json_clock(&ev->jsonctx, ev->line.s, cap, job, wall_ns));
	}
}

void events_clock_set_done(struct events *ev)
{
	if (!ev->cfg.json)
		put_errf(ev, OPLOG_INFO, "tfd: the realtime clock was set; schedule recomputed\n");
}

void events_reload(struct events *ev, const struct reload_counts *c, const char *error)
{
	bool said = ev->cfg.log || ev->cfg.verbose;

	if (error)
		events_errf(ev, "tfd: %s\n", error);
	else if (said && ev->cfg.jobs_more)
		put_errf(ev, OPLOG_INFO,
			 "tfd: reloaded %s and %zu more: %zu added, %zu removed, "
			 "%zu kept\n",
			 ev->cfg.jobs_path, ev->cfg.jobs_more, c->added, c->removed, c->kept);
	else if (said)
		put_errf(ev, OPLOG_INFO, "tfd: reloaded %s: %zu added, %zu removed, %zu kept\n",
			 ev->cfg.jobs_path, c->added, c->removed, c->kept);
	if (ev->cfg.json) {
		size_t cap = json_stamped(ev, name_len(error));

		put_out(ev, json_reload(&ev->jsonctx, ev->line.s, cap, !error, c->added, c->removed,
					c->kept, error));
	}
}

void events_control(struct events *ev, const char *command, const char *job, unsigned uid)
{
	const struct output *o = control_stream(ev);

	if (o->q.len - o->off > EVENTS_CONTROL_BACKLOG && output_pending(o)) {
		ev->control_dropped++;
		return;
	}
	if (ev->cfg.json) {
		size_t cap = json_stamped(ev, name_len(command) + name_len(job));

		put_out(ev, json_control(&ev->jsonctx, ev->line.s, cap, command, job, uid));
	} else
		put_errf(ev, OPLOG_INFO, "tfd: control: %s%s%s (uid %u)\n", command, job ? " " : "",
			 job ? job : "", uid);
}

void events_stats(struct events *ev, const struct stats *st)
{
	put_err(ev, OPLOG_INFO, stats_format(st, ev->line.s, ev->line.cap));
}
