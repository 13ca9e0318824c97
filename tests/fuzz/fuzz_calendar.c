/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: calendar events. An accepted event's elapses strictly
 * increase, in a zone with daylight time and in UTC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "starts.h"

static struct tz_cache *zones;
static struct tz *berlin;

static void walk(const struct calendar *cal, const struct tz *zone)
{
	for (size_t k = 0; k < FUZZ_NSTARTS; k++) {
		int64_t t = fuzz_starts[k], next;

		for (int i = 0; i < 8 && calendar_next(cal, zone, t, &next) == 0; i++) {
			if (next <= t)
				abort();
			t = next;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct calendar *cal;

	if (!zones) {
		zones = tz_cache_new();
		berlin = tz_load("Europe/Berlin", err, sizeof err);
		if (!berlin)
			berlin = tz_load_utc();
	}
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (calendar_parse_local(text, NULL, tz_cache_lookup, zones, &cal, err, sizeof err) == 0) {
		walk(cal, berlin);
		walk(cal, tz_cache_lookup(zones, "UTC"));
		calendar_free(cal);
	}
	free(text);
	return 0;
}
