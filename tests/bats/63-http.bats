#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $PPID and $$.
# --listen=[ADDR:]PORT: tfd's read-only HTTP through libmicrohttpd, loaded
# only for --listen and served from tfd's own poll loop (no thread). Spoken
# to with curl and with bash's /dev/tcp for what curl cannot do (idle
# connections, a client that sends a byte a second).
#
# Ports: HTTP_TEST_PORTS (default 19180-19199), tried in a random order
# until tfd binds one, so two passes of the suite at once (make check runs
# the plain and the ASan build side by side) do not take each other's.

load test_helper
load pg_helper

HTTP_TEST_PORTS=${HTTP_TEST_PORTS:-19180-19199}

teardown_file() {
	PG_DIR=$BATS_FILE_TMPDIR/pg pg_stop
}

# The ports of HTTP_TEST_PORTS that nothing listens on, shuffled.
free_ports() {
	local port
	for port in $(seq "${HTTP_TEST_PORTS%-*}" "${HTTP_TEST_PORTS#*-}" | shuf); do
		ss -Htln "sport = :$port" | grep -q . || echo "$port"
	done
}

# Starts tfd with "--listen ${ADDR-127.0.0.1}:PORT" (ADDR= for none) and
# the rest of the arguments (its stdout in $OUT, stderr in $ERR), on the
# first free port it binds; sets PORT, URL and TFD_PID once /healthz
# answers.
start_http() {
	local addr=${ADDR-127.0.0.1} host i
	host=${addr:-127.0.0.1}
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	for PORT in $(free_ports); do
		start_bg "$TFD" --listen "$addr:$PORT" "$@" >"$OUT" 2>"$ERR"
		TFD_PID=$!
		URL=http://$host:$PORT
		for ((i = 0; i < 200; i++)); do
			curl -s -o /dev/null "$URL/healthz" && return 0
			if [[ ! -d /proc/$TFD_PID ]] || grep -q '^State:.Z' "/proc/$TFD_PID/status"; then
				break
			fi
			sleep 0.05
		done
		# Another pass took the port between the look and the bind.
		wait "$TFD_PID" 2>/dev/null
		grep -q 'Address already in use' "$ERR" || fail "tfd did not serve: $(cat "$ERR")"
	done
	fail "no free port in $HTTP_TEST_PORTS"
}

# GET PATH (with curl's other arguments after it): the status in $code,
# the body without its last newline in $body.
get() {
	local path=$1
	shift
	run curl -s -w '\n%{http_code}' "$@" "$URL$path"
	code=${lines[-1]}
	body=${output%$'\n'*}
	body=${body%$'\n'}
}

# readyz_becomes CODE: asks /readyz until it answers CODE (up to 5 s); the
# last answer is in code and body.
readyz_becomes() {
	local i
	for ((i = 0; i < 50; i++)); do
		get /readyz
		[[ $code == "$1" ]] && return
		sleep 0.1
	done
}

# The worst late_us of the tick events in $OUT.
late_max_us() {
	grep '"event":"tick"' "$OUT" | sed 's/.*"late_us":\([0-9]*\).*/\1/' | sort -n | tail -1
}

@test "--listen: /healthz, /readyz and /metrics answer; anything else is 404" {
	start_http --name j -i 100ms -n 300 -q -- true
	get /healthz
	assert_equal "$code" 200
	assert_equal "$body" ok
	get /readyz
	assert_equal "$code" 200
	assert_equal "$body" ready
	for path in / /nope /metrics/ /healthz/x /jobs/no-such-job /METRICS; do
		get "$path"
		assert_equal "$code" 404
	done
	# A query is not part of the path.
	get '/healthz?verbose=1'
	assert_equal "$code" 200
}

