#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # --exec strings are expanded by the run's shell, not here.
# What issue 12 adds around the timer, seen from outside: --retry and
# --retry-delay (timings, statuses, TFD_ATTEMPT, "exit" events, -E, the next
# scheduled run), --tag-output (streams, order, long lines, invalid UTF-8, a
# last line without newline, a slow reader of tfd's stdout, descriptors),
# --metrics (the file through a run's life, promtool, node_exporter, failed
# writes, --jobs) and the names of one job. Timings have wide tolerances: the
# machines are noisy, so the tests assert order and bounds, not precision.

load test_helper
load metrics_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# Helpers

# The "exit" events of the --json lines in file $1, one a line:
#   SEQ ATTEMPT STATUS FAILED
exits() {
	jq -r 'select(.event == "exit") | "\(.seq) \(.attempt) \(.status) \(.failed)"' "$1"
}

# The value of series $1 (as written in the file, labels in tfd's order) in
# metrics file $2 (default m.prom); nothing when it is not there.
metric() {
	[[ -f ${2:-m.prom} ]] || return 0
	awk -v s="$1" 'index($0, s " ") == 1 { print substr($0, length(s) + 2) }' "${2:-m.prom}"
}

# Fails unless decimal $1 lies in [$2, $3].
assert_between() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo + 0 && v + 0 <= hi + 0) }' ||
		fail "$1 is not within [$2, $3]"
}

# Waits up to $3 seconds (default 20) until series $1 in file $2 has a
# value of at least $4 (default 1).
wait_for_metric() {
	local i v
	for ((i = 0; i < ${3:-20} * 20; i++)); do
		v=$(metric "$1" "$2" 2>/dev/null)
		[[ -n $v ]] && ((v >= ${4:-1})) && return 0
		nap 0.05
	done
	fail "$1 in $2 is '$v' after ${3:-20}s, want at least ${4:-1}"
}

# The realtime clock now as decimal seconds.
now_s() {
	date +%s.%N
}

# Decimal seconds $1 plus $2, printed whole to the nanosecond (awk's
# default %g would round a Unix time to the thousand seconds).
plus() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.9f\n", a + b }'
}

# Retries

@test "retry: the waits double (0.2, 0.4, 0.8 s), each try sees TFD_ATTEMPT, the last try's status is tfd's" {
	run --separate-stderr "$TFD" -d 0 --retry 3 --retry-delay 200ms --json \
		--exec 'echo "$TFD_ATTEMPT $(date +%s.%N)" >>tries; exit $((10 + TFD_ATTEMPT))'
	assert_equal "$status" 14
	printf '%s\n' "$output" >out.json
	assert_equal "$(cut -d' ' -f1 tries | tr '\n' ' ')" "1 2 3 4 "
	local -a t
	mapfile -t t < <(cut -d' ' -f2 tries)
	# Each gap is the wait and a try's start (sh, date): at least the
	# wait, and below the next wait's, with room for a loaded machine.
	assert_between "$(awk -v a="${t[0]}" -v b="${t[1]}" 'BEGIN { print b - a }')" 0.19 0.7
	assert_between "$(awk -v a="${t[1]}" -v b="${t[2]}" 'BEGIN { print b - a }')" 0.39 0.9
	assert_between "$(awk -v a="${t[2]}" -v b="${t[3]}" 'BEGIN { print b - a }')" 0.79 1.3
	# Every try is an "exit" event; only the last one counts as failed.
	assert_equal "$(exits out.json | tr '\n' ,)" "1 1 11 false,1 2 12 false,1 3 13 false,1 4 14 true,"
}

@test "retry: a success on try 2 ends the retries and a one-shot exits 0" {
	run --separate-stderr "$TFD" -d 0 --retry 3 --retry-delay 50ms --json \
		--exec 'echo "$TFD_ATTEMPT" >>tries; [ "$TFD_ATTEMPT" = 2 ]'
	assert_success
	printf '%s\n' "$output" >out.json
	assert_equal "$(tr '\n' ' ' <tries)" "1 2 "
	assert_equal "$(exits out.json | tr '\n' ,)" "1 1 1 false,1 2 0 false,"
}

