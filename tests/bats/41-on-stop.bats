#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $$ and $!.
# --on-stop=forward|wait|leave and --kill-after: what SIGTERM and SIGINT do
# to the runs going. Each test's run is a sleep that writes a file when it
# starts, one when it ends on its own and one when it is sent SIGTERM.

load test_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# A run's command: "started" (with its pid) at once, "ended" after $1
# seconds, "killed" on SIGTERM (then it exits 1). The sleep runs in the
# background so that the trap is served at once.
run_script() {
	printf '%s' "trap 'echo killed >>killed; kill \$! 2>/dev/null; exit 1' TERM
echo \$\$ >>started; sleep $1 & wait; echo done >>ended"
}

# Starts tfd with the options given and waits for its first run.
start_tfd() {
	start_bg "$TFD" "$@" >out 2>err
	TFD_PID=${BG_PIDS[-1]}
	wait_for_lines started 10 1 || fail "the run did not start: $(cat err)"
}

# Milliseconds since $1 (now_ns).
ms_since() {
	echo $((($(now_ns) - $1) / 1000000))
}

@test "--on-stop=forward (the default): SIGTERM to the run, tfd exits 143" {
	local how
	for how in forward default; do
		rm -f started killed ended
		if [[ $how == forward ]]; then
			start_tfd --on-stop=forward -d 0 -i 1h --log-runs --exec "$(run_script 30)"
		else
			start_tfd -d 0 -i 1h --log-runs --exec "$(run_script 30)"
		fi
		kill -TERM "$TFD_PID"
		wait_bg_exit "$TFD_PID" 15
		assert_equal "$bg_status" 143
		[[ -s killed ]] || fail "$how: the run was not sent SIGTERM"
		[[ ! -e ended ]] || fail "$how: the run was not ended"
		run cat err
		assert_line --index 2 'tfd: stopping on SIGTERM: 1 run sent SIGTERM, SIGKILL after 5s'
	done
}

@test "--on-stop=wait: the run goes on to its end, nothing new starts, tfd exits 0" {
	run_script 2 >slow.sh
	printf '%s\n' "--name slow --interval 300ms --overlap queue -- sh $PWD/slow.sh" >jobfile
	start_tfd --jobs jobfile --on-stop=wait
	# An elapse comes while the run goes: it is queued.
	nap 0.5
	local start
	start=$(now_ns)
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 15
	assert_equal "$bg_status" 0
	[[ -s ended ]] || fail "the run did not end on its own: $(cat err)"
	[[ ! -e killed ]] || fail "the run was sent SIGTERM"
	assert_equal "$(wc -l <started)" 1
	(($(ms_since "$start") >= 1000)) || fail "tfd did not wait for the run"
	run cat err
	assert_line --index 1 --regexp '^tfd: stopping on SIGTERM: waiting for 1 run to end \(a second signal sends it on to them\); 1 start dropped$'
}

@test "--on-stop=wait: while it waits /readyz answers 503, tfdctl run is refused, SIGHUP does nothing" {
	[[ -e /usr/lib/x86_64-linux-gnu/libmicrohttpd.so.12 ]] || ldconfig -p | grep -q libmicrohttpd ||
		skip "libmicrohttpd is not installed"
	require_command curl
	local port i code
	run_script 30 >slow.sh
	printf '%s\n' "--name slow --delay 0 -- sh $PWD/slow.sh" '--name other --interval 1h -- true' \
		>jobfile
	for ((i = 0; i < 5; i++)); do
		port=$((20000 + RANDOM % 40000))
		start_bg "$TFD" --jobs jobfile --on-stop=wait --listen "127.0.0.1:$port" \
			--control="$PWD/control" >out 2>err
		TFD_PID=${BG_PIDS[-1]}
		wait_for_lines started 10 1 && break
		grep -q 'Address already in use' err || fail "tfd did not start: $(cat err)"
	done
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
	assert_equal "$code" 200
	kill -TERM "$TFD_PID"
	wait_for_lines err 5 2 || fail "no stop line: $(cat err)"
	run curl -s -w ' %{http_code}' "http://127.0.0.1:$port/readyz"
	assert_output --regexp '^stopping.* 503$'
	run "${TFDCTL:-$REPO/tfdctl}" --control="$PWD/control" run other
	assert_failure
	assert_output --partial "shutting down"
	# A reload's signal neither reloads nor stops the runs: once SIGUSR1,
	# sent after it, is answered, it has been served.
	echo '--name added --delay 0 -- touch added' >>jobfile
	kill -HUP "$TFD_PID"
	kill -USR1 "$TFD_PID"
	for ((i = 0; i < 100; i++)); do
		grep -q 'next in' err && break
		nap 0.05
	done
	grep -q 'next in' err || fail "no answer to SIGUSR1: $(cat err)"
	run grep -E 'reloaded|stopping on SIGHUP' err
	assert_output ""
	[[ ! -e added && ! -e killed ]] || fail "SIGHUP reloaded or stopped: $(cat err)"
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 15
	assert_equal "$bg_status" 143
}

