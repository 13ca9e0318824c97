/* ascii: character classes in the C locale, for parsers that must not
 * depend on the user's locale (ctype(3) does). */
#ifndef TFD_ASCII_H
#define TFD_ASCII_H

#include <stdbool.h>

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

#endif
