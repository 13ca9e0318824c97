#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $$ and $TFD_*.
# Running a command on each wake-up: --exec through the shell, -- COMMAND
# without one, the run's environment, descriptors and signals, what is
# printed, and the exit statuses of commands that cannot run or fail.

load test_helper

setup() {
	MARK=$BATS_TEST_TMPDIR/ran
}

# Asserts that no run created $MARK.
refute_ran() {
	[[ ! -e $MARK ]] || fail "the command ran"
}

# --exec and -- COMMAND

@test "--exec runs STRING with /bin/sh -c" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms \
		--exec 'readlink -f /proc/$$/exe; a=2; echo $((a + 1)) "$#"'
	assert_success
	assert_equal "${lines[0]}" "$(readlink -f /bin/sh)"
	assert_equal "${lines[1]}" "3 0"
}

@test "-e is --exec" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -e 'echo "via $0"'
	assert_success
	assert_output --regexp '^via .*sh$'
}

@test "-- COMMAND ARGS runs directly: spaces, \$, globs and ; stay literal" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -- printf '<%s>\n' 'a b' '$HOME' '*' ';' '$(id)' ''
	assert_success
	assert_equal "$output" '<a b>
<$HOME>
<*>
<;>
<$(id)>
<>'
}

@test "-- COMMAND is found on PATH" {
	mkdir "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho "found $1"\n' >"$BATS_TEST_TMPDIR/bin/tfd-test-cmd"
	chmod +x "$BATS_TEST_TMPDIR/bin/tfd-test-cmd"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run --separate-stderr timeout 10 "$TFD" -d 10ms -- tfd-test-cmd x
	assert_success
	assert_output "found x"
}

@test "a COMMAND after the options without -- runs too" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms echo hi
	assert_success
	assert_output "hi"
}

@test "the run's options are its own, not tfd's" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -- echo -n -i 5s
	assert_success
	assert_output "-i 5s"
	# Option parsing stops at the command even without --.
	run --separate-stderr timeout 10 "$TFD" -d 10ms echo -n -i 5s
	assert_success
	assert_output "-i 5s"
}

@test "--exec and -- COMMAND together are a usage error, and nothing runs" {
	assert_usage_error "--exec" -d 10ms --exec "touch '$MARK'" -- touch "$MARK"
	refute_ran
}

