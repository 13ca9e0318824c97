/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_secrets: the URIs that libpq would misread are
 * refused without showing them, the candidates of a URI (as typed and
 * decoded) and of a passfile, and libpq's messages scrubbed of every
 * fragment of a password, quoted or not, as the fleet prints them. */
#include "fleet_secrets.h"
#include "harness.h"
#include "tsv.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void uri(const char *conninfo, int want, const char *says)
{
	char err[512] = "";
	int got = fleet_uri_check(conninfo, err, sizeof err);

	check(got == want, "%s: %d, not %d", conninfo, got, want);
	check(!says || strstr(err, says), "%s: '%s' does not say %s", conninfo, err, says);
	check(!strstr(err, "S3cret") && !strstr(err, "PW-x"), "%s: shown: %s", conninfo, err);
}

static void test_uri_check(void)
{
	uri("postgresql://u:S3cret@PW-x@127.0.0.1/db", 2, "%40");
	uri("postgres://u:S3cret@PW-x@h", 2, "%40");
	uri("postgresql://u:ab/S3cret@127.0.0.1/db", 2, "%2F");
	uri("postgresql://u:S3cret%40PW-x@127.0.0.1/db", 0, NULL);
	uri("postgresql://u:S3cret@127.0.0.1/db?application_name=a@b", 0, NULL);
	uri("postgresql://u@[::1]:5432/db", 0, NULL);
	uri("postgresql:///db?host=/tmp", 0, NULL);
	/* key=value strings are libpq's to read: an '@' is anyone's. */
	uri("host=h password=a@b@c", 0, NULL);
}

static bool has(const struct fleet_secrets *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], v) == 0)
			return true;
	return false;
}

static void test_collect(void)
{
	struct fleet_secrets s = { 0 };
	char path[] = "/tmp/tfd-unit-pgpass-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	check(f != NULL, "mkstemp");
	if (!f)
		return;
	fputs("# a comment:x:y:z:not-a-password\n"
	      "h:5432:db:u:pass\\:with\\\\escapes\n"
	      "*:*:*:*:Star-Word\n",
	      f);
	fclose(f);
	unsetenv("PGPASSWORD");
	check(fleet_secrets_collect(&s, "postgresql://u:Qz7%40Wx9@h/db?x=y", "Qz7@Wx9", path) == 0,
	      "collect");
	check(has(&s, "Qz7%40Wx9"), "the URI's text as typed");
	check(has(&s, "Qz7@Wx9"), "decoded");
	check(has(&s, "pass:with\\escapes"), "a passfile line, unescaped");
	check(has(&s, "Star-Word"), "a wildcard passfile line");
	check(!has(&s, "not-a-password"), "a comment");
	fleet_secrets_free(&s);
	/* A '?' of the password's before its '@': the URI's text up to it. */
	check(fleet_secrets_collect(&s, "postgresql://u:Qz7?user=Wx9@127.0.0.1/db", NULL,
				    "/nonexistent") == 0,
	      "collect");
	check(has(&s, "Qz7?user=Wx9"), "a password with a '?'");
	fleet_secrets_free(&s);
	setenv("PGPASSWORD", "From-Env", 1);
	check(fleet_secrets_collect(&s, "host=h", NULL, "/nonexistent") == 0 && s.n == 1 &&
		      has(&s, "From-Env"),
	      "PGPASSWORD");
	unsetenv("PGPASSWORD");
	fleet_secrets_free(&s);
	unlink(path);
}

static void scrub(const char *secret, const char *msg, const char *want)
{
	struct fleet_secrets s = { 0 };
	char out[512];

	fleet_secrets_add(&s, secret);
	fleet_secrets_scrub(&s, msg, out, sizeof out);
	check(strcmp(out, want) == 0, "'%s' with '%s': '%s', not '%s'", msg, secret, out, want);
	fleet_secrets_free(&s);
}

