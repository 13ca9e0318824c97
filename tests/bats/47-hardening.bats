#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' run and wait_bg_exit set status, stderr and bg_status.
# Hardening: what a hostile user, a stuck reader, a terminal or a supervisor
# does to tfd (issue 11). Each test failed against tfd 0.1.

load test_helper

setup() {
	OUT=$BATS_TEST_TMPDIR/out
}

# Item 1: a write error on stdout other than EPIPE is one line and exit 1.

@test "a full stdout: tick lines, --json, --dry-run, --help and --version exit 1 naming the error" {
	local args
	for args in "-i 10ms -n 3" "-i 10ms -n 3 --json" "--cron @daily --dry-run=100000" \
		"--help" "--version" "--usage"; do
		# shellcheck disable=SC2086 # the words are the options
		run --separate-stderr "$TFD" $args
		assert_success
		run --separate-stderr sh -c "exec '$TFD' $args >/dev/full"
		assert_equal "$status" 1
		[[ $stderr == "tfd: write (stdout): No space left on device" ]] ||
			fail "$args: stderr '$stderr'"
	done
}

# Item 2: a reader that never reads does not make tfd deaf.

# A FIFO whose reader holds it open and reads nothing for $1 seconds.
start_stuck_reader() {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	start_bg sh -c "exec <'$BATS_TEST_TMPDIR/fifo'; sleep $1; cat >'$OUT'"
}

# A line of about 1 KiB, so that a pipe fills within a second.
PAD=$(printf '%01000d' 0)

@test "a stuck reader: SIGTERM still ends tfd with 143" {
	start_stuck_reader 60
	start_bg env --default-signal=INT "$TFD" -i 1ms -f "%n $PAD" >"$BATS_TEST_TMPDIR/fifo"
	wait_until 20 pipe_full "${BG_PIDS[1]}" || fail "tfd's stdout never filled"
	kill -TERM "${BG_PIDS[1]}"
	wait_bg_exit "${BG_PIDS[1]}" 20
	assert_equal "$bg_status" 143
}

@test "a stuck reader: --timeout still ends runs, and they are reaped" {
	start_stuck_reader 60
	start_bg "$TFD" -i 5ms -f "%n $PAD" --overlap parallel --timeout 500ms \
		--exec 'exec sleep 31.25' >"$BATS_TEST_TMPDIR/fifo" 2>/dev/null
	local tfd=${BG_PIDS[1]}
	# Runs start until the pipe is full; then none, and each one started
	# is ended at its timeout and reaped: none is left, not even a zombie.
	# This tfd's own (the other build's pass may run this test meanwhile).
	wait_until 20 runs_of "$tfd" '^sleep 31.25' || fail "no run started"
	wait_until 20 eval "! runs_of $tfd '^sleep 31.25'" || fail "runs outlived their --timeout"
	wait_until 20 eval "! zombies_of $tfd" || fail "runs left unreaped: $(ps --ppid "$tfd")"
}

# True when process $1 has a child whose command line matches $2.
runs_of() {
	pgrep -P "$1" -f "$2" >/dev/null
}

# True when process $1 has a child that is a zombie.
zombies_of() {
	ps -o stat= --ppid "$1" | grep -q Z
}

@test "a slow reader: expirations that pass while a line waits are counted, no line is torn" {
	start_stuck_reader 2
	run sh -c "exec '$TFD' -i 10ms -n 300 -f '%e %E $PAD' >'$BATS_TEST_TMPDIR/fifo'"
	assert_success
	wait_bg_exit "${BG_PIDS[0]}" 20
	run awk -v pad="$PAD" '$3 != pad || NF != 3 { bad++ } $1 > 1 { missed++ }
		END { print bad + 0, (missed > 0) }' "$OUT"
	assert_output "0 1"
	# Every expiration is in some line's count: the last total is 300.
	run sh -c "tail -n 1 '$OUT' | cut -d' ' -f2"
	[[ $output -ge 300 ]] || fail "last total $output"
}

# Item 5: the terminal.

@test "in a terminal's foreground a run can read the terminal" {
	require_command script
	run sh -c "printf 'typed\n' | timeout 10 script -qfec \"'$TFD' -d 0 -- head -n 1\" /dev/null"
	assert_success
	[[ $output == *typed*typed* ]] || fail "the run did not read the terminal: $output"
}

@test "in a terminal's foreground ^C ends the run and tfd with 130" {
	require_command script
	# ^C is typed once the run is there, and the terminal kept open until
	# it is gone.
	local run="sleep 30.$BASHPID$RANDOM"
	run sh -c "(i=0; until pgrep -fx '$run' >/dev/null || [ \$i -ge 400 ]; do sleep 0.05; i=\$((i + 1)); done
		printf '\\003'
		i=0; while pgrep -fx '$run' >/dev/null && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done) |
		timeout 30 script -qfec \"'$TFD' -d 0 -- $run\" /dev/null"
	assert_equal "$status" 130
}

