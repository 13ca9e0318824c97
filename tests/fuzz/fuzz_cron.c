/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: cron expressions. An accepted expression's run times
 * strictly increase, in a zone with daylight time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"
#include "starts.h"

static struct tz *zone;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct cron *cron;

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
		for (size_t k = 0; k < FUZZ_NSTARTS; k++) {
			int64_t t = fuzz_starts[k], next;

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
