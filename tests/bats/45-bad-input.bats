#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# Bad command lines: each is a usage error (status 2, one line naming the
# bad text, then the hint), and nothing is armed or run. Where a command is
# allowed, it would leave a marker file; the marker must not exist. An
# error that --help cannot mend (a file's permissions, a port in use, an
# unknown TZ) has no hint. Also --help, --usage and --version.

load test_helper

setup_file() {
	# A tfd that wrongly accepted a bad value would wait forever: every call
	# here goes through a timeout, which then fails the test.
	local wrapper=$BATS_FILE_TMPDIR/tfd
	printf '#!/bin/sh\nexec timeout 10 "%s" "$@"\n' "$TFD" >"$wrapper"
	chmod +x "$wrapper"
	export TFD_UNDER_TEST=$TFD TFD=$wrapper
}

setup() {
	MARK=$BATS_TEST_TMPDIR/ran
	RUN=(--exec "touch '$MARK'")
}

# Asserts a usage error naming $1 for the options after it, plus a command
# that must not run.
bad() {
	local text=$1
	shift
	assert_usage_error "$text" "$@" "${RUN[@]}"
	[[ ! -e $MARK ]] || fail "the command ran"
}

# Options

@test "an unknown long option" {
	bad --bogus --bogus -d 10ms
}

@test "an unknown option near a known one: did you mean" {
	bad "tfd: --intreval: unknown option; did you mean --interval?" --intreval 1s
	bad "tfd: --intreval=1s: unknown option; did you mean --interval?" --intreval=1s
	bad "tfd: --dry: unknown option; did you mean --dry-run?" --dry -i 1s
	bad "tfd: --on-stpo: unknown option; did you mean --on-stop?" --on-stpo wait -i 1s
	bad "tfd: --bogus: unknown option" --bogus -i 1s
	[[ ${stderr_lines[0]} != *"did you mean"* ]] || fail "a guess for --bogus: $stderr"
}

@test "an unknown option on a jobs file's line: did you mean" {
	printf '%s\n' '--name a --intreval 1s -- true' >"$BATS_TEST_TMPDIR/jobs"
	assert_usage_error "--intreval: not an option of a job line; did you mean --interval?" \
		--jobs "$BATS_TEST_TMPDIR/jobs" --dry-run=1
}

@test "an unknown short option" {
	bad -Z -Z -d 10ms
}

@test "an unknown option after a valid one with a value" {
	bad --intervall -d 10ms --intervall 1s
}

@test "a missing argument at the end: --interval" {
	assert_usage_error --interval -d 10ms --interval
}

@test "a missing argument at the end: -d" {
	assert_usage_error -d -d
}

@test "a missing argument at the end: --clock" {
	assert_usage_error --clock -d 10ms --clock
}

# Clocks

@test "an unknown clock" {
	bad tai --clock tai -d 10ms
}

@test "a clock that is not a timerfd clock" {
	bad process-cputime --clock process-cputime -d 10ms
}

# Durations

@test "a duration with an unknown unit: --interval 5x" {
	bad 5x --interval 5x -n 1
}

@test "a negative duration: --interval -1s" {
	bad -1s --interval=-1s -n 1
}

@test "an empty duration: --delay ''" {
	bad --delay --delay ''
}

@test "a duration of blanks: --delay ' '" {
	bad --delay --delay ' '
}

@test "a duration with trailing garbage: --delay '5s garbage'" {
	bad '5s garbage' --delay '5s garbage'
}

@test "a duration with a trailing punctuation mark: --for 10s!" {
	bad '10s!' -d 10ms --for '10s!'
}

@test "a non-ASCII digit in a duration: --interval 1０s" {
	bad '1０s' --interval '1０s' -n 1
}

@test "a non-ASCII duration: --delay é" {
	bad 'é' --delay 'é'
}

@test "a duration over 2^63-1 ns: --interval 9223372037s" {
	bad 9223372037s --interval 9223372037s -n 1
}

@test "a duration over 2^63-1 ns that systemd takes: --delay 300y" {
	bad 300y --delay 300y
}

@test "a number too large for any integer: --delay 99999999999999999999" {
	bad 99999999999999999999 --delay 99999999999999999999
}

@test "infinity is not a duration" {
	bad infinity --interval infinity -n 1
}

@test "two decimal points: --interval 1.5.5s" {
	bad 1.5.5s --interval 1.5.5s -n 1
}

@test "a unit without a number: --delay s" {
	bad "'s'" --delay s
}

@test "an exponent is not a duration: --delay 1e3" {
	bad 1e3 --delay 1e3
}

