#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/fleet-drain.sh: a rolling restart in the middle of a minute's
# claims (issue 31 item 2, issue 35 item 3), against a PostgreSQL 15 of
# its own (tests/bats/pg_helper.bash: fsync off, a Unix socket; stopped at
# the end; needs root and Debian's postgresql-15). Three replicas run
# DRAIN_JOBS `* * * * *` lines, each run 1 s long (bench/fleet_stamp);
# the first replica to start DRAIN_AFTER runs of the minute gets SIGTERM
# (the report names it).
# Each --on-stop of DRAIN_HOWS (default: wait, then forward as the
# reference) runs a minute of its own, with every replica under it; with
# DRAIN_BASE (a tfd binary, e.g. one built from prep) wait is run with it
# too. Figures: the minute's runs (the runs' own lines), doubled, missed,
# the rows' states, and the stopped one's: claims won (its --metrics), runs, started
# after the signal, killed, its exit status and seconds from the signal
# to its exit.
#
#   bash bench/fleet-drain.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DRAIN_JOBS=${DRAIN_JOBS:-3000}
DRAIN_AFTER=${DRAIN_AFTER:-20}
DRAIN_HOWS=${DRAIN_HOWS:-wait forward}
DRAIN_BASE=${DRAIN_BASE:-}
# How long the stopped replica may take to exit, and the others to run the minute.
DRAIN_EXIT_S=${DRAIN_EXIT_S:-120}
TFD=${TFD:-./tfd}

# shellcheck source=tests/bats/pg_helper.bash
. tests/bats/pg_helper.bash

BENCH_TMP=$(mktemp -d /tmp/tfd-drain-bench.XXXXXX)
BATS_FILE_TMPDIR=$BENCH_TMP
PIDS=()
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	pg_stop
	if [[ -n ${DRAIN_KEEP:-} ]]; then
		echo "kept: $BENCH_TMP" >&2
	else
		rm -rf "$BENCH_TMP"
	fi
}
trap cleanup EXIT
cc -O2 -o "$BENCH_TMP/fleet_stamp" bench/fleet_stamp.c
pg_start >/dev/null

# Seconds (fractions allowed) from now to T, at least 0.
sleep_until() {
	sleep "$(awk -v t="$1" -v n="$EPOCHREALTIME" 'BEGIN { d = t - n; print (d > 0) ? d : 0 }')"
}

# The first whole minute at least 8 s away.
next_minute() {
	local now
	now=$(date +%s)
	printf '%d' $(((now + 8) / 60 * 60 + 60))
}

