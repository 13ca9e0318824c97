/* SPDX-License-Identifier: MIT */
/* utf8: the one UTF-8 validator (RFC 3629: shortest forms only, no
 * surrogates, nothing past U+10FFFF), for the writers whose formats must
 * be valid UTF-8: the JSON events (report.c) and the metrics file's label
 * values (metrics.c). Pure. */
#ifndef TFD_UTF8_H
#define TFD_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* At P, with N > 0 bytes left: the length (1..4) of the valid sequence
 * that starts there; or, when none does, minus the length of its maximal
 * invalid prefix (Unicode's "maximal subpart", at least 1 byte), which a
 * writer replaces by one U+FFFD or skips byte by byte. */
long utf8_sequence(const unsigned char *p, size_t n);

/* U+FFFD REPLACEMENT CHARACTER, in UTF-8 (3 bytes). */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/* Whether NAME (N bytes), each invalid sequence's maximal part shown as
 * one U+FFFD as the JSON writers show it, is SHOWN (M bytes): a JSON
 * request can carry a name that is not UTF-8 only as it was shown. */
bool utf8_shown_as(const char *name, size_t n, const char *shown, size_t m);

#endif
