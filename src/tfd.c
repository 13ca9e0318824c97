/* tfd: arm a Linux timerfd from the command line; on every expiration print
 * a line or run a command. This file reads the options and wires the
 * modules together; the work is theirs. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <popt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calendar.h"
#include "cron.h"
#include "loop.h"
#include "parse_time.h"
#include "persist.h"
#include "report.h"
#include "schedule.h"
#include "spawn.h"
#include "timens.h"
#include "tz.h"

#define ERR_MAX 1024
#define DRY_RUN_DEFAULT 5

/* What the command line said, as text until checked. */
struct options {
	char *clock, *at, *delay, *interval, *count, *for_, *calendar, *cron;
	char *dry_run, *base_time, *exec, *format, *overlap, *timeout;
	char *random_delay, *persist, *cgroup, *join;
	int json, quiet, verbose, precise, stats, exit_on_error;
	bool dry_run_given;
	const char **command;     /* after the options, or NULL */
};

/* What the checks made of it. */
struct setup {
	struct loop_config loop;
	struct tz *local;
	struct tz_cache *zones;
	struct calendar *calendar;
	struct cron *cron;
	uint64_t dry_run;          /* lines to print; 0 = arm for real */
	int64_t base_ns;           /* "now" on the wall clock */
	bool base_given;
	int64_t clock_now_ns;      /* "now" on the schedule's clock */
	char path[4096];
	const char *shell_argv[4];
	char err[ERR_MAX];
};

enum { OPT_DRY_RUN = 1, OPT_HELP, OPT_USAGE, OPT_VERSION };

/* Errors */

/* A usage error: one line naming the bad text and why, then the hint. */
static int usage_error(struct setup *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof st->err, fmt, ap);
	va_end(ap);
	return 2;
}

static void print_error(const struct setup *st, int status)
{
	fprintf(stderr, "tfd: %s\n", st->err);
	if (status == 2)
		fputs("Try 'tfd --help'.\n", stderr);
}

/* Values */

static const struct clock_name {
	const char *name;
	clockid_t id;
} clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC },
	{ "realtime", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME },
	{ "realtime-alarm", CLOCK_REALTIME_ALARM },
	{ "boottime-alarm", CLOCK_BOOTTIME_ALARM },
};

static int parse_clock(struct setup *st, const char *text)
{
	for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
		if (strcmp(text, clocks[i].name) == 0) {
			st->loop.schedule.clock = clocks[i].id;
			st->loop.clock_name = clocks[i].name;
			return 0;
		}
	}
	return usage_error(st, "invalid clock '%s': expected monotonic, realtime, "
			   "boottime, realtime-alarm or boottime-alarm", text);
}

static int parse_overlap(struct setup *st, const char *text)
{
	static const char *const names[] = { "skip", "queue", "kill", "parallel" };

	for (int i = 0; i < 4; i++) {
		if (strcmp(text, names[i]) == 0) {
			st->loop.overlap = (enum overlap)i;
			return 0;
		}
	}
	return usage_error(st, "--overlap: invalid policy '%s': expected skip, "
			   "queue, kill or parallel", text);
}

/* N >= 1 in plain decimal: no sign, no spaces, no suffix. */
static int parse_positive(struct setup *st, const char *option, const char *text,
			  uint64_t *out)
{
	char *end;

	errno = 0;
	if (text[0] < '0' || text[0] > '9')
		return usage_error(st, "%s: invalid number '%s': expected a whole number of 1 or more",
				   option, text);
	*out = strtoull(text, &end, 10);
	if (*end != '\0')
		return usage_error(st, "%s: invalid number '%s': trailing '%s'", option, text, end);
	if (errno == ERANGE || *out > INT64_MAX)
		return usage_error(st, "%s: invalid number '%s': too large", option, text);
	if (*out == 0)
		return usage_error(st, "%s: invalid number '%s': must be 1 or more", option, text);
	return 0;
}

