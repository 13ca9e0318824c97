/* SPDX-License-Identifier: MIT */
/* test_target: --cgroup and --join (target.c's checks, and runs started
 * in them through spawn_run), as root against a throwaway cgroup and
 * namespaces: what is refused up front and why, a run in the cgroup, a run
 * in another process's UTS, network and PID namespaces (its descriptors
 * and terminal too), and the same where clone3 is refused. The corpus and
 * vector folders are not used. */
#include "harness.h"
#include "spawn.h"
#include "spawnkit.h"
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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
	      "spawn_open_cgroup('%s') = %d, status %d, '%s'; want '%s'", dir, rc, status, err,
	      want);
	check(t.cgroup_fd == -1, "failed spawn_open_cgroup leaves the target alone");
}

static void test_cgroup_errors(void)
{
	char file[128];

	snprintf(file, sizeof file, "%s/garbage", scratch);
	write_file(file, "not a directory\n", 0644);
	expect_cgroup_error("/tmp", 2, "--cgroup '/tmp': not a cgroup v2 directory");
	expect_cgroup_error("/nonexistent/cg", 2, "--cgroup '/nonexistent/cg': no such directory");
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
		/* clang-format off */
		_exit(spawn_open_cgroup(&t, dir, &st, err, sizeof err) == -1 && st == 2 &&
		      strstr(err, "permission denied") ? 0 : 1);
		/* clang-format on */
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
		printf("test_target: not root, skipping the --cgroup runs\n");
		return;
	}
	if (!have_syscall(SYS_clone3)) {
		printf("test_target: no clone3 here, skipping the --cgroup runs\n");
		return;
	}
	if (!find_cgroup2(mnt, sizeof mnt)) {
		printf("test_target: no cgroup2 mount, skipping the --cgroup runs\n");
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
		printf("test_target: mkdir %s: %s, skipping the --cgroup runs\n", dir,
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
	      "spawn_open_join('%s') = %d, status %d, '%s'; want '%s'", text, rc, status, err,
	      want);
	check(t.join_pidfd == -1, "failed spawn_open_join leaves the target alone");
}

static void test_join_errors(void)
{
	static const char *bad[] = { "abc", "0",   "-5",          "+5",        "12x",
				     "",    " 12", "99999999999", "2147483648" };
	struct spawn_target t = plain_target;
	char self[32], err[256] = "";
	char *exit42[] = { "sh", "-c", "exit 42", NULL };
	struct capture c;
	int status = 0;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_join_error(bad[i], 2, "not a process ID");
	if (!have_syscall(SYS_pidfd_open)) {
		printf("test_target: no pidfd_open here, skipping the --join runs\n");
		return;
	}
	expect_join_error("2147483647", 2, "no such process");

	/* Joining ourselves enters nothing and still runs. */
	snprintf(self, sizeof self, "%d", (int)getpid());
	check(spawn_open_join(&t, self, &status, err, sizeof err) == 0, "spawn_open_join(self): %s",
	      err);
	check(t.join_pidfd >= 0 && t.join_nstypes == 0 &&
		      (fcntl(t.join_pidfd, F_GETFD) & FD_CLOEXEC),
	      "join self: pidfd %d (close-on-exec), nstypes %#x", t.join_pidfd, t.join_nstypes);
	run_captured(&t, "/bin/sh", exit42, NULL, &c);
	check(exited_with(&c, 42), "run joined to self: %#x", c.status);
	spawn_target_close(&t);
}

/* A helper process in new namespaces, set up and then sleeping: the pid to
 * join is written to a pipe once it is ready. With PIDNS the helper is the
 * init of a new PID namespace, forked from a process that unshared it. */
struct helper {
	pid_t outer;  /* what we reap */
	pid_t target; /* what we join */
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
		check(exited_with(&c, 0) && strstr(c.out, want) && strstr(c.out, "\ntfd-cg-join\n"),
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
		check(t.join_nstypes == (CLONE_NEWUTS | CLONE_NEWNET), "nstypes %#x, want uts|net",
		      t.join_nstypes);
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
		      "forked run leads its group at once: pgid %d pid %d", (int)getpgid(pid),
		      (int)pid);
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
			"</proc/self/status; hostname",
			NULL };
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
		/* clang-format off */
		_exit(spawn_open_join(&t, "1", &st, err, sizeof err) == -1 && st == 2 &&
		      strcmp(err, "--join '1': permission denied") == 0 ? 0 : 1);
		/* clang-format on */
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "--join 1 as nobody must fail with permission denied (%#x)", status);
}

static void test_join_runs(void)
{
	if (geteuid() != 0) {
		printf("test_target: not root, skipping the --join runs\n");
		return;
	}
	if (!have_syscall(SYS_pidfd_open))
		return;
	test_join_uts_net();
	test_join_pid_namespace();
	test_join_refused_to_nobody();
}

/* Without clone3 */

/* --cgroup needs clone3: refused, it is an error at start, status 1. */
static void check_cgroup_needs_clone3(int err)
{
	char mnt[256], err_text[256] = "";
	struct spawn_target t = plain_target;
	int status = 0;

	if (geteuid() != 0 || !find_cgroup2(mnt, sizeof mnt))
		return;
	check(spawn_open_cgroup(&t, mnt, &status, err_text, sizeof err_text) == -1 && status == 1 &&
		      strstr(err_text, err == EPERM ? "not permitted" : "not available"),
	      "--cgroup without clone3 (%s): status %d '%s'", strerror(err), status, err_text);
}

/* The --cgroup check and the joined runs once more (in
 * run_without_clone3's child). */
static void joined_runs(int err)
{
	check_cgroup_needs_clone3(err);
	test_join_runs();
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	scratch_make("test_target");
	test_cgroup_errors();
	test_cgroup_run();
	test_join_errors();
	test_join_runs();
	run_without_clone3(ENOSYS, "test_target", joined_runs);
	run_without_clone3(EPERM, "test_target", joined_runs);
	harness_remove_tree(scratch);
	return tally_finish(&tally, "test_target");
}