@test "a command runs once a wake-up" {
	# --overlap parallel: every wake-up runs, even one that comes while a
	# loaded machine still runs the one before (queue would merge those).
	run --separate-stderr timeout 10 "$TFD" -i 50ms -n 3 -f 'tick' --overlap parallel --exec "echo run >>'$MARK'"
	assert_success
	((${#lines[@]} >= 1)) || fail "no wake-up"
	assert_equal "$(grep -c '^tick$' <<<"$output")" "${#lines[@]}"
	assert_equal "$(grep -c '^run$' "$MARK")" "${#lines[@]}"
}

# The run's environment

@test "each run sees TFD_SEQ TFD_EXPIRATIONS TFD_TOTAL TFD_TIME TFD_LATE_US, as %n %e %E %u %l" {
	run --separate-stderr timeout 10 "$TFD" -d 20ms -f '%n %e %E %u %l' \
		-- sh -c 'echo "$TFD_SEQ $TFD_EXPIRATIONS $TFD_TOTAL $TFD_TIME $TFD_LATE_US" >"$0"' "$MARK"
	assert_success
	assert_output --regexp '^1 1 1 [0-9]+\.[0-9]{9} [0-9]+$'
	assert_equal "$(cat "$MARK")" "$output"
}

@test "TFD_SEQ and TFD_TOTAL grow from run to run" {
	run --separate-stderr timeout 10 "$TFD" -i 100ms -n 3 --overlap queue \
		--exec "echo \"\$TFD_SEQ \$TFD_TOTAL\" >>'$MARK'"
	assert_success
	run cat "$MARK"
	# Both grow; a loaded machine may leave out a TFD_SEQ (ticks queued
	# behind one run give one run).
	local line seq total prevseq=0 prev=0
	for line in "${lines[@]}"; do
		read -r seq total <<<"$line"
		((prevseq > 0 || seq == 1)) || fail "the first run is not TFD_SEQ 1: $output"
		((seq > prevseq)) || fail "TFD_SEQ did not grow: $output"
		((total > prev)) || fail "TFD_TOTAL did not grow: $output"
		prevseq=$seq prev=$total
	done
	((prev >= 3)) || fail "stopped at TFD_TOTAL $prev of --count 3"
}

@test "the run inherits the rest of tfd's environment" {
	TFD_TEST_VALUE='a b' run --separate-stderr timeout 10 "$TFD" -d 10ms --exec 'echo "$TFD_TEST_VALUE"'
	assert_success
	assert_output "a b"
}

@test "the run inherits stdin, stdout and stderr" {
	run --separate-stderr bash -c 'echo hello | timeout 10 "$1" -d 10ms -- sh -c "cat; echo oops >&2"' _ "$TFD"
	assert_success
	assert_output "hello"
	assert_equal "$stderr" "oops"
}

# Descriptors and signals

@test "a run inherits only fds 0-2, even when tfd is started with fd 5 open" {
	local list='for fd in $(seq 3 255); do [ -e /proc/$$/fd/$fd ] && echo "$fd -> $(readlink /proc/$$/fd/$fd)"; done; echo end'
	run --separate-stderr bash -c 'exec 5</dev/null 7>"$2"; timeout 10 "$1" -d 10ms -- sh -c "$3"' \
		_ "$TFD" "$BATS_TEST_TMPDIR/seven" "$list"
	assert_success
	assert_output "end"
}

@test "an --exec run inherits only fds 0-2 as well" {
	run --separate-stderr bash -c 'exec 5</dev/null; timeout 10 "$1" -i 10ms -n 1 --exec "$2"' \
		_ "$TFD" 'for fd in $(seq 3 255); do [ -e /proc/$$/fd/$fd ] && echo $fd; done; echo end'
	assert_success
	assert_output "end"
}

@test "a run's signal mask is empty and no signal is ignored, though tfd's caller ignored SIGINT" {
	run --separate-stderr bash -c "trap '' INT QUIT USR2 PIPE; exec timeout 10 \"\$1\" -d 10ms -- grep -E '^Sig(Blk|Ign):' /proc/self/status" \
		_ "$TFD"
	assert_success
	assert_equal "$output" "SigBlk:	0000000000000000
SigIgn:	0000000000000000"
}

@test "an --exec run's shell also starts with no signal blocked or ignored" {
	# The shell reads its own status with built-ins: a shell waiting for a
	# child may block signals meanwhile, so no child may be asked.
	local script='while read -r k v; do case $k in SigBlk:|SigIgn:) echo "$k $v" ;; esac; done </proc/$$/status'
	run --separate-stderr bash -c "trap '' INT HUP; exec timeout 10 \"\$1\" -i 10ms -n 1 --exec \"\$2\"" \
		_ "$TFD" "$script"
	assert_success
	assert_equal "$output" "SigBlk: 0000000000000000
SigIgn: 0000000000000000"
}

# What is printed with a command

@test "with a command nothing is printed per tick" {
	run --separate-stderr timeout 10 "$TFD" -i 10ms -n 3 -- true
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
}

@test "with a command, --format prints the tick lines" {
	# 200 ms: a tick late by more than an interval would count two.
	run --separate-stderr timeout 10 "$TFD" -i 200ms -n 2 -f 'tick %E' --overlap parallel -- true
	assert_success
	assert_equal "${lines[-1]}" "tick 2"
}

@test "with a command, --json prints tick and exit objects" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms --json -- true
	assert_success
	run jq -r .event <<<"$output"
	assert_output "tick
exit"
}

@test "with a command, --verbose prints the setting and the default tick line" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms --verbose -- true
	assert_success
	assert_output --regexp '^1 [0-9T:.-]+Z 1$'
	assert_equal "${#stderr_lines[@]}" 2
	assert_equal "${stderr_lines[0]%%:*}" "tfd"
}

# Commands that cannot run

@test "a missing COMMAND exits 127 before arming, naming it, and runs nothing" {
	local start
	start=$(now_ns)
	run -127 --separate-stderr timeout 10 "$TFD" -d 30s -- "$BATS_TEST_TMPDIR/no-such" "$MARK"
	assert_equal "$status" 127
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "tfd: "*"$BATS_TEST_TMPDIR/no-such"* ]] || fail "not named: $stderr"
	(($(now_ns) - start < 5000000000)) || fail "it waited for the timer"
}

