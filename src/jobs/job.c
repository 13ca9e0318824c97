/* SPDX-License-Identifier: MIT */
#include "job.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calendar.h"
#include "cron.h"
#include "parse_time.h"
#include "pathsearch.h"
#include "persist.h"
#include "target.h"
#include "timens.h"
#include "utf8.h"

#define WHY_MAX 7680

/* Errors */

static int usage(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int usage(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 2;
}

static int out_of_memory(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory");
	return 1;
}

/* Clocks */

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

bool clock_is_realtime(clockid_t clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_ALARM;
}

clockid_t readable_clock(clockid_t clock)
{
	if (clock == CLOCK_REALTIME_ALARM)
		return CLOCK_REALTIME;
	if (clock == CLOCK_BOOTTIME_ALARM)
		return CLOCK_BOOTTIME;
	return clock;
}

static int parse_clock(struct job *j, const char *text, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
		if (strcmp(text, clocks[i].name) == 0) {
			j->schedule.clock = clocks[i].id;
			j->clock_name = clocks[i].name;
			return 0;
		}
	}
	return usage(err, errlen,
		     "invalid clock '%s': expected monotonic, realtime, "
		     "boottime, realtime-alarm or boottime-alarm",
		     text);
}

/* Values */

static int parse_overlap(struct job *j, const char *text, char *err, size_t errlen)
{
	static const char *const names[] = { "skip", "queue", "kill", "parallel" };

	for (int i = 0; i < 4; i++) {
		if (strcmp(text, names[i]) == 0) {
			j->run.overlap = (enum overlap)i;
			return 0;
		}
	}
	return usage(err, errlen,
		     "--overlap: invalid policy '%s': expected skip, "
		     "queue, kill or parallel",
		     text);
}

/* A whole number in plain decimal, MIN or more: no sign, no spaces, no
 * suffix. */
static int parse_number(const char *option, const char *text, uint64_t min, uint64_t *out,
			char *err, size_t errlen)
{
	char *end;

	errno = 0;
	if (text[0] < '0' || text[0] > '9')
		return usage(err, errlen,
			     "%s: invalid number '%s': expected a whole number of %llu or more",
			     option, text, (unsigned long long)min);
	*out = strtoull(text, &end, 10);
	if (*end != '\0')
		return usage(err, errlen, "%s: invalid number '%s': trailing '%s'", option, text,
			     end);
	if (errno == ERANGE || *out > INT64_MAX)
		return usage(err, errlen, "%s: invalid number '%s': too large", option, text);
	if (*out < min)
		return usage(err, errlen, "%s: invalid number '%s': must be %llu or more", option,
			     text, (unsigned long long)min);
	return 0;
}

static int parse_option_span(const char *option, const char *text, int64_t *ns, char *err,
			     size_t errlen)
{
	char why[WHY_MAX];

	if (parse_duration(text, ns, why, sizeof why) != 0)
		return usage(err, errlen, "%s: %s", option, why);
	return 0;
}

/* Schedule */

static int check_schedule_options(const struct job_options *o, char *err, size_t errlen)
{
	int wall = !!o->calendar + !!o->cron;

	if (!o->at && !o->delay && !o->interval && wall == 0)
		return usage(err, errlen,
			     "no schedule: give one of --at, --delay, --interval, "
			     "--calendar or --cron");
	if (o->at && o->delay)
		return usage(err, errlen,
			     "--at and --delay conflict: both set the first expiration");
	if (wall > 1)
		return usage(err, errlen, "--calendar and --cron conflict: give one schedule");
	if (wall && (o->at || o->delay || o->interval))
		return usage(err, errlen, "--%s conflicts with --at, --delay and --interval",
			     o->calendar ? "calendar" : "cron");
	return 0;
}

static int choose_clock(struct job *j, const struct job_options *o, char *err, size_t errlen)
{
	bool wall = o->at || o->calendar || o->cron;

	j->schedule.clock = wall ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	j->clock_name = wall ? "realtime" : "monotonic";
	if (o->clock && parse_clock(j, o->clock, err, errlen) != 0)
		return 2;
	if ((o->calendar || o->cron) && !clock_is_realtime(j->schedule.clock))
		return usage(err, errlen, "--%s needs a realtime clock, not '%s'",
			     o->calendar ? "calendar" : "cron", o->clock);
	j->read_clock = readable_clock(j->schedule.clock);
	return 0;
}

