/* SPDX-License-Identifier: MIT */
/* test_jobsread: what a load reads: each file once (a second path to it
 * is a warning), a system crontab root's alone, a user's crontab the
 * user's alone, a last line without newline cut off (a host's cron's, or
 * one a writer still holds open), a file a host's cron cannot take
 * passed over, and a record for every file, passed over or not, so that a
 * chmod alone is a change. */
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
	struct jobs_from from = { .paths = paths, .npaths = 4, .system = true };
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
		      strstr(body, "/a', read once"),
	      "twin's record: '%s'", body);
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
	struct jobs_from from = { .user_crontabs = spool };
	struct loaded l = { 0 };
	struct passwd *pw = getpwuid(geteuid());
	char err[512] = "";
	const char *body = "";

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
				      strcmp(body, "no such user 'tfa-no-such-user'") == 0,
			      "'%s'", body);
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
				      strstr(body, "mode 0640"),
			      "0640: '%s'", body);
	loaded_free(&l);
}

/* The warnings of L as one string ("" for none). */
static const char *warnings_of(const struct loaded *l)
{
	return l->warnings.text.s ? l->warnings.text.s : "";
}

/* A host's cron passes over a file it cannot take, as cron does, where a
 * plain --jobs refuses the load; a --jobs PATH that is not there is still
 * an error. */
static void test_host_passes_over(const char *dir)
{
	char big[512], fifo[512], ok[512], missing[512];
	char *paths[] = { big, fifo, ok };
	struct jobs_from host = { .paths = paths, .npaths = 3, .system = true };
	struct jobs_from plain = { .paths = paths, .npaths = 3 };
	struct loaded l = { 0 };
	char err[512] = "";
	const char *body = "";
	int fd;

	snprintf(big, sizeof big, "%s/big", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	snprintf(ok, sizeof ok, "%s/ok", dir);
	snprintf(missing, sizeof missing, "%s/missing", dir);
	/* One byte over the limit, as a hole: refused by its size, unread. */
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd >= 0 && ftruncate(fd, (off_t)JOBS_FILE_MAX + 1) == 0, "big");
	if (fd >= 0)
		close(fd);
	check(mkfifo(fifo, 0644) == 0, "mkfifo");
	write_file(dir, "ok", "@reboot root echo ok\n", 0644);
	check(jobs_read_files(&plain, &l, err, sizeof err) == -1 &&
		      strstr(err, "/big': too large: more than 16777216 bytes"),
	      "plain: '%s'", err);
	loaded_free(&l);
	check(jobs_read_files(&host, &l, err, sizeof err) == 0, "host: %s", err);
	check(l.nfiles == 3 && l.files[0].skipped && l.files[1].skipped && !l.files[2].skipped,
	      "host: which were passed over");
	check(strcmp(record(&l, 0, &body), "-") == 0 &&
		      strcmp(body, "too large: more than 16777216 bytes") == 0,
	      "big: '%s'", body);
	check(strcmp(record(&l, 1, &body), "-") == 0 &&
		      strcmp(body, "a FIFO, not a regular file") == 0,
	      "fifo: '%s'", body);
	check(strstr(warnings_of(&l), "/big: not loaded: too large: more than 16777216 bytes\n") &&
		      strstr(warnings_of(&l), "/fifo: not loaded: a FIFO, not a regular file\n"),
	      "warnings: %s", warnings_of(&l));
	loaded_free(&l);
	/* A --jobs PATH mistyped is said at start, host or not. */
	paths[0] = missing;
	check(jobs_read_files(&host, &l, err, sizeof err) == -1 &&
		      strstr(err, "/missing': No such file or directory"),
	      "missing: '%s'", err);
	loaded_free(&l);
	unlink(big);
	unlink(fifo);
}

/* A file a writer still holds open (HELD): its last line without a
 * newline is not read, in a plain --jobs file too. */
static void test_held_open(const char *dir)
{
	char jobs[512], other[512];
	char *paths[] = { jobs, other };
	char *held[] = { jobs, NULL };
	struct jobs_from from = { .paths = paths, .npaths = 2 };
	struct loaded l = { 0 };
	char err[512] = "";
	const char *body = "";

	snprintf(jobs, sizeof jobs, "%s/half", dir);
	snprintf(other, sizeof other, "%s/other", dir);
	write_file(dir, "half", "--name a -- /bin/true\n--name b -- /bin/rm -rf /srv/da", 0644);
	write_file(dir, "other", "--name c -- /bin/true", 0644);
	check(jobs_read_files(&from, &l, err, sizeof err) == 0, "read: %s", err);
	check(strcmp(record(&l, 0, &body), "53") == 0, "not held: cut");
	loaded_free(&l);
	from.held = held;
	check(jobs_read_files(&from, &l, err, sizeof err) == 0, "read: %s", err);
	check(strcmp(record(&l, 0, &body), "22") == 0, "held: not cut: '%s'", record(&l, 0, &body));
	/* The other file, not held, keeps its last line. */
	check(strcmp(record(&l, 1, &body), "21") == 0, "other: cut");
	check(strstr(warnings_of(&l), "/half:2: not loaded: the file is still open for writing "
				      "and this last line has no newline yet\n") != NULL,
	      "warnings: %s", warnings_of(&l));
	loaded_free(&l);
}

/* A link not root's is said to be that, before it is said to reach a
 * file that another link reaches too. */
static void test_owner_rule_first(const char *dir)
{
	char target[512], root_link[512], user_link[512];
	char *paths[] = { root_link, user_link };
	struct jobs_from from = { .paths = paths, .npaths = 2, .system = true };
	struct loaded l = { 0 };
	char err[512] = "";
	const char *body = "";

	if (geteuid() != 0)
		return;
	write_file(dir, "target", "@reboot root echo t\n", 0644);
	snprintf(target, sizeof target, "%s/target", dir);
	snprintf(root_link, sizeof root_link, "%s/rootlink", dir);
	snprintf(user_link, sizeof user_link, "%s/userlink", dir);
	check(symlink(target, root_link) == 0 && symlink(target, user_link) == 0 &&
		      lchown(user_link, 65534, 65534) == 0,
	      "links");
	check(jobs_read_files(&from, &l, err, sizeof err) == 0, "read: %s", err);
	check(l.nfiles == 2 && !l.files[0].skipped && l.files[1].skipped, "skipped");
	check(strcmp(record(&l, 1, &body), "-") == 0 &&
		      strcmp(body, "a symbolic link not owned by root (uid 65534)") == 0,
	      "user link: '%s'", body);
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
	test_host_passes_over(dir);
	test_held_open(dir);
	test_owner_rule_first(dir);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	check(system(cmd) == 0, "cleanup");
	return tally_finish(&tally, "test_jobsread");
}
