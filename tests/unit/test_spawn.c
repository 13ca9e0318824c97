/* test_spawn: starts real runs through spawn_run and checks what the child
 * sees (environment, descriptors, signal state, process group), how runs end,
 * command lookup, and, as root, --cgroup and --join against a throwaway
 * cgroup and namespaces. The corpus and vector folders are not used.
 * TFD_SPAWN_BENCH=1 adds a timing comparison (printed, never asserted). */
#include "harness.h"
#include "pathsearch.h"
#include "spawn.h"
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
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

extern char **environ;

static const struct spawn_target plain_target = { .cgroup_fd = -1, .join_pidfd = -1 };

/* Scratch directory for files the tests create. */
static char scratch[64];

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
	chmod(path, mode);
}

static void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* Capturing a run's stdout and stderr */

struct capture {
	char out[4096];
	char err[1024];
	int status;        /* from waitpid */
	pid_t pid;
};

struct redirect {
	int saved_out, saved_err;
	char out_path[96], err_path[96];
};

/* Points our fds 1 and 2 at scratch files, so a run inherits them; no
 * CHECK may print while this is in place. */
static void redirect_begin(struct redirect *r)
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

static void redirect_end(struct redirect *r)
{
	dup2(r->saved_out, 1);
	dup2(r->saved_err, 2);
	close(r->saved_out);
	close(r->saved_err);
}

/* Starts PATH through spawn_run with output captured and waits for it. */
static int run_captured(const struct spawn_target *target, const char *path,
			char *const argv[], char *const envp[], struct capture *c)
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

static int exited_with(const struct capture *c, int code)
{
	return c->status != -1 && WIFEXITED(c->status) &&
	       WEXITSTATUS(c->status) == code;
}

static int killed_by(int status, int sig)
{
	return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

/* Sends SIG to the run PID (to its group with GROUP) and reaps it. A pid
 * from a failed spawn_run is never used: kill(-1) would signal every
 * process we may, and waitpid(-1) would wait for any child. */
static int end_run(pid_t pid, int sig, int group)
{
	int status = -1;

	if (pid <= 0)
		return -1;
	kill(group ? -pid : pid, sig);
	waitpid(pid, &status, 0);
	return status;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Whether the kernel (or valgrind, which lacks clone3 and pidfd_open) knows
 * system call NR: called with bad arguments, it fails with EINVAL or EFAULT
 * rather than ENOSYS. */
static int have_syscall(long nr)
{
	return syscall(nr, -1L, 0L) == -1 && errno != ENOSYS;
}

/* resolve_command_in, with tfd's PATH as job_build gives it */

static void expect_resolve(const char *command, int want, const char *want_path,
			   const char *want_why)
{
	char buf[PATH_MAX];
	const char *why = "";
	int got = resolve_command_in(command, getenv("PATH"), buf, sizeof buf, &why);

	check(got == want, "resolve_command_in('%s') = %d, want %d (%s)", command,
	      got, want, why);
	if (got == 0 && want == 0 && want_path)
		check(strcmp(buf, want_path) == 0, "resolve_command_in('%s') path '%s', want '%s'",
		      command, buf, want_path);
	if (got != 0 && want_why)
		check(strcmp(why, want_why) == 0, "resolve_command_in('%s') why '%s', want '%s'",
		      command, why, want_why);
}

static void test_resolve(void)
{
	char a[128], b[128], path[300], p[300], cwd[PATH_MAX];
	char buf[PATH_MAX];
	const char *why;
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	snprintf(a, sizeof a, "%s/a", scratch);
	snprintf(b, sizeof b, "%s/b", scratch);
	mkdir(a, 0755);
	mkdir(b, 0755);
	snprintf(p, sizeof p, "%s/prog", a);
	write_file(p, "#!/bin/sh\n", 0644);
	snprintf(p, sizeof p, "%s/prog", b);
	write_file(p, "#!/bin/sh\n", 0755);
	snprintf(p, sizeof p, "%s/dironly", a);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/mixed", a);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/mixed", b);
	write_file(p, "", 0644);

	check(resolve_command_in("sh", getenv("PATH"), buf, sizeof buf, &why) == 0 &&
	      strlen(buf) > 3 && strcmp(buf + strlen(buf) - 3, "/sh") == 0,
	      "resolve_command_in('sh') found '%s'", buf);
	expect_resolve("/bin/sh", 0, "/bin/sh", NULL);
	expect_resolve("tfd-no-such-command-x", 127, NULL, "command not found");
	expect_resolve("", 127, NULL, "command not found");
	expect_resolve("/nonexistent/x", 127, NULL, "No such file or directory");
	expect_resolve("/tmp", 126, NULL, "Is a directory");
	snprintf(p, sizeof p, "%s/prog", a);
	expect_resolve(p, 126, NULL, "Permission denied");

	/* A match that cannot run does not stop the search. */
	snprintf(path, sizeof path, "%s:%s", a, b);
	setenv("PATH", path, 1);
	snprintf(p, sizeof p, "%s/prog", b);
	expect_resolve("prog", 0, p, NULL);
	setenv("PATH", a, 1);
	expect_resolve("prog", 126, NULL, "Permission denied");
	expect_resolve("dironly", 126, NULL, "Is a directory");
	expect_resolve("nothere", 127, NULL, "command not found");
	setenv("PATH", path, 1);
	expect_resolve("mixed", 126, NULL, "Permission denied");
	check(resolve_command_in("prog", getenv("PATH"), buf, 8, &why) == 127,
	      "resolve_command_in with a short buffer must not find a long path");

	/* An empty entry is the current directory, as for execvp. */
	if (getcwd(cwd, sizeof cwd) && chdir(b) == 0) {
		setenv("PATH", ":/nonexistent", 1);
		expect_resolve("prog", 0, "./prog", NULL);
		if (chdir(cwd) < 0)
			perror(cwd);
	}

	unsetenv("PATH");
	check(resolve_command_in("sh", getenv("PATH"), buf, sizeof buf, &why) == 0,
	      "resolve_command_in('sh') without PATH: %s", why);
	if (old_path) {
		setenv("PATH", old_path, 1);
		free(old_path);
	}
}

/* Plain runs */

/* tfd blocks the signals its signalfd reads and ignores SIGPIPE; a handler
 * stands in for any other disposition. */
static void noop_handler(int sig)
{
	(void)sig;
}

static void set_signal_state_like_tfd(sigset_t *old_mask)
{
	sigset_t block;
	struct sigaction sa;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, old_mask);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = noop_handler;
	sigaction(SIGUSR2, &sa, NULL);
}

