#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The realtime clock being set: TFD_TIMER_CANCEL_ON_SET makes the kernel tell
# tfd, which recomputes its schedule and reports a "clock" event. Each
# test sets the machine's clock: they run only where that is allowed
# (require_clock_tests: CI, or TFD_CLOCK_TESTS=1).

load test_helper

setup() {
	require_clock_tests
}

# True when process $1 has a realtime timerfd armed with
# TFD_TIMER_CANCEL_ON_SET (clockid 0, settime flags 03, a time left).
realtime_timer_armed() {
	awk 'FNR == 1 { c = ""; f = "" }
		/^clockid:/ { c = $2 }
		/^settime flags:/ { f = $3 }
		/^it_value:/ && c == "0" && f == "03" && $0 != "it_value: (0, 0)" { found = 1 }
		END { exit !found }' /proc/"$1"/fdinfo/* 2>/dev/null
}

# Waits until tfd (process $1) has armed its realtime timer: the clock set
# before then would be no change to it (a loaded machine may take seconds).
wait_for_armed() {
	wait_until 20 realtime_timer_armed "$1" || fail "tfd armed no realtime timer"
}

# Sets the realtime clock to (about) the time it already shows: enough for
# the kernel to cancel realtime timers, without moving the clock.
touch_clock() {
	date -s "@$(date +%s.%N)" >/dev/null
}

@test "a realtime --at timer survives the clock being set and still fires" {
	local at=$(($(date +%s) + 2))
	start_bg "$TFD" --at "@$at" --json >"$BATS_TEST_TMPDIR/out"
	wait_for_armed "${BG_PIDS[0]}"
	touch_clock
	wait "${BG_PIDS[0]}"
	run jq -r .event "$BATS_TEST_TMPDIR/out"
	assert_line --index 0 clock
	assert_line --index 1 tick
	run jq -r 'select(.event == "tick") | .unix | floor' "$BATS_TEST_TMPDIR/out"
	assert_output "$at"
}

@test "an interval on the realtime clock keeps its grid after the clock is set" {
	start_bg "$TFD" --clock realtime -i 200ms -n 6 -f '%n %e %l' >"$BATS_TEST_TMPDIR/out" \
		2>"$BATS_TEST_TMPDIR/err"
	wait_for_armed "${BG_PIDS[0]}"
	touch_clock
	wait "${BG_PIDS[0]}"
	assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/out")" 6
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output --partial "realtime clock was set"
	# No wake-up is late by a whole interval: the grid was kept.
	run awk '$3 > 150000 { print }' "$BATS_TEST_TMPDIR/out"
	assert_output ""
}

# True when a tick of the --json file $1 counts 6 expirations or more.
counted_step() {
	jq -se 'map(select(.event == "tick") | .expirations) | max >= 6' "$1" >/dev/null 2>&1
}

# A step of the clock forward over elapses: they are counted as missed at
# the next wake-up (issue 11 item 9), never skipped silently. The clock is
# put back by the same amount at once.
check_forward_step() {
	start_bg "$TFD" "$@" --json >"$BATS_TEST_TMPDIR/out"
	wait_for_armed "${BG_PIDS[0]}"
	date -s '+65 seconds' >/dev/null
	# The clock is put back once tfd has counted the elapses the step
	# passed over (whatever the outcome: the check below says it).
	wait_until 20 counted_step "$BATS_TEST_TMPDIR/out" || true
	date -s '-65 seconds' >/dev/null
	kill -TERM "${BG_PIDS[0]}"
	wait "${BG_PIDS[0]}" || true
	run jq -s 'map(select(.event == "tick") | .expirations) | max' "$BATS_TEST_TMPDIR/out"
	[[ $output -ge 6 ]] || fail "skipped elapses not counted: $(cat "$BATS_TEST_TMPDIR/out")"
}

@test "a forward step of the clock: calendar elapses it skipped are counted" {
	check_forward_step --calendar '*:*:0/10'
}

@test "a forward step of the clock: a realtime interval's skipped expirations are counted" {
	check_forward_step -c realtime -i 10s
}

# The clock set back (issue 22 item 13): no elapse runs again. Each run
# writes the instant it was scheduled for (TFD_SCHEDULED). Just after an
# elapse the clock is set back 3 s, and 2 s later forward 3 s (so it ends
# where it would have been), with nothing between the two steps that can
# fail and leave it set back.
@test "the clock set back: no elapse of a calendar or realtime --at/--interval job runs again; set forward, the passed-over ones run once" {
	local d=$BATS_TEST_TMPDIR at f
	at=$(($(date +%s) + 1))
	start_bg "$TFD" --json --calendar '*:*:*' -e "echo \$TFD_SCHEDULED >>'$d/cal'" >"$d/cal.json"
	start_bg "$TFD" --json --at "@$at" --interval 1s -e "echo \$TFD_SCHEDULED >>'$d/int'" \
		>"$d/int.json"
	wait_for_lines "$d/cal" 10 2 || fail "the calendar job did not run"
	wait_for_lines "$d/int" 10 2 || fail "the interval job did not run"
	date -s '-3 seconds' >/dev/null
	sleep 2
	date -s '+3 seconds' >/dev/null
	sleep 2.5
	kill -TERM "${BG_PIDS[@]}"
	wait "${BG_PIDS[@]}" || true
	for f in cal int; do
		# In the order they ran, each instant is later than the one before.
		run sort -n -c -u "$d/$f"
		assert_success
		(($(wc -l <"$d/$f") >= 4)) || fail "$f: too few runs: $(cat "$d/$f")"
		run jq -s 'map(select(.event == "clock")) | length' "$d/$f.json"
		(( output >= 1 )) || fail "$f: no clock event: $(cat "$d/$f.json")"
		# The forward step passed over elapses: one wake-up counts them,
		# one run acts on them.
		run jq -s 'map(select(.event == "tick" and .expirations >= 2) | .action) |
			length >= 1 and all(. == "run")' "$d/$f.json"
		assert_output true
	done
}
