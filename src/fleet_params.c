/* SPDX-License-Identifier: MIT */
/* fleet_params: --fleet's CONNINFO as libpq's keyword and value lists,
 * with tfd's defaults for what the user left unsaid, and libpq's messages
 * made fit for one line of tfd's (passwords left out). */
#include "fleet_params.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timens.h"

char *fleet_one_line(const char *msg)
{
	char *s = strdup(msg ? msg : "unknown error");
	size_t n;

	if (!s)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\t' || *p == '\r')
			*p = ' ';
	n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* What tfd adds to the user's CONNINFO unless it (or a PG* variable) says
 * otherwise: a connection attempt that hangs, a peer that vanished
 * without a word, data the network stopped carrying are all noticed. */
static const struct { const char *keyword, *value; } param_defaults[] = {
	{ "connect_timeout", "10" },
	{ "keepalives", "1" },
	{ "keepalives_idle", "10" },
	{ "keepalives_interval", "5" },
	{ "keepalives_count", "3" },
	{ "tcp_user_timeout", "30000" },
	{ "fallback_application_name", "tfd" },
};

/* libpq quotes parts of the string it could not parse, which may be a
 * password: every quoted part that is not the name of a parameter is
 * shown as "...". */
static void redact(const struct pq *pq, const char *msg, char *out, size_t len)
{
	char *ignored = NULL;
	struct pq_option *known = pq->conninfo_parse("", &ignored);
	size_t o = 0;

	for (const char *p = msg; *p && o + 4 < len; p++) {
		const char *close = *p == '"' ? strchr(p + 1, '"') : NULL;
		bool keep = false;

		if (!close) {
			out[o++] = *p;
			continue;
		}
		for (struct pq_option *k = known; k && k->keyword && !keep; k++)
			keep = (size_t)(close - p - 1) == strlen(k->keyword) &&
			       strncmp(p + 1, k->keyword, strlen(k->keyword)) == 0;
		keep = keep || (close - p == 2 && p[1] == '=');
		o += (size_t)snprintf(out + o, len - o, "\"%.*s\"", keep ? (int)(close - p - 1) : 3,
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
	for (size_t d = 0; d < sizeof param_defaults / sizeof param_defaults[0]; d++)
		for (size_t i = 0; i < count; i++)
			if (strcmp(opts[i].keyword, param_defaults[d].keyword) == 0 &&
			    !option_given(&opts[i]) &&
			    add_param(f, &n, param_defaults[d].keyword, param_defaults[d].value) != 0)
				return -1;
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
			snprintf(err, errlen, "--fleet: the connection string's port is not a number "
				 "(not shown: it may be part of a password; in a URI write a ':' of "
				 "the password as %%3A, a '/' as %%2F)");
			return 2;
		}
	return 0;
}

static int parse_error(struct fleet_params *f, const struct pq *pq, char *msg, char *err,
		       size_t errlen)
{
	char shown[512], clean[512], *line;

	if (!msg) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	redact(pq, msg, shown, sizeof shown);
	pq->freemem(msg);
	fleet_secrets_scrub(&f->secrets, shown, clean, sizeof clean);
	line = fleet_one_line(clean);
	snprintf(err, errlen, "--fleet: libpq cannot read the connection string: %s",
		 line ? line : clean);
	free(line);
	return 2;
}

int fleet_params_parse(struct fleet_params *f, const struct pq *pq, const char *conninfo,
		       char *err, size_t errlen)
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
		return parse_error(f, pq, msg, err, errlen);
	if (fleet_secrets_collect(&f->secrets, conninfo, option_value(opts, "password"),
				  option_value(opts, "passfile")) != 0 ||
	    fill_params(f, opts) != 0) {
		pq->conninfo_free(opts);
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	status = check_ports(option_value(opts, "port"), err, errlen);
	pq->conninfo_free(opts);
	f->answer_ns = answer_timeout(f);
	return status;
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