static int parse_span(struct setup *st, const char *option, const char *text,
		      int64_t *ns)
{
	char why[ERR_MAX - 64];

	if (parse_duration(text, ns, why, sizeof why) != 0)
		return usage_error(st, "%s: %s", option, why);
	return 0;
}

/* Schedule */

static bool is_realtime(clockid_t clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_ALARM;
}

static int check_schedule_options(struct setup *st, const struct options *o)
{
	int wall = !!o->calendar + !!o->cron;

	if (!o->at && !o->delay && !o->interval && wall == 0)
		return usage_error(st, "no schedule: give one of --at, --delay, --interval, "
				   "--calendar or --cron");
	if (o->at && o->delay)
		return usage_error(st, "--at and --delay conflict: both set the first expiration");
	if (wall > 1)
		return usage_error(st, "--calendar and --cron conflict: give one schedule");
	if (wall && (o->at || o->delay || o->interval))
		return usage_error(st, "--%s conflicts with --at, --delay and --interval",
				   o->calendar ? "calendar" : "cron");
	if (o->base_time && !o->dry_run_given)
		return usage_error(st, "--base-time '%s' needs --dry-run", o->base_time);
	return 0;
}

static int choose_clock(struct setup *st, const struct options *o)
{
	bool wall = o->at || o->calendar || o->cron;

	st->loop.schedule.clock = wall ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	st->loop.clock_name = wall ? "realtime" : "monotonic";
	if (o->clock && parse_clock(st, o->clock) != 0)
		return 2;
	if ((o->calendar || o->cron) && !is_realtime(st->loop.schedule.clock))
		return usage_error(st, "--%s needs a realtime clock, not '%s'",
				   o->calendar ? "calendar" : "cron", o->clock);
	return 0;
}

/* "Now", on the wall clock and on the schedule's clock; --base-time moves
 * both, so a dry run is reproducible. */
static int take_now(struct setup *st, const struct options *o)
{
	struct time_context ctx = { clock_now_ns(CLOCK_REALTIME), st->local,
				    tz_cache_lookup, st->zones };
	char why[ERR_MAX - 64];
	clockid_t clock = st->loop.schedule.clock;

	st->base_ns = ctx.now_ns;
	if (o->base_time) {
		if (parse_timestamp(o->base_time, &ctx, &st->base_ns, why, sizeof why) != 0)
			return usage_error(st, "--base-time: %s", why);
		st->base_given = true;
	}
	/* %s counts from the same instant the schedule is computed from. */
	st->loop.start_mono_ns = clock_now_ns(CLOCK_MONOTONIC);
	if (clock == CLOCK_MONOTONIC)
		st->clock_now_ns = st->loop.start_mono_ns;
	else
		st->clock_now_ns = is_realtime(clock) ? st->base_ns
				 : clock_now_ns(clock == CLOCK_BOOTTIME_ALARM ? CLOCK_BOOTTIME : clock);
	return 0;
}

/* --at: a wall-clock timestamp on a realtime clock; on monotonic or
 * boottime only "@SECONDS", a raw reading of that clock. */
static int parse_at(struct setup *st, const char *text, int64_t *at_ns)
{
	struct time_context ctx = { st->base_ns, st->local, tz_cache_lookup, st->zones };
	char why[ERR_MAX - 64];

	if (is_realtime(st->loop.schedule.clock)) {
		if (parse_timestamp(text, &ctx, at_ns, why, sizeof why) != 0)
			return usage_error(st, "--at: %s", why);
		return 0;
	}
	if (text[0] != '@')
		return usage_error(st, "--at '%s': with --clock %s only '@SECONDS' (a reading "
				   "of that clock) is accepted", text, st->loop.clock_name);
	if (parse_duration(text + 1, at_ns, why, sizeof why) != 0)
		return usage_error(st, "--at '%s': %s", text, why);
	return 0;
}

