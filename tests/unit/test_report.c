/* SPDX-License-Identifier: MIT */
/* Unit tests for the pure modules of the loop's output and arithmetic:
 * report (placeholders, JSON, decimal seconds), schedule (grid, nth, missed)
 * and stats (histogram percentiles). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "civil.h"
#include "harness.h"
#include "report.h"
#include "schedule.h"
#include "stats.h"
#include "timens.h"
#include "tz.h"

/* clang-format off */
#define S(ns) ((int64_t)(ns) * NSEC_PER_SEC)
/* clang-format on */

static void expect_str(const char *got, const char *want, int line)
{
	tally_check(&tally, strcmp(got, want) == 0, __FILE__, line, "got '%s', want '%s'", got,
		    want);
}

static void test_seconds(void)
{
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0" },
		{ 250000000, "0.25" },
		{ S(1), "1" },
		{ 1, "0.000000001" },
		{ S(90) + 500, "90.0000005" },
		{ -500000000, "-0.5" },
		{ INT64_MAX, "9223372036.854775807" },
		{ INT64_MIN, "-9223372036.854775808" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		buf[format_seconds(buf, cases[i].ns)] = '\0';
		expect_str(buf, cases[i].text, __LINE__);
	}
}

static void test_times(void)
{
	char buf[48];

	buf[format_rfc3339(buf, S(1796292001) + 123456789)] = '\0';
	expect_str(buf, "2026-12-03T10:00:01.123456Z", __LINE__);
	buf[format_unix(buf, S(1796292001) + 123456)] = '\0';
	expect_str(buf, "1796292001.000123456", __LINE__);
	buf[format_rfc3339(buf, S(2208988800))] = '\0';
	expect_str(buf, "2040-01-01T00:00:00.000000Z", __LINE__);
	buf[format_unix(buf, -1)] = '\0';
	expect_str(buf, "-1.999999999", __LINE__);
	/* The one formatter behind them, and the fleet's timestamptz form. */
	buf[format_rfc3339(buf, -1)] = '\0';
	expect_str(buf, "1969-12-31T23:59:59.999999Z", __LINE__);
	civil_format_utc_us(buf, sizeof buf, S(1796292001) + 123999, ' ', "+00");
	expect_str(buf, "2026-12-03 10:00:01.000123+00", __LINE__);
	civil_format_utc_us(buf, sizeof buf, INT64_MIN, 'T', "Z");
	expect_str(buf, "1677-09-21T00:12:43.145224Z", __LINE__);
	civil_format_utc_us(buf, sizeof buf, INT64_MAX, 'T', "Z");
	expect_str(buf, "2262-04-11T23:47:16.854775Z", __LINE__);
	tally_check(&tally,
		    civil_format_utc_us(buf, 11, 0, 'T', "Z") == 10 &&
			    strcmp(buf, "1970-01-01") == 0,
		    __FILE__, __LINE__,
		    "a short buffer: cut, NUL-terminated, its length returned: '%s'", buf);
}

static const struct tick sample = {
	.seq = 3,
	.expirations = 2,
	.total = 5,
	.wall_ns = S(1796292001) + 123456,
	.elapsed_ns = S(3) / 2,
	.late_ns = 12345,
	.next_in_ns = 250000000,
	.interval_ns = S(1),
	.action = TICK_SKIP,
};

static void test_format(void)
{
	char buf[REPORT_LINE_MAX], err[256];

	format_tick(buf, sizeof buf, "%n %e %E %t %u %s %l %r %i %%", &sample);
	expect_str(buf,
		   "3 2 5 2026-12-03T10:00:01.000123Z 1796292001.000123456 "
		   "1.5 12 0.25 1 %\n",
		   __LINE__);
	format_tick(buf, sizeof buf, "plain", &sample);
	expect_str(buf, "plain\n", __LINE__);
	/* A line cut to the buffer is cut between fields, not inside one. */
	format_tick(buf, 12, "%u%n", &sample);
	expect_str(buf, "\n", __LINE__);
	tally_check(&tally, format_check("%n %%", err, sizeof err) == 0, __FILE__, __LINE__,
		    "valid");
	tally_check(&tally, format_check("%x", err, sizeof err) != 0 && strstr(err, "'%x'"),
		    __FILE__, __LINE__, "unknown placeholder: %s", err);
	tally_check(&tally, format_check("abc%", err, sizeof err) != 0, __FILE__, __LINE__,
		    "lone %%");
}

