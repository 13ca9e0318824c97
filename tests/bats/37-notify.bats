#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_SEQ.
# --ping=URL (healthchecks.io's protocol), --notify=URL and --notify-on:
# HTTP requests through libcurl, loaded only for them and driven from
# tfd's own poll loop. The receiver is tests/notify-receiver.py (python's
# http.server on 127.0.0.1, a port the kernel picks), which writes one
# JSON line per request it gets: method, path, body, Content-Type.

load test_helper
load pg_helper

# The fleet's test starts a PostgreSQL of its own (pg_helper.bash), only
# when it runs; stopped here (the test's PG_DIR is not this function's).
teardown_file() {
	PG_DIR=$BATS_FILE_TMPDIR/pg pg_stop
}

setup() {
	require_command python3
	require_command jq
	REQS=$BATS_TEST_TMPDIR/requests
	: >"$REQS"
}

# receiver [--statuses 500,200 | --hang]: started in the background;
# $PORT is its port once it listens, $BASE its URL.
receiver() {
	local portfile=$BATS_TEST_TMPDIR/port.$RANDOM
	start_bg python3 "$REPO/tests/notify-receiver.py" "$portfile" "$REQS" "$@"
	wait_until 20 test -s "$portfile" || fail "the receiver did not start"
	PORT=$(<"$portfile")
	BASE=http://127.0.0.1:$PORT
}

# The fleet's tests: the file's PostgreSQL, started by the first of them
# (its port kept for the next), a database of the test's own, and $RUNS.
fleet_db() {
	[[ -x ${PG_BIN:-/usr/lib/postgresql/15/bin}/initdb ]] || fail "postgresql-15 is not installed (.ci/install-deps)"
	if [[ -f $BATS_FILE_TMPDIR/pg.port ]]; then
		PG_DIR=$BATS_FILE_TMPDIR/pg
		PG_PORT=$(<"$BATS_FILE_TMPDIR/pg.port")
		export PG_DIR PG_PORT
	else
		pg_start
		echo "$PG_PORT" >"$BATS_FILE_TMPDIR/pg.port"
	fi
	pg_test_db
	fleet_runs_log
}

# requests_matching JQ-FILTER: how many requests the filter selects.
requests_matching() {
	jq -s "[.[] | select($1)] | length" "$REQS"
}

at_least() {
	(($(requests_matching "$1") >= $2))
}

@test "notify: a URL that is not http:// or https://, an empty one and a bad --notify-on are usage errors" {
	assert_usage_error "ftp://" --ping ftp://example.com/x -i 1s true
	assert_usage_error "--ping: an empty URL" --ping '' -i 1s true
	assert_usage_error "--notify 'http://'" --notify 'http://' -i 1s true
	assert_usage_error "--notify-on 'sometimes': must be failure or always" \
		--notify https://example.com/x --notify-on sometimes -i 1s true
	assert_usage_error "--ping: the job has no command" --ping https://example.com/x -i 1s
	printf '%s\n' '--name a --interval 1h -- true' '--interval 1h --ping=gopher://x/y -- true' \
		>"$BATS_TEST_TMPDIR/jobs"
	run_status2 "jobs:2:" --jobs "$BATS_TEST_TMPDIR/jobs"
	[[ $stderr == *"--ping 'gopher:/…': not an http:// or https:// URL"* ]] || fail "$stderr"
}

@test "notify: --ping sends /start, then success, /STATUS or /fail, one run id per run" {
	receiver
	# A second apart: a loaded machine's late wake-up never makes two of
	# these runs one.
	run --separate-stderr "$TFD" -q -i 1s -n 3 --ping "$BASE/check-key" -- \
		sh -c 'case $TFD_SEQ in 1) exit 0;; 2) exit 3;; 3) kill -9 $$;; esac'
	assert_success
	# tfd waits for its requests before it exits.
	assert_equal "$(requests_matching 'true')" 6
	assert_equal "$(requests_matching '.path | test("^/check-key/start\\?rid=[0-9a-f-]{36}$")')" 3
	assert_equal "$(requests_matching '.path | test("^/check-key\\?rid=")')" 1
	assert_equal "$(requests_matching '.path | test("^/check-key/3\\?rid=")')" 1
	assert_equal "$(requests_matching '.path | test("^/check-key/fail\\?rid=")')" 1
	# Each run's end carries its start's id, and the three ids differ.
	run jq -rs 'map(.path | capture("rid=(?<r>.*)").r) | group_by(.) | map(length) | @text' "$REQS"
	assert_output '[2,2,2]'
	# Without --tag-output tfd does not read the output: no body.
	assert_equal "$(requests_matching '.method != "GET"')" 0
}

