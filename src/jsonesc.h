/* SPDX-License-Identifier: MIT */
/* jsonesc: how one byte is written inside a JSON string, the one rule for
 * every JSON tfd writes (report.c's events, jsonw.c's control answers). */
#ifndef TFD_JSONESC_H
#define TFD_JSONESC_H

#include <stddef.h>

/* Writes byte C as it stands in a JSON string into OUT (at most 6 bytes):
 * itself, a two-character escape, or \u00XX for another control byte and
 * DEL. Returns the length written. A byte of a multibyte UTF-8 sequence is
 * not given here: the callers copy a valid sequence whole. */
static inline size_t json_escape_byte(unsigned char c, char out[6])
{
	static const char hex[] = "0123456789abcdef";
	const char *two = NULL;

	switch (c) {
	case '"': two = "\\\""; break;
	case '\\': two = "\\\\"; break;
	case '\b': two = "\\b"; break;
	case '\f': two = "\\f"; break;
	case '\n': two = "\\n"; break;
	case '\r': two = "\\r"; break;
	case '\t': two = "\\t"; break;
	default:
		if (c >= 0x20 && c != 0x7f) {
			out[0] = (char)c;
			return 1;
		}
		out[0] = '\\', out[1] = 'u', out[2] = '0', out[3] = '0';
		out[4] = hex[c >> 4], out[5] = hex[c & 15];
		return 6;
	}
	out[0] = two[0], out[1] = two[1];
	return 2;
}

#endif
