/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: DURATION. Any input parses or is rejected without a
 * sanitizer report, and an accepted value printed as %i prints it (decimal
 * seconds) reparses to the same nanoseconds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse_time.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512], printed[32];
	int64_t ns, again;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (parse_duration(text, &ns, err, sizeof err) == 0) {
		if (ns < 0)
			abort();
		format_seconds(printed, ns);
		if (parse_duration(printed, &again, err, sizeof err) != 0 || again != ns)
			abort();
	}
	free(text);
	return 0;
}
