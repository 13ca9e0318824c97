/* SPDX-License-Identifier: MIT */
/* Unit tests for oplog: JOURNAL_STREAM read strictly, each line's journal
 * level and prefix, and the operator's log lines (start, stop, a run's
 * start and end). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "oplog.h"
#include "timens.h"

#define LINE(call) (buf[(call)] = '\0', buf)

static void expect_str(const char *got, const char *want, int line)
{
	tally_check(&tally, strcmp(got, want) == 0, __FILE__, line, "got '%s', want '%s'", got,
		    want);
}

static void test_stream(void)
{
	check(oplog_stream_is("8:1234", 8, 1234), "DEV:INO");
	check(!oplog_stream_is("8:1234", 8, 1235), "another inode");
	check(!oplog_stream_is("9:1234", 8, 1234), "another device");
	check(!oplog_stream_is(NULL, 8, 1234), "unset");
	check(!oplog_stream_is("", 0, 0), "empty");
	check(!oplog_stream_is("8:", 8, 0), "no inode");
	check(!oplog_stream_is(":1234", 0, 1234), "no device");
	check(!oplog_stream_is("8:1234x", 8, 1234), "trailing text");
	check(!oplog_stream_is(" 8:1234", 8, 1234), "a blank before");
	check(!oplog_stream_is("8:+1234", 8, 1234), "a sign");
	check(!oplog_stream_is("-8:1234", (dev_t)-8, 1234), "a minus");
	check(!oplog_stream_is("8:99999999999999999999999", 8, 0), "out of range");
	check(oplog_stream_is("66306:18446744073709551615", 66306, (ino_t)UINT64_MAX),
	      "the largest inode");
}

static void test_levels(void)
{
	char buf[8];

	check(oplog_level_of("tfd: warning: x") == OPLOG_WARNING, "a warning");
	check(oplog_level_of("tfd: write (stdout): x") == OPLOG_ERR, "else an error");
	check(oplog_level_of("tfd: warnings") == OPLOG_ERR, "not a warning's prefix");
	check(oplog_prefix(buf, true, OPLOG_ERR) == 3 && strcmp(buf, "<3>") == 0, "<3>");
	check(oplog_prefix(buf, true, OPLOG_WARNING) == 3 && strcmp(buf, "<4>") == 0, "<4>");
	check(oplog_prefix(buf, true, OPLOG_INFO) == 3 && strcmp(buf, "<6>") == 0, "<6>");
	check(oplog_prefix(buf, false, OPLOG_ERR) == 0 && buf[0] == '\0', "no journal: none");
}

static void test_lines(void)
{
	char buf[256], want[64];
	struct oplog_stop_line stop = { .sig = SIGTERM, .how = OPLOG_STOP_LEFT, .runs = 2 };
	struct run_end ok = { .seq = 7, .status = 0, .duration_ns = 3200000000 },
		       killed = { .seq = 8,
				  .status = -1,
				  .signal = SIGTERM,
				  .timed_out = true,
				  .duration_ns = 3600 * NSEC_PER_SEC + 1234567,
				  .failed = true },
		       retried = { .seq = 9, .status = 3, .duration_ns = 15999999 };

	snprintf(want, sizeof want, "tfd %s: 12 jobs from 3 files\n", TFD_VERSION);
	expect_str(LINE(oplog_start(buf, sizeof buf, 12, 3)), want, __LINE__);
	snprintf(want, sizeof want, "tfd %s: 1 job from 1 file\n", TFD_VERSION);
	expect_str(LINE(oplog_start(buf, sizeof buf, 1, 1)), want, __LINE__);
	snprintf(want, sizeof want, "tfd %s: 1 job from the command line\n", TFD_VERSION);
	expect_str(LINE(oplog_start(buf, sizeof buf, 1, 0)), want, __LINE__);

	expect_str(LINE(oplog_stop(buf, sizeof buf, &stop)),
		   "tfd: stopping on SIGTERM: 2 runs left running\n", __LINE__);
	stop = (struct oplog_stop_line){ .sig = SIGINT,
					 .how = OPLOG_STOP_WAITING,
					 .runs = 1,
					 .dropped = 3 };
	expect_str(LINE(oplog_stop(buf, sizeof buf, &stop)),
		   "tfd: stopping on SIGINT: waiting for 1 run to end (a second signal sends it "
		   "on to them); 3 starts dropped\n",
		   __LINE__);
	stop = (struct oplog_stop_line){ .sig = SIGTERM,
					 .how = OPLOG_STOP_SIGNALLED,
					 .runs = 2,
					 .kill_after_ns = 5 * NSEC_PER_SEC };
	expect_str(LINE(oplog_stop(buf, sizeof buf, &stop)),
		   "tfd: stopping on SIGTERM: 2 runs sent SIGTERM, SIGKILL after 5s\n", __LINE__);
	stop = (struct oplog_stop_line){ .sig = SIGHUP, .how = OPLOG_STOP_SIGNALLED, .dropped = 1 };
	expect_str(LINE(oplog_stop(buf, sizeof buf, &stop)),
		   "tfd: stopping on SIGHUP: 1 start dropped\n", __LINE__);
	stop.dropped = 0;
	expect_str(LINE(oplog_stop(buf, sizeof buf, &stop)), "tfd: stopping on SIGHUP\n", __LINE__);

	expect_str(LINE(oplog_run_start(buf, sizeof buf, "backup", 7, 4242, "alice")),
		   "tfd: backup: run 7 (pid 4242) as alice: started\n", __LINE__);
	expect_str(LINE(oplog_run_start(buf, sizeof buf, "backup", 7, 4242, NULL)),
		   "tfd: backup: run 7 (pid 4242): started\n", __LINE__);
	expect_str(LINE(oplog_run_end(buf, sizeof buf, "backup", &ok)),
		   "tfd: backup: run 7: exited 0 after 3.2s\n", __LINE__);
	expect_str(LINE(oplog_run_end(buf, sizeof buf, "backup", &killed)),
		   "tfd: backup: run 8: timed out, killed by SIGTERM after 3600.001s\n", __LINE__);
	expect_str(LINE(oplog_run_end(buf, sizeof buf, "backup", &retried)),
		   "tfd: backup: run 9: exited 3 after 0.015s, to be tried again\n", __LINE__);
}

/* A line longer than the buffer is cut, its newline kept. */
static void test_cut(void)
{
	char buf[16];
	size_t n = oplog_run_start(buf, sizeof buf, "a-very-long-job-name", 1, 2, NULL);

	check(n == sizeof buf - 1 && buf[n - 1] == '\n' && buf[n] == '\0', "cut at %zu", n);
}

int main(void)
{
	test_stream();
	test_levels();
	test_lines();
	test_cut();
	return tally_finish(&tally, "oplog");
}