@test "--listen: /metrics is the text format of every family, current at the request; promtool finds nothing to say" {
	require_command promtool
	start_http --name j -i 100ms -n 300 -q --metrics "$BATS_TEST_TMPDIR/file.prom" -- true
	run curl -s -D "$BATS_TEST_TMPDIR/headers" -o "$BATS_TEST_TMPDIR/a.prom" "$URL/metrics"
	assert_success
	grep -qi '^content-type: text/plain; version=0.0.4' "$BATS_TEST_TMPDIR/headers" ||
		fail "$(cat "$BATS_TEST_TMPDIR/headers")"
	run promtool check metrics <"$BATS_TEST_TMPDIR/a.prom"
	assert_success
	assert_output ""
	# The same families as the --metrics file.
	assert_equal "$(grep '^# TYPE' "$BATS_TEST_TMPDIR/a.prom")" \
		"$(grep '^# TYPE' "$BATS_TEST_TMPDIR/file.prom")"
	# Current at the request: the runs go on between two scrapes.
	sleep 0.5
	curl -s -o "$BATS_TEST_TMPDIR/b.prom" "$URL/metrics"
	count() { sed -n 's/^tfd_runs_total{job_name="j",result="success"} //p' "$1"; }
	(($(count "$BATS_TEST_TMPDIR/b.prom") > $(count "$BATS_TEST_TMPDIR/a.prom"))) ||
		fail "$(count "$BATS_TEST_TMPDIR/a.prom") then $(count "$BATS_TEST_TMPDIR/b.prom")"
	grep -q '^tfd_next_run_timestamp_seconds{job_name="j"} [0-9]' "$BATS_TEST_TMPDIR/b.prom"
}

@test "--listen: /metrics of 3,000 jobs comes whole, in parts, to HTTP/1.1 and HTTP/1.0" {
	jobs=$BATS_TEST_TMPDIR/jobs
	awk 'BEGIN { for (i = 0; i < 3000; i++) printf "--name job%d --cron \047%d 3 * * *\047 -- true\n", i, i % 60 }' >"$jobs"
	start_http --jobs "$jobs" -q --metrics "$BATS_TEST_TMPDIR/file.prom"
	run curl -s -D "$BATS_TEST_TMPDIR/headers" -o "$BATS_TEST_TMPDIR/a.prom" "$URL/metrics"
	assert_success
	grep -qi '^transfer-encoding: chunked' "$BATS_TEST_TMPDIR/headers"
	assert_equal "$(grep -c '^tfd_runs_total{' "$BATS_TEST_TMPDIR/a.prom")" 12000
	assert_equal "$(grep -c '^tfd_next_run_timestamp_seconds{' "$BATS_TEST_TMPDIR/a.prom")" 3000
	# The same text as the file, but for the next runs' instants, which
	# are computed at each.
	assert_equal "$(grep -v '^tfd_next_run' "$BATS_TEST_TMPDIR/a.prom" | md5sum)" \
		"$(grep -v '^tfd_next_run' "$BATS_TEST_TMPDIR/file.prom" | md5sum)"
	run curl -s --http1.0 -o "$BATS_TEST_TMPDIR/b.prom" "$URL/metrics"
	assert_success
	assert_equal "$(grep -v '^tfd_next_run' "$BATS_TEST_TMPDIR/b.prom" | md5sum)" \
		"$(grep -v '^tfd_next_run' "$BATS_TEST_TMPDIR/file.prom" | md5sum)"
}

@test "--listen: /jobs and /jobs/NAME are tfdctl --json list and status NAME; an unknown job is 404" {
	require_command jq
	TFDCTL=${TFDCTL:-$REPO/tfdctl}
	[[ -x $TFDCTL ]] || skip "no $TFDCTL: run make tfdctl first"
	ctl=$BATS_TEST_TMPDIR/control
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' '--name "a b" -i 100ms -- true' '--name c --cron "0 0 1 1 *" -- false' >"$jobs"
	start_http --jobs "$jobs" --control "$ctl" -q
	sleep 0.5
	# What moves between two requests (the time left, the time passed) is
	# left out of the comparison.
	moving='del(.. | objects | .left?, .passed?)'
	run curl -s -D "$BATS_TEST_TMPDIR/headers" "$URL/jobs"
	assert_success
	grep -qi '^content-type: application/json' "$BATS_TEST_TMPDIR/headers"
	http=$(jq -S "$moving" <<<"$output")
	ctl_list=$("$TFDCTL" --control "$ctl" --json list | jq -S "$moving")
	assert_equal "$(jq -r '[.jobs[].job] | join(",")' <<<"$http")" "a b,c"
	# The runs of "a b" go on between the two: compare what stays.
	stable='del(.. | objects | .last?, .last_unix?, .next?, .next_unix?, .duration?)'
	assert_equal "$(jq -S "$stable" <<<"$http")" "$(jq -S "$stable" <<<"$ctl_list")"
	get /jobs/c
	assert_equal "$code" 200
	assert_equal "$(jq -S "$moving" <<<"$body")" \
		"$("$TFDCTL" --control "$ctl" --json status c | jq -S "$moving")"
	# A name with a space, percent-encoded in the URL.
	get /jobs/a%20b
	assert_equal "$code" 200
	assert_equal "$(jq -r .job.job <<<"$body")" "a b"
	get /jobs/nope
	assert_equal "$code" 404
	assert_equal "$body" '{"ok":false,"error":"unknown job '"'nope'"'"}'
	get /jobs/
	assert_equal "$code" 404
}

