#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# --on-stop=wait under --fleet: a replica told to stop lets its run finish
# and writes its end to tfd_runs, as without the signal (the fleet's own
# side of the drain, claiming nothing more, is the fleet's to build);
# --on-stop=leave is refused there. Against a PostgreSQL of the file's own
# (pg_helper.bash).

load test_helper
load pg_helper

setup_file() {
	pg_start
}

teardown_file() {
	pg_stop
}

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	pg_test_db
}

@test "--fleet --on-stop=wait: the run going ends on its own and its row says succeeded" {
	printf '%s\n' "--name long --calendar '*:*:*' -- sh -c 'echo \$TFD_SCHEDULED >>started; sleep 3; echo ok >>ended'" \
		>jobfile
	start_replica a --jobs jobfile --on-stop=wait
	wait_for_lines started 30 1 || fail "no run started: $(cat a.err)"
	local scheduled
	scheduled=$(head -n 1 started)
	kill -TERM "$PID_a"
	wait_bg_exit "$PID_a" 30
	assert_equal "$bg_status" 0
	[[ -s ended ]] || fail "the run did not end on its own: $(cat a.err)"
	# The run's row: claimed by a, ended succeeded after the signal.
	run pg_sql "SELECT replica, state FROM tfd_runs WHERE job = 'long' AND
		scheduled = to_timestamp(${scheduled%%.*})" "$DB"
	assert_output 'a|succeeded'
	run pg_sql "SELECT count(*) FROM tfd_runs WHERE job = 'long' AND state = 'running'" "$DB"
	assert_output 0
}
