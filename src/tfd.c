/* SPDX-License-Identifier: MIT */
/* tfd: arm Linux timerfds from the command line or a jobs file; on every
 * expiration print a line or run a command. This file checks what acts on
 * the whole process and wires the modules together; the work is theirs. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dryrun.h"
#include "fleet.h"
#include "http.h"
#include "job.h"
#include "jobsdir.h"
#include "jobtable.h"
#include "listen_addr.h"
#include "curl.h"
#include "loop.h"
#include "control.h"
#include "ctlpath.h"
#include "metrics.h"
#include "oplog.h"
#include "options.h"
#include "parse_time.h"
#include "persist.h"
#include "reboot.h"
#include "report.h"
#include "runner.h"
#include "serve.h"
#include "spawn.h"
#include "timens.h"
#include "tz.h"

#define ERR_MAX 8192

/* A quoted bad text longer than this is shortened in the message, so the
 * reason after it is never lost. */
#define QUOTE_SHOWN 160

/* What the checks made of the options that act on the whole process. */
struct setup {
	struct job_context ctx;
	struct tz *local;
	struct tz_cache *zones;
	struct job_table table;
	struct jobs_source source;
	char replica[RUNNER_REPLICA_MAX + 1]; /* --replica, or HOSTNAME:PID */
	char own_user[256];                   /* tfd's user's name, or its uid */
	struct fleet_config fleet_config;
	struct pam_loader pam;        /* libpam, for every job as another user */
	struct fleet *fleet;          /* --fleet: libpq loaded, CONNINFO checked */
	struct listen_addr listen;    /* --listen, read */
	struct http *http;            /* --listen: bound, served once the loop runs */
	uint64_t dry_run;             /* lines to print; 0 = arm for real */
	const char *dry_format;       /* the dry run's line; NULL: the terminal form */
	enum on_stop on_stop;         /* --on-stop */
	int64_t kill_after_ns;        /* --kill-after; 0: the runner's default */
	bool journal;                 /* stderr is the journal: lines carry their level */
	char zone_error[ERR_MAX / 2]; /* why TZ names no zone tfd can read ("": none) */
	bool system_error;            /* the error is the system's answer (a file's
					 permissions, a port in use), which --help
					 cannot mend: no hint after it */
	char err[ERR_MAX];
};

/* The first source of jobs (--jobs, else --user-crontabs), or NULL for
 * one job of the command line. */
static const char *jobs_source_of(const struct options *o)
{
	return o->jobs ? o->jobs : o->user_crontabs;
}

/* Errors */

/* Status 2 with the message of FMT; SYSTEM: an error that the system
 * gave for what the options name (a file or directory that is missing or
 * not writable, a socket path in use, a zone that is not installed),
 * which --help cannot mend: no hint after it. */
static int status2v(struct setup *st, bool system, const char *fmt, va_list ap)
{
	vsnprintf(st->err, sizeof st->err, fmt, ap);
	st->system_error = system;
	return 2;
}

