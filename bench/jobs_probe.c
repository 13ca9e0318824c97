/* SPDX-License-Identifier: MIT */
/*
 * jobs_probe — how long a daemon takes to load and arm, whether it then
 * stays asleep, and how long a reload takes, measured from outside.
 *
 * Usage: jobs_probe [-w WAIT_MS] [-H] [-q QUIET_MS] -- COMMAND [ARG...]
 *
 * COMMAND starts with its stdout on a pipe that the probe reads, stamping
 * each line (stderr is inherited).  Its exec is stamped when a close-on-exec
 * pipe reaches EOF.  Then every 100 µs the probe reads /proc/PID/syscall and
 * /proc/PID/schedstat: the child is idle once it sleeps in poll/ppoll and its
 * CPU time stays the same for QUIET_MS (default 50) ms; idle_ms is the first
 * sample of that stretch, counted from the exec, and idle_cpu_ms the CPU time
 * the child had used by then.  Blocking in poll is how tfd waits for its
 * timers, so this is the end of load + arm.  It is the kernel's view, with no
 * ptrace slowing the child's system calls down (strace would multiply a
 * start-up made of many calls).
 *
 * -w WAIT_MS: then sleeps WAIT_MS and reports the voluntary and involuntary
 *   context switches and the CPU time the child had meanwhile (a program
 *   asleep in poll makes one voluntary switch per wake-up).
 * -H: then sends SIGHUP and reports when the first stdout line holding
 *   "reload" arrived (reload_ms, from the kill()) and the line itself, the
 *   time until the child is idle again (reload_idle_ms) and the CPU that
 *   took; "seq" of the last tick line before the HUP and of the first one
 *   after it (tick_seq_before, tick_seq_after) show whether counters
 *   survived.
 *
 * At the end the child gets SIGTERM; one line of key=value pairs goes to
 * stdout, with VmHWM (kB) read while the child is still alive.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtime.h"

#define NS_PER_MS INT64_C(1000000)
#define SAMPLE_NS INT64_C(100000)
#define GIVE_UP_NS (INT64_C(600) * 1000 * NS_PER_MS)

struct child {
	pid_t pid;
	int out;		/* its stdout */
	int64_t exec_ns;
	char buf[1 << 16];	/* a partial line */
	size_t len;
	long last_seq;		/* "seq" of the last tick line */
	char reload_line[512];
	int64_t reload_at;	/* when a "reload" line arrived; 0: none yet */
};

static void die(const char *what)
{
	fprintf(stderr, "jobs_probe: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t parse_ms(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "jobs_probe: invalid number '%s'\n", s);
		exit(2);
	}
	return v;
}


/* Whether the child is blocked in poll() or ppoll(), per /proc/PID/syscall
 * (its first field is the number of the call it sleeps in). */
static int in_poll(pid_t pid)
{
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
#ifdef SYS_poll
	if (nr == SYS_poll)
		return 1;
#endif
	return nr == SYS_ppoll;
}

/* A "Name: value" field of /proc/PID/status, or -1. */
static long status_field(pid_t pid, const char *name)
{
	char path[64], line[256];
	size_t len = strlen(name);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, name, len) && line[len] == ':')
			v = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

static long switches(pid_t pid, const char *which)
{
	return status_field(pid, which);
}

/* The number after "KEY": in LINE, or -1. */
static long json_number(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static void take_line(struct child *c, char *line, int64_t at)
{
	if (strstr(line, "\"reload\"") && !c->reload_at) {
		c->reload_at = at;
		snprintf(c->reload_line, sizeof c->reload_line, "%.500s", line);
	} else if (strstr(line, "\"tick\"")) {
		c->last_seq = json_number(line, "\"seq\":");
	}
}

/* Reads what the child wrote, if anything, within TIMEOUT_MS; each whole
 * line goes to take_line, stamped with the time the read returned. */
static void drain(struct child *c, int timeout_ms)
{
	struct pollfd p = { .fd = c->out, .events = POLLIN };
	ssize_t got;

	if (c->out < 0 || poll(&p, 1, timeout_ms) <= 0)
		return;
	got = read(c->out, c->buf + c->len, sizeof c->buf - 1 - c->len);
	if (got <= 0) {
		close(c->out);
		c->out = -1;
		return;
	}
	int64_t at = now_ns();
	char *start = c->buf, *nl;

	c->len += (size_t)got;
	c->buf[c->len] = '\0';
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		take_line(c, start, at);
		start = nl + 1;
	}
	c->len -= (size_t)(start - c->buf);
	memmove(c->buf, start, c->len);
	if (c->len == sizeof c->buf - 1)
		c->len = 0;	/* a line longer than the buffer: dropped */
}

static void pause_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Whether the child has exited (left as a zombie, to be reaped later). */
static int exited(pid_t pid)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/*
 * Samples the child until it has slept in poll with no CPU used for
 * QUIET_NS; returns the time of the first sample of that stretch, or -1 if
 * the child died or took GIVE_UP_NS.
 */
