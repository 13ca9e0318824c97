/* SPDX-License-Identifier: MIT */
/* Unit tests for the answers made in slices across turns, on a bare loop
 * (loopkit.h): the list in parts (jobview.h), /metrics' figures copied a
 * slice of jobs at a time (jobrefs.h, tick_metrics_copy), and the budget
 * they are made within (slices.h). The parts put together are the whole
 * list, valid JSON, in list order, each part at most a job past its size;
 * nothing is made while the budget is spent, and what a part took is
 * spent from it; jobs a reload frees between two slices (or before the
 * first) are left out and never read again (run under ASan by make
 * unit-asan), one it marks removed is left out too; a budget renews once
 * a period is over, pays a debt over the periods, and says when an answer
 * that waits for it may go on. */
#include "harness.h"
#include "jobrefs.h"
#include "jobview.h"
#include "json.h"
#include "loopkit.h"
#include "slices.h"
#include "tick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOBS 600

static struct loopkit *table(void)
{
	struct loopkit *k = loopkit_new();
	char name[16];

	for (int i = 0; i < JOBS; i++) {
		snprintf(name, sizeof name, "j%03d", i);
		loopkit_job(k, name, NULL, 0, 1000000);
	}
	return k;
}

/* A budget that never runs out in a test. */
static struct slice_budget plenty(void)
{
	return (struct slice_budget){ .left_ns = INT64_MAX / 4, .renew_at = INT64_MAX };
}

/* The rest of LS's parts, each at most MAX bytes and a job, appended to
 * TEXT (*LEN bytes, room for SIZE). Returns the parts made. */
static int rest(struct jobview_listing *ls, size_t max, char *text, size_t *len, size_t size)
{
	struct slice_budget b = plenty();
	int parts = 0, rc = 0;

	while (rc == 0) {
		const char *part;
		size_t n;

		rc = jobview_listing_part(ls, &b, max, &part, &n);
		check(rc >= 0 && *len + n < size, "a part (%d, %zu bytes)", rc, n);
		if (rc < 0 || *len + n >= size)
			return parts;
		check(n <= max + 256, "a part of %zu bytes for %zu", n, max);
		memcpy(text + *len, part, n);
		*len += n;
		parts++;
	}
	text[*len] = '\0';
	return parts;
}

/* The jobs' names in TEXT's list, joined by spaces, in *NAMES; returns
 * how many (-1: not a list). */
static int names_of(const char *text, size_t len, char *names, size_t size)
{
	struct json_doc d = { 0 };
	char err[128];
	size_t jobs, at = 0;
	int n = -1;

	names[0] = '\0';
	if (json_parse(&d, text, len, err, sizeof err) != 0) {
		check(0, "the list is JSON: %s", err);
		json_free(&d);
		return -1;
	}
	jobs = json_get(&d, 0, "jobs");
	if (jobs && d.v[jobs].type == JSON_ARRAY) {
		n = (int)d.v[jobs].count;
		for (size_t e = jobs + 1, i = 0; i < d.v[jobs].count; i++, e = d.v[e].next) {
			size_t name = json_get(&d, e, "job");

			at += (size_t)snprintf(names + at, size - at, "%s%.*s", i ? " " : "",
					       (int)d.v[name].len, d.text + d.v[name].start);
		}
	}
	json_free(&d);
	return n;
}

static void test_whole(void)
{
	struct loopkit *k = table();
	struct jobview_listing *ls = jobview_listing_new(&k->l);
	static char text[1 << 20], names[1 << 16];
	size_t len = 0;
	int parts = rest(ls, 4096, text, &len, sizeof text);

	check(parts > 10, "made in parts: %d", parts);
	check(len > 0 && text[len - 1] == '\n', "a newline ends it");
	check(names_of(text, len, names, sizeof names) == JOBS, "every job is listed");
	check(strncmp(names, "j000 j001 j002 ", 15) == 0 && strstr(names, "j598 j599"),
	      "in list order (the same next elapse: by name)");
	jobview_listing_free(ls);
	loopkit_free(k);
}

static void test_budget(void)
{
	struct loopkit *k = table();
	struct jobview_listing *ls = jobview_listing_new(&k->l);
	struct slice_budget b = { .left_ns = 0, .renew_at = 5 };
	const char *part;
	size_t n;

	check(jobview_listing_part(ls, &b, 4096, &part, &n) == 0 && n == 0,
	      "nothing is made while the budget is spent");
	check(slice_budget_next(&b) == 5, "it waits for the renewal");
	b.left_ns = SLICE_NS;
	check(jobview_listing_part(ls, &b, 4096, &part, &n) == 0 && n > 0 &&
		      strncmp(part, "{\"ok\":true,\"jobs\":[", 19) == 0,
	      "the head and the first jobs");
	check(b.left_ns < SLICE_NS, "what it took is spent: %lld", (long long)b.left_ns);
	jobview_listing_free(ls);
	loopkit_free(k);
}

