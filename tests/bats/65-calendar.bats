#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --calendar (systemd.time(7) events) and --cron: dry runs against values
# taken from `systemd-analyze calendar` and classic cron, zones, bad input,
# and one live per-second event.

load test_helper

@test "--calendar dry run lists the next elapses in TZ" {
	# TZ=Europe/Berlin systemd-analyze --base-time='2026-12-03 12:00'
	#   calendar --iterations=3 'Mon..Fri *-*-* 09:00'
	TZ=Europe/Berlin run "$TFD" --calendar 'Mon..Fri *-*-* 09:00' \
		--base-time '2026-12-03 12:00' --dry-run=3 -f '%u %t'
	assert_success
	assert_output "1796371200.000000000 2026-12-04T08:00:00.000000Z
1796630400.000000000 2026-12-07T08:00:00.000000Z
1796716800.000000000 2026-12-08T08:00:00.000000Z"
}

@test "--calendar defaults to five lines of %t, and a zone suffix overrides TZ" {
	TZ=America/New_York run "$TFD" --calendar '*-*-* 00:00:00 UTC' --base-time @0 --dry-run
	assert_success
	assert_equal "${#lines[@]}" 5
	assert_line --index 0 1970-01-02T00:00:00.000000Z
	assert_line --index 4 1970-01-06T00:00:00.000000Z
}

@test "--calendar shorthands, repetitions and ~ (last days of the month)" {
	run "$TFD" --calendar 'hourly' --base-time @0 --dry-run=2 -f %u
	assert_output "3600.000000000
7200.000000000"
	TZ=UTC run "$TFD" --calendar '*:0/15' --base-time @0 --dry-run=3 -f %u
	assert_output "900.000000000
1800.000000000
2700.000000000"
	# The last day of February in a leap year, then in the next years.
	TZ=UTC run "$TFD" --calendar '*-02~01' --base-time '2028-01-01' --dry-run=2 -f %t
	assert_output "2028-02-29T00:00:00.000000Z
2029-02-28T00:00:00.000000Z"
}

@test "--calendar in a DST gap skips the missing wall time, as systemd does" {
	# 2026-03-29 02:30 does not exist in Berlin: the next elapse is a day later.
	TZ=Europe/Berlin run "$TFD" --calendar '*-*-* 02:30' --base-time '2026-03-28 12:00' \
		--dry-run=2 -f %t
	assert_output "2026-03-30T00:30:00.000000Z
2026-03-31T00:30:00.000000Z"
}

@test "--cron dry run: Vixie day-of-month OR day-of-week" {
	# The 13th of any month, or any Friday: both fields restricted.
	TZ=UTC run "$TFD" --cron '0 12 13 * 5' --base-time '2026-11-01' --dry-run=4 -f %t
	assert_success
	assert_output "2026-11-06T12:00:00.000000Z
2026-11-13T12:00:00.000000Z
2026-11-20T12:00:00.000000Z
2026-11-27T12:00:00.000000Z"
}

@test "--cron: a fixed time in the spring-forward gap runs once at the jump (cronie)" {
	TZ=America/New_York run "$TFD" --cron '30 2 * * *' --base-time @1772946000 --dry-run=2 -f %u
	assert_output "1772953200.000000000
1773037800.000000000"
}

@test "--cron @shorthands, names and steps" {
	TZ=UTC run "$TFD" --cron '@daily' --base-time @0 --dry-run=2 -f %u
	assert_output "86400.000000000
172800.000000000"
	TZ=UTC run "$TFD" --cron '*/20 9-10 * jan mon-fri' --base-time '2027-01-01 09:50' --dry-run=3 -f %t
	assert_output "2027-01-01T10:00:00.000000Z
2027-01-01T10:20:00.000000Z
2027-01-01T10:40:00.000000Z"
}

@test "a --calendar that never elapses is a usage error (a --cron whose dates never come is taken: 45-bad-input.bats)" {
	assert_usage_error "'*-02-30'" --calendar '*-02-30'
	assert_usage_error "never elapses" --calendar '2003-03-05 05:40'
	run --separate-stderr timeout 10 "$TFD" --cron '0 0 31 2 *' --dry-run
	assert_success
	assert_output ""
}

@test "malformed calendar events and cron expressions name the bad part" {
	assert_usage_error "'Mon..Fry'" --calendar 'Mon..Fry'
	assert_usage_error "'*-13-01'" --calendar '*-13-01'
	assert_usage_error "'12:61'" --calendar '12:61'
	assert_usage_error "unknown time zone 'Mars/Base'" --calendar '*-*-* 00:00 Mars/Base'
	assert_usage_error "'bogus'" --cron 'bogus'
	assert_usage_error "'61 * * * *'" --cron '61 * * * *'
	assert_usage_error "'* * * * * *'" --cron '* * * * * *'
	assert_usage_error "'@reboot'" --cron '@reboot'
	assert_usage_error "'5/15 * * * *'" --cron '5/15 * * * *'
}

@test "--calendar and --cron refuse a non-realtime clock and other schedules" {
	assert_usage_error "monotonic" --calendar hourly --clock monotonic
	assert_usage_error "--interval" --cron '@hourly' --interval 1s
	assert_usage_error "--cron" --calendar hourly --cron '@hourly'
}

@test "a per-second calendar event fires on whole seconds" {
	run timeout 10 "$TFD" --calendar '*:*:0/1' -n 3 -f '%u %e'
	assert_success
	assert_equal "${#lines[@]}" 3
	local line frac
	for line in "${lines[@]}"; do
		frac=${line#*.}
		frac=${frac%% *}
		# Woken within 0.2 s after the whole second, never before it.
		((10#${frac:0:1} < 2)) || fail "not on a whole second: $line"
	done
	# Three consecutive seconds, one expiration each.
	assert_regex "${lines[2]}" ' 1$'
	(($(cut -d. -f1 <<<"${lines[2]}") - $(cut -d. -f1 <<<"${lines[0]}") == 2)) ||
		fail "not consecutive seconds: ${lines[*]}"
}

@test "--calendar with a command runs it at each elapse, with the tick environment" {
	run timeout 10 "$TFD" --calendar '*:*:0/1' -n 2 -- sh -c 'echo "$TFD_SEQ ${TFD_TIME#*.}"'
	assert_success
	assert_equal "${#lines[@]}" 2
	assert_regex "${lines[0]}" '^1 [0-9]{9}$'
	assert_regex "${lines[1]}" '^2 [0-9]{9}$'
}
