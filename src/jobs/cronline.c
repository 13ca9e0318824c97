/* SPDX-License-Identifier: MIT */
#include "cronline.h"

#include <stdio.h>
#include <string.h>

#include "ascii.h"
#include "civil.h"

static const struct {
	const char *name;
	enum jobs_kind kind;
} nicknames[] = {
	/* clang-format off */
	{ "@yearly", JOBS_CRONTAB }, { "@annually", JOBS_CRONTAB },
	{ "@monthly", JOBS_CRONTAB }, { "@weekly", JOBS_CRONTAB },
	{ "@daily", JOBS_CRONTAB }, { "@midnight", JOBS_CRONTAB },
	{ "@hourly", JOBS_CRONTAB }, { "@reboot", JOBS_REBOOT },
	/* clang-format on */
};

#define NFIELDS CRON_LINE_FIELDS

/* Whether the 3 letters at WORD are a month's or a weekday's (any case). */
static bool is_field_name(const char *word)
{
	for (size_t i = 0; i < 12; i++)
		if (same_nocase(word, civil_month_names[i], 3))
			return true;
	for (size_t i = 0; i < 7; i++)
		if (same_nocase(word, civil_day_names[i], 3))
			return true;
	return false;
}

/* Whether WORD (LEN bytes) could be a time field: digits, * , - / and the
 * 3-letter month and weekday names. Only to explain a missing command. */
static bool looks_like_field(const char *word, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t run = 0;

		while (i + run < len && is_alpha(word[i + run]))
			run++;
		if (run == 0 && !is_digit(word[i]) && !strchr("*,-/", word[i]))
			return false;
		if (run > 0 && (run != 3 || !is_field_name(word + i)))
			return false;
		i += run ? run : 1;
	}
	return true;
}

/* How many of the first N fields look like time fields, from the first. */
static int time_fields(const struct cron_line *c, int n)
{
	int fields = 0;

	while (fields < n && looks_like_field(c->field[fields], c->field_len[fields]))
		fields++;
	return fields;
}

/* Whether WORD (LEN bytes) is a command's, not a time field, even a
 * mistyped one: it holds a character no field has, a run of more than 3
 * letters, a '/' not followed by a step's digit ("echo", "backup.sh",
 * "/usr/bin/x"), or letters alone that name no month or weekday ("php").
 * A word that could be a field ("99", "x-y", "1/0") is left to cron.c to
 * name. */
static bool command_like(const char *word, size_t len)
{
	size_t run = 0, letters = 0;

	while (letters < len && is_alpha(word[letters]))
		letters++;
	if (letters == len && (len != 3 || !is_field_name(word)))
		return true;
	for (size_t i = 0; i < len; i++) {
		run = is_alpha(word[i]) ? run + 1 : 0;
		if (run > 3 ||
		    (!is_alpha(word[i]) && !is_digit(word[i]) && !strchr("*,-/", word[i])))
			return true;
		if (word[i] == '/' && (i + 1 == len || !is_digit(word[i + 1])))
			return true;
	}
	return false;
}

/* The first of the 5 fields that is a command's word: the command came
 * early (a field left out); NFIELDS when none is. */
static int early_command(const struct cron_line *c)
{
	int k = 0;

	while (k < NFIELDS && !command_like(c->field[k], c->field_len[k]))
		k++;
	return k;
}

/* A line whose field K is a word no time field is made of (a command
 * that came too early, a field left out): says so, naming the word. */
static void explain_early_word(const struct cron_line *c, int k, char *why, size_t len)
{
	size_t shown = c->field_len[k] < 40 ? c->field_len[k] : 40;

	snprintf(why, len, "%d time field%s before '%.*s%s', expected 5 or an @nickname", k,
		 k == 1 ? "" : "s", (int)shown, c->field[k], shown < c->field_len[k] ? "..." : "");
}

/* Why a line of N fields and nothing after is not a crontab line: as far as
 * they look like time fields, the command came too early. */
static void explain_missing_command(const struct cron_line *c, int n, char *why, size_t len)
{
	int fields = time_fields(c, n);

	if (fields < n)
		explain_early_word(c, fields, why, len);
	else if (n == NFIELDS)
		snprintf(why, len, "no command after the 5 time fields");
	else
		snprintf(why, len,
			 "%d time field%s and no command, expected 5 or "
			 "an @nickname, then a command",
			 n, n == 1 ? "" : "s");
}