/* "Now" on the schedule's clock; --base-time moves the wall clock only. */
static int64_t clock_now_for(const struct job *j, const struct job_context *ctx)
{
	if (j->schedule.clock == CLOCK_MONOTONIC)
		return ctx->mono_now_ns;
	if (clock_is_realtime(j->schedule.clock))
		return ctx->wall_now_ns;
	return clock_now_ns(j->read_clock);
}

static struct time_context time_context_of(const struct job *j, const struct job_context *ctx)
{
	return (struct time_context){ .now_ns = ctx->wall_now_ns,
				      .local = j->zone ? j->zone : ctx->local,
				      .find_zone = tz_cache_lookup,
				      .find_zone_arg = ctx->zones };
}

/* --at: a wall-clock timestamp on a realtime clock; on monotonic or
 * boottime only "@SECONDS", a raw reading of that clock. A time of day
 * alone is never in the past: without --interval it is its next
 * occurrence, as at(1) reads it; with one it sets the grid's phase, and
 * the first expiration is the grid's next (--at 00:00 --interval 1h at
 * 03:10: 04:00), not a catch-up of the hours before. */
static int parse_at(struct job *j, const struct job_context *ctx, const char *text, char *err,
		    size_t errlen)
{
	struct time_context tc = time_context_of(j, ctx);
	struct schedule *s = &j->schedule;
	struct timestamp_form form;
	char why[WHY_MAX];

	tc.upcoming = s->interval_ns == 0;
	if (clock_is_realtime(s->clock)) {
		if (parse_timestamp_form(text, &tc, &s->first_ns, &form, why, sizeof why) != 0)
			return usage(err, errlen, "--at: %s", why);
		j->local_time = form.local && !j->zone;
		if (form.time_of_day && s->interval_ns && s->first_ns < ctx->wall_now_ns &&
		    schedule_next(s, ctx->wall_now_ns - 1, &s->first_ns) != 0)
			return usage(err, errlen, "--at '%s': the first expiration is out of range",
				     text);
		return 0;
	}
	if (text[0] != '@')
		return usage(err, errlen,
			     "--at '%s': with --clock %s only '@SECONDS' (a reading "
			     "of that clock) is accepted",
			     text, j->clock_name);
	if (parse_duration(text + 1, &j->schedule.first_ns, why, sizeof why) != 0)
		return usage(err, errlen, "--at '%s': %s", text, why);
	return 0;
}

static int build_timer(struct job *j, const struct job_options *o, const struct job_context *ctx,
		       char *err, size_t errlen)
{
	struct schedule *s = &j->schedule;
	int64_t delay = 0;

	s->kind = SCHEDULE_TIMER;
	if (o->interval &&
	    parse_option_span("--interval", o->interval, &s->interval_ns, err, errlen))
		return 2;
	if (o->at)
		return parse_at(j, ctx, o->at, err, errlen);
	if (o->delay && parse_option_span("--delay", o->delay, &delay, err, errlen))
		return 2;
	if (!o->delay)
		delay = s->interval_ns;
	if (__builtin_add_overflow(clock_now_for(j, ctx), delay, &s->first_ns))
		return usage(err, errlen, "--%s '%s': the first expiration is out of range",
			     o->delay ? "delay" : "interval", o->delay ? o->delay : o->interval);
	return 0;
}

/* Whether CTX builds a crontab line (run by its file's shell), not a tfd
 * line nor the command line. */
static bool crontab_line(const struct job_context *ctx)
{
	return ctx->in_file && ctx->shell;
}

static int build_wall_schedule(struct job *j, const struct job_options *o,
			       const struct job_context *ctx, char *err, size_t errlen)
{
	struct schedule *s = &j->schedule;
	char why[WHY_MAX];
	int64_t next;

	s->zone = j->zone ? j->zone : ctx->local;
	if (o->calendar) {
		s->kind = SCHEDULE_CALENDAR;
		if (calendar_parse_local(o->calendar, s->zone, tz_cache_lookup, ctx->zones,
					 &j->calendar, why, sizeof why) != 0)
			return usage(err, errlen, "--calendar: %s", why);
		s->calendar = j->calendar;
	} else {
		s->kind = SCHEDULE_CRON;
		/* A crontab line has no --cron to name: its fields are shown. */
		if (cron_parse(o->cron, &j->cron, why, sizeof why) != 0)
			return usage(err, errlen, "%s%s", crontab_line(ctx) ? "" : "--cron: ", why);
		s->cron = j->cron;
	}
	j->local_time = !j->zone && (!o->calendar || calendar_in_local_time(j->calendar));
	if (schedule_next(s, ctx->wall_now_ns, &next) == 0)
		return 0;
	/* A cron expression whose dates never come (0 0 30 2 *, cron's
	 * "never") is what crontab(1) installs and cron loads: the job is
	 * taken and never runs (the caller warns). A calendar event that
	 * never elapses is a mistake, as systemd takes it. */
	if (o->cron && cron_never(j->cron)) {
		j->never = true;
		return 0;
	}
	return usage(err, errlen, "%s '%s': the event never elapses",
		     o->calendar         ? "--calendar"
		     : crontab_line(ctx) ? "the schedule"
					 : "--cron",
		     o->calendar ? o->calendar : o->cron);
}

