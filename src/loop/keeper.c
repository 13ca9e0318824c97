/* SPDX-License-Identifier: MIT */
#include "keeper.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "timens.h"

/* The keeper's poll set: its signalfd, stdout, stderr, then one slot per
 * pipe (READERS[i] is slot FIRST_READER + i) and per sendmail. */
struct keeper {
	struct loop *l;
	int signal_fd;
	bool stopped; /* a signal: the pipes were closed */
	struct pollfd *pfd;
	struct reader **readers; /* each reader slot's reader */
	size_t pfd_cap, readers_cap;
};

enum { SLOT_SIGNALS, SLOT_STDOUT, SLOT_STDERR, FIRST_READER };

/* Setting up */

static int compare_fds(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Closes FIRST..LAST; the loop is for kernels before 5.9, which lack
 * close_range, and stops at the descriptor limit. */
static void close_between(int first, int last)
{
	struct rlimit lim;

	if (first > last)
		return;
	if (syscall(SYS_close_range, (unsigned)first, (unsigned)last, 0U) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur > INT_MAX)
		lim.rlim_cur = 65536;
	for (int fd = first; fd <= last && fd < (int)lim.rlim_cur; fd++)
		close(fd);
}

/* Closes every descriptor but the N of KEEP (sorted here). */
static void close_all_but(int *keep, size_t n)
{
	int from = 0;

	qsort(keep, n, sizeof *keep, compare_fds);
	for (size_t i = 0; i < n; i++) {
		close_between(from, keep[i] - 1);
		from = keep[i] + 1;
	}
	close_between(from, INT_MAX);
}

/* What the keeper keeps open: 0, 1, 2, tfd's own descriptions of stdout
 * and stderr (output.h) and the runs' pipes. A malloc'ed array of *N
 * descriptors, or NULL when memory ran out. */
static int *kept_fds(const struct loop *l, size_t *n)
{
	int *keep = calloc(l->readers.n + 5, sizeof *keep);

	if (!keep)
		return NULL;
	*n = 0;
	for (int fd = 0; fd < 3; fd++)
		keep[(*n)++] = fd;
	keep[(*n)++] = l->ev.out.fd;
	keep[(*n)++] = l->ev.err.fd;
	for (size_t i = 0; i < l->readers.n; i++)
		keep[(*n)++] = l->readers.r[i]->fd;
	return keep;
}

/* stdout went away: nothing more is printed there; there are no
 * schedules to end. */
static void stdout_lost(void *arg, int error)
{
	(void)arg;
	(void)error;
}

/* The signals tfd had blocked stay blocked; the keeper reads them from a
 * signalfd of its own. */
static int open_signals(void)
{
	sigset_t mask;

	if (sigprocmask(SIG_BLOCK, NULL, &mask) != 0)
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* The keeper's state once forked: the loop's output and mail go on, as
 * if tfd had not been told to stop; the rest of the loop is not touched
 * again (its descriptors are closed). */
static void become_keeper(struct keeper *k, int *keep, size_t nkeep)
{
	struct loop *l = k->l;

	prctl(PR_SET_NAME, "tfd-keeper", 0UL, 0UL, 0UL);
	close_all_but(keep, nkeep);
	free(keep);
	k->signal_fd = open_signals();
	l->ev.on_stdout_lost = stdout_lost;
	l->readers.on_bytes = NULL; /* no tfdctl status to show a tail */
	l->mailer.closing = false;
	l->mailer.stopping = false;
}

/* The loop */

/* Slot N is FD for EVENTS (a full set that finds no memory leaves the
 * slot out). Returns the slots in use. */
static size_t put_slot(struct keeper *k, size_t n, int fd, short events)
{
	if (array_reserve(&k->pfd, &k->pfd_cap, n + 1, sizeof *k->pfd, SIZE_MAX) != 0)
		return n;
	k->pfd[n] = (struct pollfd){ .fd = fd, .events = events };
	return n + 1;
}

/* As the loop's poll set: while a line waits for stdout or stderr, only
 * mailed runs' pipes are read (the others would print). The reader slots
 * are those whose reader is in k->readers (*NREADERS of them); the
 * sendmails' follow. Returns the slots, 0 when memory ran out. */
static size_t build_poll_set(struct keeper *k, size_t *nreaders)
{
	struct loop *l = k->l;
	bool blocked = events_blocked(&l->ev);
	size_t n = FIRST_READER;

	*nreaders = 0;
	if (array_reserve(&k->pfd, &k->pfd_cap, FIRST_READER, sizeof *k->pfd, SIZE_MAX) != 0 ||
	    array_reserve(&k->readers, &k->readers_cap, l->readers.n, sizeof *k->readers,
			  SIZE_MAX) != 0)
		return 0;
	k->pfd[SLOT_SIGNALS] = (struct pollfd){ .fd = k->signal_fd, .events = POLLIN };
	k->pfd[SLOT_STDOUT] = (struct pollfd){ .fd = -1 };
	k->pfd[SLOT_STDERR] = (struct pollfd){ .fd = -1 };
	if (output_pending(&l->ev.out))
		k->pfd[SLOT_STDOUT] = (struct pollfd){ .fd = l->ev.out.fd, .events = POLLOUT };
	if (output_pending(&l->ev.err))
		k->pfd[SLOT_STDERR] = (struct pollfd){ .fd = l->ev.err.fd, .events = POLLOUT };
	for (size_t i = 0; i < l->readers.n; i++) {
		struct reader *r = l->readers.r[i];

		if ((!blocked || r->run->mail) && put_slot(k, n, r->fd, POLLIN) > n) {
			k->readers[(*nreaders)++] = r;
			n++;
		}
	}
	for (size_t i = 0; i < l->mailer.n; i++)
		if (l->mailer.s[i]->fd >= 0)
			n = put_slot(k, n, l->mailer.s[i]->fd, POLLOUT);
	return n;
}

/* Stops reading: what each pipe holds now is read, the output read so
 * far is mailed (or its last lines printed); the sendmails have their
 * grace. */
static void stop(struct keeper *k)
{
	struct loop *l = k->l;

	k->stopped = true;
	readers_close_all(&l->readers, &l->ev);
	mailer_stop(&l->mailer, clock_now_ns(CLOCK_MONOTONIC));
}

static void on_signals(struct keeper *k)
{
	struct signalfd_siginfo si[16];
	ssize_t n = read(k->signal_fd, si, sizeof si);
	int wstatus;
	pid_t pid;

	for (ssize_t i = 0; i < n / (ssize_t)sizeof si[0]; i++) {
		int sig = (int)si[i].ssi_signo;

		if (sig == SIGCHLD || sig == SIGUSR1 || sig == SIGUSR2 || sig == SIGTTIN ||
		    sig == SIGTTOU || k->stopped)
			continue;
		stop(k);
	}
	/* Its only children are its sendmails. */
	while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0)
		mailer_reaped(&k->l->mailer, pid, wstatus, &k->l->ev);
}

/* Milliseconds to wait in poll() for the next sendmail deadline; -1:
 * none. */
static int poll_timeout(const struct mailer *ms)
{
	int64_t at = mailer_deadline(ms), now = clock_now_ns(CLOCK_MONOTONIC);
	int64_t ms_left;

	if (at == INT64_MAX)
		return -1;
	if (at <= now)
		return 0;
	ms_left = (at - now + 999999) / 1000000;
	return ms_left > INT_MAX ? INT_MAX : (int)ms_left;
}

/* One wait and what came of it. Returns false when the keeper can wait
 * no more (no memory for a poll set, poll failed): what was read is then
 * mailed or printed at once, as tfd would at its exit. */
static bool serve(struct keeper *k)
{
	struct loop *l = k->l;
	size_t nreaders = 0, n = build_poll_set(k, &nreaders);

	if (n == 0 || (poll(k->pfd, n, poll_timeout(&l->mailer)) < 0 && errno != EINTR)) {
		l->mailer.closing = true;
		if (!k->stopped)
			stop(k);
		return false;
	}
	if (k->pfd[SLOT_SIGNALS].revents)
		on_signals(k);
	if (k->pfd[SLOT_STDOUT].revents)
		events_flush_out(&l->ev);
	if (k->pfd[SLOT_STDERR].revents)
		events_flush_err(&l->ev);
	/* A stop freed the readers: their slots name nothing now. */
	for (size_t i = 0; i < nreaders && !k->stopped; i++)
		if (k->pfd[FIRST_READER + i].revents)
			readers_read(&l->readers, k->readers[i], &l->ev);
	readers_collect(&l->readers);
	for (size_t i = FIRST_READER + nreaders; i < n; i++)
		if (k->pfd[i].revents) {
			mailer_write_all(&l->mailer);
			break;
		}
	mailer_expire(&l->mailer, clock_now_ns(CLOCK_MONOTONIC));
	return true;
}

/* Whether the keeper is done: every pipe at its end, every sendmail
 * reaped, every line written (unless a signal said to stop waiting). */
static bool done(const struct keeper *k)
{
	const struct loop *l = k->l;

	return l->readers.n == 0 && !mailer_busy(&l->mailer) &&
	       (k->stopped || !events_blocked(&l->ev));
}

static __attribute__((noreturn)) void keep(struct keeper *k)
{
	struct loop *l = k->l;

	if (k->signal_fd < 0)
		stop(k);
	while (!done(k) && serve(k))
		continue;
	/* A keeper that could not wait: its sendmails' output is printed. */
	mailer_free(&l->mailer, &l->ev);
	events_drain(&l->ev, k->stopped);
	_exit(l->ev.write_failed ? 1 : 0);
}

pid_t keeper_start(struct loop *l)
{
	struct keeper k = { .l = l, .signal_fd = -1 };
	size_t nkeep = 0;
	int *keep_fds = kept_fds(l, &nkeep);
	pid_t pid;

	if (!keep_fds) {
		errno = ENOMEM;
		return -1;
	}
	pid = fork();
	if (pid != 0) {
		free(keep_fds);
		return pid;
	}
	become_keeper(&k, keep_fds, nkeep);
	keep(&k);
}
