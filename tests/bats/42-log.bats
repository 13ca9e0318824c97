#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# The operator's log: a line on stderr when tfd starts, reloads and stops
# (with jobs files), a line per run's start and end (host modes,
# --log-runs); the journal's level prefix when stderr is the journal;
# "time" on every JSON event. A single job on the command line stays quiet.

load test_helper
load reload_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	VERSION=$(cat "$REPO/VERSION")
	RFC3339_US='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z'
}

@test "--jobs: a line at start, one at each reload, one at the stop" {
	printf '%s\n' "$UP" '--name a --interval 1h -- true' >jobfile
	start_bg "$TFD" --jobs jobfile 2>err
	wait_up
	printf '%s\n' "$UP" '--name a --interval 1h -- true' '--name b --interval 1h -- true' | save jobfile
	wait_for_match err '^tfd: reloaded'
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 10
	assert_equal "$bg_status" 143
	run cat err
	assert_line --index 0 "tfd $VERSION: 2 jobs from 1 file"
	assert_line --index 1 'tfd: reloaded jobfile: 1 added, 0 removed, 2 kept'
	assert_line --index 2 'tfd: stopping on SIGTERM'
	assert_equal "${#lines[@]}" 3
}

@test "a directory of jobs files: the start line counts its files" {
	mkdir d
	echo '--name a --interval 1h -- true' >d/one
	echo '--name b --interval 1h -- true' >d/two
	echo '--name c --interval 1h -- true' >>d/two
	start_bg "$TFD" --jobs d 2>err
	wait_for_lines err 5 1 || fail "no start line"
	run cat err
	assert_output "tfd $VERSION: 3 jobs from 2 files"
}

@test "--log-runs: a line per run's start and end, failures as warnings" {
	printf '%s\n' '--name ok --delay 0 -- true' '--name bad --delay 0 -- sh -c "exit 3"' >jobfile
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile --log-runs
	assert_success
	assert_equal "${stderr_lines[0]}" "tfd $VERSION: 2 jobs from 1 file"
	[[ $stderr =~ (^|$'\n')"tfd: ok: run 1 (pid "[0-9]+"): started"($'\n'|$) ]] || fail "$stderr"
	[[ $stderr =~ (^|$'\n')"tfd: bad: run 1 (pid "[0-9]+"): started"($'\n'|$) ]] || fail "$stderr"
	[[ $stderr =~ (^|$'\n')"tfd: ok: run 1: exited 0 after "[0-9.]+"s"($'\n'|$) ]] || fail "$stderr"
	[[ $stderr =~ (^|$'\n')"tfd: bad: run 1: exited 3 after "[0-9.]+"s"($'\n'|$) ]] || fail "$stderr"
	assert_equal "${#stderr_lines[@]}" 5
	# A single job of the command line logs with --log-runs only: without
	# it, it stays quiet, a stop too.
	run --separate-stderr timeout 10 "$TFD" -d 0 --log-runs --exec true
	assert_success
	assert_equal "${stderr_lines[0]}" "tfd $VERSION: 1 job from the command line"
	[[ ${stderr_lines[2]} =~ ^"tfd: true: run 1: exited 0 after "[0-9.]+s$ ]] || fail "$stderr"
	run --separate-stderr timeout 10 "$TFD" -d 0 --exec true
	assert_success
	assert_equal "$stderr" ""
	start_bg "$TFD" -i 50ms -f %n >out 2>err
	wait_for_lines out 5 1 || fail "no tick"
	kill -TERM "${BG_PIDS[-1]}"
	wait_bg_exit "${BG_PIDS[-1]}" 10
	assert_equal "$bg_status" 143
	assert_equal "$(cat err)" ""
}

