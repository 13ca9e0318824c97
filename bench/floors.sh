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
#   control    the control socket (issue 33, control without a circle):
#              callgrind instructions of one `tfdctl --json list` served
#              with FLOORS_JOBS jobs (tfd --jobs FILE --control under
#              callgrind, asked one status once armed and FLOORS_LISTS
#              lists, SIGTERMed: the run with the lists less the run
#              without, over FLOORS_LISTS), FLOORS_CG_RUNS runs each; and
#              the list's round trip as tfdctl sees it (exec to exit),
#              FLOORS_LIST_ROUNDS in turns against a base tfd beside it
#              (FLOORS_TFDCTL asks both)
#
# FLOORS_PARTS chooses (default all, about 5 minutes on 2 cores, with the
# base's build). The base is FLOORS_BASE_COMMIT built as the oldnew section
# builds its old tfd, or TFD_BASE. Every judged row's target is the issue's,
# within 1.02× of the base; lateness is reported.

FLOORS_PARTS=${FLOORS_PARTS:-callgrind start rss lateness control}
FLOORS_BASE_COMMIT=${FLOORS_BASE_COMMIT:-4298003}
FLOORS_JOBS=${FLOORS_JOBS:-10000}
FLOORS_TICKS=${FLOORS_TICKS:-2000}
FLOORS_CG_RUNS=${FLOORS_CG_RUNS:-3}
FLOORS_BLOCKS=${FLOORS_BLOCKS:-5}
FLOORS_RSS_PAIRS=${FLOORS_RSS_PAIRS:-21}
FLOORS_LISTS=${FLOORS_LISTS:-3}
FLOORS_LIST_ROUNDS=${FLOORS_LIST_ROUNDS:-21}
FLOORS_TFDCTL=${FLOORS_TFDCTL:-./tfdctl}

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

# floors_file: the jobs file of FLOORS_JOBS jobs (bench/many.sh's mixed
# one), made once; its path.
floors_file() {
	jobs_bin "$BUILD/jobbin" "$FLOORS_JOBS"
	jobs_file floors "$FLOORS_JOBS" mixed
}

# floors_bin WHICH BASE: the binary of WHICH (new: TFD, base: BASE).
floors_bin() {
	if [[ $1 == base ]]; then printf '%s' "$2"; else printf '%s' "$TFD"; fi
}

