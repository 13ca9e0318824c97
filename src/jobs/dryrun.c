/* SPDX-License-Identifier: MIT */
#include "dryrun.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap.h"
#include "job.h"
#include "options.h"
#include "report.h"
#include "schedule.h"

const char *dry_run_format(const char *format, bool json, bool named)
{
	if (format)
		return format;
	if (!json && isatty(STDOUT_FILENO))
		return NULL;
	return named ? "%t %j" : "%t";
}

/* A job's place in the merge: its walk and its node in the heap of next
 * wall-clock instants. */
struct dry_job {
	struct job *job;
	struct schedule_walk walk; /* WALK.passed: expirations shown */
	struct heap_node node;
};

/* The wall-clock time of an expiration at AT on the job's clock, through
 * the clock's offset from realtime now. Returns -1 past 2262. */
static int to_wall(const struct dry_run *dr, const struct job *j, int64_t at, int64_t *wall)
{
	int64_t off;

	if (__builtin_sub_overflow(at, j->clock_now_ns, &off) ||
	    __builtin_add_overflow(dr->wall_now_ns, off, wall))
		return -1;
	return 0;
}

/* The job's walk within --count and --for (which ends on the job's clock
 * --for after it was built), at its first expiration. */
static int dry_first(const struct dry_run *dr, struct dry_job *d)
{
	const struct job *j = d->job;
	int64_t end = INT64_MAX;

	if (j->for_ns && __builtin_add_overflow(j->clock_now_ns, j->for_ns, &end))
		end = INT64_MAX;
	schedule_walk_init(&d->walk, &j->schedule, j->count, end);
	if (j->reboot)
		return -1;
	return schedule_walk_first(&d->walk, dr->wall_now_ns);
}

static size_t dry_line(const struct dry_run *dr, const struct dry_job *d, int64_t wall, int64_t at,
		       bool more, char *line, size_t cap)
{
	const struct job *j = d->job;
	uint64_t k = d->walk.passed;
	int64_t next = d->walk.at_ns;
	struct tick t = {
		.seq = k,
		.expirations = 1,
		.total = k,
		.wall_ns = wall,
		.job = j->name,
		.local = dr->local,
		.interval_ns = j->schedule.kind == SCHEDULE_TIMER ? j->schedule.interval_ns : 0,
	};

	t.elapsed_ns = wall - dr->wall_now_ns;
	t.next_in_ns = more && next > at ? next - at : 0;
	if (dr->json)
		return json_tick(NULL, line, cap, &t);
	if (!dr->format)
		return format_dry_run_human(line, cap, dr->named ? j->name : NULL, wall,
					    dr->wall_now_ns, dr->local);
	return format_tick(line, cap, dr->format, &t);
}

/* Every job that has an expiration, in the heap at its first. */
static int dry_fill(const struct dry_run *dr, struct dry_job *djobs, struct heap *h, char *err,
		    size_t errlen)
{
	for (size_t i = 0; i < dr->table->n; i++) {
		struct dry_job *d = &djobs[i];
		int64_t wall;

		*d = (struct dry_job){ .job = dr->table->jobs[i],
				       .node = { .index = HEAP_ABSENT, .order = i, .item = d } };
		if (dry_first(dr, d) != 0)
			continue;
		if (to_wall(dr, d->job, d->walk.at_ns, &wall) != 0) {
			snprintf(err, errlen, "%s: its first expiration maps past 2262-04-11",
				 d->job->name);
			return 2;
		}
		/* Equal instants come out in file order: the node's order. */
		if (heap_set(h, &d->node, wall) != 0) {
			snprintf(err, errlen, "out of memory");
			return 1;
		}
	}
	return 0;
}

/* The buffer that holds every dry-run line of the table's jobs, by
 * report_line_max's rule. The terminal form (no --format) is the name and
 * under 100 bytes, within the JSON bound for the name. */
static size_t dry_line_max(const struct dry_run *dr)
{
	const char *format = dr->json ? NULL : dr->format;
	size_t cap = REPORT_LINE_MAX;

	for (size_t i = 0; i < dr->table->n; i++) {
		size_t n = report_line_max(NULL, format, strlen(dr->table->jobs[i]->name));

		if (n > cap)
			cap = n;
	}
	return cap;
}