# What a person types at an interactive shell for the ^Z test, each step
# once the one before has happened: a tfd whose run waits for the file go,
# ^Z once the run has started, fg once tfd is stopped, then go, and exit
# once tfd is gone.
suspend_and_resume() {
	local d=$BATS_TEST_TMPDIR tfd=
	printf '%s\n' "'$TFD' -d 0 -- sh -c 'touch $d/started; until [ -e $d/go ]; do sleep 0.05; done; echo done-run'"
	wait_until 20 test -e "$d/started" || return 1
	tfd=$(pgrep -f -- "^$TFD -d 0 -- sh -c touch $d/started") || return 1
	printf '\032'
	wait_until 20 process_stopped "$tfd" || return 1
	printf 'fg\n'
	touch "$d/go"
	wait_until 20 eval "[ ! -d /proc/$tfd ]" || return 1
	printf 'exit\n'
}

# True when process $1 is stopped (state T).
process_stopped() {
	[[ $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) == T ]]
}

@test "in a terminal's foreground ^Z suspends tfd and its run, fg resumes both" {
	require_command script
	run bash -c "$(declare -f suspend_and_resume wait_until process_stopped)
		TFD='$TFD' BATS_TEST_TMPDIR='$BATS_TEST_TMPDIR'
		suspend_and_resume | timeout 60 script -qfc 'bash --norc --noprofile -i' /dev/null"
	[[ $output == *Stopped*done-run* ]] || fail "no stop and resume: $output"
}

@test "--timeout still ends the whole process tree of a run that holds the terminal" {
	require_command script
	run sh -c "timeout 20 script -qfec \"'$TFD' -d 0 --timeout 1s --exec 'sleep 41.5 & sleep 41.5'\" /dev/null"
	run pgrep -f '^sleep 41.5'
	assert_failure
}

# Item 6: a one-shot run's background children are not left behind.

@test "a one-shot tfd ends a run's background children at its --timeout" {
	local start=$SECONDS
	run "$TFD" -d 0 --timeout 1s --exec 'sleep 52.25 & exit 0'
	assert_success
	run pgrep -f '^sleep 52.25'
	assert_failure
	# Far less than the child's 52 s, even on a loaded machine.
	((SECONDS - start < 20)) || fail "took $((SECONDS - start)) s"
}

@test "a one-shot tfd without --timeout ends what its run left running" {
	run "$TFD" -d 0 --exec 'sleep 52.5 & exit 0'
	assert_success
	run pgrep -f '^sleep 52.5'
	assert_failure
}

# Item 7: -E keeps the first failure.

@test "-E with --overlap parallel: the first failure's status is tfd's" {
	# Run 1 fails first; the later ones fail once it is reaped (a zombie
	# still takes signal 0).
	local one=$BATS_TEST_TMPDIR/one
	run timeout 30 "$TFD" -i 100ms -E --overlap parallel --exec \
		"if [ \"\$TFD_SEQ\" = 1 ]; then echo \$\$ >$one; sleep 0.5; exit 3; fi
		until [ -s $one ]; do sleep 0.05; done
		while kill -0 \"\$(cat $one)\" 2>/dev/null; do sleep 0.05; done; exit 5"
	assert_equal "$status" 3
}

@test "-E with --overlap queue: the queued run does not start after the failure" {
	run "$TFD" -i 100ms -E --overlap queue --exec \
		"if [ \"\$TFD_SEQ\" = 1 ]; then sleep 0.3; exit 3; fi; touch '$BATS_TEST_TMPDIR/queued'; exit 5"
	assert_equal "$status" 3
	[[ ! -e $BATS_TEST_TMPDIR/queued ]] || fail "the queued run started"
}

# Item 10: values near 2^63 ns.

@test "huge --timeout and --for do not end things at once" {
	run "$TFD" -d 0 --timeout 9223372036s -- sh -c 'sleep 0.3; exit 4'
	assert_equal "$status" 4
	run "$TFD" -i 100ms -n 3 --for 9223372036s -f %n
	assert_success
	assert_equal "${#lines[@]}" 3
	run "$TFD" --calendar daily --dry-run=2 --for 250y
	assert_success
	assert_equal "${#lines[@]}" 2
}

@test "a monotonic --at that maps past 2262 in a dry run is a usage error" {
	assert_usage_error "2262" --clock monotonic --at @9223372036 --dry-run=1
}

@test "a huge --random-delay is no overflow" {
	run "$TFD" -d 0 -n 1 --random-delay 1ns -f %n
	assert_success
	run timeout 3 "$TFD" -d 0 --random-delay 9223372036s --exec true
	assert_equal "$status" 124
}

# Item 12: out of memory is an error, never a crash or another answer.

