/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_events' repeats: a line said again and again is
 * told once, then as a count at most once a period, and a count left
 * when the line stops is told when its period ends. */
#include "fleet_events.h"
#include "harness.h"
#include "timens.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define S NSEC_PER_SEC

static bool tell(struct fleet_repeats *r, const char *key, int64_t at, uint64_t *more)
{
	return fleet_repeats_tell(r, FLEET_EVENT_ERROR, "postgresql", key, key, at, more);
}

static void test_once_then_count(void)
{
	struct fleet_repeats r = { 0 };
	struct fleet_told t;
	uint64_t more = 99;

	check(tell(&r, "disk full", 100 * S, &more) && more == 0, "the first is told");
	for (int i = 1; i <= 40; i++)
		check(!tell(&r, "disk full", 100 * S + i * S / 2, &more),
		      "a repeat within the period: counted");
	check(tell(&r, "other", 101 * S, &more) && more == 0, "another line is told");
	check(!fleet_repeats_due(&r, 159 * S, &t), "no count before the period ends");
	check(fleet_repeats_due(&r, 160 * S, &t) && t.more == 40 &&
		      strcmp(t.message, "disk full") == 0,
	      "the count at the period's end: %llu", (unsigned long long)t.more);
	check(!fleet_repeats_due(&r, 160 * S, &t), "told once");
	/* Said again within the next period: counted, then told with it. */
	check(!tell(&r, "disk full", 170 * S, &more), "counted in the next period");
	check(tell(&r, "disk full", 221 * S, &more) && more == 1,
	      "told after the period, with 1 more");
	/* A period with nothing more frees the line: the next is told at once. */
	check(!fleet_repeats_due(&r, 290 * S, &t), "nothing more: no count");
	check(tell(&r, "disk full", 291 * S, &more) && more == 0, "told again at once");
	fleet_repeats_free(&r);
}

static void test_keys_and_room(void)
{
	struct fleet_repeats r = { 0 };
	char key[32];
	uint64_t more;

	for (int i = 0; i < FLEET_REPEAT_MAX + 5; i++) {
		snprintf(key, sizeof key, "line %d", i);
		check(tell(&r, key, S, &more), "%s: told", key);
	}
	/* The table is full: a line it holds is still counted, one it has
	 * no room for is told every time. */
	check(!tell(&r, "line 0", 2 * S, &more), "a kept line is counted");
	snprintf(key, sizeof key, "line %d", FLEET_REPEAT_MAX + 1);
	check(tell(&r, key, 2 * S, &more), "no room: told");
	fleet_repeats_free(&r);
}

int main(void)
{
	test_once_then_count();
	test_keys_and_room();
	return tally_finish(&tally, "fleet_events");
}
