#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# --fleet's checks at start, which need no database: the options, the
# jobs whose instants replicas cannot agree on, a dry run, libpq loaded
# only for --fleet; and TFD_REPLICA/TFD_SCHEDULED, which every run sees.
# The database client itself: 76-fleet-client.bats.

load test_helper

# A server that is not there: the checks never connect.
NOWHERE='host=/nonexistent dbname=tfd'

@test "--fleet: a job whose instants replicas cannot agree on is a usage error naming it" {
	assert_usage_error "--delay 5s counts from the start of each replica" \
		--fleet "$NOWHERE" --delay 5s -- true
	assert_usage_error "--interval 1m without --at" --fleet "$NOWHERE" --interval 1m -- true
	assert_usage_error "--clock monotonic differs from machine to machine" \
		--fleet "$NOWHERE" --clock monotonic --at @5 -- true
	assert_usage_error "--clock boottime" --fleet "$NOWHERE" --clock boottime --at @5 --interval 1s -- true
	assert_usage_error "--overlap queue cannot act on a run of another replica" \
		--fleet "$NOWHERE" --cron '* * * * *' --overlap queue -- true
	assert_usage_error "--overlap kill" --fleet "$NOWHERE" --calendar hourly --overlap kill -- true
}

@test "--fleet: a bad line of a jobs file is named by FILE:LINE and shown" {
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' '*/5 * * * * true' '--name d --interval 10s -- true' >"$jobs"
	assert_usage_error "$jobs:2: bad tfd line '--name d --interval 10s -- true': --fleet: --interval 10s" \
		--fleet "$NOWHERE" --jobs "$jobs"
	# --overlap beside --jobs is every line's default: the first line is named.
	assert_usage_error "$jobs:1: bad crontab line" --fleet "$NOWHERE" --jobs "$jobs" --overlap kill
}

@test "--fleet: calendar, cron, crontab and --at lines are accepted; @reboot runs unclaimed" {
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' '@reboot true' '0 3 * * * true' \
		'--name cal --calendar "*-*-* 04:00" -- true' \
		'--name at --at @1900000000 --interval 1h --overlap parallel -- true' \
		'--name once --clock realtime-alarm --at @1900000000 -- true' >"$jobs"
	run_clean "$TFD" --fleet "$NOWHERE" --jobs "$jobs" --base-time @1899990000 --dry-run=30 \
		--format %j
	# The crontab line's "true" is the @reboot line's: it takes its hash.
	assert_equal "$(sort -u <<<"$output" | tr '\n' ' ')" "at cal once true-1452 "
}

# The first four hex digits of the FNV-1a hash (64 bits) of the line as
# written, computed apart: '0 4 * * * echo b' 94e9..., '0 5 * * * echo c'
# 371a...
@test "--fleet: a default name another line has takes its line's hash, not -2, whatever lines come before" {
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' '0 3 * * * echo a' '0 4 * * * echo b' '0 5 * * * echo c' >"$jobs"
	run_clean "$TFD" --fleet "$NOWHERE" --jobs "$jobs" --base-time @1899990000 --dry-run=3 \
		--format '%j'
	assert_output $'echo\necho-94e9\necho-371a'
	# Lines added above and between, the others moved: the same names.
	printf '%s\n' '0 1 * * * true' '0 3 * * * echo a' '0 5 * * * echo c' '0 2 * * * date' \
		'0 4 * * * echo b' >"$jobs"
	run_clean "$TFD" --fleet "$NOWHERE" --jobs "$jobs" --base-time @1899990000 --dry-run=5 \
		--format '%j'
	assert_output $'true\ndate\necho\necho-94e9\necho-371a'
	# Without --fleet: -2, -3 in file order.
	run_clean "$TFD" --jobs "$jobs" --base-time @1899990000 --dry-run=5 --format '%j'
	assert_output $'true\ndate\necho\necho-3\necho-2'
}

@test "--fleet --dry-run checks CONNINFO, connects nowhere and prints the schedule" {
	run_clean "$TFD" --fleet 'postgresql://tfd@db.invalid/tfd' --cron '0 * * * *' \
		--base-time @0 --dry-run=2 --format %u
	assert_output $'3600.000000000\n7200.000000000'
}