/* A reload's end of job I: out of the table and freed, as loop.c's
 * drop_job does. */
static void drop(struct loopkit *k, size_t i)
{
	struct loop *l = &k->l;
	struct job *j = l->jobs[i];

	job_state_free(j);
	free(j->name);
	free(j);
	memmove(&l->jobs[i], &l->jobs[i + 1], (l->njobs - i - 1) * sizeof *l->jobs);
	l->njobs--;
	l->jobs_dropped++;
}

static void test_dropped(void)
{
	struct loopkit *k = table();
	struct jobview_listing *ls = jobview_listing_new(&k->l), *early;
	struct slice_budget b = plenty();
	static char text[1 << 20], names[1 << 16];
	const char *part;
	size_t len = 0, n;
	int listed;

	/* A part or two, about a hundred jobs; then every other job of the
	 * table is freed, and one more marked removed (its runs go on). */
	while (len < 8000 && jobview_listing_part(ls, &b, 4096, &part, &n) == 0) {
		memcpy(text + len, part, n);
		len += n;
	}
	early = jobview_listing_new(&k->l);
	for (size_t i = JOBS; i-- > 0;)
		if (i % 2)
			drop(k, i);
	k->l.jobs[k->l.njobs - 1]->state->removed = true;
	rest(ls, 4096, text, &len, sizeof text);
	listed = names_of(text, len, names, sizeof names);
	check(listed > 300 && listed < JOBS, "those sent stay, those freed after are left out: %d",
	      listed);
	check(strstr(names, "j001 ") && !strstr(names, "j599") && !strstr(names, "j598"),
	      "j001 was sent before; j599 freed, j598 removed: %s", names + strlen(names) - 40);
	/* A list not begun when they went lists the table as it is. */
	len = 0;
	rest(early, 4096, text, &len, sizeof text);
	check(names_of(text, len, names, sizeof names) == JOBS / 2 - 1, "the table as it is now");
	jobview_listing_free(early);
	jobview_listing_free(ls);
	loopkit_free(k);
}

/* The figures copied in two slices with half the jobs freed between
 * them: those copied first stay, those freed after are left out. */
static void test_metrics_copy(void)
{
	struct loopkit *k = table();
	struct jobrefs r;
	struct metrics_snapshot *s;
	static char text[1 << 22];
	long n, len = 0;
	int jobs = 0;

	check(jobrefs_take(&r, &k->l) == 0 && r.n == JOBS, "the table's jobs taken");
	s = metrics_snapshot_new(r.n, NULL);
	check(s && tick_metrics_copy(s, r.jobs, 100) == 0, "the first slice");
	for (size_t i = JOBS; i-- > 0;)
		if (i % 2)
			drop(k, i);
	check(jobrefs_check(&r, &k->l, 100) == 0, "the freed found");
	check(tick_metrics_copy(s, r.jobs + 100, r.n - 100) == 0, "the rest");
	while ((n = metrics_snapshot_read(s, text + len, sizeof text - 1 - (size_t)len)) > 0)
		len += n;
	text[len] = '\0';
	for (const char *p = text; (p = strstr(p, "tfd_runs_total{job_name=\"")); p++)
		jobs++;
	check(jobs == 4 * (100 + (JOBS - 100) / 2), "100, then every other of the rest: %d",
	      jobs / 4);
	check(strstr(text, "job_name=\"j099\"") && !strstr(text, "job_name=\"j101\""),
	      "j099 copied before, j101 freed after");
	metrics_snapshot_free(s);
	jobrefs_free(&r);
	loopkit_free(k);
}

static void test_renew(void)
{
	struct slice_budget b = { 0 };

	slice_budget_renew(&b, 1000);
	check(b.left_ns == SLICE_NS && b.renew_at == 1000 + SLICE_PERIOD_NS, "the first renewal");
	slice_end(&b, slice_begin() - SLICE_NS);
	check(slice_budget_spent(&b), "spent");
	slice_budget_renew(&b, 1000 + SLICE_PERIOD_NS / 2);
	check(slice_budget_spent(&b), "not renewed within its period");
	b.left_ns = -3 * SLICE_NS;
	slice_budget_renew(&b, 1000 + SLICE_PERIOD_NS);
	check(b.left_ns == -2 * SLICE_NS, "a debt is paid a period at a time: %lld",
	      (long long)b.left_ns);
	slice_budget_renew(&b, 1000 + 4 * SLICE_PERIOD_NS);
	check(b.left_ns == SLICE_NS, "periods missed pay it, never beyond one period's worth");
	check(slice_budget_next(&b) == 0, "some is left: at once");
}

int main(void)
{
	test_whole();
	test_budget();
	test_dropped();
	test_metrics_copy();
	test_renew();
	return tally_finish(&tally, "test_jobview");
}
