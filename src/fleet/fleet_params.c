/* SPDX-License-Identifier: MIT */
/* fleet_params: --fleet's CONNINFO as libpq's keyword and value lists,
 * with tfd's defaults for what the user left unsaid, and libpq's messages
 * made fit for one line of tfd's (passwords left out). */
#include "fleet_params.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "timens.h"

char *fleet_one_line(const char *msg)
{
	char *s = strdup(msg ? msg : "unknown error"), *o;

	if (!s)
		return NULL;
	/* libpq's lines end in '\n' and go on after a tab: each run of
	 * blanks and line ends is one space, none at either end. */
	o = s;
	for (const char *p = skip_spaces(s); *p; p++) {
		if (is_space(*p)) {
			p = skip_spaces(p) - 1;
			if (p[1])
				*o++ = ' ';
			continue;
		}
		*o++ = *p;
	}
	*o = '\0';
	return s;
}

/* What tfd adds to the user's CONNINFO unless it (or a PG* variable) says
 * otherwise: a connection attempt that hangs, a peer that vanished
 * without a word, data the network stopped carrying are all noticed. */
static const struct {
	const char *keyword, *value;
} param_defaults[] = {
	{ "connect_timeout", "10" },
	{ "keepalives", "1" },
	{ "keepalives_idle", "10" },
	{ "keepalives_interval", "5" },
	{ "keepalives_count", "3" },
	{ "tcp_user_timeout", "30000" },
	{ "fallback_application_name", "tfd" },
};

static bool known_keyword(const struct pq_option *known, const char *word, size_t len)
{
	for (const struct pq_option *k = known; k && k->keyword; k++)
		if (strlen(k->keyword) == len && strncmp(word, k->keyword, len) == 0)
			return true;
	return false;
}

/* The optimal string alignment distance of A and B (insertions,
 * deletions, substitutions, and two neighbours swapped, each 1): a
 * misspelt keyword is at 1 or 2 from the one meant. Words longer than a
 * keyword can be are at SIZE_MAX. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t d[33][33];

	if (na > 32 || nb > 32)
		return SIZE_MAX;
	for (size_t i = 0; i <= na; i++)
		for (size_t j = 0; j <= nb; j++) {
			size_t best = i + j; /* an empty prefix: the other's length */

			if (i > 0 && j > 0) {
				best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
				if (d[i - 1][j] + 1 < best)
					best = d[i - 1][j] + 1;
				if (d[i][j - 1] + 1 < best)
					best = d[i][j - 1] + 1;
			}
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[na][nb];
}

/* The keyword libpq knows nearest to WORD (at most 2 edits, and fewer
 * than its length), or NULL. */
static const char *nearest_keyword(const struct pq_option *known, const char *word, size_t len)
{
	const char *best = NULL;
	size_t best_d = len < 3 ? len - 1 : 2;

	for (const struct pq_option *k = known; k && k->keyword; k++) {
		size_t d = distance(word, len, k->keyword, strlen(k->keyword));

		if (d <= best_d && (!best || d < best_d)) {
			best = k->keyword;
			best_d = d;
		}
	}
	return best;
}

/* libpq quotes parts of the string it could not parse, which may be a
 * password: a quoted part is shown only when it is the name of a
 * parameter, or a keyword the user wrote (fleet_conninfo_key), else as
 * "...". The first unknown keyword shown, and the one libpq knows that
 * is nearest to it, go into SUGGEST (empty when none). */