static void test_signal_state(void)
{
	char *argv[] = { "grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status", NULL };
	struct capture c;
	sigset_t old, during, after;

	set_signal_state_like_tfd(&old);
	sigprocmask(SIG_SETMASK, NULL, &during);
	run_captured(&plain_target, "/bin/grep", argv, NULL, &c);
	check(exited_with(&c, 0), "grep status %d", c.status);
	check(strcmp(c.out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n") == 0,
	      "child signal state:\n%s", c.out);
	/* The same with only the noted signals reset, as tfd spawns. */
	struct spawn_target noted = plain_target;

	spawn_note_signals(&noted);
	check(noted.reset_mask & (UINT64_C(1) << (SIGPIPE - 1)) &&
	      noted.reset_mask & (UINT64_C(1) << (SIGUSR2 - 1)) &&
	      !(noted.reset_mask & (UINT64_C(1) << (SIGALRM - 1))),
	      "spawn_note_signals: mask %llx", (unsigned long long)noted.reset_mask);
	run_captured(&noted, "/bin/grep", argv, NULL, &c);
	check(strcmp(c.out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n") == 0,
	      "child signal state with noted signals:\n%s", c.out);
	sigprocmask(SIG_SETMASK, NULL, &after);
	check(sigismember(&after, SIGCHLD) && sigismember(&after, SIGUSR1) &&
	      !sigismember(&after, SIGUSR2) && !sigismember(&after, SIGALRM),
	      "spawn_run must leave the caller's signal mask as it was");
}

static void test_descriptors(void)
{
	char *argv[] = { "ls", "/proc/self/fd", NULL };
	struct capture c;
	int fd = open("/dev/null", O_RDONLY);   /* deliberately inheritable */

	dup2(fd, 100);
	run_captured(&plain_target, "/bin/ls", argv, NULL, &c);
	check(exited_with(&c, 0), "ls status %d", c.status);
	/* 3 is the directory ls itself opened to list. */
	check(strcmp(c.out, "0\n1\n2\n3\n") == 0, "child descriptors:\n%s", c.out);
	close(100);
	close(fd);
}

static void test_environment_and_arguments(void)
{
	char *env_argv[] = { "env", NULL };
	char *envp[] = { "FOO=bar", "TFD_SEQ=7", NULL };
	char *sh_argv[] = { "sh", "-c", "printf '%s|' \"$0\" \"$@\"", "zero", "a", "b c", "",
			    NULL };
	struct capture c;

	run_captured(&plain_target, "/usr/bin/env", env_argv, envp, &c);
	check(exited_with(&c, 0) && strcmp(c.out, "FOO=bar\nTFD_SEQ=7\n") == 0,
	      "env saw:\n%s", c.out);
	run_captured(&plain_target, "/bin/sh", sh_argv, NULL, &c);
	check(strcmp(c.out, "zero|a|b c||") == 0, "arguments seen: '%s'", c.out);
}

static void test_exit_statuses(void)
{
	char *exit42[] = { "sh", "-c", "exit 42", NULL };
	char *selfkill[] = { "sh", "-c", "kill -USR2 $$", NULL };
	char *none[] = { "nope", NULL };
	char p[300];
	struct capture c;

	run_captured(&plain_target, "/bin/sh", exit42, NULL, &c);
	check(exited_with(&c, 42), "exit 42: status %#x", c.status);
	/* The test has a handler for SIGUSR2; the run must not. */
	run_captured(&plain_target, "/bin/sh", selfkill, NULL, &c);
	check(killed_by(c.status, SIGUSR2), "kill -USR2 $$: status %#x", c.status);
	run_captured(NULL, "/bin/sh", exit42, NULL, &c);
	check(exited_with(&c, 42), "NULL target: status %#x", c.status);

	run_captured(&plain_target, "/nonexistent/nope", none, NULL, &c);
	check(exited_with(&c, 127), "missing command: status %#x", c.status);
	check(strcmp(c.err, "tfd: exec '/nonexistent/nope': No such file or directory\n") == 0,
	      "missing command message: '%s'", c.err);
	snprintf(p, sizeof p, "%s/a/prog", scratch);
	run_captured(&plain_target, p, none, NULL, &c);
	check(exited_with(&c, 126), "not executable: status %#x", c.status);
	check(strstr(c.err, "': Permission denied\n") != NULL, "not executable: '%s'", c.err);
	run_captured(&plain_target, "/tmp", none, NULL, &c);
	check(exited_with(&c, 126), "directory: status %#x", c.status);
}

/* A file without "#!" that the kernel will not run (ENOEXEC) is a script
 * for /bin/sh, as execvp(3) runs it: $0 is its path, then the arguments. */
static void test_script_without_shebang(void)
{
	char *args[] = { "name", "a", "b c", NULL };
	char *no_args[] = { NULL };
	char script[300], want[400];
	struct capture c;
	size_t many = 30000;   /* more pointers than the child's stack holds */
	char **long_argv = calloc(many + 1, sizeof *long_argv);

	snprintf(script, sizeof script, "%s/no-shebang", scratch);
	write_file(script, "printf '%s|' \"$0\" \"$#\" \"$@\"\n", 0755);
	run_captured(&plain_target, script, args, NULL, &c);
	snprintf(want, sizeof want, "%s|2|a|b c|", script);
	check(exited_with(&c, 0) && strcmp(c.out, want) == 0 && c.err[0] == '\0',
	      "script without #!: %#x '%s' '%s'", c.status, c.out, c.err);
	run_captured(&plain_target, script, no_args, NULL, &c);
	snprintf(want, sizeof want, "%s|0|", script);
	check(exited_with(&c, 0) && strcmp(c.out, want) == 0,
	      "script without #! and no argv: %#x '%s'", c.status, c.out);
	if (!long_argv)
		return;
	for (size_t i = 0; i < many; i++)
		long_argv[i] = "x";
	run_captured(&plain_target, script, long_argv, NULL, &c);
	snprintf(want, sizeof want, "%s|%zu|x|", script, many - 1);
	check(exited_with(&c, 0) && strncmp(c.out, want, strlen(want)) == 0,
	      "script without #! and %zu arguments: %#x '%.60s'", many, c.status, c.out);
	free(long_argv);
}

static void test_process_group(void)
{
	char *sleeper[] = { "sleep", "30", NULL };
	char *tree[] = { "sh", "-c", "sleep 30 & echo $!; wait", NULL };
	struct redirect r = { 0 };
	const char *what;
	char out[64] = "";
	pid_t pid, bg = 0;
	int status = -1;

	pid = spawn_run(&plain_target, NULL, "/bin/sleep", sleeper, environ, &what);
	check(pid > 0 && getpgid(pid) == pid, "run leads its group: pgid %d pid %d",
	      (int)getpgid(pid), (int)pid);
	status = end_run(pid, SIGTERM, 1);
	check(killed_by(status, SIGTERM), "group SIGTERM: status %#x", status);

	/* Whatever the run started goes with it; as subreaper we collect it. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	redirect_begin(&r);
	pid = spawn_run(&plain_target, NULL, "/bin/sh", tree, environ, &what);
	redirect_end(&r);
	for (int i = 0; i < 500 && sscanf(out, "%d", &bg) != 1; i++) {
		pause_ms(10);
		read_file(r.out_path, out, sizeof out);
	}
	check(bg > 0 && getpgid(bg) == pid, "background child in the run's group");
	status = end_run(pid, SIGTERM, 1);
	check(killed_by(status, SIGTERM), "shell ended by SIGTERM: %#x", status);
	if (bg > 0) {
		waitpid(bg, &status, 0);
		check(killed_by(status, SIGTERM), "its background child too: %#x", status);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
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
static int run_with_io(const struct spawn_target *t, const struct spawn_io *io,
		       char *const argv[], int read_fd, char *buf, size_t len)
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
	status = run_with_io(t, &(struct spawn_io){ { -1, p[1], p[1] }, -1, false, -1 }, argv,
			     p[0], out, sizeof out);
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
	check(status == 0 && strcmp(out, text) == 0, "%s: stdin from a memfd: %#x '%s'",
	      how, status, out);
	close(p[0]);
}

/* Sources that are themselves 0..2: our 1 and 2 (close-on-exec here, as
 * tfd's pipes are) given to the run as they are, or swapped. */
static void check_sources_on_standard_slots(const struct spawn_target *t, const char *how,
					    int swap)
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
	      "%s: io {-1, %d, %d} from close-on-exec 1 and 2: %#x '%s' '%s'", how,
	      io.fd[1], io.fd[2], status, one, two);
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

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
	    ptsname_r(m, name, sizeof name) != 0 ||
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
	check(sscanf(out, "got typed\n%d\n%d %d", &runpid, &pgrp, &tpgid) == 3 &&
	      runpid > 0 && pgrp == runpid && tpgid == runpid,
	      "%s: the run's group leads the terminal: '%s'", how, out);
}

/* The terminal test reads the run's pid and group from /proc: not for a
 * run whose pid is another PID namespace's. */
static void test_io(const struct spawn_target *t, const char *how, int with_terminal)
{
	check_output_into_pipe(t, how);
	check_input_from_memfd(t, how);
	check_sources_on_standard_slots(t, how, 0);
	check_sources_on_standard_slots(t, how, 1);
	if (with_terminal)
		check_terminal(t, how);
}

/* --cgroup */

struct helper;
static int start_helper(struct helper *h, int flags, const char *hostname);
static void stop_helper(struct helper *h);
static int open_join(struct spawn_target *t, pid_t pid);
static void check_cgroup_with_join(struct spawn_target *t, const char *want);

static void expect_cgroup_error(const char *dir, int want_status, const char *want)
{
	struct spawn_target t = plain_target;
	char err[256] = "";
	int status = 0;
	int rc = spawn_open_cgroup(&t, dir, &status, err, sizeof err);

	check(rc == -1 && status == want_status && strcmp(err, want) == 0,
	      "spawn_open_cgroup('%s') = %d, status %d, '%s'; want '%s'", dir, rc,
	      status, err, want);
	check(t.cgroup_fd == -1, "failed spawn_open_cgroup leaves the target alone");
}

static void test_cgroup_errors(void)
{
	char file[128];

	snprintf(file, sizeof file, "%s/garbage", scratch);
	write_file(file, "not a directory\n", 0644);
	expect_cgroup_error("/tmp", 2, "--cgroup '/tmp': not a cgroup v2 directory");
	expect_cgroup_error("/nonexistent/cg", 2,
			    "--cgroup '/nonexistent/cg': no such directory");
	{
		char want[256];

		snprintf(want, sizeof want, "--cgroup '%s': not a directory", file);
		expect_cgroup_error(file, 2, want);
	}
}

/* Finds the cgroup2 mount point in /proc/mounts. */
static int find_cgroup2(char *buf, size_t len)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], dir[256], type[64];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2") == 0) {
			snprintf(buf, len, "%s", dir);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* As an unprivileged user the cgroup must be refused up front. */
