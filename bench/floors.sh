# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# bench/floors.sh: the `floors` section of bench/run.sh (issue 24, the loop
# in floors): the tree against the commit before the refactor, side by
# side in one run, every figure in turns (new, base, new, base, ...).
# Sourced by bench/run.sh, after bench/many.sh and bench/fleet.sh, whose
# helpers (row, detail, median, ratio, fix, at_most, say, kv, harness,
# with_steal, run_ok, isnum; old_tfd, jobs_bin, jobs_file, jobs_probe;
# fleet_rss) it uses.
#
#   callgrind  instructions (valgrind --tool=callgrind, total Ir) of
#              FLOORS_JOBS jobs loaded and armed: tfd started on the many
#              jobs file (bench/many.sh's, no elapse within a month),
#              SIGTERMed once asleep in poll (bench/jobs_probe); of one
#              reload of them: the same with a SIGHUP once asleep, less
#              the run without it; and of single-job ticking: a wake-up of
#              `--interval 1ms --count FLOORS_TICKS`, less the start and
#              exit (a run of one wake-up), divided by its wake-ups (under
#              valgrind some expirations come two to a read: the count of
#              lines is the count of wake-ups). FLOORS_CG_RUNS runs each.
#   start      start-to-exit of a bare timer, `--at now --count 1 -q`, in
#              turns (bench/startup), FLOORS_BLOCKS blocks of STARTUP_PAIRS
#   rss        peak RSS of the same command (bench/fleet.sh's fleet_rss:
#              /usr/bin/time -f %M), FLOORS_RSS_PAIRS pairs in turns
#   lateness   lateness at 1 ms, p50 and p99 on arrival (bench/lateness,
#              3000 ticks), PAIRS_1MS pairs in turns
#
# FLOORS_PARTS chooses (default all, about 5 minutes on 2 cores, with the
# base's build). The base is FLOORS_BASE_COMMIT built as the oldnew section
# builds its old tfd, or TFD_BASE. Every judged row's target is the issue's,
# within 1.02× of the base; lateness is reported.

FLOORS_PARTS=${FLOORS_PARTS:-callgrind start rss lateness}
FLOORS_BASE_COMMIT=${FLOORS_BASE_COMMIT:-4298003}
FLOORS_JOBS=${FLOORS_JOBS:-10000}
FLOORS_TICKS=${FLOORS_TICKS:-2000}
FLOORS_CG_RUNS=${FLOORS_CG_RUNS:-3}
FLOORS_BLOCKS=${FLOORS_BLOCKS:-5}
FLOORS_RSS_PAIRS=${FLOORS_RSS_PAIRS:-21}

# floors_row METRIC NEW BASE: one row judged against 1.02× of the base.
floors_row() {
	local r
	r=$(ratio "$2" "$3")
	row "floors: $1 (ref: $FLOORS_BASE_COMMIT)" "$2" "$3" "$r" "≤ 1.02×" "$(at_most "$r" 1.02)"
}

# The total Ir of a callgrind output file, or nothing.
floors_ir_of() { sed -n 's/^summary: *//p' "$1" 2>/dev/null | head -n 1; }

# floors_callgrind OUT COMMAND...: COMMAND under callgrind, its profile in
# OUT; valgrind's own lines go to the log.
floors_callgrind() {
	local out=$1
	shift
	rm -f "$out"
	valgrind --tool=callgrind --callgrind-out-file="$out" "$@" 2>>"$LOG"
}

