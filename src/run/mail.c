/* SPDX-License-Identifier: MIT */
#include "mail.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mail_env_value(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static int copy_or_null(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -1;
}

/* A copy of the NULL-terminated ENV (NULL: an empty one) in *DST. */
static int copy_env(char ***dst, char *const *env)
{
	size_t n = 0;

	while (env && env[n])
		n++;
	*dst = calloc(n + 1, sizeof **dst);
	if (!*dst)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!((*dst)[i] = strdup(env[i])))
			return -1;
	return 0;
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

struct mail_job *mail_job_new(char *const *env, const char *user, const char *command, bool to_user,
			      bool *none)
{
	const char *to = mail_env_value(env, "MAILTO");
	const char *from = mail_env_value(env, "MAILFROM");
	const char *sendmail = mail_env_value(env, "SENDMAIL");
	struct mail_job *m;

	if (!to && to_user)
		to = user;
	*none = !to || !*to;
	if (*none)
		return NULL;
	m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	/* An empty MAILFROM or SENDMAIL is as good as none (cronie's rule for
	 * MAILFROM). */
	if (copy_or_null(&m->to, to) || copy_or_null(&m->user, user) ||
	    copy_or_null(&m->from, from && *from ? from : user) ||
	    copy_or_null(&m->sendmail, sendmail && *sendmail ? sendmail : MAIL_SENDMAIL) ||
	    copy_or_null(&m->command, command) || copy_env(&m->env, env)) {
		mail_job_free(m);
		return NULL;
	}
	return m;
}

void mail_job_free(struct mail_job *m)
{
	if (!m)
		return;
	free(m->to);
	free(m->from);
	free(m->user);
	free(m->sendmail);
	free(m->command);
	free_env(m->env);
	free(m);
}

int mail_body_add(struct mail_body *b, const char *data, size_t len)
{
	size_t room = MAIL_BODY_MAX - b->text.len;
	size_t kept = len < room ? len : room;

	if (kept > 0 && buf_reserve(&b->text, kept, MAIL_BODY_MAX) != 0) {
		b->cut += len;
		return -1;
	}
	if (kept > 0)
		memcpy(b->text.s + b->text.len, data, kept);
	b->text.len += kept;
	b->cut += len - kept;
	return 0;
}

void mail_body_free(struct mail_body *b)
{
	buf_free(&b->text);
	b->cut = 0;
}

size_t mail_cut_note(const struct mail_body *b, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "[tfd: %" PRIu64 " more bytes of output were cut: "
			 "a mail holds the first %zu]",
			 b->cut, b->text.len);

	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}

/* The message: built in a struct buf, whose failure sticks, so that
 * mail_compose looks at it once, at the end. */

static void puts_text(struct buf *t, const char *s)
{
	buf_put(t, s, strlen(s));
}

/* A header value on one line: a CR or LF would end the header and let
 * the text after it be read as headers of its own. */
static void put_value(struct buf *t, const char *s)
{
	for (size_t n; *s; s += n) {
		n = strcspn(s, "\r\n");
		buf_put(t, s, n);
		if (s[n]) {
			buf_put(t, " ", 1);
			n++;
		}
	}
}

static void put_header(struct buf *t, const char *name, const char *before, const char *value,
		       const char *after)
{
	puts_text(t, name);
	puts_text(t, ": ");
	puts_text(t, before);
	put_value(t, value);
	puts_text(t, after);
	puts_text(t, "\n");
}

/* cronie's headers: who, what run, and that no one should answer it. */
static void put_headers(struct buf *t, const struct mail_job *m, const char *host, const char *job)
{
	put_header(t, "From", "\"(Cron Daemon)\" <", m->from, ">");
	put_header(t, "To", "", m->to, "");
	puts_text(t, "Subject: Cron <");
	put_value(t, m->user);
	puts_text(t, "@");
	put_value(t, host);
	puts_text(t, "> ");
	put_value(t, m->command ? m->command : job);
	puts_text(t, "\n");
	puts_text(t, "MIME-Version: 1.0\n"
		     "Content-Type: text/plain; charset=UTF-8\n"
		     "Content-Transfer-Encoding: 8bit\n"
		     "Auto-Submitted: auto-generated\n"
		     "Precedence: bulk\n");
	put_header(t, "X-Tfd-Job", "", job, "");
	for (size_t i = 0; m->env && m->env[i]; i++)
		put_header(t, "X-Cron-Env", "<", m->env[i], ">");
	puts_text(t, "\n");
}

int mail_compose(const struct mail_job *m, const char *host, const char *job,
		 const struct mail_body *b, char **msg, size_t *len)
{
	const struct buf *body = &b->text;
	struct buf t = { 0 };

	put_headers(&t, m, host, job);
	buf_put(&t, body->s ? body->s : "", body->len);
	if (b->cut > 0) {
		char note[128];

		if (body->len > 0 && body->s[body->len - 1] != '\n')
			puts_text(&t, "\n");
		buf_put(&t, note, mail_cut_note(b, note, sizeof note));
		puts_text(&t, "\n");
	}
	/* The NUL that ends it, not counted. */
	if (buf_reserve(&t, 1, SIZE_MAX) != 0) {
		buf_free(&t);
		return -1;
	}
	t.s[t.len] = '\0';
	*msg = t.s;
	*len = t.len;
	return 0;
}
