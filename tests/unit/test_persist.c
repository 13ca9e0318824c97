/* SPDX-License-Identifier: MIT */
/* Unit tests for persist and atomic_file: the strict reading of a stamp,
 * the checks before arming, the replacement through a temporary with an
 * unpredictable name (watched with inotify), planted symlinks and FIFOs,
 * and write failures (a full or read-only tmpfs, no descriptors left). */
#include "atomic_file.h"
#include "harness.h"
#include "persist.h"
#include "timens.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test_persist.XXXXXX";

/* Helpers */

static void put_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* The whole file into BUF (NUL-terminated); its length, or -1. */
static ssize_t get_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The names in DIR, sorted and joined with ' '. */
static const char *listing(const char *dir)
{
	static char out[2048];
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
			if (out[0])
				strncat(out, " ", sizeof out - strlen(out) - 1);
			strncat(out, list[i]->d_name, sizeof out - strlen(out) - 1);
		}
		free(list[i]);
	}
	free(list);
	return out;
}

static const char *fresh_dir(const char *name)
{
	const char *dir = harness_path(name);

	harness_remove_tree(dir);
	if (mkdir(dir, 0755) != 0) {
		perror(dir);
		exit(1);
	}
	return dir;
}

/* Reading */

struct stamp_case {
	const char *text;
	size_t len;      /* 0: strlen(text) */
	int want;        /* persist_read's return */
	int64_t wall_ns; /* when want is 1 */
};

static void test_read_cases(void)
{
	static char long_line[80];
	const struct stamp_case cases[] = {
		{ "1796300000.000000000\n", 0, 1, INT64_C(1796300000000000000) },
		{ "1796292001.000123456\n", 0, 1, INT64_C(1796292001000123456) },
		{ "0.000000000\n", 0, 1, 0 },
		{ "9223372036.854775807\n", 0, 1, INT64_MAX },
		/* Issue 11, item 15: a NUL and garbage after the stamp. */
		{ "1796300000.000000000\0garbage", 28, -2, 0 },
		{ "1796300000.000000000\n\0", 22, -2, 0 },
		{ long_line, 0, -2, 0 },
		{ "", 0, -2, 0 },
		{ "garbage\n", 0, -2, 0 },
		{ "1796286515\n", 0, -2, 0 },
		{ "1796286515.000000000", 0, -2, 0 },
		{ "1796286515.000000000 extra\n", 0, -2, 0 },
		{ "1796286515.000000000\n\n", 0, -2, 0 },
		{ "1796286515.000000000\r\n", 0, -2, 0 },
		{ "1796286515.000000000\nx", 0, -2, 0 },
		{ "1796286515.00000000\n", 0, -2, 0 },
		{ "1796286515.0000000000\n", 0, -2, 0 },
		{ "01796286515.000000000\n", 0, -2, 0 },
		{ "00.000000000\n", 0, -2, 0 },
		{ "+1796286515.000000000\n", 0, -2, 0 },
		{ "-1.000000000\n", 0, -2, 0 },
		{ " 1796286515.000000000\n", 0, -2, 0 },
		{ ".000000000\n", 0, -2, 0 },
		{ "1796286515.00000000a\n", 0, -2, 0 },
		{ "9223372036.854775808\n", 0, -2, 0 },
		{ "9223372037.000000000\n", 0, -2, 0 },
		{ "99999999999999999999.000000000\n", 0, -2, 0 },
	};
	const char *path = harness_path("stamp");
	char before[128], after[128], err[512];
	struct stat st0, st1;

	/* A 63-byte line, then garbage (issue 11, item 15). */
	memset(long_line, '1', 52);
	memcpy(long_line + 52, ".000000000\n", 11);
	strcpy(long_line + 63, "garbage");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct stamp_case *c = &cases[i];
		size_t len = c->len ? c->len : strlen(c->text);
		int64_t wall = -1;
		int got;

		put_file(path, c->text, len);
		stat(path, &st0);
		get_file(path, before, sizeof before);
		err[0] = '\0';
		got = persist_read(path, &wall, err, sizeof err);
		check(got == c->want, "case %zu '%.*s': persist_read %d, want %d (%s)", i, (int)len,
		      c->text, got, c->want, err);
		if (c->want == 1)
			check(wall == c->wall_ns, "case %zu: %lld, want %lld", i, (long long)wall,
			      (long long)c->wall_ns);
		else
			check(strstr(err, "corrupt") && strstr(err, path), "case %zu: message '%s'",
			      i, err);
		/* A corrupt file is left as it is. */
		stat(path, &st1);
		/* clang-format off */
		check(st0.st_ino == st1.st_ino && st0.st_size == st1.st_size &&
		      get_file(path, after, sizeof after) == (ssize_t)(len < 127 ? len : 127) &&
		      memcmp(before, after, len < 127 ? len : 127) == 0,
		      "case %zu: the file changed", i);
		/* clang-format on */
	}
}

