/* SPDX-License-Identifier: MIT */
/* Unit tests for metrics: the whole text for a fresh job and a busy one,
 * label escaping and UTF-8, the grouping of families, seconds without an
 * exponent, 10,000 jobs, and the file written in place.
 *
 * `test_metrics --write-sample FILE` writes a sample file instead (every
 * kind of value, escapes, a fresh job), for the bats test that hands it to
 * promtool and to a real node_exporter. */
#include "harness.h"
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The text for N jobs, in a buffer the caller frees. */
static char *format(const char *const *names, const struct job_metrics *m, size_t n)
{
	struct buf b = { 0 };
	char *text;

	if (metrics_format(&b, names, m, n) != 0) {
		fprintf(stderr, "test_metrics: out of memory\n");
		exit(1);
	}
	text = strndup(b.s, b.len);
	buf_free(&b);
	return text;
}

/* A job that has run: 3 successes, 1 failure, 2 timeouts, 1 kill; its last
 * run started at 1796292001.000123456, took 1.25 s and was killed by
 * SIGTERM (143). */
static struct job_metrics busy_job(void)
{
	struct job_metrics m = {
		.runs_success = 3,
		.runs_failure = 1,
		.runs_timeout = 2,
		.runs_killed = 1,
		.skipped = 4,
		.missed = 5,
		.running = 1,
		.last_start_ns = INT64_C(1796292001000123456),
		.last_duration_ns = INT64_C(1250000000),
		.last_exit_status = 143,
		.last_success_ns = INT64_C(1796291000500000000),
		.next_run_ns = INT64_C(1796292060000000000),
	};

	return m;
}

static const char expected_two_jobs[] =
	"# HELP tfd_runs_total Runs ended, by result.\n"
	"# TYPE tfd_runs_total counter\n"
	"tfd_runs_total{job_name=\"backup\",result=\"success\"} 0\n"
	"tfd_runs_total{job_name=\"backup\",result=\"failure\"} 0\n"
	"tfd_runs_total{job_name=\"backup\",result=\"timeout\"} 0\n"
	"tfd_runs_total{job_name=\"backup\",result=\"killed\"} 0\n"
	"tfd_runs_total{job_name=\"report\",result=\"success\"} 3\n"
	"tfd_runs_total{job_name=\"report\",result=\"failure\"} 1\n"
	"tfd_runs_total{job_name=\"report\",result=\"timeout\"} 2\n"
	"tfd_runs_total{job_name=\"report\",result=\"killed\"} 1\n"
	"# HELP tfd_skipped_total Wake-ups whose run was skipped by --overlap skip.\n"
	"# TYPE tfd_skipped_total counter\n"
	"tfd_skipped_total{job_name=\"backup\"} 0\n"
	"tfd_skipped_total{job_name=\"report\"} 4\n"
	"# HELP tfd_missed_expirations_total Timer expirations beyond one per wake-up.\n"
	"# TYPE tfd_missed_expirations_total counter\n"
	"tfd_missed_expirations_total{job_name=\"backup\"} 0\n"
	"tfd_missed_expirations_total{job_name=\"report\"} 5\n"
	"# HELP tfd_running Runs going now.\n"
	"# TYPE tfd_running gauge\n"
	"tfd_running{job_name=\"backup\"} 0\n"
	"tfd_running{job_name=\"report\"} 1\n"
	"# HELP tfd_last_run_start_timestamp_seconds Unix time of the last run's start.\n"
	"# TYPE tfd_last_run_start_timestamp_seconds gauge\n"
	"tfd_last_run_start_timestamp_seconds{job_name=\"report\"} 1796292001.000123456\n"
	"# HELP tfd_last_run_duration_seconds Duration of the last run that ended.\n"
	"# TYPE tfd_last_run_duration_seconds gauge\n"
	"tfd_last_run_duration_seconds{job_name=\"report\"} 1.25\n"
	"# HELP tfd_last_run_exit_status Exit status of the last run that ended "
	"(128+N if signal N ended it).\n"
	"# TYPE tfd_last_run_exit_status gauge\n"
	"tfd_last_run_exit_status{job_name=\"report\"} 143\n"
	"# HELP tfd_last_success_timestamp_seconds Unix time the last successful run ended.\n"
	"# TYPE tfd_last_success_timestamp_seconds gauge\n"
	"tfd_last_success_timestamp_seconds{job_name=\"report\"} 1796291000.5\n"
	"# HELP tfd_next_run_timestamp_seconds Unix time of the next scheduled expiration.\n"
	"# TYPE tfd_next_run_timestamp_seconds gauge\n"
	"tfd_next_run_timestamp_seconds{job_name=\"report\"} 1796292060\n"
	"# HELP tfd_paused_total Elapses not run because the job was paused (tfdctl pause).\n"
	"# TYPE tfd_paused_total counter\n"
	"tfd_paused_total{job_name=\"backup\"} 0\n"
	"tfd_paused_total{job_name=\"report\"} 0\n"
	"# HELP tfd_paused 1 while the job is paused.\n"
	"# TYPE tfd_paused gauge\n"
	"tfd_paused{job_name=\"backup\"} 0\n"
	"tfd_paused{job_name=\"report\"} 0\n";

