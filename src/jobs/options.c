/* SPDX-License-Identifier: MIT */
#include "options.h"

#include <errno.h>
#include <popt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fleet.h"
#include "nearest.h"
#include "oplog.h"

enum option_code {
	/* per-job text options */
	OPT_NAME = 1,
	OPT_CLOCK,
	OPT_AT,
	OPT_DELAY,
	OPT_INTERVAL,
	OPT_COUNT,
	OPT_FOR,
	OPT_CALENDAR,
	OPT_CRON,
	OPT_EXEC,
	OPT_FORMAT,
	OPT_OVERLAP,
	OPT_TIMEOUT,
	OPT_RETRY,
	OPT_RETRY_DELAY,
	OPT_RANDOM_DELAY,
	OPT_PERSIST,
	OPT_CGROUP,
	OPT_JOIN,
	OPT_USER,
	OPT_TAG_OUTPUT,
	/* hooks */
	OPT_ON_FAILURE,
	OPT_ON_SUCCESS,
	/* the process */
	OPT_JOBS,
	OPT_DRY_RUN,
	OPT_BASE_TIME,
	OPT_METRICS,
	OPT_JSON,
	OPT_QUIET,
	OPT_VERBOSE,
	OPT_PRECISE,
	OPT_STATS,
	OPT_EXIT_ON_ERROR,
	OPT_SYSTEM_CRONTAB,
	OPT_USER_CRONTABS,
	OPT_FLEET,
	OPT_REPLICA,
	OPT_FLEET_LEASE,
	OPT_FLEET_DEADLINE,
	OPT_FLEET_KEEP,
	OPT_HELP,
	OPT_USAGE,
	OPT_VERSION,
	OPT_CONTROL,
	OPT_LISTEN,
	OPT_FLEET_SQL,
	OPT_ON_STOP,
	OPT_KILL_AFTER,
	OPT_LOG_RUNS,
	/* per-job: telling someone (notify_url.h) */
	OPT_PING,
	OPT_NOTIFY,
	OPT_NOTIFY_ON,
};

/* Where each text option lands in struct options. */
static const size_t text_field[] = {
	[OPT_NAME] = offsetof(struct options, job.name),
	[OPT_CLOCK] = offsetof(struct options, job.clock),
	[OPT_AT] = offsetof(struct options, job.at),
	[OPT_DELAY] = offsetof(struct options, job.delay),
	[OPT_INTERVAL] = offsetof(struct options, job.interval),
	[OPT_COUNT] = offsetof(struct options, job.count),
	[OPT_FOR] = offsetof(struct options, job.for_),
	[OPT_CALENDAR] = offsetof(struct options, job.calendar),
	[OPT_CRON] = offsetof(struct options, job.cron),
	[OPT_EXEC] = offsetof(struct options, job.exec),
	[OPT_FORMAT] = offsetof(struct options, job.format),
	[OPT_OVERLAP] = offsetof(struct options, job.overlap),
	[OPT_TIMEOUT] = offsetof(struct options, job.timeout),
	[OPT_RETRY] = offsetof(struct options, job.retry),
	[OPT_RETRY_DELAY] = offsetof(struct options, job.retry_delay),
	[OPT_RANDOM_DELAY] = offsetof(struct options, job.random_delay),
	[OPT_PERSIST] = offsetof(struct options, job.persist),
	[OPT_CGROUP] = offsetof(struct options, job.cgroup),
	[OPT_JOIN] = offsetof(struct options, job.join),
	[OPT_USER] = offsetof(struct options, job.user),
	[OPT_ON_FAILURE] = offsetof(struct options, job.on_failure),
	[OPT_ON_SUCCESS] = offsetof(struct options, job.on_success),
	[OPT_DRY_RUN] = offsetof(struct options, dry_run),
	[OPT_BASE_TIME] = offsetof(struct options, base_time),
	[OPT_METRICS] = offsetof(struct options, metrics),
	[OPT_USER_CRONTABS] = offsetof(struct options, user_crontabs),
	[OPT_FLEET] = offsetof(struct options, fleet),
	[OPT_REPLICA] = offsetof(struct options, replica),
	[OPT_FLEET_LEASE] = offsetof(struct options, fleet_lease),
	[OPT_FLEET_DEADLINE] = offsetof(struct options, fleet_deadline),
	[OPT_FLEET_KEEP] = offsetof(struct options, fleet_keep),
	[OPT_CONTROL] = offsetof(struct options, control),
	[OPT_LISTEN] = offsetof(struct options, listen),
	[OPT_ON_STOP] = offsetof(struct options, on_stop),
	[OPT_KILL_AFTER] = offsetof(struct options, kill_after),
	[OPT_PING] = offsetof(struct options, job.ping),
	[OPT_NOTIFY] = offsetof(struct options, job.notify),
	[OPT_NOTIFY_ON] = offsetof(struct options, job.notify_on),
};

