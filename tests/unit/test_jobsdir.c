/* SPDX-License-Identifier: MIT */
/* test_jobsdir: run-parts' rule for the files of a --jobs directory: the
 * names kept and passed over, byte order, regular files and links to one;
 * a crontab spool's rule (--user-crontabs). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "jobsdir.h"

static void test_names(void)
{
	static const char *const ok[] = { "e2scrub_all", "php", "A-Z_0-9", "x", "-", "_" };
	static const char *const passed_over[] = {
		"",
		".",
		"..",
		"..data",
		"..2024_01_01_00_00_00.123",
		"x~",
		"x.dpkg-old",
		"x.dpkg-dist",
		".hidden",
		"a b",
		"caf\xc3\xa9",
		"x.sh",
		"#x#",
		"x\n",
	};

	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		check(jobsdir_name_ok(ok[i]), "'%s' passed over", ok[i]);
	for (size_t i = 0; i < sizeof passed_over / sizeof *passed_over; i++)
		check(!jobsdir_name_ok(passed_over[i]), "'%s' kept", passed_over[i]);
}

static void test_filter(void)
{
	struct jobsdir_entry e[] = {
		{ "php", true }, { "..data", true },  { "B", true },  { "a", true },
		{ "x~", true },  { "sub", false },    { "_z", true }, { "-1", true },
		{ "Z", true },   { "0hourly", true },
	};
	/* Byte order: '-' < digits < upper case < '_' < lower case. */
	static const char *const want[] = { "-1", "0hourly", "B", "Z", "_z", "a", "php" };
	size_t n = jobsdir_filter(e, sizeof e / sizeof *e);

	check(n == sizeof want / sizeof *want, "kept %zu", n);
	for (size_t i = 0; i < n && i < sizeof want / sizeof *want; i++)
		check(strcmp(e[i].name, want[i]) == 0, "%zu: got '%s', want '%s'", i, e[i].name,
		      want[i]);
	check(jobsdir_filter(e, 0) == 0, "empty");
}

static void touch(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

static void test_list(void)
{
	char dir[] = "/tmp/test_jobsdir.XXXXXX", path[512], err[512] = "";
	char **paths = NULL;
	size_t n = 99;

	if (!mkdtemp(dir)) {
		check(0, "mkdtemp");
		return;
	}
	touch(dir, "b");
	touch(dir, "a");
	touch(dir, "x~");
	touch(dir, "x.dpkg-old");
	snprintf(path, sizeof path, "%s/..2024", dir);
	mkdir(path, 0755);
	touch(path, "c");
	/* A ConfigMap: "c" -> "..data/c", "..data" -> the timestamped folder. */
	snprintf(path, sizeof path, "%s/..data", dir);
	check(symlink("..2024", path) == 0, "symlink ..data");
	snprintf(path, sizeof path, "%s/c", dir);
	check(symlink("..data/c", path) == 0, "symlink c");
	snprintf(path, sizeof path, "%s/dangling", dir);
	check(symlink("nowhere", path) == 0, "symlink dangling");
	snprintf(path, sizeof path, "%s/subdir", dir);
	mkdir(path, 0755);

	check(jobsdir_list(dir, &paths, &n, err, sizeof err) == 0, "list: %s", err);
	check(n == 3, "got %zu paths", n);
	for (size_t i = 0; paths && i < n && i < 3; i++) {
		snprintf(path, sizeof path, "%s/%c", dir, "abc"[i]);
		check(strcmp(paths[i], path) == 0, "%zu: got '%s', want '%s'", i, paths[i], path);
	}
	check(paths && !paths[n], "not NULL-terminated");
	jobsdir_free(paths);

	snprintf(path, sizeof path, "%s/missing", dir);
	check(jobsdir_list(path, &paths, &n, err, sizeof err) == -1, "a missing dir listed");
	check(strstr(err, "--jobs '") == err && strstr(err, "No such file"), "err: %s", err);

	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	check(system(path) == 0, "cleanup");
}

static void test_spool_names(void)
{
	static const char *const ok[] = { "alice", "first.last", "svc$", "a-b_c", "x.sh" };
	static const char *const passed_over[] = {
		"", ".", "..", ".hidden", "tmp.XXXXab", "tmp.1234", "alice~",
	};

	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		check(jobsdir_spool_name_ok(ok[i]), "spool: '%s' passed over", ok[i]);
	for (size_t i = 0; i < sizeof passed_over / sizeof *passed_over; i++)
		check(!jobsdir_spool_name_ok(passed_over[i]), "spool: '%s' kept", passed_over[i]);
}

/* A spool: users' names with dots kept, crontab(1)'s temporary file not;
 * links listed (the loader names and refuses them). */
static void test_list_spool(void)
{
	char dir[] = "/tmp/test_jobsdir.XXXXXX", path[512], err[512] = "";
	static const char *const want[] = { "a.b", "c", "link" };
	char **paths = NULL;
	size_t n = 99;

	if (!mkdtemp(dir)) {
		check(0, "mkdtemp");
		return;
	}
	touch(dir, "c");
	touch(dir, "a.b");
	touch(dir, "tmp.XXXXab");
	touch(dir, ".hidden");
	snprintf(path, sizeof path, "%s/link", dir);
	check(symlink("c", path) == 0, "symlink link");
	snprintf(path, sizeof path, "%s/sub", dir);
	mkdir(path, 0755);
	check(jobsdir_list_spool(dir, &paths, &n, err, sizeof err) == 0, "list: %s", err);
	check(n == 3, "got %zu paths", n);
	for (size_t i = 0; paths && i < n && i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, want[i]);
		check(strcmp(paths[i], path) == 0, "%zu: got '%s', want '%s'", i, paths[i], path);
	}
	jobsdir_free(paths);
	snprintf(path, sizeof path, "%s/missing", dir);
	check(jobsdir_list_spool(path, &paths, &n, err, sizeof err) == -1, "a missing dir listed");
	check(strstr(err, "--user-crontabs '") == err, "err: %s", err);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	check(system(path) == 0, "cleanup");
}

int main(void)
{
	test_names();
	test_filter();
	test_list();
	test_spool_names();
	test_list_spool();
	return tally_finish(&tally, "test_jobsdir");
}
