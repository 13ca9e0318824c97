#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# The schedule: clocks, --at, --delay, --interval, --count, --for, one-shot
# timers and the dry run. Timers are short and end with --count; times are
# checked against wide bounds, never for precision.

load test_helper

# Milliseconds since $1 (from now_ns), for "fired at once" and "waited"
# checks.
elapsed_ms() {
	echo $((($(now_ns) - $1) / 1000000))
}

# Clocks

@test "the monotonic, realtime and boottime clocks each arm and fire" {
	local clock
	for clock in monotonic realtime boottime; do
		run --separate-stderr timeout 10 "$TFD" --clock "$clock" -d 10ms -f '%n %e'
		assert_success
		assert_output "1 1"
		assert_equal "$stderr" ""
	done
}

@test "-c is --clock" {
	run --separate-stderr timeout 10 "$TFD" -c boottime -d 10ms -f '%n'
	assert_success
	assert_output "1"
}

@test "the alarm clocks fire, or tfd exits 1 naming timerfd_create and the clock" {
	local clock
	for clock in realtime-alarm boottime-alarm; do
		run --separate-stderr timeout 10 "$TFD" --clock "$clock" -d 10ms -f '%n'
		if ((status == 0)); then
			assert_output "1"
		else
			assert_equal "$status" 1
			assert_output ""
			[[ $stderr == "tfd: timerfd_create ($clock): "* ]] ||
				fail "status 1 without naming timerfd_create ($clock): $stderr"
		fi
	done
}

@test "without CAP_WAKE_ALARM an alarm clock is refused: exit 1 naming timerfd_create (CLOCK)" {
	[[ $EUID -eq 0 ]] || skip "dropping a capability for the test needs root"
	require_command setpriv
	local clock
	for clock in realtime-alarm boottime-alarm; do
		run --separate-stderr setpriv --bounding-set -wake_alarm --inh-caps -wake_alarm \
			timeout 10 "$TFD" --clock "$clock" -d 10ms -f '%n'
		assert_equal "$status" 1
		assert_output ""
		assert_equal "$stderr" "tfd: timerfd_create ($clock): Operation not permitted"
	done
}

@test "a dry run on an alarm clock arms nothing, so it needs no CAP_WAKE_ALARM" {
	[[ $EUID -eq 0 ]] || skip "dropping a capability for the test needs root"
	require_command setpriv
	run --separate-stderr setpriv --bounding-set -wake_alarm --inh-caps -wake_alarm \
		"$TFD" --clock realtime-alarm --base-time @100 -d 1s --dry-run=1 -f '%u'
	assert_success
	assert_output "101.000000000"
}

# --at

@test "--at defaults to the realtime clock: @SECONDS is Unix time" {
	run --separate-stderr "$TFD" --at @1800000000 --dry-run=1 -f '%u'
	assert_success
	assert_output "1800000000.000000000"
}

@test "--at a past timestamp fires at once, late by the whole gap" {
	local start
	start=$(now_ns)
	run --separate-stderr timeout 10 "$TFD" --at @1 -f '%n %e %l'
	assert_success
	(($(elapsed_ms "$start") < 8000)) || fail "took $(elapsed_ms "$start") ms"
	assert_equal "${#lines[@]}" 1
	local -a f
	read -ra f <<<"$output"
	assert_equal "${f[0]} ${f[1]}" "1 1"
	# %l: wake-up time minus 1970-01-01T00:00:01Z, in microseconds.
	local want=$(((start / 1000000000 - 1) * 1000000))
	((f[2] >= want && f[2] < want + 10 * 1000000)) || fail "lateness ${f[2]}, expected about $want"
}

@test "--at a past date and time: a warning says how long ago, and it runs now" {
	run --separate-stderr timeout 10 "$TFD" --at '2020-01-01 10:00:00 UTC' -f '%n'
	assert_success
	assert_output 1
	[[ $stderr =~ ^"tfd: warning: --at '2020-01-01 10:00:00 UTC' was "[0-9]+y( [0-9]+month)?" ago: running now"$ ]] ||
		fail "$stderr"
	# A dry run says what would happen.
	run --separate-stderr "$TFD" --at '2020-01-01 10:00:00 UTC' --base-time '2026-01-01 10:00:00 UTC' \
		--dry-run=1 -f %t
	assert_success
	assert_output 2020-01-01T10:00:00.000000Z
	assert_equal "$stderr" "tfd: warning: --at '2020-01-01 10:00:00 UTC' was 6y ago: it would run at once"
}

