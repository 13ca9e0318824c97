/* libFuzzer harness: calendar events. An accepted event's elapses strictly
 * increase, in a zone with daylight time and in UTC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"

static struct tz_cache *zones;
static struct tz *berlin;

/* From 2026, and from the last days before the int64 nanosecond range
 * ends (2262-04-11T23:47:16.854775807Z), where every sum must be checked. */
static void walk(const struct calendar *cal, const struct tz *zone)
{
	static const int64_t starts[] = {
		INT64_C(1796292001) * 1000000000,
		INT64_MAX - INT64_C(3) * 86400 * 1000000000,
		INT64_MAX - 1000000000,
		INT64_MAX,
	};

	for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
		int64_t t = starts[k], next;

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
	if (calendar_parse(text, tz_cache_lookup, zones, &cal, err, sizeof err) == 0) {
		walk(cal, berlin);
		walk(cal, tz_cache_lookup(zones, "UTC"));
		calendar_free(cal);
	}
	free(text);
	return 0;
}