static int load_zone(struct job *j, const struct job_context *ctx, char *err, size_t errlen)
{
	char why[WHY_MAX];

	if (!ctx->zone_name)
		return 0;
	errno = 0;
	j->zone = tz_load(ctx->zone_name, why, sizeof why);
	if (!j->zone && errno == ENOMEM)
		return out_of_memory(err, errlen);
	if (!j->zone)
		return usage(err, errlen, "CRON_TZ=%s: %s", ctx->zone_name, why);
	return 0;
}

char *job_schedule_words(const struct job_options *o)
{
	const char *names[] = { "--clock",    "--at",   "--delay", "--interval",
				"--calendar", "--cron", "--count", "--for" };
	const char *values[] = { o->clock,    o->at,   o->delay, o->interval,
				 o->calendar, o->cron, o->count, o->for_ };
	size_t len = 1;
	char *text, *p;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (values[i])
			len += strlen(names[i]) + strlen(values[i]) + 4;
	text = p = malloc(len);
	if (!text)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (values[i])
			p += sprintf(p, "%s%s '%s'", p == text ? "" : " ", names[i], values[i]);
	return text;
}

static int build_schedule(struct job *j, const struct job_options *o, const struct job_context *ctx,
			  char *err, size_t errlen)
{
	int status = check_schedule_options(o, err, errlen);

	if (status == 0)
		status = choose_clock(j, o, err, errlen);
	if (status == 0)
		status = load_zone(j, ctx, err, errlen);
	if (status != 0)
		return status;
	j->clock_now_ns = clock_now_for(j, ctx);
	j->start_mono_ns = ctx->mono_now_ns;
	/* A jobs file's line keeps its text (identity): only the command
	 * line's schedule is kept apart, not ten thousand copies. */
	if (!ctx->in_file && !(j->schedule_text = job_schedule_words(o)))
		return out_of_memory(err, errlen);
	if (o->calendar || o->cron)
		return build_wall_schedule(j, o, ctx, err, errlen);
	return build_timer(j, o, ctx, err, errlen);
}

static int build_limits(struct job *j, const struct job_options *o, char *err, size_t errlen)
{
	if (o->count && parse_number("--count", o->count, 1, &j->count, err, errlen))
		return 2;
	if (o->for_) {
		if (parse_option_span("--for", o->for_, &j->for_ns, err, errlen))
			return 2;
		if (j->for_ns == 0)
			return usage(err, errlen, "--for '%s': must be longer than 0", o->for_);
	}
	return 0;
}

/* --fleet: a claim's key is the job's name and the elapse's instant, so
 * every replica must compute the same instants: wall-clock ones from the
 * schedule alone. A --delay or an --interval without --at counts from each
 * replica's own start; other clocks are each machine's own. */
static int check_fleet(const struct job *j, const struct job_options *o,
		       const struct job_context *ctx, char *err, size_t errlen)
{
	static const char fix[] = "give --calendar, --cron or --at (with or without --interval)";

	if (!ctx->fleet || ctx->reboot)
		return 0;
	if (o->delay)
		return usage(err, errlen,
			     "--fleet: --delay %s counts from the start of each "
			     "replica, so replicas would not agree on its instants; %s",
			     o->delay, fix);
	/* clang-format off */
	if (o->interval && !o->at)
		return usage(err, errlen, "--fleet: --interval %s without --at counts from the "
			     "start of each replica, so replicas would not agree on its instants; %s",
			     o->interval, fix);
	/* clang-format on */
	if (!clock_is_realtime(j->schedule.clock))
		return usage(err, errlen,
			     "--fleet: --clock %s differs from machine to machine, "
			     "so replicas would not agree on its instants; use the realtime clock",
			     j->clock_name);
	if (j->run.overlap == OVERLAP_QUEUE || j->run.overlap == OVERLAP_KILL)
		return usage(err, errlen,
			     "--fleet: --overlap %s cannot act on a run of another "
			     "replica; use skip (across the fleet) or parallel",
			     j->run.overlap == OVERLAP_QUEUE ? "queue" : "kill");
	return 0;
}

