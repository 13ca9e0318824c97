/* SPDX-License-Identifier: MIT */
/* Unit tests for jobs_file_read, the one read of a jobs file (at start and
 * at every reload): a regular file is read whole up to the limit; more is
 * refused, by its size before reading or by what a read brings when the
 * size says less (a file that grows, a /proc file); a FIFO, a device or a
 * directory is refused without blocking. And for the identity a reload
 * keeps jobs by, as jobs_source_load gives it: a line and the environment
 * it sees, not its line number; and for the default names it gives: bare
 * in one file, SOURCE/WORD numbered within its file wherever more files
 * may be read, a line's hash rather than -2 under --fleet. And what a load
 * passes over with a warning (a host's cron's bad lines) or only warns of
 * (a command not found). */
#include "harness.h"
#include "jobtable.h"
#include "linecheck.h"

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
	check(n == -1 && strcmp(err, want) == 0, "%s: got %ld '%s', want '%s'", path, n, err, want);
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

/* Appends a load's warning LINE to the buffer ARG. */
static void keep_warning(void *arg, const char *line)
{
	char *buf = arg;
	size_t len = strlen(buf);

	snprintf(buf + len, 4096 - len, "%s", line);
}

/* How a load loads: with --system-crontab; as a start, not a dry run;
 * with --fleet. */
enum { AS_SYSTEM = 1, AS_START = 2, AS_FLEET = 4 };

/* The table of every --jobs PATH of PATHS (N), loaded as tfd --jobs
 * --dry-run does (or as HOW says), its warnings in WARNINGS (4096 bytes,
 * or NULL). Returns the number of jobs, or -1 with ERR when the load is
 * refused. */
static int load_paths_as(char **paths, size_t n, unsigned how, struct tz *utc, struct job_table *t,
			 char *warnings, char *err, size_t errlen)
{
	struct job_options defaults = { 0 };
	struct jobs_source src = {
		.path = paths[0],
		.paths = paths,
		.npaths = n,
		.system = how & AS_SYSTEM,
		.defaults = &defaults,
		.ctx = { .local = utc, .dry_run = !(how & AS_START), .fleet = how & AS_FLEET },
	};
	int status = 0, got;

	if (warnings)
		warnings[0] = '\0';
	src.ctx.zones = tz_cache_new();
	/* clang-format off */
	got = jobs_source_load(&src, t, true, warnings ? keep_warning : NULL, warnings, &status,
			       err, errlen) == 0 ? (int)t->n : -1;
	/* clang-format on */
	tz_cache_free(src.ctx.zones);
	jobs_source_free(&src);
	return got;
}

/* The table of PATHS (N), loaded with --fleet when FLEET; a refused load
 * is a failed check and an empty table. */
static int load_paths(char **paths, size_t n, bool fleet, struct tz *utc, struct job_table *t)
{
	char err[512];
	int got = load_paths_as(paths, n, fleet ? AS_FLEET : 0, utc, t, NULL, err, sizeof err);

	if (got < 0) {
		check(0, "load: %s", err);
		*t = (struct job_table){ 0 };
		return 0;
	}
	return got;
}

/* The table of the jobs file TEXT, loaded as HOW says (load_paths_as). */
static int load_as(const char *text, unsigned how, struct tz *utc, struct job_table *t,
		   char *warnings, char *err, size_t errlen)
{
	char path[600], *paths[] = { path };
	int n;

	snprintf(path, sizeof path, "%s", harness_path("jobs"));
	put_text(path, text);
	n = load_paths_as(paths, 1, how, utc, t, warnings, err, errlen);
	unlink(path);
	return n;
}

/* The table of the jobs file TEXT, loaded as tfd --jobs --dry-run does. */
static int load(const char *text, struct tz *utc, struct job_table *t)
{
	char path[600], *paths[] = { path };
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
static void check_loaded_names(char **paths, size_t n, bool fleet, struct tz *utc, const char *want,
			       const char *what)
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

	/* clang-format off */
	if (load("A=1\n@daily echo x\n@daily echo y\n--delay 1s -- echo z\n", utc, &a) == 3 &&
	    load("\nA=1\n@daily echo y\n@daily echo x\nA=2\n--delay 1s -- echo z\n", utc,
		 &b) == 3) {
		/* clang-format on */
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
	check_loaded_names(paths, 1, false, utc, "a/echo b/echo b/echo-2 b/true",
			   "a file sorting first");
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
	check_loaded_names(paths, 1, true, utc, "echo echo-67e5 echo-67e5-2",
			   "--fleet, a line twice");
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
			      strcmp(t.jobs[3]->file_env[0], "A=2") == 0,
		      "each its own variables");
	}
	job_table_free(&t);
	tz_free(utc);
}

/* A host's cron (--system-crontab) passes a bad line over with a warning
 * naming FILE:LINE, at parse or at build, and loads the rest; a plain
 * --jobs file refuses the load at the first. */
