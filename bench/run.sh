#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run.sh: tfd's benchmark suite. Measures tfd against floors and
# references (a bare timerfd ticker, a posix_spawn+waitpid loop, sleep,
# /bin/true, cyclictest), prints one markdown table to stdout and writes it,
# with the per-run figures, to bench/results.md.
#
# Usage: bash bench/run.sh [SECTION...]
#   SECTION: lateness drift idle spawn footprint dry precise static jobs
#   tagout oldnew (default: all of these), storms (50,000 due runs: about
#   4 minutes), peers (cron and snooze, about 14 minutes: make bench-peers),
#   memory (10,000 jobs' RSS and 10,000 cron.d files reloaded 20 times,
#   against MEMORY_COMMIT built in the same run; about 3 minutes; root),
#   fleet (--fleet against a PostgreSQL of its own, about 14 minutes; root;
#   FLEET_PARTS and the rest: see bench/fleet.sh), floors (the tree against
#   the commit before issue 24's refactor: callgrind instructions, start,
#   RSS, lateness; about 5 minutes; FLOORS_BASE_COMMIT and the rest: see
#   bench/floors.sh)
#   TFD=path to the binary (default ./tfd), CC=compiler (default cc),
#   TFD_STATIC=path to the static build (default ./tfd-static: make static),
#   PAIRS=interleaved pairs per ratio (default 3; PAIRS_1MS=5 at 1 ms)
#   RESULTS=where the table goes (default bench/results.md)
#   JOBS_N, OLD_COMMIT, TFD_OLD, PEER_MINUTES, PEER_STORM, PEER_IDLE_S: see
#   bench/many.sh
#
# Every judged row uses the target the performance issue sets, and only
# those; a row the issue sets no target for says "report". Ratios are
# tfd/floor of the medians over interleaved runs (tfd, floor, tfd, floor,
# ...). Nothing here asserts: a figure that misses its target is reported,
# not failed. The whole run takes 3.5 to 4.5 minutes on 2 cores.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

CC=${CC:-cc}
TFD=${TFD:-./tfd}
TFD_STATIC=${TFD_STATIC:-./tfd-static}
PAIRS=${PAIRS:-3}
# Ticks missed at 1 ms swing from tens to hundreds of 3000 between two runs
# of the same program on this host, so that figure takes more pairs (3.3 s a
# run).
PAIRS_1MS=${PAIRS_1MS:-5}
# Extra pairs a lateness figure may run in place of noisy ones (see
# lateness_figure): 2 at 1 ms (6.6 s each), 1 at 10 ms (20.6 s), and none
# once the suite has run RETRY_BEFORE seconds, so that it stays under 5
# minutes.
RETRIES_1MS=${RETRIES_1MS:-2}
RETRIES_10MS=${RETRIES_10MS:-1}
RETRY_BEFORE=120
BUILD=bench/build
RESULTS=${RESULTS:-bench/results.md}
LOG=$BUILD/run.log
CFLAGS_BENCH=(-std=c11 -D_GNU_SOURCE -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64 -O2 -Wall -Wextra)

# Tick counts. The issue asks for 3000 ticks at 1 ms (3.3 s a run); at
# 10 ms 3000 ticks would take 30 s a run, 3 minutes for 3 pairs alone, so the
# 10 ms figure takes 1000 ticks (10.3 s a run, about 62 s for 3 pairs), which
# keeps the whole suite under 5 minutes.
TICKS_1MS=3000
TICKS_10MS=1000
# Drift: runs of tfd -i 10ms -n 1000 (10 s each); the sleep loop runs once.
DRIFT_RUNS=${DRIFT_RUNS:-3}
SLEEP_LOOPS=${SLEEP_LOOPS:-1000}
SPAWN_TICKS=1000
STARTUP_PAIRS=300

ROWS=()
DETAILS=()

# Helpers

say() { printf 'bench: %s\n' "$*" >&2; }

# The value of KEY in a "key=value key=value" line.
kv() {
	local word
	for word in $2; do
		if [[ $word == "$1="* ]]; then
			printf '%s\n' "${word#*=}"
			return
		fi
	done
}

# The median of the numbers given as arguments; "n/a" if there are none.
median() {
	printf '%s\n' "$@" | grep -E '^-?[0-9.]+$' | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "n/a"; exit }
			if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