/* What persist_write writes, persist_read reads back exactly. */
static void test_round_trip(void)
{
	const int64_t values[] = {
		0, 1, 999999999, NSEC_PER_SEC, INT64_C(1796292001000123456), INT64_MAX
	};
	const char *path = harness_path("round");
	char err[512], text[64];

	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		int64_t back = -1;
		int w = persist_write(path, values[i], err, sizeof err);
		int r = persist_read(path, &back, err, sizeof err);

		check(w == 0 && r == 1 && back == values[i],
		      "round trip of %lld: write %d, read %d, %lld (%s)", (long long)values[i], w,
		      r, (long long)back, err);
	}
	persist_write(path, INT64_C(1796292001000123456), err, sizeof err);
	get_file(path, text, sizeof text);
	check(strcmp(text, "1796292001.000123456\n") == 0, "file text '%s'", text);
	check(strcmp(listing(tmpdir), "round stamp") == 0, "a temporary was left: %s",
	      listing(tmpdir));
	unlink(path);
}

static void test_read_not_a_file(void)
{
	const char *dir = fresh_dir("notfile");
	char path[600], err[512] = "";
	int64_t wall = -1;
	int got;

	snprintf(path, sizeof path, "%s/missing", dir);
	check(persist_read(path, &wall, err, sizeof err) == 0, "missing file: not 0");
	check(persist_read(dir, &wall, err, sizeof err) == -1 && strstr(err, "not a regular file"),
	      "directory: '%s'", err);
	/* A FIFO must not hang the read (issue 11, item 14). */
	snprintf(path, sizeof path, "%s/fifo", dir);
	mkfifo(path, 0644);
	err[0] = '\0';
	got = persist_read(path, &wall, err, sizeof err);
	check(got == -1 && strstr(err, "not a regular file") && strstr(err, path), "FIFO: %d '%s'",
	      got, err);
	harness_remove_tree(dir);
}

/* Checks before arming */

struct check_case {
	const char *name; /* below the case directory; "" as it is */
	int want;
	const char *says; /* in the message */
};

static void make_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "test_persist: socket path too long: %s\n", path);
		exit(1);
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
		perror("socket");
	if (fd >= 0)
		close(fd);
}

static void test_check_path(void)
{
	const char *dir = fresh_dir("check");
	const struct check_case cases[] = {
		{ "new", 0, NULL },
		{ "file", 0, NULL },
		{ "link-to-file", 0, NULL },
		{ "", -1, "an empty file name" },
		{ "sub", -1, "a directory, not a file" },
		{ "sub/", -1, "a directory, not a file" },
		{ "fifo", -1, "a FIFO" },
		{ "link-to-fifo", -1, "a FIFO" },
		{ "sock", -1, "a socket" },
		{ "/dev/null", -1, "a device" },
		{ "nodir/x", -1, "no such directory" },
		{ "file/x", -1, "is not a directory" },
		{ "nodir/", -1, "no such directory" },
	};
	char path[600], err[512];

	snprintf(path, sizeof path, "%s/file", dir);
	put_file(path, "x", 1);
	snprintf(path, sizeof path, "%s/sub", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/fifo", dir);
	mkfifo(path, 0644);
	snprintf(path, sizeof path, "%s/sock", dir);
	make_socket(path);
	snprintf(path, sizeof path, "%s/link-to-file", dir);
	symlink("file", path);
	snprintf(path, sizeof path, "%s/link-to-fifo", dir);
	symlink("fifo", path);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct check_case *c = &cases[i];
		int got;

		if (!*c->name || c->name[0] == '/')
			snprintf(path, sizeof path, "%s", c->name);
		else
			snprintf(path, sizeof path, "%s/%s", dir, c->name);
		err[0] = '\0';
		got = persist_check_path(path, err, sizeof err);
		check(got == c->want, "check '%s': %d, want %d (%s)", c->name, got, c->want, err);
		if (c->says) {
			char quoted[620];

			snprintf(quoted, sizeof quoted, "--persist '%s': ", path);
			check(strncmp(err, quoted, strlen(quoted)) == 0 && strstr(err, c->says),
			      "check '%s': message '%s'", c->name, err);
			check(!strchr(err, '\n'), "check '%s': not one line", c->name);
		}
	}
	/* A name without a directory is in the working directory. */
	check(persist_check_path("no-such-file-here", err, sizeof err) == 0, "a bare name: %s",
	      err);
	harness_remove_tree(dir);
}

