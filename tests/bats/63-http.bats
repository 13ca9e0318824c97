#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $PPID and $$.
# --listen=[ADDR:]PORT: tfd's read-only HTTP through libmicrohttpd, loaded
# only for --listen and served from tfd's own poll loop (no thread). Spoken
# to with curl and with bash's /dev/tcp for what curl cannot do (idle
# connections, a client that sends a byte a second); tests/http/conns.c
# holds connections from a chosen address (tfd serves 16 from one), and
# tests/http/load.c is clients that ask for large answers without end.
#
# Ports: HTTP_TEST_PORTS (default 19180-19199), tried in a random order
# until tfd binds one, so two passes of the suite at once (make check runs
# the plain and the ASan build side by side) do not take each other's.

load test_helper
load pg_helper

HTTP_TEST_PORTS=${HTTP_TEST_PORTS:-19180-19199}

setup_file() {
	local tool
	for tool in conns load; do
		cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$BATS_FILE_TMPDIR/$tool" \
			"$REPO/tests/http/$tool.c" || return 1
	done
}

teardown_file() {
	PG_DIR=$BATS_FILE_TMPDIR/pg pg_stop
}

# hold NAME [conns' arguments...]: connections held by tests/http/conns
# in the background (its lines in $BATS_TEST_TMPDIR/NAME), once they are
# all open.
hold() {
	local name=$1
	shift
	start_bg "$BATS_FILE_TMPDIR/conns" "$@" "$PORT" >"$BATS_TEST_TMPDIR/$name"
	wait_for_lines "$BATS_TEST_TMPDIR/$name" 10 || fail "conns $*: $(cat "$BATS_TEST_TMPDIR/$name")"
	grep -q '^open' "$BATS_TEST_TMPDIR/$name" || fail "conns $*: $(cat "$BATS_TEST_TMPDIR/$name")"
}

# The "closed K MS" lines of the conns NAME.
closed() {
	grep -c '^closed' "$BATS_TEST_TMPDIR/$1" || true
}

# need_tfdctl: jq and tfdctl ($TFDCTL) there, or the test is skipped; ctl
# and jobs are paths for the control socket and a jobs file.
need_tfdctl() {
	require_command jq
	TFDCTL=${TFDCTL:-$REPO/tfdctl}
	[[ -x $TFDCTL ]] || skip "no $TFDCTL: run make tfdctl first"
	ctl=$BATS_TEST_TMPDIR/control
	jobs=$BATS_TEST_TMPDIR/jobs
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
			nap 0.05
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
		nap 0.1
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
	count() { sed -n 's/^tfd_runs_total{job_name="j",result="success"} //p' "$1"; }
	more_runs() {
		curl -s -o "$BATS_TEST_TMPDIR/b.prom" "$URL/metrics" &&
			(($(count "$BATS_TEST_TMPDIR/b.prom") > $(count "$BATS_TEST_TMPDIR/a.prom")))
	}
	wait_until 20 more_runs ||
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
	need_tfdctl
	printf '%s\n' '--name "a b" -i 100ms -- true' '--name c --cron "0 0 1 1 *" -- false' >"$jobs"
	start_http --jobs "$jobs" --control "$ctl" -q
	nap 0.5
	# What moves between two requests (the time left, the time passed) is
	# left out of the comparison.
	moving='del(.. | objects | .left?, .passed?)'
	run curl -s -D "$BATS_TEST_TMPDIR/headers" "$URL/jobs"
	assert_success
	grep -qi '^content-type: application/json' "$BATS_TEST_TMPDIR/headers"
	http=$(jq -S "$moving" <<<"$output")
	ctl_list=$("$TFDCTL" --control "$ctl" --json list | jq -S "$moving")
	assert_equal "$(jq -r '[.jobs[].job] | join(",")' <<<"$http")" "a b,c"
	# The runs of "a b" go on between the two (it may be running in one
	# and idle in the other): compare what stays.
	stable='del(.. | objects | .last?, .last_unix?, .next?, .next_unix?, .duration?, .state?, .pids?)'
	assert_equal "$(jq -S "$stable" <<<"$http")" "$(jq -S "$stable" <<<"$ctl_list")"
	# Over HTTP without what may hold secrets (the next test).
	get /jobs/c
	assert_equal "$code" 200
	assert_equal "$(jq -S "$moving" <<<"$body")" \
		"$("$TFDCTL" --control "$ctl" --json status c |
			jq -S "$moving | del(.job.command, .job.hooks, .job.output_tail)")"
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

