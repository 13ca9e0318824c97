/* SPDX-License-Identifier: MIT */
#include "hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "writenow.h"

/* A job's hooks */

const char *hook_kind_name(enum hook_kind kind)
{
	return kind == HOOK_FAILURE ? "on-failure" : "on-success";
}

void job_hooks_free(struct job_hooks *h)
{
	free(h->shell);
	for (int k = 0; k < HOOK_KINDS; k++)
		free(h->command[k]);
	*h = (struct job_hooks){ 0 };
}

const char *job_hook_for(const struct job_hooks *h, const struct run_end *e, enum hook_kind *kind)
{
	/* A failed try that a retry follows is not the run's end yet. */
	if (run_end_unsuccessful(e) && !e->failed)
		return NULL;
	if (e->failed || e->timed_out)
		*kind = HOOK_FAILURE;
	else if (!e->superseded)
		*kind = HOOK_SUCCESS;
	else
		return NULL;
	return h->command[*kind];
}

/* The environment (pure) */

const char *hook_status_text(const struct run_end *e, char *buf, size_t len)
{
	char name[16];

	if (e->timed_out)
		return "timeout";
	if (e->signal) {
		snprintf(buf, len, "signal %s", signal_name(e->signal, name, sizeof name));
		return buf;
	}
	return e->status != 0 || e->not_started ? "failure" : "success";
}

/* The TFD_* entries of V, each a NUL-terminated "NAME=VALUE" after the
 * other in B; how many (-1: memory ran out). */
static int put_variables(struct buf *b, const struct hook_vars *v)
{
	const struct run_end *e = v->end;
	char status[48], duration[40], scheduled[40], entry[128];
	int n = 0;

	format_seconds(duration, e->duration_ns);
	format_unix(scheduled, e->scheduled_ns);
	const char *fixed[][2] = {
		{ "TFD_STATUS", hook_status_text(e, status, sizeof status) },
		{ "TFD_DURATION", duration },
		{ "TFD_SCHEDULED", scheduled },
		{ "TFD_HOOK", hook_kind_name(v->kind) },
	};

	snprintf(entry, sizeof entry, "TFD_RUN=%" PRIu64, v->seq);
	buf_put(b, entry, strlen(entry) + 1);
	n++;
	snprintf(entry, sizeof entry, "TFD_EXIT_STATUS=%d",
		 e->signal ? 128 + e->signal : e->status);
	buf_put(b, entry, strlen(entry) + 1);
	n++;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++, n++) {
		buf_put(b, fixed[i][0], strlen(fixed[i][0]));
		buf_put(b, "=", 1);
		buf_put(b, fixed[i][1], strlen(fixed[i][1]) + 1);
	}
	/* The job's name and the file's path are not bounded: put whole. */
	buf_put(b, "TFD_JOB=", 8);
	buf_put(b, v->job, strlen(v->job) + 1);
	n++;
	if (v->output_file) {
		buf_put(b, "TFD_OUTPUT_FILE=", 16);
		buf_put(b, v->output_file, strlen(v->output_file) + 1);
		n++;
	}
	return b->failed ? -1 : n;
}

char **hook_environment(char *const *base, const struct hook_vars *v)
{
	struct buf vars = { 0 };
	size_t nbase = 0, size;
	char **envp = NULL, *text;
	int n = put_variables(&vars, v);

	while (base && base[nbase])
		nbase++;
	if (n < 0 || __builtin_mul_overflow(nbase + (size_t)n + 1, sizeof *envp, &size) ||
	    __builtin_add_overflow(size, vars.len, &size) || !(envp = malloc(size))) {
		buf_free(&vars);
		return NULL;
	}
	text = (char *)(envp + nbase + (size_t)n + 1);
	memcpy(text, vars.s, vars.len);
	if (nbase > 0)
		memcpy(envp, base, nbase * sizeof *envp);
	for (int i = 0; i < n; i++) {
		envp[nbase + (size_t)i] = text;
		text += strlen(text) + 1;
	}
	envp[nbase + (size_t)n] = NULL;
	buf_free(&vars);
	return envp;
}

/* The output file */

/* S's tail in a new file of $TMPDIR (when absolute), else /tmp: 0600,
 * O_EXCL (a name another user made first is never written through),
 * given to the hook's user. Returns its path (malloc'ed), or NULL with
 * *WHAT and errno. */
static char *write_output_file(const struct hook_start *s, const char **what)
{
	const char *dir = getenv("TMPDIR");
	size_t len, off = 0;
	char *path;
	int fd, werr;

	if (!dir || dir[0] != '/')
		dir = "/tmp";
	len = strlen(dir) + sizeof "/tfd-hook-XXXXXX";
	path = malloc(len);
	if (!path) {
		*what = "malloc";
		return NULL;
	}
	snprintf(path, len, "%s/tfd-hook-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		*what = "mkostemp";
		free(path);
		return NULL;
	}
	*what = NULL;
	if (s->chown && fchown(fd, s->uid, s->gid) != 0)
		*what = "fchown";
	/* A regular file: write_now writes it all, or says why not. */
	if (!*what && (werr = write_now(s->tail, s->tail_len, &off, write_fd, &fd)) != 0) {
		*what = "write";
		errno = werr;
	}
	if (close(fd) != 0 && !*what)
		*what = "close";
	if (!*what)
		return path;
	/* As the failed call left errno, for the message. */
	int err = errno;

	unlink(path);
	free(path);
	errno = err;
	return NULL;
}

