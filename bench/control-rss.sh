#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tfd's RSS after many control requests (issue 30's "RSS after 100,000
# control requests"): each `pause` is a "control" event on tfd's stdout.
# Two cases: stdout read as it comes (/dev/null), and stdout stuck (a
# FIFO whose reader never reads), where the events must not queue without
# end. TFD is the build measured, OLD (optional) the build before the
# change, measured in the same run; N requests (default 100,000), sent
# pipelined on one connection by socat.
# Prints one markdown row per case and build.
set -euo pipefail

TFD=${TFD:-./tfd}
OLD=${OLD:-}
N=${N:-100000}
dir=$(mktemp -d /tmp/tfd-bench-rss.XXXXXX)
pids=()
trap 'kill -KILL "${pids[@]}" 2>/dev/null; rm -rf "$dir"' EXIT

echo '--name a --interval 1h -- true' >"$dir/jobs"
mkdir -m 755 "$dir/ctl"

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# ask N: N pause requests pipelined on one connection, answers dropped.
ask() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "{\"command\":\"pause\",\"job\":\"a\"}" }' |
		socat -t30 - "UNIX-CONNECT:$dir/ctl/control" >/dev/null
}

wait_socket() {
	local i
	for ((i = 0; i < 200; i++)); do
		[[ -S $dir/ctl/control ]] && return 0
		sleep 0.05
	done
	echo "tfd did not start" >&2
	exit 1
}

# measure BUILD STUCK: "RSS-before RSS-after" in kB around N requests,
# after 1,000 requests that fill what the pipe itself holds.
measure() {
	local build=$1 stuck=$2 pid reader='' before after
	rm -f "$dir/out" "$dir/ctl/control"
	if [[ $stuck == yes ]]; then
		mkfifo "$dir/out"
		# Opens the FIFO and never reads it.
		bash -c 'exec 5<"$1"; sleep 3600' _ "$dir/out" &
		reader=$!
		pids+=("$reader")
		"$build" --jobs="$dir/jobs" --json --control="$dir/ctl/control" >"$dir/out" 2>/dev/null &
	else
		"$build" --jobs="$dir/jobs" --json --control="$dir/ctl/control" >/dev/null 2>&1 &
	fi
	pid=$!
	pids+=("$pid")
	wait_socket
	ask 1000
	before=$(rss "$pid")
	ask "$N"
	after=$(rss "$pid")
	kill -KILL "$pid" ${reader:+"$reader"}
	wait "$pid" 2>/dev/null || true
	echo "$before $after"
}

row() {
	local name=$1 stuck=$2 build=$3 b a
	read -r b a < <(measure "$build" "$stuck")
	echo "| RSS after $N control requests, stdout $name ($build; kB, before → after) | $b → $a | +$((a - b)) |"
}

echo "| metric | RSS | growth |"
echo "|---|---|---|"
for build in "$TFD" ${OLD:+"$OLD"}; do
	row "read (/dev/null)" no "$build"
	row "stuck (a FIFO never read)" yes "$build"
done