static void redact(const struct pq *pq, const char *conninfo, const char *msg, char *out,
		   size_t len, char *suggest, size_t suggest_len)
{
	char *ignored = NULL;
	struct pq_option *known = pq->conninfo_parse("", &ignored);
	size_t o = 0;

	suggest[0] = '\0';
	for (const char *p = msg; *p && o + 4 < len; p++) {
		const char *close = *p == '"' ? strchr(p + 1, '"') : NULL;
		size_t n = close ? (size_t)(close - p - 1) : 0;
		bool keep;

		if (!close) {
			out[o++] = *p;
			continue;
		}
		keep = known_keyword(known, p + 1, n) || (n == 1 && p[1] == '=');
		if (!keep && fleet_conninfo_key(conninfo, p + 1, n)) {
			const char *near = nearest_keyword(known, p + 1, n);

			keep = true;
			if (near && !suggest[0])
				snprintf(suggest, suggest_len, "; did you mean \"%s\"?", near);
		}
		o += (size_t)snprintf(out + o, len - o, "\"%.*s\"", keep ? (int)n : 3,
				      keep ? p + 1 : "...");
		if (o >= len)
			o = len - 1;
		p = close;
	}
	out[o] = '\0';
	if (known)
		pq->conninfo_free(known);
	if (ignored)
		pq->freemem(ignored);
}

static bool option_given(const struct pq_option *opt)
{
	return opt->val || (opt->envvar && getenv(opt->envvar));
}

static int add_param(struct fleet_params *f, size_t *n, const char *keyword, const char *value)
{
	if (!(f->keywords[*n] = strdup(keyword)) || !(f->values[*n] = strdup(value)))
		return -1;
	(*n)++;
	return 0;
}

/* The user's parameters as libpq parsed them, then the defaults for the
 * ones not given that this libpq knows. */
static int fill_params(struct fleet_params *f, const struct pq_option *opts)
{
	size_t count = 0, n = 0;

	while (opts[count].keyword)
		count++;
	f->keywords = calloc(count + 1, sizeof *f->keywords);
	f->values = calloc(count + 1, sizeof *f->values);
	if (!f->keywords || !f->values)
		return -1;
	for (size_t i = 0; i < count; i++)
		if (opts[i].val && add_param(f, &n, opts[i].keyword, opts[i].val) != 0)
			return -1;
	/* clang-format off */
	for (size_t d = 0; d < sizeof param_defaults / sizeof param_defaults[0]; d++)
		for (size_t i = 0; i < count; i++)
			if (strcmp(opts[i].keyword, param_defaults[d].keyword) == 0 &&
			    !option_given(&opts[i]) &&
			    add_param(f, &n, param_defaults[d].keyword, param_defaults[d].value) != 0)
				return -1;
	/* clang-format on */
	return 0;
}

/* libpq does not time out PQconnectPoll's steps itself: the fleet gives
 * a connection, and every statement, connect_timeout to answer. */
static int64_t answer_timeout(const struct fleet_params *f)
{
	const char *text = getenv("PGCONNECT_TIMEOUT");
	long s;

	for (size_t i = 0; f->keywords[i]; i++)
		if (strcmp(f->keywords[i], "connect_timeout") == 0)
			text = f->values[i];
	s = text ? strtol(text, NULL, 10) : 10;
	return (s < 2 ? 2 : s) * NSEC_PER_SEC;
}

static const char *option_value(const struct pq_option *opts, const char *keyword)
{
	for (; opts->keyword; opts++)
		if (strcmp(opts->keyword, keyword) == 0)
			return opts->val;
	return NULL;
}

/* libpq checks a port only when it connects, and would be tried again for
 * ever; a port that is not a number is often a password's head (a '/' of
 * it not encoded). Each of a multi-host list's ports is checked. */
static int check_ports(const char *ports, char *err, size_t errlen)
{
	for (const char *p = ports; p && *p; p++)
		if (*p != ',' && (*p < '0' || *p > '9')) {
			/* clang-format off */
			snprintf(err, errlen, "--fleet: the connection string's port is not a number "
				 "(not shown: it may be part of a password; in a URI write a ':' of "
				 "the password as %%3A, a '/' as %%2F)");
			/* clang-format on */
			return 2;
		}
	return 0;
}

