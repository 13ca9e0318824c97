#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' run sets status, output and stderr.
# Storms of due runs (issue 18, items 3, 4, 5 and 12): tfd starts them in
# bounded batches between polls, so signals, reaping and pipes are served
# while it starts them, and a start that finds no process or descriptor
# fails alone.

load test_helper

setup() {
	OUT=$BATS_TEST_TMPDIR/out
	ERR=$BATS_TEST_TMPDIR/err
	JOBS=$BATS_TEST_TMPDIR/jobs
}

# A jobs file of $1 jobs all due at the next whole second but one, each
# with the options and command "${@:2}" (default: -- /bin/true).
write_storm() {
	local n=$1 at
	shift
	at=$(($(date +%s) + 2))
	awk -v n="$n" -v at="$at" -v rest="${*:--- /bin/true}" \
		'BEGIN { for (i = 1; i <= n; i++) printf "--name j%d --clock realtime --at @%d %s\n", i, at, rest }' \
		>"$JOBS"
}

# Microseconds since the epoch.
now_us() {
	local t=$EPOCHREALTIME
	echo $((10#${t/./}))
}

@test "SIGTERM during a storm of 10,000 due runs ends tfd within seconds, before the rest start" {
	write_storm 10000
	"$TFD" --jobs "$JOBS" --json >"$OUT" 2>"$ERR" 3>&- &
	local pid=$! sent took
	BG_PIDS+=("$pid")
	wait_for_lines "$OUT" 10 1
	sent=$(now_us)
	kill -TERM "$pid"
	wait "$pid" || status=$?
	took=$(($(now_us) - sent))
	assert_equal "$status" 143
	# The 10,000 runs would take far longer to start: seconds on a
	# loaded machine are still "before the rest start".
	((took < 5000000)) || fail "tfd took ${took} us to exit after SIGTERM"
	# Every run that started was reaped and reported; most never started.
	local ticks exits
	ticks=$(grep -c '"event":"tick"' "$OUT")
	exits=$(grep -c '"event":"exit"' "$OUT")
	assert_equal "$exits" "$ticks"
	((ticks < 5000)) || fail "$ticks runs started, SIGTERM came at the first"
}

@test "a storm under ulimit -u: a start that finds no process fails alone and is retried, tfd goes on" {
	[[ $(id -u) == 0 ]] && command -v setpriv >/dev/null || skip "needs root and setpriv to run as nobody"
	# Runs of half a second, 64 started at a time under a limit of 50
	# processes: the first batch finds no process, however slowly a
	# loaded machine starts it. 120 runs: the retries' doubling delays
	# (from 50 ms) let the last in within seconds.
	write_storm 120 --retry 30 --retry-delay 50ms -- /bin/sleep 0.5
	# nobody may not reach the test's directory: tfd and its jobs go where
	# it can.
	local dir
	dir=$(mktemp -d /tmp/tfd-storm.XXXXXX)
	chmod 755 "$dir"
	cp "$TFD" "$JOBS" "$dir/"
	chmod 644 "$dir/jobs"
	run --separate-stderr bash -c "ulimit -u 50 && exec setpriv --reuid=nobody --regid=nogroup --clear-groups '$dir/${TFD##*/}' --jobs '$dir/jobs' --json"
	rm -rf "$dir"
	# The failed starts were errors: tfd says so in its status at the end.
	assert_equal "$status" 1 || fail "stderr: ${stderr:0:300}"
	# Every job ran exactly once, to its end.
	assert_equal "$(grep -c '"event":"exit".*"status":0' <<<"$output")" 120
	assert_equal "$(grep '"event":"exit"' <<<"$output" | cut -d, -f2 | sort -u | wc -l)" 120
	# Some starts failed, each one an "error" event naming the job and the call.
	grep -q '"event":"error","job":"j[0-9]*","call":"clone3"' <<<"$output" || fail "no failed start: $stderr"
	[[ $stderr != *"tfd: clone3: "* ]] || fail "tfd's own failure: $stderr"
}

@test "a --tag-output storm of 2,000 runs under ulimit -n 1024: runs wait for pipes, none is lost" {
	write_storm 2000 --tag-output -- /bin/echo hi
	run --separate-stderr bash -c "ulimit -n 1024 && exec '$TFD' --jobs '$JOBS' --json"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(grep -c '"event":"exit".*"status":0' <<<"$output")" 2000
	assert_equal "$(grep '"event":"exit"' <<<"$output" | cut -d, -f2 | sort -u | wc -l)" 2000
	assert_equal "$(grep -c '"event":"output".*"line":"hi"' <<<"$output")" 2000
}

@test "--tag-output runs that hold their pipes under ulimit -n 200: starts wait for pipes to close" {
	write_storm 200 --tag-output -- /bin/sh -c "'echo hi; sleep 0.3'"
	run --separate-stderr bash -c "ulimit -n 200 && exec '$TFD' --jobs '$JOBS' --json"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(grep -c '"event":"exit".*"status":0' <<<"$output")" 200
	assert_equal "$(grep -c '"event":"output".*"line":"hi"' <<<"$output")" 200
}

@test "tag-output: a background child holding stdout does not delay the exit, -E or tfd's end" {
	local t0 t1
	t0=$(now_us)
	run --separate-stderr timeout 30 "$TFD" -d 0 -i 1h --tag-output -E --json --exec 'sleep 20.58 & exit 3'
	t1=$(now_us)
	assert_equal "$status" 3
	# Far less than the child's 20.58 s, even on a loaded machine.
	(((t1 - t0) < 15000000)) || fail "took $(((t1 - t0) / 1000)) ms"
	assert_equal "$(jq -c 'select(.event == "exit") | [.status, .failed]' <<<"$output")" '[3,true]'
	# tfd ended the run's group before it exited.
	run pgrep -f '^sleep 20.58$'
	assert_failure
}

@test "tag-output: a line a background child writes after the leader's exit is still labelled" {
	# The child writes once its leader is gone (reaped by tfd: a zombie
	# still takes signal 0), well before run 2.
	run --separate-stderr timeout 30 "$TFD" -d 0 -n 2 -i 1s --tag-output \
		--exec 'echo a; (while kill -0 $$ 2>/dev/null; do sleep 0.05; done; echo b) & exit 0'
	assert_success
	assert_line --index 0 'echo[1]: a'
	assert_line --index 1 'echo[1]: b'
	assert_line --index 2 'echo[2]: a'
}
