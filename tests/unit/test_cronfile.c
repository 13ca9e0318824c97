/* SPDX-License-Identifier: MIT */
/* test_cronfile: the checks cron makes on a crontab before loading it: a
 * system crontab root's alone, a user's crontab the user's alone, a last
 * line without newline cut off. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cronfile.h"
#include "harness.h"
#include "tsv.h"

static void expect_why(const char *got, const char *want, int line)
{
	tally_check(&tally, want ? got && strcmp(got, want) == 0 : !got, __FILE__, line,
		    "got '%s', want '%s'", got ? got : "(loads)", want ? want : "(loads)");
}

static void test_system_mode(void)
{
	char buf[128];

	expect_why(cronfile_system_mode_why(S_IFREG | 0644, 0, buf, sizeof buf), NULL, __LINE__);
	expect_why(cronfile_system_mode_why(S_IFREG | 0600, 0, buf, sizeof buf), NULL, __LINE__);
	/* Writable by its owner only; readable by all is fine, as in cron. */
	expect_why(cronfile_system_mode_why(S_IFREG | 0664, 0, buf, sizeof buf),
		   "writable by group", __LINE__);
	expect_why(cronfile_system_mode_why(S_IFREG | 0646, 0, buf, sizeof buf),
		   "writable by others", __LINE__);
	expect_why(cronfile_system_mode_why(S_IFREG | 0644, 1000, buf, sizeof buf),
		   "not owned by root (uid 1000)", __LINE__);
	/* The owner first: chmod is the owner's to undo. */
	expect_why(cronfile_system_mode_why(S_IFREG | 0666, 1000, buf, sizeof buf),
		   "not owned by root (uid 1000)", __LINE__);
}

static void test_user_mode(void)
{
	char buf[128];

	expect_why(cronfile_user_mode_why(S_IFREG | 0600, 1000, 1000, "alice", buf, sizeof buf),
		   NULL, __LINE__);
	expect_why(cronfile_user_mode_why(S_IFREG | 0400, 1000, 1000, "alice", buf, sizeof buf),
		   NULL, __LINE__);
	/* Any permission for group or others: read too (crontab(1) writes 0600). */
	expect_why(cronfile_user_mode_why(S_IFREG | 0640, 1000, 1000, "alice", buf, sizeof buf),
		   "mode 0640 gives group or others access (crontab(1) writes 0600)", __LINE__);
	expect_why(cronfile_user_mode_why(S_IFREG | 0601, 1000, 1000, "alice", buf, sizeof buf),
		   "mode 0601 gives group or others access (crontab(1) writes 0600)", __LINE__);
	expect_why(cronfile_user_mode_why(S_IFREG | 0600, 0, 1000, "alice", buf, sizeof buf),
		   "not owned by 'alice' (uid 0, not 1000)", __LINE__);
}

static void expect_cut(const char *text, size_t want_len, unsigned want_line, int line)
{
	unsigned got_line = 99;
	size_t got = cronfile_whole_lines(text, strlen(text), &got_line);

	tally_check(&tally, got == want_len && got_line == want_line, __FILE__, line,
		    "'%s': got %zu bytes (line %u), want %zu (line %u)", text, got, got_line,
		    want_len, want_line);
}

static void test_whole_lines(void)
{
	expect_cut("", 0, 0, __LINE__);
	expect_cut("a\n", 2, 0, __LINE__);
	expect_cut("a\nb\n", 4, 0, __LINE__);
	/* The unended line is cut, and named when it holds more than blanks. */
	expect_cut("a\nb", 2, 2, __LINE__);
	expect_cut("a\n\nrm -rf /srv/da", 3, 3, __LINE__);
	expect_cut("half", 0, 1, __LINE__);
	expect_cut("a\n \t", 2, 0, __LINE__);
	expect_cut("a\r\nb\r", 3, 2, __LINE__);
}

int main(void)
{
	test_system_mode();
	test_user_mode();
	test_whole_lines();
	return tally_finish(&tally, "test_cronfile");
}