@test "--listen: /jobs, /jobs/NAME and /metrics never show a job's command, hooks, environment or output tail; the control socket does" {
	need_tfdctl
	printf '%s\n' 'API_TOKEN=env-s3cret-1' \
		'--name leak --tag-output -i 100ms --on-failure "echo hook-s3cret-5" -- sh -c '"'"'echo "token=out-s3cret-2 $API_TOKEN"; : arg-s3cret-3'"'"'' \
		'* * * * * echo cron-s3cret-4' >"$jobs"
	start_http --jobs "$jobs" --control "$ctl" -q
	# Once a run's output is in the tail, the socket shows all three.
	for _ in $(seq 100); do
		run "$TFDCTL" --control "$ctl" --json status leak
		[[ $output == *out-s3cret-2*env-s3cret-1* ]] && break
		nap 0.1
	done
	assert_output --partial '"output_tail":"token=out-s3cret-2 env-s3cret-1\n'
	assert_output --partial arg-s3cret-3
	assert_output --partial hook-s3cret-5
	name=$("$TFDCTL" --control "$ctl" --json list | jq -r '.jobs[].job | select(. != "leak")')
	for path in /jobs /jobs/leak "/jobs/$name" /metrics; do
		get "$path"
		assert_equal "$code" 200
		[[ $body != *s3cret* ]] || fail "$path shows it: $body"
	done
	get /jobs/leak
	assert_equal "$(jq -r '.job | has("command"), has("output_tail"), has("hooks"), .job' <<<"$body")" \
		"$(printf '%s\n' false false false leak)"
}

# The longest gap between two ticks of the job "tick" in $OUT (ms), and
# the expirations they missed: "GAP MISSED".
tick_gaps() {
	grep -a '"job":"tick"' "$OUT" | grep -a '"event":"tick"' |
		sed 's/.*"expirations":\([0-9]*\).*"unix":\([0-9.]*\).*/\1 \2/' |
		awk 'NR > 1 && ($2 - prev) * 1000 > gap { gap = ($2 - prev) * 1000 }
			{ prev = $2; missed += $1 - 1 } END { printf "%d %d\n", gap, missed }'
}

@test "--listen, --control: clients asking 10,000 jobs' /jobs, /metrics and list without end leave a 10 ms job's ticks on time" {
	chrt -f 10 true 2>/dev/null || skip "no real-time policy here (chrt -f 10)"
	jobs=$BATS_TEST_TMPDIR/jobs
	awk 'BEGIN { for (i = 0; i < 10000; i++)
		printf "--name job%05d --cron \047%d %d * * *\047 -- true\n", i, i % 60, (i / 60) % 24 }' >"$jobs"
	echo '--name tick --interval 10ms -- true' >>"$jobs"
	# Real-time, so that the machine's other load is not what is
	# measured: only what tfd itself does between two ticks.
	wrapper=$BATS_TEST_TMPDIR/tfd-rt
	printf '#!/bin/bash\nexec chrt -f 10 %q "$@"\n' "$TFD" >"$wrapper"
	chmod +x "$wrapper"
	TFD=$wrapper start_http --jobs "$jobs" --control "$BATS_TEST_TMPDIR/control" --json
	nap 0.5
	: >"$OUT"
	load=$BATS_FILE_TMPDIR/load
	"$load" -c 32 -a 2 -t 4 "$URL/jobs" >"$BATS_TEST_TMPDIR/jobs.load" 3>&- &
	loads=("$!")
	"$load" -c 32 -a 2 -b 127.0.0.3 -t 4 "$URL/metrics" >"$BATS_TEST_TMPDIR/metrics.load" 3>&- &
	loads+=("$!")
	"$load" -c 16 -t 4 "unix:$BATS_TEST_TMPDIR/control" >"$BATS_TEST_TMPDIR/list.load" 3>&-
	wait "${loads[@]}"
	read -r gap missed < <(tick_gaps)
	# The spec's bound is 50 ms with no tick missed (bench/http.sh
	# measures it); a loaded machine's share is left to it here. Whole
	# answers made in one turn held the ticks for a second.
	((gap < 150)) || fail "a gap of $gap ms, $missed expirations missed"
	# And the clients were served meanwhile (under ASan, the answers of
	# /metrics, 5 MB each, take turns longer than the test).
	for what in jobs metrics list; do
		grep -Eq '^done=[0-9]+ bytes=[0-9]{7}' "$BATS_TEST_TMPDIR/$what.load" ||
			fail "$what: $(cat "$BATS_TEST_TMPDIR/$what.load")"
	done
}