static int build_timer(struct setup *st, const struct options *o)
{
	struct schedule *s = &st->loop.schedule;
	int64_t delay = 0;

	s->kind = SCHEDULE_TIMER;
	if (o->interval && parse_span(st, "--interval", o->interval, &s->interval_ns))
		return 2;
	if (o->at)
		return parse_at(st, o->at, &s->first_ns);
	if (o->delay && parse_span(st, "--delay", o->delay, &delay))
		return 2;
	if (!o->delay)
		delay = s->interval_ns;
	if (__builtin_add_overflow(st->clock_now_ns, delay, &s->first_ns))
		return usage_error(st, "--%s '%s': the first expiration is out of range",
				   o->delay ? "delay" : "interval", o->delay ? o->delay : o->interval);
	return 0;
}

static int build_wall_schedule(struct setup *st, const struct options *o)
{
	struct schedule *s = &st->loop.schedule;
	char why[ERR_MAX - 64];
	int64_t next;

	s->zone = st->local;
	if (o->calendar) {
		s->kind = SCHEDULE_CALENDAR;
		if (calendar_parse_local(o->calendar, st->local, tz_cache_lookup, st->zones, &st->calendar,
				   why, sizeof why) != 0)
			return usage_error(st, "--calendar: %s", why);
		s->calendar = st->calendar;
	} else {
		s->kind = SCHEDULE_CRON;
		if (cron_parse(o->cron, &st->cron, why, sizeof why) != 0)
			return usage_error(st, "--cron: %s", why);
		s->cron = st->cron;
	}
	if (schedule_next(s, st->base_ns, &next) != 0)
		return usage_error(st, "--%s '%s': the event never elapses",
				   o->calendar ? "calendar" : "cron",
				   o->calendar ? o->calendar : o->cron);
	return 0;
}

static int build_schedule(struct setup *st, const struct options *o)
{
	int status = check_schedule_options(st, o);

	if (status == 0)
		status = choose_clock(st, o);
	if (status == 0)
		status = take_now(st, o);
	if (status != 0)
		return status;
	if (o->calendar || o->cron)
		return build_wall_schedule(st, o);
	return build_timer(st, o);
}

/* Limits and output */

static int build_limits(struct setup *st, const struct options *o)
{
	if (o->count && parse_positive(st, "--count", o->count, &st->loop.count))
		return 2;
	if (o->for_) {
		if (parse_span(st, "--for", o->for_, &st->loop.for_ns))
			return 2;
		if (st->loop.for_ns == 0)
			return usage_error(st, "--for '%s': must be longer than 0", o->for_);
	}
	if (o->dry_run_given) {
		st->dry_run = DRY_RUN_DEFAULT;
		if (o->dry_run && parse_positive(st, "--dry-run", o->dry_run, &st->dry_run))
			return 2;
	}
	return 0;
}

static int build_output(struct setup *st, const struct options *o)
{
	struct loop_config *lc = &st->loop;
	char why[ERR_MAX - 64];

	if (o->json && o->format)
		return usage_error(st, "--json and --format conflict: give one line format");
	if (o->format && format_check(o->format, why, sizeof why) != 0)
		return usage_error(st, "--format: %s", why);
	lc->json = o->json;
	lc->quiet = o->quiet;
	lc->verbose = o->verbose;
	lc->stats = o->stats;
	lc->precise = o->precise;
	if (o->format)
		lc->format = o->format;
	else if (!o->exec && !o->command)
		lc->format = st->dry_run ? "%t" : "%n %t %e";
	else if (o->verbose || st->dry_run)
		lc->format = st->dry_run ? "%t" : "%n %t %e";
	return 0;
}

/* The command and the runner */

static int check_runner_options(struct setup *st, const struct options *o, bool command)
{
	const char *needs = o->overlap ? "--overlap" : o->timeout ? "--timeout"
			  : o->exit_on_error ? "--exit-on-error" : o->cgroup ? "--cgroup"
			  : o->join ? "--join" : NULL;

	if (o->exec && o->command)
		return usage_error(st, "--exec and a COMMAND ('%s') conflict: give one",
				   o->command[0]);
	if (needs && !command)
		return usage_error(st, "%s needs a command (--exec STRING or -- COMMAND)", needs);
	return 0;
}