static void check_cgroup_refused_to_nobody(const char *dir)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		struct spawn_target t = plain_target;
		char err[256];
		int st = 0;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		_exit(spawn_open_cgroup(&t, dir, &st, err, sizeof err) == -1 && st == 2 &&
		      strstr(err, "permission denied") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "--cgroup as nobody must fail with permission denied (%#x)", status);
}

static void test_cgroup_run(void)
{
	char mnt[256], dir[400], want[300], v1[300];
	char *cat[] = { "cat", "/proc/self/cgroup", NULL };
	char *fail[] = { "nope", NULL };
	struct spawn_target t = plain_target;
	struct capture c;
	char err[256] = "";
	int status = 0;

	if (geteuid() != 0) {
		printf("test_spawn: not root, skipping the --cgroup runs\n");
		return;
	}
	if (!have_syscall(SYS_clone3)) {
		printf("test_spawn: no clone3 here, skipping the --cgroup runs\n");
		return;
	}
	if (!find_cgroup2(mnt, sizeof mnt)) {
		printf("test_spawn: no cgroup2 mount, skipping the --cgroup runs\n");
		return;
	}
	snprintf(v1, sizeof v1, "%s/../cpu", mnt);
	if (access(v1, F_OK) == 0) {
		char want_v1[400];

		snprintf(want_v1, sizeof want_v1, "--cgroup '%s': not a cgroup v2 directory", v1);
		expect_cgroup_error(v1, 2, want_v1);
	}
	snprintf(dir, sizeof dir, "%s/tfd-test-%d", mnt, (int)getpid());
	if (mkdir(dir, 0755) < 0) {
		printf("test_spawn: mkdir %s: %s, skipping the --cgroup runs\n", dir,
		       strerror(errno));
		return;
	}
	check(spawn_open_cgroup(&t, dir, &status, err, sizeof err) == 0,
	      "spawn_open_cgroup('%s'): %d %s", dir, status, err);
	check(t.cgroup_fd >= 0 && (fcntl(t.cgroup_fd, F_GETFD) & FD_CLOEXEC),
	      "cgroup descriptor is close-on-exec");
	if (t.cgroup_fd >= 0) {
		run_captured(&t, "/bin/cat", cat, NULL, &c);
		snprintf(want, sizeof want, "0::/tfd-test-%d\n", (int)getpid());
		check(exited_with(&c, 0) && strstr(c.out, want) != NULL,
		      "run in cgroup: status %#x, /proc/self/cgroup:\n%s", c.status, c.out);
		read_file("/proc/self/cgroup", c.out, sizeof c.out);
		check(strstr(c.out, want) == NULL, "tfd itself stays where it was");
		run_captured(&t, "/nonexistent/nope", fail, NULL, &c);
		check(exited_with(&c, 127), "failed exec in cgroup: %#x", c.status);
		check_cgroup_refused_to_nobody(dir);
		check_cgroup_with_join(&t, want);
	}
	spawn_target_close(&t);
	check(t.cgroup_fd == -1, "spawn_target_close resets the target");
	check(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
}

/* --join */

static void expect_join_error(const char *text, int want_status, const char *want_why)
{
	struct spawn_target t = plain_target;
	char err[256] = "", want[256];
	int status = 0;
	int rc = spawn_open_join(&t, text, &status, err, sizeof err);

	snprintf(want, sizeof want, "--join '%s': %s", text, want_why);
	check(rc == -1 && status == want_status && strcmp(err, want) == 0,
	      "spawn_open_join('%s') = %d, status %d, '%s'; want '%s'", text, rc,
	      status, err, want);
	check(t.join_pidfd == -1, "failed spawn_open_join leaves the target alone");
}

static void test_join_errors(void)
{
	static const char *bad[] = { "abc", "0", "-5", "+5", "12x", "", " 12",
				     "99999999999", "2147483648" };
	struct spawn_target t = plain_target;
	char self[32], err[256] = "";
	char *exit42[] = { "sh", "-c", "exit 42", NULL };
	struct capture c;
	int status = 0;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_join_error(bad[i], 2, "not a process ID");
	if (!have_syscall(SYS_pidfd_open)) {
		printf("test_spawn: no pidfd_open here, skipping the --join runs\n");
		return;
	}
	expect_join_error("2147483647", 2, "no such process");

	/* Joining ourselves enters nothing and still runs. */
	snprintf(self, sizeof self, "%d", (int)getpid());
	check(spawn_open_join(&t, self, &status, err, sizeof err) == 0,
	      "spawn_open_join(self): %s", err);
	check(t.join_pidfd >= 0 && t.join_nstypes == 0 &&
	      (fcntl(t.join_pidfd, F_GETFD) & FD_CLOEXEC),
	      "join self: pidfd %d (close-on-exec), nstypes %#x", t.join_pidfd,
	      t.join_nstypes);
	run_captured(&t, "/bin/sh", exit42, NULL, &c);
	check(exited_with(&c, 42), "run joined to self: %#x", c.status);
	spawn_target_close(&t);
}

/* A helper process in new namespaces, set up and then sleeping: the pid to
 * join is written to a pipe once it is ready. With PIDNS the helper is the
 * init of a new PID namespace, forked from a process that unshared it. */
struct helper {
	pid_t outer;    /* what we reap */
	pid_t target;   /* what we join */
};

static int fork_helper(struct helper *h, int flags, const char *hostname)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		pid_t target = getpid();

		close(fds[0]);
		if (unshare(flags) < 0 || sethostname(hostname, strlen(hostname)) < 0)
			_exit(1);
		if (flags & CLONE_NEWPID) {
			target = fork();
			if (target == 0) {
				for (;;)
					pause();
			}
		}
		if (write(fds[1], &target, sizeof target) != sizeof target)
			_exit(1);
		close(fds[1]);
		if (flags & CLONE_NEWPID) {
			waitpid(target, NULL, 0);
			_exit(0);
		}
		for (;;)
			pause();
	}
	close(fds[1]);
	h->outer = pid;
	if (pid < 0 || read(fds[0], &h->target, sizeof h->target) != sizeof h->target) {
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	return 0;
}