/* A system crontab's line: the first word after the schedule is the user
 * who runs the command (cronie's load_entry with a NULL pw), and the
 * command follows it. */
static int split_user(struct cron_line *c, char *why, size_t len)
{
	const char *p = c->command;

	int shown;

	c->user = p;
	c->user_len = strcspn(p, " \t");
	shown = (int)(c->user_len < 40 ? c->user_len : 40);
	p = skip_blanks(p + c->user_len);
	if (!*p) {
		snprintf(why, len,
			 "no command after the user '%.*s' (a system "
			 "crontab's line is the time fields, a user, then a command)",
			 shown, c->user);
		return -1;
	}
	/* cron looks the field up with getpwnam(3) alone: a group or a uid
	 * there finds no user, and cron never runs the line. */
	if (memchr(c->user, ':', c->user_len)) {
		snprintf(why, len,
			 "the user field '%.*s' holds a ':' (a system crontab's "
			 "user field is a user's name alone, no group; cron runs no such line)",
			 shown, c->user);
		return -1;
	}
	if (strspn(c->user, "0123456789") == c->user_len) {
		snprintf(why, len,
			 "the user field '%.*s' is a number (a system crontab's "
			 "user field is a user's name, not a uid; cron runs no such line)",
			 shown, c->user);
		return -1;
	}
	c->command = p;
	return 0;
}

int cron_line_split(const char *p, struct cron_line *c, bool system, char *why, size_t len)
{
	c->kind = JOBS_CRONTAB;
	c->nfields = 0;
	c->user = NULL;
	c->user_len = 0;
	if (*p == '@') {
		size_t n = strcspn(p, " \t"), i;

		for (i = 0; i < sizeof(nicknames) / sizeof(*nicknames); i++)
			if (strlen(nicknames[i].name) == n && strncmp(p, nicknames[i].name, n) == 0)
				break;
		if (i == sizeof(nicknames) / sizeof(*nicknames)) {
			snprintf(why, len,
				 "unknown nickname '%.*s', expected @yearly, "
				 "@annually, @monthly, @weekly, @daily, @midnight, "
				 "@hourly or @reboot",
				 (int)(n < 40 ? n : 40), p);
			return -1;
		}
		c->kind = nicknames[i].kind;
		c->field[0] = p;
		c->field_len[0] = n;
		c->nfields = 1;
		p = skip_blanks(p + n);
		if (!*p) {
			snprintf(why, len, "no command after %s", nicknames[i].name);
			return -1;
		}
	} else {
		for (; c->nfields < NFIELDS && *p; c->nfields++) {
			c->field[c->nfields] = p;
			c->field_len[c->nfields] = strcspn(p, " \t");
			p = skip_blanks(p + c->field_len[c->nfields]);
		}
		if (!*p) {
			explain_missing_command(c, c->nfields, why, len);
			return -1;
		}
		if (early_command(c) < NFIELDS) {
			explain_early_word(c, early_command(c), why, len);
			return -1;
		}
	}
	/* cronie refuses this too: it is nearly always one field too many. */
	if (*p == '*') {
		snprintf(why, len, "the %s begins with '*' (6 time fields?)",
			 system ? "user field" : "command");
		return -1;
	}
	c->command = p;
	return system ? split_user(c, why, len) : 0;
}

const char *cron_command_cut(const char *cmd, char *out)
{
	bool escaped = false;

	for (; *cmd; cmd++) {
		if (escaped && *cmd == '%') {
			out[-1] = '%';
		} else if (!escaped && *cmd == '%') {
			break;
		} else {
			*out++ = *cmd;
		}
		/* A backslash escapes the next character, a backslash too. */
		escaped = !escaped && *cmd == '\\';
	}
	*out = '\0';
	return *cmd ? cmd : NULL;
}

void cron_input_copy(const char *in, char *out)
{
	bool pending = false, newline = false;

	for (; *in; in++) {
		char c = *in;

		if (pending && c != '%')
			*out++ = '\\';
		else if (!pending && c == '%')
			c = '\n';
		/* Unlike in the command, a backslash after a backslash escapes
		 * what follows it: "\\%" is "\%". */
		pending = c == '\\';
		if (!pending) {
			*out++ = c;
			newline = c != '\n';
		}
	}
	if (pending)
		*out++ = '\\';
	if (newline)
		*out++ = '\n';
	*out = '\0';
}