@test "--listen, --control: a reload that drops jobs while a list of them is being sent leaves them out of it, the JSON whole" {
	require_command jq socat
	jobs=$BATS_TEST_TMPDIR/jobs
	ctl=$BATS_TEST_TMPDIR/control
	# Long names: HTTP's answer (6 MB) is more than the kernel holds of
	# it for a reader that waits (4 MB on loopback), so it is still
	# being made when the reload comes.
	pad=$(printf 'x%.0s' $(seq 400))
	awk -v pad="$pad" 'BEGIN { for (i = 0; i < 10000; i++)
		printf "--name job%05d-%s --cron \047%d %d * * *\047 -- true\n", i, pad, i % 60, (i / 60) % 24 }' >"$jobs"
	start_http --jobs "$jobs" --control "$ctl" --json
	# Two readers that stop reading after the first bytes, for 3 s.
	(curl -s "$URL/jobs" | { sleep 3; cat; } >"$BATS_TEST_TMPDIR/http.json") 3>&- &
	readers=("$!")
	({ echo '{"command":"list"}'; sleep 6; } | socat -t 1 - "UNIX-CONNECT:$ctl" |
		{ sleep 3; cat; } >"$BATS_TEST_TMPDIR/ctl.json") 3>&- &
	readers+=("$!")
	sleep 1
	head -100 "$jobs" >"$jobs.new"
	mv "$jobs.new" "$jobs"
	kill -HUP "$TFD_PID"
	for _ in $(seq 100); do
		grep -q '"event":"reload"' "$OUT" && break
		nap 0.05
	done
	grep -q '"event":"reload","job":null,"ok":true,"added":0,"removed":9900,"kept":100' "$OUT" ||
		fail "$(grep reload "$OUT")"
	wait "${readers[@]}"
	for answer in http ctl; do
		run jq '.jobs | length' "$BATS_TEST_TMPDIR/$answer.json"
		assert_success
		# Some were sent before the reload, the rest of the 9,900 left
		# out; the 100 kept are there.
		((output > 100 && output < 10000)) || fail "$answer: $output jobs"
		run jq -r '.jobs[].job' "$BATS_TEST_TMPDIR/$answer.json"
		for kept in $(seq -f 'job%05g' 0 99); do
			[[ $output == *"$kept-"* ]] || fail "$answer: $kept is missing"
		done
	done
	kill -0 "$TFD_PID"
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
	# Runs start while the connection is open.
	wait_for_lines "$OUT" 20 2
	exec {sock}>&-
	grep -qx 0 "$OUT" || fail "$(cat "$OUT")"
	run grep -vx 0 "$OUT"
	assert_failure
}