static int usage_error(struct setup *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int system_error(struct setup *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A usage error: one line naming the bad text and why, then the hint. */
static int usage_error(struct setup *st, const char *fmt, ...)
{
	va_list ap;
	int status;

	va_start(ap, fmt);
	status = status2v(st, false, fmt, ap);
	va_end(ap);
	return status;
}

/* The system's refusal: the one line alone. */
static int system_error(struct setup *st, const char *fmt, ...)
{
	va_list ap;
	int status;

	va_start(ap, fmt);
	status = status2v(st, true, fmt, ap);
	va_end(ap);
	return status;
}

/* A --metrics or --persist PATH refused (WHY): an empty name is the
 * option's mistake, anything else (a missing directory, one tfd may not
 * write, a FIFO) the system's answer. */
static int target_error(struct setup *st, const char *path, const char *why)
{
	return *path ? system_error(st, "%s", why) : usage_error(st, "%s", why);
}

/* A line of tfd's own on stderr before the loop runs (the loop's go
 * through events.h), with its journal level. */
static void put_line(const struct setup *st, enum oplog_level level, const char *line)
{
	char prefix[4];

	oplog_prefix(prefix, st->journal, level);
	fprintf(stderr, "%s%s", prefix, line);
}

/* One byte of a message, with control characters shown escaped so the
 * message stays one line whatever the bad text held. */
static void put_shown(unsigned char c)
{
	if (c == '\n')
		fputs("\\n", stderr);
	else if (c < 0x20 || c == 0x7f)
		fprintf(stderr, "\\x%02x", c);
	else
		fputc(c, stderr);
}

/* The message, with each quoted text over QUOTE_SHOWN bytes cut in the
 * middle ("'xxxx...xx'"), then the hint for a usage error: an error in
 * the options or a jobs file's lines, which --help's list can mend. */
static void print_error(const struct setup *st, int status)
{
	const char *p = st->err;

	put_line(st, OPLOG_ERR, "tfd: ");
	while (*p) {
		const char *close = *p == '\'' ? strchr(p + 1, '\'') : NULL;

		if (close && close - p > QUOTE_SHOWN) {
			for (const char *q = p; q < p + QUOTE_SHOWN / 2; q++)
				put_shown((unsigned char)*q);
			fputs("...", stderr);
			p = close - QUOTE_SHOWN / 4;
			continue;
		}
		put_shown((unsigned char)*p++);
	}
	fputc('\n', stderr);
	if (status == 2 && !st->system_error)
		put_line(st, OPLOG_ERR, "Try 'tfd --help'.\n");
}

/* The process */

/* "Now" on the wall clock; --base-time moves it, so a dry run is
 * reproducible. */
static int take_now(struct setup *st, const struct options *o)
{
	struct time_context tc = { .now_ns = clock_now_ns(CLOCK_REALTIME),
				   .local = st->local,
				   .find_zone = tz_cache_lookup,
				   .find_zone_arg = st->zones };
	char why[ERR_MAX - 64];

	st->ctx.wall_now_ns = tc.now_ns;
	if (o->base_time) {
		if (!o->dry_run_given)
			return usage_error(st, "--base-time '%s' needs --dry-run", o->base_time);
		if (parse_timestamp(o->base_time, &tc, &st->ctx.wall_now_ns, why, sizeof why) != 0)
			return usage_error(st, "--base-time: %s", why);
		st->ctx.base_given = true;
	}
	/* %s counts from the same instant the schedule is computed from. */
	st->ctx.mono_now_ns = clock_now_ns(CLOCK_MONOTONIC);
	return 0;
}

/* --on-stop and --kill-after. leave is refused with --fleet: a run whose
 * end is never written would be given up as abandoned, and its elapse
 * not run elsewhere. */
static int check_stop_options(struct setup *st, const struct options *o)
{
	static const char *const hows[] = { [ON_STOP_FORWARD] = "forward",
					    [ON_STOP_WAIT] = "wait",
					    [ON_STOP_LEAVE] = "leave" };
	char why[ERR_MAX - 64];
	size_t i = 0;

	while (o->on_stop && i < sizeof hows / sizeof hows[0] && strcmp(o->on_stop, hows[i]) != 0)
		i++;
	if (i == sizeof hows / sizeof hows[0])
		return usage_error(st, "--on-stop '%s': expected forward, wait or leave",
				   o->on_stop);
	st->on_stop = (enum on_stop)i;
	if (st->on_stop == ON_STOP_LEAVE && o->fleet)
		return usage_error(st, "--on-stop=leave cannot be given with --fleet: the end of "
				       "a run left behind is never written, and the fleet would "
				       "take it as abandoned; use --on-stop=wait");
	if (!o->kill_after)
		return 0;
	if (parse_duration(o->kill_after, &st->kill_after_ns, why, sizeof why) != 0)
		return usage_error(st, "--kill-after: %s", why);
	if (st->kill_after_ns == 0)
		return usage_error(st,
				   "--kill-after '%s': must be longer than 0 (1ms sends "
				   "SIGKILL at once)",
				   o->kill_after);
	return 0;
}

static int check_process_options(struct setup *st, const struct options *o)
{
	char why[ERR_MAX - 64];
	const char *only;

	if (o->json && o->job.format)
		return usage_error(st, "--json and --format conflict: give one line format");
	if (o->dry_run_given) {
		st->dry_run = DRY_RUN_DEFAULT;
		if (o->dry_run) {
			char *end;

			errno = 0;
			st->dry_run = strtoull(o->dry_run, &end, 10);
			if (o->dry_run[0] < '0' || o->dry_run[0] > '9' || *end || errno ||
			    st->dry_run == 0 || st->dry_run > INT64_MAX)
				return usage_error(st,
						   "--dry-run: invalid number '%s': expected a "
						   "whole number of 1 or more",
						   o->dry_run);
		}
	}
	if (o->metrics && metrics_check_path(o->metrics, why, sizeof why) != 0)
		return target_error(st, o->metrics, why);
	/* The command line's --persist (beside --jobs it is a line's). */
	if (!jobs_source_of(o) && o->job.persist &&
	    persist_check_path(o->job.persist, why, sizeof why) != 0)
		return target_error(st, o->job.persist, why);
	if (o->listen && listen_addr_parse(o->listen, &st->listen, why, sizeof why) != 0)
		return usage_error(st, "%s", why);
	if (!jobs_source_of(o) && o->exit_on_error && !o->job.exec && !o->job.command)
		return usage_error(st,
				   "--exit-on-error needs a command (--exec STRING or -- COMMAND)");
	if (!o->jobs && o->system_crontab)
		return usage_error(st, "--system-crontab needs --jobs: it says how crontab "
				       "lines of the jobs files are read");
	if (jobs_source_of(o) && (only = job_only_option(&o->job, why, sizeof why / 2)))
		return usage_error(st,
				   "%s '%s' cannot be given beside %s: it belongs "
				   "on a line of '%s'",
				   only, why, o->jobs ? "--jobs" : "--user-crontabs",
				   jobs_source_of(o));
	return check_stop_options(st, o);
}

/* A --fleet-* duration: longer than MIN_NS. */
static int parse_fleet_span(struct setup *st, const char *option, const char *text, int64_t min_ns,
			    const char *min_text, int64_t *ns)
{
	char why[ERR_MAX - 64];

	if (!text)
		return 0;
	if (parse_duration(text, ns, why, sizeof why) != 0)
		return usage_error(st, "%s: %s", option, why);
	if (*ns < min_ns)
		return usage_error(st, "%s '%s': must be %s", option, text, min_text);
	return 0;
}

/* --replica names this replica (TFD_REPLICA) with or without --fleet; the
 * --fleet-* options need --fleet. libpq is loaded, and CONNINFO checked,
 * only when --fleet is given. */
static int check_fleet_options(struct setup *st, const struct options *o)
{
	struct fleet_config *c = &st->fleet_config;
	const char *lonely = o->fleet_lease      ? "--fleet-lease"
			     : o->fleet_deadline ? "--fleet-deadline"
			     : o->fleet_keep     ? "--fleet-keep"
						 : NULL;
	int status;

	if (o->replica && !o->replica[0])
		return usage_error(st, "--replica '': must not be empty");
	if (o->replica && strlen(o->replica) > RUNNER_REPLICA_MAX)
		return usage_error(st, "--replica '%s': longer than %d bytes", o->replica,
				   RUNNER_REPLICA_MAX);
	if (o->replica)
		snprintf(st->replica, sizeof st->replica, "%s", o->replica);
	else if (o->fleet || jobs_source_of(o) || o->job.command || o->job.exec)
		runner_default_replica(st->replica, sizeof st->replica);
	/* A timer with no command and no fleet shows the name to nobody, and
	 * computing it (gethostname, snprintf) maps pages of libc that make
	 * such a tfd 8% bigger in RSS than before the fleet. */
	st->ctx.replica = st->replica[0] ? st->replica : NULL;
	if (!o->fleet)
		return lonely ? usage_error(st, "%s needs --fleet", lonely) : 0;
	*c = (struct fleet_config){ .conninfo = o->fleet,
				    .replica = st->replica,
				    .lease_ns = FLEET_LEASE_DEFAULT_NS,
				    .deadline_ns = FLEET_DEADLINE_DEFAULT_NS,
				    .keep_ns = FLEET_KEEP_DEFAULT_NS };
	if ((status = parse_fleet_span(st, "--fleet-lease", o->fleet_lease, NSEC_PER_SEC,
				       "1s or longer", &c->lease_ns)) ||
	    (status = parse_fleet_span(st, "--fleet-deadline", o->fleet_deadline, 1,
				       "longer than 0 (or every elapse would be missed)",
				       &c->deadline_ns)) ||
	    (status = parse_fleet_span(st, "--fleet-keep", o->fleet_keep, 1, "longer than 0",
				       &c->keep_ns)))
		return status;
	st->fleet = fleet_new(c, &status, st->err, sizeof st->err);
	st->ctx.fleet = true;
	return st->fleet ? 0 : status;
}

/* The zone of TZ. One that is not there is UTC, as glibc reads it; once
 * the jobs are read, check_local_zone says whether that can do. */
static int load_local_zone(struct setup *st)
{
	st->zones = tz_cache_new();
	errno = 0;
	st->local = tz_load(NULL, st->zone_error, sizeof st->zone_error);
	/* Out of memory is not an unknown zone: UTC would be another answer. */
	if (!st->local && errno == ENOMEM) {
		snprintf(st->err, sizeof st->err, "out of memory");
		return 1;
	}
	if (!st->local)
		st->local = tz_load_utc();
	else
		st->zone_error[0] = '\0';
	if (!st->zones || !st->local) {
		snprintf(st->err, sizeof st->err, "out of memory");
		return 1;
	}
	st->ctx.local = st->local;
	st->ctx.zones = st->zones;
	return 0;
}

/* A TZ that names no zone tfd can read is UTC, as glibc takes it. Where
 * a schedule is read in local time that would move every elapse by the
 * zone's offset, silently: that is exit 2 (the zone's name is the
 * mistake, or its file is not installed); elsewhere (%T, a dry run's
 * times) a warning. */
static int check_local_zone(struct setup *st)
{
	char line[ERR_MAX];

	if (!st->zone_error[0])
		return 0;
	for (size_t i = 0; i < st->table.n; i++) {
		const struct job *j = st->table.jobs[i];

		if (j->local_time)
			return system_error(st,
					    "TZ: %s, and the schedule%s%s%s is in local time: name "
					    "a zone of /usr/share/zoneinfo in TZ, or unset TZ for "
					    "UTC",
					    st->zone_error, j->line ? " of '" : "",
					    j->line ? j->name : "", j->line ? "'" : "");
	}
	snprintf(line, sizeof line, "tfd: warning: TZ: %s; using UTC\n", st->zone_error);
	put_line(st, OPLOG_WARNING, line);
	return 0;
}

/* A full --at instant already past runs at once, as the kernel fires it:
 * said, since a date typed wrong looks like that. (A time of day alone
 * is its next occurrence: never past.) */
static void warn_past_at(const struct setup *st, const struct options *o)
{
	const struct job *j;
	char line[ERR_MAX], ago[64];

	if (!o->job.at || jobs_source_of(o) || st->table.n != 1)
		return;
	j = st->table.jobs[0];
	if (!clock_is_realtime(j->schedule.clock) || j->schedule.first_ns >= st->ctx.wall_now_ns)
		return;
	format_distance(ago, j->schedule.first_ns, st->ctx.wall_now_ns);
	snprintf(line, sizeof line, "tfd: warning: --at '%s' was %s: %s\n", o->job.at, ago,
		 st->dry_run ? "it would run at once" : "running now");
	put_line(st, OPLOG_WARNING, line);
}

/* The tick line of a job that gives no --format: a job that only prints
 * prints it; a command prints it only with --verbose. */
static const char *tick_format(const struct options *o, bool jobs)
{
	if (o->job.format)
		return NULL;
	if (jobs)
		return o->verbose ? "%j %n %t %e" : NULL;
	if (!o->job.exec && !o->job.command)
		return "%n %t %e";
	return o->verbose ? "%n %t %e" : NULL;
}

/* A warning of the load at start: straight to stderr, before the loop. */
static void warn_now(void *arg, const char *line)
{
	put_line(arg, oplog_level_of(line), line);
}

/* A --jobs directory that looks like a crontab spool would run every
 * user's lines as tfd's user (root, on a host): said once, at start. */
static void warn_spool_like(const struct setup *st, const struct options *o)
{
	for (size_t i = 0; i < o->jobs_n; i++) {
		char file[256], line[ERR_MAX];

		if (!jobsdir_looks_like_spool(o->jobs_all[i], file, sizeof file))
			continue;
		snprintf(line, sizeof line,
			 "tfd: warning: --jobs '%s' looks like a crontab spool "
			 "('%s' is owned by the user it is named after): its lines run as tfd's "
			 "user, not as their owners; --user-crontabs runs them as cron does\n",
			 o->jobs_all[i], file);
		put_line(st, OPLOG_WARNING, line);
	}
}

static int build_table(struct setup *st, const struct options *o)
{
	int status;

	if (jobs_source_of(o)) {
		st->source = (struct jobs_source){ .path = jobs_source_of(o),
						   .paths = o->jobs_all,
						   .npaths = o->jobs_n,
						   .system = o->system_crontab,
						   .user_crontabs = o->user_crontabs,
						   .defaults = &o->job,
						   .ctx = st->ctx,
						   .tick_format = tick_format(o, true) };
		warn_spool_like(st, o);
		if (jobs_source_load(&st->source, &st->table, true, warn_now, st, &status, st->err,
				     sizeof st->err) < 0) {
			/* A file that cannot be read is the system's answer; a
			 * bad line is the file's text. */
			st->system_error = st->source.read_failed;
			return status;
		}
		/* What the reading took and gave back (every file's text and
		 * parse) lies between the jobs: its pages go back to the
		 * system before tfd settles, as after each reload. */
		malloc_trim(0);
		return 0;
	}
	status = job_table_single(&o->job, &st->ctx, &st->table, st->err, sizeof st->err);
	if (status == 0 && st->table.jobs[0]->never)
		fprintf(stderr,
			"tfd: warning: --cron '%s' names no day that exists: the job "
			"never runs\n",
			o->job.cron);
	if (status == 0 && !st->table.jobs[0]->format && tick_format(o, false) &&
	    !(st->table.jobs[0]->format = strdup(tick_format(o, false)))) {
		snprintf(st->err, sizeof st->err, "out of memory");
		return 1;
	}
	return status;
}

/* Who runs a job that names no user, as tfdctl and the mails show it:
 * looked up once, not by each job nor in the loop. */
static void find_own_user(struct setup *st)
{
	const struct passwd *pw = getpwuid(geteuid());

	if (pw)
		snprintf(st->own_user, sizeof st->own_user, "%s", pw->pw_name);
	else
		snprintf(st->own_user, sizeof st->own_user, "%lu", (unsigned long)geteuid());
	st->ctx.own_user = st->own_user;
}

static int build_setup(struct setup *st, const struct options *o)
{
	int status;

	st->ctx.pam = &st->pam;
	find_own_user(st);
	if ((status = load_local_zone(st)) || (status = check_process_options(st, o)) ||
	    (status = check_fleet_options(st, o)) || (status = take_now(st, o)))
		return status;
	st->ctx.dry_run = st->dry_run > 0;
	{
		struct spawn_target dispositions;

		spawn_note_signals(&dispositions);
		st->ctx.reset_known = true;
		st->ctx.reset_mask = dispositions.reset_mask;
	}
	if (st->dry_run)
		st->dry_format = dry_run_format(o->job.format, o->json, jobs_source_of(o) != NULL);
	if ((status = build_table(st, o)) || (status = check_local_zone(st)))
		return status;
	warn_past_at(st, o);
	return 0;
}

/* Descriptors 0-2 closed by the caller would otherwise be reused by the
 * timerfd or signalfd, and a tick line written into them. A closed stdin
 * becomes /dev/null; a closed stdout or stderr becomes /dev/null opened
 * for reading only, so that every write to it fails with EBADF as it would
 * have on the closed descriptor: output is never lost silently. */
static void open_standard_descriptors(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDONLY) < 0)
			_exit(1);
}