/* As fork_helper, and a failure is a failed check: a test cannot go on
 * without its helper. */
static int start_helper(struct helper *h, int flags, const char *hostname)
{
	if (fork_helper(h, flags, hostname) < 0) {
		check(0, "cannot start the helper %s (namespaces %#x)", hostname, flags);
		return -1;
	}
	return 0;
}

static void stop_helper(struct helper *h)
{
	kill(h->target, SIGKILL);
	kill(h->outer, SIGKILL);
	waitpid(h->outer, NULL, 0);
}

static int open_join(struct spawn_target *t, pid_t pid)
{
	char text[32], err[256] = "";
	int status = 0;

	*t = plain_target;
	snprintf(text, sizeof text, "%d", (int)pid);
	if (spawn_open_join(t, text, &status, err, sizeof err) < 0) {
		check(0, "spawn_open_join(%s): %d %s", text, status, err);
		return -1;
	}
	return 0;
}

/* --cgroup and --join together: the forked child is cloned into the cgroup
 * and then enters the namespaces. */
static void check_cgroup_with_join(struct spawn_target *t, const char *want)
{
	char *both[] = { "sh", "-c", "cat /proc/self/cgroup; hostname", NULL };
	struct spawn_target joined;
	struct helper h;
	struct capture c;

	if (!have_syscall(SYS_pidfd_open))
		return;
	if (start_helper(&h, CLONE_NEWUTS, "tfd-cg-join") < 0)
		return;
	if (open_join(&joined, h.target) == 0) {
		joined.cgroup_fd = t->cgroup_fd;
		run_captured(&joined, "/bin/sh", both, NULL, &c);
		check(exited_with(&c, 0) && strstr(c.out, want) &&
		      strstr(c.out, "\ntfd-cg-join\n"),
		      "--cgroup with --join: %#x\n%s", c.status, c.out);
		close(joined.join_pidfd);
	}
	stop_helper(&h);
}