@test "--at a time of day alone is its next occurrence, as at(1) reads it" {
	# 01:00 is past at 03:10: tomorrow's.
	run_clean "$TFD" --at '01:00 UTC' --base-time '2026-06-15 03:10 UTC' --dry-run=1 -f %t
	assert_output 2026-06-16T01:00:00.000000Z
	# 05:00 is still to come: today's.
	run_clean "$TFD" --at '05:00 UTC' --base-time '2026-06-15 03:10 UTC' --dry-run=1 -f %t
	assert_output 2026-06-15T05:00:00.000000Z
	# In the local zone too, and a day on the wall clock across a change
	# to daylight saving time (Berlin, 2026-03-29).
	TZ=Europe/Berlin run_clean "$TFD" --at '12:30' --base-time '2026-03-28 13:00' --dry-run=1 -f %T
	assert_output 2026-03-29T12:30:00.000000+02:00
	# With a date, it is that date, past or not.
	run --separate-stderr "$TFD" --at '2026-06-15 01:00 UTC' --base-time '2026-06-15 03:10 UTC' \
		--dry-run=1 -f %t
	assert_output 2026-06-15T01:00:00.000000Z
}

@test "--at a time of day with --interval sets the phase: the grid's next, no catch-up" {
	run_clean "$TFD" --at '00:00 UTC' -i 1h --base-time '2026-06-15 03:10 UTC' --dry-run=2 -f %t
	assert_line --index 0 2026-06-15T04:00:00.000000Z
	assert_line --index 1 2026-06-15T05:00:00.000000Z
}

@test "--at a time of day already past today does not run at once" {
	# A minute ago, on the wall clock: tomorrow's, so nothing runs now.
	local at
	at=$(date -u -d '-1 min' +%H:%M)
	run --separate-stderr timeout 3 "$TFD" --at "$at UTC" -f ran
	assert_equal "$status" 124
	assert_output ""
}

@test "--at in the past with an interval counts every interval missed since then" {
	local at=$(($(now_ns) / 1000000000 - 10))
	run --separate-stderr timeout 10 "$TFD" --at "@$at" -i 1s -n 1 -f '%n %e %E'
	assert_success
	local -a f
	read -ra f <<<"$output"
	assert_equal "${f[0]}" 1
	((f[1] >= 10 && f[1] <= 13)) || fail "expected about 11 expirations at once: $output"
	assert_equal "${f[2]}" "${f[1]}"
}

@test "--at @T on the realtime clock fires at T, not before" {
	local at
	at=$(($(now_ns) + 300000000))
	run --separate-stderr timeout 10 "$TFD" --at "@$(ns_to_seconds "$at")" -f '%u %l'
	assert_success
	local -a f
	read -ra f <<<"$output"
	local u
	u=$(to_ns "${f[0]}")
	((u >= at)) || fail "woke at ${f[0]}, before $(ns_to_seconds "$at")"
	((u < at + 2000000000)) || fail "woke at ${f[0]}, long after $(ns_to_seconds "$at")"
	((f[1] >= 0)) || fail "negative lateness ${f[1]}"
}

@test "--at @T also takes an RFC 3339 timestamp with Z on the realtime clock" {
	local at=$(($(now_ns) / 1000000000 + 1))
	run --separate-stderr timeout 10 "$TFD" --at "$(date -u -d "@$at" +%Y-%m-%dT%H:%M:%SZ)" -f '%u'
	assert_success
	local u
	u=$(to_ns "$output")
	((u >= at * 1000000000 && u < (at + 2) * 1000000000)) || fail "woke at $output, expected $at"
}

@test "--at @RAW with --clock monotonic is a reading of the monotonic clock" {
	local start at
	at=$(($(mono_ns) + 400000000))
	start=$(now_ns)
	run --separate-stderr timeout 10 "$TFD" --clock monotonic --at "@$(ns_to_seconds "$at")" -f '%n %e'
	assert_success
	assert_output "1 1"
	# Read as Unix time, @RAW would lie in 1970 and fire at once.
	(($(elapsed_ms "$start") >= 300)) || fail "fired after $(elapsed_ms "$start") ms, not about 400"
	(($(elapsed_ms "$start") < 5000)) || fail "fired after $(elapsed_ms "$start") ms"
}