floors_callgrind_part() {
	local base=$1 file k which bin x
	local nl=() bl=() nr=() br=() nt=() bt=() load hup
	if ! command -v valgrind >/dev/null; then
		say "floors: no valgrind: its rows read n/a"
	fi
	file=$(floors_file)
	for ((k = 1; k <= FLOORS_CG_RUNS; k++)); do
		command -v valgrind >/dev/null || break
		say "floors: callgrind, run $k/$FLOORS_CG_RUNS: $FLOORS_JOBS jobs load + arm, a reload, ticking"
		for which in new base; do
			bin=$(floors_bin "$which" "$base")
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
			bin=$(floors_bin "$which" "$base")
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

# floors_ctl SOCK ARG...: tfdctl on SOCK with no time limit, its output
# dropped; fails as tfdctl does.
floors_ctl() {
	local sock=$1
	shift
	"$FLOORS_TFDCTL" --control="$sock" --timeout=0 "$@" >/dev/null
}

# floors_wait_socket PATH: until a socket is at PATH (60 s at most).
floors_wait_socket() {
	local k
	for ((k = 0; k < 600; k++)); do
		[[ -S $1 ]] && return
		sleep 0.1
	done
	return 1
}

# floors_list_ir BIN FILE LISTS: Ir of BIN --jobs FILE --control under
# callgrind from its exec to its exit on SIGTERM, asked one status once
# armed (the first answer comes once it is in its loop) and LISTS lists.
floors_list_ir() {
	local bin=$1 file=$2 lists=$3 out=$BUILD/floors-list.cg dir=$BUILD/floors-ctl pid k ok=1
	mkdir -p "$dir" && chmod 700 "$dir"
	rm -f "$out"
	valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --jobs "$file" \
		--control="$dir/c" -q >/dev/null 2>>"$LOG" &
	pid=$!
	floors_wait_socket "$dir/c" && floors_ctl "$dir/c" status cal1 || ok=0
	for ((k = 0; ok && k < lists; k++)); do
		floors_ctl "$dir/c" --json list || ok=0
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	((ok)) && floors_ir_of "$out"
}

# floors_list_us SOCK: the round trip of one tfdctl --json list, in µs.
floors_list_us() {
	local t0 t1
	t0=$(date +%s%N)
	floors_ctl "$1" --json list || return
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

# floors_ctl_tfd BIN FILE SOCK: BIN on FILE with --control at SOCK in the
# background, its pid printed once it answers.
floors_ctl_tfd() {
	local pid
	"$1" --jobs "$2" --control="$3" -q >/dev/null 2>>"$LOG" &
	pid=$!
	floors_wait_socket "$3" && floors_ctl "$3" status cal1 && printf '%s' "$pid"
}

floors_control_part() {
	local base=$1 file k which bin with without x nl=() bl=() na=() ba=() npid bpid dir
	file=$(floors_file)
	for ((k = 1; k <= FLOORS_CG_RUNS && FLOORS_HAVE_VALGRIND; k++)); do
		say "floors: callgrind, run $k/$FLOORS_CG_RUNS: $FLOORS_LISTS lists of $FLOORS_JOBS jobs"
		for which in new base; do
			bin=$(floors_bin "$which" "$base")
			with=$(floors_list_ir "$bin" "$file" "$FLOORS_LISTS")
			without=$(floors_list_ir "$bin" "$file" 0)
			x=n/a
			isnum "$with" && isnum "$without" && x=$(((with - without) / FLOORS_LISTS))
			detail "floors callgrind $bin --control, $FLOORS_LISTS lists: $with; none: $without"
			if [[ $which == new ]]; then nl+=("$x"); else bl+=("$x"); fi
		done
	done
	floors_row "callgrind Ir, one \`tfdctl --json list\` of $FLOORS_JOBS jobs served (bench/many.sh's mixed file; the run with $FLOORS_LISTS lists less the run without, over $FLOORS_LISTS; median of $FLOORS_CG_RUNS: new ${nl[*]}; base ${bl[*]})" \
		"$(median "${nl[@]}")" "$(median "${bl[@]}")"
	dir=$BUILD/floors-ctl
	mkdir -p "$dir" && chmod 700 "$dir"
	npid=$(floors_ctl_tfd "$TFD" "$file" "$dir/new")
	bpid=$(floors_ctl_tfd "$base" "$file" "$dir/base")
	if [[ -n $npid && -n $bpid ]]; then
		say "floors: tfdctl --json list round trip, $FLOORS_LIST_ROUNDS in turns"
		for ((k = 1; k <= FLOORS_LIST_ROUNDS; k++)); do
			na+=("$(floors_list_us "$dir/new")") ba+=("$(floors_list_us "$dir/base")")
		done
	fi
	for x in $npid $bpid; do
		kill -TERM "$x" 2>/dev/null
		wait "$x" 2>/dev/null
	done
	detail "floors tfdctl --json list round trip (µs, in turns): new ${na[*]}; base ${ba[*]}"
	x=$(ratio "$(median "${na[@]}")" "$(median "${ba[@]}")")
	row "floors: \`tfdctl --json list\` round trip, $FLOORS_JOBS jobs, exec to exit (µs, median of $FLOORS_LIST_ROUNDS in turns; ref: $FLOORS_BASE_COMMIT)" \
		"$(median "${na[@]}")" "$(median "${ba[@]}")" "$x" "report" "report"
}

floors_section() {
	local base part
	have_tfd || return
	FLOORS_HAVE_VALGRIND=0
	command -v valgrind >/dev/null && FLOORS_HAVE_VALGRIND=1
	base=${TFD_BASE:-$(OLD_COMMIT=$FLOORS_BASE_COMMIT TFD_OLD='' old_tfd)} ||
		{ say "floors: could not build $FLOORS_BASE_COMMIT"; return; }
	say "floors: $TFD against $FLOORS_BASE_COMMIT ($base): $FLOORS_PARTS"
	for part in $FLOORS_PARTS; do
		case $part in
		callgrind | start | rss | lateness | control) "floors_${part}_part" "$base" ;;
		*) say "floors: unknown part '$part'" ;;
		esac
	done
}