static void remove_output_file(struct hook_run *h)
{
	if (h->output_file)
		unlink(h->output_file);
	free(h->output_file);
	h->output_file = NULL;
}

/* Starting */

static void hook_free(struct hook_run *h)
{
	remove_output_file(h);
	free(h->job);
	free(h);
}

/* "JOB: --on-failure hook of run 3: WHY", as an "error" event. */
static void hook_failed(struct events *ev, const char *job, enum hook_kind kind, uint64_t seq,
			const char *why)
{
	char message[1024];

	snprintf(message, sizeof message, "%s: --%s hook of run %" PRIu64 ": %s", job,
		 hook_kind_name(kind), seq, why);
	events_error(ev, job, "hook", message);
}

/* With S->capture, the pipes of the hook's stdout and stderr: PIPES
 * holds {out read, out write, err read, err write}, -1 where none. */
static int open_pipes(const struct hook_start *s, int pipes[4], const char **what)
{
	if (!s->capture)
		return 0;
	if (pipe2(pipes, O_CLOEXEC) != 0 || (!s->one_pipe && pipe2(pipes + 2, O_CLOEXEC) != 0)) {
		*what = "pipe2";
		return -1;
	}
	fcntl(pipes[0], F_SETFL, O_NONBLOCK);
	if (!s->one_pipe)
		fcntl(pipes[2], F_SETFL, O_NONBLOCK);
	return 0;
}

/* The shell with `-c COMMAND`, through the path every run takes, as the
 * runs' user on tfd's host (spawn_target_on_host: a hook tells the
 * host's world, as the mailer does), its stdin /dev/null, its stdout and
 * stderr tfd's or PIPES' write ends, in a process group of its own. */
static pid_t spawn_hook(const struct hook_start *s, char *const *envp, const int pipes[4],
			const char **what)
{
	const char *base = strrchr(s->shell, '/');
	char *argv[] = { (char *)(base ? base + 1 : s->shell), "-c", (char *)s->command, NULL };
	struct spawn_target target = spawn_target_on_host(s->target);
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct spawn_io io = { .fd = { null_fd, pipes[1], s->one_pipe ? pipes[1] : pipes[3] },
			       .tty_fd = -1,
			       .report_fd = -1 };
	pid_t pid;
	int err;

	if (null_fd < 0) {
		*what = "open (/dev/null)";
		return -1;
	}
	pid = spawn_run(&target, &io, s->shell, argv, envp, what);
	err = errno;
	close(null_fd);
	errno = err;
	return pid;
}

static int add_hook(struct hooks *hs, struct hook_run *h)
{
	if (array_reserve(&hs->h, &hs->cap, hs->n + 1, sizeof *hs->h, SIZE_MAX) != 0)
		return -1;
	hs->h[hs->n++] = h;
	return 0;
}

/* Starts H as S says, its pipes' read ends in PIPES[0] and [2]; returns
 * 0, or -1 with *WHAT and errno. */
static int start_hook(const struct hook_start *s, struct hook_run *h, int pipes[4],
		      const char **what)
{
	struct hook_vars v = { s->job, s->end->seq, s->end, s->kind, NULL };
	char **envp;
	int err;

	if (s->tail && !(h->output_file = write_output_file(s, what)))
		return -1;
	v.output_file = h->output_file;
	envp = hook_environment(s->envp, &v);
	if (!envp) {
		*what = "malloc";
		errno = ENOMEM;
		return -1;
	}
	if (open_pipes(s, pipes, what) == 0)
		h->pid = spawn_hook(s, envp, pipes, what);
	else
		h->pid = -1;
	err = errno;
	free(envp);
	/* The write ends are the hook's alone now. */
	spawn_close_fds(&pipes[1], 1);
	spawn_close_fds(&pipes[3], 1);
	errno = err;
	return h->pid < 0 ? -1 : 0;
}

