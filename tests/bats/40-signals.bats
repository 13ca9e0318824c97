#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $$, $! and $TFD_*.
# Signals: INT, TERM and HUP end tfd with 128+N and are passed to running
# runs; USR1 prints the setting; a closed stdout ends tfd quietly; orphans
# are reaped, also when tfd is PID 1.

load test_helper

setup() {
	OUT=$BATS_TEST_TMPDIR/out
	ERR=$BATS_TEST_TMPDIR/err
}

# Waits for background process $1 (in this shell: a subshell cannot) and
# sets WAIT_STATUS to its exit status.
wait_status() {
	WAIT_STATUS=0
	wait "$1" || WAIT_STATUS=$?
}

# Starts an endless tfd printing ticks, waits for its first line, sends it
# signal $1 and checks that it exits with status $2 and prints no error.
# bats starts background jobs with INT and QUIT ignored, as shells do; tfd
# keeps what its caller ignored, so these tests give it the defaults back.
check_stop_signal() {
	start_bg env --default-signal=INT,QUIT,HUP "$TFD" -i 50ms -f '%n' >"$OUT" 2>"$ERR"
	wait_for_lines "$OUT" 20 1 || fail "no first tick"
	kill -"$1" "${BG_PIDS[0]}"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" "$2"
	assert_equal "$(cat "$ERR")" ""
}

# Starts tfd with a run that records signal $1 in a marker file, sends tfd
# that signal once the run is ready, and checks tfd's status is $2.
check_forwarded_signal() {
	local mark=$BATS_TEST_TMPDIR/got ready=$BATS_TEST_TMPDIR/ready
	start_bg env --default-signal=INT,QUIT,HUP "$TFD" -d 10ms --exec "trap 'echo $1 >\"$mark\"; kill \$! 2>/dev/null; exit 0' $1
		echo ready >'$ready'; sleep 30 & wait" >"$OUT" 2>"$ERR"
	wait_for_lines "$ready" 20 1 || fail "the run did not start"
	kill -"$1" "${BG_PIDS[0]}"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" "$2"
	assert_equal "$(cat "$mark")" "$1"
}

# Stopping signals

@test "SIGINT ends tfd with status 130" {
	check_stop_signal INT 130
}

@test "SIGTERM ends tfd with status 143" {
	check_stop_signal TERM 143
}

@test "SIGHUP ends tfd with status 129" {
	check_stop_signal HUP 129
}

# A HUP or INT that tfd's caller left ignored (nohup, `&` in a script) stays
# ignored: tfd neither stops nor passes it on, and its runs still start
# with the default disposition. Two seconds of ticks: the signal must find
# tfd still going on a loaded machine (300 ms did not).
check_inherited_ignore() {
	start_bg bash -c "trap '' $1; exec \"\$0\" -i 100ms -n 20 -f '%n %e' --exec true" "$TFD" >"$OUT"
	wait_for_lines "$OUT" 20 1 || fail "no first tick"
	kill -"$1" "${BG_PIDS[0]}"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" 0
	# It went on to its count (a loaded machine may merge wake-ups).
	run cat "$OUT"
	assert_wakeups 20 '%n %e'
}

@test "a SIGINT the caller left ignored stays ignored (a script's & job)" {
	check_inherited_ignore INT
}

@test "a SIGHUP the caller left ignored stays ignored (nohup)" {
	check_inherited_ignore HUP
}

@test "SIGQUIT ends tfd with status 131 and reaches the run" {
	check_forwarded_signal QUIT 131
}

@test "SIGALRM ends tfd with status 142 and reaches the run: nothing is orphaned" {
	check_forwarded_signal ALRM 142
}

@test "SIGUSR2 is sent on to the runs and tfd goes on" {
	local mark=$BATS_TEST_TMPDIR/got ready=$BATS_TEST_TMPDIR/ready
	start_bg "$TFD" -d 10ms --exec "trap 'echo USR2 >\"$mark\"; kill \$! 2>/dev/null; exit 0' USR2
		echo ready >'$ready'; sleep 30 & wait" >"$OUT" 2>"$ERR"
	wait_for_lines "$ready" 20 1 || fail "the run did not start"
	kill -USR2 "${BG_PIDS[0]}"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" 0
	assert_equal "$(cat "$mark")" USR2
}

@test "SIGINT is sent on to a running run, and tfd exits 130" {
	check_forwarded_signal INT 130
}