@test "--at @RAW with --clock boottime is a reading of the boottime clock" {
	local start up at
	read -r up _ </proc/uptime
	at=$(($(to_ns "$up") + 600000000))
	start=$(now_ns)
	run --separate-stderr timeout 10 "$TFD" --clock boottime --at "@$(ns_to_seconds "$at")" -f '%n'
	assert_success
	assert_output "1"
	(($(elapsed_ms "$start") >= 350)) || fail "fired after $(elapsed_ms "$start") ms, not about 600"
}

@test "--at @0 on the monotonic clock lies in the past and fires at once" {
	local start
	start=$(now_ns)
	run --separate-stderr timeout 5 "$TFD" --clock monotonic --at @0 -f '%n %e'
	assert_success
	assert_output "1 1"
	(($(elapsed_ms "$start") < 8000)) || fail "took $(elapsed_ms "$start") ms"
}

@test "--at @0 on the realtime clock (the epoch itself) fires at once" {
	# A zero it_value would disarm the timer: tfd must not pass @0 through as 0.
	run --separate-stderr timeout 5 "$TFD" --at @0 -f '%n %e'
	assert_success
	assert_output "1 1"
}

# --delay, --interval, --count, --for

@test "--delay fires once, after the delay" {
	run --separate-stderr timeout 10 "$TFD" -d 200ms -f '%n %e %E %s'
	assert_success
	assert_equal "${#lines[@]}" 1
	local -a f
	read -ra f <<<"$output"
	assert_equal "${f[*]:0:3}" "1 1 1"
	local s
	s=$(to_ns "${f[3]}")
	((s >= 200000000 && s < 3000000000)) || fail "%s is ${f[3]}, expected about 0.2"
}

@test "--delay 0 fires at once, before the first interval" {
	local start
	start=$(now_ns)
	run --separate-stderr timeout 70 "$TFD" -d 0 -i 60s -n 1 -f '%n %e'
	assert_success
	assert_output "1 1"
	(($(elapsed_ms "$start") < 20000)) || fail "took $(elapsed_ms "$start") ms: waited for the interval"
}