isnum() { [[ ${1-} =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }

# A / B to two decimals, or "n/a".
ratio() {
	if isnum "$1" && isnum "$2" && awk -v b="$2" 'BEGIN { exit !(b != 0) }'; then
		awk -v a="$1" -v b="$2" 'BEGIN { r = a / b; printf((r < 0.1 && r > -0.1) ? "%.2g" : "%.2f", r) }'
	else
		printf 'n/a'
	fi
}

# A - B, or "n/a".
minus() {
	if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN { print a - b }'; else printf 'n/a'; fi
}

# Rounds to DIGITS decimals, passing "n/a" through.
fix() {
	if isnum "$1"; then awk -v x="$1" -v d="$2" 'BEGIN { printf "%.*f", d, x }'; else printf '%s' "$1"; fi
}

# "yes" if VALUE <= LIMIT, "no" if not, "n/a" when either is not a number.
at_most() {
	if isnum "$1" && isnum "$2"; then
		if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then printf 'yes'; else printf 'no'; fi
	else
		printf 'n/a'
	fi
}

# One table row: metric, tfd, floor/reference, ratio, target, met?
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

detail() { DETAILS+=("$*"); printf '%s\n' "$*" >>"$LOG"; }

# Host CPU time stolen from this machine so far (the "steal" column of
# /proc/stat, in clock ticks), summed over the CPUs.
steal_ticks() { awk '/^cpu / { print $9; exit }' /proc/stat; }

# Runs COMMAND and prints its one-line output with " steal_ticks=N"
# appended: how much CPU time the host took from this machine meanwhile,
# the evidence of a noisy run in the per-run figures.
with_steal() {
	local s0 out
	s0=$(steal_ticks)
	out=$("$@" 2>>"$LOG")
	printf '%s steal_ticks=%s\n' "$out" "$(($(steal_ticks) - s0))"
}

# Runs a program under the harness; the arguments go to bench/lateness.
harness() { with_steal "$BUILD/lateness" "$@"; }

have_tfd() { [[ -x $TFD ]]; }

# A harness line describes a usable run if the program exited 0.
run_ok() { [[ $(kv status "$1") == 0 ]]; }

# Build

build() {
	local prog
	mkdir -p "$BUILD"
	: >"$LOG"
	for prog in floor lateness spawn_floor startup jobs_probe fleet_stamp; do
		"$CC" "${CFLAGS_BENCH[@]}" -o "$BUILD/$prog" "bench/$prog.c" || exit 1
	done
	# Measure a copy, so that a rebuild of the binary during the run (make
	# in the same tree) neither breaks a figure nor mixes two binaries.
	if [[ -x $TFD ]]; then
		cp "$TFD" "$BUILD/tfd" || exit 1
		TFD=$BUILD/tfd
	fi
	if [[ -x $TFD_STATIC ]]; then
		cp "$TFD_STATIC" "$BUILD/tfd-static" || exit 1
		TFD_STATIC=$BUILD/tfd-static
	fi
	# bench/next_elapse.c times the scheduling modules; it links against
	# the floors they are on, src/time/ and src/base/ (or a flat src/'s
	# library part, at a commit before the folders).
	rm -f "$BUILD/next_elapse"
	if [[ -f bench/next_elapse.c ]]; then
		local lib=() inc=(-Isrc)
		local f
		if [[ -d src/time ]]; then
			lib=(src/base/*.c src/time/*.c)
			inc=(-Isrc/base -Isrc/time)
		else
			for f in src/*.c; do
				if [[ $f != src/tfd.c && $f != src/tfdctl.c ]]; then lib+=("$f"); fi
			done
		fi
		"$CC" "${CFLAGS_BENCH[@]}" "${inc[@]}" -o "$BUILD/next_elapse" bench/next_elapse.c \
			"${lib[@]}" 2>>"$LOG" || rm -f "$BUILD/next_elapse"
	fi
}

# Lateness: tfd and the floor, interleaved

# The most steal ticks one lateness run may see and still count as quiet:
# 1% of the CPU time the machine had during the run. Missed ticks follow
# steal closely here (5 to 7 missed ticks at 1 ms per steal tick, whichever
# program runs), so a pair is only comparable when both runs were quiet.
# quiet_limit INTERVAL_NS TICKS
quiet_limit() {
	awk -v i="$1" -v n="$2" -v c="$(nproc)" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%d", (n * i / 1e9 + 0.3) * c * hz / 100 }'
}

# lateness_figure LABEL INTERVAL_NS TICKS PAIRS RETRIES
#
# A pair in which the host took more than quiet_limit from this machine
# during either run is set aside and another pair is run, up to RETRIES
# more pairs while the suite is in its first RETRY_BEFORE seconds; the
# medians are over the quiet pairs when PAIRS of them were had, else over
# all. Every pair is in the per-run figures with its steal ticks.
lateness_figure() {
	local label=$1 interval=$2 ticks=$3 pairs=$4 retries=$5 k a b limit sa sb quiet=0 note
	local tp50=() tp99=() tmiss=() fp50=() fp99=() fmiss=()
	local qtp50=() qtp99=() qtmiss=() qfp50=() qfp99=() qfmiss=()
	limit=$(quiet_limit "$interval" "$ticks")
	for ((k = 1; quiet < pairs && (k <= pairs ||
		(k <= pairs + retries && SECONDS < RETRY_BEFORE)); k++)); do
		say "lateness $label: pair $k (quiet so far: $quiet of $pairs)"
		a=n/a
		if have_tfd; then
			a=$(harness -i "$interval" -n "$ticks" -- "$TFD" --clock realtime \
				--at '@{T}' --interval '{I}' --count '{N}' --format '%n %l %e')
		fi
		b=$(harness -i "$interval" -n "$ticks" -- "$BUILD/floor" '{Tns}' '{Ins}' '{N}')
		sa=$(kv steal_ticks "$a") sb=$(kv steal_ticks "$b")
		detail "lateness $label run $k tfd: $a"
		detail "lateness $label run $k floor: $b"
		if ! run_ok "$a" || [[ $(kv unparsed "$a") != 0 ]]; then
			continue
		fi
		tp50+=("$(kv p50_us "$a")") tp99+=("$(kv p99_us "$a")") tmiss+=("$(kv missed "$a")")
		fp50+=("$(kv p50_us "$b")") fp99+=("$(kv p99_us "$b")") fmiss+=("$(kv missed "$b")")
		if ((${sa:-0} > limit || ${sb:-0} > limit)); then
			detail "lateness $label pair $k set aside: the host stole ${sa:-?} and ${sb:-?} ticks (quiet: at most $limit a run)"
			continue
		fi
		quiet=$((quiet + 1))
		qtp50+=("${tp50[-1]}") qtp99+=("${tp99[-1]}") qtmiss+=("${tmiss[-1]}")
		qfp50+=("${fp50[-1]}") qfp99+=("${fp99[-1]}") qfmiss+=("${fmiss[-1]}")
	done
	if ((quiet >= pairs)); then
		tp50=("${qtp50[@]}") tp99=("${qtp99[@]}") tmiss=("${qtmiss[@]}")
		fp50=("${qfp50[@]}") fp99=("${qfp99[@]}") fmiss=("${qfmiss[@]}")
		note="$quiet quiet pairs of $((k - 1))"
	else
		note="all ${#tp50[@]} pairs, $quiet of them quiet"
	fi
	MISSED_RUNS="tfd ${tmiss[*]}; floor ${fmiss[*]}"
	lateness_rows "$label" "$ticks" "$note" "$(median "${tp50[@]}")" "$(median "${fp50[@]}")" \
		"$(median "${tp99[@]}")" "$(median "${fp99[@]}")" \
		"$(median "${tmiss[@]}")" "$(median "${fmiss[@]}")"
}

# lateness_rows LABEL TICKS PAIRS_NOTE TFD_P50 FLOOR_P50 TFD_P99 FLOOR_P99 TFD_MISSED FLOOR_MISSED
lateness_rows() {
	local label=$1 ticks=$2 note=$3 r allowed=n/a
	shift 3
	r=$(ratio "$1" "$2")
	row "lateness at $label, p50 on arrival (µs; $ticks ticks, median of $note)" \
		"$(fix "$1" 1)" "$(fix "$2" 1)" "$r" "≤ 1.10×" "$(at_most "$r" 1.10)"
	r=$(ratio "$3" "$4")
	row "lateness at $label, p99 on arrival (µs; $ticks ticks, median of $note)" \
		"$(fix "$3" 1)" "$(fix "$4" 1)" "$r" "≤ 1.10×" "$(at_most "$r" 1.10)"
	isnum "$6" && allowed=$(awk -v f="$6" 'BEGIN { print f + 1 }')
	row "missed ticks at $label (of $ticks, median of the same pairs: $MISSED_RUNS)" "$5" "$6" "$(ratio "$5" "$6")" \
		"≤ floor + 1" "$(at_most "$5" "$allowed")"
}

# Drift: an absolute timer against a sleep loop

# From a drift run's harness line and the %s its last line printed: "EXEC
# OWN STARTUP" in ms. EXEC is exec to exit − 10 s; OWN is from tfd's own
# start (where its %s counts from) to its exit − 10 s, the start placed at
# the last line's arrival minus its %s, so it leaves out the process's
# start-up (which also lets the pipe's delivery delay, some µs, shorten
# it); STARTUP is exec to that start.
drift_figures() {
	awk -v w="$(kv exec_wall_us "$1")" -v l="$(kv last_line_us "$1")" -v s="$2" 'BEGIN {
		start = l - s * 1e6
		printf "%.3f %.3f %.3f", (w - 1e7) / 1000, (w - start - 1e7) / 1000, start / 1000 }'
}

drift() {
	local a k f errs=() owns=() ups=() walls=() began ended loop_err last_s
	local out=$BUILD/drift.out
	for ((k = 1; k <= DRIFT_RUNS; k++)); do
		have_tfd || break
		say "drift: tfd -i 10ms -n 1000 (10 s), run $k/$DRIFT_RUNS"
		a=$(harness -r -o "$out" -- "$TFD" -i 10ms -n 1000 --format '%s')
		last_s=$(tail -n 1 "$out")
		detail "drift run $k tfd: $a last_tick_at_s=$last_s"
		if run_ok "$a" && isnum "$last_s" && isnum "$(kv last_line_us "$a")"; then
			read -ra f <<<"$(drift_figures "$a" "$last_s")"
			errs+=("${f[0]}") owns+=("${f[1]}") ups+=("${f[2]}")
			walls+=("$(awk -v w="$(kv wall_us "$a")" 'BEGIN { print (w - 1e7) / 1000 }')")
			detail "drift run $k: exec to exit − 10 s ${f[0]} ms; tfd's start to exit − 10 s ${f[1]} ms; exec to tfd's start ${f[2]} ms"
		fi
	done
	say "drift: $SLEEP_LOOPS × sleep 0.01 in a bash loop"
	began=$EPOCHREALTIME
	for ((k = 0; k < SLEEP_LOOPS; k++)); do sleep 0.01; done
	ended=$EPOCHREALTIME
	loop_err=$(awk -v a="$began" -v b="$ended" -v n="$SLEEP_LOOPS" 'BEGIN { print ((b - a) - n * 0.01) * 1000 }')
	detail "drift sleep loop: $SLEEP_LOOPS iterations took $(awk -v a="$began" -v b="$ended" 'BEGIN { print b - a }') s"
	detail "drift: fork to exit − 10 s (ms): ${walls[*]}"
	local err own
	err=$(median "${errs[@]}") own=$(median "${owns[@]}")
	row "drift: tfd -i 10ms -n 1000 ends − 10 s after its exec (ms, median of $DRIFT_RUNS; ref: $SLEEP_LOOPS × sleep 0.01 in a bash loop, its end − $((SLEEP_LOOPS / 100)) s)" \
		"$(fix "$err" 2)" "$(fix "$loop_err" 1)" "—" "within 1 ms" "$(at_most "${err#-}" 1)"
	row "drift: the same runs from tfd's own start (%s = 0) to exit − 10 s (ms; its start came $(fix "$(median "${ups[@]}")" 2) ms after the exec; fork to exit − 10 s: $(fix "$(median "${walls[@]}")" 2) ms)" \
		"$(fix "$own" 2)" "—" "—" "report" "report"
}

# Idle: wake-ups of a quiet 5 s run

# The voluntary context switches a run made from its first sample (taken
# while it waits for the first expiration) to its exit, and how many of the
# changes the samples saw lie more than SLACK ms from a whole second after
# the exec, where the expirations are: "SWITCHES OFF_EXPIRATION".
idle_count() {
	local line=$1 slack=$2 first final steps step at d off=0
	first=$(kv nvcsw_first "$line")
	final=$(kv nvcsw "$line")
	steps=$(kv nvcsw_steps "$line")
	if ! isnum "$first" || ! isnum "$final"; then
		printf 'n/a n/a'
		return
	fi
	for step in ${steps//,/ }; do
		[[ $step == none ]] && continue
		at=${step%%:*}
		d=$((at % 1000))
		((d <= slack || d >= 1000 - slack)) || off=$((off + 1))
	done
	printf '%s %s' "$((final - first))" "$off"
}

idle() {
	local a b t=(n/a n/a) f=(n/a n/a) verdict=n/a
	say "idle: tfd -i 1s -n 5 -q and the floor, 5 s each, sampled every 20 ms"
	if have_tfd; then
		a=$(harness -r -s 20 -- "$TFD" -i 1s -n 5 -q)
		detail "idle tfd: $a"
		run_ok "$a" && read -ra t <<<"$(idle_count "$a" 120)"
	fi
	b=$(harness -s 20 -l 1000 -i 1000000000 -n 5 -- "$BUILD/floor" '{Tns}' '{Ins}' '{N}')
	detail "idle floor: $b"
	read -ra f <<<"$(idle_count "$b" 120)"
	if isnum "${t[0]}"; then
		verdict=no
		[[ ${t[0]} == 5 && ${t[1]} == 0 ]] && verdict=yes
	fi
	row "idle: voluntary context switches from the first wait to exit, 5 expirations at 1 s (off an expiration)" \
		"${t[0]} (${t[1]})" "${f[0]} (${f[1]})" "—" "5 (0): one per expiration, none between" "$verdict"
}

# Spawn: runs of /bin/true every 2 ms

# The values of "NAME":number in a JSON-lines file, one a line.
json_numbers() { grep -oE "\"$1\": *[-0-9.e+]+" "$2" | sed 's/.*: *//'; }

# TOTAL / RUNS, or n/a.
per_run() {
	if isnum "$1" && isnum "$2" && (($2 > 0)); then
		awk -v c="$1" -v n="$2" 'BEGIN { print c / n }'
	else
		printf 'n/a'
	fi
}

# Median of the "duration" of exit events, in µs.
median_run_us() {
	local d=()
	mapfile -t d < <(json_numbers duration "$1" | awk '{ printf "%.1f\n", $1 * 1e6 }')
	median "${d[@]}"
}

spawn() {
	local a e p q s k runs json=$BUILD/spawn.json shjson=$BUILD/exec.json
	local tdur=() pdur=() qdur=() tskip=() pskip=() tact=() town=() pown=() tall=() qall=()
	local edur=() sdur=()
	# The tick lines go straight to a file (-O), so that no reader competes
	# with the runs for the two cores; the floors print nothing.
	for ((k = 1; k <= PAIRS; k++)); do
		say "spawn: pair $k/$PAIRS: tfd -i 2ms -n $SPAWN_TICKS -- /bin/true, the paced floor, the floor in a row, --exec"
		if have_tfd; then
			a=$(harness -r -O "$json" -- "$TFD" -i 2ms -n "$SPAWN_TICKS" --json -- /bin/true)
			detail "spawn run $k tfd: $a"
			if run_ok "$a"; then
				runs=$(grep -cE '"action": *"run"' "$json")
				detail "spawn run $k tfd: $runs runs, $(grep -cE '"action": *"skip"' "$json") skip wake-ups"
				tskip+=("$((SPAWN_TICKS - runs))")
				tact+=("$(grep -cE '"action": *"skip"' "$json")")
				tdur+=("$(median_run_us "$json")")
				town+=("$(per_run "$(kv own_cpu_us "$a")" "$runs")")
				tall+=("$(per_run "$(kv cpu_us "$a")" "$runs")")
			fi
		fi
		p=$(with_steal "$BUILD/spawn_floor" -p 2000 "$SPAWN_TICKS" /bin/true)
		detail "spawn run $k floor, paced at 2 ms: $p"
		pskip+=("$(kv without_run "$p")")
		pdur+=("$(kv p50_us "$p")")
		pown+=("$(per_run "$(kv own_cpu_us "$p")" "$(kv runs "$p")")")
		q=$(with_steal "$BUILD/spawn_floor" "$SPAWN_TICKS" /bin/true)
		detail "spawn run $k floor, in a row: $q"
		qdur+=("$(kv p50_us "$q")")
		qall+=("$(per_run "$(kv cpu_us "$q")" "$(kv runs "$q")")")
		# --exec: the same runs through /bin/sh -c, every 5 ms so that
		# they do not overlap; the reference is one more exec of the
		# shell in the C loop.
		if have_tfd; then
			e=$(harness -r -O "$shjson" -- "$TFD" -i 5ms -n 200 --json --exec /bin/true)
			detail "spawn run $k tfd --exec: $e"
			run_ok "$e" && edur+=("$(median_run_us "$shjson")")
		fi
		s=$(with_steal "$BUILD/spawn_floor" 300 /bin/sh -c /bin/true)
		detail "spawn run $k floor, /bin/sh -c /bin/true in a row: $s"
		sdur+=("$(kv p50_us "$s")")
	done
	local td pd qd r
	td=$(median "${tdur[@]}") pd=$(median "${pdur[@]}") qd=$(median "${qdur[@]}")
	r=$(ratio "$td" "$pd")
	row "spawn: wall per run of /bin/true (µs, median of $PAIRS pairs; tfd: its runs' duration; ref: posix_spawn+waitpid on a 2 ms timerfd in C)" \
		"$(fix "$td" 0)" "$(fix "$pd" 0)" "$r" "≤ 1.10×" "$(at_most "$r" 1.10)"
	r=$(ratio "$td" "$qd")
	row "spawn: the same tfd runs against posix_spawn+waitpid back to back in C (µs)" \
		"$(fix "$td" 0)" "$(fix "$qd" 0)" "$r" "≤ 1.10×" "$(at_most "$r" 1.10)"
	local to po
	to=$(median "${town[@]}") po=$(median "${pown[@]}")
	row "spawn: CPU per run of the ticker alone (µs; tfd with --json to a file; ref: the paced C loop)" \
		"$(fix "$to" 1)" "$(fix "$po" 1)" "$(ratio "$to" "$po")" "report" "report"
	row "spawn: CPU per run with the child's (µs; ref: the C loop back to back)" \
		"$(fix "$(median "${tall[@]}")" 0)" "$(fix "$(median "${qall[@]}")" 0)" \
		"$(ratio "$(median "${tall[@]}")" "$(median "${qall[@]}")")" "report" "report"
	local ts ps
	ts=$(median "${tskip[@]}") ps=$(median "${pskip[@]}")
	row "spawn: ticks without a run at --interval 2ms --count $SPAWN_TICKS -- /bin/true (median of $PAIRS; runs: ${tskip[*]}; skip wake-ups: ${tact[*]}; ref: the paced C loop)" \
		"$ts" "$ps" "—" "0" "$(at_most "$ts" 0)"
	local ed sd extra one
	ed=$(median "${edur[@]}") sd=$(median "${sdur[@]}")
	extra=$(minus "$ed" "$td")
	one=$(minus "$sd" "$qd")
	row "spawn: --exec /bin/true costs over -- /bin/true (µs a run; ref: /bin/sh -c /bin/true − /bin/true in the C loop, one exec)" \
		"$(fix "$extra" 0) ($(fix "$ed" 0) − $(fix "$td" 0))" "$(fix "$one" 0) ($(fix "$sd" 0) − $(fix "$qd" 0))" \
		"$(ratio "$extra" "$one")" "report" "report"
}

# Footprint: peak RSS and start-to-exit

# peak_rss LABEL [HARNESS OPTION...] -- COMMAND...: COMMAND's peak RSS
# (VmHWM, kB, sampled every 50 ms) under the harness, its line logged as
# LABEL; nothing for a run that failed, unless the harness's -k ended it.
peak_rss() {
	local label=$1 a
	shift
	a=$(harness -r -s 50 "$@")
	detail "$label: $a"
	if run_ok "$a" || [[ $1 == -k ]]; then kv vmhwm_kb "$a"; fi
}

footprint() {
	local k t=() s=() r x tt=() tb=()
	for ((k = 1; k <= PAIRS; k++)); do
		say "footprint: peak RSS of tfd -i 1s -n 1 -q and sleep 100, pair $k/$PAIRS"
		have_tfd && t+=("$(peak_rss "footprint run $k tfd" -- "$TFD" -i 1s -n 1 -q)")
		s+=("$(peak_rss "footprint run $k sleep" -k 1000 -- sleep 100)")
	done
	r=$(ratio "$(median "${t[@]}")" "$(median "${s[@]}")")
	row "footprint: peak RSS waiting on a 1 s timer, VmHWM (kB, median of $PAIRS pairs; ref: sleep 100)" \
		"$(median "${t[@]}")" "$(median "${s[@]}")" "$r" "≤ 1× (at most sleep's)" "$(at_most "$r" 1)"

	for ((k = 1; k <= PAIRS; k++)); do
		say "footprint: start-to-exit, $STARTUP_PAIRS runs each in turns, block $k/$PAIRS"
		have_tfd || break
		x=$(with_steal "$BUILD/startup" "$STARTUP_PAIRS" "$TFD" --delay 0 --count 1 -q -- /bin/true)
		detail "start-to-exit block $k (a: tfd --delay 0 --count 1 -q, b: /bin/true): $x"
		[[ $(kv failed "$x") == 0 ]] || continue
		tt+=("$(kv a_p50_us "$x")") tb+=("$(kv b_p50_us "$x")")
	done
	r=$(ratio "$(median "${tt[@]}")" "$(median "${tb[@]}")")
	row "start-to-exit: tfd --delay 0 --count 1 -q (µs, median of $PAIRS blocks of $STARTUP_PAIRS runs in turns; ref: /bin/true started the same way)" \
		"$(fix "$(median "${tt[@]}")" 0)" "$(fix "$(median "${tb[@]}")" 0)" "$r" "≤ 1.2×" "$(at_most "$r" 1.2)"
}

# Static build: start-to-exit and peak RSS of tfd-static beside tfd

# Start-to-exit of tfd-static and of tfd (-d 0 -n 1 -q: arm, one
# expiration, exit), each in turns with /bin/true, STARTUP_PAIRS runs a
# block, PAIRS blocks; then the resident set of each waiting on a 1 s timer
# (VmHWM, the process's own: the figure wait4() gives would also hold the
# launcher's pages from before the exec).
static_build() {
	local k x r st=() sb=() dt=() db=() sr=() dr=() rr=()
	if [[ ! -x $TFD_STATIC ]] || ! have_tfd; then
		say "static: no $TFD_STATIC or $TFD (make tfd static): its figures read n/a"
	fi
	for ((k = 1; k <= PAIRS; k++)); do
		if [[ ! -x $TFD_STATIC ]] || ! have_tfd; then break; fi
		say "static: start-to-exit, $STARTUP_PAIRS runs each in turns, block $k/$PAIRS"
		x=$(with_steal "$BUILD/startup" "$STARTUP_PAIRS" "$TFD_STATIC" -d 0 -n 1 -q -- /bin/true)
		detail "static start-to-exit block $k (a: tfd-static -d 0 -n 1 -q, b: /bin/true): $x"
		[[ $(kv failed "$x") == 0 ]] && st+=("$(kv a_p50_us "$x")") sb+=("$(kv b_p50_us "$x")")
		x=$(with_steal "$BUILD/startup" "$STARTUP_PAIRS" "$TFD" -d 0 -n 1 -q -- /bin/true)
		detail "static start-to-exit block $k (a: tfd -d 0 -n 1 -q, b: /bin/true): $x"
		[[ $(kv failed "$x") == 0 ]] && dt+=("$(kv a_p50_us "$x")") db+=("$(kv b_p50_us "$x")")
		sr+=("$(peak_rss "static footprint run $k tfd-static" -- "$TFD_STATIC" -i 1s -n 1 -q)")
		dr+=("$(peak_rss "static footprint run $k tfd" -- "$TFD" -i 1s -n 1 -q)")
		rr+=("$(peak_rss "static footprint run $k sleep" -k 1000 -- sleep 100)")
	done
	r=$(ratio "$(median "${st[@]}")" "$(median "${sb[@]}")")
	row "start-to-exit: tfd-static -d 0 -n 1 -q (µs, median of $PAIRS blocks of $STARTUP_PAIRS runs in turns; ref: /bin/true started the same way)" \
		"$(fix "$(median "${st[@]}")" 0)" "$(fix "$(median "${sb[@]}")" 0)" "$r" "≤ 1× (at most /bin/true's)" "$(at_most "$r" 1)"
	r=$(ratio "$(median "${dt[@]}")" "$(median "${db[@]}")")
	row "start-to-exit: tfd -d 0 -n 1 -q, the dynamic build, in the same blocks (µs; ref: /bin/true; tfd-static/tfd: $(ratio "$(median "${st[@]}")" "$(median "${dt[@]}")"))" \
		"$(fix "$(median "${dt[@]}")" 0)" "$(fix "$(median "${db[@]}")" 0)" "$r" "report" "report"
	r=$(ratio "$(median "${sr[@]}")" "$(median "${rr[@]}")")
	row "footprint: peak RSS of tfd-static waiting on a 1 s timer, VmHWM (kB, median of $PAIRS; ref: sleep 100; the dynamic tfd: $(median "${dr[@]}"))" \
		"$(median "${sr[@]}")" "$(median "${rr[@]}")" "$r" "report" "report"
}

# Dry runs: 100000 scheduled times

# The median time in ms of command NUMBER (from 0) in a hyperfine JSON export.
hyperfine_ms() {
	grep -oE '"median": *[-0-9.e+]+' "$1" | sed -n "$(($2 + 1))p" | sed 's/.*: *//' |
		awk '{ printf "%.3f\n", $1 * 1000 }'
}

# dry_ms ARGS...: median ms of tfd ARGS over 5 runs, or n/a if tfd refuses.
dry_ms() {
	local hj=$BUILD/dry.json
	if ! "$TFD" "$@" >/dev/null 2>>"$LOG"; then
		printf 'n/a'
		return
	fi
	if hyperfine -N --warmup 1 --runs 5 --style none --export-json "$hj" \
		"$(printf '%q ' "$TFD" "$@")" >>"$LOG" 2>&1; then
		hyperfine_ms "$hj" 0
	else
		printf 'n/a'
	fi
}

dry_runs() {
	local hj=$BUILD/sa.json i=n/a c=n/a k=n/a sa=n/a
	say "dry runs: 100000 times (interval, calendar, cron); systemd-analyze for reference"
	if have_tfd; then
		i=$(dry_ms -i 1s --dry-run=100000)
		c=$(dry_ms --calendar '*:0/15' --dry-run=100000)
		k=$(dry_ms --cron '*/15 * * * *' --dry-run=100000)
	fi
	# systemd-analyze takes about 20 µs an iteration here and prints three
	# lines for each, so it computes a fifth of the times, scaled by 5.
	if command -v systemd-analyze >/dev/null &&
		hyperfine -N --warmup 1 --runs 3 --style none --export-json "$hj" \
			"systemd-analyze calendar --iterations=20000 '*:0/15'" >>"$LOG" 2>&1; then
		sa=$(awk -v ms="$(hyperfine_ms "$hj" 0)" 'BEGIN { print ms * 5 }')
	fi
	row "dry run: -i 1s --dry-run=100000 (ms, median of 5)" "$(fix "$i" 1)" "—" "—" "< 1000 ms" "$(at_most "$i" 999.9)"
	row "dry run: --calendar '*:0/15' --dry-run=100000 (ms, median of 5; ref: systemd-analyze calendar --iterations=20000, ×5)" \
		"$(fix "$c" 1)" "$(fix "$sa" 1)" "$(ratio "$c" "$sa")" "< 1000 ms" "$(at_most "$c" 999.9)"
	row "dry run: --cron '*/15 * * * *' --dry-run=100000 (ms, median of 5)" \
		"$(fix "$k" 1)" "—" "—" "< 1000 ms" "$(at_most "$k" 999.9)"
	next_elapse_rows
}

# bench/next_elapse prints "WHAT  N ns/call  (CALLS calls, S s, ...)" for
# each schedule; the row judges the time of all the calls.
next_elapse_rows() {
	local line what ns calls ms
	if [[ ! -x $BUILD/next_elapse ]]; then
		row "100,000 successive elapses (bench/next_elapse.c)" "n/a (did not build)" "—" "—" "< 1000 ms" "n/a"
		return
	fi
	while IFS= read -r line; do
		detail "next_elapse: $line"
		[[ $line =~ ^(.*[^[:space:]])[[:space:]]+([0-9.]+)\ ns/call\ +\(([0-9]+)\ calls ]] || continue
		what=${BASH_REMATCH[1]} ns=${BASH_REMATCH[2]} calls=${BASH_REMATCH[3]}
		ms=$(awk -v n="$ns" -v c="$calls" 'BEGIN { print n * c / 1e6 }')
		row "$calls successive elapses, $what (ms; bench/next_elapse.c, $(fix "$ns" 0) ns each)" \
			"$(fix "$ms" 1)" "—" "—" "< 1000 ms" "$(at_most "$ms" 999.9)"
	done < <("$BUILD/next_elapse" 2>>"$LOG")
}

# --precise against cyclictest, interleaved

# "AVG P99 MAX" in µs from tfd's --stats line on stderr.
tfd_stats() {
	sed -n 's/.*late_us min [0-9-]* avg \([0-9-]*\) p99 \([0-9-]*\) max \([0-9-]*\).*/\1 \2 \3/p' <<<"$1"
}

precise() {
	local a c f k t=() tavg=() tp99=() tmax=() favg=() fp99=() fmax=() cavg=() cmax=() start
	for ((k = 1; k <= PAIRS; k++)); do
		say "precise: round $k/$PAIRS: tfd --precise -i 1ms -n 3000 -q --stats, the floor at SCHED_FIFO 80, cyclictest -q -p 80 -i 1000 -l 3000"
		if have_tfd; then
			a=$("$TFD" --precise -i 1ms -n 3000 -q --stats 2>&1 >/dev/null | grep 'stats:')
			detail "precise run $k tfd: $a"
			read -ra t <<<"$(tfd_stats "$a")"
			if ((${#t[@]} == 3)); then
				tavg+=("${t[0]}") tp99+=("${t[1]}") tmax+=("${t[2]}")
			fi
		fi
		# The same figure from a bare timerfd ticker with the same
		# settings (SCHED_FIFO 80, locked memory, 1 ns slack,
		# /dev/cpu_dma_latency at 0) and no reader: what the timerfd
		# path itself costs, against cyclictest's clock_nanosleep.
		start=$((${EPOCHREALTIME/./} * 1000 + 300000000))
		f=$(with_steal chrt -f 80 "$BUILD/floor" -s "$start" 1000000 3000)
		detail "precise run $k floor (chrt -f 80, -s): $f"
		favg+=("$(kv avg_us "$f")") fp99+=("$(kv p99_us "$f")") fmax+=("$(kv max_us "$f")")
		if command -v cyclictest >/dev/null; then
			c=$(cyclictest -q -p 80 -i 1000 -l 3000 2>>"$LOG" | grep 'Avg:')
			detail "precise run $k cyclictest: $c"
			cavg+=("$(sed -n 's/.*Avg: *\([0-9]*\).*/\1/p' <<<"$c")")
			cmax+=("$(sed -n 's/.*Max: *\([0-9]*\).*/\1/p' <<<"$c")")
		fi
	done
	local ta ca fa
	ta=$(median "${tavg[@]}") ca=$(median "${cavg[@]}") fa=$(median "${favg[@]}")
	row "--precise at 1 ms × 3000: average lateness, tfd --stats (µs, median of $PAIRS rounds; ref: cyclictest Avg; a bare timerfd ticker with the same settings: $fa)" \
		"$ta" "$ca" "$(ratio "$ta" "$ca")" "report" "report"
	row "--precise at 1 ms × 3000: max lateness (µs, median of $PAIRS; ref: cyclictest Max; the bare ticker: $(median "${fmax[@]}"); p99: tfd $(median "${tp99[@]}"), bare ticker $(median "${fp99[@]}"))" \
		"$(median "${tmax[@]}")" "$(median "${cmax[@]}")" "$(ratio "$(median "${tmax[@]}")" "$(median "${cmax[@]}")")" "report" "report"
}

# The many-jobs, --tag-output, peer and old-against-new sections.
# shellcheck source=bench/many.sh
. bench/many.sh
# shellcheck source=bench/fleet.sh
. bench/fleet.sh
# shellcheck source=bench/floors.sh
. bench/floors.sh

# Report

tfd_version() {
	local v
	v=$("$TFD" --version 2>/dev/null | head -n 1)
	printf '%s' "${v:-no tfd}"
}

report() {
	local machine steal
	machine="$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), Linux $(uname -r)"
	steal=$(($(steal_ticks) - STEAL0))
	{
		printf '# tfd benchmarks\n\n'
		printf '%s; %s; %s (commit %s); run took %d s; load average %s at the start, %s at the end; %s ticks (of %s Hz) stolen by the host during the run.\n\n' \
			"$(date -u '+%Y-%m-%d %H:%M UTC')" "$machine" "$(tfd_version)" \
			"$(git rev-parse --short HEAD 2>/dev/null || printf '?')" "$SECONDS" \
			"$LOAD0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$steal" "$(getconf CLK_TCK)"
		printf '| metric | tfd | floor/reference | ratio | target | met? |\n'
		printf '|---|---|---|---|---|---|\n'
		printf '%s\n' "${ROWS[@]}"
	} | tee "$RESULTS"
	{
		printf '\n## Per-run figures\n\n```\n'
		printf '%s\n' "${DETAILS[@]}"
		printf '```\n'
	} >>"$RESULTS"
}

# SECTIONS: lateness drift idle spawn footprint dry precise static jobs jobsdir
# tagout oldnew (default: all), peers.
main() {
	local section
	LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
	STEAL0=$(steal_ticks)
	build
	have_tfd || say "no tfd at $TFD: its figures read n/a"
	(($#)) || set -- lateness drift idle spawn footprint dry precise static jobs jobsdir tagout oldnew
	for section in "$@"; do
		case $section in
		lateness)
			lateness_figure "1 ms" 1000000 "$TICKS_1MS" "$PAIRS_1MS" "$RETRIES_1MS"
			lateness_figure "10 ms" 10000000 "$TICKS_10MS" "$PAIRS" "$RETRIES_10MS"
			;;
		drift | idle | spawn | footprint | precise) "$section" ;;
		dry) dry_runs ;;
		static) static_build ;;
		jobs | jobsdir | tagout | peers | oldnew | storms | fleet | floors | memory) "${section}_section" ;;
		*) say "unknown section '$section'" && exit 2 ;;
		esac
	done
	report
}

main "$@"