/* Tables: the per-job ones make up a tfd line's whole vocabulary. */

/* clang-format off */
static struct poptOption job_schedule_table[] = {
	{ "name", '\0', POPT_ARG_STRING, NULL, OPT_NAME, "the job's name (%j, \"job\", TFD_JOB)", "NAME" },
	{ "clock", 'c', POPT_ARG_STRING, NULL, OPT_CLOCK,
	  "clock: monotonic (default), realtime, boottime, realtime-alarm, boottime-alarm", "CLOCK" },
	{ "at", 'a', POPT_ARG_STRING, NULL, OPT_AT, "first expiration at an absolute time", "TIMESTAMP" },
	{ "delay", 'd', POPT_ARG_STRING, NULL, OPT_DELAY, "first expiration DURATION from now", "DURATION" },
	{ "interval", 'i', POPT_ARG_STRING, NULL, OPT_INTERVAL, "period after the first expiration", "DURATION" },
	{ "count", 'n', POPT_ARG_STRING, NULL, OPT_COUNT, "stop after N expirations", "N" },
	{ "for", '\0', POPT_ARG_STRING, NULL, OPT_FOR, "stop DURATION after start", "DURATION" },
	{ "calendar", '\0', POPT_ARG_STRING, NULL, OPT_CALENDAR, "systemd.time(7) calendar event", "SPEC" },
	{ "cron", '\0', POPT_ARG_STRING, NULL, OPT_CRON, "5-field cron expression or @daily etc.", "EXPR" },
	POPT_TABLEEND
};

static struct poptOption job_action_table[] = {
	{ "exec", 'e', POPT_ARG_STRING, NULL, OPT_EXEC, "run STRING with /bin/sh -c on each wake-up", "STRING" },
	{ "format", 'f', POPT_ARG_STRING, NULL, OPT_FORMAT, "the line printed per wake-up (default '%n %t %e')", "FMT" },
	{ "tag-output", '\0', POPT_ARG_NONE, NULL, OPT_TAG_OUTPUT,
	  "read each run's output and write it as 'JOB[SEQ]: LINE'", NULL },
	POPT_TABLEEND
};