static int64_t wait_idle(struct child *c, int64_t quiet_ns)
{
	int64_t began = now_ns(), since = -1, cpu_then = -1;

	while (now_ns() - began < GIVE_UP_NS) {
		drain(c, 0);
		int64_t t = now_ns(), cpu = own_cpu_ns(c->pid);

		if (cpu < 0 || exited(c->pid))
			return -1;
		if (in_poll(c->pid) && cpu == cpu_then) {
			if (since < 0)
				since = t;
			if (t - since >= quiet_ns)
				return since;
		} else if (in_poll(c->pid)) {
			since = t;	/* asleep now; its CPU count is this */
			cpu_then = cpu;
		} else {
			since = -1;
			cpu_then = -1;
		}
		pause_ns(SAMPLE_NS);
	}
	return -1;
}

static void start_child(struct child *c, char **argv)
{
	int fds[2], exec_pipe[2];
	char x;

	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(exec_pipe, O_CLOEXEC) < 0)
		die("pipe2");
	if ((c->pid = fork()) < 0)
		die("fork");
	if (c->pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "jobs_probe: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	close(exec_pipe[1]);
	while (read(exec_pipe[0], &x, 1) < 0 && errno == EINTR)
		;
	c->exec_ns = now_ns();
	close(exec_pipe[0]);
	c->out = fds[0];
	c->last_seq = -1;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static void wait_figures(struct child *c, int64_t wait_ms)
{
	long v0 = switches(c->pid, "voluntary_ctxt_switches");
	long i0 = switches(c->pid, "nonvoluntary_ctxt_switches");
	int64_t cpu0 = own_cpu_ns(c->pid), end = now_ns() + wait_ms * NS_PER_MS;

	while (now_ns() < end)
		drain(c, (int)((end - now_ns()) / NS_PER_MS) + 1);
	printf(" wait_ms=%" PRId64 " wait_nvcsw=%ld wait_nivcsw=%ld wait_cpu_us=%.1f", wait_ms,
	       switches(c->pid, "voluntary_ctxt_switches") - v0,
	       switches(c->pid, "nonvoluntary_ctxt_switches") - i0,
	       (double)(own_cpu_ns(c->pid) - cpu0) / 1e3);
}

static void reload_figures(struct child *c, int64_t quiet_ns)
{
	long before = c->last_seq;
	int64_t cpu0 = own_cpu_ns(c->pid), sent, idle;

	c->reload_at = 0;
	sent = now_ns();
	if (kill(c->pid, SIGHUP) < 0)
		die("kill");
	while (!c->reload_at && c->out >= 0 && now_ns() - sent < GIVE_UP_NS)
		drain(c, 100);
	idle = wait_idle(c, quiet_ns);
	printf(" reload_ms=%.3f reload_idle_ms=%.3f reload_cpu_ms=%.3f",
	       c->reload_at ? ms(c->reload_at - sent) : -1.0, idle < 0 ? -1.0 : ms(idle - sent),
	       ms(own_cpu_ns(c->pid) - cpu0));
	/* A tick after the reload, to show whether its counter went on. */
	c->last_seq = -1;
	for (int k = 0; k < 30 && c->last_seq < 0 && c->out >= 0; k++)
		drain(c, 100);
	printf(" tick_seq_before=%ld tick_seq_after=%ld reload_line=", before, c->last_seq);
	for (const char *p = c->reload_line; *p; p++)
		putchar(*p == ' ' ? '_' : *p);
}

int main(int argc, char **argv)
{
	int64_t wait_ms = 0, quiet_ns = 50 * NS_PER_MS, idle;
	int hup = 0, opt, status;
	static struct child c;

	while ((opt = getopt(argc, argv, "+w:Hq:")) != -1) {
		switch (opt) {
		case 'w': wait_ms = parse_ms(optarg); break;
		case 'H': hup = 1; break;
		case 'q': quiet_ns = parse_ms(optarg) * NS_PER_MS; break;
		default:
			fprintf(stderr, "usage: jobs_probe [-w WAIT_MS] [-H] [-q QUIET_MS] -- COMMAND [ARG...]\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "jobs_probe: no command\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	start_child(&c, argv + optind);
	idle = wait_idle(&c, quiet_ns);
	if (idle < 0) {
		while (c.out >= 0)
			drain(&c, 1000);
		waitpid(c.pid, &status, 0);
		printf("idle_ms=-1 exit=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return 1;
	}
	printf("idle_ms=%.3f idle_cpu_ms=%.3f", ms(idle - c.exec_ns), ms(own_cpu_ns(c.pid)));
	if (wait_ms)
		wait_figures(&c, wait_ms);
	if (hup)
		reload_figures(&c, quiet_ns);
	printf(" vmhwm_kb=%ld vmrss_kb=%ld", status_field(c.pid, "VmHWM"), status_field(c.pid, "VmRSS"));
	kill(c.pid, SIGTERM);
	while (c.out >= 0)
		drain(&c, 1000);
	if (waitpid(c.pid, &status, 0) < 0)
		die("waitpid");
	printf(" exit=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