static int build_command(struct setup *st, const struct options *o)
{
	struct loop_config *lc = &st->loop;
	const char *why = NULL;
	int found;

	if (o->exec) {
		st->shell_argv[0] = "sh";
		st->shell_argv[1] = "-c";
		st->shell_argv[2] = o->exec;
		lc->path = "/bin/sh";
		lc->argv = (char *const *)st->shell_argv;
		return 0;
	}
	if (!o->command)
		return 0;
	found = resolve_command(o->command[0], st->path, sizeof st->path, &why);
	if (found != 0) {
		snprintf(st->err, sizeof st->err, "'%s': %s", o->command[0], why);
		return found;
	}
	lc->path = st->path;
	lc->argv = (char *const *)o->command;
	return 0;
}

static int build_runner(struct setup *st, const struct options *o)
{
	struct loop_config *lc = &st->loop;
	int status = check_runner_options(st, o, o->exec || o->command);

	if (status == 0 && o->overlap)
		status = parse_overlap(st, o->overlap);
	if (status == 0 && o->timeout)
		status = parse_span(st, "--timeout", o->timeout, &lc->timeout_ns);
	if (status == 0 && o->random_delay)
		status = parse_span(st, "--random-delay", o->random_delay, &lc->random_delay_ns);
	lc->exit_on_error = o->exit_on_error;
	return status;
}

/* --cgroup and --join open descriptors: only after every text check, and
 * never for a dry run. */
static int open_target(struct setup *st, const struct options *o)
{
	int status = 0;

	if (o->cgroup && spawn_open_cgroup(&st->loop.target, o->cgroup, &status,
					   st->err, sizeof st->err) != 0)
		return status;
	if (o->join && spawn_open_join(&st->loop.target, o->join, &status,
				       st->err, sizeof st->err) != 0)
		return status;
	return 0;
}

/* --persist: a missing file is created with the start time; a file whose
 * time is older than a scheduled expiration means a missed run. */
static int open_persist(struct setup *st, const char *path)
{
	int64_t now = clock_now_ns(CLOCK_REALTIME), last;
	int found = persist_read(path, &last, st->err, sizeof st->err);

	st->loop.persist_path = path;
	if (found < 0)
		return found == -2 ? 2 : 1;
	if (found == 0)
		return persist_write(path, now, st->err, sizeof st->err) == 0 ? 0 : 1;
	st->loop.persist_catch_up = schedule_missed(&st->loop.schedule, last, now);
	return 0;
}

/* Dry run */

static void print_dry_run_line(const struct setup *st, char *line, size_t cap,
			       uint64_t k, int64_t at_ns, int64_t next_ns)
{
	const struct loop_config *lc = &st->loop;
	struct tick t = {
		.seq = k, .expirations = 1, .total = k,
		.wall_ns = at_ns - st->clock_now_ns + st->base_ns,
		.interval_ns = lc->schedule.kind == SCHEDULE_TIMER ? lc->schedule.interval_ns : 0,
	};
	size_t len;

	t.elapsed_ns = t.wall_ns - st->base_ns;
	t.next_in_ns = next_ns > at_ns ? next_ns - at_ns : 0;
	len = lc->json ? json_tick(line, cap, &t) : format_tick(line, cap, lc->format, &t);
	fwrite(line, 1, len, stdout);
}

/* Stops at the first failed write: a reader that went away (EPIPE) ends
 * the dry run quietly, as it ends the loop. */
