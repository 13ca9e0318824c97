/* SPDX-License-Identifier: MIT */
/* Unit tests for the loop's pure parts: the reload merge plan (kept jobs
 * by identity, a line twice is two jobs, removed jobs with runs stay at
 * the end, @reboot lines never start on reload; kept jobs keep their
 * names and new default names come after them) and struct timer (arming
 * at the same instant asks nothing of the kernel; a past or zero instant
 * fires at once; a periodic timer's next expiration after a late read). */
#include "harness.h"
#include "job.h"
#include "jobstate.h"
#include "reload.h"
#include "timens.h"
#include "timers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>

static struct job *fake(const char *identity, bool removed, bool reboot)
{
	struct job *j = calloc(1, sizeof *j);

	j->identity = (char *)identity;
	if (job_state_attach(j) != 0)
		abort();
	j->state->removed = removed;
	j->reboot = reboot;
	return j;
}

static void free_fake(struct job *j)
{
	job_state_free(j);
	free(j);
}

static void test_plan(void)
{
	struct job *old[] = { fake("a", false, false), fake("b", false, false),
			      fake("gone", true, false), fake("c", false, false),
			      fake("a", false, false) };
	struct job *fresh[] = { fake("c", false, false), fake("a", false, false),
				fake("d", false, false), fake("a", false, false),
				fake("a", false, false), fake("r", false, true) };
	struct reload_plan p;

	check(reload_plan(old, 5, fresh, 6, &p) == 0, "plan");
	check(p.counts.kept == 3 && p.counts.added == 3 && p.counts.removed == 1,
	      "counts %zu %zu %zu", p.counts.kept, p.counts.added, p.counts.removed);
	check(p.n == 8, "table of %zu", p.n);
	check(p.table[0] == old[3] && p.table[1] == old[0] && p.table[2] == fresh[2] &&
		      p.table[3] == old[4] && p.table[4] == fresh[4] && p.table[5] == fresh[5],
	      "file order with kept jobs as they were");
	check(p.table[6] == old[1] && p.table[7] == old[2], "then the removed, old first");
	check(p.nretire == 1 && p.retire[0] == old[1], "b retires");
	check(p.nstart == 2 && p.start[0] == fresh[2] && p.start[1] == fresh[4],
	      "d and the third a start, @reboot does not");
	check(p.ndiscard == 3 && p.discard[0] == fresh[0] && p.discard[1] == fresh[1] &&
		      p.discard[2] == fresh[3],
	      "kept copies discarded");
	reload_plan_free(&p);
	check(reload_plan(NULL, 0, NULL, 0, &p) == 0 && p.n == 0, "empty plan");
	reload_plan_free(&p);
	for (size_t i = 0; i < 5; i++)
		free_fake(old[i]);
	for (size_t i = 0; i < 6; i++)
		free_fake(fresh[i]);
}

/* A job of a jobs file named NAME; BASE: named by default after it. */
static struct job *named(const char *identity, const char *name, const char *base)
{
	struct job *j = fake(identity, false, false);

	j->name = strdup(name);
	j->name_base = base ? strdup(base) : NULL;
	return j;
}

static void free_named(struct job *j)
{
	free(j->name);
	free(j->name_base);
	free_fake(j);
}

static const char *names_of(const struct reload_plan *p, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->nfile && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", p->table[i]->name);
	return buf;
}

static void test_plan_names(void)
{
	char buf[256];
	struct reload_plan p;

	/* A line inserted above an unchanged one takes its default name in
	 * file order: the unchanged one is still kept, under its name, and
	 * the new one is named after it. */
	{
		struct job *old[] = { named("1s true", "true", "true") };
		struct job *fresh[] = { named("700ms true", "true", "true"),
					named("1s true", "true-2", "true") };

		check(reload_plan(old, 1, fresh, 2, &p) == 0, "plan");
		check(p.counts.kept == 1 && p.counts.added == 1 && p.counts.removed == 0,
		      "counts %zu %zu %zu", p.counts.kept, p.counts.added, p.counts.removed);
		check(p.table[1] == old[0], "the unchanged line kept");
		check(strcmp(names_of(&p, buf, sizeof buf), "true-2 true") == 0, "names '%s'", buf);
		reload_plan_free(&p);
		free_named(old[0]);
		free_named(fresh[0]);
		free_named(fresh[1]);
	}
	/* A new --name takes a kept line's default name: that line cannot
	 * keep its name, so it is not kept; it starts again, named anew. */
	{
		struct job *old[] = { named("x", "x", "x"), named("--name y y", "y", NULL) };
		struct job *fresh[] = { named("--name x z", "x", NULL), named("x", "x-2", "x"),
					named("--name y y", "y", NULL) };

		check(reload_plan(old, 2, fresh, 3, &p) == 0, "plan");
		check(p.counts.kept == 1 && p.counts.added == 2 && p.counts.removed == 1,
		      "counts %zu %zu %zu", p.counts.kept, p.counts.added, p.counts.removed);
		check(p.nretire == 1 && p.retire[0] == old[0], "the old x retires");
		check(p.table[2] == old[1], "y kept");
		check(strcmp(names_of(&p, buf, sizeof buf), "x x-2 y") == 0, "names '%s'", buf);
		reload_plan_free(&p);
		for (size_t i = 0; i < 2; i++)
			free_named(old[i]);
		for (size_t i = 0; i < 3; i++)
			free_named(fresh[i]);
	}
}

static void test_timer(void)
{
	struct timer t;
	struct itimerspec cur;
	int64_t now = clock_now_ns(CLOCK_MONOTONIC);

	timer_init(&t);
	check(t.fd == -1 && t.armed == INT64_MAX, "closed");
	check(timer_open(&t, CLOCK_MONOTONIC, CLOCK_MONOTONIC) == 0, "open");
	check(timer_arm(&t, now + NSEC_PER_SEC * 100, 0, false) == 0, "arm");
	check(timerfd_gettime(t.fd, &cur) == 0 && cur.it_value.tv_sec >= 98, "armed in 100 s");
	/* The same instant again: the kernel is not asked (a closed fd
	 * would make it fail). */
	{
		int fd = t.fd;

		t.fd = -1;
		check(timer_arm(&t, now + NSEC_PER_SEC * 100, 0, false) == 0, "no call");
		t.fd = fd;
	}
	check(timer_arm(&t, 0, 0, false) == 0, "zero fires at once");
	check(timer_read(&t) == TIMER_READ_OK, "read");
	check(timer_arm(&t, INT64_MAX, 0, false) == 0 && timerfd_gettime(t.fd, &cur) == 0 &&
		      cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0,
	      "disarmed");
	t.armed = 1000;
	t.period = 300;
	timer_expired(&t, 1000);
	check(t.armed == 1300, "next on the grid: %lld", (long long)t.armed);
	timer_expired(&t, 2000);
	check(t.armed == 2200, "after a late read: %lld", (long long)t.armed);
	t.period = 0;
	timer_expired(&t, 3000);
	check(t.armed == -1, "one-shot: unknown");
	timer_close(&t);
	check(t.fd == -1, "closed again");
}

int main(void)
{
	test_plan();
	test_plan_names();
	test_timer();
	return tally_finish(&tally, "loopparts");
}