# waits PID SECONDS: true once PID is gone (within SECONDS).
gone_within() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# drain_one HOW BIN: one minute of 3 replicas of BIN under --on-stop=HOW.
drain_one() {
	local how=$1 bin=$2 db dir conn minute r s t_sig t_exit status=running runs won
	local -A pid=()
	db=drain_${how}_$RANDOM
	db=${db//[^a-z0-9_]/_}
	dir=$BENCH_TMP/$db
	mkdir -p "$dir"
	pg_sql "CREATE DATABASE $db" postgres
	conn="host=$PG_DIR port=$PG_PORT dbname=$db user=postgres"
	for ((r = 0; r < DRAIN_JOBS; r++)); do
		printf '* * * * * %s %s 1\n' "$BENCH_TMP/fleet_stamp" "$dir/runs"
	done >"$dir/jobs"
	: >"$dir/runs"
	minute=$(next_minute)
	for r in r1 r2 r3; do
		"$bin" --fleet "$conn" --replica "$r" --json --jobs "$dir/jobs" --on-stop="$how" \
			--metrics "$dir/metrics.$r" >"$dir/json.$r" 2>"$dir/err.$r" &
		pid[$r]=$!
		PIDS+=("$!")
	done
	sleep_until "$minute"
	# The replica stopped: the first to start DRAIN_AFTER runs (the claims
	# need not share a burst evenly; one may win none).
	until s=$(awk -v n="$DRAIN_AFTER" '++c[$3] >= n { print $3; exit }' "$dir/runs") && [[ -n $s ]]; do
		sleep 0.01
		awk -v t="$minute" -v n="$EPOCHREALTIME" 'BEGIN { exit !(n > t + 30) }' &&
			{ echo "no replica ran $DRAIN_AFTER runs by 30 s after the minute: $(cat "$dir"/err.*)" >&2; return 1; }
	done
	kill -TERM "${pid[$s]}"
	t_sig=$EPOCHREALTIME
	if gone_within "${pid[$s]}" "$DRAIN_EXIT_S"; then
		t_exit=$EPOCHREALTIME
		status=0
		wait "${pid[$s]}" || status=$?
	fi
	# The others run the minute's elapses, 1 s each: every one has its row
	# and none is running (a run that a forwarded signal ended may have
	# written no line of its own), within DRAIN_EXIT_S.
	for ((r = 0; r < DRAIN_EXIT_S * 4; r++)); do
		[[ $(pg_sql "SELECT count(*) >= $DRAIN_JOBS AND count(*) FILTER (WHERE state = 'running') = 0
			FROM tfd_runs WHERE job <> '' AND scheduled = to_timestamp($minute)" "$db") == t ]] && break
		sleep 0.25
	done
	for r in r1 r2 r3; do
		kill -TERM "${pid[$r]}" 2>/dev/null || true
	done
	for r in r1 r2 r3; do
		[[ $r == "$s" ]] || wait "${pid[$r]}" || true
	done
	runs=$(awk -v t="$minute" 'int($2) == t' "$dir/runs" | wc -l)
	won=$(awk '/^tfd_fleet_claims_total\{result="won"\}/ { print $2 }' "$dir/metrics.$s" 2>/dev/null)
	echo "--on-stop=$how ($bin), $DRAIN_JOBS jobs at $(date -d "@$minute" +%T), SIGTERM to $s, the first to have started $DRAIN_AFTER runs:"
	echo "  runs $runs (by replica: $(awk -v t="$minute" 'int($2) == t { n[$3]++ } END { for (r in n) printf "%s %d ", r, n[r] }' "$dir/runs")), doubled $(awk -v t="$minute" 'int($2) == t { print $1 }' "$dir/runs" | sort | uniq -d | wc -l), missed $((DRAIN_JOBS - $(awk -v t="$minute" 'int($2) == t { print $1 }' "$dir/runs" | sort -u | wc -l)))"
	echo "  rows: $(pg_sql "SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM tfd_runs WHERE job <> '' AND scheduled = to_timestamp($minute) GROUP BY state ORDER BY state) s" "$db"); $s's: $(pg_sql "SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM tfd_runs WHERE replica = '$s' AND scheduled = to_timestamp($minute) GROUP BY state ORDER BY state) s" "$db")"
	echo "  $s: claims won ${won:-n/a} (its --metrics at exit), runs $(awk -v r="$s" '$3 == r' "$dir/runs" | wc -l), of which started after the signal $(awk -v r="$s" -v s="$t_sig" '$3 == r && $2 + $4 / 1e6 > s' "$dir/runs" | wc -l); tick lines run $(grep -c '"action":"run"' "$dir/json.$s" || true), elsewhere $(grep -c '"action":"elsewhere"' "$dir/json.$s" || true), missed $(grep -c '"action":"missed"' "$dir/json.$s" || true)"
	if [[ $status == running ]]; then
		echo "  $s: still running ${DRAIN_EXIT_S} s after the signal (killed)"
	else
		echo "  $s: exit status $status, $(awk -v a="$t_sig" -v b="$t_exit" 'BEGIN { printf "%.2f", b - a }') s after the signal"
	fi
}

for how in $DRAIN_HOWS; do
	drain_one "$how" "$TFD"
done
if [[ -n $DRAIN_BASE ]]; then
	drain_one wait "$DRAIN_BASE"
fi