/* Prints the earliest expiration of the heap and puts its job back at its
 * next one. Returns 0, or 2 with ERR when that one maps past 2262. */
static int print_next(const struct dry_run *dr, struct heap *h, char *line, size_t cap, char *err,
		      size_t errlen)
{
	struct dry_job *d = heap_top(h)->item;
	int64_t wall = d->node.key, at = d->walk.at_ns, newest, next_wall;
	bool more;

	/* Each expiration is passed at its own instant: none is missed. */
	schedule_walk_pass(&d->walk, at, 1, &newest, &more);
	fwrite(line, 1, dry_line(dr, d, wall, at, more, line, cap), stdout);
	if (!more) {
		heap_remove(h, &d->node);
		return 0;
	}
	if (to_wall(dr, d->job, d->walk.at_ns, &next_wall) != 0) {
		snprintf(err, errlen, "%s: an expiration maps past 2262-04-11", d->job->name);
		return 2;
	}
	heap_set(h, &d->node, next_wall);
	return 0;
}

/* A job's line of what follows its runs: a hook or its endpoints. On the
 * terminal below the expirations, under a heading printed once (*FIRST);
 * else on stderr, so that a pipe still reads one expiration a line. */
__attribute__((format(printf, 4, 5))) static void
print_after_runs_line(bool terminal, bool *first, const char *job, const char *format, ...)
{
	FILE *out = terminal ? stdout : stderr;
	va_list ap;

	if (terminal)
		fprintf(out, "%s%s  ", *first ? "\nHooks and notifications:\n" : "", job);
	else
		fprintf(out, "tfd: %s: ", job);
	va_start(ap, format);
	vfprintf(out, format, ap);
	va_end(ap);
	fputc('\n', out);
	*first = false;
}

static void print_hooks(const struct job *j, bool terminal, bool *first)
{
	for (int k = 0; k < HOOK_KINDS; k++) {
		const char *command = j->hooks.command[k];

		if (command)
			print_after_runs_line(terminal, first, j->name, "--%s %s",
					      hook_kind_name((enum hook_kind)k), command);
	}
}

/* --ping and --notify, shown without secrets (notify_url_shown). */
static void print_endpoints(const struct job *j, bool terminal, bool *first)
{
	const struct notify_target *t = &j->notify;
	const char *of_runs = t->notify_always ? " of every run" : " of failed runs";
	char ping[256], notify[256];

	if (!notify_target_any(t))
		return;
	notify_url_shown(t->ping ? t->ping : "", ping, sizeof ping);
	notify_url_shown(t->notify ? t->notify : "", notify, sizeof notify);
	print_after_runs_line(terminal, first, j->name, "%s%s%s%s%s%s", t->ping ? "pings " : "",
			      t->ping ? ping : "", t->ping && t->notify ? " " : "",
			      t->notify ? "notifies " : "", t->notify ? notify : "",
			      t->notify ? of_runs : "");
}

/* Each job's hooks and endpoints, after the expirations. */
static void print_after_runs(const struct dry_run *dr)
{
	bool terminal = !dr->format && !dr->json;
	bool first = true;

	for (size_t i = 0; i < dr->table->n; i++) {
		print_hooks(dr->table->jobs[i], terminal, &first);
		print_endpoints(dr->table->jobs[i], terminal, &first);
	}
}

int dry_run_print(const struct dry_run *dr, char *err, size_t errlen)
{
	struct dry_job *djobs = calloc(dr->table->n + 1, sizeof *djobs);
	size_t cap = dry_line_max(dr);
	char *line = malloc(cap);
	struct heap h;
	int status;

	heap_init(&h);
	if (!djobs || !line) {
		free(djobs);
		free(line);
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	status = dry_fill(dr, djobs, &h, err, errlen);
	for (uint64_t shown = 0; status == 0 && shown < dr->lines && h.n > 0 && !ferror(stdout);
	     shown++)
		status = print_next(dr, &h, line, cap, err, errlen);
	heap_free(&h);
	free(djobs);
	free(line);
	if (status != 0)
		return status;
	print_after_runs(dr);
	return finish_stdout() ? -1 : 0;
}
