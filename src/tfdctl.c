/* SPDX-License-Identifier: MIT */
/* tfdctl: operates a running tfd through its control socket (--control):
 * one JSON request, one JSON answer, shown as a table or a few lines, or
 * as the answer itself with --json. tfdctl(1) has the protocol. */
#include <errno.h>
#include <inttypes.h>
#include <popt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctlpath.h"
#include "json.h"
#include "jsonw.h"

/* Exit statuses (tfdctl(1)). */
enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NO_TFD = 3 };

struct ctl {
	const char *path;
	bool json;
	bool names;       /* list --names: one job name a line (completions) */
	bool wide;        /* list --wide: each job's user and FILE:LINE too */
	bool wait;        /* run --wait */
	const char *command;
};

static int usage(const char *fmt, const char *arg)
{
	fputs("tfdctl: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'tfdctl --help'.\n", stderr);
	return EXIT_USAGE;
}

/* The request */

static bool is_command(const char *c)
{
	static const char *const commands[] = { "list", "status", "run", "stop", "pause",
						"resume", "reload" };

	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(c, commands[i]) == 0)
			return true;
	return false;
}

/* pause and resume: job names or --all, as "jobs" and "all". */
static int pause_request(const char *cmd, const char **args, struct jsonw *w)
{
	size_t nnames = 0;
	bool all = false;

	jsonw_key(w, "jobs");
	jsonw_array(w);
	for (size_t i = 0; args && args[i]; i++) {
		if (strcmp(args[i], "--all") == 0) {
			all = true;
			continue;
		}
		if (args[i][0] == '-')
			return usage("%s: unknown option", args[i]);
		jsonw_string(w, args[i]);
		nnames++;
	}
	jsonw_end_array(w);
	if (all == (nnames > 0))
		return usage("%s: give job names or --all", cmd);
	jsonw_key(w, "all");
	jsonw_bool(w, all);
	return EXIT_DONE;
}

/* The other commands: at most one job name (status, run and stop need
 * it), run's --wait and list's --names and --wide. */
static int job_request(struct ctl *c, const char **args, struct jsonw *w)
{
	const char *cmd = c->command, *job = NULL;
	bool needs_job = strcmp(cmd, "status") == 0 || strcmp(cmd, "run") == 0 ||
			 strcmp(cmd, "stop") == 0;

	for (size_t i = 0; args && args[i]; i++) {
		if (strcmp(cmd, "run") == 0 && strcmp(args[i], "--wait") == 0)
			c->wait = true;
		else if (strcmp(cmd, "list") == 0 && strcmp(args[i], "--names") == 0)
			c->names = true;
		else if (strcmp(cmd, "list") == 0 && strcmp(args[i], "--wide") == 0)
			c->wide = true;
		else if (args[i][0] == '-' || job || !needs_job)
			return usage("%s: unexpected argument", args[i]);
		else
			job = args[i];
	}
	if (needs_job && !job)
		return usage("%s: needs a job name", cmd);
	if (job) {
		jsonw_key(w, "job");
		jsonw_string(w, job);
	}
	if (c->wait) {
		jsonw_key(w, "wait");
		jsonw_bool(w, true);
	}
	return EXIT_DONE;
}

/* The request line for the command and its words ARGS. */
static int build_request(struct ctl *c, const char **args, struct jsonw *w)
{
	bool pause = strcmp(c->command, "pause") == 0 || strcmp(c->command, "resume") == 0;
	int rc;

	jsonw_object(w);
	jsonw_key(w, "command");
	jsonw_string(w, c->command);
	rc = pause ? pause_request(c->command, args, w) : job_request(c, args, w);
	if (rc != EXIT_DONE)
		return rc;
	jsonw_end_object(w);
	jsonw_raw(w, "\n", 1);
	return w->failed ? EXIT_FAILED : EXIT_DONE;
}