static void test_json(void)
{
	char buf[REPORT_LINE_MAX];
	struct run_end killed = { .job = "backup",
				  .seq = 4,
				  .pid = 1234,
				  .status = -1,
				  .signal = 15,
				  .duration_ns = 2500000000,
				  .timed_out = true,
				  .attempt = 3,
				  .failed = true };
	struct run_end ok = { .seq = 5, .pid = 99, .duration_ns = 1000000, .attempt = 1 };

	json_tick(NULL, buf, sizeof buf, &sample);
	expect_str(buf,
		   "{\"event\":\"tick\",\"job\":null,\"seq\":3,\"expirations\":2,\"total\":5,"
		   "\"time\":\"2026-12-03T10:00:01.000123Z\",\"unix\":1796292001.000123456,"
		   "\"elapsed\":1.5,\"late_us\":12,\"next_in\":0.25,\"interval\":1,"
		   "\"action\":\"skip\"}\n",
		   __LINE__);
	json_exit(NULL, buf, sizeof buf, &killed);
	expect_str(buf,
		   "{\"event\":\"exit\",\"job\":\"backup\",\"seq\":4,\"pid\":1234,\"status\":null,"
		   "\"signal\":\"SIGTERM\",\"duration\":2.5,\"timed_out\":true,"
		   "\"attempt\":3,\"failed\":true}\n",
		   __LINE__);
	json_exit(NULL, buf, sizeof buf, &ok);
	expect_str(buf,
		   "{\"event\":\"exit\",\"job\":null,\"seq\":5,\"pid\":99,\"status\":0,"
		   "\"signal\":null,\"duration\":0.001,\"timed_out\":false,"
		   "\"attempt\":1,\"failed\":false}\n",
		   __LINE__);
	json_clock(NULL, buf, sizeof buf, "a\"b", S(1));
	expect_str(
		buf,
		"{\"event\":\"clock\",\"job\":\"a\\\"b\",\"time\":\"1970-01-01T00:00:01.000000Z\","
		"\"unix\":1.000000000}\n",
		__LINE__);
}

/* Under --fleet every object names its replica, from the caller's
 * context, and the line's bound counts the name. */
static void test_json_replica(void)
{
	const struct json_context r1 = { .replica = "r\"1" }, none = { 0 };
	char buf[REPORT_LINE_MAX];

	json_reload(&r1, buf, sizeof buf, true, 1, 0, 2, NULL);
	expect_str(buf,
		   "{\"event\":\"reload\",\"job\":null,\"replica\":\"r\\\"1\",\"ok\":true,"
		   "\"added\":1,\"removed\":0,\"kept\":2}\n",
		   __LINE__);
	json_error(&none, buf, sizeof buf, "j", "read", "x");
	expect_str(buf, "{\"event\":\"error\",\"job\":\"j\",\"call\":\"read\",\"message\":\"x\"}\n",
		   __LINE__);
	check(report_line_max(&r1, NULL, 1000) == report_line_max(NULL, NULL, 1003),
	      "the replica's 3 bytes are counted");
	check(report_line_max(&r1, "%j", 1000) == report_line_max(NULL, "%j", 1000),
	      "a --format line has no replica");
}

/* Every event carries "time": the tick and the clock their own instant,
 * the others, last, the instant the context was stamped with (when
 * events.c wrote them). */
