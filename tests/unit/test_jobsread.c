/* SPDX-License-Identifier: MIT */
/* test_jobsread: what a load reads: each file once (a second path to it
 * is a warning), a system crontab root's alone, a user's crontab the
 * user's alone, a last line without newline cut off, and a record for
 * every file, passed over or not, so that a chmod alone is a change. */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobsread.h"
#include "harness.h"
#include "tsv.h"

static void write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[512];
	int fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		check(0, "write %s", path);
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
}

/* The record of file I in L's buffer: its head ("LEN" or "-") and body. */
static const char *record(const struct loaded *l, size_t i, const char **body)
{
	const char *p = l->text.s;

	for (size_t k = 0;; k++) {
		const char *head = p + strlen(p) + 1, *text = head + strlen(head) + 1;
		size_t len = head[0] == '-' ? strlen(text) + 1 : (size_t)strtoull(head, NULL, 10);

		if (k == i) {
			*body = text;
			return head;
		}
		p = text + len;
	}
}

static void test_system(const char *dir)
{
	char a[512], b[512], twin[512], half[512];
	char *paths[4];
	struct jobs_from from = { paths, 4, true, NULL };
	struct loaded l = { 0 };
	char err[512] = "";
	const char *body, *head;

	write_file(dir, "a", "@reboot root echo a\n", 0644);
	write_file(dir, "b", "@reboot root echo b\n", 0664);
	write_file(dir, "half", "@reboot root echo whole\n@reboot root echo ha", 0644);
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	snprintf(twin, sizeof twin, "%s/./a", dir);
	snprintf(half, sizeof half, "%s/half", dir);
	paths[0] = a;
	paths[1] = b;
	paths[2] = twin;
	paths[3] = half;
	check(jobs_read_files(&from, &l, err, sizeof err) == 0, "read: %s", err);
	check(l.nfiles == 4, "%zu files", l.nfiles);
	if (l.nfiles != 4) {
		loaded_free(&l);
		return;
	}
	check(!l.files[0].skipped, "a passed over");
	head = record(&l, 0, &body);
	check(strcmp(head, "20") == 0 && strncmp(body, "@reboot root echo a\n", 20) == 0,
	      "a's record: '%s'", head);
	/* Root's own, but writable by group (as root; another's as not). */
	check(l.files[1].skipped, "b loaded");
	head = record(&l, 1, &body);
	check(strcmp(head, "-") == 0 && (strcmp(body, "writable by group") == 0 ||
					   (geteuid() != 0 && strstr(body, "not owned by root"))),
	      "b's record: '%s' '%s'", head, body);
	check(l.files[2].skipped, "a read twice");
	head = record(&l, 2, &body);
	check(strcmp(head, "-") == 0 && strstr(body, "the same file as '") &&
	      strstr(body, "/a', read once"), "twin's record: '%s'", body);
	if (geteuid() == 0) {
		/* The unended line is cut: only the whole one is read. */
		head = record(&l, 3, &body);
		check(strcmp(head, "24") == 0, "half's record: '%s'", head);
		check(l.warnings.text.s &&
			      strstr(l.warnings.text.s,
				     "/half:2: not loaded: the last line has no newline"),
		      "warnings: %s", l.warnings.text.s ? l.warnings.text.s : "");
	}
	loaded_free(&l);
}

static void test_spool(const char *dir)
{
	char spool[512];
	struct jobs_from from = { NULL, 0, false, spool };
	struct loaded l = { 0 };
	struct passwd *pw = getpwuid(geteuid());
	char err[512] = "";
	const char *body;

	if (!pw) {
		check(0, "no passwd entry for uid %u", (unsigned)geteuid());
		return;
	}
	snprintf(spool, sizeof spool, "%s/spool", dir);
	mkdir(spool, 0755);
	write_file(spool, pw->pw_name, "0 1 * * * true\n", 0600);
	write_file(spool, "tfa-no-such-user", "0 1 * * * true\n", 0600);
	write_file(spool, "tmp.Ab12", "0 1 * * * true\n", 0600);
	check(jobs_read_files(&from, &l, err, sizeof err) == 0, "read: %s", err);
	/* In byte order; crontab(1)'s temporary file is passed over. */
	check(l.nfiles == 2, "%zu files", l.nfiles);
	for (size_t i = 0; i < l.nfiles; i++) {
		const char *head = record(&l, i, &body);

		if (strcmp(l.files[i].user, pw->pw_name) == 0)
			check(!l.files[i].skipped && strcmp(head, "15") == 0, "own: '%s'", head);
		else
			check(l.files[i].skipped &&
			      strcmp(body, "no such user 'tfa-no-such-user'") == 0, "'%s'", body);
	}
	check(l.unknown.n == 1 && strcmp(l.unknown.v[0], "tfa-no-such-user") == 0,
	      "unknown users: %zu", l.unknown.n);
	loaded_free(&l);
	/* Open to the group: passed over. */
	write_file(spool, pw->pw_name, "0 1 * * * true\n", 0640);
	write_file(spool, "tfa-no-such-user", "", 0600);
	check(jobs_read_files(&from, &l, err, sizeof err) == 0, "read: %s", err);
	for (size_t i = 0; i < l.nfiles; i++)
		if (strcmp(l.files[i].user, pw->pw_name) == 0)
			check(l.files[i].skipped && strcmp(record(&l, i, &body), "-") == 0 &&
			      strstr(body, "mode 0640"), "0640: '%s'", body);
	loaded_free(&l);
}

int main(void)
{
	char dir[] = "/tmp/test_jobsread.XXXXXX", cmd[600];

	if (!mkdtemp(dir)) {
		check(0, "mkdtemp");
		return tally_finish(&tally, "test_jobsread");
	}
	test_system(dir);
	test_spool(dir);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	check(system(cmd) == 0, "cleanup");
	return tally_finish(&tally, "test_jobsread");
}
