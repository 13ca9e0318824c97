# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# Shared by every tests/bats/*.bats file: the assertion libraries, the binary
# under test ($TFD, set by `make bats`; the repo's ./tfd otherwise) and the
# clean-up of anything a test left running.

bats_require_minimum_version 1.5.0

# bats sources this file again for every test, and a library's load.bash
# finds each of its files through `$(dirname ...)`: two processes a file,
# some 30 a test, a fifth of a second of CPU each time, which the suite's
# two cores spend better on the tests. The same files are sourced here
# without them; a load.bash of another shape is left to bats_load_library.
load_library() {
	local dir line path
	# shellcheck disable=SC2016 # load.bash's own text, not expanded
	local prefix='source "$(dirname "${BASH_SOURCE[0]}")/'
	local -a files=()
	IFS=: read -ra path <<<"${BATS_LIB_PATH:-/usr/lib/bats}"
	for dir in "${path[@]}"; do
		[[ -f $dir/$1/load.bash ]] && break
	done
	while IFS= read -r line; do
		[[ -z $line || $line == '#'* ]] && continue
		if [[ $line != "$prefix"*'"' ]]; then
			bats_load_library "$1"
			return
		fi
		line=${line#"$prefix"}
		files+=("$dir/$1/${line%'"'}")
	done <"$dir/$1/load.bash" || {
		bats_load_library "$1"
		return
	}
	for line in "${files[@]}"; do
		# shellcheck source=/dev/null
		source "$line"
	done
}
load_library bats-support
load_library bats-assert

# The tests do not depend on the caller's locale: sort's order, grep's and
# bash's character classes, and what bash makes of $'\u...' all change with
# it, and a fresh container has none set. Text beyond ASCII is written as
# its bytes.
export LC_ALL=C
unset LANGUAGE

TFD=${TFD:-$BATS_TEST_DIRNAME/../../tfd}
REPO=${BATS_TEST_DIRNAME%/tests/bats}
[[ $REPO != "$BATS_TEST_DIRNAME" && $REPO == /* ]] || REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
export TFD REPO

# @reboot lines run at the first start of their jobs in a boot, recorded
# in /run/tfd/reboot (tfd(1)): each test keeps its own record instead, so
# no test stands for another's first start, nor writes in /run.
export TFD_REBOOT_FILE=$BATS_TEST_TMPDIR/tfd-reboot

# nap SECONDS: sleep(1) without a process. The polls below wait 20 times a
# second, for minutes in all; under bats each process a test starts costs
# some 10 ms of CPU, half a core for a test that polls, which the suite's
# streams (make check) need. A read that times out on a FIFO opened
# read-write (so never at its end) sleeps in bash itself; the descriptor
# is the read's alone, no child inherits it.
nap() {
	local fifo=$BATS_FILE_TMPDIR/nap
	if [[ ! -p $fifo ]] && ! mkfifo "$fifo" 2>/dev/null && [[ ! -p $fifo ]]; then
		sleep "$1"
		return 0
	fi
	read -rt "$1" <>"$fifo" || true
}

# Background processes a test starts must close fd 3 (`3>&-`) or bats waits
# for them; they are recorded here and ended in teardown.
BG_PIDS=()

start_bg() {
	"$@" 3>&- &
	BG_PIDS+=("$!")
}

# remove_user NAME [GROUP...]: deletes a user a test made, its own group
# and the other GROUPs, those that exist (a teardown after a test that
# failed before making them all).
remove_user() {
	local g
	userdel "$1" 2>/dev/null || true
	for g in "$@"; do
		groupdel "$g" 2>/dev/null || true
	done
}

teardown() {
	local pid
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	BG_PIDS=()
}

# Waits up to $2 seconds (default 20) for file $1 to hold at least $3 lines
# (default 1): timing in these tests is generous, the machines are noisy.
wait_for_lines() {
	local file=$1 timeout=${2:-20} want=${3:-1} i
	for ((i = 0; i < timeout * 20; i++)); do
		if [[ -f $file ]] && (($(wc -l <"$file") >= want)); then
			return 0
		fi
		nap 0.05
	done
	return 1
}

# Runs tfd ("${@:2}") expecting status 2, nothing on stdout and a first
# line "tfd: ..." on stderr naming the bad text $1.
run_status2() {
	local bad=$1
	shift
	run --separate-stderr "$TFD" "$@"
	assert_equal "$status" 2
	assert_equal "$output" ""
	[[ ${stderr_lines[0]} == "tfd: "* ]] || fail "no 'tfd: ' line: $stderr"
	[[ ${stderr_lines[0]} == *"$bad"* ]] || fail "message does not name '$bad': $stderr"
}

# Runs tfd expecting a usage error: status 2, a first line "tfd: ..."
# naming the bad text, then the hint, and nothing on stdout.
assert_usage_error() {
	run_status2 "$@"
	assert_equal "${stderr_lines[1]}" "Try 'tfd --help'."
	assert_equal "${#stderr_lines[@]}" 2
}

# Skips the test unless it may set the realtime clock. A step of the clock
# moves every realtime timer of the machine, not only tfd's: a person's
# desktop, the other tests running beside it. Allowed where CI is set (a
# machine made for the run and thrown away: .ci/run) or TFD_CLOCK_TESTS=1.
require_clock_tests() {
	[[ -n ${CI-} || ${TFD_CLOCK_TESTS-} == 1 ]] ||
		skip "sets the realtime clock: runs only with CI or TFD_CLOCK_TESTS=1 set"
	((EUID == 0)) || skip "setting the clock needs root"
}

# Skips the test unless command $1 is installed.
require_command() {
	command -v "$1" >/dev/null || skip "$1 is not installed"
}

# Skips, saying why, when $TFD is the ASan+UBSan build (make bats-asan),
# for what that build cannot do (ASan maps terabytes of shadow memory,
# and its leak check stops under ptrace).
skip_under_asan() {
	if ldd "$TFD" 2>/dev/null | grep -q libasan; then
		skip "the ASan build: $1"
	fi
}

# Text $1 without the lines of the operator's log (tfd(1), "The
# operator's log"; 42-log.bats tests them): start, reload and stop with
# jobs files, a run's start and its success in host modes, a fleet's
# connection. What is left is tfd's warnings and errors (a failed run's
# line among them).
without_operator_log() {
	grep -Ev -e '^tfd [0-9]+\.[0-9]+\.[0-9]+: [0-9]+ jobs? from ' \
		-e '^tfd: stopping on SIG[A-Z0-9]+' -e '^tfd: reloaded ' \
		-e '^tfd: .+: run [0-9]+ \(pid [0-9]+\)( as .+)?: started$' \
		-e '^tfd: .+: run [0-9]+: exited 0 after [0-9.]+s$' \
		-e "^tfd: --fleet: connected to the database as replica '.+'\$" \
		<<<"$1" || true
}

# Runs "$@" and prints its stdout and stderr together, as `run` keeps
# them, without the operator's log; the status is not kept.
output_without_log() {
	local out
	out=$("$@" 2>&1)
	without_operator_log "$out"
}

# Runs "$@" with stderr kept apart, as `run --separate-stderr` does, and
# asserts that it exited 0 and wrote nothing on stderr but the operator's
# log.
run_clean() {
	run --separate-stderr "$@"
	assert_success
	assert_equal "$(without_operator_log "$stderr")" ""
}

# Runs tfd expecting an error that the system gave for what the options
# name (a file's permissions, a port in use): status 2, one line "tfd:
# ..." naming $1, no hint (--help cannot mend it), nothing on stdout.
assert_system_error() {
	run_status2 "$@"
	assert_equal "${#stderr_lines[@]}" 1
}

# Decimal seconds as tfd prints them (`1`, `0.25`, `1796292001.000123456`)
# to integer nanoseconds, so tests compare times without floating point.
to_ns() {
	local s=$1 int frac=
	int=${s%%.*}
	[[ $s == *.* ]] && frac=${s#*.}
	frac=${frac}000000000
	echo $((10#${int:-0} * 1000000000 + 10#${frac:0:9}))
}

# The realtime clock now, in nanoseconds since the epoch.
now_ns() {
	date +%s%N
}

# A raw reading of CLOCK_MONOTONIC in nanoseconds, as `--clock monotonic
# --at @SECONDS` takes it (bash and coreutils cannot read that clock).
mono_ns() {
	perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC \
		-e 'printf "%.0f\n", clock_gettime(CLOCK_MONOTONIC) * 1e9'
}

# Nanoseconds to the "S.NNNNNNNNN" form of `@SECONDS` and `%u`.
ns_to_seconds() {
	printf '%d.%09d\n' $(($1 / 1000000000)) $(($1 % 1000000000))
}

# Asserts that a timer with --count $1 stopped at the first wake-up whose
# running total of expirations reached it (one read may bring several, so
# the total may pass it): $2 is the last running total, $3 the one before.
assert_count_reached() {
	local want=$1 last=$2 before=${3:-0}
	((last >= want)) || fail "stopped at $last expirations, before --count $want"
	((before < want)) || fail "went on after $before of --count $want expirations"
}

# Checks the wake-up lines in $lines, printed with --count $1 and the
# --format $2 of space-free placeholders (the default is '%n %t %e'): the
# running total of %e must reach the count at the last line only
# (assert_count_reached); where the format has %n, it must count the lines
# from 1; where it has %E, it must be that running total. Sets expirations
# to the total.
# shellcheck disable=SC2034 # expirations is the tests' to read.
assert_wakeups() {
	local want=$1 line i sum=0 before=0 k=0 n=-1 e=-1 total=-1
	local -a spec field
	read -ra spec <<<"${2:-%n %t %e}"
	for i in "${!spec[@]}"; do
		case ${spec[i]} in
		%n) n=$i ;;
		%e) e=$i ;;
		%E) total=$i ;;
		esac
	done
	((e >= 0)) || fail "assert_wakeups: no %e in '$2'"
	for line in "${lines[@]}"; do
		read -ra field <<<"$line"
		k=$((k + 1))
		before=$sum
		sum=$((sum + field[e]))
		((n < 0)) || assert_equal "${field[n]}" "$k"
		((total < 0)) || assert_equal "${field[total]}" "$sum"
	done
	expirations=$sum
	assert_count_reached "$want" "$sum" "$before"
}

# Waits up to $2 seconds (default 30) for background process $1 (started
# with start_bg in this shell) to end and sets bg_status to its exit status;
# fails if it is still running. Unlike a bare `wait`, a tfd that never ends
# fails the test instead of hanging the suite.
# shellcheck disable=SC2034 # bg_status is the tests' to read.
wait_bg_exit() {
	local pid=$1 timeout=${2:-30} i state stat
	for ((i = 0; i < timeout * 20; i++)); do
		# The state is the field after the command's closing parenthesis.
		state=
		if read -r stat 2>/dev/null <"/proc/$pid/stat"; then
			state=${stat##*) }
			state=${state%% *}
		fi
		if [[ -z $state || $state == Z ]]; then
			bg_status=0
			wait "$pid" || bg_status=$?
			return 0
		fi
		nap 0.05
	done
	fail "process $pid still running after ${timeout}s"
}

# Waits up to SECONDS for COMMAND... to succeed (a state the test checks:
# poll it, never sleep a fixed time); false if it never does.
wait_until() {
	local seconds=$1 i
	shift
	for ((i = 0; i < seconds * 20; i++)); do
		"$@" && return 0
		nap 0.05
	done
	return 1
}

# True when process $1 has written 60 KiB, nearly a pipe's worth (64 KiB,
# which takes no further line of 1 KiB): its stdout is stuck when nothing
# reads it.
pipe_full() {
	local w
	w=$(awk '$1 == "wchar:" { print $2 }' "/proc/$1/io" 2>/dev/null)
	((${w:-0} >= 61440))
}

# True when no process's command line matches the extended regex $1.
no_process_matches() {
	! pgrep -f "$1" >/dev/null
}

# Waits up to $2 seconds (default 20) until no process's command line
# matches the extended regex $1.
wait_for_no_process() {
	wait_until "${2:-20}" no_process_matches "$1" ||
		fail "still running after ${2:-20}s: $(pgrep -af "$1")"
}

# Whether file $1 holds at least $2 lines.
has_lines() {
	[[ -f $1 ]] && (($(wc -l <"$1") >= $2))
}

# Runs "$@", a host's cron (--system-crontab, --user-crontabs), which never
# ends by itself, with stdout in $HOST_OUT and stderr in $HOST_ERR, until
# the shell condition $1 holds (polled for up to 20 s, or until the
# command ends by itself), then stops it with SIGTERM. Sets what `run
# --separate-stderr` sets: status (143 when it ran until the signal, as it
# should), output and lines, stderr (without the operator's log) and
# stderr_lines.
# shellcheck disable=SC2034 # the tests read what it sets.
host_cron_until() {
	local cond=$1 pid i
	shift
	HOST_OUT=$BATS_TEST_TMPDIR/host.out HOST_ERR=$BATS_TEST_TMPDIR/host.err
	"$@" >"$HOST_OUT" 2>"$HOST_ERR" 3>&- &
	pid=$!
	for ((i = 0; i < 400; i++)); do
		eval "$cond" && break
		kill -0 "$pid" 2>/dev/null || break
		nap 0.05
	done
	kill -TERM "$pid" 2>/dev/null || true
	status=0
	wait "$pid" || status=$?
	output=$(<"$HOST_OUT")
	# The operator's log (a host's cron logs every run) left out: the
	# tests read warnings and errors; $HOST_ERR keeps it all.
	stderr=$(without_operator_log "$(<"$HOST_ERR")")
	lines=() stderr_lines=()
	[[ -z $output ]] || mapfile -t lines <<<"$output"
	[[ -z $stderr ]] || mapfile -t stderr_lines <<<"$stderr"
}

# host_cron_until its stdout holds $1 lines and its stderr $2.
run_host_cron() {
	local out=$1 err=$2
	shift 2
	host_cron_until "has_lines \"\$HOST_OUT\" $out && has_lines \"\$HOST_ERR\" $err" "$@"
}

# Waits up to $2 seconds (default 20) for a process whose command line
# matches the extended regex $1.
wait_for_process() {
	local i
	for ((i = 0; i < ${2:-20} * 20; i++)); do
		pgrep -f "$1" >/dev/null && return 0
		nap 0.05
	done
	fail "no process matching '$1' after ${2:-20}s"
}

# The commands of README.md's fenced block that holds `tfd --fleet-sql`,
# one a line: the fleet in six commands (79-fleet-readme.bats runs them,
# 86-man.bats finds them in tfd-fleet(7)).
readme_fleet_commands() {
	awk '/^```/ {
			if (inb && block ~ /tfd --fleet-sql/) { printf "%s", block; exit }
			inb = !inb; block = ""; next
		}
		inb { block = block $0 "\n" }' "$REPO/README.md"
}