static struct poptOption job_runner_table[] = {
	{ "overlap", '\0', POPT_ARG_STRING, NULL, OPT_OVERLAP,
	  "a run still going at the next wake-up: skip (default), queue, kill, parallel", "POLICY" },
	{ "timeout", '\0', POPT_ARG_STRING, NULL, OPT_TIMEOUT, "SIGTERM a run after DURATION, SIGKILL --kill-after later", "DURATION" },
	{ "retry", '\0', POPT_ARG_STRING, NULL, OPT_RETRY, "try a failing run up to N more times", "N" },
	{ "retry-delay", '\0', POPT_ARG_STRING, NULL, OPT_RETRY_DELAY,
	  "the first wait before a retry, doubling each time (default 1s)", "DURATION" },
	{ "random-delay", '\0', POPT_ARG_STRING, NULL, OPT_RANDOM_DELAY, "delay each action by a random 0..DURATION", "DURATION" },
	{ "persist", '\0', POPT_ARG_STRING, NULL, OPT_PERSIST, "remember the last run in FILE; make up a missed one", "FILE" },
	{ "cgroup", '\0', POPT_ARG_STRING, NULL, OPT_CGROUP, "start each run in the cgroup v2 directory DIR", "DIR" },
	{ "join", '\0', POPT_ARG_STRING, NULL, OPT_JOIN, "start each run in the namespaces of process PID", "PID" },
	{ "user", '\0', POPT_ARG_STRING, NULL, OPT_USER,
	  "run each run as USER (its groups, HOME, LOGNAME, USER), or with GROUP", "USER[:GROUP]" },
	POPT_TABLEEND
};

/* After a run: its hooks (hooks.h). */
static struct poptOption job_hook_table[] = {
	{ "on-failure", '\0', POPT_ARG_STRING, NULL, OPT_ON_FAILURE,
	  "run STRING with the shell after a run fails (after its last try)", "STRING" },
	{ "on-success", '\0', POPT_ARG_STRING, NULL, OPT_ON_SUCCESS,
	  "run STRING with the shell after a run succeeds", "STRING" },
	POPT_TABLEEND
};

/* Telling someone: --ping, --notify (notify_url.h). */
static struct poptOption job_notify_table[] = {
	{ "ping", '\0', POPT_ARG_STRING, NULL, OPT_PING,
	  "ping URL/start, URL, URL/fail as healthchecks.io takes them, with each run's id", "URL" },
	{ "notify", '\0', POPT_ARG_STRING, NULL, OPT_NOTIFY,
	  "POST each failed run's \"exit\" event to URL as JSON", "URL" },
	{ "notify-on", '\0', POPT_ARG_STRING, NULL, OPT_NOTIFY_ON,
	  "which runs --notify tells of: failure (default), always", "WHEN" },
	POPT_TABLEEND
};

static struct poptOption process_table[] = {
	{ "jobs", '\0', POPT_ARG_STRING, NULL, OPT_JOBS,
	  "run every job of PATH, a file or a directory of files (see tfd-jobs(5)); repeatable", "PATH" },
	{ "system-crontab", '\0', POPT_ARG_NONE, NULL, OPT_SYSTEM_CRONTAB,
	  "crontab lines name a user before the command, as /etc/crontab and /etc/cron.d", NULL },
	{ "user-crontabs", '\0', POPT_ARG_STRING, NULL, OPT_USER_CRONTABS,
	  "run each file of DIR (a crontab spool) as the user it is named after", "DIR" },
	{ "dry-run", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_DRY_RUN,
	  "print the next N (default 5) expirations and exit", "N" },
	{ "base-time", '\0', POPT_ARG_STRING, NULL, OPT_BASE_TIME, "with --dry-run: take this as now", "TIMESTAMP" },
	{ "json", 'j', POPT_ARG_NONE, NULL, OPT_JSON, "one JSON object a line", NULL },
	{ "quiet", 'q', POPT_ARG_NONE, NULL, OPT_QUIET, "print no tick lines", NULL },
	{ "verbose", 'v', POPT_ARG_NONE, NULL, OPT_VERBOSE, "print the timer's setting on stderr", NULL },
	{ "precise", '\0', POPT_ARG_NONE, NULL, OPT_PRECISE, "SCHED_FIFO, mlockall, no C-states, 1 ns slack", NULL },
	{ "stats", '\0', POPT_ARG_NONE, NULL, OPT_STATS, "print a lateness summary on stderr at exit", NULL },
	{ "exit-on-error", 'E', POPT_ARG_NONE, NULL, OPT_EXIT_ON_ERROR, "stop at the first failing run", NULL },
	{ "on-stop", '\0', POPT_ARG_STRING, NULL, OPT_ON_STOP,
	  "what SIGTERM and SIGINT do to the runs going: forward (default), wait, leave", "HOW" },
	{ "kill-after", '\0', POPT_ARG_STRING, NULL, OPT_KILL_AFTER,
	  "SIGKILL a run DURATION after tfd's SIGTERM (stop, --timeout, kill; default 5s)", "DURATION" },
	{ "log-runs", '\0', POPT_ARG_NONE, NULL, OPT_LOG_RUNS,
	  "a line on stderr for each run's start and end, as cron logs them", NULL },
	{ "metrics", '\0', POPT_ARG_STRING, NULL, OPT_METRICS,
	  "keep FILE current in the Prometheus text format", "FILE" },
	{ "control", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_CONTROL,
	  "answer tfdctl on a Unix socket (default /run/tfd/control as root, "
	  "else $XDG_RUNTIME_DIR/tfd/control)", "PATH" },
	{ "listen", '\0', POPT_ARG_STRING, NULL, OPT_LISTEN,
	  "serve /metrics, /healthz, /readyz and /jobs over HTTP on ADDR:PORT", "[ADDR:]PORT" },
	POPT_TABLEEND
};

