#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# --on-stop=wait under --fleet, a replica's drain: from the signal on it
# claims nothing more (the others take the elapses), starts what it won and
# waits for its runs, renewing their leases, writes each end, lets its name
# go and exits 0; a second signal forwards (41-on-stop.bats: --on-stop
# without --fleet, and --on-stop=leave refused with it). Against a
# PostgreSQL of the file's own (pg_helper.bash).

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

# The seconds since the epoch of the first run of $RUNS on replica $1 whose
# instant is after $2, or nothing.
first_run_after() {
	awk -v r="$1" -v t="$2" '$3 == r && $2 + 0 > t + 0 { print $2; exit }' "$RUNS"
}

@test "--fleet --on-stop=wait, two replicas: the stopped one's 4 s run ends succeeded there, its lease renewed meanwhile; the next elapse runs on the other; its name is released" {
	fleet_runs_log
	# A 2 s lease: a run of 4 s whose renewals stopped at the signal
	# would be found abandoned by the other replica.
	printf '%s\n' "--name long --calendar '*:*:*' -- sh -c '$LOG; sleep 4; echo \$TFD_SCHEDULED >>$PWD/ended'" \
		>jobfile
	start_replica a --jobs jobfile --on-stop=wait --fleet-lease 2s
	start_replica b --jobs jobfile --on-stop=wait --fleet-lease 2s
	wait_for_lines "$RUNS" 30 1 || fail "no run started: $(cat a.err b.err)"
	local first on other=a pid
	read -r _ first on <"$RUNS"
	[[ $on == b ]] || other=b
	pid=$(eval echo "\$PID_$on")
	kill -TERM "$pid"
	wait_bg_exit "$pid" 30
	assert_equal "$bg_status" 0
	# Its run ended on its own, and its row says so.
	grep -qx "$first" ended || fail "the run did not end on its own: $(cat ended "$on.err")"
	run pg_sql "SELECT replica, state, exit_status FROM tfd_runs WHERE job = 'long' AND
		scheduled = to_timestamp($first)" "$DB"
	assert_output "$on|succeeded|0"
	# It ran nothing after that run; the other replica runs the next
	# elapse, once the run's end holds it no longer (--overlap skip).
	run first_run_after "$on" "$first"
	assert_output ""
	ran_on_other() {
		[[ -n $(first_run_after "$other" "$first") ]]
	}
	wait_until 30 ran_on_other ||
		fail "the other replica ran nothing after $first: $(cat "$RUNS")"
	# The replica's name is released: a process that takes it next need
	# not wait for a lease.
	run pg_sql "SELECT seen_at < now() - interval '2 s' FROM tfd_replicas WHERE replica = '$on'" "$DB"
	assert_output t
	run pg_sql "SELECT count(*) FROM tfd_runs WHERE state = 'abandoned'" "$DB"
	assert_output 0
	run fleet_stderr "$on.err"
	assert_output ""
}

