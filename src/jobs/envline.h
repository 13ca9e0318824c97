/* SPDX-License-Identifier: MIT */
/* envline: a jobs file's environment line as cronie's load_env reads it
 * (NAME=VALUE, quoted or not). Pure. */
#ifndef TFD_ENVLINE_H
#define TFD_ENVLINE_H

#include <stddef.h>

enum env_kind { ENV_OK, ENV_NOT, ENV_BAD };

struct env_line {
	const char *name, *value; /* in the line, not NUL-terminated */
	size_t name_len, value_len;
	const char *why; /* with ENV_BAD */
};

/* Reads P as cronie's load_env does: NAME, blanks, '=', blanks, VALUE; the
 * NAME or the VALUE may be in matching single or double quotes, which are
 * removed; an unquoted value loses its trailing blanks, and so an empty one
 * must be quoted. ENV_NOT: P is not an environment line (no '=' after the
 * first word); ENV_BAD: it is one, badly written. */
enum env_kind env_line_read(const char *p, struct env_line *e);

#endif
