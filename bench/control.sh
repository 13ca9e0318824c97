#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/control.sh: the control socket with 10,000 jobs (issue 25): the
# round trip of `tfdctl list` (the table, and --json) and of `tfdctl status`,
# the answer's size, and tfd's peak RSS with and without --control once
# armed. Prints rows for BENCHMARKS.md. Usage: TFD=./tfd TFDCTL=./tfdctl
# bash bench/control.sh
set -euo pipefail
TFD=${TFD:-./tfd}
TFDCTL=${TFDCTL:-./tfdctl}
N=${N:-10000}
ROUNDS=${ROUNDS:-21}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT

# N jobs that do not elapse during the bench, with names of a real length.
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	printf "--name backup-host-%05d --interval %dh -- /bin/true\n", i, 2 + i % 20 }' >"$dir/jobs"

# start_tfd [ARG...]: tfd on the jobs, its pid in $pid, once armed.
start_tfd() {
	"$TFD" --jobs="$dir/jobs" "$@" >/dev/null 2>&1 &
	pid=$!
	local i
	for ((i = 0; i < 200; i++)); do
		[[ $(awk '/^State:/ { print $2 }' "/proc/$pid/status") == S ]] && [[ $# -eq 0 || -S $dir/c ]] &&
			sleep 0.5 && return 0
		sleep 0.05
	done
	echo "tfd did not start" >&2
	exit 1
}

hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
# cpu_ticks PID: its user and system time, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# ms ARG...: the round trip of one tfdctl call, in ms.
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$TFDCTL" --control="$dir/c" "$@" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

# stats ARG...: "p50 max" over ROUNDS calls, in ms with one decimal.
stats() {
	local i
	for ((i = 0; i < ROUNDS; i++)); do ms "$@"; done | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.1f %.1f\n", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
}

start_tfd
rss_without=$(hwm "$pid")
kill "$pid"
wait "$pid" 2>/dev/null || true

start_tfd --control="$dir/c"
rss_with=$(hwm "$pid")
ticks0=$(cpu_ticks "$pid")
read -r list50 listmax < <(stats list)
ticks1=$(cpu_ticks "$pid")
# tfd's own CPU per answer, made in slices (src/loop/slices.h): a part of at
# most 32 KiB, or the sort, while the budget of 0.3 ms a millisecond lasts.
per_list=$(awk -v t="$((ticks1 - ticks0))" -v hz="$(getconf CLK_TCK)" -v n="$ROUNDS" \
	'BEGIN { printf "%.1f", t * 1000 / hz / n }')
read -r json50 jsonmax < <(stats --json list)
read -r st50 stmax < <(stats status backup-host-04242)
bytes=$("$TFDCTL" --control="$dir/c" --json list | wc -c)
rss_after=$(hwm "$pid")

echo "| tfdctl list round trip, $N jobs (ms, p50 of $ROUNDS; max $listmax) | $list50 | ≤ 100 ms |"
echo "| tfd's CPU per list answer, $N jobs (ms, mean of $ROUNDS), made in slices within 0.3 ms of each millisecond | $per_list | report |"
echo "| tfdctl --json list round trip (ms, p50 of $ROUNDS; max $jsonmax; answer $bytes bytes) | $json50 | ≤ 100 ms |"
echo "| tfdctl status JOB round trip (ms, p50 of $ROUNDS; max $stmax) | $st50 | report |"
echo "| peak RSS once armed, VmHWM (kB): without --control $rss_without, with $rss_with, after the lists $rss_after | $rss_with | ≤ 1.02× without |"
