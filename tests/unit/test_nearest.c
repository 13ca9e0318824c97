/* SPDX-License-Identifier: MIT */
/* Unit tests for nearest, every "did you mean" of tfd and tfdctl: the
 * edit distance with swaps and case ignored, the limit by the word's
 * length, the one candidate a word begins, the first of equals kept,
 * words too long to compare; over tfd's options, tfdctl's commands and
 * job names. */
#include "harness.h"
#include "nearest.h"

#include <stdint.h>
#include <string.h>

static void test_distance(void)
{
	check(nearest_distance("list", "list") == 0, "same");
	check(nearest_distance("lst", "list") == 1, "one deleted");
	check(nearest_distance("ech", "echo") == 1, "one missing at the end");
	check(nearest_distance("stauts", "status") == 1, "two swapped");
	check(nearest_distance("kitten", "sitting") == 3, "kitten, sitting");
	check(nearest_distance("", "abc") == 3, "from nothing");
	check(nearest_distance("abc", "") == 3, "to nothing");
	check(nearest_distance("INTERVAL", "interval") == 0, "case ignored");
	check(nearest_distance("Ab", "bA") == 1, "a swap, case ignored");
}

static void test_too_long(void)
{
	char longer[NEAREST_LEN_MAX + 2];

	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	check(nearest_distance(longer, "a") == SIZE_MAX, "too long to compare");
	longer[NEAREST_LEN_MAX] = '\0';
	check(nearest_distance(longer, longer) == 0, "the longest compared");
}

static const char *found(const char *word, const char *const *set, size_t n)
{
	struct nearest near;

	nearest_begin(&near, word);
	for (size_t i = 0; i < n; i++)
		nearest_offer(&near, set[i]);
	return nearest_found(&near);
}

/* WORD's suggestion among SET is WANT (NULL: none). */
static void expect(const char *const *set, size_t n, const char *word, const char *want, int line)
{
	const char *got = found(word, set, n);

	tally_check(&tally, got == want || (got && want && strcmp(got, want) == 0), __FILE__, line,
		    "'%s': got '%s', want '%s'", word, got ? got : "(none)",
		    want ? want : "(none)");
}

static void test_options(void)
{
	static const char *const options[] = {
		"interval",    "delay", "at",      "count",   "calendar",    "cron",
		"dry-run",     "json",  "quiet",   "verbose", "timeout",     "retry",
		"retry-delay", "jobs",  "on-stop", "for",     "fleet-lease", "fleet-deadline",
	};
	const size_t n = sizeof options / sizeof options[0];

#define OPTION(word, want) expect(options, n, word, want, __LINE__)
	OPTION("intreval", "interval");  /* two letters swapped */
	OPTION("INTERVAL", "interval");  /* case */
	OPTION("inteval", "interval");   /* one dropped */
	OPTION("intervall", "interval"); /* one added */
	OPTION("jsno", "json");
	OPTION("jsn", "json");
	OPTION("js", NULL);       /* too short for a guess */
	OPTION("dry", "dry-run"); /* the one name it begins */
	OPTION("DRY", "dry-run"); /* ... case ignored */
	OPTION("retr", "retry");  /* nearest wins over a beginning */
	OPTION("ret", NULL);      /* two edits, and two names begin so */
	OPTION("timout", "timeout");
	OPTION("onstop", "on-stop");
	OPTION("xyzzy", NULL);
	OPTION("", NULL);
	OPTION("calender", "calendar");
	OPTION("cro", "cron");
	OPTION("fr", "for");
	OPTION("a", NULL);                      /* one byte is near nothing */
	OPTION("fleet-dead", "fleet-deadline"); /* 3 from fleet-lease: not near */
	OPTION("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL);
#undef OPTION
}

static void test_names(void)
{
	static const char *const commands[] = { "list",  "status", "run",   "stop",
						"pause", "resume", "reload" };
	static const char *const jobs[] = { "echo", "backup", "nightly-report", "Echo" };
	const size_t nc = sizeof commands / sizeof commands[0], nj = 3;

	expect(commands, nc, "lst", "list", __LINE__);
	expect(commands, nc, "stauts", "status", __LINE__);
	expect(commands, nc, "rnu", "run", __LINE__);
	expect(commands, nc, "frobnicate", NULL, __LINE__);
	/* A word of the set is not a mistake; one spelt otherwise is. */
	expect(commands, nc, "list", NULL, __LINE__);
	expect(commands, nc, "LIST", "list", __LINE__);
	expect(commands, nc, "stat", "status", __LINE__); /* the one it begins */
	expect(commands, nc, "rel", "reload", __LINE__);
	expect(commands, nc, "re", NULL, __LINE__); /* too short to begin one */
	expect(jobs, nj, "ech", "echo", __LINE__);
	expect(jobs, nj, "nightly-reprot", "nightly-report", __LINE__); /* 3 from 14 */
	expect(jobs, nj, "nightly", "nightly-report", __LINE__);
	expect(jobs, nj, "x", NULL, __LINE__);   /* one byte is near nothing */
	expect(jobs, nj, "bkp", NULL, __LINE__); /* 3 from backup */
	/* stop and step are both 1 from stap: the first offered stays. */
	expect(commands, nc, "stap", "stop", __LINE__);
	/* echo and Echo are both ECHO but for case: the first offered stays. */
	expect(jobs, nj + 1, "ECHO", "echo", __LINE__);
}

int main(void)
{
	test_distance();
	test_too_long();
	test_options();
	test_names();
	return tally_finish(&tally, "nearest");
}