static void test_join_uts_net(void)
{
	char *hostname[] = { "hostname", NULL };
	/* Interfaces have a ':' in the table, the two heading lines do not;
	 * a new network namespace has lo only. */
	char *links[] = { "grep", "-c", ":", "/proc/self/net/dev", NULL };
	char *fds[] = { "ls", "/proc/self/fd", NULL };
	char *exit42[] = { "sh", "-c", "exit 42", NULL };
	char *sleeper[] = { "sleep", "30", NULL };
	struct spawn_target t;
	struct helper h;
	struct capture c;
	const char *what;
	pid_t pid;
	int status = -1;

	if (start_helper(&h, CLONE_NEWUTS | CLONE_NEWNET, "tfd-join-test") < 0)
		return;
	if (open_join(&t, h.target) == 0) {
		check(t.join_nstypes == (CLONE_NEWUTS | CLONE_NEWNET),
		      "nstypes %#x, want uts|net", t.join_nstypes);
		run_captured(&t, "/bin/hostname", hostname, NULL, &c);
		check(exited_with(&c, 0) && strcmp(c.out, "tfd-join-test\n") == 0,
		      "joined hostname: '%s'", c.out);
		run_captured(&t, "/bin/grep", links, NULL, &c);
		check(strcmp(c.out, "1\n") == 0, "joined network interfaces: '%s'", c.out);
		run_captured(&t, "/bin/ls", fds, NULL, &c);
		check(strcmp(c.out, "0\n1\n2\n3\n") == 0, "joined descriptors:\n%s", c.out);
		run_captured(&t, "/bin/sh", exit42, NULL, &c);
		check(exited_with(&c, 42), "joined exit 42: %#x", c.status);
		test_io(&t, "joined uts+net", 1);

		pid = spawn_run(&t, NULL, "/bin/sleep", sleeper, environ, &what);
		check(pid > 0 && getpgid(pid) == pid,
		      "forked run leads its group at once: pgid %d pid %d",
		      (int)getpgid(pid), (int)pid);
		status = end_run(pid, SIGTERM, 1);
		check(killed_by(status, SIGTERM), "joined group SIGTERM: %#x", status);
	}
	stop_helper(&h);
	/* The pidfd still names the dead helper: setns fails in the child. */
	if (t.join_pidfd >= 0) {
		run_captured(&t, "/bin/hostname", hostname, NULL, &c);
		check(exited_with(&c, 125) &&
		      strcmp(c.err, "tfd: setns (--join): No such process\n") == 0,
		      "join a dead process: %#x '%s'", c.status, c.err);
	}
	spawn_target_close(&t);
}