static struct poptOption fleet_table[] = {
	{ "fleet", '\0', POPT_ARG_STRING, NULL, OPT_FLEET,
	  "run each elapse once among the replicas sharing this PostgreSQL database", "CONNINFO" },
	{ "replica", '\0', POPT_ARG_STRING, NULL, OPT_REPLICA,
	  "this replica's name (default HOSTNAME:PID)", "ID" },
	{ "fleet-lease", '\0', POPT_ARG_STRING, NULL, OPT_FLEET_LEASE,
	  "a running claim's lease, renewed every lease/6 (default 60s)", "DURATION" },
	{ "fleet-deadline", '\0', POPT_ARG_STRING, NULL, OPT_FLEET_DEADLINE,
	  "how late an elapse may still be claimed (default 60s)", "DURATION" },
	{ "fleet-keep", '\0', POPT_ARG_STRING, NULL, OPT_FLEET_KEEP,
	  "delete finished rows older than this (default 30d)", "DURATION" },
	{ "fleet-sql", '\0', POPT_ARG_NONE, NULL, OPT_FLEET_SQL,
	  "print the SQL that creates the fleet's tables, for an administrator, and exit", NULL },
	POPT_TABLEEND
};

static struct poptOption help_table[] = {
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	{ "usage", '\0', POPT_ARG_NONE, NULL, OPT_USAGE, "show a short usage message and exit", NULL },
	{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
	POPT_TABLEEND
};
/* clang-format on */

static struct poptOption option_table[] = {
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_schedule_table, 0, "Schedule:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_action_table, 0, "On each wake-up:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_runner_table, 0, "Running commands:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_hook_table, 0, "After a run:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_notify_table, 0, "Telling someone:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, process_table, 0, "The whole process:", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, fleet_table, 0, "Replicas (a fleet):", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, help_table, 0, "Help:", NULL },
	POPT_TABLEEND
};

static struct poptOption job_line_table[] = {
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_schedule_table, 0, NULL, NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_action_table, 0, NULL, NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_runner_table, 0, NULL, NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_hook_table, 0, NULL, NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, job_notify_table, 0, NULL, NULL },
	POPT_TABLEEND
};

/* Storing */

static bool *flag_field(struct options *o, int code)
{
	/* clang-format off */
	switch (code) {
	case OPT_TAG_OUTPUT: return &o->job.tag_output;
	case OPT_JSON: return &o->json;
	case OPT_QUIET: return &o->quiet;
	case OPT_VERBOSE: return &o->verbose;
	case OPT_PRECISE: return &o->precise;
	case OPT_STATS: return &o->stats;
	case OPT_EXIT_ON_ERROR: return &o->exit_on_error;
	case OPT_SYSTEM_CRONTAB: return &o->system_crontab;
	case OPT_LOG_RUNS: return &o->log_runs;
	default: return NULL;
	}
	/* clang-format on */
}