@test "SIGTERM is sent on to a running run, and tfd exits 143" {
	check_forwarded_signal TERM 143
}

@test "SIGHUP is sent on to a running run, and tfd exits 129" {
	check_forwarded_signal HUP 129
}

@test "a run that ignores the signal is killed about 5 s later, then tfd exits" {
	local ready=$BATS_TEST_TMPDIR/ready start
	start_bg "$TFD" -d 10ms --exec "trap '' TERM; echo ready >'$ready'; while :; do sleep 0.1; done" \
		>"$OUT" 2>"$ERR"
	wait_for_lines "$ready" 20 1 || fail "the run did not start"
	start=$(now_ns)
	kill -TERM "${BG_PIDS[0]}"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" 143
	local ms=$((($(now_ns) - start) / 1000000))
	((ms >= 4000 && ms < 9000)) || fail "tfd exited after $ms ms, not about 5000"
}

@test "--stats prints its summary also when a signal ends tfd" {
	start_bg "$TFD" --stats -i 20ms -f '%n' >"$OUT" 2>"$ERR"
	wait_for_lines "$OUT" 20 2 || fail "no ticks"
	kill -TERM "${BG_PIDS[0]}"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" 143
	run cat "$ERR"
	assert_output --regexp '^tfd: stats: wakeups [0-9]+ expirations [0-9]+ missed'
}

# SIGUSR1

@test "SIGUSR1 prints the current setting on stderr, and tfd keeps going" {
	start_bg "$TFD" -i 50ms -n 20 -f '%E' >"$OUT" 2>"$ERR"
	wait_for_lines "$OUT" 20 1 || fail "no first tick"
	kill -USR1 "${BG_PIDS[0]}"
	wait_for_lines "$ERR" 20 1 || fail "nothing on stderr after SIGUSR1"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" 0
	run cat "$ERR"
	assert_equal "${#lines[@]}" 1
	assert_output --regexp '^tfd: setting: next in [0-9]+(\.[0-9]+)? s, interval 0\.05 s$'
	# It kept going to its count.
	assert_count_reached 20 "$(tail -n 1 "$OUT")" "$(tail -n 2 "$OUT" | head -n 1)"
}

@test "SIGUSR1 twice prints the setting twice" {
	start_bg "$TFD" -i 50ms -n 30 -f '%E' >"$OUT" 2>"$ERR"
	wait_for_lines "$OUT" 20 1 || fail "no first tick"
	kill -USR1 "${BG_PIDS[0]}"
	wait_for_lines "$ERR" 20 1 || fail "no first setting"
	kill -USR1 "${BG_PIDS[0]}"
	wait_for_lines "$ERR" 20 2 || fail "no second setting"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" 0
	assert_equal "$(grep -c '^tfd: setting: next in ' "$ERR")" 2
}

# A closed stdout

@test "EPIPE: tfd -i 1ms | head -n 3 ends tfd quietly with status 0" {
	run --separate-stderr timeout 10 bash -c '"$1" -i 1ms | head -n 3; echo "status ${PIPESTATUS[0]}"' _ "$TFD"
	assert_success
	assert_equal "${#lines[@]}" 4
	assert_equal "${lines[3]}" "status 0"
	assert_equal "$stderr" ""
}

@test "EPIPE with --json and a custom format, too" {
	run --separate-stderr timeout 10 bash -c '"$1" -j -i 1ms | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"
		"$1" -i 1ms -f x%n | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$TFD"
	assert_success
	assert_output "0
0"
	assert_equal "$stderr" ""
}

@test "EPIPE in a long dry run ends it quietly with status 0" {
	run --separate-stderr timeout 10 bash -c '"$1" -i 1s --dry-run=1000000 | head -n 2 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$TFD"
	assert_success
	assert_output "0"
	assert_equal "$stderr" ""
}

@test "EPIPE when the reader is gone before the first tick" {
	run --separate-stderr timeout 10 bash -c '"$1" -d 200ms | true; echo "${PIPESTATUS[0]}"' _ "$TFD"
	assert_success
	assert_output "0"
	assert_equal "$stderr" ""
}

@test "a closed stdout: the first tick line is an error naming it, exit 1" {
	run --separate-stderr timeout 10 bash -c '"$1" -i 10ms -n 3 >&-' _ "$TFD"
	assert_equal "$status" 1
	assert_equal "$stderr" "tfd: write (stdout): Bad file descriptor"
	run --separate-stderr timeout 10 bash -c '"$1" --version >&-' _ "$TFD"
	assert_equal "$status" 1
}

