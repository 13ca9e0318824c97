/* SPDX-License-Identifier: MIT */
/* jsonesc: how text is written inside a JSON string, the one rule for
 * every JSON tfd writes (report.c's events, jsonw.c's control answers):
 * valid UTF-8 as it is, a byte that must be escaped escaped, and U+FFFD
 * for what is not UTF-8, so that the JSON is valid whatever a name or a
 * line holds. */
#ifndef TFD_JSONESC_H
#define TFD_JSONESC_H

#include <stddef.h>

#include "utf8.h"

/* Writes byte C as it stands in a JSON string into OUT (at most 6 bytes):
 * itself, a two-character escape, or \u00XX for another control byte and
 * DEL. Returns the length written. A byte of a multibyte UTF-8 sequence is
 * not given here: the callers copy a valid sequence whole. */
static inline size_t json_escape_byte(unsigned char c, char out[6])
{
	static const char hex[] = "0123456789abcdef";
	const char *two = NULL;

	switch (c) {
	/* clang-format off */
	case '"': two = "\\\""; break;
	case '\\': two = "\\\\"; break;
	case '\b': two = "\\b"; break;
	case '\f': two = "\\f"; break;
	case '\n': two = "\\n"; break;
	case '\r': two = "\\r"; break;
	case '\t': two = "\\t"; break;
	/* clang-format on */
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

/* The next piece of a JSON string's text at P (N > 0 bytes left): what
 * stands for it in the string, *PIECE (ESC, P itself or U+FFFD) of *LEN
 * bytes, and the return, how many bytes of P it stands for: one byte
 * escaped or not (ESC), a valid multibyte sequence whole, or one U+FFFD
 * for an invalid sequence's maximal subpart. */
static inline size_t json_text_piece(const char *p, size_t n, char esc[6], const char **piece,
				     size_t *len)
{
	long k = utf8_sequence((const unsigned char *)p, n);

	if (k == 1) {
		*len = json_escape_byte((unsigned char)*p, esc);
		*piece = esc;
	} else if (k > 1) {
		*len = (size_t)k;
		*piece = p;
	} else {
		*len = sizeof UTF8_REPLACEMENT - 1;
		*piece = UTF8_REPLACEMENT;
	}
	return (size_t)(k < 0 ? -k : k);
}

#endif