/* Temporary names */

/* Collects, with inotify, the names created in DIR while persist_write
 * replaces FILE there ROUNDS times. */
static int created_names(const char *dir, const char *file, int rounds, char names[][64], int max)
{
	char path[600], buf[8192] __attribute__((aligned(8))), err[512];
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), count = 0;
	ssize_t n;

	if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE) < 0) {
		perror("inotify");
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s", dir, file);
	for (int k = 0; k < rounds; k++)
		if (persist_write(path, INT64_C(1796300000000000000) + k, err, sizeof err) != 0)
			check(0, "persist_write: %s", err);
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && count < max)
				snprintf(names[count++], 64, "%s", ev->name);
			p += sizeof *ev + ev->len;
		}
	}
	close(fd);
	return count;
}

/* Issue 11, item 13: the temporary is a new name each time, not derived
 * from the pid or the file's name, and never one node_exporter reads. */
static void test_temp_names(void)
{
	const char *dir = fresh_dir("names");
	char names[40][64], pid[32];
	int n = created_names(dir, "stamp", 40, names, 40);

	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	check(n == 40, "%d temporaries seen for 40 writes", n);
	for (int i = 0; i < n; i++) {
		check(strncmp(names[i], ".tfd.", 5) == 0 && strlen(names[i]) == 17,
		      "temporary name '%s'", names[i]);
		check(!strstr(names[i], pid) && !strstr(names[i], "stamp") &&
			      !strstr(names[i], ".prom"),
		      "predictable name '%s'", names[i]);
		for (int j = 0; j < i; j++)
			check(strcmp(names[i], names[j]) != 0, "name '%s' twice", names[i]);
	}
	check(strcmp(listing(dir), "stamp") == 0, "left in the directory: %s", listing(dir));
	harness_remove_tree(dir);
}

/* A symlink planted at every name an attacker could predict (the pid-based
 * name tfd 0.1 used, the file's own name with common suffixes) is never
 * followed: the targets stay as they were, and FILE itself, a symlink, is
 * replaced by a regular file rather than written through. */
static void test_planted_symlinks(void)
{
	const char *dir = fresh_dir("planted");
	const char *suffixes[] = { ".tmp", "~", ".new", ".swp", ".tmp0", ".tmp1" };
	char path[600], link[700], victim[600], text[64], err[512];
	struct stat st;

	snprintf(victim, sizeof victim, "%s/victim", dir);
	put_file(victim, "precious\n", 9);
	snprintf(path, sizeof path, "%s/stamp", dir);
	for (long p = getpid() - 50; p < getpid() + 50; p++) {
		snprintf(link, sizeof link, "%s.tmp%ld", path, p);
		symlink(victim, link);
	}
	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
		snprintf(link, sizeof link, "%s%s", path, suffixes[i]);
		symlink(victim, link);
		snprintf(link, sizeof link, "%s/.stamp%s", dir, suffixes[i]);
		symlink(victim, link);
	}
	symlink("victim", path);
	check(persist_write(path, INT64_C(1796300000000000000), err, sizeof err) == 0,
	      "write beside planted links: %s", err);
	check(get_file(victim, text, sizeof text) == 9 && strcmp(text, "precious\n") == 0,
	      "the victim was written: '%s'", text);
	check(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "FILE is not a regular file now");
	check(get_file(path, text, sizeof text) > 0 && strcmp(text, "1796300000.000000000\n") == 0,
	      "FILE holds '%s'", text);
	harness_remove_tree(dir);
}

