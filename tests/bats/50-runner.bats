#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # --exec strings are expanded by the run's shell, not here.
# tfd as a job runner: overlap policies, timeouts and the kill grace period,
# --exit-on-error, --random-delay, --persist, shutdown by signal, and tfd as
# PID 1. Timers are short and tolerances wide: the machines are noisy, so no
# test asserts precision, only order and bounds.

load test_helper

# The helper's teardown, extended: a run's child that outlived a failing tfd
# carries this test's marker and is ended too.
eval "helper_$(declare -f teardown)"
teardown() {
	mapfile -t -O "${#BG_PIDS[@]}" BG_PIDS < <(pgrep -f "^sleep (100\\.|0\\.5)$MARKN\$")
	helper_teardown
}

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	# A marker no other process on the machine has in its command line,
	# so pgrep finds exactly the processes this test started.
	MARKN="${BASHPID}${RANDOM}"
	MARK="100.$MARKN"
}

# Helpers

# The --json lines of file $1 as words, one event a line:
#   tick SEQ ACTION TOTAL EXPIRATIONS
#   exit SEQ PID STATUS SIGNAL TIMED_OUT DURATION
events() {
	jq -r 'if .event == "tick" then
			"tick \(.seq) \(.action) \(.total) \(.expirations)"
		elif .event == "exit" then
			"exit \(.seq) \(.pid) \(.status) \(.signal) \(.timed_out) \(.duration)"
		else .event end' "$1"
}

# Fails unless, within $2 seconds (default 0: right now), no process's
# command line matches $1.
assert_no_process() {
	local i
	for ((i = 0; i <= ${2:-0} * 20; i++)); do
		pgrep -f "$1" >/dev/null || return 0
		nap 0.05
	done
	fail "still running: $(pgrep -af "$1")"
}

# Delays between each run's TFD_TIME (the wake-up) and the moment the run
# started, in seconds, from the lines "SEQ TFD_TIME START" of file $1 whose
# SEQ is below $2 (default: all).
run_delays() {
	awk -v below="${2:-0}" '!below || $1 < below { printf "%.6f\n", $3 - $2 }' "$1"
}

# Overlap policies

@test "overlap skip: a tick during a run runs nothing, is reported as skip and counted" {
	run --separate-stderr "$TFD" -i 100ms -n 6 --json -- sleep 0.35
	assert_success
	printf '%s\n' "$output" >out.json
	local active=0 skips=0 runs=0 exits=0 total=0 line
	local -a e
	while read -r line; do
		read -ra e <<<"$line"
		case ${e[0]}:${e[2]} in
		tick:run)
			((active == 0)) || fail "a run started while one was going: $line"
			active=1 runs=$((runs + 1)) ;;
		tick:skip)
			((active == 1)) || fail "a skip with no run going: $line"
			skips=$((skips + 1)) ;;
		tick:*) fail "unexpected action: $line" ;;
		exit:*)
			((active == 1)) || fail "an exit with no run going: $line"
			assert_equal "${e[3]}" 0
			active=0 exits=$((exits + 1)) ;;
		esac
		if [[ ${e[0]} == tick ]]; then
			total=$((total + e[4]))
			assert_equal "${e[3]}" "$total"
		fi
	done < <(events out.json)
	((skips >= 1)) || fail "no tick was skipped: $output"
	assert_equal "$exits" "$runs"
	((total >= 6)) || fail "the count of 6 was not reached: $output"
	assert_equal "$stderr" ""
}