@test "--on-stop=wait: a run's --timeout still holds" {
	start_tfd --on-stop=wait -d 0 --timeout 1s --json --exec "$(run_script 30)"
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 15
	[[ -s killed ]] || fail "the timeout did not end the run"
	run jq -r 'select(.event == "exit") | .timed_out' out
	assert_output true
	# A one-shot's tfd exits with its run's status, as without the signal.
	assert_equal "$bg_status" 1
}

@test "--on-stop=wait: a second signal sends it on to the runs, tfd exits 128+N" {
	start_tfd --on-stop=wait -i 1h -d 0 --log-runs --exec "$(run_script 30)"
	kill -TERM "$TFD_PID"
	wait_for_lines err 5 2 || fail "no stop line: $(cat err)"
	[[ ! -e killed ]] || fail "the first SIGTERM reached the run"
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 15
	assert_equal "$bg_status" 143
	[[ -s killed ]] || fail "the second SIGTERM did not reach the run"
	[[ ! -e ended ]] || fail "the run was not ended"
	run grep -c '^tfd: stopping on SIGTERM' err
	assert_output 2
}

@test "--on-stop=wait with nothing running exits 0 at once" {
	start_bg "$TFD" --on-stop=wait -d 0 -i 1h -f %n >out
	wait_for_lines out 5 1 || fail "no tick"
	kill -TERM "${BG_PIDS[-1]}"
	wait_bg_exit "${BG_PIDS[-1]}" 5
	assert_equal "$bg_status" 0
}

@test "--on-stop=leave: tfd exits 143 at once and the run goes on to its end" {
	start_tfd --on-stop=leave -d 0 -i 1h --log-runs --exec "$(run_script 5)"
	local run_pid
	run_pid=$(cat started)
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 5
	assert_equal "$bg_status" 143
	[[ ! -e ended ]] || fail "tfd waited for its run"
	[[ -e /proc/$run_pid ]] || fail "the run is gone with tfd"
	local ppid
	ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$run_pid/status")
	[[ $ppid != "$TFD_PID" ]] || fail "the run's parent is still tfd"
	wait_for_lines ended 15 1 || fail "the left run did not end on its own"
	[[ ! -e killed ]] || fail "the run was sent SIGTERM"
	run cat err
	assert_line --index 2 'tfd: stopping on SIGTERM: 1 run left running'
}

# The keeper that tfd left for this test's runs (its comm is tfd-keeper,
# its directory this test's): its pid, or nothing.
keeper_pid() {
	local p
	for p in $(pgrep -x tfd-keeper); do
		[[ $(readlink "/proc/$p/cwd") == "$PWD" ]] && echo "$p" && return 0
	done
	return 0
}

no_keeper() {
	[[ -z $(keeper_pid) ]]
}