int job_check_fleet_name(const struct job *j, const struct job_context *ctx, char *err,
			 size_t errlen)
{
	const unsigned char *p = (const unsigned char *)j->name;
	size_t n = strlen(j->name), o = 0;
	char shown[4 * 256 + 1];
	bool bad = false;

	if (!ctx->fleet || j->reboot)
		return 0;
	/* The name shown with its bad bytes as \xNN, cut at 256 bytes. */
	for (size_t i = 0; i < n;) {
		long len = utf8_sequence(p + i, n - i);
		size_t take = len > 0 ? (size_t)len : 1;

		if (i < 256 && o + 4 * take < sizeof shown && len > 0)
			o += (size_t)snprintf(shown + o, sizeof shown - o, "%.*s", (int)take,
					      (const char *)p + i);
		else if (i < 256 && o + 4 < sizeof shown)
			o += (size_t)snprintf(shown + o, sizeof shown - o, "\\x%02x", p[i]);
		bad = bad || len < 0;
		i += take;
	}
	shown[o] = '\0';
	if (!bad)
		return 0;
	return usage(err, errlen,
		     "--fleet: the job's name '%s' is not valid UTF-8, which the "
		     "fleet's database stores and compares; give it a --name that is",
		     shown);
}

/* The command and its runs */

/* The options that act on a job's runs, which a job without a command
 * (one that only prints) has none of: the first given, else NULL. */
static const char *needs_command(const struct job_options *o)
{
	/* clang-format off */
	return o->overlap     ? "--overlap"
	     : o->timeout     ? "--timeout"
	     : o->retry       ? "--retry"
	     : o->retry_delay ? "--retry-delay"
	     : o->tag_output  ? "--tag-output"
	     : o->cgroup      ? "--cgroup"
	     : o->join        ? "--join"
	     : o->user        ? "--user"
	     : o->on_failure  ? "--on-failure"
	     : o->on_success  ? "--on-success"
	     : o->ping        ? "--ping"
	     : o->notify      ? "--notify"
	     : NULL;
	/* clang-format on */
}

static int check_runner_options(const struct job_options *o, const struct job_context *ctx,
				char *err, size_t errlen)
{
	bool command = o->exec || o->command;
	const char *needs = needs_command(o);

	if (o->exec && o->command)
		return usage(err, errlen, "--exec and a COMMAND ('%s') conflict: give one",
			     o->command[0]);
	if (ctx->in_file && !command)
		return usage(err, errlen, "no command: give -- COMMAND or --exec STRING");
	if (!needs || command)
		return 0;
	/* --ping and --notify tell of runs, in tfd(1)'s words ("Telling
	 * someone"). */
	if (strcmp(needs, "--ping") == 0 || strcmp(needs, "--notify") == 0)
		return usage(err, errlen, "%s: the job has no command: it has no runs to tell of",
			     needs);
	return usage(err, errlen, "%s needs a command (--exec STRING or -- COMMAND)", needs);
}

static char **shell_argv(const char *shell, const char *string)
{
	char **argv = calloc(4, sizeof *argv);

	if (!argv)
		return NULL;
	const char *base = strrchr(shell, '/');

	argv[0] = strdup(base ? base + 1 : shell);
	argv[1] = strdup("-c");
	argv[2] = strdup(string);
	if (!argv[0] || !argv[1] || !argv[2]) {
		for (int i = 0; i < 3; i++)
			free(argv[i]);
		free(argv);
		return NULL;
	}
	return argv;
}

static char **copy_argv(char *const *words)
{
	size_t n = 0;
	char **argv;

	while (words[n])
		n++;
	argv = calloc(n + 1, sizeof *argv);
	for (size_t i = 0; argv && i < n; i++) {
		if (!(argv[i] = strdup(words[i]))) {
			while (i--)
				free(argv[i]);
			free(argv);
			return NULL;
		}
	}
	return argv;
}

/* The PATH a jobs file's line sees, else tfd's own. */
static const char *path_of(const struct job_context *ctx)
{
	for (size_t i = 0; ctx->env && ctx->env[i]; i++)
		if (strncmp(ctx->env[i], "PATH=", 5) == 0)
			return ctx->env[i] + 5;
	return getenv("PATH");
}

