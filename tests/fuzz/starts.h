/* SPDX-License-Identifier: MIT */
/* starts: the instants the schedule harnesses walk from: 2026, and the last
 * days before the int64 nanosecond range ends (2262-04-11T23:47:16.854775807Z),
 * where every sum must be checked. */
#ifndef TFD_FUZZ_STARTS_H
#define TFD_FUZZ_STARTS_H

#include <stddef.h>
#include <stdint.h>

static const int64_t fuzz_starts[] = {
	INT64_C(1796292001) * 1000000000,
	INT64_MAX - INT64_C(3) * 86400 * 1000000000,
	INT64_MAX - 1000000000,
	INT64_MAX,
};

#define FUZZ_NSTARTS (sizeof fuzz_starts / sizeof fuzz_starts[0])

#endif