bool hooks_start(struct hooks *hs, const struct hook_start *s, struct events *ev, int64_t now,
		 int64_t wall_now, struct hook_record *rec, struct hook_started *out)
{
	int pipes[4] = { -1, -1, -1, -1 };
	struct hook_run *h;
	const char *what = "malloc";
	char why[512];

	*out = (struct hook_started){ 0, -1, -1 };
	if (hs->stopping)
		return true;
	h = calloc(1, sizeof *h);
	*rec = (struct hook_record){ .kind = s->kind,
				     .seq = s->end->seq,
				     .start_ns = wall_now,
				     .status = -1 };
	if (h) {
		h->rec = *rec;
		h->owner = s->owner;
		h->started = now;
		h->kill_grace_ns = s->kill_grace_ns;
		h->term_at = ns_after(now, HOOK_TIMEOUT_NS);
		h->kill_at = INT64_MAX;
		h->job = strdup(s->job);
	}
	if (h && h->job && start_hook(s, h, pipes, &what) == 0 && add_hook(hs, h) == 0) {
		*out = (struct hook_started){ h->pid, pipes[0], pipes[2] };
		return true;
	}
	spawn_close_fds(pipes, 4);
	if (h && h->pid > 0) {
		/* Started, but not tracked: reaped as an orphan is. */
		what = "malloc";
		errno = ENOMEM;
	}
	snprintf(why, sizeof why, "did not start: %s: %s", what, strerror(errno));
	hook_failed(ev, s->job, s->kind, s->end->seq, why);
	rec->start_failed = true;
	if (h)
		hook_free(h);
	return false;
}

/* Deadlines and stops */

int64_t hooks_deadline(const struct hooks *hs)
{
	int64_t d = INT64_MAX;

	for (size_t i = 0; i < hs->n; i++) {
		if (hs->h[i]->term_at < d)
			d = hs->h[i]->term_at;
		if (hs->h[i]->kill_at < d)
			d = hs->h[i]->kill_at;
	}
	return d;
}

/* SIG to H's group; SIGKILL its grace later, unless sooner already. */
static void end_hook(struct hook_run *h, int sig, int64_t now)
{
	kill(-h->pid, sig);
	if (h->kill_at > ns_after(now, h->kill_grace_ns))
		h->kill_at = ns_after(now, h->kill_grace_ns);
}

void hooks_expire(struct hooks *hs, int64_t now)
{
	for (size_t i = 0; i < hs->n; i++) {
		struct hook_run *h = hs->h[i];

		if (h->term_at <= now) {
			h->term_at = INT64_MAX;
			h->rec.timed_out = true;
			end_hook(h, SIGTERM, now);
		}
		if (h->kill_at <= now) {
			kill(-h->pid, SIGKILL);
			h->kill_at = INT64_MAX;
		}
	}
}

void hooks_signal(struct hooks *hs, int sig, int64_t now)
{
	hs->stopping = true;
	for (size_t i = 0; i < hs->n; i++)
		end_hook(hs->h[i], sig, now);
}

bool hooks_owns(const struct hooks *hs, pid_t pid)
{
	for (size_t i = 0; i < hs->n; i++)
		if (hs->h[i]->pid == pid)
			return true;
	return false;
}

bool hooks_busy(const struct hooks *hs, const void *owner)
{
	for (size_t i = 0; i < hs->n; i++)
		if (!owner || hs->h[i]->owner == owner)
			return true;
	return false;
}

/* Reaping */

/* Why the hook's end is a failure, or NULL when it is not. */
static const char *failure_of(const struct hook_record *r, char *buf, size_t len)
{
	char name[16];

	if (r->timed_out && r->signal)
		snprintf(buf, len, "ended by %s: it had not ended %d s after it started",
			 signal_name(r->signal, name, sizeof name),
			 (int)(HOOK_TIMEOUT_NS / NSEC_PER_SEC));
	else if (r->signal)
		snprintf(buf, len, "killed by %s", signal_name(r->signal, name, sizeof name));
	else if (r->status != 0)
		snprintf(buf, len, "exited with status %d", r->status);
	else
		return NULL;
	return buf;
}

bool hooks_reaped(struct hooks *hs, pid_t pid, int wstatus, struct events *ev, int64_t now,
		  bool *ended, void **owner, struct hook_record *rec)
{
	char buf[256];
	const char *why;

	*ended = false;
	for (size_t i = 0; i < hs->n; i++) {
		struct hook_run *h = hs->h[i];

		if (h->pid != pid)
			continue;
		if (WIFSTOPPED(wstatus) || WIFCONTINUED(wstatus))
			return true;
		h->rec.duration_ns = now - h->started;
		h->rec.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
		h->rec.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
		/* One that ended by itself before the SIGTERM took is judged
		 * as such. */
		if (!h->rec.signal)
			h->rec.timed_out = false;
		why = failure_of(&h->rec, buf, sizeof buf);
		if (why)
			hook_failed(ev, h->job, h->rec.kind, h->rec.seq, why);
		*ended = true;
		*owner = h->owner;
		*rec = h->rec;
		hook_free(h);
		hs->h[i] = hs->h[--hs->n];
		return true;
	}
	return false;
}

void hooks_free(struct hooks *hs)
{
	/* Left going: their files are theirs to read still. */
	for (size_t i = 0; i < hs->n; i++) {
		free(hs->h[i]->output_file);
		free(hs->h[i]->job);
		free(hs->h[i]);
	}
	free(hs->h);
	hs->h = NULL;
	hs->n = hs->cap = 0;
}
