/* SPDX-License-Identifier: MIT */
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

#include "ascii.h"
#include "cronline.h"
#include "envline.h"
#include "shellword.h"

/* Arena blocks hold at least this much; a larger request gets a block of
 * its own. A small file's blocks are smaller: a host's cron parses ten
 * thousand one-line cron.d files at each reload, and a 64 KiB block each,
 * mostly untouched, leaves the heap's free pages scattered, to be touched
 * anew by the next reload's blocks (RSS 100 MB to 650 MB over 20 reloads). */
#define BLOCK_MIN 65536
#define BLOCK_PER_BYTE 4
#define BLOCK_SMALL 256
/* How much of a bad line an error message shows. */
#define SHOWN_MAX 80

struct jobs_block {
	struct jobs_block *next;
	size_t used, size;
	max_align_t data[];
};

struct parser {
	const char *name; /* the file, for messages */
	char *err;
	size_t errlen;
	struct jobs_file *f;
	size_t cap;       /* entries allocated in f->entries */
	size_t block;     /* an arena block's size, by the file's */
	unsigned line;    /* the line at hand, from 1 */
	const char *text; /* that line in the arena, for messages */
	char **env;       /* the environment so far ("NAME=VALUE") */
	size_t env_n, env_cap;
	char **env_shared; /* its snapshot, NULL when it changed since */
	const char *shell, *cron_tz;
	bool system;    /* JOBS_SYSTEM: crontab lines name a user */
	bool user;      /* JOBS_USER: a user's crontab, no tfd lines */
	bool lenient;   /* JOBS_LENIENT: a bad line is passed over */
	bool oom;       /* memory ran out: the parse fails */
	size_t bad_cap; /* entries allocated in f->bad */
};

/* Messages */

/* Writes "NAME:LINE: " and the message into the error buffer; returns -1. */
static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
	ps->oom = true;
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
	if (ps->f->blocks && size > ps->block) {
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
		b = alloc_block(ps, size > ps->block ? size : ps->block);
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

/* Grows the array *PTR of *CAP items of SIZE bytes so that it holds NEED.
 * Not buf.h's array_reserve: the parser takes every byte from ALLOC, which
 * the tests make fail at each call in turn, and buf.h grows with libc's. */
static int grow(struct jobs_alloc *a, void **ptr, size_t *cap, size_t need, size_t size)
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

/* Entries */

/* The line at hand was bad, its message in the error buffer: under
 * JOBS_LENIENT it is listed and the parse goes on. */
static int pass_over(struct parser *ps)
{
	struct jobs_file *f = ps->f;
	char *why;

	if (!ps->lenient || ps->oom)
		return -1;
	if (grow(&f->alloc, (void **)&f->bad, &ps->bad_cap, f->nbad + 1, sizeof *f->bad) ||
	    !(why = arena_strndup(ps, ps->err, strlen(ps->err))))
		return out_of_memory(ps);
	f->bad[f->nbad++] = (struct jobs_bad){ ps->line, why };
	return 0;
}

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

	if (!env || grow(&f->alloc, (void **)&f->entries, &ps->cap, f->n + 1, sizeof(*e))) {
		out_of_memory(ps);
		return NULL;
	}
	e = &f->entries[f->n++];
	*e = (struct jobs_entry){
		.kind = kind,
		.line = ps->line,
		.text = ps->text,
		.env = env,
		.shell = ps->shell,
		.cron_tz = ps->cron_tz,
	};
	return e;
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
		if (grow(&ps->f->alloc, (void **)&ps->env, &ps->env_cap, ps->env_n + 1,
			 sizeof(*ps->env)))
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
	return 0;
}

/* Crontab lines */

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