@test "notify: two overlapping runs have two run ids" {
	receiver
	run_clean "$TFD" -q -i 600ms -n 2 --overlap parallel --ping "$BASE/k" -- \
		sh -c 'sleep 2'
	run jq -rs '[.[] | .path] | .[0:2] | map(test("/start")) | @text' "$REQS"
	assert_output '[true,true]'
	run jq -rs 'map(.path | capture("rid=(?<r>.*)").r) | unique | length' "$REQS"
	assert_output 2
}

@test "notify: the output tail is the end ping's body when tfd reads the output" {
	receiver
	run --separate-stderr "$TFD" -q -d 0 -n 1 --tag-output --ping "$BASE/k" -- \
		sh -c 'seq 1 3; echo oops >&2; exit 1'
	assert_equal "$(requests_matching '.method == "POST" and (.path | startswith("/k/1?rid="))')" 1
	run jq -rs '.[] | select(.method == "POST") | .body' "$REQS"
	assert_output $'1\n2\n3\noops'
	run jq -rs '.[] | select(.method == "POST") | .type' "$REQS"
	assert_output "text/plain; charset=utf-8"
}

@test "notify: --notify POSTs the exit event as JSON, of failed runs unless --notify-on=always" {
	receiver
	# A run each (-n 1): on a loaded machine two runs 300 ms apart can be
	# one wake-up, one run.
	run --separate-stderr "$TFD" -q -d 0 -n 1 --notify "$BASE/fail-only?token=s3cret" -- true
	assert_success
	run --separate-stderr "$TFD" -q -d 0 -n 1 --notify "$BASE/fail-only?token=s3cret" -- sh -c 'exit 1'
	assert_equal "$status" 1
	assert_equal "$(requests_matching 'true')" 1
	run jq -rs '.[0] | .type, .method, .path, (.body | fromjson | .event, .seq, .status, .failed)' "$REQS"
	assert_output $'application/json\nPOST\n/fail-only?token=s3cret\nexit\n1\n1\ntrue'
	: >"$REQS"
	run --separate-stderr "$TFD" -q -d 0 -n 1 --notify "$BASE/all" --notify-on=always -- true
	assert_success
	run jq -rs 'map(.body | fromjson | .status) | @text' "$REQS"
	assert_output '[0]'
}

@test "notify: a receiver that answers 500 is tried again and the next answer counts" {
	receiver --statuses 500
	run_clean "$TFD" -q -d 0 -n 1 --ping "$BASE/k" -- true
	assert_equal "$(requests_matching '.path | startswith("/k/start")')" 2
	assert_equal "$(requests_matching '.path | startswith("/k?rid=")')" 1
}