@test "overlap queue: one run waits and starts when the running one ends" {
	run --separate-stderr "$TFD" -i 100ms -n 6 --json --overlap queue -- sleep 0.35
	assert_success
	printf '%s\n' "$output" >out.json
	local active=0 current=0 waiting=0 waitseq=0 queues=0 queued_ran=0 line
	local -a e
	while read -r line; do
		read -ra e <<<"$line"
		case ${e[0]}:${e[2]} in
		tick:run)
			((active == 0 && waiting == 0)) || fail "run while busy: $line"
			active=1 current=${e[1]} ;;
		tick:queue)
			((active == 1)) || fail "queue with no run going: $line"
			waiting=1 waitseq=${e[1]} queues=$((queues + 1)) ;;
		tick:*) fail "unexpected action: $line" ;;
		exit:*)
			((active == 1)) || fail "an exit with no run going: $line"
			assert_equal "${e[1]}" "$current"
			assert_equal "${e[3]}" 0
			active=0
			if ((waiting)); then
				# The queued run starts at once; the last queued tick wins.
				active=1 current=$waitseq waiting=0
				queued_ran=$((queued_ran + 1))
			fi ;;
		esac
	done < <(events out.json)
	assert_equal "$active$waiting" "00"
	((queued_ran >= 1)) || fail "no queued run ran: $output"
	# At most one waits: several queue ticks during one run give one run.
	((queued_ran < queues)) || fail "every queue tick ran ($queues): $output"
}

@test "overlap kill: the old run gets SIGTERM, then the new run starts" {
	local cmd
	# Each run notes its start first, then whether a run of the previous
	# tick is still alive: with "kill" none may be. The first two sleep
	# until they are killed; the interval leaves a loaded machine a second
	# to start each and let it write its line before the next tick.
	cmd="echo \"\$TFD_SEQ \$\$\" >>starts
pgrep -f '^sleep 100\\.$MARKN\$' >/dev/null && echo overlap >>starts
[ \"\$TFD_SEQ\" = 3 ] && exec sleep 0.5$MARKN
exec sleep $MARK"
	run --separate-stderr timeout 30 "$TFD" -i 1s -n 3 --json --overlap kill --exec "$cmd"
	assert_success
	printf '%s\n' "$output" >out.json
	refute grep -q overlap starts
	run events out.json
	local -a e
	assert_equal "${#lines[@]}" 6
	assert_equal "${lines[0]% *}" "tick 1 run 1"
	assert_equal "${lines[1]% *}" "tick 2 kill 2"
	read -ra e <<<"${lines[2]}"
	assert_equal "${e[*]:0:2} ${e[*]:3:3}" "exit 1 null SIGTERM false"
	assert_equal "${lines[3]% *}" "tick 3 kill 3"
	read -ra e <<<"${lines[4]}"
	assert_equal "${e[*]:0:2} ${e[*]:3:3}" "exit 2 null SIGTERM false"
	read -ra e <<<"${lines[5]}"
	assert_equal "${e[*]:0:2} ${e[*]:3:3}" "exit 3 0 null false"
	# The runs of ticks 2 and 3 were started (after the kill) with their
	# own pids, the ones the exit events name.
	run cat starts
	assert_equal "${#lines[@]}" 3
	local seq pid pids=()
	for i in 0 1 2; do
		read -r seq pid <<<"${lines[i]}"
		assert_equal "$seq" $((i + 1))
		pids+=("$pid")
	done
	assert_equal "$(jq -r 'select(.event == "exit") | .pid' out.json | xargs)" "${pids[*]}"
	assert_equal "$(printf '%s\n' "${pids[@]}" | sort -u | wc -l)" 3
}

@test "overlap kill: a run that ignores SIGTERM is SIGKILLed about 5 s later" {
	# The first run ignores SIGTERM; the one started after it ends at once.
	run --separate-stderr timeout -k 5 30 "$TFD" -i 200ms -n 2 --json --overlap kill \
		--exec "[ \$TFD_SEQ = 1 ] || exit 0; trap '' TERM; sleep $MARK"
	assert_success
	run events <(printf '%s\n' "$output")
	local -a e
	assert_equal "${#lines[@]}" 4
	assert_equal "${lines[1]% *}" "tick 2 kill 2"
	read -ra e <<<"${lines[2]}"
	assert_equal "${e[*]:0:2} ${e[*]:3:3}" "exit 1 null SIGKILL false"
	((${e[6]%.*} >= 4)) || fail "killed after ${e[6]} s, before the grace period"
	read -ra e <<<"${lines[3]}"
	assert_equal "${e[*]:0:2} ${e[*]:3:3}" "exit 2 0 null false"
	assert_no_process "^sleep $MARK\$"
}

@test "overlap parallel: runs overlap, each with its own pid" {
	run --separate-stderr "$TFD" -i 100ms -n 4 --json --overlap parallel -- sleep 0.35
	assert_success
	printf '%s\n' "$output" >out.json
	local active=0 most=0 line
	local -a e
	while read -r line; do
		read -ra e <<<"$line"
		case ${e[0]}:${e[2]} in
		tick:run) active=$((active + 1)) ;;
		tick:*) fail "unexpected action: $line" ;;
		exit:*) active=$((active - 1)) ; assert_equal "${e[3]}" 0 ;;
		esac
		((active > most)) && most=$active
	done < <(events out.json)
	assert_equal "$active" 0
	((most >= 2)) || fail "runs never overlapped: $output"
	# One run a wake-up (a noisy machine may merge expirations), each with
	# its own pid.
	local ticks
	ticks=$(jq -r 'select(.event == "tick") | .seq' out.json | xargs)
	assert_equal "$(jq -r 'select(.event == "exit") | .seq' out.json | sort -n | xargs)" "$ticks"
	assert_equal "$(jq -r 'select(.event == "exit") | .pid' out.json | sort -u | wc -l)" \
		"$(wc -w <<<"$ticks")"
}