static int dry_run(const struct setup *st)
{
	const struct schedule *s = &st->loop.schedule;
	uint64_t n = st->dry_run;
	int64_t at, next = 0, end = INT64_MAX;
	size_t cap = st->loop.format ? format_line_max(st->loop.format, 0) : 0;
	char *line;

	if (st->loop.count && st->loop.count < n)
		n = st->loop.count;
	if (st->loop.for_ns)
		end = st->clock_now_ns + st->loop.for_ns;
	if (s->kind == SCHEDULE_TIMER ? schedule_nth(s, 1, &at) : schedule_next(s, st->base_ns, &at))
		return 0;
	if (cap < REPORT_LINE_MAX)
		cap = REPORT_LINE_MAX;
	line = malloc(cap);
	if (!line) {
		perror("tfd: malloc");
		return 1;
	}
	for (uint64_t k = 1; k <= n && at <= end; k++, at = next) {
		bool more = s->kind == SCHEDULE_TIMER ? schedule_nth(s, k + 1, &next) == 0
						       : schedule_next(s, at, &next) == 0;

		print_dry_run_line(st, line, cap, k, at, more ? next : 0);
		if (!more || ferror(stdout))
			break;
	}
	free(line);
	if (fflush(stdout) == 0 || errno == EPIPE)
		return 0;
	fprintf(stderr, "tfd: write: %s\n", strerror(errno));
	return 1;
}

/* Options */

static struct options opt;

static struct poptOption schedule_table[] = {
	{ "clock", 'c', POPT_ARG_STRING, &opt.clock, 0,
	  "clock: monotonic (default), realtime, boottime, realtime-alarm, boottime-alarm", "CLOCK" },
	{ "at", 'a', POPT_ARG_STRING, &opt.at, 0, "first expiration at an absolute time", "TIMESTAMP" },
	{ "delay", 'd', POPT_ARG_STRING, &opt.delay, 0, "first expiration DURATION from now", "DURATION" },
	{ "interval", 'i', POPT_ARG_STRING, &opt.interval, 0, "period after the first expiration", "DURATION" },
	{ "count", 'n', POPT_ARG_STRING, &opt.count, 0, "stop after N expirations", "N" },
	{ "for", '\0', POPT_ARG_STRING, &opt.for_, 0, "stop DURATION after start", "DURATION" },
	{ "calendar", '\0', POPT_ARG_STRING, &opt.calendar, 0, "systemd.time(7) calendar event", "SPEC" },
	{ "cron", '\0', POPT_ARG_STRING, &opt.cron, 0, "5-field cron expression or @daily etc.", "EXPR" },
	{ "dry-run", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &opt.dry_run, OPT_DRY_RUN,
	  "print the next N (default 5) expirations and exit", "N" },
	{ "base-time", '\0', POPT_ARG_STRING, &opt.base_time, 0, "with --dry-run: take this as now", "TIMESTAMP" },
	POPT_TABLEEND
};

static struct poptOption action_table[] = {
	{ "exec", 'e', POPT_ARG_STRING, &opt.exec, 0, "run STRING with /bin/sh -c on each wake-up", "STRING" },
	{ "format", 'f', POPT_ARG_STRING, &opt.format, 0, "the line printed per wake-up (default '%n %t %e')", "FMT" },
	{ "json", 'j', POPT_ARG_NONE, &opt.json, 0, "one JSON object a line", NULL },
	{ "quiet", 'q', POPT_ARG_NONE, &opt.quiet, 0, "print no tick lines", NULL },
	{ "verbose", 'v', POPT_ARG_NONE, &opt.verbose, 0, "print the timer's setting on stderr", NULL },
	{ "precise", '\0', POPT_ARG_NONE, &opt.precise, 0, "SCHED_FIFO, mlockall, no C-states, 1 ns slack", NULL },
	{ "stats", '\0', POPT_ARG_NONE, &opt.stats, 0, "print a lateness summary on stderr at exit", NULL },
	POPT_TABLEEND
};

static struct poptOption runner_table[] = {
	{ "overlap", '\0', POPT_ARG_STRING, &opt.overlap, 0,
	  "a run still going at the next wake-up: skip (default), queue, kill, parallel", "POLICY" },
	{ "timeout", '\0', POPT_ARG_STRING, &opt.timeout, 0, "SIGTERM a run after DURATION, SIGKILL 5 s later", "DURATION" },
	{ "exit-on-error", 'E', POPT_ARG_NONE, &opt.exit_on_error, 0, "stop at the first failing run", NULL },
	{ "random-delay", '\0', POPT_ARG_STRING, &opt.random_delay, 0, "delay each action by a random 0..DURATION", "DURATION" },
	{ "persist", '\0', POPT_ARG_STRING, &opt.persist, 0, "remember the last run in FILE; make up a missed one", "FILE" },
	{ "cgroup", '\0', POPT_ARG_STRING, &opt.cgroup, 0, "start each run in the cgroup v2 directory DIR", "DIR" },
	{ "join", '\0', POPT_ARG_STRING, &opt.join, 0, "start each run in the namespaces of process PID", "PID" },
	POPT_TABLEEND
};

