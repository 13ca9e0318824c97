/* SPDX-License-Identifier: MIT */
/* test_pathsearch: resolve_command_in, the command's PATH lookup as
 * execvp(3) does it, with tfd's PATH as job_build gives it: found, not
 * found, not executable, a directory, a match that cannot run not stopping
 * the search, an empty entry as the current directory, a short buffer, no
 * PATH at all. The corpus and vector folders are not used. */
#include "harness.h"
#include "pathsearch.h"
#include "spawnkit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void expect_resolve(const char *command, int want, const char *want_path,
			   const char *want_why)
{
	char buf[PATH_MAX];
	const char *why = "";
	int got = resolve_command_in(command, getenv("PATH"), buf, sizeof buf, &why);

	check(got == want, "resolve_command_in('%s') = %d, want %d (%s)", command, got, want, why);
	if (got == 0 && want == 0 && want_path)
		check(strcmp(buf, want_path) == 0, "resolve_command_in('%s') path '%s', want '%s'",
		      command, buf, want_path);
	if (got != 0 && want_why)
		check(strcmp(why, want_why) == 0, "resolve_command_in('%s') why '%s', want '%s'",
		      command, why, want_why);
}

static void test_resolve(void)
{
	char a[128], b[128], path[300], p[300], cwd[PATH_MAX];
	char buf[PATH_MAX];
	const char *why;
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	snprintf(a, sizeof a, "%s/a", scratch);
	snprintf(b, sizeof b, "%s/b", scratch);
	mkdir(a, 0755);
	mkdir(b, 0755);
	snprintf(p, sizeof p, "%s/prog", a);
	write_file(p, "#!/bin/sh\n", 0644);
	snprintf(p, sizeof p, "%s/prog", b);
	write_file(p, "#!/bin/sh\n", 0755);
	snprintf(p, sizeof p, "%s/dironly", a);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/mixed", a);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/mixed", b);
	write_file(p, "", 0644);

	check(resolve_command_in("sh", getenv("PATH"), buf, sizeof buf, &why) == 0 &&
		      strlen(buf) > 3 && strcmp(buf + strlen(buf) - 3, "/sh") == 0,
	      "resolve_command_in('sh') found '%s'", buf);
	expect_resolve("/bin/sh", 0, "/bin/sh", NULL);
	expect_resolve("tfd-no-such-command-x", 127, NULL, "command not found");
	expect_resolve("", 127, NULL, "command not found");
	expect_resolve("/nonexistent/x", 127, NULL, "No such file or directory");
	expect_resolve("/tmp", 126, NULL, "Is a directory");
	snprintf(p, sizeof p, "%s/prog", a);
	expect_resolve(p, 126, NULL, "Permission denied");

	/* A match that cannot run does not stop the search. */
	snprintf(path, sizeof path, "%s:%s", a, b);
	setenv("PATH", path, 1);
	snprintf(p, sizeof p, "%s/prog", b);
	expect_resolve("prog", 0, p, NULL);
	setenv("PATH", a, 1);
	expect_resolve("prog", 126, NULL, "Permission denied");
	expect_resolve("dironly", 126, NULL, "Is a directory");
	expect_resolve("nothere", 127, NULL, "command not found");
	setenv("PATH", path, 1);
	expect_resolve("mixed", 126, NULL, "Permission denied");
	check(resolve_command_in("prog", getenv("PATH"), buf, 8, &why) == 127,
	      "resolve_command_in with a short buffer must not find a long path");

	/* An empty entry is the current directory, as for execvp. */
	if (getcwd(cwd, sizeof cwd) && chdir(b) == 0) {
		setenv("PATH", ":/nonexistent", 1);
		expect_resolve("prog", 0, "./prog", NULL);
		if (chdir(cwd) < 0)
			perror(cwd);
	}

	unsetenv("PATH");
	check(resolve_command_in("sh", getenv("PATH"), buf, sizeof buf, &why) == 0,
	      "resolve_command_in('sh') without PATH: %s", why);
	if (old_path) {
		setenv("PATH", old_path, 1);
		free(old_path);
	}
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	scratch_make("test_pathsearch");
	test_resolve();
	harness_remove_tree(scratch);
	return tally_finish(&tally, "test_pathsearch");
}
