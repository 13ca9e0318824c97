#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/suite-time.sh: how long the test suite takes, quiet and loaded.
# Runs SUITE_CMD (default `make -j2 check`) once for each word of
# SUITE_RUNS (default "quiet loaded"): "quiet" alone, "loaded" beside
# SUITE_BUSY (default 2) busy loops of its own, as a machine doing other
# work would be. Prints a markdown table, one row a run: wall time, exit
# status, the bats tests that failed ("not ok" lines) and the highest
# 1-minute load average seen (sampled every 5 s); writes it to
# SUITE_RESULTS (default bench/results-suite.md) and each run's output to
# SUITE_LOGS/suite-N.log (default bench/build, which `make clean` removes:
# a SUITE_CMD that cleans first wants SUITE_LOGS elsewhere). Every busy loop it starts is ended when the run
# ends, even when it is interrupted.
#
#   bash bench/suite-time.sh                          # make bench-suite
#   SUITE_CMD='TFD=$PWD/tfd bats tests/bats/50-runner.bats' bash bench/suite-time.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

SUITE_CMD=${SUITE_CMD:-make -j2 check}
SUITE_RUNS=${SUITE_RUNS:-quiet loaded}
SUITE_BUSY=${SUITE_BUSY:-2}
SUITE_RESULTS=${SUITE_RESULTS:-bench/results-suite.md}
BUILD=${SUITE_LOGS:-bench/build}
mkdir -p "$BUILD"

busy_pids=()
sampler=

stop_busy() {
	((${#busy_pids[@]})) || return 0
	kill "${busy_pids[@]}" 2>/dev/null
	wait "${busy_pids[@]}" 2>/dev/null
	busy_pids=()
}

stop_sampler() {
	[[ -n $sampler ]] || return 0
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	sampler=
}

trap 'stop_busy; stop_sampler' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts N processes that spin on a core each, until stop_busy.
start_busy() {
	local i
	for ((i = 0; i < $1; i++)); do
		bash -c 'while :; do :; done' &
		busy_pids+=("$!")
	done
}

# Writes the 1-minute load average to file $1 every 5 s, one a line,
# until stop_sampler.
start_sampler() {
	(while :; do
		cut -d' ' -f1 /proc/loadavg
		sleep 5
	done) >"$1" &
	sampler=$!
}

# One row of a markdown table, a cell for each argument.
row() {
	local out='|' cell
	for cell; do out+=" $cell |"; done
	echo "$out"
}

table=$(mktemp)
{
	echo "Suite: \`$SUITE_CMD\` on $(nproc) cores, $(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo
	row run "busy loops" "wall (s)" status "tests failed" "max load"
	row --- --- --- --- --- ---
} >"$table"
cat "$table"

n=0
for kind in $SUITE_RUNS; do
	n=$((n + 1))
	busy=0
	case $kind in
	quiet) ;;
	loaded) busy=$SUITE_BUSY ;;
	*)
		echo "suite-time: unknown run '$kind' (quiet or loaded)" >&2
		exit 2
		;;
	esac
	mkdir -p "$BUILD"
	log=$BUILD/suite-$n.log
	loads=$BUILD/suite-$n.load
	start_busy "$busy"
	start_sampler "$loads"
	start=$(date +%s%N)
	bash -c "$SUITE_CMD" >"$log" 2>&1
	status=$?
	end=$(date +%s%N)
	stop_sampler
	stop_busy
	failed=$(grep -c '^not ok' "$log")
	names=$(grep '^not ok' "$log" | sed 's/^not ok [0-9]* //' | head -5 | paste -sd ';' -)
	maxload=$(sort -g "$loads" | tail -1)
	line=$(row "$n $kind" "$busy" "$(awk -v ns=$((end - start)) 'BEGIN { printf "%.0f", ns / 1e9 }')" \
		"$status" "$failed${names:+: $names}" "${maxload:--}")
	echo "$line"
	echo "$line" >>"$table"
done
cp "$table" "$SUITE_RESULTS"
rm -f "$table"
echo
echo "suite-time: the table is in $SUITE_RESULTS, each run's output in $BUILD/suite-N.log"
