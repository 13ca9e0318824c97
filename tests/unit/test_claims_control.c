/* SPDX-License-Identifier: MIT */
/* Unit tests for claims_fleet_record: the fleet's last row of a job
 * (tfd_runs, as the replica's view read it) as the run record that
 * tfdctl list shows: each state and exit status to its RESULT, the
 * duration from claimed_at to finished_at, a running row without one. */
#include "claims.h"
#include "harness.h"

#include <string.h>

#define S INT64_C(1000000000)

static struct run_record record_of(const char *state, int exit_status, bool timed_out, bool *ended)
{
	struct fleet_last f = { .start_ns = 100 * S,
				.end_ns = 102 * S + 5,
				.replica = "b",
				.state = state,
				.exit_status = exit_status,
				.timed_out = timed_out };
	struct run_record r;

	*ended = claims_fleet_record(&f, &r);
	return r;
}

static void test_results(void)
{
	bool ended;
	struct run_record r = record_of("succeeded", 0, false, &ended);

	check(ended && r.status == 0 && !r.signal && !r.timed_out && !r.start_failed,
	      "succeeded: success");
	check(r.start_ns == 100 * S && r.duration_ns == 2 * S + 5, "start and duration");
	r = record_of("failed", 3, false, &ended);
	check(ended && r.status == 3 && !r.signal && !r.start_failed, "failed 3: status 3");
	r = record_of("failed", 128 + 15, false, &ended);
	check(ended && r.signal == 15 && r.status == -1, "failed 143: signal 15");
	r = record_of("failed", 128 + 15, true, &ended);
	check(ended && r.timed_out, "timed out: timeout");
	r = record_of("failed", -1, false, &ended);
	check(ended && r.start_failed, "failed without a status: never started (failure)");
	r = record_of("abandoned", -1, false, &ended);
	check(ended && r.start_failed, "abandoned: failure");
	r = record_of("running", -1, false, &ended);
	check(!ended && r.start_ns == 100 * S && r.duration_ns == 0, "running: its start, no end");
}

int main(void)
{
	test_results();
	return tally_finish(&tally, "claims_control");
}
