/* SPDX-License-Identifier: MIT */
/* tfdctl: operates a running tfd through its control socket (--control):
 * one JSON request, one JSON answer, shown as a table or a few lines, or
 * as the answer itself with --json. tfdctl(1) has the protocol. */
#include <inttypes.h>
#include <popt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "ctlconn.h"
#include "ctlpath.h"
#include "json.h"
#include "jsonw.h"
#include "nearest.h"
#include "parse_time.h"
#include "report.h"
#include "showtext.h"
#include "timens.h"

/* Exit statuses (tfdctl(1)). */
enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NO_TFD = 3 };

/* How long tfdctl waits for tfd when --timeout is not given: a stopped
 * or wedged tfd never hangs it, nor a shell's Tab. */
#define CTL_TIMEOUT_NS (INT64_C(10) * NSEC_PER_SEC)

/* What a reload may wait for in tfd beside the answer: a jobs file still
 * being written, up to 10 s (tfd(1)), as SIGHUP's reload waits. */
#define CTL_RELOAD_WAIT_NS (INT64_C(10) * NSEC_PER_SEC)

struct ctl {
	const char *path;
	bool json;
	bool names; /* list --names: one job name a line (completions) */
	bool wide;  /* list --wide: each job's user and FILE:LINE too */
	bool wait;  /* run --wait */
	const char *command;
	const char *timeout_text; /* --timeout as given, or NULL */
	int64_t timeout_ns;       /* how long tfd may take to answer; -1: no limit */
};

static int usage(const char *fmt, const char *arg)
{
	fputs("tfdctl: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'tfdctl --help'.\n", stderr);
	return EXIT_USAGE;
}

/* The request */

static const char *const commands[] = {
	"list", "status", "run", "stop", "pause", "resume", "reload"
};

static bool is_command(const char *c)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(c, commands[i]) == 0)
			return true;
	return false;
}

/* An unknown command, with the nearest known one when there is one. */
static int unknown_command(const char *c)
{
	struct nearest near;
	const char *best;

	nearest_begin(&near, c);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		nearest_offer(&near, commands[i]);
	best = nearest_found(&near);
	fprintf(stderr, "tfdctl: unknown command '%s'", c);
	if (best)
		fprintf(stderr, "; did you mean '%s'?", best);
	fputs("\nTry 'tfdctl --help'.\n", stderr);
	return EXIT_USAGE;
}

/* A word of the command's: an option when it begins with '-' and no "--"
 * came before it (*NAMES_ONLY: one did, or this is it). */
static bool is_option(const char *arg, bool *names_only)
{
	if (*names_only || arg[0] != '-')
		return false;
	if (strcmp(arg, "--") == 0)
		*names_only = true;
	return true;
}

/* pause and resume: job names or --all, as "jobs" and "all"; after "--"
 * every word is a name (one that begins with '-'). */
static int pause_request(const char *cmd, const char **args, struct jsonw *w)
{
	size_t nnames = 0;
	bool all = false, names_only = false;

	jsonw_key(w, "jobs");
	jsonw_array(w);
	for (size_t i = 0; args && args[i]; i++) {
		if (!is_option(args[i], &names_only)) {
			jsonw_string(w, args[i]);
			nnames++;
		} else if (strcmp(args[i], "--all") == 0) {
			all = true;
		} else if (!names_only) {
			return usage("%s: unknown option", args[i]);
		}
	}
	jsonw_end_array(w);
	if (all == (nnames > 0))
		return usage("%s: give job names or --all", cmd);
	jsonw_key(w, "all");
	jsonw_bool(w, all);
	return EXIT_DONE;
}

/* The other commands: at most one job name (status, run and stop need
 * it), run's --wait and list's --names and --wide; after "--" a word is
 * the name. */