static void test_scrub(void)
{
	scrub("S3cret@PW-x", "could not translate host name \"PW-x@127.0.0.1\" to address",
	      "could not translate host name \"...\" to address");
	scrub("ab/S3cret", "invalid integer value \"ab\" for connection option \"port\"",
	      "invalid integer value \"...\" for connection option \"port\"");
	/* One quoted byte of the password: libpq's shortest echo. */
	scrub("a/S3cret", "invalid integer value \"a\" for connection option \"port\"",
	      "invalid integer value \"...\" for connection option \"port\"");
	/* Unquoted, runs of four or more go. */
	scrub("Kp4-Rm2x", "failed: Kp4-Rm2 at port 5432", "failed: *** at port 5432");
	scrub("Kp4-Rm2x", "failed for Kp4 at port 5432", "failed for Kp4 at port 5432");
	/* A whole short password goes wherever it is. */
	scrub("zq", "user zq refused", "user *** refused");
	/* libpq's own words stay when the password shares no run of four. */
	scrub("S3cret@PW-x", "connection to server at \"127.0.0.1\", port 5432 failed: refused",
	      "connection to server at \"127.0.0.1\", port 5432 failed: refused");
	/* An unclosed quote is text like any. */
	scrub("S3cret", "bad \"S3cret", "bad \"***");
	scrub("", "nothing to hide", "nothing to hide");
}

static void test_scrub_cut(void)
{
	struct fleet_secrets s = { 0 };
	char out[8];

	fleet_secrets_add(&s, "S3cret");
	fleet_secrets_scrub(&s, "0123456789 S3cret", out, sizeof out);
	check(strcmp(out, "0123456") == 0, "cut to the buffer: '%s'", out);
	fleet_secrets_free(&s);
}

static void key(const char *conninfo, const char *word, bool want)
{
	check(fleet_conninfo_key(conninfo, word, strlen(word)) == want, "%s: '%s' %s a key",
	      conninfo, word, want ? "is" : "is not");
}

/* A keyword the user wrote is a name, shown; what may be a password's
 * tail is not. */
static void test_conninfo_key(void)
{
	key("hots=x", "hots", true);
	key("host=h  dbnmae = d", "dbnmae", true);
	key("host=h dbname=d", "x", false);
	key("host=h dbname=d", "", false);
	/* A value is no key, nor what follows an unquoted password. */
	key("host=h password=ab cd=ef", "cd", false);
	key("host=h password=ab cd=ef", "ef", false);
	key("host=h password=sekrit-word junk", "junk", false);
	key("host=h password=ab\\ cd=ef hots=x", "hots", false);
	/* A quoted password ends at its quote. */
	key("password='a b' hots=x", "hots", true);
	key("password='a \\' b' hots=x", "hots", true);
	/* A URI's query parameter names. */
	key("postgresql://h/db?hots=x&sslmode=require", "hots", true);
	key("postgresql://h/db?a=b&hots", "hots", true);
	key("postgresql://u:pw@h/db?a=b", "pw", false);
}

static bool env_has(const char *name)
{
	extern char **environ;
	size_t n = strlen(name);

	for (size_t i = 0; environ[i]; i++)
		if (strncmp(environ[i], name, n) == 0 && environ[i][n] == '=')
			return true;
	return false;
}

/* PGPASSWORD and every variable holding CONNINFO leave the environment;
 * the password is handed back; other variables stay. */
static void test_take_environment(void)
{
	char *pw = NULL;

	setenv("PGPASSWORD", "From-Env", 1);
	setenv("TFD_FLEET", "  host=h dbname=d\n", 1);
	setenv("OTHER_NAME", "host=h dbname=d", 1);
	setenv("KEPT", "host=h", 1);
	check(fleet_secrets_take_environment("host=h dbname=d", &pw) == 0, "taken");
	check(pw && strcmp(pw, "From-Env") == 0, "the password handed back: %s", pw ? pw : "NULL");
	check(!getenv("PGPASSWORD") && !env_has("PGPASSWORD"), "PGPASSWORD gone");
	check(!getenv("TFD_FLEET") && !getenv("OTHER_NAME"), "the variables holding CONNINFO gone");
	check(getenv("KEPT") && strcmp(getenv("KEPT"), "host=h") == 0, "another variable kept");
	free(pw);
	check(fleet_secrets_take_environment("host=h dbname=d", &pw) == 0 && pw == NULL,
	      "no PGPASSWORD: none handed back");
	unsetenv("KEPT");
}

int main(void)
{
	test_uri_check();
	test_collect();
	test_scrub();
	test_scrub_cut();
	test_conninfo_key();
	test_take_environment();
	return tally_finish(&tally, "fleet_secrets");
}