@test "out of memory: 'tfd: out of memory' and 1, or the right answer" {
	local v
	skip_under_asan "its shadow memory cannot be mapped under ulimit -v"
	for v in 2600 3000 3500 4000 5000 6000 8000; do
		# 99: the loader could not even map tfd at this limit.
		run --separate-stderr sh -c "ulimit -v $v; TZ=Europe/Berlin '$TFD' -i 10ms -n 2 -f '%n %e' -- true; s=\$?; [ \$s = 127 ] && exit 99; exit \$s"
		((status != 99)) || continue
		if ((status == 0)); then
			# The right answer: 2 expirations (in one wake-up or two: a
			# loaded machine may read them at once).
			assert_wakeups 2 '%n %e'
		else
			((status < 128)) || fail "ulimit -v $v: killed by a signal ($status)"
			[[ $stderr == *"out of memory"* || $stderr == *"cannot"* || $stderr == *"error while loading"* ||
				$stderr == *": Cannot allocate memory; run "*" did not start"* ]] ||
				fail "ulimit -v $v: status $status, '$stderr'"
		fi
	done
}

# Out of descriptors: the loop's own signalfd or timerfd cannot be made.
# Its message goes to stderr, which is set up before any of them (it went
# to descriptor 0 once, and tfd exited 1 saying nothing).
@test "out of descriptors: 'tfd: CALL: Too many open files' on stderr and 1" {
	local n seen=0
	for n in 4 5 6; do
		# 99: the loader could not open libpopt at this limit.
		run --separate-stderr bash -c "exec </dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; ulimit -n $n; '$TFD' -i 10ms -n 2 -f '%n %e'; s=\$?; [ \$s = 127 ] && exit 99; exit \$s"
		((status != 99)) || continue
		if ((status == 0)); then
			# 2 expirations, in one wake-up or two.
			assert_wakeups 2 '%n %e'
			continue
		fi
		assert_equal "$status" 1
		[[ $stderr == "tfd: "*": Too many open files" ]] ||
			fail "ulimit -n $n: status $status, stderr '$stderr'"
		seen=1
	done
	((seen)) || fail "no limit made a descriptor fail"
}

# Items 14-16: --persist.

@test "--persist: a FIFO, a directory, '' or a missing directory is exit 2, also in a dry run" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	mkdir "$BATS_TEST_TMPDIR/dir"
	local p
	# What the system refuses has no hint (--help cannot mend it).
	for p in "$BATS_TEST_TMPDIR/fifo" "$BATS_TEST_TMPDIR/dir" "$BATS_TEST_TMPDIR/no/such"; do
		assert_system_error "--persist" -i 1h --persist "$p" --exec true
		assert_system_error "--persist" -i 1h --persist "$p" --exec true --dry-run
	done
	assert_usage_error "--persist '': an empty file name" -i 1h --persist "" --exec true
	assert_usage_error "--persist" -i 1h --persist "" --exec true --dry-run
}

@test "--persist: a corrupt file is a usage error and stays as it is" {
	printf '1796300000.000000000\0garbage' >"$BATS_TEST_TMPDIR/stamp"
	cp "$BATS_TEST_TMPDIR/stamp" "$BATS_TEST_TMPDIR/copy"
	assert_usage_error "stamp" -i 1h --persist "$BATS_TEST_TMPDIR/stamp" --exec true
	cmp "$BATS_TEST_TMPDIR/stamp" "$BATS_TEST_TMPDIR/copy"
}

@test "--persist: a write that fails at run time is reported, tfd goes on and exits 1" {
	[[ $(id -u) == 0 ]] || skip "needs root to mount a tmpfs"
	require_command unshare
	run unshare --mount sh -c "mount -t tmpfs -o size=4k none '$BATS_TEST_TMPDIR' 2>/dev/null || exit 99
		cd '$BATS_TEST_TMPDIR'
		'$TFD' -i 100ms -n 3 --json --persist stamp --exec 'dd if=/dev/zero of=fill bs=1k count=8 2>/dev/null; true'"
	((status != 99)) || skip "cannot mount a tmpfs here"
	assert_equal "$status" 1
	[[ $output == *'"event":"error"'* ]] || fail "no error event: $output"
	[[ $(grep -c '"event":"exit"' <<<"$output") == 3 ]] || fail "tfd did not go on: $output"
}

# Item 18: errors stay one line; a dry run refuses what a start refuses.

@test "a newline in a bad value is shown escaped: the error stays one line" {
	assert_usage_error 'x\nfoo' -i $'x\nfoo'
}

@test "a very long bad value keeps the reason in the message" {
	local long
	long=$(printf 'x%.0s' {1..3000})
	run --separate-stderr "$TFD" -i "$long"
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} == *"invalid duration"*"unknown unit"* || ${stderr_lines[0]} == *"invalid duration"*": "* ]] ||
		fail "no reason: ${stderr_lines[0]:0:200}...${stderr_lines[0]: -200}"
	((${#stderr_lines[0]} < 1100)) || fail "a line of ${#stderr_lines[0]} bytes"
}

@test "--dry-run refuses a bad --cgroup or --join as a start would" {
	assert_usage_error "--cgroup" -i 1s --cgroup /nonexistent/cgroup --exec true --dry-run
	run --separate-stderr "$TFD" -i 1s --join 999999999 --exec true --dry-run
	assert_equal "$status" 2
}