/* --listen binds before any job runs, so a port in use ends tfd at once. */
static int open_http(struct setup *st)
{
	int status;

	st->http = http_open(&st->listen, &status, st->err, sizeof st->err);
	/* clang-format off */
	if (st->http)
		return 0;
	/* A port in use or below 1024: the system's answer (the static
	 * build's refusal of --listen is a usage error). */
#ifndef TFD_NO_HTTP
	st->system_error = true;
#endif
	/* clang-format on */
	return status;
}

/* --control: the socket is listening before the first elapse, so a
 * tfdctl started right after tfd finds it. Returns 0 (*FD is -1 without
 * --control), or 2 with the reason in st->err. */
static int open_control(struct setup *st, const struct options *o, char *path, size_t len, int *fd,
			int *lock_fd)
{
	*fd = *lock_fd = -1;
	if (!o->control_given)
		return 0;
	/* Another tfd's socket, a directory tfd may not write, no
	 * $XDG_RUNTIME_DIR: the system's answers. */
	st->system_error = true;
	if (o->control)
		snprintf(path, len, "%s", o->control);
	else if (control_default_path(path, len, st->err, sizeof st->err) != 0)
		return 2;
	*fd = control_listen(path, lock_fd, st->err, sizeof st->err);
	if (*fd < 0)
		return 2;
	st->system_error = false;
	return 0;
}