@test "retry: without --retry a failure is failed at once, attempt 1; TFD_ATTEMPT is 1" {
	run --separate-stderr "$TFD" -d 0 --json --exec 'echo "$TFD_ATTEMPT" >tries; exit 5'
	assert_equal "$status" 5
	printf '%s\n' "$output" >out.json
	assert_equal "$(cat tries)" 1
	assert_equal "$(exits out.json)" "1 1 5 true"
}

@test "retry: -E judges the last try only: a retried success goes on, a last failed try stops tfd" {
	# Each try 2 comes 30 ms after try 1, a second before the next tick
	# even on a loaded machine.
	run --separate-stderr "$TFD" -i 1s -n 3 -E --retry 1 --retry-delay 30ms --json \
		--exec '[ "$TFD_ATTEMPT" = 2 ]'
	assert_success
	printf '%s\n' "$output" >ok.json
	assert_equal "$(exits ok.json | tr '\n' ,)" \
		"1 1 1 false,1 2 0 false,2 1 1 false,2 2 0 false,3 1 1 false,3 2 0 false,"

	run --separate-stderr "$TFD" -i 1s -n 3 -E --retry 1 --retry-delay 30ms --json -- false
	assert_equal "$status" 1
	printf '%s\n' "$output" >bad.json
	assert_equal "$(exits bad.json | tr '\n' ,)" "1 1 1 false,1 2 1 true,"
}

@test "retry: never at or after the next scheduled run: a wait past the next tick is no retry, failed at once" {
	# Tick 1 at 1 s fails; a retry at 2.2 s would come after tick 2 at 2 s.
	run --separate-stderr "$TFD" -i 1s -n 2 --retry 5 --retry-delay 1200ms --json \
		--exec 'echo "$TFD_SEQ $TFD_ATTEMPT" >>tries; [ "$TFD_SEQ" = 2 ]'
	assert_success
	printf '%s\n' "$output" >out.json
	assert_equal "$(tr '\n' ,  <tries)" "1 1,2 1,"
	assert_equal "$(exits out.json | tr '\n' ,)" "1 1 1 true,2 1 0 false,"
}

@test "retry: tries before the next tick happen, the one that would pass it does not (failed true)" {
	# Tick 1 at 2 s; try 2 at 2.7 s comes first (a loaded machine may
	# start it a second late); try 3 would be at 4.1 s, after tick 2 at
	# 4 s, so try 2 is the last and counts as failed.
	run --separate-stderr "$TFD" -i 2s -n 2 --retry 5 --retry-delay 700ms --json \
		--exec 'echo "$TFD_SEQ $TFD_ATTEMPT" >>tries; [ "$TFD_SEQ" = 2 ]'
	assert_success
	printf '%s\n' "$output" >out.json
	assert_equal "$(tr '\n' , <tries)" "1 1,1 2,2 1,"
	assert_equal "$(exits out.json | tr '\n' ,)" "1 1 1 false,1 2 1 true,2 1 0 false,"
}

@test "retry: a try still going at the next tick is not retried: the tick took over, even skipped" {
	# Try 1 fails at 1 s, try 2 starts at 1.1 s and waits for tick 2 (in
	# tfd's output) before it fails too: tick 2 finds it going and is
	# skipped; try 3 would start after tick 2, so there is none.
	local try='[ "$TFD_ATTEMPT" = 1 ] && exit 1
until grep -q "\"seq\":2" out.json; do sleep 0.05; done; exit 1'
	run --separate-stderr timeout 30 sh -c 'exec "$1" -i 1s -n 2 --retry 3 --retry-delay 100ms \
		--json --exec "$2" >out.json' sh "$TFD" "$try"
	assert_success
	assert_equal "$(jq -r 'select(.event == "tick") | .action' out.json | tr '\n' ' ')" "run skip "
	assert_equal "$(exits out.json | tr '\n' ,)" "1 1 1 false,1 2 1 true,"
}