@test "hex is not a duration: --interval 0x10" {
	bad 0x10 --interval 0x10 -n 1
}

@test "a bad --for" {
	bad -5s -d 10ms --for=-5s
}

@test "a bad --timeout" {
	bad 5parsecs -d 10ms --timeout 5parsecs
}

@test "a bad --random-delay" {
	bad 5q -d 10ms --random-delay 5q
}

@test "a negative --random-delay" {
	bad -1s -d 10ms --random-delay=-1s
}

# Counts

@test "--count 0" {
	bad "'0'" -i 10ms -n 0
}

@test "--count -1" {
	bad -1 -i 10ms --count=-1
}

@test "--count 1x" {
	bad 1x -i 10ms -n 1x
}

@test "--count 1.5" {
	bad 1.5 -i 10ms -n 1.5
}

@test "--count 99999999999999999999" {
	bad 99999999999999999999 -i 10ms -n 99999999999999999999
}

@test "--count ''" {
	bad --count -i 10ms --count ''
}

@test "--dry-run=0" {
	bad "'0'" -d 10ms --dry-run=0
}

@test "--dry-run=5x" {
	bad 5x -d 10ms --dry-run=5x
}

@test "--dry-run=-2" {
	bad -2 -d 10ms --dry-run=-2
}

# Schedules

@test "no schedule at all" {
	bad schedule
}

@test "no schedule, only a count" {
	bad schedule -n 3
}

@test "--base-time without --dry-run" {
	bad --base-time --base-time @0 -d 10ms
}

@test "--at in calendar form on an explicit --clock monotonic" {
	bad '2026-12-03 10:00:00' --clock monotonic --at '2026-12-03 10:00:00'
}

@test "--at 'tomorrow' on an explicit --clock boottime" {
	bad tomorrow --clock boottime --at tomorrow
}

@test "--at +5min on an explicit --clock monotonic" {
	bad +5min --clock monotonic --at +5min
}

@test "--at and --delay together" {
	bad --delay --at @1 --delay 10ms
}

@test "--calendar with --interval" {
	bad --interval --calendar hourly --interval 1s
}

@test "--calendar with --delay" {
	bad --delay --calendar hourly --delay 1s
}

@test "--calendar with --cron" {
	bad --cron --calendar hourly --cron @hourly
}

@test "--cron with --at" {
	bad --at --cron @hourly --at @1
}

@test "--calendar on the monotonic clock" {
	bad monotonic --clock monotonic --calendar hourly
}

# Output

@test "--json with --format" {
	bad --format -d 10ms --json --format '%n'
}

@test "an unknown placeholder %x" {
	bad %x -d 10ms -f 'a %x b'
}

@test "an unknown placeholder %N (placeholders are case-sensitive)" {
	bad %N -d 10ms -f '%N'
}

@test "a trailing lone %" {
	bad 'tick %' -d 10ms -f 'tick %'
}

@test "a format that is only %" {
	bad "'%'" -d 10ms -f '%'
}

# Running commands

@test "--overlap with an unknown policy" {
	bad sometimes -i 10ms -n 1 --overlap sometimes
}

@test "--overlap with an empty policy" {
	bad --overlap -i 10ms -n 1 --overlap ''
}

@test "--timeout without a command" {
	assert_usage_error --timeout -d 10ms --timeout 1s
}

@test "--overlap without a command" {
	assert_usage_error --overlap -d 10ms --overlap queue
}

@test "--exit-on-error without a command" {
	assert_usage_error --exit-on-error -d 10ms -E
}

@test "--exec with -- COMMAND" {
	assert_usage_error --exec -d 10ms --exec "touch '$MARK'" -- touch "$MARK"
	[[ ! -e $MARK ]] || fail "the command ran"
}

# Calendar events and cron expressions (these need the real modules)

@test "a bad --calendar weekday" {
	bad Fry --calendar 'Mon..Fry *-*-* 10:00'
}

@test "a bad --calendar hour" {
	bad 25 --calendar '*-*-* 25:00'
}

@test "an empty --calendar" {
	bad --calendar --calendar ''
}

@test "a --calendar that never elapses: *-02-30" {
	bad '*-02-30' --calendar '*-02-30'
}

@test "a --cron minute out of range" {
	bad 61 --cron '61 * * * *'
}

@test "a --cron with four fields" {
	bad --cron --cron '* * * *'
}

@test "an unknown --cron @nickname" {
	bad @fortnightly --cron @fortnightly
}