/* --jobs is repeatable: every PATH is kept, in order; o->jobs is the first.
 * Returns -1 when memory ran out. */
static int add_jobs_path(struct options *o, char *arg)
{
	/* One more, and the NULL after it. */
	if (array_reserve(&o->jobs_all, &o->jobs_cap, o->jobs_n + 2, sizeof *o->jobs_all,
			  SIZE_MAX) != 0) {
		free(arg);
		return -1;
	}
	o->jobs_all[o->jobs_n++] = arg;
	o->jobs_all[o->jobs_n] = NULL;
	o->jobs = o->jobs_all[0];
	return 0;
}

/* Takes ARG (popt's allocation, now ours). The last of a repeated option
 * wins, as with getopt, but for --jobs. Returns -1 when memory ran out. */
static int store(struct options *o, int code, char *arg)
{
	bool *flag = flag_field(o, code);

	if (code == OPT_JOBS)
		return add_jobs_path(o, arg);
	if (code == OPT_DRY_RUN)
		o->dry_run_given = true;
	if (code == OPT_CONTROL)
		o->control_given = true;
	if (flag) {
		*flag = true;
		free(arg);
		return 0;
	}
	if (code > 0 && (size_t)code < sizeof text_field / sizeof text_field[0] &&
	    (text_field[code] || code == OPT_NAME)) {
		char **field = (char **)((char *)o + text_field[code]);

		free(*field);
		*field = arg;
		return 0;
	}
	free(arg);
	return 0;
}

static char **copy_words(const char **words)
{
	size_t n = 0;
	char **copy;

	if (!words)
		return NULL;
	while (words[n])
		n++;
	copy = calloc(n + 1, sizeof *copy);
	if (!copy)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		copy[i] = strdup(words[i]);
		if (!copy[i]) {
			for (size_t j = 0; j < i; j++)
				free(copy[j]);
			free(copy);
			return NULL;
		}
	}
	return copy;
}

int finish_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	if (errno == EPIPE)
		return 0;
	fprintf(stderr, "tfd: write (stdout): %s\n", strerror(errno ? errno : EIO));
	return 1;
}

static int out_of_memory(void)
{
	fputs("tfd: out of memory\n", stderr);
	return 1;
}

/* Did you mean */

/* The long names of TABLE and the tables it includes, offered to N. */
static void offer_long_names(const struct poptOption *table, struct nearest *n)
{
	for (const struct poptOption *t = table; t->longName || t->shortName || t->arg; t++) {
		if ((t->argInfo & POPT_ARG_MASK) == POPT_ARG_INCLUDE_TABLE)
			offer_long_names(t->arg, n);
		else if (t->longName)
			nearest_offer(n, t->longName);
	}
}

const char *options_suggest(const char *bad, bool job_line)
{
	char word[NEAREST_LEN_MAX + 1];
	struct nearest near;
	size_t len;

	if (strncmp(bad, "--", 2) != 0)
		return NULL;
	bad += 2;
	len = strcspn(bad, "=");
	if (len == 0 || len > NEAREST_LEN_MAX)
		return NULL;
	memcpy(word, bad, len);
	word[len] = '\0';
	nearest_begin(&near, word);
	offer_long_names(job_line ? job_line_table : option_table, &near);
	return nearest_found(&near);
}

/* Room for put_suggestion's text: the name in it is one of tfd's
 * options, each far shorter. */
#define HINT_MAX 96

/* "; did you mean --interval?" after the message about BAD, or "". */
static void put_suggestion(char *buf, size_t len, const char *bad, bool job_line)
{
	const char *nearest = options_suggest(bad, job_line);

	if (nearest)
		snprintf(buf, len, "; did you mean --%s?", nearest);
	else
		buf[0] = '\0';
}

