/* SPDX-License-Identifier: MIT */
/* test_cron: cron_parse and cron_next against the reference corpus
 * (argv[1]/cron.tsv) and the project's own vectors (argv[2]/cron.tsv), row
 * by row with the checker of elapses.h, which describes the columns; run
 * times are whole seconds.
 *
 * Besides the files, cron_next is compared with a slow, obviously-correct
 * model of cronie that walks real time minute by minute, across DST changes
 * in several zones. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "civil.h"
#include "cron.h"
#include "elapses.h"
#include "harness.h"
#include "timens.h"
#include "tz.h"

/* The files */

static int parse_expression(const char *input, const struct tz *zone, void *arg, void **expression,
			    char *err, size_t errlen)
{
	struct cron *cron = NULL;
	int rc = cron_parse(input, &cron, err, errlen);

	(void)zone;
	(void)arg;
	*expression = cron;
	return rc;
}

static int next_run(const void *expression, const struct tz *zone, int64_t after_ns,
		    int64_t *next_ns)
{
	return cron_next(expression, zone, after_ns, next_ns);
}

static void free_expression(void *expression)
{
	cron_free(expression);
}

/* The model */

/* A cron expression as plain tables, filled from a tiny independent parser
 * that knows numbers, '*', ranges, steps and lists (no names). */
struct model {
	bool minute[60], hour[24], mday[32], month[13], wday[8];
	bool mday_star, wday_star, wild;
};

static bool model_field(const char *text, bool *set, int low, int high, bool *star)
{
	char buf[64], *item, *save = NULL;

	*star = text[0] == '*';
	snprintf(buf, sizeof(buf), "%s", text);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		int lo = low, hi = high, step = 1;
		char *slash = strchr(item, '/');

		if (slash)
			step = atoi(slash + 1);
		if (item[0] != '*' && sscanf(item, "%d-%d", &lo, &hi) < 2)
			hi = lo;
		for (int v = lo; v <= hi; v += step)
			set[v] = true;
	}
	return true;
}

static void model_parse(const char *expr, struct model *m)
{
	char f[5][64];
	bool star;

	memset(m, 0, sizeof(*m));
	sscanf(expr, "%63s %63s %63s %63s %63s", f[0], f[1], f[2], f[3], f[4]);
	model_field(f[0], m->minute, 0, 59, &star);
	m->wild = star;
	model_field(f[1], m->hour, 0, 23, &star);
	m->wild |= star;
	model_field(f[2], m->mday, 1, 31, &m->mday_star);
	model_field(f[3], m->month, 1, 12, &star);
	model_field(f[4], m->wday, 0, 7, &m->wday_star);
	m->wday[0] |= m->wday[7];
}

/* Whether the wall-clock minute WALL (seconds) matches. */
static bool model_matches(const struct model *m, int64_t wall)
{
	int64_t days = floor_div(wall, 86400), year;
	int64_t secs = wall - days * 86400;
	int month, mday;
	bool dom, dow;

	civil_from_days(days, &year, &month, &mday);
	dom = m->mday[mday];
	dow = m->wday[weekday_from_days(days)];
	if (!m->minute[secs / 60 % 60] || !m->hour[secs / 3600] || !m->month[month])
		return false;
	return m->mday_star || m->wday_star ? dom && dow : dom || dow;
}

/* cronie, one real minute at a time: at instant T a job runs if T's wall
 * time matches (in a repeated hour's second pass, wildcard jobs only), and
 * where the clock jumps forward, fixed-time jobs whose time was skipped
 * run at the jump. */
static int64_t model_next(const struct model *m, const struct tz *zone, int64_t after)
{
	for (int64_t t = floor_div(after, 60) * 60 + 60;; t += 60) {
		int32_t off = tz_offset_at(zone, t, NULL);
		int32_t before = tz_offset_at(zone, t - 60, NULL);
		int64_t wall = t + off, at[2];

		if (model_matches(m, wall)) {
			bool second = tz_local_to_utc(zone, wall, at) == 2 && at[1] == t;

			if (!second || m->wild)
				return t;
		}
		/* The minutes skipped just before T. */
		for (int64_t w = t - 60 + before + 60; !m->wild && w < wall; w += 60) {
			if (model_matches(m, w))
				return t;
		}
	}
}

