/* SPDX-License-Identifier: MIT */
/*
 * lateness — run a ticker with stdout on a pipe and measure it from outside.
 *
 * Usage: lateness [-i INTERVAL_NS] [-n COUNT] [-l LEAD_MS] [-k KILL_MS]
 *                 [-s SAMPLE_MS] [-o FILE | -O FILE] [-r] -- COMMAND [ARG...]
 *
 * The harness picks an absolute CLOCK_REALTIME start T, LEAD_MS in the future,
 * and replaces these placeholders in the arguments of COMMAND:
 *   {T}   T as Unix seconds with nine fraction digits (for `tfd --at @{T}`)
 *   {Tns} T in nanoseconds            {I}   the interval as decimal seconds
 *   {Ins} the interval in nanoseconds {N}   COUNT
 * Every line COMMAND prints is stamped with CLOCK_REALTIME when the read()
 * that completes it returns.  A line is "seq lateness_us expirations"; its
 * scheduled time is T + (expirations so far - 1) * INTERVAL, so a line that
 * follows missed ticks is scored against the newest tick it reports, not the
 * first one it missed.
 *
 * One line of key=value pairs goes to stdout at the end: lateness on arrival
 * (p50/p90/p99/max, µs), the lateness COMMAND reported itself, missed ticks,
 * wall time, exit status, and what the kernel counted for the child:
 * voluntary context switches read from /proc/PID/status while the child is a
 * zombie (so the last wake-up is counted), its own CPU time from
 * /proc/PID/schedstat at the same moment, peak RSS (VmHWM) sampled from
 * /proc/PID/status while it runs, and ru_maxrss and CPU time (with its
 * children's) from wait4().  wall_us runs from fork to exit; exec_wall_us
 * from the moment the exec succeeded (a close-on-exec pipe reaches EOF) to
 * exit, so it leaves out what it costs to start a process; last_line_us is
 * when the last line arrived, from the same moment.
 *
 * With -s, every sample also reads voluntary_ctxt_switches, and the report
 * lists where the count changed: nvcsw_first=C (the first sample) and
 * nvcsw_steps=MS:C,... (ms after the exec, new count), which shows whether
 * the program woke up only when it was due to.
 *
 * -o FILE copies what COMMAND prints to FILE as well; -O FILE sends it
 * straight to FILE instead of the pipe, so that no reader wakes up per line
 * (nothing is scored then).
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtime.h"

#define NS_PER_MS INT64_C(1000000)

struct options {
	int64_t interval;	/* ns; 0 turns scoring off */
	int64_t count;
	int64_t lead_ms;
	int64_t kill_ms;	/* SIGTERM the child after this long; 0: never */
	int64_t sample_ms;	/* sample /proc/PID/status this often; 0: never */
	const char *save;	/* copy the child's output here */
	const char *direct;	/* the child's stdout goes straight here */
	int raw;		/* do not parse lines */
	char **argv;
};

/* A growable array of nanosecond samples. */
struct series {
	int64_t *v;
	size_t n, cap;
};

struct tally {
	struct series arrival;	/* lateness on arrival, ns */
	struct series self;	/* lateness the program reported, ns */
	int64_t lines, unparsed, expirations, missed;
	int64_t last_read_ns;	/* CLOCK_MONOTONIC of the last read with data */
};

struct child_report {
	int64_t wall_ns;
	int status;
	long nvcsw, nivcsw, vmhwm_kb;
	int64_t own_cpu_ns;	/* the child's own, without its children's */
	int64_t exec_ns;	/* CLOCK_MONOTONIC when its exec succeeded */
	struct rusage ru;
};

/* Where the child's voluntary context switch count changed while sampled. */
#define MAX_STEPS 64

struct switch_steps {
	long first;		/* at the first sample; -1 before it */
	long last;
	size_t n;
	int64_t at_ms[MAX_STEPS];	/* after the exec */
	long count[MAX_STEPS];
};

static void die(const char *what)
{
	fprintf(stderr, "lateness: %s: %s\n", what, strerror(errno));
	exit(1);
}


static void series_push(struct series *s, int64_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (!s->v)
			die("realloc");
	}
	s->v[s->n++] = x;
}

/* Options */

static int64_t parse_number(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "lateness: invalid number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: lateness [-i INTERVAL_NS] [-n COUNT] [-l LEAD_MS] "
			"[-k KILL_MS] [-s SAMPLE_MS] [-o FILE | -O FILE] [-r] -- COMMAND [ARG...]\n");
	exit(2);
}

static struct options parse_options(int argc, char **argv)
{
	struct options o = { .lead_ms = 300 };
	int c;

