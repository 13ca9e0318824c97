/* Unit tests for the pure modules of the loop's output and arithmetic:
 * report (placeholders, JSON, decimal seconds), schedule (grid, nth, missed)
 * and stats (histogram percentiles). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "schedule.h"
#include "stats.h"
#include "tsv.h"

#define S(ns) ((int64_t)(ns) * 1000000000)

static struct tally t;

static void expect_str(const char *got, const char *want, int line)
{
	tally_check(&t, strcmp(got, want) == 0, __FILE__, line,
		    "got '%s', want '%s'", got, want);
}

static void test_seconds(void)
{
	static const struct { int64_t ns; const char *text; } cases[] = {
		{ 0, "0" }, { 250000000, "0.25" }, { S(1), "1" }, { 1, "0.000000001" },
		{ S(90) + 500, "90.0000005" }, { -500000000, "-0.5" },
		{ INT64_MAX, "9223372036.854775807" }, { INT64_MIN, "-9223372036.854775808" },
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
}

static const struct tick sample = {
	.seq = 3, .expirations = 2, .total = 5, .wall_ns = S(1796292001) + 123456,
	.elapsed_ns = S(3) / 2, .late_ns = 12345, .next_in_ns = 250000000,
	.interval_ns = S(1), .action = "skip",
};

static void test_format(void)
{
	char buf[REPORT_LINE_MAX], err[256];

	format_tick(buf, sizeof buf, "%n %e %E %t %u %s %l %r %i %%", &sample);
	expect_str(buf, "3 2 5 2026-12-03T10:00:01.000123Z 1796292001.000123456 "
		   "1.5 12 0.25 1 %\n", __LINE__);
	format_tick(buf, sizeof buf, "plain", &sample);
	expect_str(buf, "plain\n", __LINE__);
	/* A line cut to the buffer is cut between fields, not inside one. */
	format_tick(buf, 12, "%u%n", &sample);
	expect_str(buf, "\n", __LINE__);
	tally_check(&t, format_check("%n %%", err, sizeof err) == 0, __FILE__, __LINE__, "valid");
	tally_check(&t, format_check("%x", err, sizeof err) != 0 && strstr(err, "'%x'"),
		    __FILE__, __LINE__, "unknown placeholder: %s", err);
	tally_check(&t, format_check("abc%", err, sizeof err) != 0, __FILE__, __LINE__,
		    "lone %%");
	tally_check(&t, format_uses_next("a %r") && !format_uses_next("%%r %n"),
		    __FILE__, __LINE__, "format_uses_next");
}

static void test_json(void)
{
	char buf[REPORT_LINE_MAX];
	struct run_end killed = { .seq = 4, .pid = 1234, .status = -1, .signal = 15,
				  .duration_ns = 2500000000, .timed_out = true };
	struct run_end ok = { .seq = 5, .pid = 99, .duration_ns = 1000000 };

	json_tick(buf, sizeof buf, &sample);
	expect_str(buf, "{\"event\":\"tick\",\"seq\":3,\"expirations\":2,\"total\":5,"
		   "\"time\":\"2026-12-03T10:00:01.000123Z\",\"unix\":1796292001.000123456,"
		   "\"elapsed\":1.5,\"late_us\":12,\"next_in\":0.25,\"interval\":1,"
		   "\"action\":\"skip\"}\n", __LINE__);
	json_exit(buf, sizeof buf, &killed);
	expect_str(buf, "{\"event\":\"exit\",\"seq\":4,\"pid\":1234,\"status\":null,"
		   "\"signal\":\"SIGTERM\",\"duration\":2.5,\"timed_out\":true}\n", __LINE__);
	json_exit(buf, sizeof buf, &ok);
	expect_str(buf, "{\"event\":\"exit\",\"seq\":5,\"pid\":99,\"status\":0,"
		   "\"signal\":null,\"duration\":0.001,\"timed_out\":false}\n", __LINE__);
	json_clock(buf, sizeof buf, S(1));
	expect_str(buf, "{\"event\":\"clock\",\"time\":\"1970-01-01T00:00:01.000000Z\","
		   "\"unix\":1.000000000}\n", __LINE__);
}

static void test_schedule(void)
{
	struct schedule s = { .kind = SCHEDULE_TIMER, .first_ns = S(10), .interval_ns = S(3) };
	int64_t at = 0;

	tally_check(&t, schedule_next(&s, S(5), &at) == 0 && at == S(10), __FILE__, __LINE__,
		    "before first: %" PRId64, at);
	tally_check(&t, schedule_next(&s, S(10), &at) == 0 && at == S(13), __FILE__, __LINE__,
		    "at first: %" PRId64, at);
	tally_check(&t, schedule_next(&s, S(14), &at) == 0 && at == S(16), __FILE__, __LINE__,
		    "on the grid: %" PRId64, at);
	tally_check(&t, schedule_nth(&s, 4, &at) == 0 && at == S(19), __FILE__, __LINE__,
		    "nth: %" PRId64, at);
	tally_check(&t, schedule_nth(&s, UINT64_MAX / 2, &at) != 0, __FILE__, __LINE__,
		    "nth overflow is refused");
	tally_check(&t, schedule_missed(&s, S(100), S(103)) && !schedule_missed(&s, S(100), S(102)),
		    __FILE__, __LINE__, "missed: one whole interval");
	s.interval_ns = 0;
	tally_check(&t, schedule_next(&s, S(10), &at) != 0 && schedule_nth(&s, 2, &at) != 0 &&
		    !schedule_repeats(&s), __FILE__, __LINE__, "one-shot has one expiration");
}

static void test_stats(void)
{
	struct stats st;
	char buf[256];

	stats_init(&st);
	for (int i = 1; i <= 100; i++)
		stats_add(&st, i == 50 ? 3 : 1, (int64_t)i * 1000);
	stats_format(&st, buf, sizeof buf);
	expect_str(buf, "tfd: stats: wakeups 100 expirations 102 missed 2 late_us min 1 "
		   "avg 50 p99 99 max 100\n", __LINE__);
	stats_init(&st);
	for (int i = 0; i < 1000; i++)
		stats_add(&st, 1, (i < 990 ? 100 : 100000) * INT64_C(1000));
	tally_check(&t, stats_percentile_us(&st, 50) >= 100 && stats_percentile_us(&st, 50) <= 103,
		    __FILE__, __LINE__, "p50 %" PRId64, stats_percentile_us(&st, 50));
	tally_check(&t, stats_percentile_us(&st, 99) >= 100 && stats_percentile_us(&st, 99) <= 103,
		    __FILE__, __LINE__, "p99 %" PRId64, stats_percentile_us(&st, 99));
	tally_check(&t, stats_percentile_us(&st, 100) == 100000, __FILE__, __LINE__,
		    "p100 %" PRId64, stats_percentile_us(&st, 100));
}

int main(void)
{
	test_seconds();
	test_times();
	test_format();
	test_json();
	test_schedule();
	test_stats();
	return tally_finish(&t, "test_report");
}