static void test_two_jobs(void)
{
	const char *names[] = { "backup", "report" };
	const struct job_metrics m[] = { JOB_METRICS_INIT, busy_job() };
	char *text = format(names, m, 2);

	check(strcmp(text, expected_two_jobs) == 0, "two jobs:\n%s\nwant:\n%s", text,
	      expected_two_jobs);
	free(text);
}

/* A run that ended with status 0 in no time is still a value: duration 0
 * and status 0 are there, not left out. */
static void test_zero_values(void)
{
	const char *names[] = { "quick" };
	struct job_metrics m = JOB_METRICS_INIT;
	char *text;

	m.last_start_ns = 1;
	m.last_duration_ns = 0;
	m.last_exit_status = 0;
	text = format(names, &m, 1);
	check(strstr(text, "tfd_last_run_duration_seconds{job_name=\"quick\"} 0\n") != NULL,
	      "duration 0 left out:\n%s", text);
	check(strstr(text, "tfd_last_run_exit_status{job_name=\"quick\"} 0\n") != NULL,
	      "status 0 left out:\n%s", text);
	/* clang-format off */
	check(strstr(text, "tfd_last_run_start_timestamp_seconds{job_name=\"quick\"} 0.000000001\n") != NULL,
	      "start at 1 ns:\n%s", text);
	/* clang-format on */
	check(strstr(text, "tfd_last_success") &&
		      !strstr(text, "tfd_last_success_timestamp_seconds{"),
	      "a success that never happened is shown:\n%s", text);
	free(text);
}

/* --fleet's figures: one sample per result, and the connection gauge. */
static void test_fleet(void)
{
	struct fleet_metrics f = { .claims = { 5, 7, 1, 2 }, .connected = true };
	struct buf b = { 0 };

	check(metrics_format_fleet(&b, &f) == 0 && b.s, "fleet: formatted");
	if (!b.s)
		return;
	check(strstr(b.s, "# TYPE tfd_fleet_claims_total counter\n") &&
		      strstr(b.s, "tfd_fleet_claims_total{result=\"won\"} 5\n") &&
		      strstr(b.s, "tfd_fleet_claims_total{result=\"elsewhere\"} 7\n") &&
		      strstr(b.s, "tfd_fleet_claims_total{result=\"skipped\"} 1\n") &&
		      strstr(b.s, "tfd_fleet_claims_total{result=\"missed\"} 2\n") &&
		      strstr(b.s, "# TYPE tfd_fleet_connected gauge\ntfd_fleet_connected 1\n"),
	      "fleet:\n%s", b.s);
	buf_free(&b);
}

/* Label values */

struct label_case {
	const char *name, *want;
};

