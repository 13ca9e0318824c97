/* SPDX-License-Identifier: MIT */
/* fleet_secrets: no part of a password of --fleet's in anything tfd
 * prints. libpq quotes its input in its messages (a host name, a port, a
 * query parameter), and a password whose '@', '/' or '?' was not
 * percent-encoded ends up in those parts: "could not translate host name
 * "PW-x@127.0.0.1"". So the URIs that libpq would split at the wrong
 * place are refused before libpq sees them, and every message of libpq's
 * is scrubbed of every fragment of every password tfd knows of: the one
 * libpq parsed, the URI's own text of it (the intended one, where the URI
 * was mis-encoded), PGPASSWORD, and every password of the passfile.
 * Pure but for fleet_secrets_collect, which reads the environment and the
 * passfile. */
#ifndef TFD_FLEET_SECRETS_H
#define TFD_FLEET_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

/* Fragments shorter than this are scrubbed only inside a quoted part of a
 * message (where libpq echoes its input) or when they are the whole
 * password: shorter ones would blank common words. */
#define FLEET_SECRET_FRAGMENT 4

struct fleet_secrets {
	char **v;
	size_t n, cap;
};

/* A CONNINFO that is a URI whose authority libpq would split at the wrong
 * place: more than one '@' before the host, or an '@' in the path (a '/'
 * in the password). Returns 0, or 2 with one line in ERR that shows no
 * part of CONNINFO. */
int fleet_uri_check(const char *conninfo, char *err, size_t errlen);

/* Adds S (NULL or empty: nothing) to the candidates. Returns -1 when
 * memory ran out. */
int fleet_secrets_add(struct fleet_secrets *s, const char *secret);

/* The candidates of CONNINFO: the URI's text of its password (as typed,
 * and percent-decoded), PARSED (libpq's "password" value, or NULL),
 * PGPASSWORD, and the passwords of PASSFILE (NULL: PGPASSFILE, else
 * ~/.pgpass), all of its lines, whichever host they name. */
int fleet_secrets_collect(struct fleet_secrets *s, const char *conninfo, const char *parsed,
			  const char *passfile);

void fleet_secrets_free(struct fleet_secrets *s);

/* Whether the LEN bytes at WORD, which one of libpq's messages about
 * CONNINFO quotes, are a keyword the user wrote there (a key of a
 * key=value string, a query parameter's name of a URI): a name, never a
 * secret, shown so that a misspelt one can be mended. Not a key that
 * follows an unquoted password value: that may be the password's tail
 * (password=a b=c). */
bool fleet_conninfo_key(const char *conninfo, const char *word, size_t len);

/* tfd's environment, which its runs inherit and /proc/PID/environ shows
 * to every process of its user, made to hold no secret of --fleet's:
 * PGPASSWORD, and every variable whose value is CONNINFO (blanks around
 * either aside: a Secret's value given as TFD_FLEET and as --fleet's
 * argument), are overwritten in place and unset. PGPASSWORD's value, for
 * the connections, in *PASSWORD (NULL when it was not set). Returns -1
 * when memory ran out (nothing is changed then). */
int fleet_secrets_take_environment(const char *conninfo, char **password);

/* MSG into OUT (LEN bytes, always ended): a quoted part ("...") that shares
 * two characters in a row with a candidate, or is part of one, becomes
 * "..."; elsewhere every run of FLEET_SECRET_FRAGMENT characters or more
 * that is part of a candidate (or a whole candidate) becomes "***". */
void fleet_secrets_scrub(const struct fleet_secrets *s, const char *msg, char *out, size_t len);

#endif