static int parse_error(struct fleet_params *f, const struct pq *pq, const char *conninfo, char *msg,
		       char *err, size_t errlen)
{
	char shown[512], clean[512], suggest[80], *line;

	if (!msg) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	redact(pq, conninfo, msg, shown, sizeof shown, suggest, sizeof suggest);
	pq->freemem(msg);
	fleet_secrets_scrub(&f->secrets, shown, clean, sizeof clean);
	line = fleet_one_line(clean);
	snprintf(err, errlen, "--fleet: libpq cannot read the connection string: %s%s",
		 line ? line : clean, suggest);
	free(line);
	return 2;
}

/* A password given by PGPASSWORD is taken out of tfd's environment
 * (fleet_secrets_take_environment) and given to libpq as the keyword
 * "password" instead, which is what libpq would have made of it: a
 * password in CONNINFO comes first, then PGPASSWORD, then a passfile. */
static int take_environment(struct fleet_params *f, const struct pq_option *opts,
			    const char *conninfo)
{
	char *password = NULL;
	size_t n = 0;
	int rc;

	if (fleet_secrets_take_environment(conninfo, &password) != 0)
		return -1;
	while (f->keywords[n])
		n++;
	rc = password && !option_value(opts, "password") ? add_param(f, &n, "password", password)
							 : 0;
	if (password)
		memset(password, 0, strlen(password));
	free(password);
	return rc;
}

int fleet_params_parse(struct fleet_params *f, const struct pq *pq, const char *conninfo, char *err,
		       size_t errlen)
{
	char *msg = NULL;
	struct pq_option *opts;
	int status;

	if ((status = fleet_uri_check(conninfo, err, errlen)) != 0)
		return status;
	if (fleet_secrets_collect(&f->secrets, conninfo, NULL, NULL) != 0) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	if (!(opts = pq->conninfo_parse(conninfo, &msg)))
		return parse_error(f, pq, conninfo, msg, err, errlen);
	if (fleet_secrets_collect(&f->secrets, conninfo, option_value(opts, "password"),
				  option_value(opts, "passfile")) != 0 ||
	    fill_params(f, opts) != 0 || take_environment(f, opts, conninfo) != 0) {
		pq->conninfo_free(opts);
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	status = check_ports(option_value(opts, "port"), err, errlen);
	pq->conninfo_free(opts);
	f->answer_ns = answer_timeout(f);
	return status;
}

static size_t list_length(const char *list)
{
	size_t n = 1;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

/* LIST's first element moved to its end, in place: "a,b,c" is "b,c,a".
 * Left as it is when memory runs out. */
static void turn_list(char *list)
{
	size_t len = strlen(list), first = strcspn(list, ",");
	char *copy = strdup(list);

	if (!copy || first == len) {
		free(copy);
		return;
	}
	snprintf(list, len + 1, "%s,%.*s", copy + first + 1, (int)first, copy);
	free(copy);
}

static char *param_value(struct fleet_params *f, const char *keyword)
{
	for (size_t i = 0; f->keywords && f->keywords[i]; i++)
		if (strcmp(f->keywords[i], keyword) == 0)
			return f->values[i];
	return NULL;
}

void fleet_params_next_host(struct fleet_params *f)
{
	static const char *const lists[] = { "host", "hostaddr", "port" };
	const char *host = param_value(f, "host"), *addr = param_value(f, "hostaddr");
	size_t hosts = host ? list_length(host) : addr ? list_length(addr) : 1;

	if (hosts < 2)
		return;
	/* A single port is every host's. */
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		char *v = param_value(f, lists[i]);

		if (v && list_length(v) == hosts)
			turn_list(v);
	}
}

void fleet_params_free(struct fleet_params *f)
{
	for (size_t i = 0; f->keywords && f->keywords[i]; i++) {
		free(f->keywords[i]);
		free(f->values[i]);
	}
	free(f->keywords);
	free(f->values);
	f->keywords = f->values = NULL;
	fleet_secrets_free(&f->secrets);
}