@test "--fleet: a connection string libpq cannot read is exit 2, its password never shown" {
	assert_usage_error "--fleet: libpq cannot read the connection string" \
		--fleet 'host=/x password=sekrit-word junk' --cron '* * * * *' -- true
	[[ $stderr != *sekrit* && $stderr != *junk* ]] || fail "shown: $stderr"
	assert_usage_error "libpq cannot read" --fleet 'postgresql://u:sekrit@[::1/tfd' \
		--cron '* * * * *' -- true
	[[ $stderr != *sekrit* ]] || fail "shown: $stderr"
	assert_usage_error "invalid connection option" --fleet 'hots=x' --cron '* * * * *' -- true
}

@test "--fleet: a misspelt keyword is named, with the one meant; a value, or a word after an unquoted password, never is" {
	assert_usage_error 'invalid connection option "hots"; did you mean "host"?' \
		--fleet 'hots=x dbname=tfd' --cron '* * * * *' -- true
	assert_usage_error 'invalid URI query parameter: "sslmdoe"; did you mean "sslmode"?' \
		--fleet 'postgresql://db.invalid/tfd?sslmdoe=require' --cron '* * * * *' -- true
	assert_usage_error 'invalid connection option "zzyzx"' --fleet 'zzyzx=1' --cron '* * * * *' -- true
	[[ $stderr != *"did you mean"* ]] || fail "nothing is near zzyzx: $stderr"
	# A word right after an unquoted password may be the password's tail.
	assert_usage_error 'invalid connection option "..."' \
		--fleet 'host=h password=Sekr1t Wx9=y' --cron '* * * * *' -- true
	[[ $stderr != *Sekr1t* && $stderr != *Wx9* ]] || fail "shown: $stderr"
}

@test "--fleet's options: values checked, and the --fleet-* ones need --fleet" {
	assert_usage_error "--fleet-lease needs --fleet" --fleet-lease 5m --cron '* * * * *' -- true
	assert_usage_error "--fleet-keep needs --fleet" --fleet-keep 1d --cron '* * * * *' -- true
	assert_usage_error "--fleet-lease '0.5s': must be 1s or longer" \
		--fleet "$NOWHERE" --fleet-lease 0.5s --cron '* * * * *' -- true
	assert_usage_error "--fleet-deadline '0': must be longer than 0" \
		--fleet "$NOWHERE" --fleet-deadline 0 --cron '* * * * *' -- true
	assert_usage_error "--fleet-keep: invalid duration 'week'" \
		--fleet "$NOWHERE" --fleet-keep week --cron '* * * * *' -- true
	assert_usage_error "--replica '': must not be empty" --replica '' -d 0 -- true
	run_clean "$TFD" --fleet "$NOWHERE" --replica r1 --fleet-lease 2m --fleet-deadline 10s \
		--fleet-keep 90d --at @1900000000 --interval 1d --base-time @0 --dry-run=1 --format %u
	assert_output 1900000000.000000000
}

@test "libpq is not linked: it is loaded only for --fleet" {
	require_command ldd
	run ldd "$TFD"
	assert_success
	refute_output --partial libpq
}

# The replica's name costs gethostname and snprintf, whose pages of libc
# made a bare timer 8% bigger in RSS than before the fleet (BENCHMARKS.md,
# "Fleet"): it is computed only when a run or the fleet can show it.
@test "a tfd with no command and no --fleet never looks up its host name; a run still sees TFD_REPLICA" {
	require_command strace
	skip_under_asan "its runtime calls uname itself, and its leak check stops under strace"
	strace -qq -e trace=uname -o "$BATS_TEST_TMPDIR/bare" "$TFD" --at now --count 1 -q
	assert_equal "$(grep -c 'uname(' "$BATS_TEST_TMPDIR/bare")" 0
	strace -qq -e trace=uname -o "$BATS_TEST_TMPDIR/run" "$TFD" --at now --count 1 -q -- \
		sh -c 'echo "$TFD_REPLICA"' >"$BATS_TEST_TMPDIR/out"
	assert_equal "$(grep -c 'uname(' "$BATS_TEST_TMPDIR/run")" 1
	[[ $(cat "$BATS_TEST_TMPDIR/out") =~ ^$(hostname):[0-9]+$ ]] || fail "TFD_REPLICA: $(cat "$BATS_TEST_TMPDIR/out")"
}

