/* SPDX-License-Identifier: MIT */
#include "mailer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "capture.h"
#include "spawn.h"
#include "timens.h"
#include "writenow.h"

extern char **environ;

/* The fallback: the output as --tag-output lines on tfd's stdout */

struct print_target {
	struct events *ev;
	const char *job;
	uint64_t seq;
	bool oom;
};

static void print_line(void *arg, const char *line, size_t len)
{
	struct print_target *t = arg;

	if (events_output_line(t->ev, t->job, t->seq, 1, line, len) != 0)
		t->oom = true;
}

static void note_oom(struct mailer *ms, bool oom)
{
	if (oom && ms->oom)
		*ms->oom = true;
}

/* Prints BODY as run SEQ of JOB's lines, then the cut note if some was
 * cut. */
static void print_body(struct mailer *ms, const char *job, uint64_t seq, const struct mail_body *b,
		       struct events *ev)
{
	struct print_target t = { ev, job, seq, false };
	struct capture c = { 0 };

	if (capture_feed(&c, b->text.s ? b->text.s : "", b->text.len, print_line, &t) != 0)
		t.oom = true;
	capture_finish(&c, print_line, &t);
	capture_free(&c);
	if (b->cut > 0) {
		char note[128];

		print_line(&t, note, mail_cut_note(b, note, sizeof note));
	}
	note_oom(ms, t.oom);
}

/* The mail failed (WHY): an "error" event, and the output on stdout. */
static void mail_failed(struct mailer *ms, const struct mail_send *s, const char *why,
			struct events *ev)
{
	char message[512];

	snprintf(message, sizeof message, "%s: %s: %s; run %" PRIu64 "'s output is printed instead",
		 s->job, s->sendmail, why, s->seq);
	events_error(ev, s->job, "sendmail", message);
	print_body(ms, s->job, s->seq, &s->body, ev);
}

/* The list of sendmails */

static void send_free(struct mail_send *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->msg);
	free(s->job);
	free(s->sendmail);
	mail_body_free(&s->body);
	free(s);
}

static int add_send(struct mailer *ms, struct mail_send *s)
{
	if (array_reserve(&ms->s, &ms->cap, ms->n + 1, sizeof *ms->s, SIZE_MAX) != 0)
		return -1;
	ms->s[ms->n++] = s;
	return 0;
}

static void remove_send(struct mailer *ms, size_t i)
{
	send_free(ms->s[i]);
	ms->s[i] = ms->s[--ms->n];
}

/* Starting sendmail */

/* `SENDMAIL -i -t` through the path every run takes (spawn.h), as AS
 * says (cron runs it as the job's user, so the MTA takes that user for
 * the envelope sender): stdin the pipe's read end RD, stdout /dev/null,
 * stderr tfd's; in a process group of its own, so a ^C meant for tfd's
 * runs does not cut a mail short. Returns the pid, or -1 with errno and
 * *WHAT. */
static pid_t spawn_sendmail(const char *path, const struct mail_sender *as, int rd,
			    const char **what)
{
	char *argv[] = { (char *)path, "-i", "-t", NULL };
	int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct spawn_io io = { { rd, null_fd, -1 }, -1, false, -1 };
	struct spawn_target target = spawn_target_on_host(as->target);
	pid_t pid;
	int err;

	if (null_fd < 0) {
		*what = "open (/dev/null)";
		return -1;
	}
	pid = spawn_run(&target, &io, path, argv, as->envp ? as->envp : environ, what);
	err = errno;
	close(null_fd);
	errno = err;
	return pid;
}

/* Writes what S's pipe takes now; closes it once all is written, or when
 * sendmail will take no more. */
static void write_some(struct mail_send *s)
{
	int err;

	if (s->fd < 0)
		return;
	err = write_now(s->msg, s->len, &s->off, write_fd, &s->fd);
	if (err == EAGAIN)
		return;
	s->write_error = err;
	close(s->fd);
	s->fd = -1;
}

/* Composes the message and starts sendmail on it. Returns 0, or -1 with
 * WHY (a message) when the mail cannot go. */
static int start_send(struct mail_send *s, const struct mail_job *m, const struct mail_sender *as,
		      char *why, size_t whylen)
{
	char host[256] = "localhost";
	const char *what = NULL;
	int pipefd[2];

	gethostname(host, sizeof host - 1);
	if (mail_compose(m, host, s->job, &s->body, &s->msg, &s->len) != 0) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		snprintf(why, whylen, "pipe2: %s", strerror(errno));
		return -1;
	}
	s->pid = spawn_sendmail(m->sendmail, as, pipefd[0], &what);
	if (s->pid < 0)
		snprintf(why, whylen, "%s: %s", what, strerror(errno));
	close(pipefd[0]);
	if (s->pid < 0) {
		close(pipefd[1]);
		return -1;
	}
	s->fd = pipefd[1];
	fcntl(s->fd, F_SETFL, O_NONBLOCK);
	write_some(s);
	return 0;
}

