/* jobsfile: tfd's jobs file, parsed line by line into entries.
 *
 * Each line is one of: ignored (blank or a '#' comment), an environment
 * line, a crontab line or a tfd line. The environment lines are kept in a
 * working list as they come; a job line takes a snapshot of the list, and
 * the job lines that follow share it until the next environment line. Every
 * string and array lives in an arena of large blocks freed together. */
#include "jobsfile.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arena blocks hold at least this much; a larger request gets a block of
 * its own. */
#define BLOCK_MIN 65536
/* How much of a bad line an error message shows. */
#define SHOWN_MAX 80

struct jobs_block {
	struct jobs_block *next;
	size_t used, size;
	max_align_t data[];
};

struct parser {
	const char *name;           /* the file, for messages */
	char *err;
	size_t errlen;
	struct jobs_file *f;
	size_t cap;                 /* entries allocated in f->entries */
	unsigned line;              /* the line at hand, from 1 */
	const char *text;           /* that line in the arena, for messages */
	char **env;                 /* the environment so far ("NAME=VALUE") */
	size_t env_n, env_cap;
	char **env_shared;          /* its snapshot, NULL when it changed since */
	const char *shell, *cron_tz;
	bool system;                /* JOBS_SYSTEM: crontab lines name a user */
};

/* Messages */

/* Writes "NAME:LINE: " and the message into the error buffer; returns -1. */
static int fail(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->errlen, "%s:%u: ", ps->name, ps->line);

	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int out_of_memory(struct parser *ps)
{
	snprintf(ps->err, ps->errlen, "out of memory");
	return -1;
}

/* TEXT as a message quotes it: control characters as \xNN (a tab stays a
 * tab) and at most SHOWN_MAX bytes of it, then "...". */
static const char *shown(const char *text, char *buf, size_t len)
{
	size_t o = 0, i;

	for (i = 0; i < SHOWN_MAX && text[i] && o + 5 < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (text[i] && o + 4 <= len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* Storage */

static void *alloc_block(struct parser *ps, size_t size)
{
	struct jobs_alloc *a = &ps->f->alloc;
	struct jobs_block *b;
	size_t bytes;

	if (__builtin_add_overflow(sizeof(*b), size, &bytes))
		return NULL;
	b = a->realloc(a->ctx, NULL, bytes);
	if (!b)
		return NULL;
	b->used = 0;
	b->size = size;
	/* The head block is the one being filled: a large request goes behind
	 * it, so that the head's room is not given up for it. */
	if (ps->f->blocks && size > BLOCK_MIN) {
		b->next = ps->f->blocks->next;
		ps->f->blocks->next = b;
	} else {
		b->next = ps->f->blocks;
		ps->f->blocks = b;
	}
	return b;
}

/* SIZE bytes aligned to ALIGN (a power of two), or NULL. */
static void *arena_alloc(struct parser *ps, size_t size, size_t align)
{
	struct jobs_block *b = ps->f->blocks;
	size_t at = 0;

	if (b)
		at = (b->used + align - 1) & ~(align - 1);
	if (!b || at > b->size || b->size - at < size) {
		b = alloc_block(ps, size > BLOCK_MIN ? size : BLOCK_MIN);
		if (!b)
			return NULL;
		at = 0;
	}
	b->used = at + size;
	return (unsigned char *)b->data + at;
}

static char *arena_strndup(struct parser *ps, const char *s, size_t n)
{
	char *copy = n < SIZE_MAX ? arena_alloc(ps, n + 1, 1) : NULL;

	if (copy) {
		memcpy(copy, s, n);
		copy[n] = '\0';
	}
	return copy;
}

static char **arena_array(struct parser *ps, size_t n)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, sizeof(char *), &bytes))
		return NULL;
	return arena_alloc(ps, bytes, _Alignof(char *));
}

/* Grows the array *PTR of *CAP items of SIZE bytes so that it holds NEED. */
static int grow(struct jobs_alloc *a, void **ptr, size_t *cap, size_t need,
		size_t size)
{
	size_t n = *cap ? *cap : 16, bytes;
	void *p;

	while (n < need)
		if (__builtin_mul_overflow(n, 2, &n))
			return -1;
	if (n == *cap)
		return 0;
	if (__builtin_mul_overflow(n, size, &bytes))
		return -1;
	p = a->realloc(a->ctx, *ptr, bytes);
	if (!p)
		return -1;
	*ptr = p;
	*cap = n;
	return 0;
}

/* Characters */