# A run's command for the keeper's tests: "started" (with its pid), a
# line, then, once ./go exists (or after 60 s, when a test failed before
# making it), another line and "ended".
left_script() {
	printf '%s' "echo \$\$ >>started; echo before the stop; i=0
while [ ! -e go ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done
echo after the stop; echo done >>ended"
}

@test "--on-stop=leave: a --tag-output run's lines after the stop are read and printed by tfd's keeper, which ends after the run" {
	left_script >left.sh
	start_tfd --on-stop=leave -d 0 -i 1h --name left --tag-output --exec "sh $PWD/left.sh"
	wait_until 10 grep -q 'before the stop' out || fail "no line before the stop: $(cat out err)"
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 5
	assert_equal "$bg_status" 143
	[[ -n $(keeper_pid) ]] || fail "no tfd-keeper reads the left run's output"
	touch go
	wait_for_lines ended 15 1 || fail "the left run died at its write after the stop"
	wait_until 15 no_keeper || fail "the keeper outlived the run's end"
	run cat out
	assert_output "left[1]: before the stop
left[1]: after the stop"
}

@test "--on-stop=leave: the keeper holds no socket, timer or watch of tfd's, is in tfd's cgroup, and a new tfd takes the control socket while it reads on" {
	[[ -x ${TFDCTL:-$REPO/tfdctl} ]] || skip "no tfdctl: run make tfdctl first"
	local keeper cgroup
	left_script >left.sh
	printf '%s\n' "--name left --tag-output --delay 0 -- sh $PWD/left.sh" >jobfile
	start_tfd --jobs jobfile --on-stop=leave --control="$PWD/control"
	cgroup=$(cat "/proc/$TFD_PID/cgroup")
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 5
	keeper=$(keeper_pid)
	[[ -n $keeper ]] || fail "no tfd-keeper reads the left run's output"
	assert_equal "$(cat "/proc/$keeper/cgroup")" "$cgroup"
	run ls -l "/proc/$keeper/fd"
	refute_output --partial 'socket:'
	refute_output --partial 'timerfd'
	refute_output --partial 'inotify'
	# The restart: a second tfd on the same socket starts and answers.
	printf '%s\n' '--name next --interval 1h -- true' >jobfile
	start_bg "$TFD" --jobs jobfile --control="$PWD/control" >out2 2>err2
	wait_until 10 "${TFDCTL:-$REPO/tfdctl}" --control="$PWD/control" list >/dev/null ||
		fail "the next tfd did not take the control socket: $(cat err2)"
	run "${TFDCTL:-$REPO/tfdctl}" --control="$PWD/control" list
	assert_success
	assert_output --partial next
	[[ -n $(keeper_pid) ]] || fail "the keeper did not wait for the left run"
	touch go
	wait_for_lines ended 15 1 || fail "the left run died at its write after the stop"
	wait_until 15 no_keeper || fail "the keeper outlived the run's end"
	kill -TERM "${BG_PIDS[-1]}"
	wait_bg_exit "${BG_PIDS[-1]}" 15
}

@test "--on-stop=leave: SIGTERM to the keeper mails what it has read of the left run, and it exits" {
	cat >sendmail <<-EOF
		#!/bin/sh
		cat >"$PWD/mail.part" && mv "$PWD/mail.part" "$PWD/mail"
	EOF
	chmod +x sendmail
	left_script >left.sh
	printf 'MAILTO=root\nSENDMAIL=%s\n--name left --delay 0 -- sh %s\n' "$PWD/sendmail" \
		"$PWD/left.sh" >jobfile
	start_tfd --jobs jobfile --on-stop=leave
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 5
	local keeper
	keeper=$(keeper_pid)
	[[ -n $keeper ]] || fail "no tfd-keeper reads the left run's output"
	kill -TERM "$keeper"
	wait_for_lines mail 15 1 || fail "what the keeper read was not mailed: $(cat out err)"
	wait_until 15 no_keeper || fail "the keeper did not exit on SIGTERM"
	run cat mail
	assert_line "before the stop"
	refute_line "after the stop"
	touch go
}

@test "--on-stop=leave as tfd-cron.service runs it: a run that writes after the restart goes on to its end, and its output is mailed, as under cron" {
	# SPEC, "Stopping, three ways": the packaged unit leaves its runs "so
	# an upgrade or a restart kills no job", as Debian's cron, whose run
	# keeps its reader (cron's own child) and is mailed at its end. Under
	# a host's cron every run's output is mailed (no MAILTO: to its user),
	# so every run reads through tfd's pipe. Found by bench/cron-compare.sh.
	[[ $(id -u) == 0 ]] || fail "this test needs root (CI runs it as root)"
	cat >sendmail <<-EOF
		#!/bin/sh
		cat >"$PWD/mail.part" && mv "$PWD/mail.part" "$PWD/mail"
	EOF
	chmod +x sendmail
	# The run prints, waits for tfd to be gone, prints again and ends; the
	# line's shell writes how the run ended.
	cat >run.sh <<-EOF
		echo before the stop
		echo \$\$ >"$PWD/started"
		while [ ! -e "$PWD/go" ]; do sleep 0.05; done
		echo after the stop
		echo done >"$PWD/ended"
	EOF
	printf 'SENDMAIL=%s\n@reboot root sh %s; echo "exit $?" >%s\n' \
		"$PWD/sendmail" "$PWD/run.sh" "$PWD/status" >jobfile
	start_tfd --jobs jobfile --system-crontab --on-stop=leave
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 5
	assert_equal "$bg_status" 143
	touch go
	wait_for_lines status 15 1 || fail "the left run did not end"
	[[ -e ended ]] || fail "the run died at its first write after the stop ($(cat status)): the restart killed it"
	wait_for_lines mail 15 2 || fail "the run's output was not mailed: $(cat out err)"
	run cat mail
	assert_line "before the stop"
	assert_line "after the stop"
}

@test "--on-stop and SIGHUP: every other stopping signal forwards" {
	start_bg env --default-signal=HUP "$TFD" --on-stop=leave -d 0 -i 1h --exec "$(run_script 30)" \
		>out 2>err
	TFD_PID=${BG_PIDS[-1]}
	wait_for_lines started 10 1 || fail "the run did not start"
	kill -HUP "$TFD_PID"
	wait_bg_exit "$TFD_PID" 15
	assert_equal "$bg_status" 129
	[[ ! -e ended ]] || fail "the run was left"
}

@test "--kill-after: SIGKILL that long after the stop's SIGTERM" {
	start_bg "$TFD" --kill-after 1s -d 0 --exec \
		"trap '' TERM; echo \$\$ >started; while :; do sleep 0.1; done" >out 2>err
	TFD_PID=${BG_PIDS[-1]}
	wait_for_lines started 10 1 || fail "the run did not start"
	local start
	start=$(now_ns)
	kill -TERM "$TFD_PID"
	wait_bg_exit "$TFD_PID" 10
	assert_equal "$bg_status" 143
	local ms
	ms=$(ms_since "$start")
	# Not the default's 5 s.
	((ms >= 900 && ms < 4500)) || fail "tfd exited after $ms ms, not about 1000"
}

@test "--kill-after: also after --timeout's SIGTERM" {
	run --separate-stderr timeout 20 "$TFD" --kill-after 500ms --timeout 200ms -d 0 --json \
		--exec "trap '' TERM; while :; do sleep 0.1; done"
	local signal duration
	signal=$(jq -r 'select(.event == "exit") | .signal' <<<"$output")
	duration=$(jq -r 'select(.event == "exit") | .duration' <<<"$output")
	assert_equal "$signal" SIGKILL
	local ns
	ns=$(to_ns "$duration")
	((ns >= 650000000 && ns < 4000000000)) || fail "killed after $duration s, not about 0.7"
}

@test "--on-stop and --kill-after: bad values are usage errors" {
	assert_usage_error "--on-stop 'later': expected forward, wait or leave" \
		--on-stop later -i 1s
	assert_usage_error "--kill-after: invalid duration '5x'" --kill-after 5x -i 1s
	assert_usage_error "--kill-after '0': must be longer than 0" --kill-after 0 -i 1s
}

@test "--on-stop=leave with --fleet is a usage error" {
	assert_usage_error "--on-stop=leave cannot be given with --fleet" --on-stop=leave \
		--fleet 'host=/nonexistent' --cron '* * * * *' --dry-run=1
}

@test "the packaged units: tfd-cron leaves its runs (KillMode=process), tfd@ ends them" {
	run grep -E '^(KillMode|ExecStart)=' "$REPO/contrib/systemd/tfd-cron.service"
	assert_line 'KillMode=process'
	assert_line --regexp '^ExecStart=/usr/bin/tfd .* --on-stop=leave( |$)'
	run grep -E '^(KillMode|ExecStart)=' "$REPO/contrib/systemd/tfd@.service"
	assert_line 'KillMode=mixed'
	refute_line --partial -- '--on-stop'
}
