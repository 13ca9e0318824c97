/* SPDX-License-Identifier: MIT */
#include "shellword.h"

#include <string.h>

#include "ascii.h"

void word_sink_put(struct word_sink *s, char c)
{
	if (!s)
		return;
	if (s->basename && c == '/') {
		s->slash = true;
		return;
	}
	if (s->slash) {
		s->slash = false;
		s->len = 0;
	}
	if (s->len < s->cap)
		s->buf[s->len++] = c;
}

/* Characters that, unquoted, make a shell do something other than take
 * them: substitutions and operators. */
static bool is_shell_special(char c)
{
	return c != '\0' && strchr("$`;&|<>()", c) != NULL;
}

enum word_scan word_scan(const char **pp, struct word_sink *out)
{
	const char *p = *pp;
	enum word_scan st = WORD_OK;

	while (st == WORD_OK && *p && !is_blank(*p)) {
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				word_sink_put(out, *p);
			st = *p ? WORD_OK : WORD_SQUOTE;
			p += *p != '\0';
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("$`\"\\", p[1]))
					p++;
				word_sink_put(out, *p);
			}
			st = *p ? WORD_OK : WORD_DQUOTE;
			p += *p != '\0';
		} else if (*p == '\\') {
			st = p[1] ? WORD_OK : WORD_BACKSLASH;
			p += p[1] != '\0';
			word_sink_put(out, *p++);
		} else if (is_shell_special(*p)) {
			st = WORD_OPERATOR;
		} else {
			word_sink_put(out, *p++);
		}
	}
	*pp = p;
	return st;
}

/* Whether P begins with a shell assignment, NAME=... */
static bool is_assignment(const char *p)
{
	if (!is_alpha(*p) && *p != '_')
		return false;
	while (is_alpha(*p) || is_digit(*p) || *p == '_')
		p++;
	return *p == '=';
}

/* Default names */

static size_t finish_name(struct word_sink *s, char *buf, size_t len)
{
	const char *fallback = "job";

	if (len == 0)
		return 0;
	if (s->len == 0) {
		/* Truncated like any name when BUF is short. */
		s->len = strlen(fallback) < len ? strlen(fallback) : len - 1;
		memcpy(buf, fallback, s->len);
	}
	buf[s->len] = '\0';
	return s->len;
}

size_t jobs_default_name(const char *command, char *buf, size_t len)
{
	struct word_sink s = { buf, 0, len ? len - 1 : 0, true, false };
	const char *p = skip_blanks(command);

	/* "FOO=1 cmd" runs cmd: the assignments are not the job. */
	while (is_assignment(p) && word_scan(&p, NULL) == WORD_OK)
		p = skip_blanks(p);
	/* A quote left open or an operator ends the word: a name is still
	 * wanted, the shell reports the rest. */
	word_scan(&p, &s);
	return finish_name(&s, buf, len);
}

size_t jobs_word_name(const char *word, char *buf, size_t len)
{
	struct word_sink s = { buf, 0, len ? len - 1 : 0, true, false };

	while (*word)
		word_sink_put(&s, *word++);
	return finish_name(&s, buf, len);
}

bool shell_command_word(const char *command, char *buf, size_t len)
{
	struct word_sink s = { buf, 0, len ? len - 1 : 0, false, false };
	const char *p = skip_blanks(command), *start;
	enum word_scan st;

	while (is_assignment(p) && word_scan(&p, NULL) == WORD_OK)
		p = skip_blanks(p);
	start = p;
	st = word_scan(&p, &s);
	/* Empty (a redirection or a substitution first), cut short, or with
	 * what the shell would expand (~, a pattern, braces): unknown. */
	if ((st != WORD_OK && st != WORD_OPERATOR) || s.len == 0 || s.len >= s.cap)
		return false;
	for (const char *c = start; c < p; c++)
		if (strchr("~*?[{", *c))
			return false;
	buf[s.len] = '\0';
	return true;
}
