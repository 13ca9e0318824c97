#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/http.sh: --listen with JOBS_N jobs (default 10,000). Prints
# markdown tables for BENCHMARKS.md.
#
# bash bench/http.sh (make bench-http): GET /metrics against
# node_exporter's textfile collector reading the --metrics file of the
# same tfd (the way to scrape tfd before --listen): the scrape's time
# (curl's time_total, median of SCRAPES) and size; and a 10 ms ticker's
# lateness in that tfd while /metrics is scraped every 100 ms, against the
# same ticker left alone. TFD=the binary (default ./tfd), JOBS_N, SCRAPES
# (default 20), PORT_TFD and PORT_NODE (default 19190 and 19191, on
# 127.0.0.1), NODE_EXPORTER (default Debian's prometheus-node-exporter).
#
# bash bench/http.sh answers: large answers and slow clients against the
# loop (issue 30). The jobs and a 10 ms job (a run of /bin/true each
# tick), tfd under `chrt -f 10` so that the machine's other load stays
# out of the figure, while 1, 16 and 64 clients (tests/http/load.c, at
# nice -10; HTTP's from four addresses, since tfd serves 16 from one) ask
# for /jobs, /metrics or the control socket's list without end for
# SECONDS_EACH (default 4): the 10 ms job's longest gap between two ticks
# (from its tick events' "unix") and the expirations it missed, the
# median of ROUNDS runs (default 3), and the answers served; the same with
# no client (the floor). Then /healthz from 127.0.0.2 while 64
# connections from 127.0.0.1 trickle a header byte every 3 s
# (tests/http/conns.c, each opened again when tfd ends it): PROBES probes
# (default 10), curl's time_total, p50 and max, and how many failed within
# curl's 2 s. Every figure for TFD, and for BASE too when it is given (the
# build to compare with, e.g. main's from a worktree of its own), in the
# same run: TFD=./tfd BASE=/tmp/main/tfd bash bench/http.sh answers.
# CLIENTS (default "1 16 64"), TARGETS (default "jobs metrics list"),
# PORT_TFD as above.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

TFD=${TFD:-./tfd}
JOBS_N=${JOBS_N:-10000}
SCRAPES=${SCRAPES:-20}
PORT_TFD=${PORT_TFD:-19190}
PORT_NODE=${PORT_NODE:-19191}
NODE_EXPORTER=${NODE_EXPORTER:-prometheus-node-exporter}
TICK_SECONDS=5
BASE=${BASE:-}
SECONDS_EACH=${SECONDS_EACH:-4}
ROUNDS=${ROUNDS:-3}
PROBES=${PROBES:-10}
CLIENTS=${CLIENTS:-1 16 64}
TARGETS=${TARGETS:-jobs metrics list}
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

# start BIN: BIN on the jobs under chrt, its output in $DIR/out; once it
# answers, the output is emptied (appended to, so that this is safe).
start() {
	chrt -f 10 "$1" --jobs "$DIR/jobs" --listen "127.0.0.1:$PORT_TFD" --control "$DIR/ctl" \
		--json >>"$DIR/out" 2>"$DIR/err" &
	PIDS=("$!")
	for _ in $(seq 400); do
		curl -sf -o /dev/null "http://127.0.0.1:$PORT_TFD/readyz" && break
		sleep 0.05
	done
	curl -sf -o /dev/null "http://127.0.0.1:$PORT_TFD/readyz" || { say "$1 did not answer"; exit 1; }
	sleep 0.5
	: >"$DIR/out"
}

stop() {
	kill "${PIDS[0]}"
	wait "${PIDS[0]}" 2>/dev/null
	PIDS=()
	# The port in TIME_WAIT is bound again (SO_REUSEADDR); the socket is gone.
	rm -f "$DIR/ctl"
}

# "GAP MISSED": the 10 ms job's longest gap (ms) and its missed
# expirations in $DIR/out.
gaps() {
	grep -a '"job":"tick"' "$DIR/out" | grep -a '"event":"tick"' |
		sed 's/.*"expirations":\([0-9]*\).*"unix":\([0-9.]*\).*/\1 \2/' |
		awk 'NR > 1 && ($2 - prev) * 1000 > gap { gap = ($2 - prev) * 1000 }
			{ prev = $2; missed += $1 - 1 } END { printf "%.1f %d\n", gap, missed }'
}

# One run: BIN, TARGET (none, jobs, metrics, list), CLIENTS; prints
# "GAP MISSED DONE P50_MS".
one() {
	local bin=$1 target=$2 clients=$3 url line
	start "$bin"
	case $target in
	none) sleep "$SECONDS_EACH"; line="done=0" ;;
	list) line=$(nice -n -10 "$DIR/load" -c "$clients" -t "$SECONDS_EACH" "unix:$DIR/ctl") ;;
	*)
		url=http://127.0.0.1:$PORT_TFD/$target
		line=$(nice -n -10 "$DIR/load" -c "$clients" -a 4 -t "$SECONDS_EACH" "$url")
		;;
	esac
	stop
	read -r gap missed < <(gaps)
	printf '%s %s %s %s\n' "$gap" "$missed" \
		"$(sed -n 's/.*done=\([0-9]*\).*/\1/p' <<<"$line")" \
		"$(sed -n 's/.*p50_ms=\([0-9.]*\).*/\1/p' <<<"$line")"
}