@test "retry: metrics count the last try only" {
	run --separate-stderr "$TFD" -d 0 --retry 2 --retry-delay 30ms --metrics m.prom \
		--exec '[ "$TFD_ATTEMPT" = 3 ]'
	assert_success
	assert_equal "$(metric 'tfd_runs_total{job_name="[",result="success"}')" 1
	assert_equal "$(metric 'tfd_runs_total{job_name="[",result="failure"}')" 0
	assert_equal "$(metric 'tfd_last_run_exit_status{job_name="["}')" 0

	run --separate-stderr "$TFD" -d 0 --retry 2 --retry-delay 30ms --metrics m.prom \
		--exec 'exit $((20 + TFD_ATTEMPT))'
	assert_equal "$status" 23
	assert_equal "$(metric 'tfd_runs_total{job_name="exit",result="success"}')" 0
	assert_equal "$(metric 'tfd_runs_total{job_name="exit",result="failure"}')" 1
	assert_equal "$(metric 'tfd_last_run_exit_status{job_name="exit"}')" 23
	assert_equal "$(metric 'tfd_last_success_timestamp_seconds{job_name="exit"}')" ""
}

# --tag-output

@test "tag-output: 'JOB[SEQ]: LINE' on the stream the line came from, in order per stream" {
	# Two runs a second apart: a loaded machine cannot merge them.
	"$TFD" -d 0 -i 1s -n 2 --tag-output --exec \
		'for i in 1 2 3 4 5 6 7 8 9 10; do echo "o$TFD_SEQ.$i"; echo "e$TFD_SEQ.$i" >&2; done' \
		>out 2>err || fail "tfd exited $?"
	local want_out='' want_err='' s i
	for s in 1 2; do
		for i in 1 2 3 4 5 6 7 8 9 10; do
			want_out+="for[$s]: o$s.$i"$'\n'
			want_err+="for[$s]: e$s.$i"$'\n'
		done
	done
	assert_equal "$(cat out)"$'\n' "$want_out"
	assert_equal "$(cat err)"$'\n' "$want_err"
}

@test "tag-output: a 200 KiB line comes out in 64 KiB pieces, no byte lost; 64 KiB is one line" {
	run --separate-stderr "$TFD" -d 0 --tag-output --name big \
		--exec 'head -c 204800 /dev/zero | tr "\0" x; echo'
	assert_success
	assert_equal "$stderr" ""
	local -a len
	mapfile -t len < <(printf '%s\n' "$output" | awk '{ print length($0) }')
	local head="big[1]: " p
	p=${#head}
	assert_equal "${len[*]}" "$((65536 + p)) $((65536 + p)) $((65536 + p)) $((8192 + p))"
	assert_equal "$(printf '%s\n' "$output" | sed 's/^big\[1\]: //' | tr -d '\n' | tr -d x | wc -c)" 0

	run --separate-stderr "$TFD" -d 0 --tag-output --json --name big \
		--exec 'head -c 204800 /dev/zero | tr "\0" y; echo'
	assert_success
	assert_equal "$(jq -r 'select(.event == "output") | .line | length' <<<"$output" | tr '\n' ' ')" \
		"65536 65536 65536 8192 "

	# A line of exactly 64 KiB is one line, not one and an empty one.
	run --separate-stderr "$TFD" -d 0 --tag-output --json --name big \
		--exec 'head -c 65536 /dev/zero | tr "\0" z; echo; echo next'
	assert_success
	assert_equal "$(jq -r 'select(.event == "output") | .line | length' <<<"$output" | tr '\n' ' ')" \
		"65536 4 "
}

@test "tag-output: invalid UTF-8 becomes U+FFFD in output events" {
	run --separate-stderr "$TFD" -d 0 --tag-output --json --name u \
		--exec 'printf "a\377b\n"; printf "c\300\200d\n" >&2; printf "\303\251\n"'
	assert_success
	printf '%s\n' "$output" >out.json
	# Each stream keeps its order; the two streams may interleave. U+FFFD
	# and U+00E9 are written as their UTF-8 bytes: bash reads $'\u...' in
	# the locale, and leaves it as it is in C.
	assert_equal "$(jq -r 'select(.stream == "stdout") | .line' out.json)" $'a\xef\xbf\xbdb\n\xc3\xa9'
	assert_equal "$(jq -r 'select(.stream == "stderr") | .line' out.json)" $'c\xef\xbf\xbd\xef\xbf\xbdd'
	assert_equal "$(jq -r 'select(.event == "output") | .seq' out.json | sort -u)" 1
}

@test "tag-output: a run that never ends its last line still gets it written" {
	"$TFD" -d 0 --tag-output --name p --exec 'printf "one\ntwo"; printf "err" >&2' >out 2>err ||
		fail "tfd exited $?"
	assert_equal "$(cat out)" "p[1]: one
p[1]: two"
	assert_equal "$(cat err)" "p[1]: err"
	assert_equal "$(tail -c 1 out | od -An -c | tr -d ' ')" '\n'

	run --separate-stderr "$TFD" -d 0 --tag-output --json --name p --exec 'printf "tail"'
	assert_success
	assert_equal "$(jq -r '.event + ":" + (.line // "")' <<<"$output" | tr '\n' ' ')" \
		"tick: output:tail exit: "
}

@test "tag-output: a run's own lines come before its exit; a child it left behind writes on, tagged, after it" {
	# Run 1's child writes once its leader is gone (reaped by tfd: a
	# zombie still takes signal 0).
	run --separate-stderr "$TFD" -d 0 -i 1s -n 2 --tag-output --json --name o \
		--exec 'echo "a$TFD_SEQ"; if [ "$TFD_SEQ" = 1 ]; then
			(while kill -0 $$ 2>/dev/null; do sleep 0.05; done; echo late1) & fi'
	assert_success
	printf '%s\n' "$output" >out.json
	# Run 1's leader exits at once: its "exit" follows (issue 18 item 12),
	# and the line its child writes after is still read and tagged.
	jq -r 'select(.event == "output" or .event == "exit") | "\(.event) \(.seq) \(.line)"' out.json >ev
	assert_equal "$(grep ' 1 ' ev | tr '\n' ,)" "output 1 a1,exit 1 null,output 1 late1,"
	assert_equal "$(grep ' 2 ' ev | tr '\n' ,)" "output 2 a2,exit 2 null,"
}

@test "tag-output: a run faster than tfd's stdout drains loses nothing and tears nothing" {
	# tfd's stdout is a pipe nobody reads for 2 s: the run blocks on its
	# own pipe meanwhile, and every line comes out whole and in order.
	"$TFD" -d 0 --tag-output --name s --exec 'seq 1 200000; seq 1 20000 >&2' 2>err |
		sh -c 'sleep 2; cat' >out
	assert_equal "$(wc -l <out)" 200000
	awk '$0 != "s[1]: " NR { print "line", NR, "is", $0; exit 1 }' out
	awk '$0 != "s[1]: " NR { print "line", NR, "is", $0; exit 1 }' err
	assert_equal "$(wc -l <err)" 20000
}

@test "tag-output: while tfd's stdout is stuck, --timeout still ends the run" {
	local mark="m${BASHPID}x$RANDOM"
	# The reader reads nothing until the test says so (the file go), or
	# for 60 s at most: a failed test leaves no reader waiting. A
	# timeout of 2 s: the poll below must see the run on a loaded machine.
	start_bg sh -c '"$TFD" -d 0 --timeout 2s --tag-output --name y -- yes "$1" 2>err |
		(i=0; while [ ! -e go ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done; cat) >out' sh "$mark"
	local bg=${BG_PIDS[-1]}
	wait_for_process "^yes $mark\$"
	# The run is gone while the reader has read nothing yet.
	wait_for_no_process "^yes $mark\$"
	[[ ! -s out ]] || fail "the reader read too early"
	touch go
	wait_bg_exit "$bg"
	[[ $(cat err) =~ ^"tfd: run 1 (pid "[0-9]+") timed out and was killed by SIGTERM"$ ]] ||
		fail "stderr: $(cat err)"
	(($(wc -l <out) > 100)) || fail "only $(wc -l <out) lines were written"
	! grep -qv "^y\[1\]: $mark\$" out || fail "a torn line: $(grep -v "^y\[1\]: $mark\$" out | head -n 3)"
}

@test "tag-output: while tfd's stdout is stuck, SIGTERM ends tfd and its runs with 143" {
	start_bg sh -c '{ "$TFD" -i 10ms --tag-output --name t --exec "seq 1 5000" 2>err; echo $? >rc; } |
		{ echo $$ >/dev/null; sh -c "echo \$\$ >reader; exec sleep 30"; }'
	local tfd i
	for ((i = 0; i < 100; i++)); do
		tfd=$(pgrep -f -- "^$TFD -i 10ms --tag-output --name t") && [[ -s reader ]] && break
		nap 0.05
	done
	[[ -n $tfd && -s reader ]] || fail "tfd did not start"
	BG_PIDS+=("$(cat reader)")
	# tfd's stdout stuck: the pipe is full (64 KiB of lines unread).
	wait_until 20 pipe_full "$tfd" || fail "tfd's stdout never filled"
	kill -TERM "$tfd"
	wait_until 20 test -s rc || fail "tfd still running 20 s after SIGTERM with its reader stuck"
	assert_equal "$(cat rc)" 143
	assert_equal "$(cat err)" ""
	! pgrep -f -- "^$TFD -i 10ms --tag-output --name t" >/dev/null || fail "tfd left running"
}

@test "tag-output: a run's pipes are not inherited by another run" {
	# Run 2 starts while run 1 is going and has no descriptor beyond 0-2
	# (the shell's own glob of the directory is closed before readlink);
	# had it inherited run 1's pipe ends, run 1's "exit" would also wait
	# for run 2's end. Run 1 ends once run 2 has started (the file r2);
	# run 2 writes its last line a second after run 1 was reaped (a
	# zombie still takes signal 0).
	run --separate-stderr timeout 30 "$TFD" -d 0 -i 1s -n 2 --overlap parallel --tag-output \
		--json --name c --exec 'if [ "$TFD_SEQ" = 1 ]; then echo $$ >r1;
				i=0; while [ ! -e r2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
				echo one
			else for f in /proc/$$/fd/*; do [ "${f##*/}" -le 2 ] || readlink "$f" 2>/dev/null;
				done; echo end; touch r2
				while kill -0 "$(cat r1)" 2>/dev/null; do sleep 0.05; done
				sleep 1; echo two; fi'
	assert_success
	printf '%s\n' "$output" >out.json
	jq -r 'select(.event != "tick") | "\(.event) \(.seq) \(.line)"' out.json >ev
	assert_equal "$(grep ' 1 ' ev | tr '\n' ,)" "output 1 one,exit 1 null,"
	assert_equal "$(grep ' 2 ' ev | tr '\n' ,)" "output 2 end,output 2 two,exit 2 null,"
	# Run 1's exit came before run 2's last line.
	assert_equal "$(grep -E '^(exit 1|output 2 two)' ev | tr '\n' ,)" "exit 1 null,output 2 two,"
}

# --metrics

@test "metrics: the file is there at start, before any run, with the next run and no last run" {
	local before
	before=$(now_s)
	# The run 10 s away: a loaded machine's slow start still reads the
	# file before it.
	start_bg "$TFD" -d 10s --metrics m.prom -- true
	wait_for_lines m.prom 10 || fail "no metrics file 10 s after start"
	assert_equal "$(metric 'tfd_runs_total{job_name="true",result="success"}')" 0
	assert_equal "$(metric 'tfd_running{job_name="true"}')" 0
	assert_equal "$(metric 'tfd_last_run_start_timestamp_seconds{job_name="true"}')" ""
	assert_equal "$(metric 'tfd_last_success_timestamp_seconds{job_name="true"}')" ""
	assert_between "$(metric 'tfd_next_run_timestamp_seconds{job_name="true"}')" \
		"$(plus "$before" 9.9)" "$(plus "$before" 12)"
	assert_promtool_clean m.prom
}

@test "metrics: after a success and after a failure: counts, last run, last success, next run" {
	local before after
	before=$(now_s)
	# A second apart: a loaded machine cannot merge the two wake-ups.
	run --separate-stderr "$TFD" -i 1s -n 2 --metrics m.prom -f '%n' \
		--exec 'if [ "$TFD_SEQ" = 1 ]; then sleep 0.1; else exit 3; fi'
	after=$(now_s)
	assert_success
	assert_equal "$(metric 'tfd_runs_total{job_name="if",result="success"}')" 1
	assert_equal "$(metric 'tfd_runs_total{job_name="if",result="failure"}')" 1
	assert_equal "$(metric 'tfd_last_run_exit_status{job_name="if"}')" 3
	assert_between "$(metric 'tfd_last_run_start_timestamp_seconds{job_name="if"}')" "$before" "$after"
	# The last success is run 1's end: after its 0.1 s, before run 2.
	assert_between "$(metric 'tfd_last_success_timestamp_seconds{job_name="if"}')" \
		"$(plus "$before" 1.1)" "$(metric 'tfd_last_run_start_timestamp_seconds{job_name="if"}')"
	# The schedule ended: no next run.
	assert_equal "$(metric 'tfd_next_run_timestamp_seconds{job_name="if"}')" ""
	assert_promtool_clean m.prom
}

@test "metrics: during a schedule the next run is one interval ahead; tfd_running counts the run going" {
	start_bg "$TFD" -i 2s -n 2 --metrics m.prom -- sleep 1.2
	wait_for_metric 'tfd_running{job_name="sleep"}' m.prom
	local now
	now=$(now_s)
	# Read during a run that started at most 1.2 s ago: the next run is
	# one interval after its start.
	assert_between "$(metric 'tfd_next_run_timestamp_seconds{job_name="sleep"}')" \
		"$now" "$(plus "$now" 2.1)"
	wait_bg_exit "${BG_PIDS[-1]}"
	wait_for_metric 'tfd_runs_total{job_name="sleep",result="success"}' m.prom
	assert_equal "$(metric 'tfd_running{job_name="sleep"}')" 0
	assert_promtool_clean m.prom
}

@test "metrics: a --timeout is result=\"timeout\", exit status 143" {
	run --separate-stderr "$TFD" -d 0 --timeout 200ms --metrics m.prom -- sleep 5
	assert_equal "$status" 143
	assert_equal "$(metric 'tfd_runs_total{job_name="sleep",result="timeout"}')" 1
	assert_equal "$(metric 'tfd_runs_total{job_name="sleep",result="failure"}')" 0
	assert_equal "$(metric 'tfd_last_run_exit_status{job_name="sleep"}')" 143
	assert_between "$(metric 'tfd_last_run_duration_seconds{job_name="sleep"}')" 0.19 1.5
	assert_equal "$stderr" "tfd: run 1 (pid $(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' <<<"$stderr")) timed out and was killed by SIGTERM"
	assert_promtool_clean m.prom
}

@test "metrics: a wake-up skipped by --overlap skip counts in tfd_skipped_total" {
	run --separate-stderr "$TFD" -i 100ms -n 4 --metrics m.prom --json -- sleep 0.25
	assert_success
	local skips ticks
	skips=$(jq -r 'select(.action == "skip") | .seq' <<<"$output" | wc -l)
	# A loaded machine may bring two expirations in one wake-up.
	ticks=$(jq -r 'select(.event == "tick") | .seq' <<<"$output" | wc -l)
	((skips >= 1)) || fail "no wake-up was skipped: $output"
	assert_equal "$(metric 'tfd_skipped_total{job_name="sleep"}')" "$skips"
	assert_equal "$(metric 'tfd_runs_total{job_name="sleep",result="success"}')" $((ticks - skips))
	assert_promtool_clean m.prom
}

@test "metrics: expirations missed while tfd was stopped count in tfd_missed_expirations_total" {
	start_bg "$TFD" -i 50ms --json --metrics m.prom -- true >out.json
	local tfd=${BG_PIDS[-1]}
	wait_for_lines out.json 20 4
	kill -STOP "$tfd"
	nap 0.6
	kill -CONT "$tfd"
	wait_for_metric 'tfd_missed_expirations_total{job_name="true"}' m.prom 20 5
	kill -TERM "$tfd"
	wait_bg_exit "$tfd"
	assert_equal "$bg_status" 143
	local missed
	missed=$(jq -s 'map(select(.event == "tick") | .expirations - 1) | add' out.json)
	assert_equal "$(metric 'tfd_missed_expirations_total{job_name="true"}')" "$missed"
	assert_promtool_clean m.prom
}

@test "metrics: scraped through a real node_exporter" {
	mkdir textfiles
	node_exporter_start "$BATS_TEST_TMPDIR/textfiles"
	run --separate-stderr "$TFD" -i 200ms -n 3 --name backup --metrics textfiles/tfd.prom \
		--exec '[ "$TFD_SEQ" != 2 ]'
	assert_success
	node_exporter_scrape
	assert_equal "$(scraped_value 'tfd_runs_total{job_name="backup",result="success"}')" 2
	assert_equal "$(scraped_value 'tfd_runs_total{job_name="backup",result="failure"}')" 1
	# The last run (3) succeeded; node_exporter prints it in its own form.
	assert_equal "$(scraped_value 'tfd_last_run_exit_status{job_name="backup"}')" 0
	[[ -n $(scraped_value 'tfd_last_success_timestamp_seconds{job_name="backup"}') ]] ||
		fail "no tfd_last_success_timestamp_seconds in the scrape"
	assert_equal "$(scraped_value 'tfd_running{job_name="backup"}')" 0
	node_exporter_stop
}

# Runs tfd in a mount namespace of its own with a tmpfs of 16 KiB at ./mnt,
# the metrics file in it; the first run does "$1" (as root, in the same
# namespace) to make the next writes fail. Sets status, output, stderr.
run_on_tmpfs() {
	unshare --mount --propagation private true 2>/dev/null ||
		skip "unshare --mount is not permitted here"
	mkdir -p mnt
	# shellcheck disable=SC2034 # the run's shell reads BREAK.
	BREAK=$1 run --separate-stderr unshare --mount --propagation private sh -c '
		mount -t tmpfs -o size=16k tmpfs mnt || exit 99
		exec "$TFD" -i 300ms -n 3 --json --metrics mnt/m.prom \
			--exec "[ \$TFD_SEQ != 1 ] || { $BREAK; }"'
	[[ $status != 99 ]] || skip "tmpfs cannot be mounted here"
}

# The checks of a failed metrics write: each is an "error" event and a
# stderr line naming the call and error $1; every run still happened; exit 1.
assert_metrics_write_failed() {
	assert_equal "$status" 1
	printf '%s\n' "$output" >out.json
	assert_equal "$(exits out.json | tr '\n' ,)" "1 1 0 false,2 1 0 false,3 1 0 false,"
	local errors
	errors=$(jq -c 'select(.event == "error") | [.call, .message]' out.json | sort -u)
	assert_equal "$errors" "[\"metrics\",\"$1 'mnt/m.prom': $2\"]"
	[[ ${stderr_lines[0]} == "tfd: $1 'mnt/m.prom': $2" ]] || fail "stderr: $stderr"
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | sort -u | wc -l)" 1
	assert_equal "${#stderr_lines[@]}" "$(jq -c 'select(.event == "error")' out.json | wc -l)"
}

@test "metrics: a write into a full tmpfs is an error event and a stderr line; tfd goes on, exits 1" {
	run_on_tmpfs 'head -c 1M /dev/zero >mnt/fill 2>/dev/null; true'
	assert_metrics_write_failed write "No space left on device"
}

@test "metrics: a write into a directory made read-only after start: the same" {
	run_on_tmpfs 'mount -o remount,ro mnt'
	assert_metrics_write_failed open "Read-only file system"
}

@test "metrics: with --jobs every job_name label is the job's name" {
	cat >jobs.txt <<-'EOF'
		--name alpha -i 200ms -n 1 -- true
		-i 300ms -n 1 --exec 'exit 3'
		-i 300ms -n 1 -- /bin/true
		-i 300ms -n 1 -- true
	EOF
	run --separate-stderr "$TFD" --jobs jobs.txt --metrics m.prom
	assert_success
	assert_equal "$(sed -n 's/^tfd_runs_total{job_name="\([^"]*\)",result="success"} \(.*\)/\1=\2/p' m.prom |
		tr '\n' ' ')" "alpha=1 exit=0 true=1 true-2=1 "
	assert_equal "$(metric 'tfd_runs_total{job_name="exit",result="failure"}')" 1
	assert_equal "$(sed -n 's/^tfd_running{job_name="\([^"]*\)"}.*/\1/p' m.prom | tr '\n' ' ')" \
		"alpha exit true true-2 "
	assert_promtool_clean m.prom
}

# Names of one job

@test "names: %j, \"job\" and TFD_JOB are the command's base name" {
	# The run writes its line while tfd writes its own: either may be first.
	run_clean "$TFD" -d 0 -f 'j=%j' -- /bin/sh -c 'echo "TFD_JOB=$TFD_JOB"'
	assert_equal "$(sort <<<"$output")" "TFD_JOB=sh
j=sh"
	run_clean "$TFD" -d 0 --json --exec 'echo "TFD_JOB=$TFD_JOB" >env'
	assert_equal "$(jq -r .job <<<"$output" | sort -u)" echo
	assert_equal "$(cat env)" "TFD_JOB=echo"
}

@test "names: without a command the name is tfd" {
	run_clean "$TFD" -d 0 -f '%j'
	assert_output tfd
	run_clean "$TFD" -d 0 --json
	assert_equal "$(jq -r .job <<<"$output")" tfd
	run_clean "$TFD" -d 0 -n 1 --metrics m.prom -q
	assert_equal "$(metric 'tfd_runs_total{job_name="tfd",result="success"}')" 0
}

@test "names: --name overrides %j, \"job\", TFD_JOB and the metrics label" {
	run_clean "$TFD" -d 0 --name nightly -f 'j=%j' --metrics m.prom -- /bin/sh -c 'echo "TFD_JOB=$TFD_JOB"'
	assert_equal "$(sort <<<"$output")" "TFD_JOB=nightly
j=nightly"
	assert_equal "$(metric 'tfd_runs_total{job_name="nightly",result="success"}')" 1
	run_clean "$TFD" -d 0 --name nightly --json --tag-output -- /bin/echo hi
	assert_equal "$(jq -r .job <<<"$output" | sort -u)" nightly
	assert_equal "$(jq -r 'select(.event == "output") | .line' <<<"$output")" hi
	run_clean "$TFD" -d 0 --name n2 --tag-output -- /bin/echo hi
	assert_output "n2[1]: hi"
}
