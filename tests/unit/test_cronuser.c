/* SPDX-License-Identifier: MIT */
/* Unit tests for cronuser: a plain jobs file whose crontab lines begin
 * their command with a user name, as a system crontab's do. */
#include <string.h>

#include "cronuser.h"
#include "harness.h"
#include "jobsfile.h"

/* The users of this pretend host. */
static bool known(void *arg, const char *word)
{
	(void)arg;
	return strcmp(word, "root") == 0 || strcmp(word, "www-data") == 0;
}

/* The line (1-based) cronuser finds in TEXT, 0 for none, and the user. */
static unsigned first(const char *text, char *user)
{
	struct jobs_file *f;
	char err[256];
	long at;
	unsigned line;

	if (jobs_parse("t", text, strlen(text), &f, err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return 0;
	}
	at = cronuser_first_line(f, known, NULL, user, 64);
	line = at < 0 ? 0 : f->entries[at].line;
	jobs_free(f);
	return line;
}

int main(void)
{
	char user[64];

	check(first("SHELL=/bin/sh\n# m h dom mon dow user command\n"
		    "17 * * * * root cd / && run-parts --report /etc/cron.hourly\n",
		    user) == 3 &&
		      strcmp(user, "root") == 0,
	      "/etc/crontab's line: %s", user);
	check(first("@reboot www-data /srv/start\n", user) == 1 && strcmp(user, "www-data") == 0,
	      "an @reboot line too");
	check(first("*/5 * * * * backup.sh --all\n0 1 * * * nobody x\n", user) == 0,
	      "not a user of this host");
	check(first("0 1 * * * root\n", user) == 0, "a user name alone is a command");
	check(first("0 1 * * * Root x\n", user) == 0, "not a user name's form");
	check(first("--name a --interval 1s -- root x\n", user) == 0,
	      "tfd lines are not looked at");
	check(first("0 1 * * * /usr/bin/root x\n0 2 * * *   root   y\n", user) == 2,
	      "blanks around the name");
	return tally_finish(&tally, "cronuser");
}