/* The conversation */

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "tfdctl: %s: the socket path is too long\n", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		fprintf(stderr, "tfdctl: no tfd answers at %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int send_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, s, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Reads the answer's line into A. Returns 0, or -1 when tfd closed the
 * connection first (or reading failed). */
static int read_answer(int fd, struct jsonw *a)
{
	char buf[65536];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		nl = memchr(buf, '\n', (size_t)n);
		jsonw_raw(a, buf, nl ? (size_t)(nl - buf) : (size_t)n);
		if (a->failed)
			return -1;
		if (nl)
			return 0;
	}
}

static int talk(const struct ctl *c, const struct jsonw *req, struct jsonw *answer)
{
	int fd = connect_to(c->path);
	int rc;

	if (fd < 0)
		return EXIT_NO_TFD;
	/* A tfd that refuses the client (too many) answers and closes at
	 * once, maybe before the request is sent: its answer is read all
	 * the same. */
	send_all(fd, req->text, req->len);
	rc = read_answer(fd, answer);
	close(fd);
	if (rc != 0) {
		fprintf(stderr, "tfdctl: %s: tfd closed the connection without an answer\n",
			c->path);
		return EXIT_NO_TFD;
	}
	return EXIT_DONE;
}

/* Showing answers */

/* "5min 3s", "2h", "250ms": the largest unit and the next when not 0 and
 * not below a second, as systemctl list-timers shows them. */
static void span_text(char *buf, size_t len, int64_t ns)
{
	static const struct { const char *unit; int64_t ns; } units[] = {
		{ "d", INT64_C(86400000000000) }, { "h", INT64_C(3600000000000) },
		{ "min", INT64_C(60000000000) }, { "s", INT64_C(1000000000) },
		{ "ms", INT64_C(1000000) }, { "us", INT64_C(1000) },
	};
	size_t n = sizeof units / sizeof units[0];

	if (ns < 1000) {
		snprintf(buf, len, "0");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t big = ns / units[i].ns, rest;

		if (big == 0)
			continue;
		rest = i + 1 < n && units[i + 1].ns >= INT64_C(1000000000)
			       ? (ns % units[i].ns) / units[i + 1].ns : 0;
		if (rest)
			snprintf(buf, len, "%" PRId64 "%s %" PRId64 "%s", big, units[i].unit, rest,
				 units[i + 1].unit);
		else
			snprintf(buf, len, "%" PRId64 "%s", big, units[i].unit);
		return;
	}
}

/* A number of seconds in the answer (decimal) as nanoseconds. */
static bool seconds_ns(const struct json_doc *d, size_t i, int64_t *ns)
{
	char buf[40], *end;
	double v;

	if (!i || d->v[i].type != JSON_NUMBER || d->v[i].len >= sizeof buf)
		return false;
	memcpy(buf, d->text + d->v[i].start, d->v[i].len);
	buf[d->v[i].len] = '\0';
	v = strtod(buf, &end);
	if (*end || v > 9e9 || v < -9e9)
		return false;
	/* Display only: microseconds are as fine as any column shows. */
	*ns = (int64_t)(v * 1e6) * 1000;
	return true;
}