@test "a COMMAND not on PATH exits 127 at once" {
	local start
	start=$(now_ns)
	PATH=$BATS_TEST_TMPDIR:/usr/bin:/bin run -127 --separate-stderr timeout 10 "$TFD" -i 30s -- tfd-no-such-command
	assert_equal "$status" 127
	assert_output ""
	[[ $stderr == "tfd: "*tfd-no-such-command* ]] || fail "not named: $stderr"
	(($(now_ns) - start < 5000000000)) || fail "it waited for the timer"
}

@test "a non-executable file exits 126 before arming, and is not run" {
	printf '#!/bin/sh\ntouch "%s"\n' "$MARK" >"$BATS_TEST_TMPDIR/script"
	chmod 644 "$BATS_TEST_TMPDIR/script"
	run --separate-stderr timeout 10 "$TFD" -d 30s -- "$BATS_TEST_TMPDIR/script"
	assert_equal "$status" 126
	assert_output ""
	[[ $stderr == "tfd: "*"$BATS_TEST_TMPDIR/script"* ]] || fail "not named: $stderr"
	refute_ran
}

@test "a directory as COMMAND exits 126 before arming" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	run --separate-stderr timeout 10 "$TFD" -d 30s -- "$BATS_TEST_TMPDIR/dir"
	assert_equal "$status" 126
	assert_output ""
	[[ $stderr == "tfd: "*"$BATS_TEST_TMPDIR/dir"* ]] || fail "not named: $stderr"
}

@test "a non-executable file found on PATH exits 126" {
	mkdir "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\ntouch "%s"\n' "$MARK" >"$BATS_TEST_TMPDIR/bin/tfd-test-noexec"
	PATH=$BATS_TEST_TMPDIR/bin:/usr/bin:/bin run --separate-stderr timeout 10 "$TFD" -d 30s -- tfd-test-noexec
	assert_equal "$status" 126
	[[ $stderr == "tfd: "*tfd-test-noexec* ]] || fail "not named: $stderr"
	refute_ran
}

# Exit statuses

@test "a one-shot timer with a command exits with the run's status" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -- sh -c 'exit 7'
	assert_equal "$status" 7
	run --separate-stderr timeout 10 "$TFD" -d 10ms --exec 'exit 3'
	assert_equal "$status" 3
	run --separate-stderr timeout 10 "$TFD" -d 10ms -- true
	assert_equal "$status" 0
	run --separate-stderr timeout 10 "$TFD" --at @1 -- false
	assert_equal "$status" 1
}

@test "a one-shot run killed by a signal: tfd exits 128+N" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -- sh -c 'kill -KILL $$'
	assert_equal "$status" 137
	run --separate-stderr timeout 10 "$TFD" -d 10ms --exec 'kill -TERM $$'
	assert_equal "$status" 143
}

@test "a repeating timer exits 0 at its count though its runs failed" {
	run --separate-stderr timeout 10 "$TFD" -i 20ms -n 2 --overlap queue -- sh -c 'exit 5'
	assert_success
	[[ $stderr == *"status 5"* ]] || fail "the failed run was not reported: $stderr"
}

@test "tfd waits for a run still going before it exits" {
	run --separate-stderr timeout 10 "$TFD" -i 10ms -n 1 --exec "sleep 0.3; touch '$MARK'"
	assert_success
	[[ -e $MARK ]] || fail "tfd exited before its run ended"
}