@test "--listen: HEAD answers the headers alone; other methods are 405 with Allow; a body is refused" {
	start_http --name j -i 1s -n 60 -q
	run curl -s -I "$URL/metrics"
	assert_success
	assert_line --partial "200 OK"
	run curl -s -I "$URL/metrics" -o /dev/null -w '%{size_download}'
	assert_output 0
	for method in POST PUT DELETE PATCH OPTIONS; do
		get /metrics -X "$method"
		assert_equal "$code" 405
	done
	run curl -s -D - -o /dev/null -X POST "$URL/healthz"
	assert_line --partial "Allow: GET, HEAD"
	# A GET with a body, sized or chunked: refused before the body is read.
	get /metrics -X GET --data-binary hello
	assert_equal "$code" 413
	get /metrics -X GET -H 'Transfer-Encoding: chunked' --data-binary hello
	assert_equal "$code" 413
	get /healthz -H 'Content-Length: 0'
	assert_equal "$code" 200
}

@test "--listen: a bad ADDR:PORT is a usage error naming it" {
	assert_usage_error "--listen '0': port '0' is out of range" --listen 0 -n 1 -i 1s
	assert_usage_error "port '65536' is out of range" --listen 65536 -n 1 -i 1s
	assert_usage_error "invalid port 'http'" --listen :http -n 1 -i 1s
	assert_usage_error "no port" --listen 127.0.0.1: -n 1 -i 1s
	assert_usage_error "'localhost' is not a numeric IPv4 address" --listen localhost:9184 -n 1 -i 1s
	assert_usage_error "an IPv6 address is written in brackets" --listen ::1:9184 -n 1 -i 1s
	assert_usage_error "'::x' is not an IPv6 address" --listen '[::x]:9184' -n 1 -i 1s
	assert_usage_error "expected [IPV6]:PORT" --listen '[::1]' -n 1 -i 1s
	assert_usage_error "invalid port ' 9184'" --listen '127.0.0.1: 9184' -n 1 -i 1s
}

@test "--listen: a port in use is exit 2 at start, naming it, before any job runs" {
	start_http -n 60 -i 1s -q
	run --separate-stderr "$TFD" --listen "127.0.0.1:$PORT" -d 0 -n 1 -e "touch $BATS_TEST_TMPDIR/ran"
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --listen: bind 127.0.0.1:$PORT: Address already in use (another process listens on that port)"
	[[ ! -e $BATS_TEST_TMPDIR/ran ]] || fail "the job ran"
	# Without ADDR, every address: the same port is in use there too.
	run --separate-stderr "$TFD" --listen ":$PORT" -d 0 -n 1
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} == *"Address already in use"* ]] || fail "$stderr"
}

@test "--listen: [::1]:PORT is IPv6; no ADDR listens on IPv6 and IPv4 at once" {
	ip -6 addr show dev lo 2>/dev/null | grep -q '::1' || skip "no IPv6 on lo"
	ADDR='[::1]' start_http -n 60 -i 1s -q
	get /healthz
	assert_equal "$code" 200
	run curl -s -m 2 "http://127.0.0.1:$PORT/healthz"
	assert_failure
	kill "$TFD_PID"
	ADDR='' start_http -n 60 -i 1s -q
	for host in 127.0.0.1 '[::1]'; do
		run curl -s "http://$host:$PORT/healthz"
		assert_output ok
	done
}

@test "--listen: libmicrohttpd is not linked; a tfd without --listen never maps it, one with it does and starts no thread" {
	require_command ldd
	run ldd "$TFD"
	assert_success
	refute_output --partial microhttpd
	"$TFD" -d 0 -- sh -c 'grep -c microhttpd "/proc/$PPID/maps" || true' >"$BATS_TEST_TMPDIR/plain"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/plain")" 0
	start_http -n 60 -i 1s -q
	grep -q libmicrohttpd "/proc/$TFD_PID/maps" || fail "libmicrohttpd is not mapped"
	# One thread, after connections were served.
	get /metrics
	assert_equal "$(find "/proc/$TFD_PID/task" -mindepth 1 -maxdepth 1 | wc -l)" 1
}