static void test_label_values(void)
{
	const struct label_case cases[] = {
		{ "plain", "plain" },
		{ "a\\b", "a\\\\b" },
		{ "say \"hi\"", "say \\\"hi\\\"" },
		{ "two\nlines", "two\\nlines" },
		{ "tab\there", "tab\there" },
		{ "{x=\"1\"}", "{x=\\\"1\\\"}" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x95\x90",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x95\x90" },
		{ "latin1 caf\xe9", "latin1 caf\xef\xbf\xbd" },
		{ "\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "overlong \xc0\xaf", "overlong \xef\xbf\xbd\xef\xbf\xbd" },
		{ "surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "past U+10FFFF \xf4\x90\x80\x80",
		  "past U+10FFFF \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct job_metrics m = JOB_METRICS_INIT;
		char *text = format(&cases[i].name, &m, 1), want[256];

		snprintf(want, sizeof want, "\ntfd_running{job_name=\"%s\"} 0\n", cases[i].want);
		check(strstr(text, want) != NULL, "label '%s': want %s in\n%s", cases[i].name, want,
		      text);
		free(text);
	}
}

/* Families */

/* The metric name of a sample line: up to '{' or ' '. */
static size_t sample_name_len(const char *line)
{
	return strcspn(line, "{ \n");
}

/* A sample's value is plain decimal: digits, at most one '.', no sign,
 * exponent, NaN or Inf. */
static void check_value(const char *line, size_t len)
{
	const char *value = memrchr(line, ' ', len);
	size_t vlen = value ? len - (size_t)(value + 1 - line) : 0;
	size_t whole = value ? strspn(value + 1, "0123456789") : 0;

	check(vlen > 0 && whole > 0 &&
		      (whole == vlen ||
		       (value[1 + whole] == '.' &&
			strspn(value + 2 + whole, "0123456789") == vlen - whole - 1 &&
			vlen > whole + 1)),
	      "value of '%.*s' is not plain decimal", (int)len, line);
}

/* Each family: # HELP, then # TYPE, then only its own samples, and never
 * again later (the text format wants every family's samples together). */
static void check_grouping(const char *text, size_t want_samples)
{
	char seen[16][64];
	int families = 0;
	size_t samples = 0;
	const char *family = NULL;

	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		size_t len = strcspn(line, "\n");

		if (strncmp(line, "# HELP ", 7) == 0) {
			const char *name = line + 7;
			size_t nlen = strcspn(name, " ");

			for (int f = 0; f < families; f++)
				check(strlen(seen[f]) != nlen || strncmp(seen[f], name, nlen) != 0,
				      "family %.*s twice", (int)nlen, name);
			if (families < 16)
				snprintf(seen[families++], 64, "%.*s", (int)nlen, name);
			family = seen[families - 1];
			line = strchr(line, '\n') + 1;
			check(strncmp(line, "# TYPE ", 7) == 0 &&
				      strncmp(line + 7, family, strlen(family)) == 0,
			      "no # TYPE after # HELP %s", family);
		} else {
			check(family && sample_name_len(line) == strlen(family) &&
				      strncmp(line, family, strlen(family)) == 0,
			      "sample '%.*s' outside its family %s", (int)len, line,
			      family ? family : "(none)");
			check_value(line, len);
			samples++;
		}
		check(line[strcspn(line, "\n")] == '\n', "last line without newline");
	}
	check(families == 11, "%d families, want 11", families);
	check(samples == want_samples, "%zu samples, want %zu", samples, want_samples);
}

/* 10,000 jobs, half of them busy: every family once, 4 + 5 samples for a
 * fresh job and 4 + 10 for a busy one; the buffer grows as it must. */
static void test_many_jobs(void)
{
	enum { N = 10000 };
	static char name_text[N][16];
	static const char *names[N];
	static struct job_metrics m[N];
	char *text;

	for (size_t i = 0; i < N; i++) {
		snprintf(name_text[i], sizeof name_text[i], "job-%zu", i);
		names[i] = name_text[i];
		m[i] = i % 2 ? busy_job() : (struct job_metrics)JOB_METRICS_INIT;
	}
	text = format(names, m, N);
	check_grouping(text, N / 2 * 9 + N / 2 * 14);
	check(strstr(text, "tfd_running{job_name=\"job-9999\"} 1\n") != NULL, "last job missing");
	free(text);
	text = format(names, m, 0);
	check_grouping(text, 0);
	free(text);
}

/* Values */

static void test_seconds(void)
{
	const struct {
		int64_t ns;
		const char *want;
	} cases[] = {
		{ INT64_C(1796292001000123456), "1796292001.000123456" },
		{ INT64_MAX, "9223372036.854775807" },
		{ INT64_C(100000000000000000), "100000000" },
		{ INT64_C(1000), "0.000001" },
		{ INT64_C(1), "0.000000001" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *names[] = { "t" };
		struct job_metrics m = JOB_METRICS_INIT;
		char *text, want[128];

		m.next_run_ns = cases[i].ns;
		text = format(names, &m, 1);
		snprintf(want, sizeof want, "tfd_next_run_timestamp_seconds{job_name=\"t\"} %s\n",
			 cases[i].want);
		check(strstr(text, want) != NULL, "%lld ns: want %s", (long long)cases[i].ns, want);
		check_grouping(text, 4 + 5 + 1);
		free(text);
	}
	{
		const char *names[] = { "big" };
		struct job_metrics m = busy_job();
		char *text;

		m.runs_success = UINT64_MAX;
		text = format(names, &m, 1);
		check(strstr(text, "result=\"success\"} 18446744073709551615\n") != NULL,
		      "the largest counter:\n%s", text);
		free(text);
	}
}

/* Writing */

static int read_whole(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, cap - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void test_write(void)
{
	char dir[] = "/tmp/test_metrics.XXXXXX", path[128], missing[160], err[512];
	static char text[8192];
	const char *names[] = { "backup", "report" };
	const struct job_metrics m[] = { JOB_METRICS_INIT, busy_job() };
	struct stat st;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(path, sizeof path, "%s/tfd.prom", dir);
	check(metrics_check_path(path, err, sizeof err) == 0, "check: %s", err);
	check(metrics_write(path, names, m, 2, NULL, err, sizeof err) == 0, "write: %s", err);
	check(read_whole(path, text, sizeof text) == 0 && strcmp(text, expected_two_jobs) == 0,
	      "the file holds:\n%s", text);
	check(stat(path, &st) == 0 && (st.st_mode & 0044) == (0644 & ~umask(022) & 0044),
	      "mode %o: node_exporter, another user, cannot read it", st.st_mode & 0777);
	check(metrics_write(path, names, m, 1, NULL, err, sizeof err) == 0, "rewrite: %s", err);
	check(read_whole(path, text, sizeof text) == 0 && !strstr(text, "report"),
	      "the rewrite kept the old text");
	unlink(path);
	check(rmdir(dir) == 0, "something was left in %s: %s", dir, strerror(errno));
	snprintf(missing, sizeof missing, "%s/tfd.prom", dir);
	check(metrics_write(missing, names, m, 2, NULL, err, sizeof err) == -1 &&
		      strncmp(err, "open '", 6) == 0 && strstr(err, dir) &&
		      strstr(err, strerror(ENOENT)),
	      "write into a missing directory: '%s'", err);
	check(metrics_check_path(missing, err, sizeof err) == -1 &&
		      strncmp(err, "--metrics '", 11) == 0 && strstr(err, "no such directory"),
	      "check of a missing directory: '%s'", err);
	check(metrics_check_path("/tmp", err, sizeof err) == -1 && strstr(err, "a directory"),
	      "check of a directory: '%s'", err);
}

/* The sample for the bats test: every kind of value and label. */
static int write_sample(const char *path)
{
	const char *names[] = { "backup", "report", "say \"hi\"\\now\nthen", "caf\xc3\xa9",
				"latin1 caf\xe9" };
	struct job_metrics m[] = { JOB_METRICS_INIT, busy_job(), busy_job(), JOB_METRICS_INIT,
				   JOB_METRICS_INIT };
	struct fleet_metrics fleet = { .claims = { 5, 7, 1, 2 }, .connected = true };
	char err[512];

	m[2].last_exit_status = 0;
	m[2].last_duration_ns = 0;
	m[3].running = 2;
	if (metrics_write(path, names, m, 5, &fleet, err, sizeof err) != 0) {
		fprintf(stderr, "test_metrics: %s\n", err);
		return 1;
	}
	return 0;
}

/* A snapshot of NAMES and M (and FLEET), the jobs added one by one. */
static struct metrics_snapshot *snapshot(const char *const *names, const struct job_metrics *m,
					 size_t n, const struct fleet_metrics *fleet)
{
	struct metrics_snapshot *s = metrics_snapshot_new(n, fleet);

	for (size_t i = 0; s && i < n; i++)
		check(metrics_snapshot_add(s, names[i], &m[i]) == 0, "job %zu added", i);
	return s;
}

/* The whole of a snapshot of NAMES and M (and FLEET), read MAX bytes at
 * a time; the caller frees it. */
static char *read_snapshot(const char *const *names, const struct job_metrics *m, size_t n,
			   const struct fleet_metrics *fleet, size_t max)
{
	struct metrics_snapshot *s = snapshot(names, m, n, fleet);
	size_t cap = 1 << 22, len = 0;
	char *buf = malloc(max), *text = malloc(cap);
	long k;

	if (!s || !buf || !text) {
		fprintf(stderr, "test_metrics: out of memory\n");
		exit(1);
	}
	while ((k = metrics_snapshot_read(s, buf, max)) > 0) {
		check((size_t)k <= max, "read %ld of at most %zu", k, max);
		if (len + (size_t)k >= cap) {
			check(0, "snapshot over %zu bytes", cap);
			break;
		}
		memcpy(text + len, buf, (size_t)k);
		len += (size_t)k;
	}
	text[len] = '\0';
	check(k == 0, "snapshot read: %ld", k);
	check(metrics_snapshot_read(s, buf, max) == 0, "a read after the end is 0");
	metrics_snapshot_free(s);
	free(buf);
	return text;
}

/* A snapshot read in parts of any size is the text metrics_format and
 * metrics_format_fleet make at once, of the figures as they were taken:
 * the names it was given may go away meanwhile. */
static void test_snapshot(void)
{
	enum { N = 1000 };
	static const size_t sizes[] = { 1, 7, 100, 4096, 65536, 1 << 24 };
	struct fleet_metrics fleet = { .claims = { 5, 7, 1, 2 }, .connected = true };
	struct job_metrics *m = calloc(N, sizeof *m);
	char **owned = calloc(N, sizeof *owned);
	const char **names = calloc(N, sizeof *names);
	struct buf whole = { 0 };
	char *want;

	if (!m || !owned || !names)
		exit(1);
	for (size_t i = 0; i < N; i++) {
		char name[32];

		snprintf(name, sizeof name, i % 3 ? "job %zu" : "j\"%zu\n", i);
		owned[i] = strdup(name);
		names[i] = owned[i];
		m[i] = i % 2 ? busy_job() : (struct job_metrics)JOB_METRICS_INIT;
		m[i].runs_success = i;
	}
	if (metrics_format(&whole, names, m, N) != 0 || metrics_format_fleet(&whole, &fleet) != 0)
		exit(1);
	want = strndup(whole.s, whole.len);
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		char *got = read_snapshot(names, m, N, &fleet, sizes[k]);

		check(strcmp(got, want) == 0, "snapshot read %zu bytes at a time differs",
		      sizes[k]);
		free(got);
	}
	/* Without the fleet, and with no job at all. */
	{
		char *got = read_snapshot(names, m, N, NULL, 4096);
		char *alone = format(names, m, N);

		check(strcmp(got, alone) == 0, "snapshot without the fleet differs");
		free(got);
		free(alone);
		got = read_snapshot(names, m, 0, NULL, 4096);
		alone = format(names, m, 0);
		check(strcmp(got, alone) == 0, "snapshot of no job differs");
		free(got);
		free(alone);
	}
	/* Taken, then the names and figures change: the snapshot does not. */
	{
		struct metrics_snapshot *s = snapshot(names, m, N, NULL);
		char *alone = format(names, m, N), *buf = malloc(1 << 24);
		struct job_metrics one = JOB_METRICS_INIT;
		long k;

		for (size_t i = 0; i < N; i++) {
			owned[i][0] = 'X';
			m[i].runs_success++;
		}
		check(s && metrics_snapshot_add(s, "extra", &one) == -1, "no more than N jobs");
		k = s && buf ? metrics_snapshot_read(s, buf, 1 << 24) : -1;
		check(k > 0 && strlen(alone) > 0 && (size_t)k <= strlen(alone) &&
			      memcmp(buf, alone, (size_t)k) == 0,
		      "a snapshot changed with what it was taken from");
		metrics_snapshot_free(s);
		free(alone);
		free(buf);
	}
	for (size_t i = 0; i < N; i++)
		free(owned[i]);
	free(owned);
	free(names);
	free(m);
	free(want);
	buf_free(&whole);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write-sample") == 0)
		return write_sample(argv[2]);
	test_two_jobs();
	test_zero_values();
	test_fleet();
	test_label_values();
	test_many_jobs();
	test_seconds();
	test_write();
	test_snapshot();
	return tally_finish(&tally, "metrics");
}