/* Blanks separate crontab fields and a tfd line's words (cron's
 * Skip_Blanks); spaces are isspace() in the C locale, which is what cronie
 * skips around '=' in an environment line. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

static const char *skip_spaces(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Shell words */

/* Where the characters of a word go: a buffer, or with BASENAME only the
 * part after its last '/' that is followed by more, truncated to fit. A
 * NULL sink takes nothing. */
struct sink {
	char *buf;
	size_t len, cap;
	bool basename, slash;
};

static void sink_put(struct sink *s, char c)
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

enum scan { SCAN_OK, SCAN_SQUOTE, SCAN_DQUOTE, SCAN_BACKSLASH, SCAN_OPERATOR };

/* Characters that, unquoted, make a shell do something other than take
 * them: substitutions and operators. */
static bool is_shell_special(char c)
{
	return c != '\0' && strchr("$`;&|<>()", c) != NULL;
}

/* Reads one shell word at *PP (not at a blank) into OUT with the quoting of
 * a POSIX shell: '...' literal, "..." where a backslash escapes only $ ` "
 * and \, an unquoted backslash escapes any character. Nothing is expanded.
 * Stops at a blank or the end (SCAN_OK), or at what a shell would not
 * take as part of a word: an unterminated quote, a backslash at the end,
 * an unquoted special character (*PP is left at it). */
static enum scan scan_word(const char **pp, struct sink *out)
{
	const char *p = *pp;
	enum scan st = SCAN_OK;

	while (st == SCAN_OK && *p && !is_blank(*p)) {
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				sink_put(out, *p);
			st = *p ? SCAN_OK : SCAN_SQUOTE;
			p += *p != '\0';
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("$`\"\\", p[1]))
					p++;
				sink_put(out, *p);
			}
			st = *p ? SCAN_OK : SCAN_DQUOTE;
			p += *p != '\0';
		} else if (*p == '\\') {
			st = p[1] ? SCAN_OK : SCAN_BACKSLASH;
			p += p[1] != '\0';
			sink_put(out, *p++);
		} else if (is_shell_special(*p)) {
			st = SCAN_OPERATOR;
		} else {
			sink_put(out, *p++);
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

static size_t finish_name(struct sink *s, char *buf, size_t len)
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
	struct sink s = { buf, 0, len ? len - 1 : 0, true, false };
	const char *p = skip_blanks(command);

	/* "FOO=1 cmd" runs cmd: the assignments are not the job. */
	while (is_assignment(p) && scan_word(&p, NULL) == SCAN_OK)
		p = skip_blanks(p);
	/* A quote left open or an operator ends the word: a name is still
	 * wanted, the shell reports the rest. */
	scan_word(&p, &s);
	return finish_name(&s, buf, len);
}

size_t jobs_word_name(const char *word, char *buf, size_t len)
{
	struct sink s = { buf, 0, len ? len - 1 : 0, true, false };

	while (*word)
		sink_put(&s, *word++);
	return finish_name(&s, buf, len);
}

/* Entries */

/* The environment the next entry sees, shared with the entries before it
 * when no environment line came between. */
static char **current_env(struct parser *ps)
{
	if (!ps->env_shared) {
		char **env = arena_array(ps, ps->env_n + 1);

		if (!env)
			return NULL;
		if (ps->env_n)
			memcpy(env, ps->env, ps->env_n * sizeof(*env));
		env[ps->env_n] = NULL;
		ps->env_shared = env;
	}
	return ps->env_shared;
}

/* A new entry of KIND for the line at hand, its other fields NULL; NULL
 * (and the message) when out of memory. */
static struct jobs_entry *add_entry(struct parser *ps, enum jobs_kind kind)
{
	struct jobs_file *f = ps->f;
	struct jobs_entry *e;
	char **env = current_env(ps);

	if (!env || grow(&f->alloc, (void **)&f->entries, &ps->cap, f->n + 1,
			 sizeof(*e))) {
		out_of_memory(ps);
		return NULL;
	}
	e = &f->entries[f->n++];
	*e = (struct jobs_entry){
		.kind = kind, .line = ps->line, .text = ps->text, .env = env,
		.shell = ps->shell, .cron_tz = ps->cron_tz,
	};
	return e;
}

bool jobs_entry_same(const struct jobs_entry *a, const struct jobs_entry *b)
{
	size_t i;

	if (a->kind != b->kind || strcmp(a->text, b->text) != 0)
		return false;
	if (a->env == b->env)
		return true;
	for (i = 0; a->env[i] && b->env[i]; i++)
		if (strcmp(a->env[i], b->env[i]) != 0)
			return false;
	return !a->env[i] && !b->env[i];
}