@test "--listen: runs inherit neither the listening socket, a connection nor the epoll descriptor" {
	start_http --name j -i 200ms -n 300 -q -- sh -c 'ls -l /proc/$$/fd | grep -Ec "socket:|eventpoll" || true'
	exec {sock}<>"/dev/tcp/127.0.0.1/$PORT"
	sleep 0.5
	exec {sock}>&-
	grep -qx 0 "$OUT" || fail "$(cat "$OUT")"
	run grep -vx 0 "$OUT"
	assert_failure
}

@test "--listen: at most 64 connections; the 65th is served once one closes; an idle one is closed after 10 s" {
	start_http -n 600 -i 100ms -q
	local fds=() fd
	for _ in $(seq 64); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$PORT"
		fds+=("$fd")
	done
	opened=$SECONDS
	# The 65th waits (the kernel holds it) while 64 are open...
	run curl -s -m 1.5 "$URL/healthz"
	assert_failure
	# ...and is served as soon as one of them closes.
	fd=${fds[0]}
	exec {fd}>&-
	run curl -s -m 3 "$URL/healthz"
	assert_output ok
	# The idle 63 are closed 10 s after they were opened, by tfd.
	while ((SECONDS - opened < 14)); do
		(($(ss -Htn state established "( sport = :$PORT )" | wc -l) == 0)) && break
		sleep 0.2
	done
	(($(ss -Htn state established "( sport = :$PORT )" | wc -l) == 0)) ||
		fail "$(ss -Htn state established "( sport = :$PORT )" | wc -l) connections left"
	((SECONDS - opened >= 9)) || fail "closed after $((SECONDS - opened)) s, before the idle timeout"
	for fd in "${fds[@]:1}"; do
		exec {fd}>&-
	done
}

@test "--listen: runs that take every descriptor the limit leaves them leave the server its 64 connections" {
	# 120 runs with two pipes each want more descriptors than ulimit -n
	# 256 leaves them; those that do not fit wait their turn.
	awk 'BEGIN { for (i = 0; i < 120; i++)
		printf "--name s%d --delay 0 --count 1 --tag-output -- sleep 3\n", i }' >"$BATS_TEST_TMPDIR/jobs"
	wrapper=$BATS_TEST_TMPDIR/tfd-256
	printf '#!/bin/bash\nulimit -n 256\nexec %q "$@"\n' "$TFD" >"$wrapper"
	chmod +x "$wrapper"
	TFD=$wrapper start_http --jobs "$BATS_TEST_TMPDIR/jobs" -q
	sleep 0.5
	local fds=() fd
	for _ in $(seq 63); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$PORT"
		fds+=("$fd")
	done
	run curl -s -m 3 "$URL/healthz"
	assert_output ok
	for fd in "${fds[@]}"; do
		exec {fd}>&-
	done
}

@test "--listen: a client sending a byte a second does not delay a 100 ms job's ticks" {
	start_http --name j -i 100ms -n 40 --json
	# Half a request line, a byte a second, for as long as the job runs.
	(
		exec {sock}<>"/dev/tcp/127.0.0.1/$PORT"
		for c in G E T ' ' / h e a l t h; do
			printf %s "$c" >&"$sock" || exit 0
			sleep 1
		done
	) 3>&- &
	slow=$!
	# Meanwhile the others are served.
	for _ in 1 2 3 4 5; do
		run curl -s -m 2 "$URL/healthz"
		assert_output ok
		sleep 0.5
	done
	wait_bg_exit "$TFD_PID" 20
	kill "$slow" 2>/dev/null || true
	[[ $bg_status == 0 ]] || fail "exit $bg_status: $(cat "$ERR")"
	# Hardly an expiration missed, and no wake-up more than a loaded
	# machine's lateness late: a loop that waited for the client would be
	# a second late and miss ten.
	ticks=$(grep -c '"event":"tick"' "$OUT")
	((ticks >= 37)) || fail "$ticks wake-ups for 40 expirations"
	(($(late_max_us) < 500000)) || fail "late by $(late_max_us) us"
}