@test "a tfd without --fleet never maps libpq; one with --fleet does" {
	"$TFD" -d 0 -- sh -c 'grep -c libpq "/proc/$PPID/maps" || true' >"$BATS_TEST_TMPDIR/plain"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/plain")" 0
	# The dry run stays to be looked at, with its output into a full pipe.
	"$TFD" --fleet "$NOWHERE" --cron '* * * * *' --dry-run=100000 | {
		nap 0.5
		pid=$(pgrep -n -f -- "--fleet $NOWHERE") && grep -c libpq "/proc/$pid/maps"
		cat >/dev/null
	} >"$BATS_TEST_TMPDIR/fleet"
	(($(head -1 "$BATS_TEST_TMPDIR/fleet") > 0)) || fail "libpq not mapped with --fleet"
}

@test "each run sees TFD_REPLICA (--replica, or HOSTNAME:PID) and TFD_SCHEDULED" {
	run_clean "$TFD" --replica 'r 1' -n 1 -d 0 -e 'echo "$TFD_REPLICA"'
	assert_output 'r 1'
	run --separate-stderr "$TFD" -n 1 -d 0 -e 'echo "$TFD_REPLICA"' 3>&-
	assert_success
	[[ $output == "$(hostname):"[0-9]* ]] || fail "TFD_REPLICA=$output"
	# A realtime timer: the run's scheduled instant is the --at instant,
	# however late it woke. Two seconds ahead: a start on a loaded machine
	# must not pass it (tfd would warn that it is past).
	at=$(($(date +%s) + 2))
	run_clean "$TFD" --at "@$at" -e 'echo "$TFD_SCHEDULED $TFD_TIME"'
	assert_equal "${output%% *}" "$at.000000000"
	(($(to_ns "${output#* }") >= at * 1000000000)) || fail "$output"
}

@test "--replica of 255 bytes is kept whole; one of 256 is a usage error, never cut" {
	local r255 r256
	r255=$(head -c 255 /dev/zero | tr '\0' r)
	r256=${r255}s
	run_clean "$TFD" --replica "$r255" -n 1 -d 0 -e 'echo "$TFD_REPLICA"'
	assert_output "$r255"
	assert_usage_error "rrrs': longer than 255 bytes" --replica "$r256" -d 0 -- true
	# Two names alike in their first 319 bytes were once one replica.
	assert_usage_error "longer than 255 bytes" --replica "$r256$r256" -d 0 -- true
}

@test "a jobs file does not set TFD_REPLICA or TFD_SCHEDULED: tfd does" {
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' 'TFD_REPLICA=x' 'TFD_SCHEDULED=y' \
		'--name j --delay 0 --exec "echo \$TFD_REPLICA \${TFD_SCHEDULED%%.*}"' >"$jobs"
	run_clean "$TFD" --replica r --jobs "$jobs"
	[[ $output == "r "[0-9]* ]] || fail "$output"
}

@test "src/fleet/pq.h declares libpq's types and functions as libpq-fe.h does" {
	require_command pkg-config
	cflags=$(pkg-config --cflags libpq) || fail "libpq-dev is not installed (.ci/install-deps)"
	# shellcheck disable=SC2086 # pkg-config's flags are words.
	run cc -std=c11 -Wall -Wextra -Werror $cflags -I"$REPO/src/fleet" -c -o /dev/null \
		"$REPO/tests/fleet/pq_abi.c"
	assert_success
}

@test "a libpq without pipeline mode (before 14) is refused, saying which function it lacks and what is needed" {
	require_command cc
	# A libpq.so.5 with every function tfd loads but the pipeline's.
	lib=$BATS_TEST_TMPDIR/lib
	mkdir -p "$lib"
	for f in PQconninfoParse PQconninfoFree PQfreemem PQconnectStartParams PQconnectPoll \
		PQstatus PQsocket PQerrorMessage PQfinish PQsetnonblocking PQsetNoticeProcessor \
		PQsendQueryParams PQflush PQconsumeInput PQisBusy PQgetResult PQresultStatus \
		PQresultErrorMessage PQresultErrorField PQntuples PQnfields PQgetvalue \
		PQgetisnull PQclear; do
		printf 'void %s(void) {}\n' "$f"
	done >"$lib/old.c"
	cc -shared -fPIC -o "$lib/libpq.so.5" "$lib/old.c"
	LD_LIBRARY_PATH=$lib run --separate-stderr "$TFD" --fleet "$NOWHERE" --at now -- true
	assert_failure 1
	[[ $stderr == *"libpq.so.5 has no PQenterPipelineMode: libpq 14 or later is needed"* ]] ||
		fail "$stderr"
}
