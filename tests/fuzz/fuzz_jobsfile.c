/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: jobs files. The input is the file's bytes. An accepted
 * file's entries are well formed (in line order, each kind with its own
 * fields, environments of NAME=VALUE), and every default name is a
 * non-empty base name; a refused one gets one line naming FILE:LINE. Every
 * input is read three times: as a jobs file, as a system crontab
 * (JOBS_SYSTEM), whose crontab lines carry a user field, and as a user's
 * crontab (JOBS_USER), which takes no tfd line. Each accepted entry's text,
 * however long, is then a job name, a replica name, an error message and a
 * --format for every JSON writer and the tick line, in a buffer of exactly
 * report_line_max's size: a line that does not end in "}\n" was cut, one
 * written past the buffer is ASan's. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobsfile.h"
#include "report.h"
#include "shellword.h"

static void check_name(const char *command)
{
	char buf[64];
	size_t n = jobs_default_name(command, buf, sizeof(buf));

	if (n == 0 || n != strlen(buf) || strchr(buf, '/'))
		abort();
}

static void check_entry(const struct jobs_entry *e, unsigned flags)
{
	if (!e->text || !e->env || !e->shell || !*e->shell)
		abort();
	for (char **v = e->env; *v; v++)
		if (!strchr(*v, '=') || **v == '=')
			abort();
	switch (e->kind) {
	case JOBS_CRONTAB:
	case JOBS_REBOOT:
		if (!e->command || !*e->command || e->argv ||
		    (e->kind == JOBS_CRONTAB) != (e->schedule != NULL))
			abort();
		/* The user field is one non-empty word, in a system crontab
		 * only: a name, neither a uid nor USER:GROUP. */
		if ((flags & JOBS_SYSTEM) ? !e->user || !*e->user || strpbrk(e->user, " \t:") ||
						    strspn(e->user, "0123456789") == strlen(e->user)
					  : e->user != NULL)
			abort();
		check_name(e->command);
		break;
	case JOBS_TFD:
		if ((flags & JOBS_USER) || e->command || e->schedule || e->input || e->user || !e->argv ||
		    e->argc < 1 || e->argv[e->argc] || e->argv[0][0] != '-')
			abort();
		break;
	default:
		abort();
	}
}

/* BUF of exactly CAP bytes (report_line_max's) holds the whole line N. */
static void check_whole(const char *buf, size_t cap, size_t n, bool json)
{
	if (n == 0 || n >= cap || buf[n - 1] != '\n' || buf[n] != '\0' ||
	    (json && (n < 2 || buf[n - 2] != '}')))
		abort();
}

static void check_json(const struct json_context *cx, const char *name, const char *message)
{
	size_t len = strlen(name) + strlen(message), cap = report_line_max(cx, NULL, len);
	char *buf = malloc(cap);
	struct tick t = { .job = name, .seq = UINT64_MAX, .expirations = UINT64_MAX,
			  .total = UINT64_MAX, .wall_ns = INT64_MIN, .elapsed_ns = INT64_MIN,
			  .late_ns = INT64_MIN, .next_in_ns = INT64_MIN,
			  .interval_ns = INT64_MIN, .action = TICK_ELSEWHERE };
	struct run_end e = { .job = name, .seq = UINT64_MAX, .pid = INT32_MIN,
			     .status = INT32_MIN, .signal = 64, .duration_ns = INT64_MIN,
			     .timed_out = true, .attempt = UINT32_MAX, .failed = true };

	if (!buf)
		return;
	check_whole(buf, cap, json_tick(cx, buf, cap, &t), true);
	check_whole(buf, cap, json_exit(cx, buf, cap, &e), true);
	check_whole(buf, cap, json_clock(cx, buf, cap, name, INT64_MIN), true);
	check_whole(buf, cap, json_error(cx, buf, cap, name, "sendmail", message), true);
	check_whole(buf, cap, json_reload(cx, buf, cap, false, 0, 0, 0, message), true);
	check_whole(buf, cap,
		    json_output(cx, buf, cap, name, UINT64_MAX, "stderr", message, strlen(message)),
		    true);
	free(buf);
}

/* The entry's text as job name, message, replica and format. */
static void check_events(const struct jobs_entry *e)
{
	const char *text = e->text, *other = e->command ? e->command : e->argv[0];
	char err[256];

	check_json(NULL, text, other);
	check_json(&(struct json_context){ .replica = text }, other, "");
	if (format_check(text, err, sizeof err) == 0) {
		struct tick t = { .job = other, .seq = UINT64_MAX, .wall_ns = INT64_MIN,
				  .elapsed_ns = INT64_MIN, .late_ns = INT64_MIN };
		size_t cap = report_line_max(NULL, text, strlen(other));
		char *buf = malloc(cap);

		if (buf)
			check_whole(buf, cap, format_tick(buf, cap, text, &t), false);
		free(buf);
	}
}

static void check_file(const uint8_t *data, size_t size, unsigned flags)
{
	struct jobs_file *f;
	char err[256];

	if (jobs_parse_as("jobs", (const char *)data, size, flags, &f, err, sizeof(err))) {
		if ((strncmp(err, "jobs:", 5) != 0 && strcmp(err, "out of memory") != 0) ||
		    strchr(err, '\n'))
			abort();
		return;
	}
	for (size_t i = 0; i < f->n; i++) {
		check_entry(&f->entries[i], flags);
		check_events(&f->entries[i]);
		if (i > 0 && f->entries[i].line <= f->entries[i - 1].line)
			abort();
	}
	/* JOBS_LENIENT: each line passed over once, in order, with one line
	 * naming it; never one without the flag. */
	for (size_t i = 0; i < f->nbad; i++)
		if (!(flags & JOBS_LENIENT) || strncmp(f->bad[i].why, "jobs:", 5) != 0 ||
		    strchr(f->bad[i].why, '\n') || (i > 0 && f->bad[i].line <= f->bad[i - 1].line))
			abort();
	jobs_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_file(data, size, 0);
	check_file(data, size, JOBS_SYSTEM);
	check_file(data, size, JOBS_USER);
	check_file(data, size, JOBS_SYSTEM | JOBS_LENIENT);
	check_file(data, size, JOBS_USER | JOBS_LENIENT);
	return 0;
}