@test "a closed stdout: a run's stdout is not one of tfd's descriptors" {
	run --separate-stderr timeout 10 bash -c '"$1" -d 10ms -- sh -c "readlink /proc/\$\$/fd/1 >&2" >&-' _ "$TFD"
	assert_success
	refute_output
	[[ $stderr != anon_inode:* ]] || fail "the run's stdout is tfd's $stderr"
}

# Orphans

# The run script for the reaping tests: run 1 leaves a short-lived
# grandchild behind and exits at once; one later run (the first to make
# the directory scan) waits up to 10 s for the grandchild to be gone (a
# loaded machine may be slow to end it; a zombie never goes), then lists
# zombies in /proc, using shell built-ins only so the scan forks nothing;
# a zombie must last 5 s of scans to count (another run's child, exited
# and not yet waited for by its shell, is one for a moment).
ORPHAN_SCRIPT='
if [ "$TFD_SEQ" = 1 ]; then
	sleep 0.2 &
	echo $! >"$0/grandchild"
	exit 0
fi
mkdir "$0/scan" 2>/dev/null || exit 0
i=0
while [ ! -s "$0/grandchild" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
gc=$(cat "$0/grandchild")
i=0
while [ -e "/proc/$gc" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
n=0
while :; do
	found=
	for f in /proc/[0-9]*/stat; do
		read -r line <"$f" 2>/dev/null || continue
		s=${line##*") "}
		[ "${s%% *}" = Z ] && found="${found}zombie: $line
"
	done
	if [ -z "$found" ] || [ $n -ge 100 ]; then break; fi
	sleep 0.05
	n=$((n + 1))
done
printf %s "$found" >"$0/zombies"
[ -e "/proc/$gc" ] && echo "grandchild $gc still there" >>"$0/zombies"
echo scanned >"$0/scanned"
exit 0'

@test "an orphaned grandchild of a run is reaped (tfd is its subreaper)" {
	run --separate-stderr timeout 30 "$TFD" -i 100ms -n 7 --overlap parallel -- sh -c "$ORPHAN_SCRIPT" "$BATS_TEST_TMPDIR"
	assert_success
	[[ -s $BATS_TEST_TMPDIR/grandchild ]] || fail "run 1 left no grandchild"
	[[ -e $BATS_TEST_TMPDIR/scanned ]] || fail "no later run scanned"
	# Zombies elsewhere on the machine are not tfd's; the grandchild is.
	run cat "$BATS_TEST_TMPDIR/zombies"
	refute_output --partial "still there"
}

@test "tfd as PID 1 of a PID namespace reaps orphans: no zombie is left" {
	unshare --pid --fork --mount-proc true 2>/dev/null || skip "unshare --pid is not permitted here"
	run --separate-stderr timeout 30 unshare --pid --fork --mount-proc \
		"$TFD" -i 100ms -n 7 --overlap parallel -- sh -c "$ORPHAN_SCRIPT" "$BATS_TEST_TMPDIR"
	assert_success
	[[ -s $BATS_TEST_TMPDIR/grandchild ]] || fail "run 1 left no grandchild"
	[[ -e $BATS_TEST_TMPDIR/scanned ]] || fail "no later run scanned"
	# Inside the namespace every process is tfd's: no zombie at all.
	run cat "$BATS_TEST_TMPDIR/zombies"
	assert_output ""
}

@test "tfd as PID 1 of a PID namespace still ends on SIGTERM with 143" {
	unshare --pid --fork --mount-proc true 2>/dev/null || skip "unshare --pid is not permitted here"
	start_bg unshare --pid --fork --mount-proc "$TFD" -i 50ms -f '%n' >"$OUT"
	wait_for_lines "$OUT" 20 1 || fail "no first tick"
	# The background job is unshare; its one child is tfd.
	local pid
	pid=$(pgrep -P "${BG_PIDS[0]}")
	[[ $(cat "/proc/$pid/comm") == tfd* ]] || fail "pid $pid is $(cat "/proc/$pid/comm"), not tfd"
	kill -TERM "$pid"
	wait_status "${BG_PIDS[0]}"
	assert_equal "$WAIT_STATUS" 143
}