@test "a --cron whose dates never come (0 0 30 2 *, cron's never) is taken with a warning: no expiration" {
	local expr
	for expr in '0 0 30 2 *' '0 0 31 4 *' '0 0 31 2,4,6,9,11 *'; do
		run --separate-stderr "$TFD" --cron "$expr" --dry-run=3 -- /usr/bin/touch "$MARK"
		assert_success
		assert_output ""
		assert_equal "$stderr" "tfd: warning: --cron '$expr' names no day that exists: the job never runs"
	done
	[[ ! -e $MARK ]] || fail "the command ran"
}

# Timestamps

@test "a bad --at word" {
	bad yesterday-ish --at yesterday-ish
}

@test "--at with month 13" {
	bad '2026-13-01 00:00:00' --at '2026-13-01 00:00:00'
}

@test "--at with minute 61" {
	bad 10:61 --at 10:61
}

@test "--at @ with nothing after it" {
	bad "'@'" --at @
}

@test "--at @1x" {
	bad @1x --at @1x
}

@test "--at with an offset of 25 hours" {
	bad '2026-12-03T10:00:00+25:00' --at '2026-12-03T10:00:00+25:00'
}

@test "--at after 2262-04-11T23:47:16Z is out of range" {
	bad 2262-04-12 --at 2262-04-12
}

@test "--at @RAW with a bad number on --clock monotonic" {
	bad @5x --clock monotonic --at @5x
}

@test "a bad --base-time" {
	bad notatime --base-time notatime -d 1s --dry-run
}

# Errors --help cannot mend: the system's answer, without the hint

@test "a --metrics or --persist file in a directory that is not there: no hint" {
	assert_system_error "--metrics '/nonexistent/m.prom'" --metrics /nonexistent/m.prom \
		-i 1s "${RUN[@]}"
	assert_system_error "--persist '/nonexistent/p'" --persist /nonexistent/p -i 1s "${RUN[@]}"
	[[ ! -e $MARK ]] || fail "the command ran"
}

@test "a --jobs file that cannot be read: no hint; a bad line in it keeps the hint" {
	assert_system_error "--jobs '/nonexistent/jobs'" --jobs /nonexistent/jobs
	printf '%s\n' '--name a --interval 5x -- true' >"$BATS_TEST_TMPDIR/jobs"
	assert_usage_error "invalid duration '5x'" --jobs "$BATS_TEST_TMPDIR/jobs" --dry-run=1
}

@test "a --control socket where another tfd answers: no hint" {
	local sock=$BATS_TEST_TMPDIR/control
	start_bg "$TFD_UNDER_TEST" -i 1h --control="$sock" -f %n
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -S $sock ]] && break
		nap 0.05
	done
	assert_system_error "--control '$sock'" --control="$sock" -i 1s "${RUN[@]}"
	[[ ! -e $MARK ]] || fail "the command ran"
}

@test "--listen on a port in use, or below 1024 as a user: the fix named, no hint" {
	local port=$((20000 + RANDOM % 20000)) i
	# The tfd under test loads libmicrohttpd of its own architecture (a
	# cross build under qemu-user finds none).
	run --separate-stderr timeout 10 "$TFD" --listen 127.0.0.1:$port -i 1s -n 1 --exec true
	[[ $stderr != *"--listen needs libmicrohttpd"* ]] || skip "this tfd finds no libmicrohttpd: $stderr"
	start_bg python3 -c "import socket, time
s = socket.socket(socket.AF_INET6)
s.bind(('::', $port)); s.listen(); open('$BATS_TEST_TMPDIR/bound', 'w').close(); time.sleep(60)"
	for ((i = 0; i < 100; i++)); do
		[[ -e $BATS_TEST_TMPDIR/bound ]] && break
		nap 0.05
	done
	assert_system_error "(another process listens on that port)" --listen ":$port" -i 1s "${RUN[@]}"
	[[ ! -e $MARK ]] || fail "the command ran"
	if (($(cat /proc/sys/net/ipv4/ip_unprivileged_port_start) <= 80)); then
		skip "this host lets every user bind port 80"
	fi
	# A copy that user nobody may run (the test's own directory is root's).
	local dir
	dir=$(mktemp -d /tmp/tfd-listen.XXXXXX)
	cp "$TFD_UNDER_TEST" "$dir/tfd"
	chmod 755 "$dir" "$dir/tfd"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 10 "$dir/tfd" --listen :80 -i 1s --exec true
	rm -rf "$dir"
	assert_equal "$status" 2
	assert_equal "$stderr" "tfd: --listen: bind [::]:80: Permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
}