static void test_host_lenient(void)
{
	static const char text[] = "MAILTO=\"\"\n"
				   "61 * * * * root echo x\n"
				   "0 1 * * * root echo ok\n"
				   "--name a --bogus -- /bin/true\n"
				   "*/5 * * * root echo a b\n"
				   "--name d --interval 1h -- /bin/true\n"
				   "--name d --interval 1h -- /bin/true\n"
				   "0 0 1 1 * alice:root echo\n"
				   "0 0 30 2 * root echo never\n";
	struct tz *utc = tz_load_utc();
	struct job_table t = { 0 };
	char warnings[4096], err[512], path[600];

	check(load_as(text, 0, utc, &t, warnings, err, sizeof err) == -1 &&
		      strstr(err, "jobs:5: bad crontab line '*/5 * * * root echo a b'"),
	      "strict: %s", err);
	job_table_free(&t);
	check(load_as(text, AS_SYSTEM, utc, &t, warnings, err, sizeof err) == 3, "host: %s", err);
	if (t.n == 3) {
		check(strcmp(t.jobs[0]->name, "jobs/echo") == 0 && t.jobs[0]->line == 3, "ok line");
		check(strcmp(t.jobs[1]->name, "d") == 0 && t.jobs[1]->line == 6, "first d");
		check(t.jobs[2]->never && t.jobs[2]->line == 9, "the never line");
	}
	snprintf(path, sizeof path, "%s", harness_path("jobs"));
	/* clang-format off */
	for (const char *want_line = "2\0" "4\0" "5\0" "7\0" "8\0" "9\0"; *want_line;
	     want_line += strlen(want_line) + 1) {
		/* clang-format on */
		char want[700];

		snprintf(want, sizeof want, "tfd: warning: %s:%s: ", path, want_line);
		check(strstr(warnings, want) != NULL, "no warning for line %s: %s", want_line,
		      warnings);
	}
	check(strstr(warnings, "--name 'd': already the name of another job; the line is "
			       "not loaded\n") &&
		      strstr(warnings, "'0 0 30 2 *' names no day that exists: "
				       "the line is loaded and never runs\n"),
	      "warnings: %s", warnings);
	job_table_free(&t);
	tz_free(utc);
}

/* A crontab line's command not found, its shell missing: warnings at
 * load, never a refusal; builtins, keywords and expansions not looked at. */
static void test_line_checks(void)
{
	static const char text[] = "0 1 * * * tfd-no-such-command x\n"
				   "0 2 * * * tfd-no-such-command y\n"
				   "0 3 * * * cd / && tfd-no-such-command\n"
				   "0 4 * * * if true; then x; fi\n"
				   "0 5 * * * $HOME/bin/x\n"
				   "0 6 * * * FOO=1 /no/such/tfd-cmd\n"
				   "0 7 * * * /bin/sh -c true\n"
				   "--name e --interval 1h --exec 'tfd-no-such-command'\n"
				   "SHELL=/no/such/shell\n"
				   "0 8 * * * true\n"
				   "0 9 * * * tfd-no-such-command\n";
	struct tz *utc = tz_load_utc();
	struct job_table t = { 0 };
	char warnings[4096], err[512], want[700];

	check(line_shell_builtin("cd") && line_shell_builtin("[") && line_shell_builtin("if") &&
		      line_shell_builtin("}") && line_shell_builtin("source") &&
		      line_shell_builtin("while") && !line_shell_builtin("ls") &&
		      !line_shell_builtin("sh") && !line_shell_builtin(""),
	      "builtins");

	check(load_as(text, AS_START, utc, &t, warnings, err, sizeof err) == 10, "load: %s", err);
	snprintf(want, sizeof want,
		 "tfd: warning: %s:1: 'tfd-no-such-command' is not found in "
		 "its PATH (",
		 harness_path("jobs"));
	check(strncmp(warnings, want, strlen(want)) == 0, "warnings: %s", warnings);
	snprintf(want, sizeof want,
		 "tfd: warning: %s:6: '/no/such/tfd-cmd': No such file or "
		 "directory: its runs will fail (status 127)\n",
		 harness_path("jobs"));
	check(strstr(warnings, want) != NULL, "absolute: %s", warnings);
	snprintf(want, sizeof want,
		 "tfd: warning: %s:10: the shell '/no/such/shell': No such "
		 "file or directory: the runs of the lines it runs will fail (status 127)\n",
		 harness_path("jobs"));
	check(strstr(warnings, want) != NULL, "shell: %s", warnings);
	/* Said once each: the command at line 1, the shell at line 10. */
	check(strstr(warnings, ":2: ") == NULL && strstr(warnings, ":11: ") == NULL &&
		      strstr(warnings, ":3: ") == NULL && strstr(warnings, ":8: ") == NULL,
	      "said again, or of a builtin or an --exec string: %s", warnings);
	job_table_free(&t);
	/* A dry run says only the shell, which no run could do without. */
	check(load_as(text, 0, utc, &t, warnings, err, sizeof err) == 10, "dry: %s", err);
	check(strstr(warnings, "the shell '/no/such/shell'") != NULL &&
		      strstr(warnings, "tfd-no-such-command") == NULL &&
		      strstr(warnings, "/no/such/tfd-cmd") == NULL,
	      "dry run: %s", warnings);
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
	test_host_lenient();
	test_line_checks();
	harness_remove_tree(tmpdir);
	return tally_finish(&tally, "jobtable");
}