@test "--fleet: a stopped replica's name is released even when the server answers the release late: no renewal falling due meanwhile holds it again" {
	printf '%s\n' "--name tick --calendar '*:*:*' -- true" >jobfile
	start_replica a --jobs jobfile --fleet-lease 2s
	held() {
		[[ $(pg_sql "SELECT count(*) FROM tfd_replicas WHERE replica = 'a'" "$DB" 2>/dev/null) == 1 ]]
	}
	wait_until 30 held || fail "a did not take its name: $(cat a.err)"
	# The name's row locked for 1.5 s: the release waits behind the lock,
	# and renewals fall due every lease/6 (333 ms) while tfd's exit waits
	# for its answer.
	pg_sql "BEGIN; SELECT 1 FROM tfd_replicas WHERE replica = 'a' FOR UPDATE;
		SELECT pg_sleep(1.5); COMMIT" "$DB" >/dev/null &
	local locker=$!
	locked() {
		[[ $(pg_sql "SELECT count(*) FROM pg_stat_activity
			WHERE query LIKE '%FOR UPDATE%pg_sleep%' AND state = 'active'
			AND pid <> pg_backend_pid()" "$DB") == 1 ]]
	}
	wait_until 30 locked || fail "the lock was not taken"
	kill -TERM "$PID_a"
	wait_bg_exit "$PID_a" 30
	wait "$locker"
	run pg_sql "SELECT seen_at < now() - interval '2 s' FROM tfd_replicas WHERE replica = 'a'" "$DB"
	assert_output t
	run fleet_stderr a.err
	assert_output ""
}

count_runs_of() {
	grep -c " $1\$" "$RUNS" || true
}

@test "--fleet --on-stop=wait: a replica stopped while it starts the runs it won starts each of them and waits for it: none released, none abandoned" {
	fleet_runs_log
	# One claim statement's worth: every elapse is won before the
	# first run starts (64 start a turn).
	burst_jobs 1000 keep
	start_replica a --jobs "$jobs" --on-stop=wait
	claimed() {
		(($(pg_sql "SELECT count(*) FROM tfd_runs WHERE job LIKE 'j%'" "$DB" 2>/dev/null || echo 0) == 1000))
	}
	wait_until 60 claimed || fail "the claims were not all written: $(cat a.err)"
	kill -TERM "$PID_a"
	local started
	started=$(count_runs_of a)
	wait_bg_exit "$PID_a" 120
	assert_equal "$bg_status" 0
	((started < 1000)) || skip "a started all its runs before the signal: nothing was left to start"
	assert_equal "$(count_runs_of a)" 1000
	assert_each_once
	run pg_sql "SELECT replica, state, count(*) FROM tfd_runs WHERE job LIKE 'j%' GROUP BY 1, 2" "$DB"
	assert_output "a|succeeded|1000"
	assert_equal "$(grep -c '"action":"run"' a.out)" 1000
}

@test "--fleet --on-stop=wait: SIGTERM during a burst's claims on one of two replicas: it claims nothing more, starts what it won and exits 0; every elapse runs once, none abandoned" {
	skip_under_asan "3,000 runs take minutes there; the normal build runs it, and the 1,000-run burst above runs under ASan"
	fleet_runs_log
	burst_jobs 3000 keep
	start_replica a --jobs "$jobs" --on-stop=wait --fleet-lease 6s
	start_replica b --jobs "$jobs" --on-stop=wait --fleet-lease 6s
	# The replica stopped is the first to start 20 runs: which one wins a
	# burst's claims is the database's race, and one may win them all.
	local s o pid_s pid_o
	first_to_run() {
		for s in a b; do
			(($(count_runs_of $s) >= 20)) && return 0
		done
		return 1
	}
	wait_until 60 first_to_run || fail "neither ran: $(cat a.err b.err)"
	o=b
	[[ $s == a ]] || o=a
	pid_s=PID_$s pid_o=PID_$o
	kill -TERM "${!pid_s}"
	wait_bg_exit "${!pid_s}" 120
	assert_equal "$bg_status" 0
	stop_when_settled 3000 "${!pid_o}"
	assert_equal "$(wc -l <"$RUNS")" 3000
	run pg_sql "SELECT state, count(*) FROM tfd_runs WHERE job LIKE 'j%' GROUP BY 1" "$DB"
	assert_output "succeeded|3000"
	# Every elapse the stopped one won it ran (its row names it), none it released.
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job LIKE 'j%' AND replica = '$s'" "$DB")" \
		"$(count_runs_of $s)"
	assert_equal "$(grep -c '"action":"run"' $s.out)" "$(count_runs_of $s)"
}

@test "--fleet, the default --on-stop: more won elapses released at a stop than one renewal takes are all taken at once by the next replica and run, none abandoned" {
	skip_under_asan "2,500 runs take minutes there; the normal build runs it, and the 1,000-run burst above runs under ASan"
	fleet_runs_log
	burst_jobs 2500 keep
	start_replica a --jobs "$jobs"
	claimed() {
		(($(pg_sql "SELECT count(*) FROM tfd_runs WHERE job LIKE 'j%'" "$DB" 2>/dev/null || echo 0) == 2500))
	}
	wait_until 60 claimed || fail "the claims were not all written: $(cat a.err)"
	kill -TERM "$PID_a"
	wait_bg_exit "$PID_a" 60
	local released
	released=$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job LIKE 'j%' AND replica = ''" "$DB")
	((released > 1000)) || skip "a started all but $released runs before the signal: one renewal takes them"
	# b renews every 10 min (its lease / 6): only taking again at once, when
	# a renewal took its fill, takes the rest within the elapses' 60 s.
	start_replica b --jobs "$jobs" --fleet-lease 1h
	wait_until 120 eval '(($(count_runs_of b) == released))' ||
		fail "b ran $(count_runs_of b) of $released: $(pg_sql "SELECT state, replica, count(*) FROM tfd_runs GROUP BY 1, 2" "$DB")"
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job LIKE 'j%' AND state = 'abandoned'" "$DB")" 0
	stop_when_settled 2500 "$PID_b"
}

@test "--fleet --on-stop=wait: a won start that waits for its --random-delay is released at the signal, not at exit; a second signal ends the runs and their ends are written" {
	fleet_runs_log
	local at=$(($(date +%s) + 3))
	printf '%s\n' "--name long --clock realtime --at @$at -- sh -c '$LOG; exec sleep 60'" \
		"--name later --clock realtime --at @$at --random-delay 10min -- sh -c '$LOG'" >jobfile
	start_replica a --jobs jobfile --on-stop=wait
	wait_for_lines "$RUNS" 30 1 || fail "no run started: $(cat a.err)"
	won() {
		[[ $(pg_sql "SELECT replica FROM tfd_runs WHERE job = 'later'" "$DB") == a ]]
	}
	wait_until 30 won || fail "later was not claimed: $(cat a.err)"
	! grep -q '^later ' "$RUNS" || skip "later's random delay was over before the signal"
	kill -TERM "$PID_a"
	# Released while the drain waits for long: another replica's next
	# renewal may take it.
	released() {
		[[ $(pg_sql "SELECT replica || '|' || state FROM tfd_runs WHERE job = 'later'" "$DB") == '|running' ]]
	}
	wait_until 30 released || fail "later's claim: $(pg_sql "SELECT * FROM tfd_runs" "$DB")"
	[[ -d /proc/$PID_a ]] || fail "a exited before the second signal: $(cat a.out a.err)"
	kill -TERM "$PID_a"
	wait_bg_exit "$PID_a" 30
	assert_equal "$bg_status" 143
	run pg_sql "SELECT replica, state, exit_status FROM tfd_runs WHERE job = 'long'" "$DB"
	assert_output "a|failed|143"
	run grep -c '^later ' "$RUNS"
	assert_output 0
}