/* Whether the @reboot lines run at this start: at the first start of
 * these jobs since the machine booted (reboot.h), as cron runs them, and
 * always as PID 1. A record that cannot be read or written is a warning,
 * and they run. */
static bool reboot_lines_run(const struct setup *st, const struct options *o)
{
	const struct reboot_instance in = { o->jobs_all, o->jobs_n, o->system_crontab,
					    o->user_crontabs, o->replica };
	char path[4096], key[REBOOT_KEY_LEN], cwd[4096], err[4096 + 512];
	size_t n = 0;
	int first;

	for (size_t i = 0; i < st->table.n; i++)
		n += st->table.jobs[i]->reboot;
	if (n == 0 || getpid() == 1)
		return true;
	reboot_key(&in, getcwd(cwd, sizeof cwd), key);
	if (reboot_record_path(path, sizeof path, err, sizeof err) != 0)
		first = -1;
	else
		first = reboot_first_start(path, key, err, sizeof err);
	if (first < 0)
		fprintf(stderr,
			"tfd: warning: @reboot: this start is not recorded (%s): the "
			"@reboot lines run, and will run again at the next start\n",
			err);
	else if (first == 0)
		fprintf(stderr,
			"tfd: not running %zu @reboot job%s: not the first start since "
			"boot (%s)\n",
			n, n == 1 ? "" : "s", path);
	return first != 0;
}