static struct poptOption help_table[] = {
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	{ "usage", '\0', POPT_ARG_NONE, NULL, OPT_USAGE, "show a short usage message and exit", NULL },
	{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
	POPT_TABLEEND
};

static struct poptOption option_table[] = {
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, schedule_table, 0, "Schedule:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, action_table, 0, "On each wake-up:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, runner_table, 0, "Running commands:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, help_table, 0, "Help:", NULL },
	POPT_TABLEEND
};

/* Returns -1 to go on, or the exit status. */
static int read_options(poptContext ctx)
{
	int rc;

	while ((rc = poptGetNextOpt(ctx)) >= 0) {
		switch (rc) {
		case OPT_DRY_RUN:
			opt.dry_run_given = true;
			break;
		case OPT_HELP:
			poptPrintHelp(ctx, stdout, 0);
			return 0;
		case OPT_USAGE:
			poptPrintUsage(ctx, stdout, 0);
			return 0;
		case OPT_VERSION:
			printf("tfd %s\n", TFD_VERSION);
			return 0;
		}
	}
	if (rc < -1) {
		fprintf(stderr, "tfd: %s: %s\nTry 'tfd --help'.\n",
			poptBadOption(ctx, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		return 2;
	}
	opt.command = poptGetArgs(ctx);
	return -1;
}

static int build_setup(struct setup *st, const struct options *o)
{
	int status;

	st->zones = tz_cache_new();
	st->local = tz_load(NULL, st->err, sizeof st->err);
	if (!st->local)
		st->local = tz_load_utc();   /* as glibc reads an unknown TZ */
	if (!st->zones || !st->local) {
		snprintf(st->err, sizeof st->err, "malloc: %s", strerror(ENOMEM));
		return 1;
	}
	st->loop.target = (struct spawn_target){ .cgroup_fd = -1, .join_pidfd = -1 };
	if ((status = build_limits(st, o)) || (status = build_schedule(st, o)) ||
	    (status = build_runner(st, o)) || (status = build_output(st, o)) ||
	    (status = build_command(st, o)))
		return status;
	if (st->dry_run)
		return 0;
	if ((status = open_target(st, o)))
		return status;
	if (st->loop.path)
		spawn_note_signals(&st->loop.target);
	if (o->persist && (status = open_persist(st, o->persist)))
		return status;
	return 0;
}

static void free_setup(struct setup *st)
{
	spawn_target_close(&st->loop.target);
	calendar_free(st->calendar);
	cron_free(st->cron);
	tz_free(st->local);
	tz_cache_free(st->zones);
}

/* Descriptors 0-2 closed by the caller would otherwise be reused by the
 * timerfd or signalfd, and a tick line written into them. */
static void open_standard_descriptors(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) < 0)
			_exit(1);
}

int main(int argc, const char **argv)
{
	poptContext ctx = poptGetContext("tfd", argc, argv, option_table,
					 POPT_CONTEXT_POSIXMEHARDER);
	static struct setup st;
	int status;

	open_standard_descriptors();
	/* A closed stdout is an EPIPE from write(), handled where it happens. */
	signal(SIGPIPE, SIG_IGN);
	poptSetOtherOptionHelp(ctx, "[OPTION...] [--] [COMMAND [ARG...]]");
	status = read_options(ctx);
	if (status < 0) {
		status = build_setup(&st, &opt);
		if (status != 0)
			print_error(&st, status);
		else if (st.dry_run)
			status = dry_run(&st);
		else
			status = loop_run(&st.loop);
		free_setup(&st);
	}
	poptFreeContext(ctx);
	return status;
}