/* Reading */

int options_read(int argc, const char **argv, struct options *o)
{
	poptContext ctx = poptGetContext("tfd", argc, argv, option_table,
					 POPT_CONTEXT_POSIXMEHARDER);
	int rc, status = OPTIONS_GO_ON;

	*o = (struct options){ 0 };
	if (!ctx)
		return out_of_memory();
	poptSetOtherOptionHelp(ctx, "[OPTION...] [--] [COMMAND [ARG...]]");
	while (status == OPTIONS_GO_ON && (rc = poptGetNextOpt(ctx)) >= 0) {
		if (rc == OPT_HELP) {
			poptPrintHelp(ctx, stdout, 0);
			fputs("\nMore in the manual: man tfd (options, signals, exit status),\n"
			      "man tfd-jobs (the jobs file), man tfdctl (a running tfd),\n"
			      "man tfd-cron (tfd as the host's cron),"
			      " man tfd-fleet (replicas on PostgreSQL).\n",
			      stdout);
			status = finish_stdout();
		} else if (rc == OPT_USAGE) {
			poptPrintUsage(ctx, stdout, 0);
			status = finish_stdout();
		} else if (rc == OPT_VERSION) {
			printf("tfd %s\n", TFD_VERSION);
			status = finish_stdout();
		} else if (rc == OPT_FLEET_SQL) {
			fputs(fleet_sql_ddl, stdout);
			status = finish_stdout();
		} else if (store(o, rc, poptGetOptArg(ctx)) != 0) {
			status = out_of_memory();
		}
	}
	if (status == OPTIONS_GO_ON && rc < -1) {
		const char *bad = poptBadOption(ctx, POPT_BADOPTION_NOALIAS);
		char hint[HINT_MAX] = "";

		if (rc == POPT_ERROR_BADOPT)
			put_suggestion(hint, sizeof hint, bad, false);
		oplog_stderr(OPLOG_ERR, "tfd: %s: %s%s\n", bad, poptStrerror(rc), hint);
		oplog_stderr(OPLOG_ERR, "Try 'tfd --help'.\n");
		status = 2;
	}
	if (status == OPTIONS_GO_ON && poptPeekArg(ctx)) {
		o->job.command = copy_words(poptGetArgs(ctx));
		if (!o->job.command)
			status = out_of_memory();
	}
	poptFreeContext(ctx);
	return status;
}

int options_read_job_line(char *const *words, const struct job_options *defaults,
			  struct job_options *out, char *err, size_t errlen)
{
	struct options o = { 0 };
	const char **argv;
	size_t n = 0;
	poptContext ctx;
	int rc, status = 0;