void mailer_send(struct mailer *ms, const struct mail_job *m, const struct mail_sender *as,
		 const char *job, uint64_t seq, struct mail_body *body, struct events *ev,
		 int64_t now)
{
	struct mail_send *s = calloc(1, sizeof *s);
	char why[256];

	if (s) {
		*s = (struct mail_send){ .fd = -1,
					 .seq = seq,
					 .body = *body,
					 .term_at = ns_after(now, MAILER_TIMEOUT_NS),
					 .kill_at = ms->stopping
							    ? ns_after(now, MAILER_STOP_GRACE_NS)
							    : INT64_MAX,
					 .job = strdup(job),
					 .sendmail = strdup(m->sendmail) };
		*body = (struct mail_body){ 0 };
	}
	if (!s || !s->job || !s->sendmail) {
		print_body(ms, job, seq, s ? &s->body : body, ev);
		note_oom(ms, true);
	} else if (mail_body_empty(&s->body)) {
		/* Nothing printed, nothing mailed: as cron. */
	} else if (ms->closing) {
		print_body(ms, job, seq, &s->body, ev);
	} else if (start_send(s, m, as, why, sizeof why) != 0) {
		mail_failed(ms, s, why, ev);
	} else if (add_send(ms, s) != 0) {
		/* Not tracked, but a child: reaped as an orphan is. Its
		 * output is printed, so it is not lost either way. */
		mail_failed(ms, s, strerror(ENOMEM), ev);
	} else {
		return;
	}
	if (s)
		send_free(s);
	mail_body_free(body);
}

void mailer_stop(struct mailer *ms, int64_t now)
{
	if (ms->stopping)
		return;
	ms->stopping = true;
	for (size_t i = 0; i < ms->n; i++)
		if (ms->s[i]->kill_at > ns_after(now, MAILER_STOP_GRACE_NS))
			ms->s[i]->kill_at = ns_after(now, MAILER_STOP_GRACE_NS);
}

int64_t mailer_deadline(const struct mailer *ms)
{
	int64_t d = INT64_MAX;

	for (size_t i = 0; i < ms->n; i++) {
		if (ms->s[i]->term_at < d)
			d = ms->s[i]->term_at;
		if (ms->s[i]->kill_at < d)
			d = ms->s[i]->kill_at;
	}
	return d;
}

/* S took MAILER_TIMEOUT_NS: SIGTERM, and SIGKILL MAILER_KILL_GRACE_NS
 * later unless tfd's stop kills it sooner. */
static void end_slow_send(struct mail_send *s, int64_t now)
{
	kill(-s->pid, SIGTERM);
	s->timed_out = true;
	s->term_at = INT64_MAX;
	if (s->kill_at > ns_after(now, MAILER_KILL_GRACE_NS))
		s->kill_at = ns_after(now, MAILER_KILL_GRACE_NS);
}

void mailer_expire(struct mailer *ms, int64_t now)
{
	for (size_t i = 0; i < ms->n; i++) {
		struct mail_send *s = ms->s[i];

		if (s->term_at <= now)
			end_slow_send(s, now);
		if (s->kill_at > now)
			continue;
		kill(-s->pid, SIGKILL);
		s->stop_killed = true;
		s->kill_at = INT64_MAX;
	}
}

void mailer_write_all(struct mailer *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		write_some(ms->s[i]);
}

/* Why sendmail's end lost the mail, or NULL when it did not. */
static const char *failure_of(const struct mail_send *s, int wstatus, char *buf, size_t len)
{
	/* One that ended by itself just before the kill is judged as such. */
	if (s->timed_out && WIFSIGNALED(wstatus) &&
	    (WTERMSIG(wstatus) == SIGTERM || WTERMSIG(wstatus) == SIGKILL))
		snprintf(buf, len, "ended by %s: it had not ended %d s after it started",
			 WTERMSIG(wstatus) == SIGTERM ? "SIGTERM" : "SIGKILL",
			 (int)(MAILER_TIMEOUT_NS / NSEC_PER_SEC));
	else if (s->stop_killed && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
		snprintf(buf, len, "killed: it had not ended %d s after tfd was told to stop",
			 (int)(MAILER_STOP_GRACE_NS / NSEC_PER_SEC));
	else if (WIFSIGNALED(wstatus))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(wstatus));
	else if (WEXITSTATUS(wstatus) != 0)
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(wstatus));
	else if (s->off < s->len)
		snprintf(buf, len, "took %zu bytes of a %zu-byte message (%s)", s->off, s->len,
			 strerror(s->write_error ? s->write_error : EPIPE));
	else
		return NULL;
	return buf;
}

bool mailer_reaped(struct mailer *ms, pid_t pid, int wstatus, struct events *ev)
{
	char buf[256];
	const char *why;

	for (size_t i = 0; i < ms->n; i++) {
		struct mail_send *s = ms->s[i];

		if (s->pid != pid)
			continue;
		if (WIFSTOPPED(wstatus) || WIFCONTINUED(wstatus))
			return true;
		/* What it did not read before it ended, it never will. */
		if (s->fd >= 0) {
			close(s->fd);
			s->fd = -1;
		}
		why = failure_of(s, wstatus, buf, sizeof buf);
		if (why)
			mail_failed(ms, s, why, ev);
		remove_send(ms, i);
		return true;
	}
	return false;
}

void mailer_free(struct mailer *ms, struct events *ev)
{
	while (ms->n > 0) {
		struct mail_send *s = ms->s[ms->n - 1];

		print_body(ms, s->job, s->seq, &s->body, ev);
		remove_send(ms, ms->n - 1);
	}
	free(ms->s);
	ms->s = NULL;
	ms->cap = 0;
}