@test "notify: a refused connection is tried 4 times, then an error event and the counter; the URL's secrets are never printed" {
	local url="http://user:pa55word@127.0.0.1:1/ping-key-123?api=t0ken"
	run --separate-stderr "$TFD" --ping "$url" -i 1s -n 1 -d 0 --dry-run=1 -- true
	assert_success
	[[ $stderr == *"pings http://127.0.0.1:1/…"* ]] || fail "$stderr"
	# On a terminal, below the expirations with the hooks, and as shown.
	run sh -c "timeout 20 script -qfec \"'$TFD' --name j --ping '$url' -i 1s -n 1 --dry-run=1 -- true\" /dev/null"
	assert_success
	assert_equal "${lines[2]}" $'Hooks and notifications:\r'
	assert_equal "${lines[3]}" $'j  pings http://127.0.0.1:1/…\r'
	# Port 1 refuses: 1 s, 5 s and 25 s between the tries.
	run --separate-stderr timeout 120 "$TFD" -j --control="$BATS_TEST_TMPDIR/ctl" \
		--metrics "$BATS_TEST_TMPDIR/metrics" --name j -d 0 -n 1 --ping "$url" -- true
	# An "error" event: status 1 at the end, as for every error tfd goes on after.
	assert_equal "$status" 1
	run jq -c 'select(.event == "error") | [.job, .call]' <<<"$output"
	assert_output '["j","ping"]
["j","ping"]'
	[[ $stderr == *"j: --ping http://127.0.0.1:1/…: "*"given up after 4 tries"* ]] || fail "$stderr"
	grep -qx 'tfd_notify_failures_total{job_name="j",kind="ping"} 2' "$BATS_TEST_TMPDIR/metrics" ||
		fail "$(cat "$BATS_TEST_TMPDIR/metrics")"
	for secret in user pa55word ping-key-123 t0ken; do
		[[ $output$stderr != *"$secret"* ]] || fail "$secret printed"
	done
}

@test "notify: tfdctl status shows each endpoint's last answer, without its secrets" {
	receiver
	start_bg "$TFD" -q --control="$BATS_TEST_TMPDIR/ctl" --name j -d 0 -i 1h \
		--ping "$BASE/ping-key?k=1" --notify "$BASE/hook-key" --notify-on always -- true
	wait_until 20 at_least '.path | startswith("/hook-key")' 1 || fail "$(cat "$REQS")"
	wait_until 20 at_least '.path | startswith("/ping-key?")' 1 || fail "$(cat "$REQS")"
	run "$REPO/tfdctl" --control="$BATS_TEST_TMPDIR/ctl" status j
	assert_success
	assert_line --regexp "^      Ping: http://127.0.0.1:$PORT/… \(last: 200, .*\)$"
	assert_line --regexp "^    Notify: http://127.0.0.1:$PORT/… \(last: 200, .*\)$"
	refute_output --partial key
	run "$REPO/tfdctl" --control="$BATS_TEST_TMPDIR/ctl" -j status j
	run jq -r '.job.ping.last_ok, .job.notify.last_result, .job.notify_on' <<<"$output"
	assert_output $'true\n200\nalways'
}

# ticked_past N FILE: true once a tick event in FILE has a total of N or more.
ticked_past() {
	local total
	total=$(grep -a '"event":"tick"' "$2" | tail -n 1 | sed -n 's/.*"total":\([0-9]*\).*/\1/p')
	((${total:-0} >= $1))
}

# metric NAME-AND-LABELS: its value in the metrics file.
metric() {
	awk -v m="$1" '$1 == m { print $2 }' "$BATS_TEST_TMPDIR/metrics"
}

@test "notify: a receiver that never answers delays no run, memory stays bounded, and SIGTERM ends tfd promptly" {
	receiver --hang
	start_bg "$TFD" -j --metrics "$BATS_TEST_TMPDIR/metrics" --name j -i 20ms -n 300 \
		--ping "$BASE/k" -- true >"$BATS_TEST_TMPDIR/out"
	local pid=${BG_PIDS[-1]} rss runs held
	# Every elapse served: the requests that wait never held the loop. (On
	# a loaded machine a wake-up may count several expirations, the last
	# one past 300.)
	wait_until 60 ticked_past 300 "$BATS_TEST_TMPDIR/out" ||
		fail "$(tail -3 "$BATS_TEST_TMPDIR/out")"
	wait_until 20 eval '[[ $(metric "tfd_running{job_name=\"j\"}") == 0 ]]' ||
		fail "$(cat "$BATS_TEST_TMPDIR/metrics")"
	# Each run asked for two requests; 256 wait and one is on its way (a
	# job's requests leave in order; after its 10 s timeout it waits for
	# its retry, and none is), the oldest others were dropped (none was
	# answered, none has used its 4 tries yet).
	runs=$(metric 'tfd_runs_total{job_name="j",result="success"}')
	((runs > 100)) || fail "$runs runs"
	held=$((2 * runs - $(metric 'tfd_notify_dropped_total{job_name="j",kind="ping"}')))
	((held == 256 || held == 257)) || fail "$held requests held of $((2 * runs))"
	# (The ASan build's RSS is its shadow memory.)
	if ! ldd "$TFD" 2>/dev/null | grep -q libasan; then
		rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
		((rss < 65536)) || fail "RSS ${rss} kB"
	fi
	# 16 on their way at most: 16 sockets, and curl's own wake-up pair.
	(($(find "/proc/$pid/fd" -lname 'socket:*' | wc -l) <= 18)) || fail "$(ls -l "/proc/$pid/fd")"
	kill -TERM "$pid"
	local start=$SECONDS
	wait_until 10 eval '! kill -0 '"$pid"' 2>/dev/null' || fail "tfd still runs 10 s after SIGTERM"
	((SECONDS - start <= 5)) || fail "tfd took $((SECONDS - start)) s to stop"
}