static void check_model(struct tally *tally)
{
	static const char *const zones[] = { "Europe/Berlin", "America/New_York",
					     "Australia/Lord_Howe", "UTC" };
	static const char *const exprs[] = {
		"0 * * * *",      "*/20 * * * *", "30 2 * * *", "15 1-3 * * *",
		"*/30 1,2 * * *", "0,30 2 * * 0", "45 1 * * *", "* 2 * * *",
		"5 3 1-7 * 0",    "0 0 * * *",    "59 1 * * *", "10-50/20 * * * *",
	};
	/* Days around each zone's 2026 changes and a quiet day. */
	static const int64_t bases[] = { 1774735200, 1772935200, 1791025200, 1775300400,
					 1792872000, 1793494800, 1781526896 };
	char err[256];
	int failures = 0, checks = 0;

	for (size_t z = 0; z < sizeof(zones) / sizeof(*zones); z++) {
		struct tz *zone = tz_load(zones[z], err, sizeof(err));

		for (size_t e = 0; zone && e < sizeof(exprs) / sizeof(*exprs); e++) {
			struct cron *cron;
			struct model m;

			if (cron_parse(exprs[e], &cron, err, sizeof(err)) != 0) {
				tally_check(tally, 0, "model", 0, "%s", err);
				continue;
			}
			model_parse(exprs[e], &m);
			for (size_t b = 0; b < sizeof(bases) / sizeof(*bases); b++) {
				int64_t t = bases[b];

				for (int i = 0; i < 40; i++) {
					int64_t want = model_next(&m, zone, t), got;
					/* clang-format off */
					bool ok = cron_next(cron, zone, t * NSEC_PER_SEC, &got) == 0 &&
						  got == want * NSEC_PER_SEC;
					/* clang-format on */

					checks++;
					if (!ok && failures++ < 10)
						fprintf(stderr,
							"model: '%s' in %s after %" PRId64
							": want %" PRId64 ", got %" PRId64 "\n",
							exprs[e], zones[z], t, want,
							got / NSEC_PER_SEC);
					/* Also start from odd seconds, not only runs. */
					t = i % 3 == 2 ? want + 17 : want;
				}
			}
			cron_free(cron);
		}
		tz_free(zone);
	}
	tally_check(tally, failures == 0, "model", 0,
		    "%d of %d next-run computations differ from the model", failures, checks);
}

/* Near the ends of the int64 nanosecond range, cron_next says "no more" or
 * gives a later instant, and never wraps (issue 11 item 10). */
static void check_range_end(const struct schedule_kind *kind, struct tally *tally)
{
	static const char *const exprs[] = {
		"* * * * *", "47 23 11 4 *", "0 0 29 2 *", "@yearly", "0 0 * * 0",
	};
	static const int64_t afters[] = {
		INT64_MAX - INT64_C(3) * 86400 * NSEC_PER_SEC,
		INT64_MAX - NSEC_PER_SEC,
		INT64_MAX,
		INT64_MIN,
		-1,
	};
	struct tz *zone = tz_load("America/New_York", NULL, 0);

	elapses_check_range_end(kind, exprs, sizeof(exprs) / sizeof(exprs[0]), afters,
				sizeof(afters) / sizeof(afters[0]), zone, INT64_MAX, tally);
	tz_free(zone);
}

/* Dates that never come are cron's "never": parsed, said by cron_never,
 * and without a next run; the 29th of February comes, every fourth year. */
static void check_never(struct tally *tally)
{
	static const struct {
		const char *expr;
		bool never;
	} cases[] = {
		{ "0 0 30 2 *", true },  { "0 0 31 4 *", true },    { "0 0 31 2,4,6,9,11 *", true },
		{ "0 0 29 2 *", false }, { "0 0 30 2 mon", false }, { "0 0 31 * *", false },
	};
	char err[256];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct cron *cron = NULL;
		int64_t next;

		if (cron_parse(cases[i].expr, &cron, err, sizeof err) != 0) {
			tally_check(tally, false, "never", 0, "'%s': %s", cases[i].expr, err);
			continue;
		}
		tally_check(tally, cron_never(cron) == cases[i].never, "never", 0, "'%s': never %d",
			    cases[i].expr, cron_never(cron));
		tally_check(tally, (cron_next(cron, NULL, 0, &next) != 0) == cases[i].never,
			    "never", 0, "'%s': a next run or none", cases[i].expr);
		cron_free(cron);
	}
}

int main(int argc, char **argv)
{
	static const struct schedule_kind kind = {
		.test = "test_cron",
		.file = "cron.tsv",
		.error_prefix = "invalid cron expression",
		.elapse = "run",
		.fractions = false,
		.parse = parse_expression,
		.next = next_run,
		.release = free_expression,
	};

	elapses_check_files(&kind, argc, argv, &tally);
	check_model(&tally);
	check_range_end(&kind, &tally);
	check_never(&tally);
	return tally_finish(&tally, "test_cron");
}