# floors_load_ir BIN FILE [-H]: Ir of BIN --jobs FILE --json from its exec
# to its exit after SIGTERM, asleep in poll before it (and, with -H, after
# one SIGHUP's reload).
floors_load_ir() {
	local bin=$1 file=$2 out=$BUILD/floors.cg a
	shift 2
	a=$(jobs_probe "$@" -- valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$bin" --jobs "$file" --json)
	detail "floors callgrind $bin --jobs ($FLOORS_JOBS) $*: $a ir=$(floors_ir_of "$out")"
	# A run that did not reach poll, or lost its reload, has no figure.
	[[ $(kv exit "$a") == 143 ]] || return
	[[ $* != *-H* || $(kv reload_line "$a") == *'"kept":'"$FLOORS_JOBS"* ]] || return
	floors_ir_of "$out"
}

# floors_tick_ir BIN N: "IR WAKEUPS" of BIN --interval 1ms --count N.
floors_tick_ir() {
	local out=$BUILD/floors.cg lines=$BUILD/floors.lines
	floors_callgrind "$out" "$1" --interval 1ms --count "$2" --format '%n %e' >"$lines" ||
		return
	printf '%s %s' "$(floors_ir_of "$out")" "$(wc -l <"$lines")"
}

# floors_per_wakeup BIN: the Ir of one wake-up of a ticking job: a run of
# FLOORS_TICKS expirations less a run of one, over the wake-ups between.
floors_per_wakeup() {
	local many one
	read -ra many <<<"$(floors_tick_ir "$1" "$FLOORS_TICKS")"
	read -ra one <<<"$(floors_tick_ir "$1" 1)"
	detail "floors callgrind $1 ticking: ${many[*]} (Ir, wake-ups); one expiration: ${one[*]}"
	((${#many[@]} == 2 && ${#one[@]} == 2 && many[1] > one[1])) || return
	awk -v a="${many[0]}" -v n="${many[1]}" -v b="${one[0]}" -v m="${one[1]}" \
		'BEGIN { printf "%.0f", (a - b) / (n - m) }'
}

floors_callgrind_part() {
	local base=$1 file k which bin x
	local nl=() bl=() nr=() br=() nt=() bt=() load hup
	if ! command -v valgrind >/dev/null; then
		say "floors: no valgrind: its rows read n/a"
	fi
	jobs_bin "$BUILD/jobbin" "$FLOORS_JOBS"
	file=$(jobs_file floors "$FLOORS_JOBS" mixed)
	for ((k = 1; k <= FLOORS_CG_RUNS; k++)); do
		command -v valgrind >/dev/null || break
		say "floors: callgrind, run $k/$FLOORS_CG_RUNS: $FLOORS_JOBS jobs load + arm, a reload, ticking"
		for which in new base; do
			bin=$TFD
			[[ $which == base ]] && bin=$base
			load=$(floors_load_ir "$bin" "$file")
			hup=$(floors_load_ir "$bin" "$file" -H)
			x=n/a
			isnum "$load" && isnum "$hup" && x=$((hup - load))
			if [[ $which == new ]]; then
				nl+=("${load:-n/a}") nr+=("$x") nt+=("$(floors_per_wakeup "$bin")")
			else
				bl+=("${load:-n/a}") br+=("$x") bt+=("$(floors_per_wakeup "$bin")")
			fi
		done
	done
	floors_row "callgrind Ir, $FLOORS_JOBS jobs (bench/many.sh's mixed file) loaded + armed, exec to exit on SIGTERM (median of $FLOORS_CG_RUNS: new ${nl[*]}; base ${bl[*]})" \
		"$(median "${nl[@]}")" "$(median "${bl[@]}")"
	floors_row "callgrind Ir, one SIGHUP reload of those jobs, unchanged, --json (the run with it less the run without: new ${nr[*]}; base ${br[*]})" \
		"$(median "${nr[@]}")" "$(median "${br[@]}")"
	floors_row "callgrind Ir a wake-up of one ticking job, --interval 1ms --count $FLOORS_TICKS --format '%n %e', start and exit left out (new ${nt[*]}; base ${bt[*]})" \
		"$(median "${nt[@]}")" "$(median "${bt[@]}")"
}

floors_start_part() {
	local base=$1 k x a=() b=()
	for ((k = 1; k <= FLOORS_BLOCKS; k++)); do
		say "floors: start-to-exit, block $k/$FLOORS_BLOCKS of $STARTUP_PAIRS pairs in turns"
		x=$(with_steal "$BUILD/startup" "$STARTUP_PAIRS" "$TFD" --at now --count 1 -q -- \
			"$base" --at now --count 1 -q)
		detail "floors start-to-exit $k (a: new, b: $FLOORS_BASE_COMMIT): $x"
		[[ $(kv failed "$x") == 0 ]] || continue
		a+=("$(kv a_p50_us "$x")") b+=("$(kv b_p50_us "$x")")
	done
	floors_row "start-to-exit of a bare timer, \`--at now --count 1 -q\` (µs, median of $FLOORS_BLOCKS blocks of $STARTUP_PAIRS pairs in turns: new ${a[*]}; base ${b[*]})" \
		"$(median "${a[@]}")" "$(median "${b[@]}")"
}

floors_rss_part() {
	local base=$1 k a=() b=()
	say "floors: peak RSS, $FLOORS_RSS_PAIRS pairs in turns"
	for ((k = 1; k <= FLOORS_RSS_PAIRS; k++)); do
		a+=("$(fleet_rss "$TFD")") b+=("$(fleet_rss "$base")")
	done
	detail "floors peak RSS (kB, /usr/bin/time -f %M, in turns): new ${a[*]}; base ${b[*]}"
	floors_row "peak RSS of the same bare timer (kB, /usr/bin/time -f %M, median of $FLOORS_RSS_PAIRS pairs in turns)" \
		"$(median "${a[@]}")" "$(median "${b[@]}")"
}

floors_lateness_part() {
	local base=$1 k which bin a np=() n99=() bp=() b99=() r
	for ((k = 1; k <= PAIRS_1MS; k++)); do
		say "floors: lateness at 1 ms, 3000 ticks, pair $k/$PAIRS_1MS"
		for which in new base; do
			bin=$TFD
			[[ $which == base ]] && bin=$base
			a=$(harness -i 1000000 -n 3000 -- "$bin" --clock realtime --at '@{T}' \
				--interval '{I}' --count '{N}' --format '%n %l %e')
			detail "floors lateness $which $k: $a"
			run_ok "$a" || continue
			if [[ $which == new ]]; then
				np+=("$(kv p50_us "$a")") n99+=("$(kv p99_us "$a")")
			else
				bp+=("$(kv p50_us "$a")") b99+=("$(kv p99_us "$a")")
			fi
		done
	done
	r=$(ratio "$(median "${np[@]}")" "$(median "${bp[@]}")")
	row "floors: lateness at 1 ms, p50 on arrival (µs, 3000 ticks, median of $PAIRS_1MS pairs in turns: new ${np[*]}; base ${bp[*]}; ref: $FLOORS_BASE_COMMIT)" \
		"$(fix "$(median "${np[@]}")" 1)" "$(fix "$(median "${bp[@]}")" 1)" "$r" "report" "report"
	r=$(ratio "$(median "${n99[@]}")" "$(median "${b99[@]}")")
	row "floors: lateness at 1 ms, p99 on arrival (µs, the same runs: new ${n99[*]}; base ${b99[*]})" \
		"$(fix "$(median "${n99[@]}")" 1)" "$(fix "$(median "${b99[@]}")" 1)" "$r" "report" "report"
}

floors_section() {
	local base part
	have_tfd || return
	base=${TFD_BASE:-$(OLD_COMMIT=$FLOORS_BASE_COMMIT TFD_OLD='' old_tfd)} ||
		{ say "floors: could not build $FLOORS_BASE_COMMIT"; return; }
	say "floors: $TFD against $FLOORS_BASE_COMMIT ($base): $FLOORS_PARTS"
	for part in $FLOORS_PARTS; do
		case $part in
		callgrind | start | rss | lateness) "floors_${part}_part" "$base" ;;
		*) say "floors: unknown part '$part'" ;;
		esac
	done
}
