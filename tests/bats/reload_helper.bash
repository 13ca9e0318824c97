# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by the bats files that reload a jobs file (55-jobs.bats,
# 56-reload.bats, the 59-host-cron files): saving as an editor does, a job
# that says the watches are set, and the "reload" events of a --json stream.

# A job that runs at once: its file (up, in the current directory) says
# the watches are set, as they are before the first run; wait_up waits
# for it (up to 20 s), and fails with tfd's stderr (err) if it never comes.
# shellcheck disable=SC2034 # the test files use it
UP='--name up --delay 0 -- /usr/bin/touch up'

wait_up() {
	local i
	for ((i = 0; i < 400; i++)); do
		[[ -e up ]] && return 0
		nap 0.05
	done
	fail "tfd did not start its jobs: $(cat err 2>/dev/null)"
}

# Waits up to $2 seconds (default 20) until process $1 (a tfd) watches at
# least $3 paths (default 1; an inotify watch is a line "inotify wd:" in
# its /proc/PID/fdinfo): a change made before then would go unseen, and
# on a loaded machine tfd may take seconds to get there.
wait_for_watch() {
	local i n
	for ((i = 0; i < ${2:-20} * 20; i++)); do
		n=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:') || true
		((n >= ${3:-1})) && return 0
		[[ -d /proc/$1 ]] || fail "process $1 exited: $(cat err 2>/dev/null)"
		nap 0.05
	done
	fail "process $1 watches $n paths after ${2:-20}s, not ${3:-1}: $(cat err 2>/dev/null)"
}

# Writes stdin to file $1 the way an editor saves: a new file renamed over
# the old one, so that no reader ever sees half of it.
save() {
	cat >"$1.tmp" && mv "$1.tmp" "$1"
}

# Polls up to $3 seconds (default 20) until file $1 has a line matching
# the extended regex $2.
wait_for_match() {
	local i
	for ((i = 0; i < ${3:-20} * 20; i++)); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		nap 0.05
	done
	fail "no line matching '$2' in $1 after ${3:-20}s: $(cat "$1" 2>/dev/null)"
}

# The count of "exit" events of job $2 in the --json file $1: its runs
# ended so far.
job_exits() {
	jq -s --arg j "$2" '[.[] | select(.event == "exit" and .job == $j)] | length' "$1"
}

# True when job $2 of the --json file $1 has more than $3 runs ended: the
# jobs run on (wait_until polls it).
job_exits_above() {
	(($(job_exits "$1" "$2") > $3))
}

# The "reload" events of the --json file $1, one a line: "ok ADDED REMOVED
# KEPT" or "error MESSAGE".
reloads() {
	jq -r 'select(.event == "reload") |
		if .ok then "ok \(.added) \(.removed) \(.kept)" else "error \(.error)" end' "$1"
}

# Polls up to $3 seconds (default 20) until the --json file $1 holds $2
# reload events.
wait_for_reloads() {
	local i
	for ((i = 0; i < ${3:-20} * 20; i++)); do
		(($(reloads "$1" | wc -l) >= $2)) && return 0
		nap 0.05
	done
	fail "fewer than $2 reload events in $1 after ${3:-20}s: $(reloads "$1")"
}

# Asserts that the --json file $1 holds exactly the reload events given
# after it, one argument each, once tfd has had $RELOAD_QUIET seconds to
# make any other (a debounced save settles in 0.1 s).
RELOAD_QUIET=0.5
assert_reloads() {
	local file=$1
	shift
	sleep "$RELOAD_QUIET"
	run reloads "$file"
	local IFS=$'\n'
	assert_output "$*"
}
