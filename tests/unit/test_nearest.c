/* SPDX-License-Identifier: MIT */
/* Unit tests for nearest (tfdctl's "did you mean"): the edit distance
 * with swaps, the limit by the word's length, the first of equals kept,
 * words too long to compare. */
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

static void test_found(void)
{
	static const char *const commands[] = { "list", "status", "run", "stop", "pause",
						"resume", "reload" };
	static const char *const jobs[] = { "echo", "backup", "nightly-report" };
	const size_t nc = sizeof commands / sizeof commands[0];
	const char *f;

	check((f = found("lst", commands, nc)) && strcmp(f, "list") == 0, "lst: list");
	check((f = found("stauts", commands, nc)) && strcmp(f, "status") == 0, "stauts");
	check((f = found("rnu", commands, nc)) && strcmp(f, "run") == 0, "rnu: run");
	check(!found("frobnicate", commands, nc), "frobnicate: none");
	check(!found("list", commands, nc), "a word of the set is not a mistake");
	check((f = found("ech", jobs, 3)) && strcmp(f, "echo") == 0, "ech: echo");
	check((f = found("nightly-reprot", jobs, 3)) && strcmp(f, "nightly-report") == 0,
	      "a long name may be further off");
	check(!found("x", jobs, 3), "one byte is near nothing");
	check(!found("bkp", jobs, 3), "bkp is 3 from backup");
	/* stop and step are both 1 from stap: the first offered stays. */
	check((f = found("stap", commands, nc)) && strcmp(f, "stop") == 0, "the first of equals");
}

int main(void)
{
	test_distance();
	test_too_long();
	test_found();
	return tally_finish(&tally, "nearest");
}
