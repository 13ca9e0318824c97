/* libFuzzer harness: cron expressions. An accepted expression's run times
 * strictly increase, in a zone with daylight time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"

static struct tz *zone;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct cron *cron;
	/* From 2026, and from the last days before the int64 nanosecond
	 * range ends, where every sum must be checked. */
	static const int64_t starts[] = {
		INT64_C(1796292001) * 1000000000,
		INT64_MAX - INT64_C(3) * 86400 * 1000000000,
		INT64_MAX - 1000000000,
		INT64_MAX,
	};

	if (!zone) {
		zone = tz_load("America/New_York", err, sizeof err);
		if (!zone)
			zone = tz_load_utc();
	}
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (cron_parse(text, &cron, err, sizeof err) == 0) {
		for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
			int64_t t = starts[k], next;

			for (int i = 0; i < 8 && cron_next(cron, zone, t, &next) == 0; i++) {
				if (next <= t)
					abort();
				t = next;
			}
		}
		cron_free(cron);
	}
	free(text);
	return 0;
}