@test "a host's cron (--system-crontab) logs every run, with its user" {
	[[ $(id -u) == 0 ]] || skip "a system crontab's lines run as their user: needs root"
	printf '%s\n' '@reboot root echo hi >/dev/null' >system.tab
	chmod 644 system.tab
	# A host's cron never ends by itself: stopped once the run's end is logged.
	host_cron_until 'grep -q ": run 1: exited " "$HOST_ERR"' "$TFD" --jobs system.tab --system-crontab
	assert_equal "$status" 143
	stderr=$(<"$HOST_ERR")
	[[ $stderr =~ (^|$'\n')"tfd: echo: run 1 (pid "[0-9]+") as root: started"($'\n'|$) ]] ||
		[[ $stderr =~ (^|$'\n')"tfd: "[^:]+": run 1 (pid "[0-9]+") as root: started"($'\n'|$) ]] ||
		fail "$stderr"
	[[ $stderr =~ ": run 1: exited 0 after "[0-9.]+"s"($'\n'|$) ]] || fail "$stderr"
}

@test "--quiet and --json leave the log out" {
	printf '%s\n' '--name ok --delay 0 -- true' >jobfile
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile --log-runs --quiet
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile --log-runs --json
	assert_success
	assert_equal "$stderr" ""
}

# JOURNAL_STREAM names stderr's file when systemd connects it to the
# journal; here stderr is a new file "err", named so. Runs "$@" with it.
run_journal() {
	local stream
	: >err
	stream=$(stat -c %d:%i err)
	JOURNAL_STREAM=$stream timeout 10 "$@" 2>>err >/dev/null || true
}

@test "stderr is the journal: each line begins with its level" {
	printf '%s\n' '--name ok --delay 0 -- true' '--name bad --delay 0 -- false' >jobfile
	run_journal "$TFD" --jobs jobfile
	run cat err
	assert_line --index 0 "<6>tfd $VERSION: 2 jobs from 1 file"
	assert_line --regexp '^<4>tfd: bad: run 1 \(pid [0-9]+\) exited with status 1$'
	run_journal "$TFD" --intreval 1s
	run cat err
	assert_line --index 0 "<3>tfd: --intreval: unknown option; did you mean --interval?"
	assert_line --index 1 "<3>Try 'tfd --help'."
	run_journal env TZ=No/Where "$TFD" -d 0 -f %n
	run cat err
	assert_line --index 0 --regexp "^<4>tfd: warning: TZ: "
}

@test "JOURNAL_STREAM naming another file: no prefix" {
	printf '%s\n' '--name ok --delay 0 -- true' >jobfile
	: >other
	run --separate-stderr env JOURNAL_STREAM="$(stat -c %d:%i other)" timeout 10 "$TFD" --jobs jobfile
	assert_equal "${stderr_lines[0]}" "tfd $VERSION: 1 job from 1 file"
}

@test "--json: every event carries \"time\", the tick's its wake-up" {
	printf '%s\n' "$UP" '--name out --delay 0 -- sh -c "echo hi; exit 2"' \
		'--name keep --interval 1h -- true' >jobfile
	start_bg "$TFD" --jobs jobfile --json --tag-output >out 2>err
	wait_up
	wait_for_match out '"event":"exit","job":"out"'
	kill -HUP "${BG_PIDS[0]}"
	wait_for_match out '"event":"reload"'
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 10
	run jq -r '.event' out
	assert_line tick
	assert_line exit
	assert_line output
	assert_line reload
	run jq -r 'select((.time | type) != "string") | .event' out
	assert_output ""
	local line
	while read -r line; do
		[[ $line =~ ^$RFC3339_US$ ]] || fail "time is not RFC 3339 with microseconds: $line"
	done < <(jq -r .time out)
	# The tick's time is its wake-up, as %t: it equals its "unix".
	run jq -r 'select(.event == "tick") | [.time, (.unix | floor | todate)] | @tsv' out
	local t u
	while IFS=$'\t' read -r t u; do
		assert_equal "${t%.*}Z" "$u"
	done <<<"$output"
}
