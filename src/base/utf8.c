/* SPDX-License-Identifier: MIT */
#include "utf8.h"

#include <string.h>

long utf8_sequence(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 1;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 2;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 3;
	else
		return -1;
	/* The second byte's range rules out overlong forms, surrogates and
	 * code points past U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	for (size_t i = 1; i <= need; i++) {
		if (i >= n || p[i] < lo || p[i] > hi)
			return -(long)i;
		lo = 0x80;
		hi = 0xbf;
	}
	return (long)need + 1;
}

bool utf8_shown_as(const char *name, size_t n, const char *shown, size_t m)
{
	const unsigned char *p = (const unsigned char *)name;
	static const size_t rlen = sizeof UTF8_REPLACEMENT - 1;
	size_t j = 0;

	for (size_t i = 0; i < n;) {
		long k = utf8_sequence(p + i, n - i);
		const char *as = k > 0 ? name + i : UTF8_REPLACEMENT;
		size_t len = k > 0 ? (size_t)k : rlen;

		if (m - j < len || memcmp(shown + j, as, len) != 0)
			return false;
		j += len;
		i += (size_t)(k < 0 ? -k : k);
	}
	return j == m;
}