static int job_request(struct ctl *c, const char **args, struct jsonw *w)
{
	const char *cmd = c->command, *job = NULL;
	bool needs_job = strcmp(cmd, "status") == 0 || strcmp(cmd, "run") == 0 ||
			 strcmp(cmd, "stop") == 0;
	bool names_only = false;

	for (size_t i = 0; args && args[i]; i++) {
		bool option = is_option(args[i], &names_only);

		if (option && strcmp(cmd, "run") == 0 && strcmp(args[i], "--wait") == 0)
			c->wait = true;
		else if (option && strcmp(cmd, "list") == 0 && strcmp(args[i], "--names") == 0)
			c->names = true;
		else if (option && strcmp(cmd, "list") == 0 && strcmp(args[i], "--wide") == 0)
			c->wide = true;
		else if (option && strcmp(args[i], "--") == 0)
			continue;
		else if (option || job || !needs_job)
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

/* How long tfd may take with C's command (ctlconn.h): --timeout, else the
 * default; run --wait's answer comes when the run ends, which only an
 * explicit --timeout limits; a reload may first wait for a jobs file
 * being written. */
static int talk(const struct ctl *c, const struct jsonw *req, struct jsonw *answer)
{
	struct ctlconn cc = { c->path, c->timeout_text, c->timeout_ns, c->timeout_ns };

	if (c->wait && !c->timeout_text)
		cc.answer_ns = -1;
	else if (strcmp(c->command, "reload") == 0 && !c->timeout_text)
		cc.answer_ns += CTL_RELOAD_WAIT_NS;
	return ctlconn_talk(&cc, req, answer) == 0 ? EXIT_DONE : EXIT_NO_TFD;
}

/* Showing answers */

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

/* One of tfd's own words (a state, a policy): short, never a name. */
static void field_text(char *buf, size_t len, const struct json_doc *d, size_t obj, const char *key)
{
	char *s = json_string(d, json_get(d, obj, key));

	snprintf(buf, len, "%s", s ? s : "-");
	free(s);
}

static void span_field(char *buf, size_t len, const struct json_doc *d, size_t obj, const char *key,
		       const char *suffix)
{
	int64_t ns;
	char span[64];

	if (!seconds_ns(d, json_get(d, obj, key), &ns)) {
		snprintf(buf, len, "-");
		return;
	}
	format_span(span, sizeof span, ns > 0 ? (uint64_t)ns : 0, SPAN_COLUMN);
	snprintf(buf, len, "%s%s", span, suffix);
}

/* Text that came from a job (its name, schedule, output) is shown with
 * its control characters escaped (showtext.h): the string at I of D
 * appended to B, whole whatever its length, or "-" when there is none. */
static void shown_value(struct buf *b, const struct json_doc *d, size_t i, bool lines)
{
	size_t n;
	char *s = json_string_n(d, i, &n);

	if (s)
		show_escaped(b, s, n, lines);
	else
		buf_put(b, "-", 1);
	free(s);
}

static void shown_field(struct buf *b, const struct json_doc *d, size_t obj, const char *key)
{
	shown_value(b, d, json_get(d, obj, key), false);
}

/* Writes B on stdout and empties it for the next text. */
static void print_buf(struct buf *b)
{
	fwrite(b->s ? b->s : "", 1, b->len, stdout);
	b->len = 0;
}

/* The string at I of D, shown escaped, as a C string for a message
 * ("?" when memory ran out). The caller frees it. */
static char *shown_copy(const struct json_doc *d, size_t i)
{
	struct buf b = { 0 };

	shown_value(&b, d, i, false);
	if (buf_put(&b, "", 1) != 0) {
		buf_free(&b);
		return strdup("?");
	}
	return b.s;
}

static void cell_text(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* STATE: "running 123 456" with the pids. */
static void state_field(struct buf *b, const struct json_doc *d, size_t obj)
{
	size_t pids = json_get(d, obj, "pids");
	char word[32];

	field_text(word, sizeof word, d, obj, "state");
	cell_text(b, word);
	for (size_t i = pids ? pids + 1 : 0; pids && i < d->v[pids].next; i = d->v[i].next) {
		int64_t pid;

		if (json_int(d, i, &pid)) {
			snprintf(word, sizeof word, " %" PRId64, pid);
			cell_text(b, word);
		}
	}
}

/* "FILE:LINE" of a job's line, or "-" on the command line. */
static void origin_field(struct buf *b, const struct json_doc *d, size_t obj)
{
	size_t file = json_get(d, obj, "file");
	int64_t line = 0;
	char num[32];

	if (!file || d->v[file].type != JSON_STRING) {
		cell_text(b, "-");
		return;
	}
	json_int(d, json_get(d, obj, "line"), &line);
	shown_value(b, d, file, false);
	snprintf(num, sizeof num, ":%" PRId64, line);
	cell_text(b, num);
}

/* The columns; USER and FILE:LINE with --wide only. */
enum { COLS = 10, USER_COL = 7, ORIGIN_COL = 8, JOB_COL = 9 };

/* A row of the list: each cell whole, however long a name is. */
struct row {
	struct buf cell[COLS];
};

static void free_rows(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < COLS; c++)
			buf_free(&rows[i].cell[c]);
	free(rows);
}

/* RESULT, and under --fleet the replica that ran the run: "success on b". */
static void result_field(struct buf *b, const struct json_doc *d, size_t job)
{
	size_t replica = json_get(d, job, "replica");

	shown_field(b, d, job, "result");
	if (replica && d->v[replica].type == JSON_STRING && !(b->len == 1 && b->s[0] == '-')) {
		cell_text(b, " on ");
		shown_value(b, d, replica, false);
	}
}

static void list_row(const struct json_doc *d, size_t job, struct row *r)
{
	char t[128];

	instant_text(t, sizeof t, d, json_get(d, job, "next_unix"));
	cell_text(&r->cell[0], t);
	span_field(t, sizeof t, d, job, "left", " left");
	cell_text(&r->cell[1], t);
	instant_text(t, sizeof t, d, json_get(d, job, "last_unix"));
	cell_text(&r->cell[2], t);
	span_field(t, sizeof t, d, job, "passed", " ago");
	cell_text(&r->cell[3], t);
	result_field(&r->cell[4], d, job);
	span_field(t, sizeof t, d, job, "duration", "");
	cell_text(&r->cell[5], t);
	state_field(&r->cell[6], d, job);
	shown_field(&r->cell[USER_COL], d, job, "user");
	origin_field(&r->cell[ORIGIN_COL], d, job);
	shown_field(&r->cell[JOB_COL], d, job, "job");
}

static void print_row(const struct ctl *ctl, const struct row *r, const size_t *width)
{
	for (int c = 0; c < COLS; c++) {
		if ((c == USER_COL || c == ORIGIN_COL) && !ctl->wide)
			continue;
		fwrite(r->cell[c].s ? r->cell[c].s : "", 1, r->cell[c].len, stdout);
		if (c == JOB_COL)
			putchar('\n');
		else
			printf("%*s", (int)(width[c] - r->cell[c].len + 2), "");
	}
}

static bool rows_failed(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < COLS; c++)
			if (rows[i].cell[c].failed)
				return true;
	return false;
}

static void print_list(const struct ctl *ctl, const struct row *rows, size_t k)
{
	size_t width[COLS] = { 0 };
	bool names = ctl->names;

	for (size_t i = 1; i < k && names; i++) {
		const struct buf *name = &rows[i].cell[JOB_COL];

		fwrite(name->s ? name->s : "", 1, name->len, stdout);
		putchar('\n');
	}
	if (names)
		return;
	for (int col = 0; col < COLS; col++)
		for (size_t i = 0; i < k; i++)
			if (rows[i].cell[col].len > width[col])
				width[col] = rows[i].cell[col].len;
	for (size_t i = 0; i < k; i++)
		print_row(ctl, &rows[i], width);
	printf("\n%zu job%s listed.\n", k - 1, k == 2 ? "" : "s");
}

/* The list; with --names the names alone, one a line, escaped as in the
 * table (the completions offer them back to a shell as $'...'). */
static int show_list(const struct ctl *c, const struct json_doc *d)
{
	static const char *const header[COLS] = { "NEXT",      "LEFT",     "LAST",  "PASSED",
						  "RESULT",    "DURATION", "STATE", "USER",
						  "FILE:LINE", "JOB" };
	size_t jobs = json_get(d, 0, "jobs"), n = jobs ? d->v[jobs].count : 0, k = 1;
	struct row *rows = calloc(n + 1, sizeof *rows);
	int rc = EXIT_DONE;

	for (int col = 0; rows && col < COLS; col++)
		cell_text(&rows[0].cell[col], header[col]);
	for (size_t i = jobs + 1; rows && jobs && i < d->v[jobs].next; i = d->v[i].next) {
		if (c->names)
			shown_field(&rows[k].cell[JOB_COL], d, i, "job");
		else
			list_row(d, i, &rows[k]);
		k++;
	}
	if (!rows || rows_failed(rows, k)) {
		fputs("tfdctl: out of memory\n", stderr);
		rc = EXIT_FAILED;
	} else {
		print_list(c, rows, k);
	}
	if (rows)
		free_rows(rows, n + 1);
	return rc;
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

/* The command's words as a shell would take them back (showtext.h). */
static void show_command(struct buf *b, const struct json_doc *d, size_t job)
{
	size_t cmd = json_get(d, job, "command");

	cell_text(b, "   Command:");
	for (size_t i = cmd ? cmd + 1 : 0; cmd && i < d->v[cmd].next; i = d->v[i].next) {
		size_t n;
		char *w = json_string_n(d, i, &n);

		cell_text(b, " ");
		if (w)
			show_shell_word(b, w, n);
		free(w);
	}
	cell_text(b, cmd && d->v[cmd].type == JSON_ARRAY ? "\n" : " -\n");
	print_buf(b);
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

/* The last 4 KiB of the latest run's output, every byte of it (NULs
 * too), control characters but newlines and tabs escaped. */
static void show_tail(struct buf *b, const struct json_doc *d, size_t job)
{
	size_t tail = json_get(d, job, "output_tail");

	if (!tail || d->v[tail].type != JSON_STRING || d->v[tail].len == 0)
		return;
	cell_text(b, "\nOutput of the latest run (last 4 KiB):\n");
	shown_value(b, d, tail, true);
	if (b->len > 0 && b->s[b->len - 1] != '\n')
		cell_text(b, "\n");
	print_buf(b);
}

/* The hooks' commands, and what the last one did. */
static void show_hooks(struct buf *b, const struct json_doc *d, size_t job)
{
	size_t hooks = json_get(d, job, "hooks"), last = json_get(d, job, "last_hook"), ended;
	static const char *const key[] = { "on_failure", "on_success" };
	static const char *const option[] = { "on-failure", "on-success" };
	char hook[16], start[64], result[64], dur[64];
	int64_t seq = 0;

	for (size_t k = 0; hooks && k < 2; k++) {
		size_t text = json_get(d, hooks, key[k]);

		if (!text || d->v[text].type != JSON_STRING)
			continue;
		cell_text(b, k == 0 ? "     Hooks: --" : "            --");
		cell_text(b, option[k]);
		cell_text(b, " ");
		shown_field(b, d, hooks, key[k]);
		cell_text(b, "\n");
	}
	print_buf(b);
	if (!last || d->v[last].type != JSON_OBJECT)
		return;
	field_text(hook, sizeof hook, d, last, "hook");
	json_int(d, json_get(d, last, "seq"), &seq);
	instant_text(start, sizeof start, d, json_get(d, last, "start_unix"));
	field_text(result, sizeof result, d, last, "result");
	span_field(dur, sizeof dur, d, last, "duration", "");
	ended = json_get(d, last, "result");
	if (ended && d->v[ended].type == JSON_STRING)
		printf(" Last hook: --%s after run %" PRId64 ", %s, %s in %s\n", hook, seq, start,
		       result, dur);
	else
		printf(" Last hook: --%s after run %" PRId64 ", %s, running\n", hook, seq, start);
}

/* --ping's or --notify's endpoint and its last answer, on a line of its
 * own ("      Ping: https://hc-ping.com/… (last: 200, Sat ...)"). */
static void show_endpoint(struct buf *b, const struct json_doc *d, size_t job, const char *key,
			  const char *label)
{
	size_t e = json_get(d, job, key), result;
	char when[128];

	if (!e || d->v[e].type != JSON_OBJECT)
		return;
	cell_text(b, label);
	shown_field(b, d, e, "url");
	result = json_get(d, e, "last_result");
	if (result && d->v[result].type == JSON_STRING) {
		instant_text(when, sizeof when, d, json_get(d, e, "last_unix"));
		cell_text(b, " (last: ");
		shown_field(b, d, e, "last_result");
		cell_text(b, ", ");
		cell_text(b, when);
		cell_text(b, ")");
	} else {
		cell_text(b, " (nothing sent yet)");
	}
	cell_text(b, "\n");
	print_buf(b);
}

static int show_status(const struct json_doc *d)
{
	size_t job = json_get(d, 0, "job");
	char a[128], b[128], e[128], f[128];
	struct buf line = { 0 };
	int64_t retry = 0;
	int rc = EXIT_DONE;

	shown_field(&line, d, job, "job");
	cell_text(&line, ": ");
	shown_field(&line, d, job, "schedule");
	field_text(e, sizeof e, d, job, "clock");
	printf("%.*s (%s clock)\n", (int)line.len, line.s ? line.s : "", e);
	line.len = 0;
	cell_text(&line, "      From: ");
	origin_field(&line, d, job);
	cell_text(&line, ", as ");
	shown_field(&line, d, job, "user");
	cell_text(&line, "\n");
	print_buf(&line);
	show_command(&line, d, job);
	cell_text(&line, "     State: ");
	state_field(&line, d, job);
	cell_text(&line, "\n");
	print_buf(&line);
	instant_text(a, sizeof a, d, json_get(d, job, "last_unix"));
	field_text(b, sizeof b, d, job, "result");
	span_field(e, sizeof e, d, job, "duration", "");
	printf("      Last: %s, %s in %s\n", a, b, e);
	show_next(d, job);
	field_text(a, sizeof a, d, job, "overlap");
	span_field(b, sizeof b, d, job, "timeout", "");
	span_field(e, sizeof e, d, job, "retry_delay", "");
	field_text(f, sizeof f, d, job, "output");
	json_int(d, json_get(d, job, "retry"), &retry);
	printf("  Policies: overlap %s, timeout %s, retry %" PRId64 " (delay %s), output %s\n", a,
	       b, retry, e, f);
	show_counters(d, job);
	show_endpoint(&line, d, job, "ping", "      Ping: ");
	show_endpoint(&line, d, job, "notify", "    Notify: ");
	show_runs(d, job);
	show_hooks(&line, d, job);
	show_tail(&line, d, job);
	if (line.failed) {
		fputs("tfdctl: out of memory\n", stderr);
		rc = EXIT_FAILED;
	}
	buf_free(&line);
	return rc;
}

/* run: "started", or with --wait the run's end and its status. A status
 * that is the run's is said on stderr with the run's number, so that it
 * is told apart from tfdctl's own 1, 2 and 3 (tfdctl(1), EXIT STATUS). */
static int show_run(const struct ctl *c, const struct json_doc *d)
{
	char action[32];
	char *job = shown_copy(d, json_get(d, 0, "job"));
	int64_t seq = 0, exit_status = 1;

	json_int(d, json_get(d, 0, "seq"), &seq);
	if (!c->wait) {
		field_text(action, sizeof action, d, 0, "action");
		/* clang-format off */
		printf("%s: run %" PRId64 " %s\n", job, seq,
		       strcmp(action, "run") == 0 ? "started" :
		       strcmp(action, "queue") == 0 ? "queued after the run going" :
		       "starts once the run going is ended (--overlap kill)");
		/* clang-format on */
		free(job);
		return EXIT_DONE;
	}
	json_int(d, json_get(d, 0, "exit"), &exit_status);
	if (exit_status < 0 || exit_status > 255)
		exit_status = EXIT_FAILED;
	if (exit_status != 0)
		fprintf(stderr,
			"tfdctl: %s: run %" PRId64 " failed (exit status %" PRId64 ", the run's)\n",
			job, seq, exit_status);
	free(job);
	return (int)exit_status;
}

/* stop: the runs signalled, and what waited that no longer will: a run
 * queued behind them, a failed try's retry (the run then counts as
 * failed). */
static int show_stop(const struct json_doc *d)
{
	int64_t n = 0, queued, retried;

	json_int(d, json_get(d, 0, "stopped"), &n);
	printf("%" PRId64 " run%s stopped", n, n == 1 ? "" : "s");
	if (json_int(d, json_get(d, 0, "queued_dropped"), &queued))
		printf("; queued run %" PRId64 " dropped", queued);
	if (json_int(d, json_get(d, 0, "retry_dropped"), &retried))
		printf("; run %" PRId64 " is not tried again: it failed", retried);
	putchar('\n');
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
	return EXIT_DONE; /* pause, resume: nothing to say */
}

/* The answer: "ok" false is its "error" on stderr and status 1 (with
 * --json, the answer is printed on stdout all the same). */
static int show(const struct ctl *c, const struct jsonw *answer)
{
	struct json_doc d;
	char err[256] = "";
	bool ok = false;
	int rc;

	if (json_parse(&d, answer->text, answer->len, err, sizeof err) != 0 ||
	    d.v[0].type != JSON_OBJECT || !json_bool(&d, json_get(&d, 0, "ok"), &ok)) {
		fprintf(stderr, "tfdctl: %s: an answer tfdctl cannot read%s%s\n", c->path,
			*err ? ": " : "", err);
		rc = EXIT_FAILED;
	} else if (!ok) {
		char *msg = shown_copy(&d, json_get(&d, 0, "error"));

		if (c->json)
			printf("%s\n", answer->text);
		fprintf(stderr, "tfdctl: %s\n", msg);
		free(msg);
		rc = EXIT_FAILED;
	} else {
		rc = show_ok(c, &d, answer);
	}
	json_free(&d);
	return rc;
}

/* Options */

enum { OPT_HELP = 1, OPT_USAGE, OPT_VERSION };

/* -h, --help, --usage, --version: printed, then tfdctl exits (-2). */
static int print_help(poptContext ctx, int rc)
{
	if (rc == OPT_HELP)
		poptPrintHelp(ctx, stdout, 0);
	else if (rc == OPT_USAGE)
		poptPrintUsage(ctx, stdout, 0);
	else
		printf("tfdctl %s\n", TFD_VERSION);
	return fflush(stdout) == 0 ? -2 : EXIT_FAILED;
}

/* --timeout: a duration; 0 is no limit. */
static int read_timeout(struct ctl *c, const char *text)
{
	char err[256];
	int64_t ns;

	c->timeout_ns = CTL_TIMEOUT_NS;
	if (!text)
		return -1;
	if (parse_duration(text, &ns, err, sizeof err) != 0)
		return usage("--timeout: %s", err);
	c->timeout_text = text;
	c->timeout_ns = ns == 0 ? -1 : ns;
	return -1;
}

static int read_options(int argc, const char **argv, struct ctl *c, poptContext *pctx)
{
	static char *path, *timeout;
	static int json;
	/* clang-format off */
	static struct poptOption help_table[] = {
		{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
		{ "usage", '\0', POPT_ARG_NONE, NULL, OPT_USAGE, "show a short usage message and exit",
		  NULL },
		{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
		POPT_TABLEEND
	};
	static struct poptOption table[] = {
		{ "control", '\0', POPT_ARG_STRING, &path, 0,
		  "the socket of the tfd (default $TFD_CONTROL, /run/tfd/control as root, "
		  "else $XDG_RUNTIME_DIR/tfd/control)", "PATH" },
		{ "json", 'j', POPT_ARG_NONE, &json, 0, "print tfd's answer, one JSON object", NULL },
		{ "timeout", '\0', POPT_ARG_STRING, &timeout, 0,
		  "give up when tfd has not answered within DURATION (default 10s; run --wait "
		  "waits for the run; 0: no limit)", "DURATION" },
		{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, help_table, 0, "Help:", NULL },
		POPT_TABLEEND
	};
	/* clang-format on */
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
		if (rc > 0)
			return print_help(ctx, rc);
	if (rc < -1) {
		fprintf(stderr, "tfdctl: %s: %s\nTry 'tfdctl --help'.\n",
			poptBadOption(ctx, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		return EXIT_USAGE;
	}
	c->json = json;
	c->path = path;
	if (path && !*path)
		return usage("%s", "--control: an empty path names no socket");
	if ((rc = read_timeout(c, timeout)) != -1)
		return rc;
	c->command = poptGetArg(ctx);
	if (!c->command)
		return usage("%s",
			     "no command: give list, status, run, stop, pause, resume or reload");
	if (!is_command(c->command))
		return unknown_command(c->command);
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
