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
	{ "@yearly", JOBS_CRONTAB }, { "@annually", JOBS_CRONTAB },
	{ "@monthly", JOBS_CRONTAB }, { "@weekly", JOBS_CRONTAB },
	{ "@daily", JOBS_CRONTAB }, { "@midnight", JOBS_CRONTAB },
	{ "@hourly", JOBS_CRONTAB }, { "@reboot", JOBS_REBOOT },
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

/* Why a line of N fields and nothing after is not a crontab line: as far as
 * they look like time fields, the command came too early. */
static void explain_missing_command(const struct cron_line *c, int n,
				    char *why, size_t len)
{
	int fields = 0;

	while (fields < n && looks_like_field(c->field[fields], c->field_len[fields]))
		fields++;
	if (fields < n)
		snprintf(why, len, "%d time field%s before the command, expected 5 "
			 "or an @nickname", fields, fields == 1 ? "" : "s");
	else if (n == NFIELDS)
		snprintf(why, len, "no command after the 5 time fields");
	else
		snprintf(why, len, "%d time field%s and no command, expected 5 or "
			 "an @nickname, then a command", n, n == 1 ? "" : "s");
}

/* A system crontab's line: the first word after the schedule is the user
 * who runs the command (cronie's load_entry with a NULL pw), and the
 * command follows it. */
static int split_user(struct cron_line *c, char *why, size_t len)
{
	const char *p = c->command;

	c->user = p;
	c->user_len = strcspn(p, " \t");
	p = skip_blanks(p + c->user_len);
	if (!*p) {
		snprintf(why, len, "no command after the user '%.*s' (a system "
			 "crontab's line is the time fields, a user, then a command)",
			 (int)(c->user_len < 40 ? c->user_len : 40), c->user);
		return -1;
	}
	c->command = p;
	return 0;
}

int cron_line_split(const char *p, struct cron_line *c, bool system,
			 char *why, size_t len)
{
	c->kind = JOBS_CRONTAB;
	c->nfields = 0;
	c->user = NULL;
	c->user_len = 0;
	if (*p == '@') {
		size_t n = strcspn(p, " \t"), i;

		for (i = 0; i < sizeof(nicknames) / sizeof(*nicknames); i++)
			if (strlen(nicknames[i].name) == n &&
			    strncmp(p, nicknames[i].name, n) == 0)
				break;
		if (i == sizeof(nicknames) / sizeof(*nicknames)) {
			snprintf(why, len, "unknown nickname '%.*s', expected @yearly, "
				 "@annually, @monthly, @weekly, @daily, @midnight, "
				 "@hourly or @reboot", (int)(n < 40 ? n : 40), p);
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