@test "each run leads its own process group" {
	run --separate-stderr "$TFD" -d 10ms --exec 'echo $$ $(cut -d" " -f5 /proc/$$/stat)'
	assert_success
	local pid pgid
	read -r pid pgid <<<"$output"
	assert_equal "$pgid" "$pid"
	assert_not_equal "$pgid" "$(cut -d' ' -f5 /proc/$$/stat)"
}

# --timeout (`timeout` ends a tfd that would hang on the run forever)

@test "--timeout kills a hung run and its background child" {
	run --separate-stderr timeout -k 5 20 "$TFD" -d 10ms --timeout 300ms --json \
		-- sh -c "sleep $MARK </dev/null >/dev/null 2>&1 & wait"
	# A one-shot timer exits with its run's status: 128 + SIGTERM.
	assert_equal "$status" 143
	printf '%s\n' "$output" >out.json
	run jq -c 'select(.event == "exit") | [.seq, .status, .signal, .timed_out]' out.json
	assert_output '[1,null,"SIGTERM",true]'
	run jq '.duration >= 0.25 and .duration < 4.5' <(jq -c 'select(.event == "exit")' out.json)
	assert_output true
	# tfd waits for the run's whole process group before it exits.
	assert_no_process "^sleep $MARK\$"
}

@test "--timeout: without --json a stderr line says the run timed out" {
	run --separate-stderr timeout -k 5 20 "$TFD" -d 10ms --timeout 100ms -- sleep "$MARK"
	assert_equal "$status" 143
	assert_equal "$output" ""
	assert_regex "$stderr" '^tfd: run 1 \(pid [0-9]+\) timed out and was killed by SIGTERM$'
	assert_no_process "^sleep $MARK\$"
}

@test "--timeout: a run that exits on SIGTERM reports its own status" {
	run --separate-stderr timeout -k 5 20 "$TFD" -d 10ms --timeout 200ms \
		-- sh -c "trap 'exit 7' TERM; sleep $MARK </dev/null >/dev/null 2>&1 & wait"
	assert_equal "$status" 7
	assert_regex "$stderr" '^tfd: run 1 \(pid [0-9]+\) timed out and exited with status 7$'
	run --separate-stderr timeout -k 5 20 "$TFD" -d 10ms --timeout 200ms --json \
		-- sh -c "trap 'exit 7' TERM; sleep $MARK </dev/null >/dev/null 2>&1 & wait"
	run jq -c 'select(.event == "exit") | [.status, .signal, .timed_out]' <<<"$output"
	assert_output '[7,null,true]'
	assert_no_process "^sleep $MARK\$"
}

@test "--timeout: a run that ignores SIGTERM gets SIGKILL about 5 s later" {
	run --separate-stderr timeout -k 5 30 "$TFD" -d 10ms --timeout 200ms --json \
		-- sh -c "trap '' TERM; sleep $MARK </dev/null >/dev/null 2>&1 & wait"
	assert_equal "$status" 137
	run jq -c 'select(.event == "exit") | [.seq, .status, .signal, .timed_out, .duration >= 4.5, .duration < 15]' <<<"$output"
	assert_output '[1,null,"SIGKILL",true,true,true]'
	assert_no_process "^sleep $MARK\$"
}

