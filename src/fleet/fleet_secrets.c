/* SPDX-License-Identifier: MIT */
#include "fleet_secrets.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"

/* Decisions:
 * - Refusing what libpq would misread beats guessing afterwards: libpq
 *   takes the URI's user and password up to the first '@' before the
 *   first '/', so a second '@' puts the password's tail in the host name,
 *   and a '/' in the password its head in the port. Both are usage errors
 *   whose message shows nothing of the URI.
 * - Scrubbing is by fragments, not by the whole password: libpq quotes a
 *   piece of its input ("ab" of "ab/S3cret"), not the password as such.
 *   A quoted part is libpq's echo of its input, so it goes as a whole when
 *   two characters in a row of it are a password's; elsewhere only runs of
 *   four or more (or a whole short password), so that libpq's own words
 *   stay readable: what it echoes of its input it quotes, but for ports,
 *   which are checked to be numbers.
 * - The candidates are more than libpq's parsed password: the URI's text
 *   as typed (a mis-encoded one included), PGPASSWORD and every line of
 *   the passfile. Scrubbing too much costs a word of a message; too little
 *   a secret. */

#define PASSFILE_MAX (64 * 1024)
#define SECRETS_MAX 256

static const char *uri_rest(const char *conninfo)
{
	static const char *const schemes[] = { "postgresql://", "postgres://" };

	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
		if (strncmp(conninfo, schemes[i], strlen(schemes[i])) == 0)
			return conninfo + strlen(schemes[i]);
	return NULL;
}

int fleet_uri_check(const char *conninfo, char *err, size_t errlen)
{
	const char *rest = uri_rest(conninfo);
	size_t auth, path, ats = 0;

	if (!rest)
		return 0;
	auth = strcspn(rest, "/");
	for (size_t i = 0; i < auth; i++)
		ats += rest[i] == '@';
	if (ats > 1) {
		snprintf(err, errlen,
			 "--fleet: the URI has more than one '@' before its host: "
			 "write an '@' of the user name or password as %%40");
		return 2;
	}
	path = rest[auth] ? strcspn(rest + auth, "?") : 0;
	if (memchr(rest + auth, '@', path)) {
		/* clang-format off */
		snprintf(err, errlen, "--fleet: the URI has an '@' after the first '/': write a '/' "
			 "of the user name or password as %%2F (and an '@' of the database name as %%40)");
		/* clang-format on */
		return 2;
	}
	return 0;
}

int fleet_secrets_add(struct fleet_secrets *s, const char *secret)
{
	char *copy;

	if (!secret || !secret[0] || s->n >= SECRETS_MAX)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], secret) == 0)
			return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->v, cap * sizeof *v);

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	if (!(copy = strdup(secret)))
		return -1;
	s->v[s->n++] = copy;
	return 0;
}

void fleet_secrets_free(struct fleet_secrets *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct fleet_secrets){ 0 };
}

static int hex_value(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* TEXT (LEN bytes) percent-decoded into OUT (LEN + 1 bytes); a '%' not
 * followed by two hex digits stays as it is. */
static void percent_decode(const char *text, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		int hi = text[i] == '%' && i + 2 < len ? hex_value(text[i + 1]) : -1;
		int lo = hi >= 0 ? hex_value(text[i + 2]) : -1;

		if (hi >= 0 && lo >= 0) {
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[o++] = text[i];
		}
	}
	out[o] = '\0';
}

/* The URI's password as typed: what follows the first ':' of the user
 * part, which ends at the last '@' before the query (or at the last '@',
 * a '?' of the password's before it). Added as typed and decoded. */
static int add_uri_password(struct fleet_secrets *s, const char *conninfo)
{
	const char *rest = uri_rest(conninfo), *at = NULL, *colon, *query;
	char *text;
	size_t len;
	int rc;

	if (!rest)
		return 0;
	query = rest + strcspn(rest, "?");
	for (const char *p = rest; p < query; p++)
		if (*p == '@')
			at = p;
	for (const char *p = query; *p && query[0] && !memchr(rest, '@', (size_t)(query - rest));
	     p++)
		if (*p == '@')
			at = p;
	if (!at || !(colon = memchr(rest, ':', (size_t)(at - rest))))
		return 0;
	len = (size_t)(at - colon - 1);
	if (!(text = malloc(len + 1)))
		return -1;
	memcpy(text, colon + 1, len);
	text[len] = '\0';
	rc = fleet_secrets_add(s, text);
	percent_decode(colon + 1, len, text);
	rc = rc ? rc : fleet_secrets_add(s, text);
	free(text);
	return rc;
}