@test "notify: a 100 ms job's runs stay on time while the receiver hangs" {
	receiver --hang
	start_bg "$TFD" -j --name j -i 100ms -n 20 --notify "$BASE/k" --notify-on always \
		--ping "$BASE/p" -- true >"$BATS_TEST_TMPDIR/out"
	local pid=${BG_PIDS[-1]}
	# All 20 expirations (a loaded machine may count two in one wake-up,
	# the last one past 20), and the last run's end.
	wait_until 60 ticked_past 20 "$BATS_TEST_TMPDIR/out" ||
		fail "$(cat "$BATS_TEST_TMPDIR/out")"
	# (A tick whose run was still going is a skip: it has no run.)
	wait_until 20 eval '(($(grep -c "\"event\":\"exit\"" "$BATS_TEST_TMPDIR/out") == $(grep "\"event\":\"tick\"" "$BATS_TEST_TMPDIR/out" | grep -c "\"action\":\"run\"")))' ||
		fail "$(cat "$BATS_TEST_TMPDIR/out")"
	# The ticks came on time: none late by more than a loaded machine's
	# noise, and few expirations missed (a request that held the loop
	# would hold it for its 10 s timeout: 100 of them).
	run jq -s '[.[] | select(.event == "tick") | .expirations] | add' "$BATS_TEST_TMPDIR/out"
	((output >= 20 && output <= 25)) || fail "$output expirations"
	run jq -s '[.[] | select(.event == "tick") | .late_us] | max' "$BATS_TEST_TMPDIR/out"
	((output < 500000)) || fail "a tick $output us late"
	kill -TERM "$pid"
}

# The descriptors of process $1 that are TCP connections to port $2, one
# a line (their socket inodes found in /proc/PID/net/tcp).
fds_to_port() {
	local pid=$1 hex inodes fd link
	hex=$(printf '%04X' "$2")
	inodes=" $(awk -v p="$hex" 'NR > 1 { split($3, a, ":"); if (a[2] == p) print $10 }' \
		"/proc/$pid/net/tcp" | tr '\n' ' ') "
	for fd in /proc/"$pid"/fd/*; do
		link=$(readlink "$fd")
		[[ $link == socket:\[*\] && $inodes == *" ${link//[^0-9]/} "* ]] && echo "${fd##*/}"
	done
	return 0
}