/* "Fri 2026-12-04 09:00:00 CET" in the local zone, or "-". */
static void instant_text(char *buf, size_t len, const struct json_doc *d, size_t i)
{
	int64_t ns;
	time_t t;
	struct tm tm;

	if (!seconds_ns(d, i, &ns)) {
		snprintf(buf, len, "-");
		return;
	}
	t = (time_t)(ns / 1000000000);
	if (!localtime_r(&t, &tm) || strftime(buf, len, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
		snprintf(buf, len, "-");
}

static void field_text(char *buf, size_t len, const struct json_doc *d, size_t obj,
		       const char *key)
{
	char *s = json_string(d, json_get(d, obj, key));

	snprintf(buf, len, "%s", s ? s : "-");
	free(s);
}

static void span_field(char *buf, size_t len, const struct json_doc *d, size_t obj,
		       const char *key, const char *suffix)
{
	int64_t ns;
	char span[64];

	if (!seconds_ns(d, json_get(d, obj, key), &ns)) {
		snprintf(buf, len, "-");
		return;
	}
	span_text(span, sizeof span, ns);
	snprintf(buf, len, "%s%s", span, suffix);
}

/* STATE: "running 123 456" with the pids. */
static void state_text(char *buf, size_t len, const struct json_doc *d, size_t obj)
{
	size_t pids = json_get(d, obj, "pids"), used;

	field_text(buf, len, d, obj, "state");
	used = strlen(buf);
	for (size_t i = pids ? pids + 1 : 0; pids && i < d->v[pids].next && used < len;
	     i = d->v[i].next) {
		int64_t pid;

		if (json_int(d, i, &pid))
			used += (size_t)snprintf(buf + used, len - used, " %" PRId64, pid);
	}
}

/* "FILE:LINE" of a job's line, or "-" on the command line; a path too
 * long for its cell keeps its end, which names the file. */
static void origin_text(char *buf, size_t len, const struct json_doc *d, size_t obj)
{
	char *file = json_string(d, json_get(d, obj, "file"));
	int64_t line = 0;
	size_t n;

	json_int(d, json_get(d, obj, "line"), &line);
	if (!file) {
		snprintf(buf, len, "-");
		return;
	}
	n = strlen(file);
	if (n + 24 > len)
		snprintf(buf, len, "...%s:%" PRId64, file + n - (len - 28), line);
	else
		snprintf(buf, len, "%s:%" PRId64, file, line);
	free(file);
}

/* The columns; USER and FILE:LINE with --wide only. */
enum { COLS = 10, CELL = 96, USER_COL = 7, ORIGIN_COL = 8, JOB_COL = 9 };

struct row {
	char cell[COLS][CELL];
};

/* RESULT, and under --fleet the replica that ran the run: "success on b". */
static void result_field(char *buf, size_t len, const struct json_doc *d, size_t job)
{
	char *replica = json_string(d, json_get(d, job, "replica"));
	size_t used;

	field_text(buf, len, d, job, "result");
	used = strlen(buf);
	if (replica && strcmp(buf, "-") != 0 && used < len)
		snprintf(buf + used, len - used, " on %s", replica);
	free(replica);
}

static void list_row(const struct json_doc *d, size_t job, struct row *r)
{
	instant_text(r->cell[0], CELL, d, json_get(d, job, "next_unix"));
	span_field(r->cell[1], CELL, d, job, "left", " left");
	instant_text(r->cell[2], CELL, d, json_get(d, job, "last_unix"));
	span_field(r->cell[3], CELL, d, job, "passed", " ago");
	result_field(r->cell[4], CELL, d, job);
	span_field(r->cell[5], CELL, d, job, "duration", "");
	state_text(r->cell[6], CELL, d, job);
	field_text(r->cell[USER_COL], CELL, d, job, "user");
	origin_text(r->cell[ORIGIN_COL], CELL, d, job);
	field_text(r->cell[JOB_COL], CELL, d, job, "job");
}

static void print_row(const struct ctl *ctl, const struct row *r, const size_t *width)
{
	for (int c = 0; c < COLS; c++) {
		if ((c == USER_COL || c == ORIGIN_COL) && !ctl->wide)
			continue;
		if (c == JOB_COL)
			printf("%s\n", r->cell[c]);
		else
			printf("%-*s  ", (int)width[c], r->cell[c]);
	}
}

static int show_list(const struct ctl *c, const struct json_doc *d)
{
	static const struct row header = { { "NEXT", "LEFT", "LAST", "PASSED", "RESULT",
					     "DURATION", "STATE", "USER", "FILE:LINE", "JOB" } };
	size_t jobs = json_get(d, 0, "jobs"), n = jobs ? d->v[jobs].count : 0, k = 0;
	struct row *rows = calloc(n + 1, sizeof *rows);
	size_t width[COLS] = { 0 };

	if (!rows) {
		fputs("tfdctl: out of memory\n", stderr);
		return EXIT_FAILED;
	}
	for (size_t i = jobs + 1; jobs && i < d->v[jobs].next; i = d->v[i].next) {
		if (c->names)
			field_text(rows[k].cell[JOB_COL], CELL, d, i, "job");
		else
			list_row(d, i, &rows[k]);
		k++;
	}
	for (size_t i = 0; i < k && c->names; i++)
		printf("%s\n", rows[i].cell[JOB_COL]);
	for (int col = 0; col < COLS && !c->names; col++) {
		width[col] = strlen(header.cell[col]);
		for (size_t i = 0; i < k; i++)
			if (strlen(rows[i].cell[col]) > width[col])
				width[col] = strlen(rows[i].cell[col]);
	}
	if (!c->names) {
		print_row(c, &header, width);
		for (size_t i = 0; i < k; i++)
			print_row(c, &rows[i], width);
		printf("\n%zu job%s listed.\n", k, k == 1 ? "" : "s");
	}
	free(rows);
	return EXIT_DONE;
}

static void show_runs(const struct json_doc *d, size_t job)
{
	size_t runs = json_get(d, job, "runs");

	if (!runs || d->v[runs].count == 0)
		return;
	printf("\nRuns (newest first):\n  %-5s %-28s %-10s %-16s %-7s %s\n", "SEQ", "START",
	       "DURATION", "RESULT", "ATTEMPT", "TRIGGER");
	for (size_t i = runs + 1; i < d->v[runs].next; i = d->v[i].next) {
		char start[64], dur[64], result[64], trigger[16];
		int64_t seq = 0, attempt = 0;

		json_int(d, json_get(d, i, "seq"), &seq);
		json_int(d, json_get(d, i, "attempt"), &attempt);
		instant_text(start, sizeof start, d, json_get(d, i, "start_unix"));
		span_field(dur, sizeof dur, d, i, "duration", "");
		field_text(result, sizeof result, d, i, "result");
		field_text(trigger, sizeof trigger, d, i, "trigger");
		printf("  %-5" PRId64 " %-28s %-10s %-16s %-7" PRId64 " %s\n", seq, start, dur,
		       result, attempt, trigger);
	}
}

static void show_counters(const struct json_doc *d, size_t job)
{
	size_t c = json_get(d, job, "counters");
	const char *sep = "";

	printf("  Counters:");
	for (size_t i = c ? c + 1 : 0; c && i < d->v[c].next; i = d->v[d->v[i].next].next) {
		char *key = json_string(d, i);
		int64_t v = 0;

		json_int(d, d->v[i].next, &v);
		printf("%s %s %" PRId64, sep, key ? key : "?", v);
		sep = ",";
		free(key);
	}
	printf("\n");
}

static void show_command(const struct json_doc *d, size_t job)
{
	size_t cmd = json_get(d, job, "command");

	printf("   Command:");
	for (size_t i = cmd ? cmd + 1 : 0; cmd && i < d->v[cmd].next; i = d->v[i].next) {
		char *w = json_string(d, i);

		printf(" %s", w ? w : "?");
		free(w);
	}
	printf("%s\n", cmd && d->v[cmd].type == JSON_ARRAY ? "" : " -");
}

static void show_next(const struct json_doc *d, size_t job)
{
	size_t next = json_get(d, job, "next_elapses");
	const char *sep = " ";

	printf("      Next:");
	for (size_t i = next ? next + 1 : 0; next && i < d->v[next].next; i = d->v[i].next) {
		char t[64];

		instant_text(t, sizeof t, d, json_get(d, i, "unix"));
		printf("%s%s", sep, t);
		sep = ", ";
	}
	printf("%s\n", *sep == ' ' ? " -" : "");
}

static int show_status(const struct json_doc *d)
{
	size_t job = json_get(d, 0, "job"), tail;
	char a[128], b[128], e[128], f[128];

	field_text(a, sizeof a, d, job, "job");
	field_text(b, sizeof b, d, job, "schedule");
	field_text(e, sizeof e, d, job, "clock");
	printf("%s: %s (%s clock)\n", a, b, e);
	origin_text(a, sizeof a, d, job);
	field_text(b, sizeof b, d, job, "user");
	printf("      From: %s, as %s\n", a, b);
	show_command(d, job);
	state_text(a, sizeof a, d, job);
	printf("     State: %s\n", a);
	instant_text(a, sizeof a, d, json_get(d, job, "last_unix"));
	field_text(b, sizeof b, d, job, "result");
	span_field(e, sizeof e, d, job, "duration", "");
	printf("      Last: %s, %s in %s\n", a, b, e);
	show_next(d, job);
	field_text(a, sizeof a, d, job, "overlap");
	span_field(b, sizeof b, d, job, "timeout", "");
	span_field(e, sizeof e, d, job, "retry_delay", "");
	field_text(f, sizeof f, d, job, "output");
	{
		int64_t retry = 0;

		json_int(d, json_get(d, job, "retry"), &retry);
		printf("  Policies: overlap %s, timeout %s, retry %" PRId64 " (delay %s), "
		       "output %s\n", a, b, retry, e, f);
	}
	show_counters(d, job);
	show_runs(d, job);
	tail = json_get(d, job, "output_tail");
	if (tail && d->v[tail].type == JSON_STRING && d->v[tail].len > 0) {
		char *t = json_string(d, tail);

		printf("\nOutput of the latest run (last 4 KiB):\n%s", t ? t : "");
		if (t && *t && t[strlen(t) - 1] != '\n')
			printf("\n");
		free(t);
	}
	return EXIT_DONE;
}

/* run: "started", or with --wait the run's end and its status. */
static int show_run(const struct ctl *c, const struct json_doc *d)
{
	char job[256], action[32];
	int64_t seq = 0, exit_status = 1;

	field_text(job, sizeof job, d, 0, "job");
	json_int(d, json_get(d, 0, "seq"), &seq);
	if (!c->wait) {
		field_text(action, sizeof action, d, 0, "action");
		printf("%s: run %" PRId64 " %s\n", job, seq,
		       strcmp(action, "run") == 0 ? "started" :
		       strcmp(action, "queue") == 0 ? "queued after the run going" :
		       "starts once the run going is ended (--overlap kill)");
		return EXIT_DONE;
	}
	json_int(d, json_get(d, 0, "exit"), &exit_status);
	if (exit_status < 0 || exit_status > 255)
		exit_status = EXIT_FAILED;
	if (exit_status != 0)
		fprintf(stderr, "tfdctl: %s: run %" PRId64 " failed (exit status %" PRId64 ")\n",
			job, seq, exit_status);
	return (int)exit_status;
}

static int show_stop(const struct json_doc *d)
{
	int64_t n = 0;

	json_int(d, json_get(d, 0, "stopped"), &n);
	printf("%" PRId64 " run%s stopped\n", n, n == 1 ? "" : "s");
	return EXIT_DONE;
}

static int show_reload(const struct json_doc *d)
{
	int64_t added = 0, removed = 0, kept = 0;

	json_int(d, json_get(d, 0, "added"), &added);
	json_int(d, json_get(d, 0, "removed"), &removed);
	json_int(d, json_get(d, 0, "kept"), &kept);
	printf("reloaded: %" PRId64 " added, %" PRId64 " removed, %" PRId64 " kept\n", added,
	       removed, kept);
	return EXIT_DONE;
}

/* --json: the answer as it came; run --wait exits with the run's status. */
static int show_json(const struct ctl *c, const struct json_doc *d, const struct jsonw *answer)
{
	int64_t status = 0;

	printf("%s\n", answer->text);
	if (c->wait && json_int(d, json_get(d, 0, "exit"), &status))
		return status >= 0 && status <= 255 ? (int)status : EXIT_FAILED;
	return EXIT_DONE;
}

/* An answer that is ok, shown as the command's. */
static int show_ok(const struct ctl *c, const struct json_doc *d, const struct jsonw *answer)
{
	if (c->json)
		return show_json(c, d, answer);
	if (strcmp(c->command, "list") == 0)
		return show_list(c, d);
	if (strcmp(c->command, "status") == 0)
		return show_status(d);
	if (strcmp(c->command, "run") == 0)
		return show_run(c, d);
	if (strcmp(c->command, "stop") == 0)
		return show_stop(d);
	if (strcmp(c->command, "reload") == 0)
		return show_reload(d);
	return EXIT_DONE;   /* pause, resume: nothing to say */
}

/* The answer: "ok" false is its "error" on stderr and status 1. */
static int show(const struct ctl *c, const struct jsonw *answer)
{
	struct json_doc d;
	char err[256] = "", msg[1024];
	bool ok = false;
	int rc;

	if (json_parse(&d, answer->text, answer->len, err, sizeof err) != 0 ||
	    d.v[0].type != JSON_OBJECT || !json_bool(&d, json_get(&d, 0, "ok"), &ok)) {
		fprintf(stderr, "tfdctl: %s: an answer tfdctl cannot read%s%s\n", c->path,
			*err ? ": " : "", err);
		rc = EXIT_FAILED;
	} else if (!ok) {
		field_text(msg, sizeof msg, &d, 0, "error");
		fprintf(stderr, "tfdctl: %s\n", msg);
		rc = EXIT_FAILED;
	} else {
		rc = show_ok(c, &d, answer);
	}
	json_free(&d);
	return rc;
}

/* Options */

static int read_options(int argc, const char **argv, struct ctl *c, poptContext *pctx)
{
	static char *path;
	static int json, version;
	static struct poptOption table[] = {
		{ "control", '\0', POPT_ARG_STRING, &path, 0,
		  "the socket of the tfd (default $TFD_CONTROL, /run/tfd/control as root, "
		  "else $XDG_RUNTIME_DIR/tfd/control)", "PATH" },
		{ "json", 'j', POPT_ARG_NONE, &json, 0, "print tfd's answer, one JSON object", NULL },
		{ "version", 'V', POPT_ARG_NONE, &version, 0, "show the version and exit", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext ctx = poptGetContext("tfdctl", argc, argv, table, POPT_CONTEXT_POSIXMEHARDER);
	int rc;

	*pctx = ctx;
	if (!ctx) {
		fputs("tfdctl: out of memory\n", stderr);
		return EXIT_FAILED;
	}
	poptSetOtherOptionHelp(ctx, "[OPTION...] list [--wide]|status JOB|run JOB [--wait]|"
				    "stop JOB|pause JOB...|--all|resume JOB...|--all|reload");
	while ((rc = poptGetNextOpt(ctx)) >= 0)
		;
	if (rc < -1) {
		fprintf(stderr, "tfdctl: %s: %s\nTry 'tfdctl --help'.\n",
			poptBadOption(ctx, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		return EXIT_USAGE;
	}
	if (version) {
		printf("tfdctl %s\n", TFD_VERSION);
		return fflush(stdout) == 0 ? -2 : EXIT_FAILED;
	}
	c->json = json;
	c->path = path;
	c->command = poptGetArg(ctx);
	if (!c->command)
		return usage("%s", "no command: give list, status, run, stop, pause, resume or reload");
	if (!is_command(c->command))
		return usage("unknown command '%s'", c->command);
	return -1;
}

/* Where the socket is: --control, TFD_CONTROL, or the default. */
static int find_path(struct ctl *c, char *buf, size_t len)
{
	char err[256];
	const char *env = getenv("TFD_CONTROL");

	if (!c->path && env && *env)
		c->path = env;
	if (c->path)
		return -1;
	if (control_default_path(buf, len, err, sizeof err) != 0) {
		fprintf(stderr, "tfdctl: %s\n", err);
		return EXIT_NO_TFD;
	}
	c->path = buf;
	return -1;
}

int main(int argc, const char **argv)
{
	static char path[4096];
	struct ctl c = { 0 };
	struct jsonw req = { 0 }, answer = { 0 };
	poptContext ctx = NULL;
	int rc = read_options(argc, argv, &c, &ctx);

	setvbuf(stdout, NULL, _IOFBF, 0);
	if (rc == -2)
		rc = EXIT_DONE;
	if (rc == -1)
		rc = find_path(&c, path, sizeof path);
	if (rc == -1) {
		rc = build_request(&c, poptGetArgs(ctx), &req);
		if (rc == EXIT_DONE)
			rc = talk(&c, &req, &answer);
		if (rc == EXIT_DONE)
			rc = show(&c, &answer);
		if (fflush(stdout) != 0 && rc == EXIT_DONE)
			rc = EXIT_FAILED;
	}
	jsonw_free(&req);
	jsonw_free(&answer);
	poptFreeContext(ctx);
	return rc;
}
