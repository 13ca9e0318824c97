/* SPDX-License-Identifier: MIT */
/* Unit tests for jobs_file_read, the one read of a jobs file (at start and
 * at every reload): a regular file is read whole up to the limit; more is
 * refused, by its size before reading or by what a read brings when the
 * size says less (a file that grows, a /proc file); a FIFO, a device or a
 * directory is refused without blocking. And for the identity a reload
 * keeps jobs by, as jobs_source_load gives it: a line and the environment
 * it sees, not its line number; and for the default names it gives: bare
 * in one file, SOURCE/WORD numbered within its file wherever more files
 * may be read, a line's hash rather than -2 under --fleet. */
#include "harness.h"
#include "jobtable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test_jobtable.XXXXXX";

/* A file of LEN bytes 'x' at PATH. */
static void put_bytes(const char *path, size_t len)
{
	FILE *f = fopen(path, "w");

	for (size_t i = 0; f && i < len; i++)
		putc('x', f);
	if (!f || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* Reads PATH with limit MAX: the length read, or -1 with the error in ERR. */
static long read_len(const char *path, size_t max, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;

	err[0] = '\0';
	if (jobs_file_read(path, max, &text, &len, err, errlen) != 0)
		return -1;
	free(text);
	return (long)len;
}

/* The error for PATH is exactly "--jobs 'PATH': WHY". */
static void check_refused(const char *path, size_t max, const char *why)
{
	char err[512], want[512];
	long n = read_len(path, max, err, sizeof err);

	snprintf(want, sizeof want, "--jobs '%s': %s", path, why);
	check(n == -1 && strcmp(err, want) == 0, "%s: got %ld '%s', want '%s'", path, n, err,
	      want);
}

static void test_sizes(void)
{
	char err[512];
	long n;

	put_bytes(harness_path("empty"), 0);
	n = read_len(harness_path("empty"), 64, err, sizeof err);
	check(n == 0, "empty: %ld '%s'", n, err);
	put_bytes(harness_path("small"), 10);
	n = read_len(harness_path("small"), 64, err, sizeof err);
	check(n == 10, "10 bytes: %ld '%s'", n, err);
	/* Larger than the first buffer, so that it grows. */
	put_bytes(harness_path("limit"), 100000);
	n = read_len(harness_path("limit"), 100000, err, sizeof err);
	check(n == 100000, "exactly the limit: %ld '%s'", n, err);
	check_refused(harness_path("limit"), 99999, "too large: more than 99999 bytes");
	/* A sparse terabyte: refused by its size at once, none of it read. */
	if (truncate(harness_path("limit"), (off_t)1 << 40) == 0)
		check_refused(harness_path("limit"), JOBS_FILE_MAX,
			      "too large: more than 16777216 bytes");
}

/* A /proc file says size 0 and holds more: what is read counts, and the
 * read stops at the limit. */
static void test_size_says_less(void)
{
	char err[512];
	long n = read_len("/proc/self/maps", 1 << 20, err, sizeof err);

	check(n > 64, "/proc/self/maps read whole: %ld '%s'", n, err);
	check_refused("/proc/self/maps", 64, "too large: more than 64 bytes");
}

static void test_not_regular(void)
{
	char link[600];

	check(mkfifo(harness_path("fifo"), 0600) == 0, "mkfifo: %s", strerror(errno));
	check_refused(harness_path("fifo"), JOBS_FILE_MAX, "a FIFO, not a regular file");
	snprintf(link, sizeof link, "%s", harness_path("link"));
	check(symlink(harness_path("fifo"), link) == 0, "symlink: %s", strerror(errno));
	check_refused(link, JOBS_FILE_MAX, "a FIFO, not a regular file");
	check_refused("/dev/zero", JOBS_FILE_MAX, "a device, not a regular file");
	check_refused(tmpdir, JOBS_FILE_MAX, "a directory, not a file");
	check_refused(harness_path("missing"), JOBS_FILE_MAX, strerror(ENOENT));
	unlink(link);
	unlink(harness_path("fifo"));
}

/* Writes TEXT to PATH. */
static void put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* The table of every --jobs PATH of PATHS (N), loaded as tfd --jobs
 * --dry-run does (with --fleet when FLEET). */
static int load_paths(char **paths, size_t n, bool fleet, struct tz *utc, struct job_table *t)
{
	struct job_options defaults = { 0 };
	struct jobs_source src = {
		.path = paths[0], .paths = paths, .npaths = n, .defaults = &defaults,
		.ctx = { .local = utc, .dry_run = true, .fleet = fleet },
	};
	char err[512];
	int status = 0;

	src.ctx.zones = tz_cache_new();
	if (jobs_source_load(&src, t, true, NULL, NULL, &status, err, sizeof err) != 0) {
		check(0, "load: %s", err);
		t->n = 0;
	}
	tz_cache_free(src.ctx.zones);
	jobs_source_free(&src);
	return (int)t->n;
}

/* The table of the jobs file TEXT, loaded as tfd --jobs --dry-run does. */
static int load(const char *text, struct tz *utc, struct job_table *t)
{
	char path[512], *paths[1] = { path };
	int n;

	snprintf(path, sizeof path, "%s", harness_path("jobs"));
	put_text(path, text);
	n = load_paths(paths, 1, false, utc, t);
	unlink(path);
	return n;
}

/* The jobs' names, joined by spaces, in table order. */
static const char *names_of(const struct job_table *t)
{
	static char buf[1024];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n && used < sizeof buf; i++)
		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "",
					 t->jobs[i]->name);
	return buf;
}