# --exit-on-error

@test "--exit-on-error stops at the first failing run with its status" {
	# A second apart: a loaded machine can neither merge tick 2 into
	# tick 1 nor find run 1 still going at tick 2.
	run --separate-stderr "$TFD" -i 1s -n 20 -E --json \
		--exec 'echo $$ >pid.$TFD_SEQ; [ "$TFD_SEQ" -lt 2 ] || exit 3'
	assert_equal "$status" 3
	printf '%s\n' "$output" >out.json
	run jq -c 'select(.event == "exit") | [.seq, .status, .signal]' out.json
	assert_equal "${lines[0]}" '[1,0,null]'
	assert_equal "${lines[1]}" '[2,3,null]'
	assert_equal "${#lines[@]}" 2
	assert_equal "$(jq -r 'select(.event == "exit" and .seq == 2) | .pid' out.json)" "$(cat pid.2)"
	(($(grep -c '"tick"' out.json) < 20)) || fail "the schedule went on"
}

@test "--exit-on-error: a run killed by SIGKILL gives 137" {
	run --separate-stderr "$TFD" -i 100ms -n 20 -E --exec 'echo $$ >pid; kill -KILL $$'
	assert_equal "$status" 137
	assert_equal "$output" ""
	assert_equal "$stderr" "tfd: run 1 (pid $(cat pid)) was killed by SIGKILL"
}

@test "--exit-on-error: a timed-out run is a failing run" {
	run --separate-stderr timeout -k 5 20 "$TFD" -i 100ms -n 20 -E --timeout 100ms --json \
		-- sleep "$MARK"
	assert_equal "$status" 143
	run jq -c 'select(.event == "exit") | [.seq, .status, .signal, .timed_out]' <<<"$output"
	assert_output '[1,null,"SIGTERM",true]'
	assert_no_process "^sleep $MARK\$"
}