/* The relay closes tfd's descriptors; wait until it has. Read from /proc
 * directly: popen would start its shell with posix_spawn, which the C
 * library makes fail where clone3 answers EPERM. */
static int count_fds(pid_t pid)
{
	char dir[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_join_pid_namespace(void)
{
	char *ids[] = { "sh", "-c",
			"while read k v; do [ \"$k\" = NSpid: ] && echo \"$v\"; done "
			"</proc/self/status; hostname", NULL };
	char *exit42[] = { "sh", "-c", "exit 42", NULL };
	char *term[] = { "sh", "-c", "kill -TERM $$", NULL };
	char *segv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	char *sleeper[] = { "sleep", "30", NULL };
	struct spawn_target t;
	struct helper h;
	struct capture c;
	const char *what;
	int outer = 0, inner = 0, status = -1, nfds = -1;
	char host[64] = "";
	pid_t pid;

	if (start_helper(&h, CLONE_NEWPID | CLONE_NEWUTS, "tfd-pidns") < 0)
		return;
	if (open_join(&t, h.target) < 0) {
		stop_helper(&h);
		return;
	}
	check(t.join_nstypes == (CLONE_NEWPID | CLONE_NEWUTS), "nstypes %#x, want pid|uts",
	      t.join_nstypes);
	run_captured(&t, "/bin/sh", ids, NULL, &c);
	check(exited_with(&c, 0) && sscanf(c.out, "%d %d %63s", &outer, &inner, host) == 3 &&
	      outer != inner && inner > 1 && strcmp(host, "tfd-pidns") == 0,
	      "run inside the PID namespace: %#x '%s'", c.status, c.out);
	check(outer != c.pid, "the command is the relay's child, not the relay");
	test_io(&t, "joined pid namespace", 0);

	run_captured(&t, "/bin/sh", exit42, NULL, &c);
	check(exited_with(&c, 42), "relay mirrors exit 42: %#x", c.status);
	run_captured(&t, "/bin/sh", term, NULL, &c);
	check(killed_by(c.status, SIGTERM), "relay mirrors SIGTERM: %#x", c.status);
	run_captured(&t, "/bin/sh", segv, NULL, &c);
	check(killed_by(c.status, SIGSEGV) && !WCOREDUMP(c.status),
	      "relay mirrors SIGSEGV without a core: %#x", c.status);

	pid = spawn_run(&t, NULL, "/bin/sleep", sleeper, environ, &what);
	check(pid > 0 && getpgid(pid) == pid, "relay leads the group");
	for (int i = 0; i < 200 && (nfds = count_fds(pid)) > 3; i++)
		pause_ms(10);
	check(nfds == 3, "relay keeps only 0, 1, 2 (has %d)", nfds);
	/* Only the relay gets the signal; it passes it on. */
	status = end_run(pid, SIGTERM, 0);
	check(killed_by(status, SIGTERM), "relayed SIGTERM ends the run: %#x", status);

	spawn_target_close(&t);
	stop_helper(&h);
}

static void test_join_refused_to_nobody(void)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		struct spawn_target t = plain_target;
		char err[256] = "";
		int st = 0;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		_exit(spawn_open_join(&t, "1", &st, err, sizeof err) == -1 && st == 2 &&
		      strcmp(err, "--join '1': permission denied") == 0 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "--join 1 as nobody must fail with permission denied (%#x)", status);
}

static void test_join_runs(void)
{
	if (geteuid() != 0) {
		printf("test_spawn: not root, skipping the --join runs\n");
		return;
	}
	if (!have_syscall(SYS_pidfd_open))
		return;
	test_join_uts_net();
	test_join_pid_namespace();
	test_join_refused_to_nobody();
}

/* Without clone3 */

/* Makes clone3 fail with ERR in this process from now on, as a container
 * runtime's seccomp profile (EPERM) or an old kernel (ENOSYS) would: a
 * real filter, not a stand-in. Returns 0, or -1 where filters cannot be
 * installed (then the caller skips). */
static int refuse_clone3(int err)
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

/* --cgroup needs clone3: refused, it is an error at start, status 1. */
static void check_cgroup_needs_clone3(int err)
{
	char mnt[256], err_text[256] = "";
	struct spawn_target t = plain_target;
	int status = 0;

	if (geteuid() != 0 || !find_cgroup2(mnt, sizeof mnt))
		return;
	check(spawn_open_cgroup(&t, mnt, &status, err_text, sizeof err_text) == -1 &&
	      status == 1 && strstr(err_text, err == EPERM ? "not permitted" : "not available"),
	      "--cgroup without clone3 (%s): status %d '%s'", strerror(err), status, err_text);
}

/* The tests of plain and joined runs once more, in a child process where
 * clone3 fails with ERR: every run must still start. */
static void test_without_clone3(int err)
{
	char how[64];
	int status = -1;
	pid_t pid;

	if (err != ENOSYS && !have_syscall(SYS_clone3)) {
		printf("test_spawn: clone3 is missing already, skipping the runs where it fails with %s\n",
		       strerror(err));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct clone3_probe { uint64_t flags, pidfd, child_tid, parent_tid, exit_signal; } probe = { 0 };

		if (refuse_clone3(err) < 0) {
			printf("test_spawn: no seccomp filter here (%s), skipping the runs without clone3\n",
			       strerror(errno));
			_exit(0);
		}
		probe.exit_signal = SIGCHLD;
		check(syscall(SYS_clone3, &probe, sizeof probe) == -1 && errno == err,
		      "the filter makes clone3 fail with %s", strerror(err));
		snprintf(how, sizeof how, "without clone3 (%s)", strerror(err));
		test_environment_and_arguments();
		test_descriptors();
		test_exit_statuses();
		test_script_without_shebang();
		test_process_group();
		test_io(&plain_target, how, 1);
		test_signal_state();
		check_cgroup_needs_clone3(err);
		test_join_runs();
		_exit(tally.failed ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "runs without clone3 (%s): %#x (failures above)", strerror(err), status);
}

/* Timing, on request */

/* src/spawn.h shadows the C library's <spawn.h> on our include path. */
extern int posix_spawn(pid_t *pid, const char *path, const void *file_actions,
		       const void *attr, char *const argv[], char *const envp[]);

static int64_t time_runs(int how, int n)
{
	char *argv[] = { "true", NULL };
	const char *what;
	int64_t start = now_ns();

	for (int i = 0; i < n; i++) {
		pid_t pid = -1;

		if (how == 0) {
			pid = spawn_run(&plain_target, NULL, "/bin/true", argv, environ, &what);
		} else if (how == 1) {
			if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) != 0)
				pid = -1;
		} else {
			pid = fork();
			if (pid == 0) {
				execve("/bin/true", argv, environ);
				_exit(127);
			}
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return (now_ns() - start) / n;
}

/* One line of the comparison. The last row is spawn_run where clone3 is
 * refused (its clone(2) fallback: the vfork-like path of every other
 * architecture), timed in a child process that installs the filter. */
static void bench_row(int how, const char *memory)
{
	static const char *names[] = { "spawn_run", "posix_spawn", "fork+execve",
				       "spawn_run, clone3 refused" };
	pid_t pid;

	if (how < 3) {
		printf("bench: %-26s %6lld us per run (%s)\n", names[how],
		       (long long)time_runs(how, 1000) / 1000, memory);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (refuse_clone3(ENOSYS) == 0)
			printf("bench: %-26s %6lld us per run (%s)\n", names[how],
			       (long long)time_runs(0, 1000) / 1000, memory);
		fflush(stdout);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void bench(void)
{
	size_t big = (size_t)512 << 20;
	char *mem;

	for (int how = 0; how < 4; how++)
		bench_row(how, "small process");
	/* Small pages, so that copying the page tables costs what it would
	 * for a process whose memory is scattered. */
	mem = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return;
	madvise(mem, big, MADV_NOHUGEPAGE);
	memset(mem, 1, big);
	for (int how = 0; how < 4; how++)
		bench_row(how, "512 MiB touched");
	munmap(mem, big);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(scratch, sizeof scratch, "/tmp/test_spawn.XXXXXX");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	test_resolve();
	test_environment_and_arguments();
	test_descriptors();
	test_exit_statuses();
	test_script_without_shebang();
	test_process_group();
	test_io(&plain_target, "plain", 1);
	test_signal_state();
	test_cgroup_errors();
	test_cgroup_run();
	test_join_errors();
	test_join_runs();
	test_without_clone3(ENOSYS);
	test_without_clone3(EPERM);
	if (getenv("TFD_SPAWN_BENCH"))
		bench();
	harness_remove_tree(scratch);
	return tally_finish(&tally, "test_spawn");
}