static void check_names(const struct job_table *t, const char *want, const char *what)
{
	check(strcmp(names_of(t), want) == 0, "%s: got '%s', want '%s'", what, names_of(t), want);
}

/* The names of the table of PATHS (N), loaded with --fleet when FLEET,
 * are WANT. */
static void check_loaded_names(char **paths, size_t n, bool fleet, struct tz *utc,
			       const char *want, const char *what)
{
	struct job_table t = { 0 };

	load_paths(paths, n, fleet, utc, &t);
	check_names(&t, want, what);
	job_table_free(&t);
}

static bool same_job(const struct job *a, const struct job *b)
{
	return strcmp(a->identity, b->identity) == 0;
}

static void test_identity(void)
{
	struct tz *utc = tz_load_utc();
	struct job_table a = { 0 }, b = { 0 };

	if (load("A=1\n@daily echo x\n@daily echo y\n--delay 1s -- echo z\n", utc, &a) == 3 &&
	    load("\nA=1\n@daily echo y\n@daily echo x\nA=2\n--delay 1s -- echo z\n", utc,
		 &b) == 3) {
		check(same_job(a.jobs[0], b.jobs[1]), "x moved down a line, the same");
		check(same_job(a.jobs[1], b.jobs[0]), "y moved up, the same");
		check(!same_job(a.jobs[2], b.jobs[2]), "z's environment changed: another job");
		check(!same_job(a.jobs[0], a.jobs[1]), "x is not y");
	}
	job_table_free(&a);
	job_table_free(&b);
	tz_free(utc);
}

/* One --jobs FILE keeps bare names, numbered in its order. */
static void test_names_one_file(void)
{
	struct tz *utc = tz_load_utc();
	struct job_table t = { 0 };

	if (load("@daily echo x\n@daily echo y\n--name echo-2 --delay 1s -- /bin/true\n", utc,
		 &t) == 3)
		check_names(&t, "echo echo-3 echo-2", "one file");
	job_table_free(&t);
	tz_free(utc);
}

/* A directory: SOURCE/WORD, numbered within each file alone, so a file
 * that sorts first renames nothing. */
static void test_names_scoped(void)
{
	struct tz *utc = tz_load_utc();
	char dir[480], a[512], b[512], f[512], *paths[2] = { dir, NULL };

	snprintf(dir, sizeof dir, "%s", harness_path("d"));
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	snprintf(f, sizeof f, "%s", harness_path("f"));
	if (mkdir(dir, 0755) != 0)
		check(0, "mkdir: %s", strerror(errno));
	put_text(b, "@daily echo x\n@daily echo y\n@daily true\n");
	check_loaded_names(paths, 1, false, utc, "b/echo b/echo-2 b/true", "a directory");
	put_text(a, "@hourly echo z\n");
	check_loaded_names(paths, 1, false, utc, "a/echo b/echo b/echo-2 b/true", "a file sorting first");
	/* Two --jobs files: each its own SOURCE, the base name. */
	put_text(f, "@daily echo f\n");
	paths[0] = f;
	paths[1] = b;
	check_loaded_names(paths, 2, false, utc, "f/echo b/echo b/echo-2 b/true", "two files");
	unlink(a);
	unlink(b);
	unlink(f);
	rmdir(dir);
	tz_free(utc);
}

/* --fleet: a default name another line has takes the first four hex
 * digits of the FNV-1a hash of its line as written (computed apart:
 * "@daily echo y" is 67e5..., "@hourly echo z" 0651...), whatever lines
 * come before it; the same line twice falls back to -2. */
static void test_names_fleet(void)
{
	struct tz *utc = tz_load_utc();
	char path[512], *paths[1] = { path };

	snprintf(path, sizeof path, "%s", harness_path("jobs"));
	put_text(path, "@daily echo x\n@daily echo y\n@hourly echo z\n");
	check_loaded_names(paths, 1, true, utc, "echo echo-67e5 echo-0651", "--fleet");
	put_text(path, "@daily true\n@daily echo x\n@hourly echo z\n@daily echo y\n");
	check_loaded_names(paths, 1, true, utc, "true echo echo-0651 echo-67e5",
			   "--fleet, lines moved and added");
	put_text(path, "@daily echo x\n@daily echo y\n@daily echo y\n");
	check_loaded_names(paths, 1, true, utc, "echo echo-67e5 echo-67e5-2", "--fleet, a line twice");
	unlink(path);
	tz_free(utc);
}

/* The jobs of one section (no environment line between them) share one
 * runs' environment, with the section's variables in it; the lines below
 * an environment line share another. */
static void test_shared_environment(void)
{
	struct tz *utc = tz_load_utc();
	struct job_table t = { 0 };

	if (load("A=1\n@daily echo x\n@daily echo y\n--delay 1s -- /bin/true\nA=2\n@daily echo z\n",
		 utc, &t) == 4) {
		check(t.jobs[0]->env == t.jobs[1]->env && t.jobs[1]->env == t.jobs[2]->env,
		      "one section, one environment");
		check(t.jobs[2]->env != t.jobs[3]->env, "another section, another");
		check(t.jobs[0]->file_env && strcmp(t.jobs[0]->file_env[0], "A=1") == 0 &&
		      strcmp(t.jobs[3]->file_env[0], "A=2") == 0, "each its own variables");
	}
	job_table_free(&t);
	tz_free(utc);
}

int main(void)
{
	harness_start(tmpdir, 60);
	test_sizes();
	test_size_says_less();
	test_not_regular();
	test_identity();
	test_names_one_file();
	test_names_scoped();
	test_names_fleet();
	test_shared_environment();
	harness_remove_tree(tmpdir);
	return tally_finish(&tally, "jobtable");
}