# The cell of BIN, TARGET, CLIENTS: "GAP ms, MISSED missed (DONE answers,
# p50 P ms)", medians of ROUNDS runs.
cell() {
	local g=() m=() d=() p=() k gap missed answers p50
	for ((k = 0; k < ROUNDS; k++)); do
		read -r gap missed answers p50 < <(one "$@")
		g+=("$gap") m+=("$missed") d+=("${answers:-0}") p+=("${p50:-0}")
	done
	say "$(basename "$1") $2 $3: gaps ${g[*]}, missed ${m[*]}, done ${d[*]}"
	printf '%s ms, %s missed (%s answers, p50 %s ms)' "$(median "${g[@]}")" \
		"$(median "${m[@]}")" "$(median "${d[@]}")" "$(median "${p[@]}")"
}

# /healthz from 127.0.0.2 under 64 slow connections: "P50 MAX FAILED".
probes() {
	local t=() failed=0 out k
	start "$1"
	"$DIR/conns" -n 64 -i 3000 -r "$PORT_TFD" >"$DIR/slow" &
	PIDS+=("$!")
	sleep 2
	for ((k = 0; k < PROBES; k++)); do
		out=$(curl -s -m 2 -o /dev/null -w '%{http_code} %{time_total}' --interface 127.0.0.2 \
			"http://127.0.0.1:$PORT_TFD/healthz")
		if [[ $out == "200 "* ]]; then
			t+=("$(awk '{ printf "%.1f", $2 * 1000 }' <<<"$out")")
		else
			failed=$((failed + 1))
			t+=(2000)
		fi
		sleep 0.5
	done
	kill "${PIDS[1]}"
	wait "${PIDS[1]}" 2>/dev/null
	PIDS=("${PIDS[0]}")
	stop
	printf '%s %s %s\n' "$(median "${t[@]}")" "$(printf '%s\n' "${t[@]}" | sort -g | tail -1)" \
		"$failed"
}

# answers: the tools, the binaries and the jobs.
answers_setup() {
	local tool
	if ! chrt -f 10 true 2>/dev/null; then
		say "chrt -f 10 is refused here (root, or CAP_SYS_NICE, is needed)"
		exit 1
	fi
	for tool in load conns; do
		cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$DIR/$tool" "tests/http/$tool.c" ||
			exit 1
	done
	# Measure copies, so that a rebuild meanwhile changes nothing.
	cp "$TFD" "$DIR/tfd-new" || exit 1
	BINS=("$DIR/tfd-new")
	if [[ -n $BASE ]]; then
		cp "$BASE" "$DIR/tfd-base" || exit 1
		BINS+=("$DIR/tfd-base")
	fi
	write_jobs "$DIR/jobs"
	echo '--name tick --interval 10ms -- /bin/true' >>"$DIR/jobs"
}

name() { [[ $1 == "$DIR/tfd-new" ]] && echo "tfd" || echo "base"; }

# The answers tables.
answers() {
	local head rule row target c what b p50 max failed
	answers_setup
	head="| the 10 ms job under chrt -f 10 beside $JOBS_N jobs: longest gap, missed, answers in ${SECONDS_EACH} s (median of $ROUNDS runs) |"
	rule="|---|"
	for b in "${BINS[@]}"; do
		head+=" $(name "$b") |"
		rule+="---|"
	done
	printf '%s\n%s\n' "$head" "$rule"
	row="| no client (the floor) |"
	for b in "${BINS[@]}"; do
		say "$(name "$b"): the floor"
		row+=" $(cell "$b" none 0) |"
	done
	echo "$row"
	for target in $TARGETS; do
		for c in $CLIENTS; do
			case $target in
			list) what="\`tfdctl list\` (the control socket's list)" ;;
			*) what="\`GET /$target\`" ;;
			esac
			row="| $c client(s) on $what |"
			for b in "${BINS[@]}"; do
				row+=" $(cell "$b" "$target" "$c") |"
			done
			echo "$row"
		done
	done
	row="| \`/healthz\` from 127.0.0.2 under 64 connections from 127.0.0.1 trickling a byte every 3 s: p50 / max ms, failed of $PROBES (curl -m 2) |"
	for b in "${BINS[@]}"; do
		say "$(name "$b"): probes under slow connections"
		read -r p50 max failed < <(probes "$b")
		row+=" $p50 / $max, $failed failed |"
	done
	echo "$row"
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

# JOBS_N jobs that are not due during a run (crontab-style, M H * * *),
# into FILE.
write_jobs() {
	awk -v n="$JOBS_N" 'BEGIN { for (i = 0; i < n; i++)
		printf "--name job%05d --cron \047%d %d * * *\047 -- /bin/true\n", i, i % 60, (i / 60) % 24 }' >"$1"
}

# The scrapes against node_exporter, and the ticker.
scrapes() {
	jobs=$DIR/jobs
	write_jobs "$jobs"
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
}

case ${1:-scrapes} in
answers) answers ;;
scrapes) scrapes ;;
*)
	say "usage: bash bench/http.sh [scrapes | answers]"
	exit 2
	;;
esac
