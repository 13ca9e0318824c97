/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: TIMESTAMP, in UTC and in a zone with daylight time,
 * also as --at reads it (a past time of day is tomorrow's).
 * An accepted instant printed as "@%u" reparses to the same nanoseconds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse_time.h"
#include "report.h"

static struct tz_cache *zones;
static struct tz *berlin;

static void check(const char *text, const struct time_context *ctx)
{
	char err[512], printed[48];
	int64_t ns, again;

	if (parse_timestamp(text, ctx, &ns, err, sizeof err) != 0)
		return;
	printed[0] = '@';
	format_unix(printed + 1, ns);
	if (ns >= 0 && (parse_timestamp(printed, ctx, &again, err, sizeof err) != 0 ||
			again != ns))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256];
	struct time_context ctx = { .now_ns = INT64_C(1796292001) * 1000000000,
				    .find_zone = tz_cache_lookup };

	if (!zones) {
		zones = tz_cache_new();
		berlin = tz_load("Europe/Berlin", err, sizeof err);
		if (!berlin)
			berlin = tz_load_utc();
	}
	ctx.find_zone_arg = zones;
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ctx.local = tz_cache_lookup(zones, "UTC");
	check(text, &ctx);
	ctx.local = berlin;
	check(text, &ctx);
	/* --at's reading: a past time of day moves a day on. */
	ctx.upcoming = true;
	check(text, &ctx);
	free(text);
	return 0;
}
