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

# Sets the realtime clock to (about) the time it already shows: enough for
# the kernel to cancel realtime timers, without moving the clock.
touch_clock() {
	date -s "@$(date +%s.%N)" >/dev/null
}

@test "a realtime --at timer survives the clock being set and still fires" {
	local at=$(($(date +%s) + 2))
	start_bg "$TFD" --at "@$at" --json >"$BATS_TEST_TMPDIR/out"
	sleep 0.5
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
	sleep 0.5
	touch_clock
	wait "${BG_PIDS[0]}"
	assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/out")" 6
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output --partial "realtime clock was set"
	# No wake-up is late by a whole interval: the grid was kept.
	run awk '$3 > 150000 { print }' "$BATS_TEST_TMPDIR/out"
	assert_output ""
}

# A step of the clock forward over elapses: they are counted as missed at
# the next wake-up (issue 11 item 9), never skipped silently. The clock is
# put back by the same amount at once.
check_forward_step() {
	start_bg "$TFD" "$@" --json >"$BATS_TEST_TMPDIR/out"
	sleep 0.5
	date -s '+65 seconds' >/dev/null
	sleep 1
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