static int build_command(struct job *j, const struct job_options *o, const struct job_context *ctx,
			 char *err, size_t errlen)
{
	const char *why = NULL;
	char path[4096];
	int found;

	if (o->exec) {
		const char *shell = ctx->shell ? ctx->shell : "/bin/sh";

		j->path = strdup(shell);
		j->argv = shell_argv(shell, o->exec);
		return j->path && j->argv ? 0 : out_of_memory(err, errlen);
	}
	if (!o->command)
		return 0;
	found = resolve_command_in(o->command[0], path_of(ctx), path, sizeof path, &why);
	if (found != 0) {
		snprintf(err, errlen, "'%s': %s", o->command[0], why);
		/* In a jobs file a bad command makes the line bad. */
		return ctx->in_file ? 2 : found;
	}
	j->path = strdup(path);
	j->argv = copy_argv(o->command);
	return j->path && j->argv ? 0 : out_of_memory(err, errlen);
}

static int build_runner(struct job *j, const struct job_options *o, char *err, size_t errlen)
{
	uint64_t retry = 0;

	j->run.retry_delay_ns = NSEC_PER_SEC;
	j->run.tag_output = o->tag_output;
	if (o->overlap && parse_overlap(j, o->overlap, err, errlen))
		return 2;
	if (o->timeout &&
	    parse_option_span("--timeout", o->timeout, &j->run.timeout_ns, err, errlen))
		return 2;
	if (o->retry && parse_number("--retry", o->retry, 0, &retry, err, errlen))
		return 2;
	if (retry > 1000)
		return usage(err, errlen, "--retry '%s': at most 1000", o->retry);
	j->run.retry = (unsigned)retry;
	if (o->retry_delay &&
	    parse_option_span("--retry-delay", o->retry_delay, &j->run.retry_delay_ns, err, errlen))
		return 2;
	if (o->random_delay &&
	    parse_option_span("--random-delay", o->random_delay, &j->random_delay_ns, err, errlen))
		return 2;
	return 0;
}

/* The user the job's runs run as, for its mail's From and Subject: its
 * --user (or system crontab field), else tfd's own. */
static void job_user_name(const struct job *j, char *buf, size_t len)
{
	const struct passwd *pw;

	if (j->run_as) {
		snprintf(buf, len, "%s", j->run_as);
		return;
	}
	pw = getpwuid(geteuid());
	if (pw)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "%lu", (unsigned long)geteuid());
}

/* Whether a line with no MAILTO mails its output to its user: in the
 * files cron itself reads, as cron does; elsewhere (a plain jobs file, the
 * command line) it is printed, as it always was. A host with no MTA
 * installed (no SENDMAIL set, no /usr/sbin/sendmail: a minimal system, a
 * container) prints it too, where cron logs "No MTA installed" and drops
 * it: a mail that cannot go would be an error at every run. Asked at each
 * load, so installing an MTA and reloading starts the mails. */
static bool job_mails_by_default(const struct job_context *ctx)
{
	const char *sendmail = mail_env_value(ctx->env, "SENDMAIL");

	if (!ctx->cron_file)
		return false;
	return (sendmail && *sendmail) || access(MAIL_SENDMAIL, X_OK) == 0;
}

/* MAILTO set and not empty (or unset where job_mails_by_default): the
 * runs' output goes through one pipe into a mail, so the mail keeps the
 * order in which stdout and stderr were written. The Subject names a
 * crontab line's command, a tfd line's job. */
static int build_mail(struct job *j, const struct job_options *o, const struct job_context *ctx)
{
	const char *command = crontab_line(ctx) ? o->exec : NULL;
	bool to_user = job_mails_by_default(ctx);
	char user[256];
	bool none;

	if (!mail_env_value(ctx->env, "MAILTO") && !to_user)
		return 0;
	job_user_name(j, user, sizeof user);
	j->mail = mail_job_new(ctx->env, user, command, to_user, &none);
	if (!j->mail)
		return none ? 0 : -1;
	j->run.tag_output = true;
	j->run.one_pipe = true;
	return 0;
}