static int add_crontab_line(struct parser *ps, const char *p)
{
	char why[200], buf[SHOWN_MAX + 8];
	struct cron_line c;
	struct jobs_entry *e;
	char *command, *input = NULL;
	const char *percent;
	size_t len;

	if (cron_line_split(p, &c, ps->system, why, sizeof(why)))
		return fail(ps, "bad crontab line '%s': %s", shown(ps->text, buf, sizeof(buf)),
			    why);
	len = strlen(c.command);
	command = arena_alloc(ps, len + 1, 1);
	if (!command)
		return out_of_memory(ps);
	percent = cron_command_cut(c.command, command);
	if (!*command)
		return fail(ps, "bad crontab line '%s': no command before '%%'",
			    shown(ps->text, buf, sizeof(buf)));
	if (percent) {
		input = arena_alloc(ps, strlen(percent + 1) + 2, 1);
		if (!input)
			return out_of_memory(ps);
		cron_input_copy(percent + 1, input);
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

static int bad_tfd_line(struct parser *ps, enum word_scan st, char special)
{
	char buf[SHOWN_MAX + 8];
	const char *text = shown(ps->text, buf, sizeof(buf));

	switch (st) {
	case WORD_SQUOTE:
		return fail(ps, "bad tfd line '%s': unterminated ' quote", text);
	case WORD_DQUOTE:
		return fail(ps, "bad tfd line '%s': unterminated \" quote", text);
	case WORD_BACKSLASH:
		return fail(ps, "bad tfd line '%s': backslash at the end of the line", text);
	default:
		return fail(ps,
			    "bad tfd line '%s': unquoted '%c' (the words of a "
			    "tfd line are not run by a shell: quote it, or use "
			    "--exec)",
			    text, special);
	}
}

/* Splits P into words, quoted as a shell would, into the entry's argv. */
static int add_tfd_line(struct parser *ps, const char *p)
{
	size_t len = strlen(p), n = 0;
	char *words = arena_alloc(ps, len + 1, 1), *w;
	struct word_sink s = { words, 0, len + 1, false, false };
	struct jobs_entry *e;

	if (!words)
		return out_of_memory(ps);
	/* Each word takes at most its own bytes and one blank or the end for
	 * its NUL: the words fit in LEN + 1 bytes. */
	for (p = skip_blanks(p); *p; p = skip_blanks(p), n++) {
		enum word_scan st = word_scan(&p, &s);

		if (st != WORD_OK)
			return bad_tfd_line(ps, st, *p);
		word_sink_put(&s, '\0');
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

	if (*p == '-' && !starts_crontab(p[1]) && ps->user && env_line_read(p, &e) == ENV_OK)
		return fail(ps,
			    "bad environment line '%s': a variable's name may not begin "
			    "with '-' (tfd reads such a line as a tfd line, which a user's "
			    "crontab cannot hold)",
			    shown(ps->text, buf, sizeof(buf)));
	if (*p == '-' && !starts_crontab(p[1]) && ps->user)
		return fail(ps,
			    "bad line '%s': a user's crontab takes crontab lines only, "
			    "not tfd lines (their options, such as --user or --persist, "
			    "are the host's to give)",
			    shown(ps->text, buf, sizeof(buf)));
	if (*p == '-' && !starts_crontab(p[1]))
		return add_tfd_line(ps, p);
	p += *p == '-';
	env = env_line_read(p, &e);
	if (env == ENV_OK)
		return apply_env(ps, &e);
	if (starts_crontab(*p) && env == ENV_NOT)
		return add_crontab_line(ps, p);
	if (env == ENV_BAD)
		return fail(ps, "bad environment line '%s': %s", shown(ps->text, buf, sizeof(buf)),
			    e.why);
	return fail(ps,
		    "bad line '%s': not NAME=VALUE, a crontab line (5 time "
		    "fields or an @nickname, then a command) or a tfd line "
		    "(options, beginning with '-')",
		    shown(ps->text, buf, sizeof(buf)));
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
		return fail(ps, "line too long: %zu bytes, at most %d", len, JOBS_LINE_MAX);
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
		      const char *text, size_t len, struct jobs_file **out, char *err,
		      size_t errlen);

int jobs_parse(const char *name, const char *text, size_t len, struct jobs_file **out, char *err,
	       size_t errlen)
{
	return jobs_parse_as(name, text, len, 0, out, err, errlen);
}

int jobs_parse_as(const char *name, const char *text, size_t len, unsigned flags,
		  struct jobs_file **out, char *err, size_t errlen)
{
	static const struct jobs_alloc libc = { libc_realloc, libc_free, NULL };

	return parse_file(&libc, flags, name, text, len, out, err, errlen);
}

int jobs_parse_with(const struct jobs_alloc *alloc, unsigned flags, const char *name,
		    const char *text, size_t len, struct jobs_file **out, char *err, size_t errlen)
{
	return parse_file(alloc, flags, name, text, len, out, err, errlen);
}

static int parse_file(const struct jobs_alloc *alloc, unsigned flags, const char *name,
		      const char *text, size_t len, struct jobs_file **out, char *err,
		      size_t errlen)
{
	struct jobs_file *f = alloc->realloc(alloc->ctx, NULL, sizeof(*f));
	struct parser ps = { .name = name,
			     .err = err,
			     .errlen = errlen,
			     .f = f,
			     .shell = "/bin/sh",
			     .system = flags & JOBS_SYSTEM,
			     .user = flags & JOBS_USER,
			     .lenient = flags & JOBS_LENIENT };
	size_t at = 0;
	int rc = 0;

	if (!f)
		return out_of_memory(&ps);
	*f = (struct jobs_file){ .alloc = *alloc };
	/* What the lines' strings take is a few times their text. */
	ps.block = len < (BLOCK_MIN - BLOCK_SMALL) / BLOCK_PER_BYTE
			   ? len * BLOCK_PER_BYTE + BLOCK_SMALL
			   : BLOCK_MIN;
	while (rc == 0 && at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (ps.line == UINT_MAX)
			rc = fail(&ps, "too many lines");
		else {
			ps.line++;
			if (parse_line(&ps, text + at, end - at) != 0)
				rc = pass_over(&ps);
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
	if (f->bad)
		f->alloc.free(f->alloc.ctx, f->bad);
	f->alloc.free(f->alloc.ctx, f);
}