/* --ping, --notify: libcurl is loaded (and kept) before any job runs, so
 * a machine without it, or the static build, says so at once, as
 * --listen does. The loop loads it again (dlopen counts) when a run first
 * has a request to send. */
static int check_notify(struct setup *st)
{
	struct curl curl;

	if (!jobs_any(st->table.jobs, st->table.n, job_notifies) ||
	    curl_load(&curl, st->err, sizeof st->err) == 0)
		return 0;
	return 2;
}

/* --dry-run: the table's next expirations on stdout. */
static int dry_run(struct setup *st, const struct options *o)
{
	const struct dry_run dr = { .table = &st->table,
				    .wall_now_ns = st->ctx.wall_now_ns,
				    .local = st->local,
				    .lines = st->dry_run,
				    .format = st->dry_format,
				    .json = o->json,
				    .named = jobs_source_of(o) != NULL };

	return dry_run_print(&dr, st->err, sizeof st->err);
}

static int run(const struct options *o)
{
	struct setup st = { .journal = oplog_stderr_is_journal() };
	char control_path[4096] = "";
	struct loop_config lc;
	int control_fd = -1, control_lock_fd = -1;
	int status = build_setup(&st, o);

	if (status == 0)
		status = check_notify(&st);

	/* From here a stop signal waits for the loop, which removes what
	 * is made below (loop.h). */
	if (status == 0 && !st.dry_run && loop_block_signals() != 0) {
		fprintf(stderr, "tfd: sigprocmask: %s\n", strerror(errno));
		status = 1;
	}
	/* HTTP first: a port in use then leaves no control socket behind. */
	if (status == 0 && !st.dry_run && o->listen)
		status = open_http(&st);
	if (status == 0 && !st.dry_run)
		status = open_control(&st, o, control_path, sizeof control_path, &control_fd,
				      &control_lock_fd);

	if (status == 0 && st.dry_run) {
		status = dry_run(&st, o);
		if (status < 0)
			status = 1;
		else if (status != 0)
			print_error(&st, status);
	} else if (status == 0) {
		lc = (struct loop_config){
			.table = st.table,
			.start_mono_ns = st.ctx.mono_now_ns,
			.json = o->json,
			.quiet = o->quiet,
			.verbose = o->verbose,
			.stats = o->stats,
			.precise = o->precise,
			.exit_on_error = o->exit_on_error,
			.local = st.local,
			.on_stop = st.on_stop,
			.kill_after_ns = st.kill_after_ns,
			.log = (jobs_source_of(o) || o->log_runs) && !o->json && !o->quiet,
			.log_runs = (o->system_crontab || o->user_crontabs || o->log_runs) &&
				    !o->json && !o->quiet,
			.journal = st.journal,
			.nfiles = st.source.nfiles,
			.metrics_path = o->metrics,
			.jobs_path = jobs_source_of(o),
			.jobs_paths = o->jobs_all,
			.njobs_paths = o->jobs_n,
			.user_crontabs = o->user_crontabs,
			.host_cron = o->system_crontab || o->user_crontabs,
			.reload = jobs_source_of(o) ? jobs_source_reload : NULL,
			.reload_arg = &st.source,
			.fleet = st.fleet,
			.replica = st.fleet ? st.fleet_config.replica : NULL,
			.http = st.http,
			.control_fd = control_fd,
			.control_lock_fd = control_lock_fd,
			.control_path = control_path,
			.reboot_done = !reboot_lines_run(&st, o),
			.serve = &serve_loop,
		};
		st.table = (struct job_table){ 0 };
		status = loop_run(&lc);
	} else {
		print_error(&st, status);
	}
	http_close(st.http);
	fleet_free(st.fleet);
	job_table_free(&st.table);
	jobs_source_free(&st.source);
	tz_free(st.local);
	tz_cache_free(st.zones);
	return status;
}

int main(int argc, const char **argv)
{
	struct options o;
	int status;

	open_standard_descriptors();
	runner_clean_environment();
	/* A closed stdout is an EPIPE from write(), handled where it happens. */
	signal(SIGPIPE, SIG_IGN);
	status = options_read(argc, argv, &o);
	if (status == OPTIONS_GO_ON)
		status = run(&o);
	options_free(&o);
	return status;
}