/* Environment lines */

enum env_kind { ENV_OK, ENV_NOT, ENV_BAD };

struct env_line {
	const char *name, *value;
	size_t name_len, value_len;
	const char *why;            /* with ENV_BAD */
};

/* Reads P as cronie's load_env does: NAME, blanks, '=', blanks, VALUE; the
 * NAME or the VALUE may be in matching single or double quotes, which are
 * removed; an unquoted value loses its trailing blanks, and so an empty one
 * must be quoted. ENV_NOT: P is not an environment line (no '=' after the
 * first word); ENV_BAD: it is one, badly written. */
static enum env_kind read_env(const char *p, struct env_line *e)
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

/* Whether the variable "NAME=VALUE" is named NAME (LEN bytes). */
static bool is_named(const char *var, const char *name, size_t len)
{
	return strncmp(var, name, len) == 0 && var[len] == '=';
}

static bool env_line_sets(const struct env_line *e, const char *name)
{
	return strlen(name) == e->name_len && memcmp(e->name, name, e->name_len) == 0;
}

/* Sets NAME=VALUE for the lines below, in place of an earlier NAME.
 * Returns the stored "NAME=VALUE", or NULL when out of memory. */
static const char *set_env(struct parser *ps, const struct env_line *e)
{
	size_t total, i;
	char *s;

	if (__builtin_add_overflow(e->name_len, e->value_len + 1, &total) ||
	    !(s = arena_strndup(ps, e->name, total)))
		return NULL;
	s[e->name_len] = '=';
	memcpy(s + e->name_len + 1, e->value, e->value_len);
	for (i = 0; i < ps->env_n && !is_named(ps->env[i], e->name, e->name_len); i++)
		;
	if (i == ps->env_n) {
		if (grow(&ps->f->alloc, (void **)&ps->env, &ps->env_cap,
			 ps->env_n + 1, sizeof(*ps->env)))
			return NULL;
		ps->env_n++;
	}
	ps->env[i] = s;
	ps->env_shared = NULL;
	return s;
}

/* An environment line: set, and the variables that tfd itself reads, as
 * cron reads them. */
static int apply_env(struct parser *ps, const struct env_line *e)
{
	char buf[SHOWN_MAX + 8];
	const char *var, *value;

	if (env_line_sets(e, "SHELL") && e->value_len == 0)
		return fail(ps, "bad environment line '%s': SHELL is empty",
			    shown(ps->text, buf, sizeof(buf)));
	var = set_env(ps, e);
	if (!var)
		return out_of_memory(ps);
	value = var + e->name_len + 1;
	if (env_line_sets(e, "SHELL"))
		ps->shell = value;
	else if (env_line_sets(e, "CRON_TZ"))
		ps->cron_tz = value;
	else if (env_line_sets(e, "MAILTO") && !ps->f->mailto_line)
		ps->f->mailto_line = ps->line;
	return 0;
}

/* Crontab lines */

static const struct {
	const char *name;
	enum jobs_kind kind;
} nicknames[] = {
	{ "@yearly", JOBS_CRONTAB }, { "@annually", JOBS_CRONTAB },
	{ "@monthly", JOBS_CRONTAB }, { "@weekly", JOBS_CRONTAB },
	{ "@daily", JOBS_CRONTAB }, { "@midnight", JOBS_CRONTAB },
	{ "@hourly", JOBS_CRONTAB }, { "@reboot", JOBS_REBOOT },
};

#define NFIELDS 5

struct cron_line {
	enum jobs_kind kind;
	const char *field[NFIELDS]; /* the time fields, or the nickname */
	size_t field_len[NFIELDS];
	int nfields;
	const char *user;           /* a system crontab's user field, or NULL */
	size_t user_len;
	const char *command;        /* the rest of the line */
};

static const char *const field_names[] = {
	"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
	"nov", "dec", "sun", "mon", "tue", "wed", "thu", "fri", "sat",
};

static bool is_field_name(const char *word)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(*field_names); i++)
		if ((word[0] | 0x20) == field_names[i][0] &&
		    (word[1] | 0x20) == field_names[i][1] &&
		    (word[2] | 0x20) == field_names[i][2])
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

/* Splits P (at its first non-blank) into the schedule, the user (SYSTEM)
 * and the command, as
 * cronie's load_entry reads them; the schedule's values are not checked.
 * Returns 0, or -1 and why not in WHY. */
