#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The realtime clock being set: TFD_TIMER_CANCEL_ON_SET makes the kernel tell
# tfd, which recomputes its schedule and reports a "clock" event.

load test_helper

# Sets the realtime clock to (about) the time it already shows: enough for
# the kernel to cancel realtime timers, without moving the clock.
touch_clock() {
	date -s "@$(date +%s.%N)" >/dev/null
}

@test "a realtime --at timer survives the clock being set and still fires" {
	[[ $EUID -eq 0 ]] || skip "setting the clock needs root"
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
	[[ $EUID -eq 0 ]] || skip "setting the clock needs root"
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
	[[ $EUID -eq 0 ]] || skip "setting the clock needs root"
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