static void free_words(char **words)
{
	for (size_t i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}

/* The index of the variable named like VAR ("NAME=...") in VARS (N), or N. */
static size_t find_variable(char *const *vars, size_t n, const char *var)
{
	size_t len = strcspn(var, "=");

	for (size_t i = 0; i < n; i++)
		if (strncmp(vars[i], var, len + 1) == 0)
			return i;
	return n;
}

/* Whether VARS (NULL-terminated, or NULL) sets the variable of VAR. */
static bool sets_variable(char *const *vars, const char *var)
{
	size_t n = 0;

	while (vars && vars[n])
		n++;
	return find_variable(vars, n, var) < n;
}

/* A run as another user: tfd is root and the run takes another uid. Its
 * runs start from cron's environment, in a session of their own (spawn.h). */
static bool another_user(const struct job *j)
{
	return j->user.spec && j->user.change && j->user.uid != geteuid();
}

/* What a run as another user has where the file sets nothing, as cron
 * gives it: the file's SHELL, else /bin/sh; the file's PATH, else cron's. */
static const char *const clean_defaults[] = { "SHELL=/bin/sh", "PATH=/usr/bin:/bin" };

/* Appends to VARS (K of them) the entries of DEFAULTS (N) that it does
 * not set. Returns the new count, or -1 when out of memory. */
static ssize_t add_defaults(char **vars, size_t k, const char *const *defaults, size_t n)
{
	for (size_t d = 0; d < n; d++) {
		if (find_variable(vars, k, defaults[d]) < k)
			continue;
		if (!(vars[k] = strdup(defaults[d])))
			return -1;
		k++;
	}
	return (ssize_t)k;
}

/* The variables a run's environment adds to tfd's (or, for another user,
 * has instead of tfd's), into VARS (room for the file's and 5 more): the
 * file's lines, then the user's as cron sets them: HOME unless the file
 * sets it, LOGNAME and USER always (crontab(5): LOGNAME may not be
 * changed). Returns how many, or -1 when out of memory. */
static ssize_t added_variables(const struct job *j, const struct job_context *ctx, char **vars)
{
	size_t m = 0, k;
	ssize_t got;

	while (ctx->env && ctx->env[m])
		m++;
	for (k = 0; k < m; k++)
		if (!(vars[k] = strdup(ctx->env[k])))
			return -1;
	if (!j->user.spec)
		return (ssize_t)k;
	/* Another user's runs start from cron's environment; a crontab line
	 * of a file cron reads that runs as tfd's own user (root's lines)
	 * gets cron's SHELL too, whatever tfd's environment has. */
	if (another_user(j) || (ctx->cron_file && crontab_line(ctx))) {
		if ((got = add_defaults(vars, k, clean_defaults, another_user(j) ? 2 : 1)) < 0)
			return -1;
		k = (size_t)got;
	}
	const char *names[] = { "HOME", "LOGNAME", "USER" };
	const char *values[] = { j->user.home, j->user.name, j->user.name };

	for (size_t v = 0; v < 3; v++) {
		char *var = malloc(strlen(names[v]) + strlen(values[v]) + 2);
		size_t at;

		if (!var)
			return -1;
		sprintf(var, "%s=%s", names[v], values[v]);
		at = find_variable(vars, k, var);
		if (at < k && v == 0) {
			free(var);
			continue;
		}
		if (at < k)
			free(vars[at]);
		else
			k++;
		vars[at] = var;
	}
	return (ssize_t)k;
}

/* With --fleet, tfd's environment may hold the database's credentials
 * (PGPASSWORD, PGUSER, PGHOST, ...): no run gets a PG* variable of tfd's;
 * a job that needs one sets it in the jobs file. */
static bool fleet_secret(const struct job_context *ctx, const char *entry)
{
	return ctx->fleet && strncmp(entry, "PG", 2) == 0;
}

/* The environment the runs start from: tfd's (none of it for another
 * user; no PG* with --fleet), then the file's lines and the user's
 * variables (owned by it). NULL when memory ran out. */
static struct runner_env *new_environment(const struct job *j, const struct job_context *ctx)
{
	extern char **environ;
	size_t n = 0, m = 0, k = 0;
	char **vars, **envp;
	struct runner_env *env;
	ssize_t added;

	if ((!ctx->env || !ctx->env[0]) && !j->user.spec && !ctx->fleet)
		return runner_env_new(NULL, NULL);
	while (ctx->env && ctx->env[m])
		m++;
	if (!(vars = calloc(m + 6, sizeof *vars)))
		return NULL;
	if ((added = added_variables(j, ctx, vars)) < 0) {
		free_words(vars);
		return NULL;
	}
	while (!another_user(j) && environ[n])
		n++;
	if (!(envp = calloc(n + (size_t)added + 1, sizeof *envp))) {
		free_words(vars);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (find_variable(vars, (size_t)added, environ[i]) == (size_t)added &&
		    !fleet_secret(ctx, environ[i]))
			envp[k++] = environ[i];
	for (size_t e = 0; e < (size_t)added; e++)
		if (!runner_variable(vars[e]))
			envp[k++] = vars[e];
	env = runner_env_new(envp, vars);
	free(envp);
	return env;
}

/* What tells two jobs' environments apart besides their section: the
 * user their runs run as, and whether it is another than tfd's. */
static char *environment_user(const struct job *j)
{
	char *key;

	if (!j->user.spec)
		return NULL;
	if (asprintf(&key, "%d:%lu:%s:%s", another_user(j), (unsigned long)j->user.uid,
		     j->user.name, j->user.home) < 0)
		return NULL;
	return key;
}

/* The environment of J's runs: one a load already built for the same
 * section and user (ctx->envs keeps the last few, and a section's lines
 * come one after the other), else a new one, kept for the lines after.
 * Returns 0, or -1 when memory ran out. */
static int build_job_environment(struct job *j, const struct job_context *ctx)
{
	struct job_envs *envs = ctx->envs;
	char *user = environment_user(j);
	struct job_env_kept *slot;

	if (j->user.spec && !user)
		return -1;
	for (unsigned i = 0; envs && i < JOB_ENVS_KEPT; i++) {
		slot = &envs->kept[i];
		if (slot->env && slot->section == ctx->env &&
		    (slot->user && user ? strcmp(slot->user, user) == 0 : slot->user == user)) {
			j->env = runner_env_hold(slot->env);
			free(user);
			return 0;
		}
	}
	if (!(j->env = new_environment(j, ctx))) {
		free(user);
		return -1;
	}
	if (!envs) {
		free(user);
		return 0;
	}
	slot = &envs->kept[envs->next++ % JOB_ENVS_KEPT];
	runner_env_drop(slot->env);
	free(slot->user);
	*slot = (struct job_env_kept){ ctx->env, user, runner_env_hold(j->env) };
	return 0;
}

void job_envs_free(struct job_envs *envs)
{
	for (unsigned i = 0; i < JOB_ENVS_KEPT; i++) {
		runner_env_drop(envs->kept[i].env);
		free(envs->kept[i].user);
	}
	*envs = (struct job_envs){ 0 };
}

/* --user: looked up (unless the jobs file's cache did), kept by the job,
 * and handed to the runs' target. */
static int build_user(struct job *j, const struct job_options *o, const struct job_context *ctx,
		      char *err, size_t errlen)
{
	char why[WHY_MAX];
	int status = 0;

	if (!o->user)
		return 0;
	if (ctx->user)
		status = run_user_copy(&j->user, ctx->user) == 0 ? 0 : out_of_memory(err, errlen);
	else if ((status = run_user_resolve(o->user, &j->user, why, sizeof why)) != 0)
		snprintf(err, errlen, "--%s", why);
	if (status != 0)
		return status;
	j->run_as = j->user.name;
	j->target.set_user = j->user.change;
	j->target.uid = j->user.uid;
	j->target.gid = j->user.gid;
	j->target.groups = j->user.groups;
	j->target.ngroups = j->user.ngroups;
	if (another_user(j)) {
		j->session.user = j->user.spec;
		j->session.uid = j->user.uid;
		j->target.session = &j->session;
	}
	return 0;
}

/* --on-failure and --on-success: a shell command each, run with the
 * job's shell (a crontab line's SHELL, else /bin/sh), as --exec is. */
static int build_hooks(struct job *j, const struct job_options *o, const struct job_context *ctx,
		       char *err, size_t errlen)
{
	/* clang-format off */
	const char *given[HOOK_KINDS] = { [HOOK_FAILURE] = o->on_failure,
					  [HOOK_SUCCESS] = o->on_success };
	/* clang-format on */
	bool any = false;

	for (int k = 0; k < HOOK_KINDS; k++) {
		if (!given[k])
			continue;
		if (!given[k][0])
			return usage(err, errlen, "--%s: empty: give the shell command to run",
				     hook_kind_name((enum hook_kind)k));
		if (!(j->hooks.command[k] = strdup(given[k])))
			return out_of_memory(err, errlen);
		any = true;
	}
	if (any && !(j->hooks.shell = strdup(ctx->shell ? ctx->shell : "/bin/sh")))
		return out_of_memory(err, errlen);
	return 0;
}

static int build_output(struct job *j, const struct job_options *o, char *err, size_t errlen)
{
	char why[WHY_MAX];

	if (o->format && format_check(o->format, why, sizeof why) != 0)
		return usage(err, errlen, "--format: %s", why);
	if (o->format && !(j->format = strdup(o->format)))
		return out_of_memory(err, errlen);
	return 0;
}

/* --ping, --notify: whom its runs are told to (check_runner_options
 * refused them to a job without a command). */
static int build_notify(struct job *j, const struct job_options *o, char *err, size_t errlen)
{
	return notify_target_build(o->ping, o->notify, o->notify_on, &j->notify, err, errlen);
}

int job_build(const struct job_options *o, const struct job_context *ctx, struct job **out,
	      char *err, size_t errlen)
{
	struct job *j = calloc(1, sizeof *j);
	int status;

	if (!j)
		return out_of_memory(err, errlen);
	j->target = (struct spawn_target){ .cgroup_fd = -1, .join_pidfd = -1 };
	j->run_as = ctx->own_user;
	if ((status = build_limits(j, o, err, errlen)) ||
	    (status = build_schedule(j, o, ctx, err, errlen)) ||
	    (status = check_runner_options(o, ctx, err, errlen)) ||
	    (status = build_runner(j, o, err, errlen)) ||
	    (status = check_fleet(j, o, ctx, err, errlen)) ||
	    (status = build_output(j, o, err, errlen)) ||
	    (status = build_command(j, o, ctx, err, errlen)) ||
	    (status = build_hooks(j, o, ctx, err, errlen)) ||
	    (status = build_user(j, o, ctx, err, errlen)) ||
	    (status = build_notify(j, o, err, errlen))) {
		job_free(j);
		return status;
	}
	if (build_job_environment(j, ctx) != 0 || build_mail(j, o, ctx) != 0 ||
	    (ctx->input && !(j->input = strdup(ctx->input)))) {
		job_free(j);
		return out_of_memory(err, errlen);
	}
	j->envp = runner_env_base(j->env);
	j->file_env = runner_env_owned(j->env);
	j->session.keep_home = j->user.spec && sets_variable(ctx->env, "HOME=");
	/* Another user's run never writes on tfd's terminal, where it could
	 * push input into the shell that started tfd (TIOCSTI): its output
	 * comes through pipes, as --tag-output reads it. */
	if (another_user(j) && (isatty(STDOUT_FILENO) || isatty(STDERR_FILENO)))
		j->run.tag_output = true;
	j->run.env = j->env;
	j->run.path = j->path;
	j->run.argv = j->argv;
	j->run.input = j->input;
	j->run.replica = ctx->replica;
	j->run.target = &j->target;
	*out = j;
	return 0;
}

/* Descriptors and files */

/* --persist: a missing file is created with the start time; a file whose
 * time is older than a scheduled expiration means a missed run. */
static int open_persist(struct job *j, const char *path, bool dry_run, char *err, size_t errlen)
{
	int64_t now = clock_now_ns(CLOCK_REALTIME), last;
	int found;

	if (persist_check_path(path, err, errlen) != 0)
		return 2;
	found = persist_read(path, &last, err, errlen);
	if (found < 0)
		return found == -2 ? 2 : 1;
	if (!(j->persist_path = strdup(path)))
		return out_of_memory(err, errlen);
	if (dry_run)
		return 0;
	if (found == 0)
		return persist_write(path, now, err, errlen) == 0 ? 0 : 1;
	j->persist_catch_up = schedule_missed(&j->schedule, last, now);
	return 0;
}

int job_open(struct job *j, const struct job_options *o, const struct job_context *ctx, char *err,
	     size_t errlen)
{
	int status = 0;

	if (o->cgroup && spawn_open_cgroup(&j->target, o->cgroup, &status, err, errlen) != 0)
		return status;
	if (o->join && spawn_open_join(&j->target, o->join, &status, err, errlen) != 0)
		return status;
	/* libpam is loaded here, in tfd, once, for every run's child. */
	if (j->path && j->target.session && !ctx->dry_run && ctx->pam)
		j->session.pam = pam_load(ctx->pam);
	if (j->path && ctx->reset_known) {
		j->target.reset_known = true;
		j->target.reset_mask = ctx->reset_mask;
	} else if (j->path) {
		spawn_note_signals(&j->target);
	}
	if (o->persist)
		return open_persist(j, o->persist, ctx->dry_run, err, errlen);
	return 0;
}

void job_free(struct job *j)
{
	if (!j)
		return;
	spawn_target_close(&j->target);
	calendar_free(j->calendar);
	cron_free(j->cron);
	tz_free(j->zone);
	free(j->name);
	free(j->name_base);
	free(j->file);
	free(j->identity);
	free(j->schedule_text);
	free(j->format);
	free(j->path);
	free_words(j->argv);
	runner_env_drop(j->env);
	run_user_free(&j->user);
	free(j->input);
	free(j->persist_path);
	mail_job_free(j->mail);
	job_hooks_free(&j->hooks);
	notify_target_free(&j->notify);
	free(j);
}
