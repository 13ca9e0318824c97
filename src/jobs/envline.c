/* SPDX-License-Identifier: MIT */
#include "envline.h"

#include <string.h>

#include "ascii.h"

enum env_kind env_line_read(const char *p, struct env_line *e)
{
	char q = 0;

	if (*p == '\'' || *p == '"')
		q = *p++;
	e->name = p;
	if (q) {
		p += strcspn(p, q == '"' ? "\"=" : "'=");
		if (*p != q) {
			e->why = *p == '=' ? "'=' in the quoted name"
					   : "unterminated quote in the name";
			return ENV_BAD;
		}
		e->name_len = (size_t)(p++ - e->name);
	} else {
		while (*p && !is_space(*p) && *p != '=')
			p++;
		e->name_len = (size_t)(p - e->name);
	}
	/* Spaces are isspace() in the C locale: what cronie skips around '='. */
	p = skip_spaces(p);
	e->why = "text after the quoted name";
	if (*p != '=')
		return q ? ENV_BAD : ENV_NOT;
	e->why = "empty variable name";
	if (e->name_len == 0)
		return ENV_BAD;
	p = skip_spaces(p + 1);
	e->why = "no value (an empty one is written NAME=\"\")";
	if (!*p)
		return ENV_BAD;
	q = (*p == '\'' || *p == '"') ? *p++ : 0;
	e->value = p;
	if (!q) {
		e->value_len = strlen(p);
		while (is_space(p[e->value_len - 1]))
			e->value_len--;
		return ENV_OK;
	}
	p = strchr(p, q);
	e->why = q == '"' ? "unterminated \" quote" : "unterminated ' quote";
	if (!p)
		return ENV_BAD;
	e->value_len = (size_t)(p - e->value);
	e->why = "text after the closing quote";
	return *skip_spaces(p + 1) ? ENV_BAD : ENV_OK;
}
