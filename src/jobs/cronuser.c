/* SPDX-License-Identifier: MIT */
#include "cronuser.h"

#include <stdio.h>
#include <string.h>

#include "ascii.h"

/* The longest user name tried: useradd's limit is 32. */
#define USER_NAME_MAX 32

/* A user name as useradd(8) takes one by default: a lower-case letter or
 * '_', then letters, digits, '_', '-' or '.' (a trailing '$' for Samba's
 * machine accounts). */
static bool user_name_like(const char *s, size_t n)
{
	if (n == 0 || n > USER_NAME_MAX || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(is_alpha(s[i]) || is_digit(s[i]) || strchr("_-.", s[i]) ||
		      (s[i] == '$' && i == n - 1)))
			return false;
	return true;
}

long cronuser_first_line(const struct jobs_file *f, cronuser_known_fn known, void *arg, char *word,
			 size_t len)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct jobs_entry *e = &f->entries[i];
		const char *p, *rest;
		size_t n;

		if (e->kind == JOBS_TFD || !e->command)
			continue;
		p = skip_blanks(e->command);
		n = strcspn(p, " \t");
		rest = skip_blanks(p + n);
		if (!*rest || !user_name_like(p, n) || len == 0)
			continue;
		snprintf(word, len, "%.*s", (int)n, p);
		if (known(arg, word))
			return (long)i;
	}
	return -1;
}