static void test_json_time(void)
{
	const struct json_context at = { .time_ns = S(1796292001) + 123456789 };
	const struct tick t = { .seq = 1, .expirations = 1, .total = 1, .wall_ns = S(1) };
	const struct run_end e = { .job = "j", .seq = 2, .pid = 3, .attempt = 1 };
	char buf[REPORT_LINE_MAX];
	static const char stamp[] = ",\"time\":\"2026-12-03T10:00:01.123456Z\"";

	json_exit(&at, buf, sizeof buf, &e);
	expect_str(
		buf,
		"{\"event\":\"exit\",\"job\":\"j\",\"seq\":2,\"pid\":3,\"status\":0,"
		"\"signal\":null,\"duration\":0,\"timed_out\":false,\"attempt\":1,\"failed\":false,"
		"\"time\":\"2026-12-03T10:00:01.123456Z\"}\n",
		__LINE__);
	/* --notify's event of a run another replica died with: the exit's
	 * keys, what died with it null. */
	json_abandoned(&(struct json_context){ .replica = "b", .time_ns = at.time_ns }, buf,
		       sizeof buf, "j", S(1796292000), "a");
	expect_str(buf,
		   "{\"event\":\"exit\",\"job\":\"j\",\"replica\":\"b\",\"seq\":null,"
		   "\"pid\":null,\"status\":null,\"signal\":null,\"duration\":null,"
		   "\"timed_out\":false,\"attempt\":null,\"failed\":true,\"abandoned\":true,"
		   "\"scheduled\":\"2026-12-03T10:00:00.000000Z\",\"held_by\":\"a\","
		   "\"time\":\"2026-12-03T10:00:01.123456Z\"}\n",
		   __LINE__);
	json_reload(&at, buf, sizeof buf, true, 1, 2, 3, NULL);
	check(strstr(buf, stamp) != NULL, "reload: %s", buf);
	json_error(&at, buf, sizeof buf, NULL, "c", "m");
	check(strstr(buf, stamp) != NULL, "error: %s", buf);
	json_control(&at, buf, sizeof buf, "run", "j", 0);
	check(strstr(buf, stamp) != NULL, "control: %s", buf);
	json_output(&at, buf, sizeof buf, "j", 1, "stdout", "x", 1);
	check(strstr(buf, stamp) != NULL, "output: %s", buf);
	json_tick(&at, buf, sizeof buf, &t);
	check(strstr(buf, stamp) == NULL && strstr(buf, "\"time\":\"1970-01-01T00:00:01.000000Z\""),
	      "a tick's time is its wake-up: %s", buf);
	json_clock(&at, buf, sizeof buf, "j", S(2));
	check(strstr(buf, stamp) == NULL && strstr(buf, "\"time\":\"1970-01-01T00:00:02.000000Z\""),
	      "a clock event's time is its own: %s", buf);
}

/* How far an instant is, for --at's warning. */
static void test_distance(void)
{
	char buf[64];

	format_distance(buf, S(0), S(6 * 31557600 + 40 * 86400));
	expect_str(buf, "6y 1month ago", __LINE__);
	format_distance(buf, S(100), S(10));
	expect_str(buf, "in 1min 30s", __LINE__);
	format_distance(buf, S(10), S(10));
	expect_str(buf, "now", __LINE__);
}

/* A span, as --dry-run (fine) and tfdctl's columns (from days, no second
 * unit below a second) show it. */