@test "--listen: at most 64 connections; the 65th is served once one closes; an idle one is closed after 10 s" {
	start_http -n 600 -i 100ms -q
	# 16 from each of four addresses: every slot.
	for k in 1 2 3 4; do
		hold "c$k" -b "127.0.0.$k" -n 16
	done
	opened=$SECONDS
	# The 65th waits (the kernel holds it) while 64 are open...
	run curl -s -m 1.5 --interface 127.0.0.5 "$URL/healthz"
	assert_failure
	# ...and is served as soon as one of them closes.
	kill "${BG_PIDS[-1]}"
	run curl -s -m 3 --interface 127.0.0.5 "$URL/healthz"
	assert_output ok
	# The idle 48 left are closed 10 s after they were opened, by tfd.
	while ((SECONDS - opened < 16)); do
		(($(closed c1) + $(closed c2) + $(closed c3) == 48)) && break
		nap 0.2
	done
	assert_equal "$(($(closed c1) + $(closed c2) + $(closed c3)))" 48
	run awk '$1 == "closed" && $3 < 9000' "$BATS_TEST_TMPDIR/c1" "$BATS_TEST_TMPDIR/c2" \
		"$BATS_TEST_TMPDIR/c3"
	assert_output ""
}

@test "--listen: at most 16 connections from one address; the others are served" {
	start_http -n 600 -i 100ms -q
	hold c1 -n 17
	# The 17th is closed at once...
	for _ in $(seq 40); do
		(($(closed c1) > 0)) && break
		nap 0.05
	done
	assert_equal "$(closed c1)" 1
	# ...another address is served, and so is the first once it has a
	# slot again.
	run curl -s -m 3 --interface 127.0.0.2 "$URL/healthz"
	assert_output ok
	run curl -s -m 3 --interface 127.0.0.1 "$URL/healthz"
	assert_failure
	kill "${BG_PIDS[-1]}"
	for _ in $(seq 40); do
		curl -s -m 3 --interface 127.0.0.1 "$URL/healthz" && break
		nap 0.05
	done
	run curl -s -m 3 --interface 127.0.0.1 "$URL/healthz"
	assert_output ok
}

@test "--listen: 64 connections from one address trickling a header byte every 3 s leave /healthz from another answering" {
	start_http -n 600 -i 100ms -q
	# What an attacker does: 64 slow requests, each opened again when
	# tfd ends it.
	hold slow -n 64 -i 3000 -r
	for _ in 1 2 3 4 5; do
		# A deadline a loaded machine keeps: the kubelet's is 1 s.
		run curl -s -m 3 -o /dev/null -w '%{http_code} %{time_total}' --interface 127.0.0.2 \
			"$URL/healthz"
		[[ $output == "200 "* ]] || fail "/healthz: '$output'"
		nap 0.5
	done
}

@test "--listen: a request trickled a byte a second is cut 10 s after its connection began" {
	start_http -n 600 -i 100ms -q
	hold slow -n 1 -i 1000
	# Each byte would put libmicrohttpd's idle timeout off again; the
	# request's own limit counts from the connection.
	wait_for_lines "$BATS_TEST_TMPDIR/slow" 20 2 || fail "still open: $(cat "$BATS_TEST_TMPDIR/slow")"
	run awk '$1 == "closed" { print $3 }' "$BATS_TEST_TMPDIR/slow"
	((output >= 9500 && output < 15000)) || fail "closed after $output ms"
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
	nap 0.5
	for k in 1 2 3; do
		hold "c$k" -b "127.0.0.$k" -n 16
	done
	hold c4 -b 127.0.0.4 -n 15
	run curl -s -m 3 --interface 127.0.0.5 "$URL/healthz"
	assert_output ok
	assert_equal "$(cat "$BATS_TEST_TMPDIR"/c? | grep -c '^closed')" 0
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
	# Meanwhile the others are served (within 5 s, a loaded machine's
	# curl included; a server held by the client would take its 12).
	for _ in 1 2 3 4 5; do
		run curl -s -m 5 "$URL/healthz"
		assert_output ok
		nap 0.5
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
		nap 0.1
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
			nap 0.1
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

@test "src/serve/mhd.h declares libmicrohttpd's types and values as microhttpd.h does" {
	[[ -f /usr/include/microhttpd.h ]] || fail "libmicrohttpd-dev is not installed (.ci/install-deps)"
	run cc -std=c11 -Wall -Wextra -Werror -I"$REPO/src/serve" -c -o /dev/null "$REPO/tests/http/mhd_abi.c"
	assert_success
}