# Time zones

@test "TZ naming no zone: exit 2 when a schedule is in local time" {
	run --separate-stderr env TZ=Europe/Berln "$TFD" --cron '0 3 * * *' "${RUN[@]}"
	assert_equal "$status" 2
	assert_equal "$stderr" "tfd: TZ: unknown time zone 'Europe/Berln', and the schedule is in local time: name a zone of /usr/share/zoneinfo in TZ, or unset TZ for UTC"
	local spec
	for spec in "--calendar 03:00" "--at 2030-01-01"; do
		# shellcheck disable=SC2086 # the option and its value
		run --separate-stderr env TZ=Europe/Berln "$TFD" $spec "${RUN[@]}"
		assert_equal "$status" 2
	done
	printf '%s\n' '0 3 * * * true' >"$BATS_TEST_TMPDIR/jobs"
	run --separate-stderr env TZ=Europe/Berln "$TFD" --jobs "$BATS_TEST_TMPDIR/jobs" --dry-run=1
	assert_equal "$status" 2
	[[ $stderr == *"the schedule of 'true' is in local time"* ]] || fail "$stderr"
	[[ ! -e $MARK ]] || fail "the command ran"
}

# A dry run of "$@" under an unknown TZ: UTC, with one warning.
check_utc_warning() {
	run --separate-stderr env TZ=Europe/Berln "$TFD" "$@" --dry-run=1
	assert_success
	assert_equal "$stderr" "tfd: warning: TZ: unknown time zone 'Europe/Berln'; using UTC"
}

@test "TZ naming no zone: a warning and UTC when no schedule is in local time" {
	printf '%s\n' 'CRON_TZ=UTC' '0 3 * * * true' >"$BATS_TEST_TMPDIR/jobs"
	check_utc_warning --calendar '03:00 UTC'
	check_utc_warning --at @1900000000
	check_utc_warning --at '2030-01-01 10:00 UTC'
	check_utc_warning -i 1h
	check_utc_warning --jobs "$BATS_TEST_TMPDIR/jobs"
}

# A system crontab read as a plain jobs file

@test "--jobs /etc/crontab without --system-crontab: a warning naming the option" {
	printf '%s\n' 'SHELL=/bin/sh' '17 * * * * root cd / && run-parts --report /etc/cron.hourly' \
		>"$BATS_TEST_TMPDIR/crontab"
	run --separate-stderr "$TFD" --jobs "$BATS_TEST_TMPDIR/crontab" --dry-run=1
	assert_success
	assert_equal "$stderr" "tfd: warning: $BATS_TEST_TMPDIR/crontab:2: the command begins with 'root', a user of this host: a system crontab's lines name their user only with --system-crontab (without it 'root' is run as the command)"
	# Read as what it is, there is no warning.
	run --separate-stderr "$TFD" --jobs "$BATS_TEST_TMPDIR/crontab" --system-crontab --dry-run=1
	assert_success
	assert_equal "$(without_operator_log "$stderr")" ""
	# A command that is not a user name: none either.
	printf '%s\n' '17 * * * * date +%%s >/dev/null' >"$BATS_TEST_TMPDIR/crontab"
	run_clean "$TFD" --jobs "$BATS_TEST_TMPDIR/crontab" --dry-run=1
}

# Help and version

@test "--help prints the options on stdout and exits 0" {
	local opt
	for opt in --help -h; do
		run_clean "$TFD" "$opt"
		assert_output --partial "Usage:"
		assert_output --partial "--interval"
		assert_output --partial "--calendar"
		assert_output --partial "--exec"
		# It ends with where to read more.
		assert_line "More in the manual: man tfd (options, signals, exit status),"
		assert_line "man tfd-jobs (the jobs file), man tfdctl (a running tfd),"
		assert_line --index -1 "man tfd-cron (tfd as the host's cron), man tfd-fleet (replicas on PostgreSQL)."
	done
}

@test "--usage prints a short usage on stdout and exits 0" {
	run_clean "$TFD" --usage
	assert_output --partial "Usage:"
	assert_output --partial "--interval"
}

@test "--version and -V print the version on stdout and exit 0" {
	local opt
	for opt in --version -V; do
		run_clean "$TFD" "$opt"
		assert_output --regexp '^tfd [0-9]+\.[0-9]+\.[0-9]+'
	done
}

@test "--help arms nothing and runs nothing" {
	run --separate-stderr "$TFD" --help -d 10ms --exec "touch '$MARK'"
	assert_success
	[[ ! -e $MARK ]] || fail "the command ran"
}
