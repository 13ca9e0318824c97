#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# Reloads of a jobs file (tfd-jobs(5), "Reload") at their edges: a file
# emptied, jobs added late, lines shifted by an insertion, a removed job's
# retry and process group, the file's directory deleted and made again.
# Timers end by --count or a signal; every wait polls with a generous
# bound.

load test_helper
load reload_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	export TZ=UTC
	MARKN="${BASHPID}${RANDOM}"
}

# The helper's teardown, extended: a run's sleep that outlived a failing
# tfd carries this test's marker and is ended too.
eval "helper_$(declare -f teardown)"
teardown() {
	mapfile -t -O "${#BG_PIDS[@]}" BG_PIDS < <(pgrep -f "^sleep 100\\.$MARKN")
	helper_teardown
}

# Asserts that tfd (the first background process) still runs.
assert_alive() {
	[[ -d /proc/${BG_PIDS[0]} ]] || fail "tfd exited: $(cat err 2>/dev/null)"
}

@test "a reload to a file with no job waits for the next reload: emptied, or truncated and then written" {
	echo '--name a --interval 200ms -- /bin/true' >./jobs
	start_bg "$TFD" --jobs jobs --json >ev.json 2>err
	wait_for_match ev.json '"event":"tick"'
	: >./jobs
	wait_for_reloads ev.json 1
	nap 0.5
	assert_alive
	# A truncate-then-write save: the empty file is seen first.
	: >./jobs
	nap 0.3
	echo '--name b --interval 200ms -- /bin/true' >./jobs
	wait_for_reloads ev.json 2
	wait_for_match ev.json '"event":"tick","job":"b"'
	: >./jobs
	wait_for_reloads ev.json 3
	nap 0.5
	assert_alive
	echo '--name c --delay 0 --exec "touch ran"' >./jobs
	wait_for_lines ran 20 0 || fail "c did not run"
	wait_bg_exit "${BG_PIDS[0]}"
	assert_equal "$bg_status" 0
	run reloads ev.json
	assert_output $'ok 0 1 0\nok 1 0 0\nok 0 1 0\nok 1 0 0'
	run cat err
	assert_output ""
}

# The expirations of job d's ticks in ev.json, summed.
d_expirations() {
	jq -s 'map(select(.event == "tick" and .job == "d") | .expirations) | add // 0' ev.json
}

# True when d_expirations is at least $1.
d_expirations_reach() {
	(($(d_expirations) >= $1))
}

# "UNIX EXPIRATIONS" of job $2's first tick in the --json file $1.
first_tick() {
	jq -r --arg j "$2" 'select(.event == "tick" and .job == $j) |
		"\(.unix) \(.expirations)"' "$1" | head -1
}

@test "a job a reload adds starts at the reload: its --delay, --interval and --for count from there" {
	echo '--name a --interval 1h -- true' >./jobs
	start_bg "$TFD" --jobs jobs --json >ev.json 2>err
	# Long enough after tfd's start that the new jobs' first elapses,
	# counted from that start, would all be past.
	sleep 2.5
	local hup
	hup=$(now_ns)
	save jobs <<-'EOF'
		--name a --interval 1h -- true
		--name b --delay 2s --count 1 -- true
		--name c --interval 1s --count 1 -- true
		--name d --delay 0 --interval 0.2s --for 1.5s -- true
	EOF
	wait_for_reloads ev.json 1
	wait_for_match ev.json '"event":"tick","job":"b"'
	wait_for_match ev.json '"event":"tick","job":"c"'
	local unix n
	read -r unix n < <(first_tick ev.json b)
	(($(to_ns "$unix") - hup >= 1500000000)) || fail "b fired $unix, under 2 s after the reload at $hup"
	read -r unix n < <(first_tick ev.json c)
	assert_equal "$n" 1
	(($(to_ns "$unix") - hup >= 800000000)) || fail "c fired $unix, under 1 s after the reload at $hup"
	# d ticks every 0.2 s for 1.5 s from the reload, not from tfd's start
	# (then none would be left): its expirations, however a loaded
	# machine groups them into wake-ups, come to at least 4.
	wait_until 20 d_expirations_reach 4 ||
		fail "d ticked $(d_expirations) times in its 1.5 s: $(cat ev.json)"
	assert_alive
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	run cat err
	assert_output ""
}