/* One passfile line's password: after its fourth ':' that no '\' escapes,
 * with the escapes taken out (libpq's rule). */
static int add_passfile_line(struct fleet_secrets *s, char *line)
{
	int fields = 0;
	char *p = line, *o;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '#')
		return 0;
	while (*p && fields < 4) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == ':')
			fields++;
		p++;
	}
	if (fields < 4)
		return 0;
	for (char *q = o = p; *q; q++) {
		if (*q == '\\' && q[1])
			q++;
		*o++ = *q;
	}
	*o = '\0';
	return fleet_secrets_add(s, p);
}

static int add_passfile(struct fleet_secrets *s, const char *passfile)
{
	char path[4096], line[1024];
	const char *home = getenv("HOME");
	size_t total = 0;
	FILE *f;
	int rc = 0;

	if (!passfile)
		passfile = getenv("PGPASSFILE");
	if (!passfile) {
		if (!home)
			return 0;
		snprintf(path, sizeof path, "%s/.pgpass", home);
		passfile = path;
	}
	if (!(f = fopen(passfile, "re")))
		return 0;
	while (rc == 0 && total < PASSFILE_MAX && fgets(line, sizeof line, f)) {
		total += strlen(line);
		rc = add_passfile_line(s, line);
	}
	fclose(f);
	return rc;
}

int fleet_secrets_collect(struct fleet_secrets *s, const char *conninfo, const char *parsed,
			  const char *passfile)
{
	if (add_uri_password(s, conninfo) != 0 || fleet_secrets_add(s, parsed) != 0 ||
	    fleet_secrets_add(s, getenv("PGPASSWORD")) != 0 || add_passfile(s, passfile) != 0)
		return -1;
	return 0;
}

/* Scrubbing */

enum { MARK_RUN = 1, MARK_PAIR = 2 };

/* Marks with BIT every byte of MSG that is in a run of at least MIN bytes
 * (at most the secret's length) that also occurs in SECRET. */
static void mark_fragments(const char *msg, size_t m, const char *secret, size_t min,
			   unsigned char *mark, unsigned char bit)
{
	size_t lp = strlen(secret);

	if (min > lp)
		min = lp;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < lp; j++) {
			size_t k = 0;

			while (i + k < m && j + k < lp && msg[i + k] == secret[j + k])
				k++;
			for (size_t x = 0; k >= min && x < k; x++)
				mark[i + x] |= bit;
		}
}

static bool any_marked(const unsigned char *mark, size_t from, size_t to, unsigned char bit)
{
	for (size_t i = from; i < to; i++)
		if (mark[i] & bit)
			return true;
	return false;
}

/* Appends N bytes of TEXT to OUT (LEN), as far as they fit. */
static void put(char *out, size_t len, size_t *o, const char *text, size_t n)
{
	if (*o + n >= len)
		n = *o + 1 < len ? len - 1 - *o : 0;
	memcpy(out + *o, text, n);
	*o += n;
}

/* A quoted part's contents, one byte long, that is in a secret: the
 * shortest echo libpq makes of a password's head ("a" of "a/b"). */
static bool single_in_secret(const struct fleet_secrets *s, char c)
{
	for (size_t i = 0; i < s->n; i++)
		if (strchr(s->v[i], c))
			return true;
	return false;
}

void fleet_secrets_scrub(const struct fleet_secrets *s, const char *msg, char *out, size_t len)
{
	size_t m = strlen(msg), o = 0;
	unsigned char *mark;

	if (!len)
		return;
	if (!(mark = calloc(m + 1, 1))) {
		/* Nothing can be checked: nothing of it is shown. */
		snprintf(out, len, "(a message of libpq's, not shown: out of memory)");
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		mark_fragments(msg, m, s->v[i], FLEET_SECRET_FRAGMENT, mark, MARK_RUN);
		mark_fragments(msg, m, s->v[i], 2, mark, MARK_PAIR);
	}
	for (size_t i = 0; i < m;) {
		const char *close = msg[i] == '"' ? strchr(msg + i + 1, '"') : NULL;

		if (close) {
			size_t end = (size_t)(close - msg) + 1;
			bool hide = any_marked(mark, i + 1, end - 1, MARK_PAIR) ||
				    (end - i == 3 && single_in_secret(s, msg[i + 1]));

			if (hide)
				put(out, len, &o, "\"...\"", 5);
			else
				put(out, len, &o, msg + i, end - i);
			i = end;
		} else if (mark[i] & MARK_RUN) {
			while (i < m && mark[i] & MARK_RUN)
				i++;
			put(out, len, &o, "***", 3);
		} else {
			put(out, len, &o, msg + i, 1);
			i++;
		}
	}
	out[o] = '\0';
	free(mark);
}