@test "--listen: /readyz is 503 with the reason after a refused reload, 200 once the jobs file loads" {
	jobs=$BATS_TEST_TMPDIR/jobs
	echo '--name a -i 1s -- true' >"$jobs"
	start_http --jobs "$jobs" -q
	get /readyz
	assert_equal "$code" 200
	echo '--name a --interval nonsense -- true' >"$jobs"
	kill -HUP "$TFD_PID"
	readyz_becomes 503
	assert_equal "$code" 503
	[[ $body == "the last reload was refused; the jobs run as they were: $jobs:1: "* ]] || fail "$body"
	assert_equal "${#lines[@]}" 2
	echo '--name a -i 1s -- true' >"$jobs"
	kill -HUP "$TFD_PID"
	readyz_becomes 200
	assert_equal "$code" 200
}

@test "--listen: a rollback to the jobs file that runs, after a refused reload, is a reload: ok, and /readyz 200" {
	require_command jq
	local jobs=$BATS_TEST_TMPDIR/jobs good=$BATS_TEST_TMPDIR/good i
	printf '%s\n' '--name a -i 1h -- true' '--name b -i 1h -- true' >"$jobs"
	start_http --jobs "$jobs" --json
	# The issue's steps: a ConfigMap rolled out bad, then rolled back.
	cp "$jobs" "$good"
	echo '--name bad --calendar nonsense -- true' >>"$jobs"
	readyz_becomes 503
	assert_equal "$code" 503
	cp "$good" "$jobs"
	readyz_becomes 200
	assert_equal "$code" 200
	for ((i = 0; i < 50; i++)); do
		(($(grep -c '"event":"reload"' "$OUT") >= 2)) && break
		sleep 0.1
	done
	run jq -c 'select(.event == "reload") | [.ok, .added, .removed, .kept]' "$OUT"
	assert_line --index 0 '[false,null,null,null]'
	assert_line --index 1 '[true,0,0,2]'
}

@test "--listen: a cron line whose dates never come (0 0 30 2 *) shows no next time in /jobs nor in /metrics" {
	require_command jq
	local jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' '--name a -i 1h -- true' '0 0 30 2 * echo never' >"$jobs"
	start_http --jobs "$jobs" -q
	get /jobs
	assert_equal "$(jq -c '.jobs[] | select(.job == "echo") | [.next, .left]' <<<"$body")" '[null,null]'
	get /metrics
	[[ $body == *'tfd_next_run_timestamp_seconds{job_name="a"}'* ]] || fail "$body"
	[[ $body != *'tfd_next_run_timestamp_seconds{job_name="echo"}'* ]] || fail "$body"
	[[ $body == *'tfd_runs_total{job_name="echo"'* ]] || fail "$body"
}

@test "--listen: /readyz is 503 while a jobs directory holds no job" {
	mkdir "$BATS_TEST_TMPDIR/jobs.d"
	start_http --jobs "$BATS_TEST_TMPDIR/jobs.d" -q
	get /readyz
	assert_equal "$code" 503
	assert_equal "$body" "no jobs loaded: the jobs files hold no job"
	echo '--name a -i 1s -- true' >"$BATS_TEST_TMPDIR/jobs.d/a"
	readyz_becomes 200
	assert_equal "$code" 200
}

@test "--listen with --fleet: /readyz is 503 while the database is down, 200 once it is back" {
	require_command "$PG_BIN/initdb"
	pg_start
	pg_test_db
	start_http --fleet "$CONN" --replica r --calendar '*:*:*' -q -- true
	wait_ready() {
		for _ in $(seq 150); do
			get /readyz
			[[ $code == "$1" ]] && return 0
			sleep 0.1
		done
		fail "/readyz: $code $body"
	}
	wait_ready 200
	pg_down
	wait_ready 503
	assert_equal "$body" "--fleet: the database is not connected"
	get /healthz
	assert_equal "$code" 200
	pg_up
	wait_ready 200
}

@test "src/mhd.h declares libmicrohttpd's types and values as microhttpd.h does" {
	[[ -f /usr/include/microhttpd.h ]] || fail "libmicrohttpd-dev is not installed (.ci/install-deps)"
	run cc -std=c11 -Wall -Wextra -Werror -I"$REPO/src" -c -o /dev/null "$REPO/tests/http/mhd_abi.c"
	assert_success
}