@test "a line inserted above an unchanged one does not rename it: it is kept, with its name and counters" {
	echo '--interval 200ms -- /bin/true' >./jobs
	start_bg "$TFD" --jobs jobs --json >ev.json 2>err
	wait_for_match ev.json '"event":"tick","job":"true","seq":3,'
	printf '%s\n' '--interval 700ms -- /bin/true' '--interval 200ms -- /bin/true' | save jobs
	wait_for_reloads ev.json 1
	assert_reloads ev.json "ok 1 0 1"
	wait_for_match ev.json '"event":"tick","job":"true-2"'
	# The kept job counts on from where it was.
	run jq -r 'select(.event == "tick" and .job == "true") | .seq' ev.json
	local i
	for ((i = 0; i < ${#lines[@]}; i++)); do
		assert_equal "${lines[i]}" $((i + 1))
	done
	# A new --name that takes its name: it cannot keep it, so it starts again.
	printf '%s\n' '--name true --interval 1h -- /bin/false' '--interval 200ms -- /bin/true' | save jobs
	wait_for_reloads ev.json 2
	assert_reloads ev.json "ok 1 0 1" "ok 2 2 0"
	# The line starts again as true-2 (the 700 ms job was true-2 too).
	for ((i = 0; i < 100; i++)); do
		(($(grep -c '"event":"tick","job":"true-2","seq":1,' ev.json) >= 2)) && break
		nap 0.05
	done
	assert_equal "$(grep -c '"event":"tick","job":"true-2","seq":1,' ev.json)" 2
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	run cat err
	assert_output ""
}

@test "a removed job's retry still runs, and its last failure counts (-E ends tfd with it)" {
	printf '%s\n' '--name k --interval 1h -- true' \
		'--name r --delay 0 --count 1 --retry 1 --retry-delay 2s --exec "echo x >> tries; exit 3"' >./jobs
	start_bg "$TFD" --jobs jobs --json -E >ev.json 2>err
	wait_for_match ev.json '"event":"exit","job":"r",.*"failed":false'
	echo '--name k --interval 1h -- true' | save jobs
	wait_for_reloads ev.json 1
	run reloads ev.json
	assert_output "ok 0 1 1"
	wait_bg_exit "${BG_PIDS[0]}"
	assert_equal "$bg_status" 3
	run cat tries
	assert_output $'x\nx'
	run jq -c 'select(.event == "exit") | [.job, .attempt, .status, .failed]' ev.json
	assert_output $'["r",1,3,false]\n["r",2,3,true]'
}

@test "a removed job's leftover process groups are ended at the removal, or when its run still going ends" {
	cat >./jobs <<-EOF
		--name k --interval 1h -- true
		--name g --delay 0 --count 1 --exec 'sleep 100.${MARKN}1 & exit 0'
		--name h --delay 0 --count 1 --exec 'sleep 100.${MARKN}2 & sleep 4; exit 0'
	EOF
	start_bg "$TFD" --jobs jobs --json >ev.json 2>err
	wait_for_match ev.json '"event":"exit","job":"g"'
	wait_for_process "^sleep 100\\.${MARKN}2\$"
	echo '--name k --interval 1h -- true' | save jobs
	wait_for_reloads ev.json 1
	wait_for_no_process "^sleep 100\\.${MARKN}1\$"
	# h's run still goes on, and its group with it, until the run ends.
	pgrep -f "^sleep 100\\.${MARKN}2\$" >/dev/null || fail "the reload ended a run's group"
	wait_for_match ev.json '"event":"exit","job":"h"' 10
	wait_for_no_process "^sleep 100\\.${MARKN}2\$"
	assert_alive
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	run cat err
	assert_output ""
}

@test "the jobs file's directory deleted and made again, its parent too: a warning, then reloads as before, SIGHUP too" {
	mkdir -p top/d
	echo '--name a --interval 1h -- true' >top/d/jobs
	start_bg "$TFD" --jobs top/d/jobs --json >ev.json 2>err
	wait_for_watch "${BG_PIDS[0]}"
	rm -rf top/d
	wait_for_match err "is gone"
	mkdir top/d
	# Back, but with no file yet: the reload says so, and the jobs run on.
	wait_for_reloads ev.json 1
	printf '%s\n' '--name a --interval 1h -- true' '--name b --interval 1h -- true' >top/d/jobs
	wait_for_reloads ev.json 2
	# The parent too: the nearest directory left is watched meanwhile.
	rm -rf top
	wait_for_lines err 20 3 || fail "no warning: $(cat err)"
	mkdir -p top/d
	wait_for_reloads ev.json 3
	printf '%s\n' '--name a --interval 1h -- true' '--name c --interval 1h -- true' | save top/d/jobs
	wait_for_reloads ev.json 4
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 5
	local gone="error --jobs 'top/d/jobs': No such file or directory"
	assert_reloads ev.json "$gone" "ok 1 0 1" "$gone" "ok 1 1 1" "ok 0 0 2"
	assert_alive
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	run cat err
	assert_line --index 0 "tfd: warning: --jobs 'top/d/jobs': its directory 'top/d' is gone; the jobs run on as they are until it is back"
	assert_line --index 1 "tfd: --jobs 'top/d/jobs': No such file or directory"
	assert_line --index 2 "tfd: warning: --jobs 'top/d/jobs': its directory 'top/d' is gone; the jobs run on as they are until it is back"
	assert_line --index 3 "tfd: --jobs 'top/d/jobs': No such file or directory"
	assert_equal "${#lines[@]}" 4
}