static void test_span(void)
{
	static const struct {
		uint64_t ns;
		const char *fine, *column;
	} cases[] = {
		{ 0, "0", "0" },
		{ 999, "0", "0" },
		{ 1000, "1us", "1us" },
		{ 2003000, "2ms 3us", "2ms" },
		{ 1250000000, "1s 250ms", "1s" },
		{ (uint64_t)S(303), "5min 3s", "5min 3s" },
		{ (uint64_t)S(18 * 3600 + 42 * 60 + 59), "18h 42min", "18h 42min" },
		{ (uint64_t)S(3 * 86400), "3d", "3d" },
		{ (uint64_t)S(40 * 86400), "1month 1w", "40d" },
		{ (uint64_t)S(400 * 86400), "1y 1month", "400d" },
		{ UINT64_MAX, "584y 6month", "213503d 23h" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		format_span(buf, sizeof buf, cases[i].ns, SPAN_FINE);
		expect_str(buf, cases[i].fine, __LINE__);
		format_span(buf, sizeof buf, cases[i].ns, SPAN_COLUMN);
		expect_str(buf, cases[i].column, __LINE__);
	}
}

/* Compares BUF (LEN bytes) with WANT, which may hold NULs. */
static void expect_mem(const char *buf, size_t len, const char *want, size_t want_len, int line)
{
	tally_check(&tally, len == want_len && memcmp(buf, want, len) == 0, __FILE__, line,
		    "got '%.*s' (%zu), want '%.*s' (%zu)", (int)len, buf, len, (int)want_len, want,
		    want_len);
}

/* clang-format off */
#define EXPECT_OUTPUT(in, want)                                                        \
	do {                                                                           \
		char out_[512];                                                        \
		size_t n_ = json_output(NULL, out_, sizeof out_, "j", 7, "stdout", in, \
					sizeof(in) - 1);                               \
		static const char w_[] =                                               \
			"{\"event\":\"output\",\"job\":\"j\","                         \
			"\"seq\":7,\"stream\":\"stdout\",\"line\":\"" want "\"}\n";    \
		expect_mem(out_, n_, w_, sizeof(w_) - 1, __LINE__);                    \
	} while (0)
/* clang-format on */

static void test_json_strings(void)
{
	char buf[REPORT_LINE_MAX];
	size_t n;

	EXPECT_OUTPUT("plain text", "plain text");
	EXPECT_OUTPUT("q\"b\\s/", "q\\\"b\\\\s/");
	EXPECT_OUTPUT("\t\n\r\b\f\x01\x1f\x7f", "\\t\\n\\r\\b\\f\\u0001\\u001f\\u007f");
	EXPECT_OUTPUT("a\0b", "a\\u0000b");
	/* Valid UTF-8 passes as it is: 2, 3 and 4 bytes. */
	EXPECT_OUTPUT("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		      "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	/* One U+FFFD per maximal invalid sequence: a stray continuation byte,
	 * 0xff, a truncated sequence, an overlong form, a surrogate, a code
	 * point past U+10FFFF, and a sequence cut by the end of the line. */
	EXPECT_OUTPUT("a\x80z", "a\xef\xbf\xbdz");
	EXPECT_OUTPUT("\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_OUTPUT("\xe2\x82z", "\xef\xbf\xbdz");
	EXPECT_OUTPUT("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_OUTPUT("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_OUTPUT("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_OUTPUT("\xf0\x9f\x98", "\xef\xbf\xbd");

	n = json_reload(NULL, buf, sizeof buf, true, 2, 1, 5, NULL);
	expect_str(buf,
		   "{\"event\":\"reload\",\"job\":null,\"ok\":true,\"added\":2,"
		   "\"removed\":1,\"kept\":5}\n",
		   __LINE__);
	tally_check(&tally, n == strlen(buf), __FILE__, __LINE__, "length %zu", n);
	json_reload(NULL, buf, sizeof buf, false, 0, 0, 0, "jobs:3: invalid \"x\"\n");
	expect_str(buf,
		   "{\"event\":\"reload\",\"job\":null,\"ok\":false,"
		   "\"error\":\"jobs:3: invalid \\\"x\\\"\\n\"}\n",
		   __LINE__);
	json_error(NULL, buf, sizeof buf, "backup", "rename", "No space left on device");
	expect_str(buf,
		   "{\"event\":\"error\",\"job\":\"backup\",\"call\":\"rename\","
		   "\"message\":\"No space left on device\"}\n",
		   __LINE__);
}

/* The documented bound holds for the worst input: 64 KiB of control
 * characters (6 bytes each) from a job whose name is all quotes. */
static void test_output_bound(void)
{
	size_t line_len = 65536, job_len = 100,
	       cap = report_line_max(NULL, NULL, line_len + job_len);
	char *line = malloc(line_len), *job = malloc(job_len + 1), *buf = malloc(cap);
	size_t n;

	memset(line, 0x01, line_len);
	memset(job, 0x1f, job_len);
	job[job_len] = '\0';
	n = json_output(NULL, buf, cap, job, UINT64_MAX, "stderr", line, line_len);
	tally_check(&tally, n > 6 * line_len && buf[n - 1] == '\n' && buf[n - 2] == '}', __FILE__,
		    __LINE__, "worst case cut: %zu of %zu", n, cap);
	memset(line, 0xff, line_len);
	n = json_output(NULL, buf, cap, job, UINT64_MAX, "stderr", line, line_len);
	tally_check(&tally, n > 3 * line_len && buf[n - 2] == '}', __FILE__, __LINE__,
		    "invalid bytes cut: %zu", n);
	{
		struct tick tk = { .job = job,
				   .seq = UINT64_MAX,
				   .expirations = UINT64_MAX,
				   .total = UINT64_MAX,
				   .wall_ns = INT64_MIN,
				   .elapsed_ns = INT64_MIN,
				   .late_ns = INT64_MIN,
				   .next_in_ns = INT64_MIN,
				   .interval_ns = INT64_MIN,
				   .action = TICK_QUEUE };
		struct run_end e = { .job = job,
				     .seq = UINT64_MAX,
				     .pid = INT32_MIN,
				     .status = INT32_MIN,
				     .signal = 64,
				     .duration_ns = INT64_MIN,
				     .timed_out = true,
				     .attempt = UINT32_MAX,
				     .failed = true };
		size_t jcap = report_line_max(NULL, NULL, job_len);

		n = json_tick(NULL, buf, jcap, &tk);
		tally_check(&tally, buf[n - 2] == '}' && n - 6 * job_len < REPORT_JSON_FIXED - 100,
			    __FILE__, __LINE__, "tick fits: %zu", n);
		n = json_exit(NULL, buf, jcap, &e);
		tally_check(&tally, buf[n - 2] == '}', __FILE__, __LINE__, "exit fits: %zu", n);
		n = json_clock(NULL, buf, jcap, job, INT64_MIN);
		tally_check(&tally, buf[n - 2] == '}', __FILE__, __LINE__, "clock fits: %zu", n);
	}
	free(line);
	free(job);
	free(buf);
}

static void test_local_time(void)
{
	char err[256], buf[REPORT_LINE_MAX];
	struct tz *berlin = tz_load("CET-1CEST,M3.5.0,M10.5.0/3", err, sizeof err);
	struct tz *kathmandu = tz_load("<+0545>-5:45", err, sizeof err);
	struct tz *lmt = tz_load("<LMT>-0:19:32", err, sizeof err);
	struct tick tk = sample;

	if (!berlin || !kathmandu || !lmt) {
		tally_check(&tally, 0, __FILE__, __LINE__, "zones: %s", err);
		return;
	}
	tk.job = "backup";
	tk.local = berlin;
	format_tick(buf, sizeof buf, "%j %T", &tk);
	expect_str(buf, "backup 2026-12-03T11:00:01.000123+01:00\n", __LINE__);
	tk.wall_ns = S(1782000000) + 999999999;
	format_tick(buf, sizeof buf, "%T", &tk);
	expect_str(buf, "2026-06-21T02:00:00.999999+02:00\n", __LINE__);
	tk.local = kathmandu;
	format_tick(buf, sizeof buf, "%T", &tk);
	expect_str(buf, "2026-06-21T05:45:00.999999+05:45\n", __LINE__);
	tk.local = lmt;
	format_tick(buf, sizeof buf, "%T", &tk);
	expect_str(buf, "2026-06-21T00:19:32.999999+00:19:32\n", __LINE__);
	tk.local = NULL;
	tk.wall_ns = -1;
	format_tick(buf, sizeof buf, "%T|%j", &tk);
	expect_str(buf, "1969-12-31T23:59:59.999999+00:00|backup\n", __LINE__);
	tk.job = NULL;
	format_tick(buf, sizeof buf, "[%j]", &tk);
	expect_str(buf, "[]\n", __LINE__);
	tally_check(&tally, format_check("%j %T", err, sizeof err) == 0, __FILE__, __LINE__,
		    "%%j and %%T are placeholders");

	/* format_line_max: %j counts as the name, the rest as fields. */
	tally_check(&tally,
		    format_line_max("%j", 1000) == 1002 && format_line_max("ab%%", 0) == 5 &&
			    format_line_max("%t", 0) == 2 + REPORT_FIELD_MAX &&
			    format_line_max("%j", SIZE_MAX) == SIZE_MAX,
		    __FILE__, __LINE__, "format_line_max");
	{
		char name[3000], line[4000];
		struct tick big = sample;
		size_t cap = format_line_max("%j %T %u %n", sizeof name - 1), n;
		const char *tail = " 18446744073709551615\n";

		memset(name, 'x', sizeof name - 1);
		name[sizeof name - 1] = '\0';
		big.job = name;
		big.local = lmt;
		big.seq = UINT64_MAX;
		big.wall_ns = INT64_MIN;
		n = format_tick(line, cap, "%j %T %u %n", &big);
		tally_check(&tally,
			    cap <= sizeof line && n > strlen(tail) &&
				    strcmp(line + n - strlen(tail), tail) == 0,
			    __FILE__, __LINE__, "a long name is not cut: %s", line + 2990);
	}
	tz_free(berlin);
	tz_free(kathmandu);
	tz_free(lmt);
}

static void test_dry_run_human(void)
{
	static const struct {
		int64_t at, now;
		const char *job, *want;
	} cases[] = {
		{ S(1796371200), S(1796371200) - S(18 * 3600 + 42 * 60) - 5, NULL,
		  "Fri 2026-12-04 09:00:00 CET  in 18h 42min\n" },
		{ S(1796371200), S(1796371200) - S(3 * 86400 + 59), "report",
		  "report  Fri 2026-12-04 09:00:00 CET  in 3d\n" },
		{ S(1796371200) + 999999999, S(1796371200) - S(12 * 60 + 3), NULL,
		  "Fri 2026-12-04 09:00:00 CET  in 12min 3s\n" },
		{ S(1796371200), S(1796371200) - 250000000, NULL,
		  "Fri 2026-12-04 09:00:00 CET  in 250ms\n" },
		{ S(1796371200), S(1796371200) - 999, NULL, "Fri 2026-12-04 09:00:00 CET  now\n" },
		{ S(1796371200), S(1796371200) + S(5 * 3600 + 3 * 60), NULL,
		  "Fri 2026-12-04 09:00:00 CET  5h 3min ago\n" },
		{ S(1782000000), S(1782000000) - S(400 * 86400), NULL,
		  "Sun 2026-06-21 02:00:00 CEST  in 1y 1month\n" },
		{ S(1782000000), S(1782000000) - S(9 * 86400), NULL,
		  "Sun 2026-06-21 02:00:00 CEST  in 1w 2d\n" },
		{ INT64_MAX, INT64_MIN, NULL, "Sat 2262-04-12 01:47:16 CEST  in 584y 6month\n" },
	};
	char err[256], buf[REPORT_LINE_MAX];
	struct tz *berlin = tz_load("CET-1CEST,M3.5.0,M10.5.0/3", err, sizeof err);

	if (!berlin) {
		tally_check(&tally, 0, __FILE__, __LINE__, "zone: %s", err);
		return;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		format_dry_run_human(buf, sizeof buf, cases[i].job, cases[i].at, cases[i].now,
				     berlin);
		expect_str(buf, cases[i].want, __LINE__);
	}
	format_dry_run_human(buf, sizeof buf, NULL, 0, S(90), NULL);
	expect_str(buf, "Thu 1970-01-01 00:00:00 UTC  1min 30s ago\n", __LINE__);
	tz_free(berlin);
}

/* tfd's own table gives the names glibc's sigabbrev_np gives. */
static void test_signal_names(void)
{
	char buf[16];

	expect_str(signal_name(SIGTERM, buf, sizeof buf), "SIGTERM", __LINE__);
	expect_str(signal_name(SIGRTMIN + 1, buf, sizeof buf) + 3,
		   (snprintf(buf, sizeof buf, "SIG%d", SIGRTMIN + 1), buf + 3), __LINE__);
	expect_str(signal_name(0, buf, sizeof buf), "SIG0", __LINE__);
	expect_str(signal_name(-3, buf, sizeof buf), "SIG-3", __LINE__);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *abbrev = sigabbrev_np(sig);
		char want[16];

		if (!abbrev)
			continue;
		snprintf(want, sizeof want, "SIG%s", abbrev);
		expect_str(signal_name(sig, buf, sizeof buf), want, __LINE__);
	}
#endif
}

static void test_schedule(void)
{
	struct schedule s = { .kind = SCHEDULE_TIMER, .first_ns = S(10), .interval_ns = S(3) };
	int64_t at = 0;

	tally_check(&tally, schedule_next(&s, S(5), &at) == 0 && at == S(10), __FILE__, __LINE__,
		    "before first: %" PRId64, at);
	tally_check(&tally, schedule_next(&s, S(10), &at) == 0 && at == S(13), __FILE__, __LINE__,
		    "at first: %" PRId64, at);
	tally_check(&tally, schedule_next(&s, S(14), &at) == 0 && at == S(16), __FILE__, __LINE__,
		    "on the grid: %" PRId64, at);
	tally_check(&tally, schedule_nth(&s, 4, &at) == 0 && at == S(19), __FILE__, __LINE__,
		    "nth: %" PRId64, at);
	tally_check(&tally, schedule_nth(&s, UINT64_MAX / 2, &at) != 0, __FILE__, __LINE__,
		    "nth overflow is refused");
	tally_check(&tally,
		    schedule_missed(&s, S(100), S(103)) && !schedule_missed(&s, S(100), S(102)),
		    __FILE__, __LINE__, "missed: one whole interval");
	/* The ends of the int64 range (issue 11 item 10): no sum wraps. */
	s.first_ns = -S(1);
	tally_check(&tally, schedule_next(&s, INT64_MAX, &at) != 0, __FILE__, __LINE__,
		    "after the end of time: %" PRId64, at);
	s.first_ns = INT64_MAX - S(4);
	tally_check(&tally,
		    schedule_next(&s, INT64_MAX - S(4), &at) == 0 && at == INT64_MAX - S(1) &&
			    schedule_next(&s, at, &at) != 0,
		    __FILE__, __LINE__, "last on the grid");
	s.interval_ns = INT64_MAX;
	tally_check(&tally,
		    !schedule_missed(&s, S(5), INT64_MAX) && schedule_missed(&s, 0, INT64_MAX) &&
			    schedule_missed(&s, INT64_MIN, 0),
		    __FILE__, __LINE__, "missed at the ends");
	s.first_ns = S(10);
	s.interval_ns = 0;
	tally_check(&tally,
		    schedule_next(&s, S(10), &at) != 0 && schedule_nth(&s, 2, &at) != 0 &&
			    !schedule_repeats(&s),
		    __FILE__, __LINE__, "one-shot has one expiration");
}

static void test_stats(void)
{
	struct stats st;
	char buf[256];

	stats_init(&st);
	for (int i = 1; i <= 100; i++)
		stats_add(&st, i == 50 ? 3 : 1, (int64_t)i * 1000);
	stats_format(&st, buf, sizeof buf);
	expect_str(buf,
		   "tfd: stats: wakeups 100 expirations 102 missed 2 late_us min 1 "
		   "avg 50 p99 99 max 100\n",
		   __LINE__);
	stats_init(&st);
	for (int i = 0; i < 1000; i++)
		stats_add(&st, 1, (i < 990 ? 100 : 100000) * INT64_C(1000));
	tally_check(&tally,
		    stats_percentile_us(&st, 50) >= 100 && stats_percentile_us(&st, 50) <= 103,
		    __FILE__, __LINE__, "p50 %" PRId64, stats_percentile_us(&st, 50));
	tally_check(&tally,
		    stats_percentile_us(&st, 99) >= 100 && stats_percentile_us(&st, 99) <= 103,
		    __FILE__, __LINE__, "p99 %" PRId64, stats_percentile_us(&st, 99));
	tally_check(&tally, stats_percentile_us(&st, 100) == 100000, __FILE__, __LINE__,
		    "p100 %" PRId64, stats_percentile_us(&st, 100));
	/* Extremes saturate instead of wrapping. */
	stats_init(&st);
	stats_add(&st, UINT64_MAX, INT64_MIN);
	stats_add(&st, UINT64_MAX, INT64_MIN);
	stats_add(&st, 1, INT64_MAX);
	tally_check(&tally,
		    st.expirations == UINT64_MAX && st.missed == UINT64_MAX &&
			    st.late_sum_us == INT64_MIN / 1000 &&
			    stats_percentile_us(&st, 99) == INT64_MAX / 1000,
		    __FILE__, __LINE__, "saturated: %" PRIu64 " %" PRIu64 " %" PRId64,
		    st.expirations, st.missed, st.late_sum_us);
	st.wakeups = UINT64_MAX;
	tally_check(&tally, stats_percentile_us(&st, 50) == INT64_MAX / 1000, __FILE__, __LINE__,
		    "rank of a huge count");
}

int main(void)
{
	test_seconds();
	test_times();
	test_format();
	test_json();
	test_json_replica();
	test_json_time();
	test_distance();
	test_span();
	test_json_strings();
	test_output_bound();
	test_local_time();
	test_dry_run_human();
	test_signal_names();
	test_schedule();
	test_stats();
	return tally_finish(&tally, "test_report");
}