@test "without --exit-on-error failing runs are reported and the schedule goes on" {
	# --overlap parallel: no tick is skipped for a run still going. A
	# loaded machine may bring two expirations in one wake-up, one run:
	# each run has its line, and more than one ran.
	run --separate-stderr "$TFD" -i 100ms -n 3 --overlap parallel \
		--exec 'echo "$TFD_SEQ $$" >>runs; exit 3'
	assert_success
	assert_equal "$output" ""
	(($(wc -l <runs) >= 2)) || fail "the schedule did not go on: $(cat runs)"
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | sort)" \
		"$(sort runs | awk '{ printf "tfd: run %s (pid %s) exited with status 3\n", $1, $2 }')"
	run --separate-stderr "$TFD" -i 100ms -n 2 --overlap parallel --exec 'kill -KILL $$'
	assert_success
	((${#stderr_lines[@]} >= 1)) || fail "no line for the runs"
	local line
	for line in "${stderr_lines[@]}"; do
		assert_regex "$line" '^tfd: run [12] \(pid [0-9]+\) was killed by SIGKILL$'
	done
}

# --random-delay

@test "--random-delay delays each run by 0..D" {
	# "parallel": a run that a delay pushed near the next one is not skipped.
	run --separate-stderr "$TFD" -i 100ms -n 20 --random-delay 50ms --overlap parallel \
		--json --exec 'echo "$TFD_SEQ $TFD_TIME $(date +%s.%N)" >>timing'
	assert_success
	# Every wake-up ran once (a noisy machine may merge expirations).
	assert_equal "$(sort -n timing | cut -d' ' -f1 | xargs)" \
		"$(jq -r 'select(.event == "tick") | .seq' <<<"$output" | xargs)"
	local n
	n=$(wc -l <timing)
	((n >= 10)) || fail "only $n wake-ups"
	run_delays timing >delays
	# Starting sh and date takes a little; a loaded machine more.
	run awk '$1 < 0 || $1 > 1.5' delays
	assert_output ""
	# Uniform over 0..50 ms, about 3 in 4 draws exceed 12 ms; without a
	# delay a run starts within a few ms.
	run awk '$1 > 0.012' delays
	((${#lines[@]} * 4 >= n)) || fail "delays look like none: $(xargs <delays)"
}

@test "--random-delay never holds an action past the next expiration" {
	# Uncapped, 3 s delays would pass 1.2 s in 3 of 5 draws; capped at the
	# next expiration (100 ms), only a loaded machine's start of sh and
	# date adds to them.
	run --separate-stderr "$TFD" -i 100ms -n 8 --random-delay 3s --overlap parallel \
		--json --exec 'echo "$TFD_SEQ $TFD_TIME $(date +%s.%N)" >>timing'
	assert_success
	local seqs last
	seqs=$(jq -r 'select(.event == "tick") | .seq' <<<"$output" | xargs)
	assert_equal "$(sort -n timing | cut -d' ' -f1 | xargs)" "$seqs"
	# The last wake-up has no next expiration, so its delay is not capped.
	last=${seqs##* }
	run_delays timing "$last" >delays
	run awk '$1 < 0 || $1 > 1.2' delays
	assert_output ""
}

# --persist

stamp_regex='^[0-9]+\.[0-9]{9}$'

@test "--persist creates the file at start with the start time" {
	local before after
	before=$(date +%s)
	start_bg "$TFD" -i 3600s --persist stamp --exec 'echo "$TFD_SEQ" >>runs'
	wait_for_lines stamp || fail "stamp not created"
	after=$(date +%s)
	assert_regex "$(cat stamp)" "$stamp_regex"
	assert_equal "$(wc -l <stamp)" 1
	local s
	s=$(cut -d. -f1 stamp)
	((s >= before && s <= after)) || fail "stamp $s not in [$before, $after]"
	kill -TERM "${BG_PIDS[-1]}"
	wait_bg_exit "${BG_PIDS[-1]}"
	assert_equal "$bg_status" 143
	[[ ! -e runs ]] || fail "a run happened: $(cat runs)"
}

@test "--persist replaces the file atomically with each run's time" {
	# A stamp a minute ahead: no run is due before tfd starts, however
	# late a loaded machine starts it (then run 0 would make one up).
	echo "$(($(date +%s) + 60)).000000000" >stamp
	# A second link keeps the old inode (and its number) alive: a file
	# replaced by rename leaves it untouched, one rewritten in place not.
	ln stamp old
	cp stamp old.content
	local inode
	inode=$(stat -c %i stamp)
	run --separate-stderr "$TFD" -d 50ms -i 1s -n 2 --persist stamp \
		--exec 'echo "$TFD_SEQ" >>runs; echo "$TFD_TIME" >last'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(xargs <runs)" "1 2"
	assert_regex "$(cat stamp)" "$stamp_regex"
	assert_equal "$(wc -l <stamp)" 1
	assert_equal "$(cat stamp)" "$(cat last)"
	assert_not_equal "$(stat -c %i stamp)" "$inode"
	cmp old old.content || fail "the old file was written to"
	# No temporary file is left next to it.
	local left
	left=$(
		shopt -s dotglob
		for f in *; do
			[[ $f == separate-stderr-* ]] || echo "$f"
		done
	)
	assert_equal "$(xargs <<<"$left")" "last old old.content runs stamp"
}

@test "--persist: a run missed while tfd was not running is made up at once" {
	echo "$(($(date +%s) - 7200)).000000000" >stamp
	run --separate-stderr "$TFD" -d 500ms -i 3600s -n 1 --json --persist stamp \
		--exec 'echo "$TFD_SEQ $TFD_TIME" >>runs'
	assert_success
	printf '%s\n' "$output" >out.json
	# The catch-up run is number 0, comes first and has no tick line.
	assert_equal "$(cut -d' ' -f1 runs | xargs)" "0 1"
	assert_equal "$(jq -r 'select(.event == "tick") | .seq' out.json | xargs)" "1"
	assert_equal "$(jq -r 'select(.event == "exit") | .seq' out.json | sort | xargs)" "0 1"
	assert_equal "$(cat stamp)" "$(sed -n 2p runs | cut -d' ' -f2)"
}

@test "--persist: no catch-up when the last run is recent" {
	echo "$(($(date +%s) - 10)).000000000" >stamp
	run --separate-stderr "$TFD" -d 200ms -i 3600s -n 1 --persist stamp \
		--exec 'echo "$TFD_SEQ" >>runs'
	assert_success
	assert_equal "$(xargs <runs)" "1"
}

@test "--persist: a one-shot timer has nothing to make up" {
	echo "$(($(date +%s) - 7200)).000000000" >stamp
	run --separate-stderr "$TFD" -d 200ms --persist stamp --exec 'echo "$TFD_SEQ" >>runs'
	assert_success
	assert_equal "$(xargs <runs)" "1"
	# The run's time replaced the old stamp.
	(($(date +%s) - $(cut -d. -f1 stamp) <= 5)) || fail "stamp not updated: $(cat stamp)"
}

@test "--persist: a missed calendar or cron elapse is made up at once, a recent one not" {
	local sched age want
	# Not across the hour: the "recent" stamp would then miss an elapse.
	((10#$(date +%M%S) < 5958)) || sleep 4
	for sched in "--calendar hourly:7200:0" "--cron @hourly:7200:0" \
		"--calendar hourly:0:" "--cron @hourly:0:"; do
		IFS=: read -r sched age want <<<"$sched"
		echo "$(($(date +%s) - age)).000000000" >stamp
		rm -f runs err
		# shellcheck disable=SC2086 # $sched is an option and its value.
		start_bg "$TFD" $sched -v --persist stamp --exec 'echo "$TFD_SEQ" >>runs' 2>err
		# "armed" comes after any catch-up run was started.
		wait_for_lines err || fail "$sched: not armed"
		# A catch-up run must write its line before SIGTERM reaches it.
		if [[ -n $want ]]; then
			wait_for_lines runs || fail "$sched: no catch-up run"
		fi
		kill -TERM "${BG_PIDS[-1]}"
		wait_bg_exit "${BG_PIDS[-1]}"
		assert_equal "$bg_status" 143
		assert_equal "$(cat runs 2>/dev/null)" "$want"
	done
}

@test "--persist: a corrupt file is a usage error and is left alone" {
	local content inode
	for content in 'garbage' '1796286515' '1796286515.000000000 extra'; do
		printf '%s\n' "$content" >stamp
		cp stamp stamp.orig
		inode=$(stat -c %i stamp)
		assert_usage_error "stamp" -d 10ms -i 3600s --persist stamp --exec 'touch ran'
		assert_equal "$(stat -c %i stamp)" "$inode"
		cmp stamp stamp.orig || fail "stamp changed: $(cat stamp)"
		[[ ! -e ran ]] || fail "a run happened"
	done
}

@test "--persist: a directory or a missing parent is a usage error before arming" {
	mkdir dir
	run --separate-stderr "$TFD" -d 10ms -i 3600s --persist dir --exec 'touch ran'
	assert_equal "$status" 2
	assert_equal "$output" ""
	assert_regex "$stderr" "^tfd: .*'dir'"
	[[ -d dir && ! -e ran ]] || fail "dir replaced or a run happened"
	# A file that cannot be created is the same.
	run --separate-stderr "$TFD" -d 10ms -i 3600s --persist missing/stamp --exec 'touch ran'
	assert_equal "$status" 2
	assert_regex "$stderr" "^tfd: .*missing/stamp"
	[[ ! -e ran ]] || fail "a run happened"
}

@test "--persist: a file without read permission exits 1" {
	((EUID != 0)) || skip "root reads any file: mode 000 blocks nothing"
	echo "$(date +%s).000000000" >stamp
	chmod 000 stamp
	run --separate-stderr "$TFD" -d 10ms -i 3600s --persist stamp --exec 'touch ran'
	assert_equal "$status" 1
	assert_regex "$stderr" "^tfd: .*stamp"
}

# Shutdown

@test "SIGTERM: runs and their children end with tfd, which exits 143" {
	start_bg "$TFD" -i 100ms --exec "sleep $MARK </dev/null >/dev/null 2>&1 & wait"
	wait_for_process "^sleep $MARK\$"
	kill -TERM "${BG_PIDS[-1]}"
	wait_bg_exit "${BG_PIDS[-1]}"
	assert_equal "$bg_status" 143
	assert_no_process "^sleep $MARK\$" 5
}

@test "SIGTERM drops a queued run" {
	# The run lasts until SIGTERM ends it, however late that comes.
	start_bg "$TFD" -i 100ms --overlap queue --json \
		--exec "echo \"\$TFD_SEQ\" >>runs; exec sleep $MARK" >out
	# The second tick queues a run behind the first.
	wait_for_lines out 20 2 || fail "no second tick: $(cat out)"
	kill -TERM "${BG_PIDS[-1]}"
	wait_bg_exit "${BG_PIDS[-1]}"
	assert_equal "$bg_status" 143
	assert_equal "$(jq -r 'select(.event == "tick") | .action' out | sort -u | xargs)" "queue run"
	assert_equal "$(xargs <runs)" 1
	assert_equal "$(jq -c 'select(.event == "exit") | [.seq, .signal]' out)" '[1,"SIGTERM"]'
}

@test "SIGINT ends tfd with 130, SIGHUP with 129, each forwarded to the run" {
	local sig want
	for sig in INT:130 HUP:129; do
		want=${sig#*:} sig=${sig%:*}
		# bats leaves INT ignored in background jobs, and tfd keeps that.
		start_bg env --default-signal=INT,HUP "$TFD" -d 10ms --json -- sleep "$MARK" >out
		wait_for_process "^sleep $MARK\$"
		kill -"$sig" "${BG_PIDS[-1]}"
		wait_bg_exit "${BG_PIDS[-1]}"
		assert_equal "$bg_status" "$want"
		assert_equal "$(jq -r 'select(.event == "exit") | .signal' out)" "SIG$sig"
		assert_no_process "^sleep $MARK\$" 5
	done
}

# PID 1

@test "as PID 1 tfd reaps orphaned grandchildren" {
	unshare --pid --fork --mount-proc true 2>/dev/null ||
		skip "unshare --pid --fork --mount-proc is refused here"
	# Each run leaves an orphan that ends at once, then looks for zombies
	# in the namespace: tfd, its init, must have reaped the orphans.
	# A run takes about 0.2 s: 500 ms apart, a loaded machine skips none.
	run --separate-stderr unshare --pid --fork --mount-proc "$TFD" -i 500ms -n 4 \
		--exec 'sh -c "sleep 0.01 &"; sleep 0.15; echo "init=$(cat /proc/1/comm)"
			grep -l "^State:.*Z" /proc/[0-9]*/status || true'
	assert_success
	assert_equal "$stderr" ""
	# Each run saw tfd as init and no zombie (a loaded machine may bring
	# two expirations in one wake-up: fewer runs than 4, never one).
	((${#lines[@]} >= 2 && ${#lines[@]} <= 4)) || fail "runs: $output"
	refute_line --regexp '^(/proc|init=[^t]|init=t[^f]|init=tf[^d])'
	assert_line --index 0 --regexp '^init=tfd'
	assert_line --index $((${#lines[@]} - 1)) --regexp '^init=tfd'
}

@test "as PID 1 tfd stops on a SIGTERM sent from inside its namespace" {
	unshare --pid --fork --mount-proc true 2>/dev/null ||
		skip "unshare --pid --fork --mount-proc is refused here"
	# The kernel drops signals to an init that has no handler; tfd's
	# signalfd must still see this one.
	run --separate-stderr timeout -k 5 20 unshare --pid --fork --mount-proc \
		"$TFD" -i 100ms -n 50 --exec '[ "$TFD_SEQ" -lt 3 ] || kill -TERM 1'
	assert_equal "$status" 143
}

@test "--exit-on-error does not count a run that --overlap kill ended as a failure" {
	run --separate-stderr timeout 20 "$TFD" -i 100ms -n 4 -E --overlap kill --json -- sleep 0.25
	assert_success
	run jq -r 'select(.event == "exit") | .signal' <<<"$output"
	assert_line SIGTERM
}