/* Keywords */

/* The value of a key=value string at P, as libpq reads it (quoted with
 * '...' and backslash escapes, or up to a blank): past it. *QUOTED says
 * which. */
static const char *skip_value(const char *p, bool *quoted)
{
	*quoted = *p == '\'';
	if (*quoted) {
		for (p++; *p && *p != '\''; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : p;
	}
	for (; *p && !is_space(*p); p++)
		if (*p == '\\' && p[1])
			p++;
	return p;
}

static bool key_is(const char *key, size_t n, const char *word, size_t len)
{
	return n == len && memcmp(key, word, len) == 0;
}

/* A key of the key=value string CONNINFO, as libpq's parser takes them
 * apart: a word up to '=' or a blank, then '=' and a value. */
static bool conninfo_has_key(const char *conninfo, const char *word, size_t len)
{
	bool after_password = false;

	for (const char *p = skip_spaces(conninfo); *p; p = skip_spaces(p)) {
		const char *key = p;
		size_t n;
		bool quoted;

		while (*p && *p != '=' && !is_space(*p))
			p++;
		n = (size_t)(p - key);
		if (!after_password && key_is(key, n, word, len))
			return true;
		p = skip_spaces(p);
		if (*p != '=')
			return false; /* libpq stops here too */
		p = skip_value(skip_spaces(p + 1), &quoted);
		after_password = !quoted && key_is(key, n, "password", 8);
	}
	return false;
}

/* A query parameter's name of the URI whose text after the scheme is
 * REST: what follows its '?', or an '&', up to '='. */
static bool uri_has_key(const char *rest, const char *word, size_t len)
{
	const char *p = strchr(rest, '?');

	while (p) {
		const char *key = p + 1;
		size_t n = strcspn(key, "=&");

		if (key_is(key, n, word, len))
			return true;
		p = strchr(key, '&');
	}
	return false;
}

bool fleet_conninfo_key(const char *conninfo, const char *word, size_t len)
{
	const char *rest = uri_rest(conninfo);

	if (len == 0)
		return false;
	return rest ? uri_has_key(rest, word, len) : conninfo_has_key(conninfo, word, len);
}

/* The environment */

static const char *trimmed(const char *s, size_t *len)
{
	size_t n;

	s = skip_spaces(s);
	n = strlen(s);
	while (n > 0 && is_space(s[n - 1]))
		n--;
	*len = n;
	return s;
}

/* Whether the environment entry E ("NAME=VALUE") is one that tfd takes
 * out: PGPASSWORD, or a variable holding CONNINFO. */
static bool secret_entry(const char *e, const char *conninfo)
{
	const char *eq = strchr(e, '='), *v, *c;
	size_t vn, cn;

	if (!eq)
		return false;
	if ((size_t)(eq - e) == strlen("PGPASSWORD") && strncmp(e, "PGPASSWORD", 10) == 0)
		return true;
	v = trimmed(eq + 1, &vn);
	c = trimmed(conninfo, &cn);
	return cn > 0 && vn == cn && memcmp(v, c, cn) == 0;
}

/* The first entry of the environment that tfd takes out, or NULL. */
static char *next_secret_entry(const char *conninfo)
{
	extern char **environ;

	for (size_t i = 0; environ && environ[i]; i++)
		if (secret_entry(environ[i], conninfo))
			return environ[i];
	return NULL;
}

int fleet_secrets_take_environment(const char *conninfo, char **password)
{
	const char *pw = getenv("PGPASSWORD");
	char *e;

	*password = NULL;
	if (pw && !(*password = strdup(pw)))
		return -1;
	while ((e = next_secret_entry(conninfo))) {
		char *eq = strchr(e, '='), *name = strndup(e, (size_t)(eq - e));

		/* The text itself, which /proc/PID/environ reads from the
		 * process's first stack, not only the pointer that unsetenv
		 * drops. Emptied, the entry no longer matches (PGPASSWORD's
		 * name is its first byte's). */
		memset(eq + 1, 0, strlen(eq + 1));
		if (name)
			unsetenv(name);
		else
			e[0] = '\0';
		free(name);
	}
	return 0;
}