static int split_crontab(const char *p, struct cron_line *c, bool system,
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

/* The schedule as one string: the fields joined by one space. */
static char *join_fields(struct parser *ps, const struct cron_line *c)
{
	size_t total = 0;
	char *s, *o;

	for (int i = 0; i < c->nfields; i++)
		total += c->field_len[i] + 1;
	s = o = arena_alloc(ps, total, 1);
	if (!s)
		return NULL;
	for (int i = 0; i < c->nfields; i++) {
		memcpy(o, c->field[i], c->field_len[i]);
		o += c->field_len[i];
		*o++ = ' ';
	}
	o[-1] = '\0';
	return s;
}

/* Copies the command of CMD, up to its first unescaped '%', into OUT
 * (strlen(CMD) + 1 bytes), "\%" as '%' and every other backslash kept, as
 * cronie's do_command cuts it. Returns the '%', or NULL when none. */
static const char *cut_command(const char *cmd, char *out)
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

/* Copies the input after the '%' into OUT (strlen(IN) + 2 bytes) as
 * cronie's do_command writes it to the command's stdin: '%' as a newline,
 * "\%" as '%', any other backslash kept, and a final newline when the last
 * character written (a trailing lone backslash aside) was not one. */
static void copy_input(const char *in, char *out)
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

static int add_crontab_line(struct parser *ps, const char *p)
{
	char why[200], buf[SHOWN_MAX + 8];
	struct cron_line c;
	struct jobs_entry *e;
	char *command, *input = NULL;
	const char *percent;
	size_t len;

	if (split_crontab(p, &c, ps->system, why, sizeof(why)))
		return fail(ps, "bad crontab line '%s': %s",
			    shown(ps->text, buf, sizeof(buf)), why);
	len = strlen(c.command);
	command = arena_alloc(ps, len + 1, 1);
	if (!command)
		return out_of_memory(ps);
	percent = cut_command(c.command, command);
	if (!*command)
		return fail(ps, "bad crontab line '%s': no command before '%%'",
			    shown(ps->text, buf, sizeof(buf)));
	if (percent) {
		input = arena_alloc(ps, strlen(percent + 1) + 2, 1);
		if (!input)
			return out_of_memory(ps);
		copy_input(percent + 1, input);
	}
	e = add_entry(ps, c.kind);
	if (!e)
		return -1;
	if (c.kind == JOBS_CRONTAB && !(e->schedule = join_fields(ps, &c)))
		return out_of_memory(ps);
	if (c.user && !(e->user = arena_strndup(ps, c.user, c.user_len)))
		return out_of_memory(ps);
	e->command = command;
	e->input = input;
	return 0;
}

/* tfd lines */

static int bad_tfd_line(struct parser *ps, enum scan st, char special)
{
	char buf[SHOWN_MAX + 8];
	const char *text = shown(ps->text, buf, sizeof(buf));

	switch (st) {
	case SCAN_SQUOTE:
		return fail(ps, "bad tfd line '%s': unterminated ' quote", text);
	case SCAN_DQUOTE:
		return fail(ps, "bad tfd line '%s': unterminated \" quote", text);
	case SCAN_BACKSLASH:
		return fail(ps, "bad tfd line '%s': backslash at the end of the line",
			    text);
	default:
		return fail(ps, "bad tfd line '%s': unquoted '%c' (the words of a "
			    "tfd line are not run by a shell: quote it, or use "
			    "--exec)", text, special);
	}
}

/* Splits P into words, quoted as a shell would, into the entry's argv. */
static int add_tfd_line(struct parser *ps, const char *p)
{
	size_t len = strlen(p), n = 0;
	char *words = arena_alloc(ps, len + 1, 1), *w;
	struct sink s = { words, 0, len + 1, false, false };
	struct jobs_entry *e;

	if (!words)
		return out_of_memory(ps);
	/* Each word takes at most its own bytes and one blank or the end for
	 * its NUL: the words fit in LEN + 1 bytes. */
	for (p = skip_blanks(p); *p; p = skip_blanks(p), n++) {
		enum scan st = scan_word(&p, &s);

		if (st != SCAN_OK)
			return bad_tfd_line(ps, st, *p);
		sink_put(&s, '\0');
	}
	e = add_entry(ps, JOBS_TFD);
	if (!e)
		return -1;
	e->argv = arena_array(ps, n + 1);
	if (!e->argv)
		return out_of_memory(ps);
	w = words;
	for (size_t i = 0; i < n; i++, w += strlen(w) + 1)
		e->argv[i] = w;
	e->argv[n] = NULL;
	e->argc = (int)n;
	return 0;
}

/* Lines */

/* The first characters of a crontab line: a minute field or '@'. */
static bool starts_crontab(char c)
{
	return is_digit(c) || c == '*' || c == '@';
}

/* A line that is not a comment: which kind it is, tried in cronie's order
 * (an environment line first, then a crontab line), tfd lines first of
 * all since no cron line begins with '-' but cronie's "do not log" mark,
 * '-' before the time fields, which is dropped (tfd logs no runs). */
static int parse_job_or_env(struct parser *ps, const char *p)
{
	char buf[SHOWN_MAX + 8];
	struct env_line e;
	enum env_kind env;

	if (*p == '-' && !starts_crontab(p[1]))
		return add_tfd_line(ps, p);
	p += *p == '-';
	env = read_env(p, &e);
	if (env == ENV_OK)
		return apply_env(ps, &e);
	if (starts_crontab(*p) && env == ENV_NOT)
		return add_crontab_line(ps, p);
	if (env == ENV_BAD)
		return fail(ps, "bad environment line '%s': %s",
			    shown(ps->text, buf, sizeof(buf)), e.why);
	return fail(ps, "bad line '%s': not NAME=VALUE, a crontab line (5 time "
		    "fields or an @nickname, then a command) or a tfd line "
		    "(options, beginning with '-')", shown(ps->text, buf, sizeof(buf)));
}

/* One line, LEN bytes without its '\n'. */
static int parse_line(struct parser *ps, const char *line, size_t len)
{
	const char *nul, *p = line;
	char *text;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	nul = memchr(line, '\0', len);
	if (nul)
		return fail(ps, "NUL byte at column %zu", (size_t)(nul - line) + 1);
	if (len > JOBS_LINE_MAX)
		return fail(ps, "line too long: %zu bytes, at most %d", len,
			    JOBS_LINE_MAX);
	while (p < line + len && is_blank(*p))
		p++;
	if (p == line + len || *p == '#')
		return 0;
	text = arena_strndup(ps, line, len);
	if (!text)
		return out_of_memory(ps);
	ps->text = text;
	return parse_job_or_env(ps, text + (p - line));
}

static void *libc_realloc(void *ctx, void *ptr, size_t size)
{
	(void)ctx;
	return realloc(ptr, size);
}

static void libc_free(void *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}

static int parse_file(const struct jobs_alloc *alloc, unsigned flags, const char *name,
		      const char *text, size_t len, struct jobs_file **out,
		      char *err, size_t errlen);

int jobs_parse(const char *name, const char *text, size_t len,
	       struct jobs_file **out, char *err, size_t errlen)
{
	return jobs_parse_as(name, text, len, 0, out, err, errlen);
}

int jobs_parse_as(const char *name, const char *text, size_t len, unsigned flags,
		  struct jobs_file **out, char *err, size_t errlen)
{
	static const struct jobs_alloc libc = { libc_realloc, libc_free, NULL };

	return parse_file(&libc, flags, name, text, len, out, err, errlen);
}

int jobs_parse_with(const struct jobs_alloc *alloc, const char *name,
		    const char *text, size_t len, struct jobs_file **out,
		    char *err, size_t errlen)
{
	return parse_file(alloc, 0, name, text, len, out, err, errlen);
}

static int parse_file(const struct jobs_alloc *alloc, unsigned flags, const char *name,
		      const char *text, size_t len, struct jobs_file **out,
		      char *err, size_t errlen)
{
	struct jobs_file *f = alloc->realloc(alloc->ctx, NULL, sizeof(*f));
	struct parser ps = { .name = name, .err = err, .errlen = errlen, .f = f,
			     .shell = "/bin/sh", .system = flags & JOBS_SYSTEM };
	size_t at = 0;
	int rc = 0;

	if (!f)
		return out_of_memory(&ps);
	*f = (struct jobs_file){ .alloc = *alloc };
	while (rc == 0 && at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (ps.line == UINT_MAX)
			rc = fail(&ps, "too many lines");
		else {
			ps.line++;
			rc = parse_line(&ps, text + at, end - at);
		}
		at = end + 1;
	}
	if (ps.env)
		alloc->free(alloc->ctx, ps.env);
	if (rc) {
		jobs_free(f);
		return -1;
	}
	*out = f;
	return 0;
}

void jobs_free(struct jobs_file *f)
{
	struct jobs_block *b, *next;

	if (!f)
		return;
	for (b = f->blocks; b; b = next) {
		next = b->next;
		f->alloc.free(f->alloc.ctx, b);
	}
	if (f->entries)
		f->alloc.free(f->alloc.ctx, f->entries);
	f->alloc.free(f->alloc.ctx, f);
}
