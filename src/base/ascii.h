/* SPDX-License-Identifier: MIT */
/* ascii: character classes in the C locale, for parsers that must not
 * depend on the user's locale (ctype(3) does). */
#ifndef TFD_ASCII_H
#define TFD_ASCII_H

#include <stdbool.h>
#include <stddef.h>

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* isblank(3): what separates a crontab line's fields. */
static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* isspace(3), which strtoll(3) and strptime(3) skip. */
static inline bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* P past its blanks (is_blank). */
static inline const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* P past its spaces (is_space). */
static inline const char *skip_spaces(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

static inline char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The N bytes at A and at B are the same but for the case of letters. */
static inline bool same_nocase(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ascii_lower(a[i]) != ascii_lower(b[i]))
			return false;
	}
	return true;
}

#endif
