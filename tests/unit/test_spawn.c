/* SPDX-License-Identifier: MIT */
/* test_spawn: starts real runs through spawn_run and checks what the child
 * sees (environment, descriptors, signal state, process group, its
 * descriptors and terminal), how runs end, a script without "#!", and all
 * of it again where clone3 is refused. --cgroup and --join runs are
 * test_target's, the command lookup test_pathsearch's. The corpus and
 * vector folders are not used. TFD_SPAWN_BENCH=1 adds a timing comparison
 * (printed, never asserted). */
#include "harness.h"
#include "spawn.h"
#include "spawnkit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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
	int fd = open("/dev/null", O_RDONLY); /* deliberately inheritable */

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
	char *sh_argv[] = {
		"sh", "-c", "printf '%s|' \"$0\" \"$@\"", "zero", "a", "b c", "", NULL
	};
	struct capture c;

	run_captured(&plain_target, "/usr/bin/env", env_argv, envp, &c);
	check(exited_with(&c, 0) && strcmp(c.out, "FOO=bar\nTFD_SEQ=7\n") == 0, "env saw:\n%s",
	      c.out);
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
	snprintf(p, sizeof p, "%s/not-executable", scratch);
	write_file(p, "#!/bin/sh\n", 0644);
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
	size_t many = 30000; /* more pointers than the child's stack holds */
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

/* Without clone3 */

/* The tests above once more (in run_without_clone3's child). */
static void plain_runs(int err)
{
	char how[64];

	snprintf(how, sizeof how, "without clone3 (%s)", strerror(err));
	test_environment_and_arguments();
	test_descriptors();
	test_exit_statuses();
	test_script_without_shebang();
	test_process_group();
	test_io(&plain_target, how, 1);
	test_signal_state();
}

/* Timing, on request */

/* src/run/spawn.h shadows the C library's <spawn.h> on our include path. */
extern int posix_spawn(pid_t *pid, const char *path, const void *file_actions, const void *attr,
		       char *const argv[], char *const envp[]);

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
	scratch_make("test_spawn");
	test_environment_and_arguments();
	test_descriptors();
	test_exit_statuses();
	test_script_without_shebang();
	test_process_group();
	test_io(&plain_target, "plain", 1);
	test_signal_state();
	run_without_clone3(ENOSYS, "test_spawn", plain_runs);
	run_without_clone3(EPERM, "test_spawn", plain_runs);
	if (getenv("TFD_SPAWN_BENCH"))
		bench();
	harness_remove_tree(scratch);
	return tally_finish(&tally, "test_spawn");
}