	while ((c = getopt(argc, argv, "+i:n:l:k:s:o:O:r")) != -1) {
		switch (c) {
		case 'i': o.interval = parse_number(optarg); break;
		case 'n': o.count = parse_number(optarg); break;
		case 'l': o.lead_ms = parse_number(optarg); break;
		case 'k': o.kill_ms = parse_number(optarg); break;
		case 's': o.sample_ms = parse_number(optarg); break;
		case 'o': o.save = optarg; break;
		case 'O': o.direct = optarg; break;
		case 'r': o.raw = 1; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	o.argv = argv + optind;
	return o;
}

/* Placeholders */

/* Seconds with nine fraction digits, trailing zeros (and a bare dot) dropped. */
static void format_seconds(char *buf, size_t size, int64_t ns, int trim)
{
	int len = snprintf(buf, size, "%" PRId64 ".%09" PRId64, ns / NS_PER_S, ns % NS_PER_S);

	while (trim && len > 0 && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (trim && len > 0 && buf[len - 1] == '.')
		buf[--len] = '\0';
}

static char *substitute(const char *arg, int64_t start, const struct options *o)
{
	char t[32], tns[32], i[32], ins[32], n[32];
	const char *names[] = { "{Tns}", "{T}", "{Ins}", "{I}", "{N}" };
	const char *values[] = { tns, t, ins, i, n };
	size_t size = strlen(arg) * 8 + 1;
	char *out = malloc(size), *p = out;

	if (!out)
		die("malloc");
	format_seconds(t, sizeof t, start, 0);
	snprintf(tns, sizeof tns, "%" PRId64, start);
	format_seconds(i, sizeof i, o->interval, 1);
	snprintf(ins, sizeof ins, "%" PRId64, o->interval);
	snprintf(n, sizeof n, "%" PRId64, o->count);
	while (*arg) {
		size_t k;

		for (k = 0; k < 5; k++)
			if (!strncmp(arg, names[k], strlen(names[k])))
				break;
		if (k < 5) {
			p += sprintf(p, "%s", values[k]);
			arg += strlen(names[k]);
		} else {
			*p++ = *arg++;
		}
	}
	*p = '\0';
	return out;
}

/* Scoring */

/* Reads a decimal microsecond count such as "-12.345" as nanoseconds. */
static int parse_micros(const char *s, char **end, int64_t *ns)
{
	int neg = (*s == '-');
	int64_t whole = 0, frac = 0, scale = 1000;

	if (neg || *s == '+')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		whole = whole * 10 + (*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (scale > 1)
				frac += (*s - '0') * (scale /= 10);
	*end = (char *)s;
	*ns = (neg ? -1 : 1) * (whole * 1000 + frac);
	return 0;
}

static void score_line(char *line, int64_t arrival, int64_t start,
		       const struct options *o, struct tally *t)
{
	char *p;
	int64_t self;
	long long exp;

	t->lines++;
	if (o->raw || !o->interval)
		return;
	strtoll(line, &p, 10);
	if (p == line || parse_micros(p + strspn(p, " "), &p, &self) < 0) {
		t->unparsed++;
		return;
	}
	exp = strtoll(p, &line, 10);
	if (line == p || exp < 1) {
		t->unparsed++;
		return;
	}
	t->expirations += exp;
	t->missed += exp - 1;
	series_push(&t->arrival, arrival - (start + (t->expirations - 1) * o->interval));
	series_push(&t->self, self);
}

/* Splits what one read() brought into lines; keeps a partial last line. */
static size_t take_lines(char *buf, size_t len, int64_t arrival, int64_t start,
			 const struct options *o, struct tally *t)
{
	char *line = buf, *nl;

	while ((nl = memchr(line, '\n', len - (size_t)(line - buf)))) {
		*nl = '\0';
		score_line(line, arrival, start, o, t);
		line = nl + 1;
	}
	len -= (size_t)(line - buf);
	memmove(buf, line, len);
	return len;
}

/* The child */

/* Reads the "Name:  value kB" fields NAMES of /proc/PID/status into
 * VALUES, -1 for each one missing. */
static void status_fields(pid_t pid, const char *const *names, long *values, size_t n)
{
	char path[64], line[256];
	FILE *f;

	for (size_t k = 0; k < n; k++)
		values[k] = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof line, f)) {
		for (size_t k = 0; k < n; k++) {
			size_t len = strlen(names[k]);

			if (!strncmp(line, names[k], len) && line[len] == ':')
				values[k] = strtol(line + len + 1, NULL, 10);
		}
	}
	fclose(f);
}

static void note_switches(struct switch_steps *s, long count, int64_t at_ms)
{
	if (count < 0)
		return;
	if (s->first < 0) {
		s->first = s->last = count;
		return;
	}
	if (count == s->last)
		return;
	s->last = count;
	if (s->n < MAX_STEPS) {
		s->at_ms[s->n] = at_ms;
		s->count[s->n++] = count;
	}
}

/*
 * Starts COMMAND with its stdout on a pipe, or on o->direct.  *out is what
 * to watch: the pipe's read end, or with o->direct a pidfd, which becomes
 * readable when the child exits.
 */

/* Blocks until the child has exec'd (or died trying): the write end of
 * EXEC_PIPE is close-on-exec, so its read end sees EOF then. */
static int64_t wait_for_exec(int exec_pipe[2])
{
	char c;

	close(exec_pipe[1]);
	while (read(exec_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	close(exec_pipe[0]);
	return clock_ns(CLOCK_MONOTONIC);
}

static pid_t start_child(char **argv, int64_t start, const struct options *o, int *out,
			 int64_t *exec_ns)
{
	int fds[2], exec_pipe[2];
	size_t argc = 0;
	pid_t pid;

	while (argv[argc])
		argc++;
	char **args = calloc(argc + 1, sizeof *args);
	if (!args)
		die("calloc");
	for (size_t k = 0; k < argc; k++)
		args[k] = substitute(argv[k], start, o);
	if (o->direct) {
		fds[0] = -1;
		fds[1] = open(o->direct, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fds[1] < 0)
			die(o->direct);
	} else if (pipe2(fds, O_CLOEXEC) < 0) {
		die("pipe2");
	}
	if (pipe2(exec_pipe, O_CLOEXEC) < 0)
		die("pipe2");
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execvp(args[0], args);
		fprintf(stderr, "lateness: %s: %s\n", args[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	*exec_ns = wait_for_exec(exec_pipe);
	for (size_t k = 0; k < argc; k++)
		free(args[k]);
	free(args);
	if (o->direct && (fds[0] = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
		die("pidfd_open");
	*out = fds[0];
	return pid;
}

static int poll_timeout_ms(const struct options *o, int64_t began, int killed)
{
	int64_t t = -1;

	if (o->sample_ms)
		t = o->sample_ms;
	if (o->kill_ms && !killed) {
		int64_t left = o->kill_ms - (clock_ns(CLOCK_MONOTONIC) - began) / NS_PER_MS;

		if (left < 0)
			left = 0;
		if (t < 0 || left < t)
			t = left;
	}
	return (int)t;
}

/* Reads the child's output to EOF, stamping and scoring each line. */
static void drain_child(pid_t pid, int fd, int64_t start, int64_t began,
			const struct options *o, struct tally *t, long *vmhwm,
			int64_t exec_ns, struct switch_steps *steps)
{
	static char buf[1 << 16];
	size_t have = 0;
	int killed = 0;
	FILE *save = o->save ? fopen(o->save, "we") : NULL;

	if (o->save && !save)
		die(o->save);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r = poll(&pfd, 1, poll_timeout_ms(o, began, killed));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("poll");
		if (o->sample_ms) {
			static const char *const names[] = { "VmHWM", "voluntary_ctxt_switches" };
			long v[2];

			status_fields(pid, names, v, 2);
			if (v[0] > *vmhwm)
				*vmhwm = v[0];
			note_switches(steps, v[1], (clock_ns(CLOCK_MONOTONIC) - exec_ns) / NS_PER_MS);
		}
		if (o->kill_ms && !killed &&
		    clock_ns(CLOCK_MONOTONIC) - began >= o->kill_ms * NS_PER_MS) {
			kill(pid, SIGTERM);
			killed = 1;
		}
		if (r == 0)
			continue;
		if (o->direct)
			break;	/* the pidfd: the child has exited */
		ssize_t n = read(fd, buf + have, sizeof buf - have - 1);
		int64_t arrival = clock_ns(CLOCK_REALTIME);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read");
		if (n == 0)
			break;
		t->last_read_ns = clock_ns(CLOCK_MONOTONIC);
		if (save)
			fwrite(buf + have, 1, (size_t)n, save);
		have = take_lines(buf, have + (size_t)n, arrival, start, o, t);
		if (have == sizeof buf - 1)
			have = 0;	/* a line this long is not ours: drop it */
	}
	if (save)
		fclose(save);
	close(fd);
}

/*
 * Waits for the child without reaping it first, so its /proc/PID/status
 * still holds the final context-switch counts; then reaps it with wait4()
 * for its resource usage.
 */
static void finish_child(pid_t pid, struct child_report *r, int64_t *ended)
{
	static const char *const names[] = { "voluntary_ctxt_switches",
					      "nonvoluntary_ctxt_switches" };
	long v[2];
	siginfo_t si;

	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			die("waitid");
	*ended = clock_ns(CLOCK_MONOTONIC);
	r->own_cpu_ns = own_cpu_ns(pid);
	status_fields(pid, names, v, 2);
	r->nvcsw = v[0];
	r->nivcsw = v[1];
	while (wait4(pid, &r->status, 0, &r->ru) < 0)
		if (errno != EINTR)
			die("wait4");
}

/* Report */

static int compare_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile, PERMILLE/1000 of a sorted series. */
static int64_t percentile(const struct series *s, int64_t permille)
{
	size_t rank = (size_t)((permille * (int64_t)s->n + 999) / 1000);

	return s->v[rank ? rank - 1 : 0];
}

static void print_micros(const char *key, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	int64_t a = ns < 0 ? -ns : ns;

	printf(" %s=%s%" PRId64 ".%03" PRId64, key, sign, a / 1000, a % 1000);
}

static void print_series(const char *prefix, struct series *s)
{
	char key[32];
	int64_t sum = 0;
	const int64_t marks[] = { 500, 900, 990 };
	const char *names[] = { "p50", "p90", "p99" };

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof *s->v, compare_ns);
	for (size_t k = 0; k < 3; k++) {
		snprintf(key, sizeof key, "%s%s_us", prefix, names[k]);
		print_micros(key, percentile(s, marks[k]));
	}
	for (size_t k = 0; k < s->n; k++)
		sum += s->v[k];
	snprintf(key, sizeof key, "%savg_us", prefix);
	print_micros(key, sum / (int64_t)s->n);
	snprintf(key, sizeof key, "%smax_us", prefix);
	print_micros(key, s->v[s->n - 1]);
}

static void print_steps(const struct switch_steps *s)
{
	if (s->first < 0)
		return;
	printf(" nvcsw_first=%ld nvcsw_steps=", s->first);
	for (size_t k = 0; k < s->n; k++)
		printf("%s%" PRId64 ":%ld", k ? "," : "", s->at_ms[k], s->count[k]);
	if (!s->n)
		printf("none");
}

static void print_report(struct tally *t, const struct child_report *r,
			 const struct switch_steps *steps, int64_t ended)
{
	int64_t cpu_us = (int64_t)(r->ru.ru_utime.tv_sec + r->ru.ru_stime.tv_sec) * 1000000 +
			 r->ru.ru_utime.tv_usec + r->ru.ru_stime.tv_usec;

	printf("lines=%" PRId64 " unparsed=%" PRId64 " missed=%" PRId64,
	       t->lines, t->unparsed, t->missed);
	print_series("", &t->arrival);
	print_series("self_", &t->self);
	printf(" wall_us=%" PRId64 " exec_wall_us=%" PRId64 " cpu_us=%" PRId64
	       " own_cpu_us=%" PRId64, r->wall_ns / 1000, (ended - r->exec_ns) / 1000, cpu_us,
	       r->own_cpu_ns < 0 ? -1 : r->own_cpu_ns / 1000);
	if (WIFEXITED(r->status))
		printf(" status=%d", WEXITSTATUS(r->status));
	else
		printf(" status=%d", 128 + WTERMSIG(r->status));
	printf(" nvcsw=%ld nivcsw=%ld vmhwm_kb=%ld maxrss_kb=%ld",
	       r->nvcsw, r->nivcsw, r->vmhwm_kb, r->ru.ru_maxrss);
	if (t->lines)
		printf(" last_line_us=%" PRId64, (t->last_read_ns - r->exec_ns) / 1000);
	print_steps(steps);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv);
	struct tally t = { 0 };
	struct child_report r = { .vmhwm_kb = -1 };
	struct switch_steps steps = { .first = -1 };
	int64_t start = clock_ns(CLOCK_REALTIME) + o.lead_ms * NS_PER_MS;
	int64_t began = clock_ns(CLOCK_MONOTONIC), ended;
	int fd;
	pid_t pid = start_child(o.argv, start, &o, &fd, &r.exec_ns);

	drain_child(pid, fd, start, began, &o, &t, &r.vmhwm_kb, r.exec_ns, &steps);
	finish_child(pid, &r, &ended);
	r.wall_ns = ended - began;
	print_report(&t, &r, &steps, ended);
	free(t.arrival.v);
	free(t.self.v);
	return 0;
}
