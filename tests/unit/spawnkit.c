/* SPDX-License-Identifier: MIT */
#include "spawnkit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

extern char **environ;

const struct spawn_target plain_target = { .cgroup_fd = -1, .join_pidfd = -1 };

char scratch[64];

void scratch_make(const char *name)
{
	snprintf(scratch, sizeof scratch, "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		exit(1);
	}
}

void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
	chmod(path, mode);
}

void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* Capturing a run's stdout and stderr */

void redirect_begin(struct redirect *r)
{
	int out, err;

	fflush(stdout);
	fflush(stderr);
	snprintf(r->out_path, sizeof r->out_path, "%s/out", scratch);
	snprintf(r->err_path, sizeof r->err_path, "%s/err", scratch);
	out = open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = open(r->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	r->saved_out = fcntl(1, F_DUPFD_CLOEXEC, 10);
	r->saved_err = fcntl(2, F_DUPFD_CLOEXEC, 10);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
}

void redirect_end(struct redirect *r)
{
	dup2(r->saved_out, 1);
	dup2(r->saved_err, 2);
	close(r->saved_out);
	close(r->saved_err);
}

int run_captured(const struct spawn_target *target, const char *path, char *const argv[],
		 char *const envp[], struct capture *c)
{
	struct redirect r = { 0 };
	const char *what = NULL;
	int saved_errno;

	redirect_begin(&r);
	c->pid = spawn_run(target, NULL, path, argv, envp ? envp : environ, &what);
	saved_errno = errno;
	redirect_end(&r);
	c->status = -1;
	if (c->pid < 0) {
		check(0, "spawn_run %s: %s: %s", path, what ? what : "(null)",
		      strerror(saved_errno));
		c->out[0] = c->err[0] = '\0';
		return -1;
	}
	waitpid(c->pid, &c->status, 0);
	read_file(r.out_path, c->out, sizeof c->out);
	read_file(r.err_path, c->err, sizeof c->err);
	return 0;
}

int exited_with(const struct capture *c, int code)
{
	return c->status != -1 && WIFEXITED(c->status) && WEXITSTATUS(c->status) == code;
}

int killed_by(int status, int sig)
{
	return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

/* A pid from a failed spawn_run is never used: kill(-1) would signal
 * every process we may, and waitpid(-1) would wait for any child. */
int end_run(pid_t pid, int sig, int group)
{
	int status = -1;

	if (pid <= 0)
		return -1;
	kill(group ? -pid : pid, sig);
	waitpid(pid, &status, 0);
	return status;
}

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Called with bad arguments, a known system call fails with EINVAL or
 * EFAULT rather than ENOSYS. */
int have_syscall(long nr)
{
	return syscall(nr, -1L, 0L) == -1 && errno != ENOSYS;
}

/* A run's descriptors and terminal (struct spawn_io) */

/* Reads FD to its end (or 5 s without data) into BUF as a string. */
static void read_to_end(int fd, char *buf, size_t len)
{
	size_t got = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (got + 1 < len && poll(&p, 1, 5000) > 0) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
}

/* Starts ARGV[0] (an absolute path) with IO, and returns what it wrote to
 * OUT_FD's other end, READ_FD, once it has ended. */
static int run_with_io(const struct spawn_target *t, const struct spawn_io *io, char *const argv[],
		       int read_fd, char *buf, size_t len)
{
	const char *what = NULL;
	int status = -1;
	pid_t pid = spawn_run(t, io, argv[0], argv, environ, &what);

	if (pid < 0) {
		check(0, "spawn_run %s with io: %s: %s", argv[0], what, strerror(errno));
		buf[0] = '\0';
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		if (io->fd[i] >= 3)
			close(io->fd[i]);
	}
	read_to_end(read_fd, buf, len);
	waitpid(pid, &status, 0);
	return status;
}

static void check_output_into_pipe(const struct spawn_target *t, const char *how)
{
	char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; ls /proc/self/fd", NULL };
	char out[256];
	int p[2];
	int status;

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	status = run_with_io(t, &(struct spawn_io){ { -1, p[1], p[1] }, -1, false, -1 }, argv, p[0],
			     out, sizeof out);
	check(status == 0 && strcmp(out, "out\nerr\n0\n1\n2\n3\n") == 0,
	      "%s: stdout and stderr into a pipe: %#x '%s'", how, status, out);
	close(p[0]);
}

static void check_input_from_memfd(const struct spawn_target *t, const char *how)
{
	char *argv[] = { "/bin/cat", NULL };
	static const char text[] = "from a memfd\n";
	char out[256];
	int p[2], in = memfd_create("tfd-test-stdin", MFD_CLOEXEC);
	int status;

	if (in < 0 || write(in, text, strlen(text)) < 0 || lseek(in, 0, SEEK_SET) < 0 ||
	    pipe2(p, O_CLOEXEC) < 0) {
		check(0, "%s: memfd: %s", how, strerror(errno));
		return;
	}
	status = run_with_io(t, &(struct spawn_io){ { in, p[1], -1 }, -1, false, -1 }, argv, p[0],
			     out, sizeof out);
	check(status == 0 && strcmp(out, text) == 0, "%s: stdin from a memfd: %#x '%s'", how,
	      status, out);
	close(p[0]);
}

/* Sources that are themselves 0..2: our 1 and 2 (close-on-exec here, as
 * tfd's pipes are) given to the run as they are, or swapped. */
static void check_sources_on_standard_slots(const struct spawn_target *t, const char *how, int swap)
{
	char *argv[] = { "/bin/sh", "-c", "echo to-out; echo to-err >&2", NULL };
	char *const *args = argv;
	struct spawn_io io = { { -1, swap ? 2 : 1, swap ? 1 : 2 }, -1, false, -1 };
	char one[64], two[64];
	int a[2], b[2], saved1, saved2, status = -1;
	const char *what;
	pid_t pid;

	if (pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0)
		return;
	fflush(stdout);
	saved1 = fcntl(1, F_DUPFD_CLOEXEC, 10);
	saved2 = fcntl(2, F_DUPFD_CLOEXEC, 10);
	dup3(a[1], 1, O_CLOEXEC);
	dup3(b[1], 2, O_CLOEXEC);
	pid = spawn_run(t, &io, args[0], args, environ, &what);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	close(a[1]);
	close(b[1]);
	read_to_end(a[0], one, sizeof one);
	read_to_end(b[0], two, sizeof two);
	if (pid > 0)
		waitpid(pid, &status, 0);
	check(status == 0 && strcmp(one, swap ? "to-err\n" : "to-out\n") == 0 &&
		      strcmp(two, swap ? "to-out\n" : "to-err\n") == 0,
	      "%s: io {-1, %d, %d} from close-on-exec 1 and 2: %#x '%s' '%s'", how, io.fd[1],
	      io.fd[2], status, one, two);
	close(a[0]);
	close(b[0]);
}

/* The session leader of a new terminal starts a run that reads it; what
 * the run prints comes back through the master. Returns the run's exit
 * status, or -2 if it was stopped (SIGTTIN: not the foreground group). */
static int session_with_run(const struct spawn_target *t, const char *slave_name)
{
	char *argv[] = { "/bin/sh", "-c",
			 "read x; echo \"got $x\"; echo $$; cut -d' ' -f5,8 /proc/self/stat",
			 NULL };
	const char *what;
	int s, status = -1;
	pid_t pid;

	if (setsid() < 0 || (s = open(slave_name, O_RDWR | O_CLOEXEC)) < 0 ||
	    ioctl(s, TIOCSCTTY, 0) < 0)
		return -3;
	pid = spawn_run(t, &(struct spawn_io){ { s, s, s }, s, false, -1 }, argv[0], argv, environ,
			&what);
	if (pid < 0)
		return -4;
	if (waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status)) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check_terminal(const struct spawn_target *t, const char *how)
{
	char out[256] = "", name[128];
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	int s, status = -1, runpid = 0, pgrp = -1, tpgid = -1;
	struct termios raw;
	pid_t child;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof name) != 0 ||
	    (s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		printf("test_spawn: no pseudo-terminal (%s), skipping the terminal test\n",
		       strerror(errno));
		return;
	}
	/* No echo, no CR before LF: the master reads exactly what the run wrote. */
	tcgetattr(s, &raw);
	cfmakeraw(&raw);
	tcsetattr(s, TCSANOW, &raw);
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(session_with_run(t, name) & 0xff);
	if (write(m, "typed\n", 6) != 6)
		check(0, "write to the pty master: %s", strerror(errno));
	/* Three lines. Our slave descriptor, open until the end, keeps the
	 * master from reporting a hangup before the session has opened it. */
	for (size_t got = 0, lines = 0; lines < 3 && got + 1 < sizeof out;) {
		struct pollfd p = { .fd = m, .events = POLLIN };
		ssize_t n = poll(&p, 1, 5000) > 0 ? read(m, out + got, sizeof out - 1 - got) : -1;

		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			lines += out[got + (size_t)i] == '\n';
		got += (size_t)n;
		out[got] = '\0';
	}
	waitpid(child, &status, 0);
	close(s);
	close(m);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: run on a terminal ended with %d (254: stopped by SIGTTIN): '%s'", how,
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
	check(sscanf(out, "got typed\n%d\n%d %d", &runpid, &pgrp, &tpgid) == 3 && runpid > 0 &&
		      pgrp == runpid && tpgid == runpid,
	      "%s: the run's group leads the terminal: '%s'", how, out);
}

void test_io(const struct spawn_target *t, const char *how, int with_terminal)
{
	check_output_into_pipe(t, how);
	check_input_from_memfd(t, how);
	check_sources_on_standard_slots(t, how, 0);
	check_sources_on_standard_slots(t, how, 1);
	if (with_terminal)
		check_terminal(t, how);
}

/* Without clone3 */

/* A real filter, not a stand-in. */
int refuse_clone3(int err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof code / sizeof code[0], code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1;
	return 0;
}

void run_without_clone3(int err, const char *what, void (*runs)(int err))
{
	int status = -1;
	pid_t pid;

	if (err != ENOSYS && !have_syscall(SYS_clone3)) {
		printf("%s: clone3 is missing already, skipping the runs where it fails with %s\n",
		       what, strerror(err));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct clone3_probe {
			uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
		} probe = { 0 };

		if (refuse_clone3(err) < 0) {
			printf("%s: no seccomp filter here (%s), skipping the runs without clone3\n",
			       what, strerror(errno));
			_exit(0);
		}
		probe.exit_signal = SIGCHLD;
		check(syscall(SYS_clone3, &probe, sizeof probe) == -1 && errno == err,
		      "the filter makes clone3 fail with %s", strerror(err));
		runs(err);
		_exit(tally.failed ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: runs without clone3 (%s): %#x (failures above)", what, strerror(err), status);
}