@test "notify: the requests' sockets are close-on-exec: runs inherit none" {
	receiver --hang
	start_bg "$TFD" -q -i 300ms --ping "$BASE/k" -- \
		sh -c 'find /proc/$$/fd -lname "socket:*" | wc -l >>"$1"' _ "$BATS_TEST_TMPDIR/runs"
	local pid=$! fds fd flags
	wait_for_lines "$BATS_TEST_TMPDIR/runs" 20 3
	wait_until 20 at_least true 2 || fail "no request: $(cat "$REQS")"
	fds=$(fds_to_port "$pid" "$PORT")
	[[ -n $fds ]] || fail "tfd holds no connection to the receiver"
	for fd in $fds; do
		flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$pid/fdinfo/$fd")
		(((8#$flags & 8#2000000) != 0)) || fail "tfd's descriptor $fd is not close-on-exec (flags $flags)"
	done
	assert_equal "$(sort -u "$BATS_TEST_TMPDIR/runs")" 0
}

@test "notify: tfd lines of a jobs file take them, and crontab lines through the defaults beside --jobs" {
	receiver
	cat >"$BATS_TEST_TMPDIR/jobs" <<-EOF
		--name own -d 0 -n 1 --ping=$BASE/own -- true
		--name other -d 0 -n 1 -- true
		@hourly true
	EOF
	run --separate-stderr "$TFD" --jobs "$BATS_TEST_TMPDIR/jobs" --notify "$BASE/default-key" \
		--dry-run=1
	assert_success
	assert_equal "${stderr_lines[0]}" "tfd: own: pings http://127.0.0.1:$PORT/… notifies http://127.0.0.1:$PORT/… of failed runs"
	assert_equal "${stderr_lines[2]}" "tfd: true: notifies http://127.0.0.1:$PORT/… of failed runs"
	start_bg "$TFD" -q --jobs "$BATS_TEST_TMPDIR/jobs" --notify "$BASE/default" --notify-on always
	wait_until 20 at_least '.path | startswith("/own?rid=")' 1 || fail "$(cat "$REQS")"
	wait_until 20 at_least '.path == "/default"' 2 || fail "$(cat "$REQS")"
	run jq -rs '[.[] | select(.path == "/default") | .body | fromjson | .job] | sort | @text' "$REQS"
	assert_output '["other","own"]'
}

@test "notify: with --fleet only the replica that ran a run pings it; an elapse that ran elsewhere sends nothing" {
	fleet_db
	receiver
	local pid r runs
	# 10 jobs due at one instant, run once among two replicas.
	burst_jobs 10 keep
	for r in a b; do
		start_replica "$r" --jobs "$jobs" --ping "$BASE/check"
	done
	wait_until 120 burst_settled 10 ||
		fail "$(pg_sql "SELECT state, replica, count(*) FROM tfd_runs GROUP BY 1, 2" "$DB")"
	assert_each_once
	runs=$(wc -l <"$RUNS")
	assert_equal "$runs" 10
	# Each run's start and end, once: 20 requests, 10 ids, each twice.
	wait_until 20 at_least '.path | test("^/check\\?rid=")' 10 || fail "$(cat "$REQS")"
	assert_equal "$(requests_matching '.path | startswith("/check/start?rid=")')" 10
	assert_equal "$(requests_matching 'true')" 20
	run jq -rs 'map(.path | capture("rid=(?<r>.*)").r) | group_by(.) | map(length) | unique | @text' "$REQS"
	assert_output '[2]'
	for r in a b; do
		pid=$(eval echo "\$PID_$r")
		kill -TERM "$pid"
		wait_bg_exit "$pid" 60
	done
}

@test "notify: with --fleet a run whose replica died is told failed once, by the replica that marks it abandoned" {
	fleet_db
	receiver
	local at victim other rid
	jobs=$BATS_TEST_TMPDIR/jobs
	at=$(($(date +%s) + 3))
	printf '%s\n' "--name long --clock realtime --at @$at --ping $BASE/check --notify $BASE/hook -- sh -c '$LOG; echo \$\$ >$BATS_TEST_TMPDIR/long.pid; exec sleep 60'" \
		"--name keep --calendar 2199-01-01 -- true" >"$jobs"
	for r in a b; do
		start_replica "$r" --jobs "$jobs" --fleet-lease 2s
	done
	wait_for_lines "$BATS_TEST_TMPDIR/long.pid" 20
	wait_until 20 at_least '.path | startswith("/check/start?rid=")' 1 || fail "$(cat "$REQS")"
	victim=$(awk '$1 == "long" { print $3 }' "$RUNS")
	other=a
	[[ $victim == a ]] && other=b
	kill -KILL "$(eval echo "\$PID_$victim")"
	kill -KILL "$(cat "$BATS_TEST_TMPDIR/long.pid")"
	# After the lease (2 s) and a renewal (lease/6) of the other replica.
	wait_until 30 at_least '.path | startswith("/check/fail?rid=")' 1 || fail "$(cat "$REQS")"
	wait_until 20 at_least '.path == "/hook"' 1 || fail "$(cat "$REQS")"
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'long'" "$DB")" abandoned
	# A run id of its own (the dead replica's is not known), no body.
	rid=$(jq -rs '.[] | select(.path | startswith("/check/start")) | .path | sub(".*rid="; "")' "$REQS")
	run jq -rs --arg rid "$rid" '.[] | select(.path | startswith("/check/fail")) |
		[.method, .body, (.path | endswith("rid=" + $rid))] | @tsv' "$REQS"
	assert_output "$(printf 'GET\t\tfalse')"
	run jq -rs '.[] | select(.path == "/hook") | .body | fromjson |
		[.event, .job, .replica, .held_by, .abandoned, .failed, .status, .seq,
		 (.scheduled | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)] | @tsv' "$REQS"
	assert_output "$(printf 'exit\tlong\t%s\t%s\ttrue\ttrue\t\t\t%s' "$other" "$victim" "$at")"
	# The other replica stops, its requests sent: no second from anyone.
	kill -TERM "$(eval echo "\$PID_$other")"
	wait_bg_exit "$(eval echo "\$PID_$other")" 60
	assert_equal "$(requests_matching '.path | startswith("/check/fail")')" 1
	assert_equal "$(requests_matching 'true')" 3
}

@test "notify: with --fleet a replica restarted under its name tells the run its former process died with as failed" {
	fleet_db
	receiver
	local rid
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' "--name long --clock realtime --at @$(($(date +%s) + 2)) --ping $BASE/check -- sh -c '$LOG; echo \$\$ >$BATS_TEST_TMPDIR/long.pid; exec sleep 60'" \
		"--name keep --calendar 2199-01-01 -- true" >"$jobs"
	start_replica a --jobs "$jobs"
	wait_for_lines "$BATS_TEST_TMPDIR/long.pid" 20
	wait_until 20 at_least '.path | startswith("/check/start?rid=")' 1 || fail "$(cat "$REQS")"
	kill -KILL "$PID_a"
	kill -KILL "$(cat "$BATS_TEST_TMPDIR/long.pid")"
	# Long before the lease (60 s) passes: its start marks the row.
	start_replica a --jobs "$jobs"
	wait_until 30 at_least '.path | startswith("/check/fail?rid=")' 1 || fail "$(cat "$REQS")"
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'long'" "$DB")" abandoned
	rid=$(jq -rs '.[] | select(.path | startswith("/check/start")) | .path | sub(".*rid="; "")' "$REQS")
	assert_equal "$(requests_matching ".path | endswith(\"rid=$rid\")")" 1
	kill -TERM "$PID_a"
	wait_bg_exit "$PID_a" 60
	assert_equal "$(requests_matching 'true')" 2
}

@test "notify: src/run/curl.h declares libcurl's types and values as curl/curl.h does" {
	[[ -f /usr/include/x86_64-linux-gnu/curl/curl.h || -f /usr/include/curl/curl.h ]] ||
		fail "libcurl4-openssl-dev is not installed (.ci/install-deps)"
	run cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$REPO/src/run" -c -o /dev/null \
		"$REPO/tests/http/curl_abi.c"
	assert_success
}

@test "notify: libcurl is not linked; a tfd without --ping or --notify never maps it, one with them does" {
	require_command ldd
	run ldd "$TFD"
	assert_success
	refute_output --partial libcurl
	"$TFD" -d 0 -- sh -c 'grep -c libcurl "/proc/$PPID/maps" || true' >"$BATS_TEST_TMPDIR/plain"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/plain")" 0
	"$TFD" -d 0 --ping http://127.0.0.1:1/x -- sh -c 'grep -c libcurl.so.4 "/proc/$PPID/maps" || true' \
		>"$BATS_TEST_TMPDIR/with" 2>/dev/null &
	wait_until 20 test -s "$BATS_TEST_TMPDIR/with"
	(($(cat "$BATS_TEST_TMPDIR/with") > 0)) || fail "libcurl is not mapped"
	kill -TERM $! 2>/dev/null || true
}
