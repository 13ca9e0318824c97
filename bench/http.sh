#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/http.sh: --listen's GET /metrics with JOBS_N jobs (default 10,000)
# against node_exporter's textfile collector reading the --metrics file of
# the same tfd (the way to scrape tfd before --listen): the scrape's time
# (curl's time_total, median of SCRAPES) and size; and a 10 ms ticker's
# lateness in that tfd while /metrics is scraped every 100 ms, against the
# same ticker left alone. Prints a markdown table.
#
# Usage: bash bench/http.sh (make bench-http). TFD=the binary (default
# ./tfd), JOBS_N, SCRAPES (default 20), PORT_TFD and PORT_NODE (default
# 19190 and 19191, on 127.0.0.1), NODE_EXPORTER (default Debian's
# prometheus-node-exporter).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

TFD=${TFD:-./tfd}
JOBS_N=${JOBS_N:-10000}
SCRAPES=${SCRAPES:-20}
PORT_TFD=${PORT_TFD:-19190}
PORT_NODE=${PORT_NODE:-19191}
NODE_EXPORTER=${NODE_EXPORTER:-prometheus-node-exporter}
TICK_SECONDS=5
DIR=$(mktemp -d /tmp/tfd-bench-http.XXXXXX)
PIDS=()

say() { printf 'bench-http: %s\n' "$*" >&2; }

cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rm -rf "$DIR"
}
trap cleanup EXIT

median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Waits for URL to answer 200.
wait_url() {
	for _ in $(seq 200); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.05
	done
	say "no answer at $1"
	exit 1
}

# Milliseconds of SCRAPES GETs of URL, one a line in $DIR/ms; the last
# answer in $DIR/body.
scrape_ms() {
	local url=$1
	for _ in $(seq "$SCRAPES"); do
		curl -s -o "$DIR/body" -w '%{time_total}\n' "$url" | awk '{ printf "%.2f\n", $1 * 1000 }'
	done >"$DIR/ms"
}

# p50, p99 and max of the ticker's late_us in FILE.
lateness() {
	grep '"job":"tick"' "$1" | grep '"event":"tick"' |
		sed 's/.*"late_us":\([0-9]*\).*/\1/' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a n/a n/a 0"; exit }
			printf "%d %d %d %d\n", v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.5)], v[NR], NR }'
}

jobs=$DIR/jobs
awk -v n="$JOBS_N" 'BEGIN { for (i = 0; i < n; i++)
	printf "--name job%05d --cron \047%d %d * * *\047 -- /bin/true\n", i, i % 60, (i / 60) % 24 }' >"$jobs"
mkdir "$DIR/textfile"

say "tfd: $JOBS_N jobs, --listen 127.0.0.1:$PORT_TFD, --metrics in the textfile directory"
"$TFD" --jobs "$jobs" --listen "127.0.0.1:$PORT_TFD" --metrics "$DIR/textfile/tfd.prom" -q &
PIDS+=("$!")
wait_url "http://127.0.0.1:$PORT_TFD/readyz"
"$NODE_EXPORTER" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$DIR/textfile" \
	--web.listen-address="127.0.0.1:$PORT_NODE" 2>"$DIR/node.log" &
PIDS+=("$!")
wait_url "http://127.0.0.1:$PORT_NODE/metrics"

say "scraping each $SCRAPES times"
scrape_ms "http://127.0.0.1:$PORT_TFD/metrics"
mapfile -t tfd_ms <"$DIR/ms"
tfd_size=$(wc -c <"$DIR/body")
tfd_samples=$(grep -vc '^#' "$DIR/body")
scrape_ms "http://127.0.0.1:$PORT_NODE/metrics"
mapfile -t node_ms <"$DIR/ms"
node_size=$(wc -c <"$DIR/body")
node_samples=$(grep -c '^tfd_' "$DIR/body")
kill "${PIDS[@]}"
wait "${PIDS[@]}" 2>/dev/null
PIDS=()

# The ticker: alone, then while /metrics is scraped every 100 ms.
echo '--name tick --interval 10ms -- /bin/true' >>"$jobs"
for mode in alone scraped; do
	say "a 10 ms ticker beside $JOBS_N jobs for $TICK_SECONDS s, $mode"
	# Appending: the file is emptied once the jobs are loaded.
	"$TFD" --jobs "$jobs" --listen "127.0.0.1:$PORT_TFD" --json >>"$DIR/$mode.out" &
	pid=$!
	PIDS+=("$pid")
	wait_url "http://127.0.0.1:$PORT_TFD/readyz"
	: >"$DIR/$mode.out"
	end=$((SECONDS + TICK_SECONDS))
	while ((SECONDS < end)); do
		[[ $mode == scraped ]] && curl -s -o /dev/null "http://127.0.0.1:$PORT_TFD/metrics"
		sleep 0.1
	done
	kill "$pid"
	wait "$pid" 2>/dev/null
	PIDS=()
	read -r p50 p99 max n < <(lateness "$DIR/$mode.out")
	eval "late_$mode=(\"$p50\" \"$p99\" \"$max\" \"$n\")"
done

tm=$(median "${tfd_ms[@]}")
nm=$(median "${node_ms[@]}")
printf '| metric | tfd --listen | node_exporter (textfile) | ratio |\n|---|---|---|---|\n'
printf '| GET /metrics, %d jobs (ms, median of %d; tfd: %s; node_exporter: %s) | %s | %s | %s |\n' \
	"$JOBS_N" "$SCRAPES" "${tfd_ms[*]}" "${node_ms[*]}" "$tm" "$nm" \
	"$(awk -v a="$tm" -v b="$nm" 'BEGIN { printf "%.2f", a / b }')"
printf '| its size (bytes; tfd samples: %d, node_exporter tfd_* samples: %d) | %d | %d | %s |\n' \
	"$tfd_samples" "$node_samples" "$tfd_size" "$node_size" \
	"$(awk -v a="$tfd_size" -v b="$node_size" 'BEGIN { printf "%.2f", a / b }')"
# shellcheck disable=SC2154 # late_alone and late_scraped are set by eval.
printf '| a 10 ms ticker beside them, late_us p50 / p99 / max (%d and %d ticks): scraped every 100 ms, and alone | %s / %s / %s | %s / %s / %s (alone) | — |\n' \
	"${late_scraped[3]}" "${late_alone[3]}" "${late_scraped[0]}" "${late_scraped[1]}" \
	"${late_scraped[2]}" "${late_alone[0]}" "${late_alone[1]}" "${late_alone[2]}"