	while (words[n])
		n++;
	argv = calloc(n + 2, sizeof *argv);
	if (!argv || job_options_copy(&o.job, defaults) != 0) {
		free(argv);
		job_options_free(&o.job);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	argv[0] = "tfd";
	memcpy(argv + 1, words, n * sizeof *argv);
	ctx = poptGetContext("tfd", (int)n + 1, argv, job_line_table, POPT_CONTEXT_POSIXMEHARDER);
	if (!ctx) {
		snprintf(err, errlen, "out of memory");
		status = -1;
	}
	/* A job line's table has no --jobs: store cannot fail here. */
	while (status == 0 && (rc = poptGetNextOpt(ctx)) >= 0)
		store(&o, rc, poptGetOptArg(ctx));
	if (status == 0 && rc < -1) {
		const char *bad = poptBadOption(ctx, POPT_BADOPTION_NOALIAS);
		char hint[HINT_MAX] = "";

		if (rc == POPT_ERROR_BADOPT)
			put_suggestion(hint, sizeof hint, bad, true);
		snprintf(err, errlen, "%s: %s%s", bad,
			 rc == POPT_ERROR_BADOPT ? "not an option of a job line" : poptStrerror(rc),
			 hint);
		status = -1;
	}
	if (status == 0 && poptPeekArg(ctx)) {
		for (size_t i = 0; o.job.command && o.job.command[i]; i++)
			free(o.job.command[i]);
		free(o.job.command);
		o.job.command = copy_words(poptGetArgs(ctx));
		if (!o.job.command) {
			snprintf(err, errlen, "out of memory");
			status = -1;
		}
	}
	if (ctx)
		poptFreeContext(ctx);
	free(argv);
	if (status != 0)
		job_options_free(&o.job);
	else
		*out = o.job;
	return status;
}

/* Copies */

static char *const *job_text_fields(const struct job_options *o, size_t *n)
{
	/* clang-format off */
	*n = (offsetof(struct job_options, user) - offsetof(struct job_options, name)) /
		     sizeof(char *) + 1;
	/* clang-format on */
	return &o->name;
}

int job_options_copy(struct job_options *dst, const struct job_options *src)
{
	size_t n;
	char *const *from = job_text_fields(src, &n);
	char **to;

	*dst = (struct job_options){ .tag_output = src->tag_output };
	to = (char **)job_text_fields(dst, &n);
	for (size_t i = 0; i < n; i++)
		if (from[i] && !(to[i] = strdup(from[i])))
			goto fail;
	if (src->command && !(dst->command = copy_words((const char **)src->command)))
		goto fail;
	return 0;
fail:
	job_options_free(dst);
	return -1;
}

void job_options_free(struct job_options *o)
{
	size_t n;
	char **fields = (char **)job_text_fields(o, &n);

	for (size_t i = 0; i < n; i++)
		free(fields[i]);
	for (size_t i = 0; o->command && o->command[i]; i++)
		free(o->command[i]);
	free(o->command);
	*o = (struct job_options){ 0 };
}

void options_free(struct options *o)
{
	job_options_free(&o->job);
	for (size_t i = 0; i < o->jobs_n; i++)
		free(o->jobs_all[i]);
	free(o->jobs_all);
	free(o->dry_run);
	free(o->base_time);
	free(o->metrics);
	free(o->user_crontabs);
	free(o->control);
	free(o->fleet);
	free(o->replica);
	free(o->fleet_lease);
	free(o->fleet_deadline);
	free(o->fleet_keep);
	free(o->listen);
	free(o->on_stop);
	free(o->kill_after);
}

/* The words of COMMAND joined by spaces into TEXT, cut to fit. */
static void join_words(char *const *command, char *text, size_t textlen)
{
	size_t at = 0;

	text[0] = '\0';
	for (char *const *w = command; *w && at + 1 < textlen; w++) {
		int n = snprintf(text + at, textlen - at, "%s%s", w == command ? "" : " ", *w);

		if (n < 0)
			break;
		at += (size_t)n;
	}
}

const char *job_only_option(const struct job_options *o, char *text, size_t textlen)
{
	static const struct {
		size_t off;
		const char *name;
	} only[] = {
		{ offsetof(struct job_options, name), "--name" },
		{ offsetof(struct job_options, at), "--at" },
		{ offsetof(struct job_options, delay), "--delay" },
		{ offsetof(struct job_options, interval), "--interval" },
		{ offsetof(struct job_options, count), "--count" },
		{ offsetof(struct job_options, for_), "--for" },
		{ offsetof(struct job_options, calendar), "--calendar" },
		{ offsetof(struct job_options, cron), "--cron" },
		{ offsetof(struct job_options, exec), "--exec" },
		{ offsetof(struct job_options, persist), "--persist" },
	};

	for (size_t i = 0; i < sizeof only / sizeof only[0]; i++) {
		const char *value = *(char *const *)((const char *)o + only[i].off);

		if (value) {
			snprintf(text, textlen, "%s", value);
			return only[i].name;
		}
	}
	if (!o->command)
		return NULL;
	join_words(o->command, text, textlen);
	return "a COMMAND";
}