/* Write failures */

static void check_failure(const char *what, int rc, const char *err, const char *call,
			  const char *name, const char *message)
{
	char head[700];

	snprintf(head, sizeof head, "%s '%s': %s", call, name, message);
	check(rc == -1 && strcmp(err, head) == 0, "%s: %d '%s', want '%s'", what, rc, err, head);
}

/* Neither the temporary nor a half-written file is left after a failed
 * rename, and the error names the call. */
static void test_rename_failure(void)
{
	const char *dir = fresh_dir("rename");
	char path[600], inner[700], err[512];
	int rc;

	/* A non-empty directory cannot be renamed over (past the checks, as
	 * when it appears after them). */
	snprintf(path, sizeof path, "%s/stamp", dir);
	mkdir(path, 0755);
	snprintf(inner, sizeof inner, "%s/keep", path);
	put_file(inner, "x", 1);
	rc = persist_write(path, 1, err, sizeof err);
	check_failure("rename over a directory", rc, err, "rename", path, strerror(EISDIR));
	check(strcmp(listing(dir), "stamp") == 0, "left after a failed rename: %s", listing(dir));
	/* A missing directory. */
	snprintf(path, sizeof path, "%s/nodir/stamp", dir);
	rc = persist_write(path, 1, err, sizeof err);
	check_failure("missing directory", rc, err, "open", path, strerror(ENOENT));
	harness_remove_tree(dir);
}

/* Issue 11, item 16: EMFILE when tfd runs out of descriptors. */
static void test_no_descriptors(void)
{
	const char *dir = fresh_dir("emfile");
	char path[600], err[512];
	struct rlimit old, low;
	int fds[64], n = 0, rc;

	snprintf(path, sizeof path, "%s/stamp", dir);
	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = 16;
	setrlimit(RLIMIT_NOFILE, &low);
	while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	rc = persist_write(path, 1, err, sizeof err);
	while (n > 0)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &old);
	check_failure("no descriptors", rc, err, "open", path, strerror(EMFILE));
	check(strcmp(listing(dir), "") == 0, "left: %s", listing(dir));
	harness_remove_tree(dir);
}

/* A tmpfs of one page in a mount namespace of this process's own (so that
 * nothing is left mounted if the test dies): full, then read-only. */
static int private_tmpfs(const char *dir)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=4k,mode=0755") != 0) {
		printf("test_persist: skipped the tmpfs cases: %s (needs root)\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void test_full_and_read_only(void)
{
	const char *dir = fresh_dir("tmpfs");
	char path[600], text[64], err[512];
	int rc;

	if (private_tmpfs(dir) != 0) {
		harness_remove_tree(dir);
		return;
	}
	snprintf(path, sizeof path, "%s/stamp", dir);
	check(persist_write(path, INT64_C(1796300000000000000), err, sizeof err) == 0,
	      "first write on the tmpfs: %s", err);
	/* The stamp holds the only page: the temporary's write has none. */
	rc = persist_write(path, INT64_C(1796300001000000000), err, sizeof err);
	check_failure("full tmpfs", rc, err, "write", path, strerror(ENOSPC));
	check(strcmp(listing(dir), "stamp") == 0, "left on the full tmpfs: %s", listing(dir));
	check(get_file(path, text, sizeof text) > 0 && strcmp(text, "1796300000.000000000\n") == 0,
	      "the old stamp is gone: '%s'", text);
	/* Room again once the old stamp is gone. */
	unlink(path);
	check(persist_write(path, 1, err, sizeof err) == 0, "write after freeing: %s", err);
	if (mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0) {
		rc = persist_write(path, 2, err, sizeof err);
		check_failure("read-only tmpfs", rc, err, "open", path, strerror(EROFS));
	}
	umount2(dir, MNT_DETACH);
	harness_remove_tree(dir);
}

int main(void)
{
	harness_start(tmpdir, 60);
	test_read_cases();
	test_round_trip();
	test_read_not_a_file();
	test_check_path();
	test_temp_names();
	test_planted_symlinks();
	test_rename_failure();
	test_no_descriptors();
	test_full_and_read_only();
	harness_remove_tree(tmpdir);
	return tally_finish(&tally, "persist");
}