@test "--interval alone: the first expiration is one interval from now, then every interval" {
	run --separate-stderr timeout 10 "$TFD" -i 150ms -n 3 -f '%n %e %E %s'
	assert_success
	((${#lines[@]} >= 1 && ${#lines[@]} <= 3)) || fail "expected up to 3 lines: $output"
	assert_wakeups 3 '%n %e %E %s'
	local line total s
	for line in "${lines[@]}"; do
		read -r _ _ total s <<<"$line"
		# Expiration number TOTAL is due TOTAL intervals after the start.
		(($(to_ns "$s") >= total * 150000000)) || fail "line '$line' came early"
	done
}

@test "--delay then --interval: first after the delay, then every interval" {
	run --separate-stderr timeout 10 "$TFD" -d 300ms -i 100ms -n 2 -f '%E %s'
	assert_success
	local total s
	read -r total s <<<"${lines[0]}"
	# Had the interval set the first expiration, it would come at 0.1 s.
	(($(to_ns "$s") >= 300000000)) || fail "first wake-up at $s s, before the 0.3 s delay"
	read -r total s <<<"${lines[-1]}"
	((total >= 2)) || fail "stopped at $total expirations of 2"
	(($(to_ns "$s") >= 400000000)) || fail "second expiration at $s s, before 0.4 s"
}

@test "--count stops after N expirations" {
	run --separate-stderr timeout 10 "$TFD" -i 10ms -n 20 -f '%E'
	assert_success
	assert_count_reached 20 "${lines[-1]}" "${lines[-2]:-0}"
	assert_equal "$stderr" ""
}

@test "-n 1 with an interval wakes once" {
	run --separate-stderr timeout 10 "$TFD" -i 10ms -n 1 -f '%n %E'
	assert_success
	# One wake-up; on a stalled machine its read may hold more than one.
	assert_output --regexp '^1 [1-9][0-9]*$'
}

@test "--for stops the schedule after the duration" {
	local start
	start=$(now_ns)
	run --separate-stderr timeout 10 "$TFD" -d 0 -i 2s --for 300ms -f '%n'
	assert_success
	assert_output "1"
	(($(elapsed_ms "$start") >= 250)) || fail "stopped after $(elapsed_ms "$start") ms, before --for"
	(($(elapsed_ms "$start") < 2000)) || fail "stopped after $(elapsed_ms "$start") ms: waited for the interval"
}

@test "--for ending before the first expiration prints nothing and exits 0" {
	run --separate-stderr timeout 10 "$TFD" -i 10s --for 100ms
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
}

@test "--for with a fast interval prints several ticks, then ends" {
	run --separate-stderr timeout 10 "$TFD" -i 50ms --for 400ms -f '%n %E'
	assert_success
	((${#lines[@]} >= 2)) || fail "expected several lines: $output"
	local total
	read -r _ total <<<"${lines[-1]}"
	((total <= 12)) || fail "the schedule ran on past --for: $output"
}

@test "--interval 0 means one-shot" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -i 0 -f '%n %e %i'
	assert_success
	assert_output "1 1 0"
}

@test "--interval 0 alone fires once at once" {
	run --separate-stderr timeout 10 "$TFD" -i 0 -f '%n %e'
	assert_success
	assert_output "1 1"
}

@test "a one-shot --delay timer exits 0 after its single wake-up" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -n 5 -f '%n'
	assert_success
	assert_output "1"
}

# --dry-run

@test "--dry-run prints the next 5 expirations as %t and exits 0" {
	run_clean "$TFD" --base-time @1000 -i 1.5s --dry-run
	assert_equal "$output" "1970-01-01T00:16:41.500000Z
1970-01-01T00:16:43.000000Z
1970-01-01T00:16:44.500000Z
1970-01-01T00:16:46.000000Z
1970-01-01T00:16:47.500000Z"
}

@test "--dry-run=N prints N lines with %n %t %u" {
	run --separate-stderr "$TFD" --clock realtime --base-time @1000 -d 0.5s -i 2s --dry-run=3 -f '%n %t %u'
	assert_success
	assert_equal "$output" "1 1970-01-01T00:16:40.500000Z 1000.500000000
2 1970-01-01T00:16:42.500000Z 1002.500000000
3 1970-01-01T00:16:44.500000Z 1004.500000000"
}

@test "the SPEC's --base-time example prints 1.500000000" {
	run --separate-stderr "$TFD" --clock realtime --base-time @0 --delay 1.5s --dry-run=1 --format %u
	assert_success
	assert_output "1.500000000"
}

@test "--dry-run=12 prints 12 numbered lines" {
	run --separate-stderr "$TFD" --base-time @0 -i 1s --dry-run=12 -f '%n %E %u'
	assert_success
	assert_equal "${#lines[@]}" 12
	assert_equal "${lines[11]}" "12 12 12.000000000"
}

@test "--dry-run without --base-time starts from now" {
	local now
	now=$(now_ns)
	run --separate-stderr "$TFD" -d 100s --dry-run=1 -f '%u'
	assert_success
	local u
	u=$(to_ns "$output")
	((u >= now + 100000000000 && u < now + 105000000000)) || fail "expected about now + 100 s: $output"
}

@test "--dry-run maps an explicit monotonic --at @RAW through the clock's offset" {
	local now at
	now=$(now_ns)
	at=$(($(mono_ns) + 100000000000))
	run --separate-stderr "$TFD" --clock monotonic --at "@$(ns_to_seconds "$at")" --dry-run=1 -f '%u'
	assert_success
	local u
	u=$(to_ns "$output")
	((u >= now + 99000000000 && u < now + 105000000000)) || fail "expected about now + 100 s: $output"
}

@test "--dry-run stops at --count" {
	run --separate-stderr "$TFD" --base-time @0 -i 1s -n 2 --dry-run=5 -f '%n'
	assert_success
	assert_equal "$output" "1
2"
}

@test "--dry-run stops at --for" {
	run --separate-stderr "$TFD" --clock realtime --base-time @1000 -i 2s --for 5s --dry-run -f '%u'
	assert_success
	assert_equal "$output" "1002.000000000
1004.000000000"
}

@test "--dry-run of a one-shot timer prints one line" {
	run --separate-stderr "$TFD" --base-time @0 -d 3s --dry-run=5 -f '%n %u'
	assert_success
	assert_output "1 3.000000000"
}

@test "--dry-run of an --at already past prints that past instant" {
	run --separate-stderr "$TFD" --at @1 --dry-run=1 -f '%t %u'
	assert_success
	assert_output "1970-01-01T00:00:01.000000Z 1.000000000"
}

@test "--dry-run: %t truncates to microseconds, %u keeps nanoseconds" {
	run --separate-stderr "$TFD" --clock realtime --base-time @0 -d 1999999999ns --dry-run=1 -f '%t %u'
	assert_success
	assert_output "1970-01-01T00:00:01.999999Z 1.999999999"
}

@test "--dry-run arms nothing and runs nothing" {
	local start
	start=$(now_ns)
	run --separate-stderr timeout 30 "$TFD" -d 120s -i 1s --dry-run=2 -f '%n' \
		--exec "touch '$BATS_TEST_TMPDIR/ran'"
	assert_success
	assert_equal "$output" "1
2"
	(($(elapsed_ms "$start") < 20000)) || fail "took $(elapsed_ms "$start") ms: it waited"
	[[ ! -e $BATS_TEST_TMPDIR/ran ]] || fail "the command ran in a dry run"
}

@test "--dry-run with a command prints the %t lines" {
	run --separate-stderr "$TFD" --base-time @0 -d 1s --dry-run=1 -- true
	assert_success
	assert_output "1970-01-01T00:00:01.000000Z"
}

# Timestamp forms of --at, read in a dry run

@test "--at takes what date --rfc-3339=ns prints, to the nanosecond" {
	run --separate-stderr "$TFD" --at "$(date --rfc-3339=ns -d @1800000000.123456789)" --dry-run=1 -f '%u'
	assert_success
	assert_output "1800000000.123456789"
}

@test "--at takes what date -Iseconds prints, with its +01:00 offset" {
	run --separate-stderr "$TFD" --at "$(TZ=Europe/Berlin date -Iseconds -d @1800000000)" --dry-run=1 -f '%u'
	assert_success
	assert_output "1800000000.000000000"
	run --separate-stderr "$TFD" --at 2027-01-15T10:00:00+0100 --dry-run=1 -f '%t'
	assert_success
	assert_output "2027-01-15T09:00:00.000000Z"
}

@test "--at reads a local time in the zone of TZ" {
	TZ=Europe/Berlin run --separate-stderr "$TFD" --at '2026-12-03 10:00:00' --dry-run=1 -f '%t'
	assert_success
	assert_output "2026-12-03T09:00:00.000000Z"
}

@test "--at relative forms count from --base-time" {
	run --separate-stderr "$TFD" --base-time @1000 --at +5min --dry-run=1 -f '%u'
	assert_success
	assert_output "1300.000000000"
	TZ=UTC run --separate-stderr "$TFD" --base-time '2026-12-03 10:00:00 UTC' --at tomorrow --dry-run=1 -f '%t'
	assert_success
	assert_output "2026-12-04T00:00:00.000000Z"
	TZ=UTC run --separate-stderr "$TFD" --base-time @0 --at 10:00 --dry-run=1 -f '%t'
	assert_success
	assert_output "1970-01-01T10:00:00.000000Z"
}

@test "--at @ takes a time span after it, as systemd does: @1h is 3600 s" {
	run --separate-stderr "$TFD" --at @1h --dry-run=1 -f '%u'
	assert_success
	assert_output "3600.000000000"
}

@test "--at the last representable instant, 2262-04-11T23:47:16.854775807Z" {
	run --separate-stderr "$TFD" --at @9223372036.854775807 --dry-run=1 -f '%t %u'
	assert_success
	assert_output "2262-04-11T23:47:16.854775Z 9223372036.854775807"
}

# Beyond 2038

@test "--at @T in 2040 (past the 32-bit time_t) in a dry run" {
	run --separate-stderr "$TFD" --at @2208988800 -i 86400 --dry-run=2 -f '%t %u'
	assert_success
	assert_equal "$output" "2040-01-01T00:00:00.000000Z 2208988800.000000000
2040-01-02T00:00:00.000000Z 2209075200.000000000"
}

@test "--at 2040-01-01T00:00:00Z in a dry run" {
	run --separate-stderr "$TFD" --at 2040-01-01T00:00:00Z --dry-run=1 -f '%t %u'
	assert_success
	assert_output "2040-01-01T00:00:00.000000Z 2208988800.000000000"
}

@test "--base-time in 2040 with --delay" {
	run --separate-stderr "$TFD" --clock realtime --base-time @2208988800 --delay 1.5s --dry-run=1 -f '%t %u'
	assert_success
	assert_output "2040-01-01T00:00:01.500000Z 2208988801.500000000"
}

@test "a 2040 --at timer is armed and waits (it does not wrap into the past)" {
	local start
	start=$(now_ns)
	run --separate-stderr timeout 10 "$TFD" --at @2208988800 --for 300ms -f '%n'
	assert_success
	assert_output ""
	(($(elapsed_ms "$start") >= 250)) || fail "ended after $(elapsed_ms "$start") ms"
}
