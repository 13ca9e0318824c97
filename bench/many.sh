# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# bench/many.sh: the sections of bench/run.sh for many jobs (`jobs`), for
# --tag-output (`tagout`), against cron and snooze (`peers`) and against
# the tfd from before the job table (`oldnew`). Sourced by bench/run.sh,
# whose helpers (row, detail, median, ratio, fix, at_most, harness, kv,
# peak_rss, idle_count, median_run_us, per_run) it uses.

# Jobs in the generated file; the commit of the tfd from before the rewrite.
JOBS_N=${JOBS_N:-10000}
OLD_COMMIT=${OLD_COMMIT:-8f28c98}
# Peers: minutes of punctuality per phase, seconds of the idle CPU figure.
PEER_MINUTES=${PEER_MINUTES:-3}
PEER_IDLE_S=${PEER_IDLE_S:-240}
PEER_STORM=${PEER_STORM:-1000}

# The jobs files

# jobs_lines N BIN KIND: N lines, none of which elapses within a month of
# now (every month but this one and the next). KIND mixed: even lines are
# crontab lines running BIN/cI, odd ones tfd lines with --calendar and
# --name calI; KIND crontab: all crontab lines; KIND cron.d: the same with
# cron.d's user field; KIND samename: the mixed file, every crontab line
# running /bin/true, so that they share one default name (true, true-2...).
jobs_lines() {
	awk -v n="$1" -v bin="$2" -v kind="$3" -v cur="$(date +%-m)" 'BEGIN {
		for (i = 0; i < n; i++) {
			m = i % 60; h = int(i / 60) % 24; d = int(i / 1440) % 28 + 1
			mo = (cur + 1 + i % 10) % 12 + 1
			cmd = kind == "samename" ? "/bin/true" : sprintf("%s/c%d", bin, i)
			user = kind == "cron.d" ? " root" : ""
			if (i % 2 == 0 || kind == "crontab" || kind == "cron.d")
				printf "%d %d %d %d *%s %s\n", m, h, d, mo, user, cmd
			else
				printf "--name cal%d --calendar \047*-%02d-%02d %02d:%02d:00\047 -- /bin/true\n", i, mo, d, h, m
		}
	}'
}

# BIN/c0 ... BIN/c(N-1): links to /bin/true, so that crontab lines have
# commands of their own and so names of their own, as in a real crontab.
jobs_bin() {
	mkdir -p "$1"
	[[ -e $1/c$(($2 - 1)) ]] && return
	perl -e 'symlink("/bin/true", "$ARGV[0]/c$_") for 0 .. $ARGV[1] - 1' "$1" "$2"
}

# Each file in a directory of its own: tfd watches the file's directory,
# and a write to another file there (run.log) would wake it.
jobs_file() {
	local dir=$BUILD/jobs-$1
	mkdir -p "$dir"
	jobs_lines "$2" "$PWD/$BUILD/jobbin" "$3" >"$dir/jobs"
	printf '%s/jobs' "$dir"
}

# Many jobs: load, dry run, footprint, wake-ups, reload

# jobs_probe ARGS...: bench/jobs_probe under ulimit -n 1024 (soft), the
# usual default and the issue's condition: tfd needs no descriptor per job
# (poll slots only for --join targets), so the limit is never raised.
JOBS_NOFILE=1024
jobs_probe() {
	(ulimit -Sn "$JOBS_NOFILE" && with_steal "$BUILD/jobs_probe" "$@")
}

# Whether tfd runs FILE under ulimit -n 1024: if it cannot, the row says
# how it failed and the figures below (taken at the same limit) read n/a.
jobs_nofile_row() {
	local a err ok=no
	a=$( (ulimit -Sn "$JOBS_NOFILE" && "$BUILD/jobs_probe" -- "$TFD" --jobs "$1") 2>"$BUILD/jobs-nofile.err")
	err=$(head -n 1 "$BUILD/jobs-nofile.err")
	detail "jobs under ulimit -n $JOBS_NOFILE: $a $err"
	[[ $(kv exit "$a") == 143 ]] && ok=yes
	row "$JOBS_N jobs under ulimit -n $JOBS_NOFILE: loads, arms and waits (every figure below is taken at this limit)" \
		"$([[ $ok == yes ]] && printf yes || printf "no: exit %s, '%s'" "$(kv exit "$a")" "${err:-?}")" "—" "—" "works" "$ok"
}

jobs_section() {
	local file reload_file same k a idle=() cpu=() hwm=() wake=n/a wcpu=n/a r d s
	jobs_bin "$BUILD/jobbin" "$JOBS_N"
	file=$(jobs_file mixed "$JOBS_N" mixed)
	reload_file=$(jobs_file reload "$JOBS_N" mixed)
	printf '%s\n' "--name tick --interval 1s -- /bin/true" >>"$reload_file"
	have_tfd || return
	jobs_nofile_row "$file"
	for ((k = 1; k <= PAIRS; k++)); do
		say "jobs: $JOBS_N jobs, load and arm, run $k/$PAIRS$( ((k == 1)) && printf ', then 10 s idle')"
		if ((k == 1)); then
			a=$(jobs_probe -w 10000 -- "$TFD" --jobs "$file")
		else
			a=$(jobs_probe -- "$TFD" --jobs "$file")
		fi
		detail "jobs load run $k: $a"
		[[ $(kv exit "$a") == 143 ]] || continue
		idle+=("$(kv idle_ms "$a")") cpu+=("$(kv idle_cpu_ms "$a")") hwm+=("$(kv vmhwm_kb "$a")")
		if ((k == 1)); then
			wake=$(($(kv wait_nvcsw "$a") + $(kv wait_nivcsw "$a")))
			wcpu=$(kv wait_cpu_us "$a")
		fi
	done
	r=$(median "${idle[@]}")
	row "$JOBS_N jobs (half crontab, half --calendar): load + arm, exec to asleep in poll (ms, median of ${#idle[@]}: ${idle[*]}; tfd's CPU to then: ${cpu[*]} ms)" \
		"$(fix "$r" 1)" "—" "—" "< 200 ms" "$(at_most "$r" 199.9)"
	r=$(median "${hwm[@]}")
	row "$JOBS_N jobs: peak RSS once armed, VmHWM (kB, median of ${#hwm[@]})" \
		"$r" "—" "—" "< 32 MB" "$(at_most "$r" 32767)"
	row "$JOBS_N jobs: wake-ups over 10 s with no job due (context switches, voluntary + not; CPU: $wcpu µs)" \
		"$wake" "—" "—" "0" "$(at_most "$wake" 0)"
	say "jobs: --dry-run=20000 of the merged schedule"
	d=$(ulimit -Sn "$JOBS_NOFILE" && dry_ms --jobs "$file" --dry-run=20000)
	row "$JOBS_N jobs: --dry-run=20000 of the merged schedule (ms, median of 5)" \
		"$(fix "$d" 1)" "—" "—" "< 1000 ms" "$(at_most "$d" 999.9)"
	jobs_reload_row "$reload_file"
	same=$(jobs_file samename 2000 samename)
	say "jobs: 2000 jobs, 1000 of them sharing a default name"
	s=$(jobs_probe -- "$TFD" --jobs "$same")
	detail "jobs load, 2000 jobs, 1000 crontab lines of /bin/true: $s"
	row "2000 jobs, the 1000 crontab lines all /bin/true (names true, true-2, ...): load + arm (ms; each default name takes its base name's next free suffix)" \
		"$(fix "$(kv idle_ms "$s")" 1)" "—" "—" "report" "report"
}

# SIGHUP of the unchanged file: until the "reload" event, which must say
# that every job was kept; the ticker's seq goes on across it.
jobs_reload_row() {
	local a line kept seq0 seq1 verdict=no
	say "jobs: reload of the unchanged file ($JOBS_N jobs + a 1 s ticker), SIGHUP, --json"
	a=$(jobs_probe -w 2500 -H -- "$TFD" --jobs "$1" --json)
	detail "jobs reload: $a"
	line=$(kv reload_line "$a")
	kept=$(sed -n 's/.*"kept":\([0-9]*\).*/\1/p' <<<"$line")
	seq0=$(kv tick_seq_before "$a") seq1=$(kv tick_seq_after "$a")
	if [[ $(at_most "$(kv reload_ms "$a")" 199.9) == yes && $kept == $((JOBS_N + 1)) ]] &&
		[[ $line == *'"added":0,"removed":0'* ]] && ((seq1 > seq0 && seq0 > 0)); then
		verdict=yes
	fi
	row "$JOBS_N jobs + a 1 s ticker: SIGHUP of the unchanged file to its \"reload\" event (ms; kept: ${kept:-?}; the ticker's seq ${seq0} before, ${seq1} after; asleep again after $(kv reload_idle_ms "$a") ms; peak RSS after it $(kv vmhwm_kb "$a") kB)" \
		"$(fix "$(kv reload_ms "$a")" 1)" "—" "—" "< 200 ms, every job kept" "$verdict"
}

# --tag-output: the cost per line

# tag_ms LINES [OPTION...]: median ms of tfd -d 0 -n 1 -q OPTION... -- seq
# LINES into a pipe read by cat, 5 runs.
tag_ms() {
	local n=$1 hj=$BUILD/tag.json cmd
	shift
	cmd="$(printf '%q ' "$TFD" -d 0 -n 1 -q "$@" -- seq "$n") | cat >/dev/null"
	if hyperfine --shell=bash --warmup 1 --runs 5 --style none --export-json "$hj" "$cmd" >>"$LOG" 2>&1; then
		hyperfine_ms "$hj" 0
	else
		printf 'n/a'
	fi
}

# tfd's own CPU (schedstat, without its run's) per line: the harness
# reads tfd's stdout pipe, raw.
tagout_cpu_row() {
	local n=$1 a b
	a=$(harness -r -- "$TFD" -d 0 -n 1 -q --tag-output -- seq "$n")
	b=$(harness -r -- "$TFD" -d 0 -n 1 -q -- seq "$n")
	detail "tagout cpu, --tag-output: $a"
	detail "tagout cpu, straight: $b"
	row "--tag-output: tfd's own CPU per line, the same run under bench/lateness reading the pipe (ns; its CPU: $(kv own_cpu_us "$a") µs tagged, $(kv own_cpu_us "$b") µs straight; with the run's: $(kv cpu_us "$a") and $(kv cpu_us "$b") µs)" \
		"$(awk -v c="$(kv own_cpu_us "$a")" -v n="$n" 'BEGIN { printf "%.1f", c * 1000 / n }')" \
		"$(awk -v c="$(kv own_cpu_us "$b")" -v n="$n" 'BEGIN { printf "%.1f", c * 1000 / n }')" "—" "report" "report"
}

tagout_section() {
	local n=200000 plain tagged plain0 tagged0 per_plain per_tagged
	have_tfd || return
	say "tagout: tfd -d 0 -n 1 -q [--tag-output] -- seq $n | cat >/dev/null, and with 1 line"
	plain=$(tag_ms "$n") tagged=$(tag_ms "$n" --tag-output)
	plain0=$(tag_ms 1) tagged0=$(tag_ms 1 --tag-output)
	detail "tagout ms: plain $plain (1 line: $plain0), tagged $tagged (1 line: $tagged0)"
	per_plain=$(awk -v a="$plain" -v b="$plain0" -v n="$n" 'BEGIN { printf "%.1f", (a - b) * 1e6 / n }')
	per_tagged=$(awk -v a="$tagged" -v b="$tagged0" -v n="$n" 'BEGIN { printf "%.1f", (a - b) * 1e6 / n }')
	row "--tag-output: wall per line, a run printing $n lines (seq) into a pipe read by cat (ns; (T($n) − T(1)) / $n, medians of 5: tagged $(fix "$tagged" 1) − $(fix "$tagged0" 1) ms; ref: the run writing straight to the pipe, $(fix "$plain" 1) − $(fix "$plain0" 1) ms)" \
		"$per_tagged" "$per_plain" "$(ratio "$per_tagged" "$per_plain")" "report" "report"
	tagout_cpu_row "$n"
}

# Peers: Debian's cron and snooze

# Absolute: cron runs its jobs in root's home directory.
PEER_DIR=$PWD/$BUILD/peers
CRON_FILE=/etc/cron.d/tfd-bench
PEER_PIDS=()

peers_stop() {
	local p
	for p in "${PEER_PIDS[@]}"; do
		kill -TERM -- "$p" 2>/dev/null
	done
	for p in "${PEER_PIDS[@]}"; do
		while kill -0 -- "$p" 2>/dev/null; do sleep 0.1; done
	done
	PEER_PIDS=()
	rm -f "$CRON_FILE"
}

# A cron daemon of our own, in the foreground: none may be running already.
cron_start() {
	if [[ -e /run/crond.pid ]] && kill -0 "$(cat /run/crond.pid)" 2>/dev/null; then
		say "peers: a cron daemon is running already (pid $(cat /run/crond.pid)); not measured"
		return 1
	fi
	cron -f -L 0 2>>"$LOG" &
	PEER_PIDS+=("$!")
}

# snooze as runit would run it: started again each time its command ended.
# The loop is in a session (and process group) of its own, -PID ends it.
snooze_start() {
	# shellcheck disable=SC2016 # the inner shell expands them
	setsid bash -c 'echo $$ >"$1"; shift; while :; do snooze "$@"; done' _ "$PEER_DIR/snooze.pid" "$@" &
	while [[ ! -s $PEER_DIR/snooze.pid ]]; do sleep 0.05; done
	PEER_PIDS+=("-$(cat "$PEER_DIR/snooze.pid")")
}

# The first whole minute at least 5 s after Unix time START: the daemons
# have loaded their files by then.
first_minute() { printf '%s' "$((($1 + 5) / 60 * 60 + 60))"; }

# Sleeps until MINUTES minutes after the first minute counted, plus 30 s
# for the last starts to be written (cron takes seconds to start 1000 jobs).
peers_wait() {
	local until=$(($(first_minute "$1") + 60 * $2 - 60 + 30))
	sleep "$(awk -v u="$until" -v t="$EPOCHREALTIME" 'BEGIN { print u - t }')"
}

# lateness_summary FILE SINCE: "min median max n" in ms, of each start
# after its minute, from the minute SINCE on.
lateness_summary() {
	awk -v since="$2" '$1 >= since - 30 { l = ($1 % 60) * 1000; if (l > 30000) l -= 60000; print l }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "n/a n/a n/a 0"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.1f %.1f %.1f %d\n", v[1], m, v[NR], NR }'
}

# A job writing its start to FILE, as a crontab line for cron or tfd.
stamp_cmd() { printf 'date +\\%%s.\\%%N >>%s' "$1"; }

peer_row() {
	local what=$1 file=$2 since=$3 target=$4 s
	read -ra s <<<"$(lateness_summary "$file" "$since")"
	detail "peers $what: lateness min/median/max ${s[*]:0:3} ms over ${s[3]} starts ($file)"
	row "punctuality, $what: start after the minute (ms, min / median / max over ${s[3]} starts)" \
		"${s[0]} / ${s[1]} / ${s[2]}" "—" "—" "$target" "report"
}

peers_section() {
	local since k t1 t2
	have_tfd || return
	if ! command -v cron >/dev/null || ! command -v snooze >/dev/null; then
		say "peers: cron or snooze missing (.ci/install-deps)"
		return
	fi
	rm -rf "$PEER_DIR"
	mkdir -p "$PEER_DIR/one" "$PEER_DIR/storm" "$PEER_DIR/idle"
	trap peers_stop EXIT
	trap 'exit 130' INT TERM
	# One * * * * * job each, side by side.
	printf '* * * * * %s\n' "$(stamp_cmd "$PEER_DIR/tfd.1")" >"$PEER_DIR/one/jobs"
	printf '* * * * * root %s\n' "$(stamp_cmd "$PEER_DIR/cron.1")" >"$CRON_FILE"
	since=$(date +%s)
	"$TFD" --jobs "$PEER_DIR/one/jobs" 2>>"$LOG" &
	PEER_PIDS+=("$!")
	cron_start || { peers_stop; trap - EXIT INT TERM; return; }
	snooze_start -H'*' -M'*' -S0 sh -c "date +%s.%N >>$PEER_DIR/snooze.1"
	say "peers: one * * * * * job in tfd --jobs, cron and snooze, $PEER_MINUTES minutes"
	peers_wait "$since" "$PEER_MINUTES"
	peers_stop
	since=$(first_minute "$since")
	peer_row "one * * * * * job, tfd --jobs" "$PEER_DIR/tfd.1" "$since" "report"
	peer_row "one * * * * * job, Debian cron 3.0pl1" "$PEER_DIR/cron.1" "$since" "report"
	peer_row "one job, snooze -H'*' -M'*' -S0 run again after each run (as runsv would)" "$PEER_DIR/snooze.1" "$since" "report"

	# PEER_STORM jobs all due each minute: tfd, then cron, apart.
	for ((k = 0; k < PEER_STORM; k++)); do
		printf '* * * * * %s\n' "$(stamp_cmd "$PEER_DIR/tfd.storm")"
	done >"$PEER_DIR/storm/jobs"
	since=$(date +%s)
	"$TFD" --jobs "$PEER_DIR/storm/jobs" 2>>"$LOG" &
	PEER_PIDS+=("$!")
	say "peers: $PEER_STORM * * * * * jobs in tfd --jobs, $PEER_MINUTES minutes"
	peers_wait "$since" "$PEER_MINUTES"
	peers_stop
	t1=$(first_minute "$since") since=$(date +%s)
	for ((k = 0; k < PEER_STORM; k++)); do
		printf '* * * * * root %s\n' "$(stamp_cmd "$PEER_DIR/cron.storm")"
	done >"$CRON_FILE"
	cron_start || { peers_stop; trap - EXIT INT TERM; return; }
	say "peers: $PEER_STORM * * * * * jobs in cron's crontab, $PEER_MINUTES minutes"
	peers_wait "$since" "$PEER_MINUTES"
	peers_stop
	t2=$(first_minute "$since")
	peer_row "$PEER_STORM * * * * * jobs in one file, tfd --jobs (every start)" "$PEER_DIR/tfd.storm" "$t1" "report"
	peer_row "$PEER_STORM * * * * * jobs in /etc/cron.d, Debian cron (every start)" "$PEER_DIR/cron.storm" "$t2" "report"

	peers_idle_cpu
	trap - EXIT INT TERM
}

# CPU time per hour, idle, with the same JOBS_N-line crontab (none due):
# each daemon's own CPU (schedstat, ns) over PEER_IDLE_S seconds, scaled.
peers_idle_cpu() {
	local tfd_pid cron_pid c0 c1 v0 v1 w0 w1 tcpu ccpu
	jobs_bin "$BUILD/jobbin" "$JOBS_N"
	jobs_lines "$JOBS_N" "$PWD/$BUILD/jobbin" crontab >"$PEER_DIR/idle/jobs"
	jobs_lines "$JOBS_N" "$PWD/$BUILD/jobbin" cron.d >"$CRON_FILE"
	# Under ulimit -n 1024, as in the jobs section.
	(ulimit -Sn "$JOBS_NOFILE" && exec "$TFD" --jobs "$PEER_DIR/idle/jobs" 2>>"$LOG") &
	tfd_pid=$! PEER_PIDS+=("$!")
	cron_start || { peers_stop; return; }
	cron_pid=${PEER_PIDS[-1]}
	say "peers: idle CPU with a $JOBS_N-line crontab, tfd and cron, $PEER_IDLE_S s after both have loaded it"
	# cron reads its files when it starts and then once a minute; tfd is
	# loaded when it sleeps in poll: start counting after both.
	sleep 70
	c0=$(own_cpu "$tfd_pid") c1=$(own_cpu "$cron_pid")
	v0=$(vcsw "$tfd_pid") w0=$(vcsw "$cron_pid")
	sleep "$PEER_IDLE_S"
	tcpu=$(($(own_cpu "$tfd_pid") - c0)) ccpu=$(($(own_cpu "$cron_pid") - c1))
	v1=$(vcsw "$tfd_pid") w1=$(vcsw "$cron_pid")
	peers_stop
	detail "peers idle: over $PEER_IDLE_S s: tfd cpu ${tcpu} ns, $((v1 - v0)) switches; cron cpu ${ccpu} ns, $((w1 - w0)) switches"
	local th ch
	th=$(awk -v c="$tcpu" -v s="$PEER_IDLE_S" 'BEGIN { printf "%.3f", c / 1e6 * 3600 / s }')
	ch=$(awk -v c="$ccpu" -v s="$PEER_IDLE_S" 'BEGIN { printf "%.3f", c / 1e6 * 3600 / s }')
	row "idle CPU per hour with a $JOBS_N-line crontab, none due (ms/h; own CPU over $PEER_IDLE_S s, scaled; wake-ups meanwhile: tfd $((v1 - v0)), cron $((w1 - w0)); ref: Debian cron)" \
		"$th" "$ch" "$(ratio "$th" "$ch")" "report" "report"
}

own_cpu() { awk '{ print $1 }' "/proc/$1/schedstat"; }
vcsw() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"; }

# Old against new: the single-job figures, interleaved

# The tfd of OLD_COMMIT, built from git archive into bench/build/old.
old_tfd() {
	if [[ -n ${TFD_OLD-} ]]; then
		printf '%s' "$TFD_OLD"
		return
	fi
	tfd_at "$OLD_COMMIT" "$BUILD/old"
}

# tfd_at COMMIT DIR: tfd built from COMMIT in DIR (once); prints its path.
tfd_at() {
	local dir=$2
	if [[ ! -x $dir/tfd || $(cat "$dir/.commit" 2>/dev/null) != "$1" ]]; then
		rm -rf "$dir" && mkdir -p "$dir" &&
			git archive "$1" | tar -x -C "$dir" &&
			make -C "$dir" tfd >>"$LOG" 2>&1 && printf '%s' "$1" >"$dir/.commit" ||
			return 1
	fi
	printf '%s' "$dir/tfd"
}

# oldnew_pair LABEL UNIT NEW OLD: one row, new/old, judged against 1.05×.
oldnew_row() {
	local r
	r=$(ratio "$3" "$4")
	row "old vs new: $1 ($2; new: $OLD_COMMIT..HEAD, old: $OLD_COMMIT)" "$(fix "$3" 1)" "$(fix "$4" 1)" "$r" "≤ 1.05× of old" "$(at_most "$r" 1.05)"
}

oldnew_section() {
	local old k a b x np=() op=() n99=() o99=() nm=() om=() nd=() od=() nc=() oc=() nt=() ot=() nr=() orr=()
	local json=$BUILD/oldnew.json t=(n/a n/a) f=(n/a n/a) which bin
	have_tfd || return
	old=$(old_tfd) || { say "oldnew: could not build $OLD_COMMIT"; return; }
	for ((k = 1; k <= PAIRS; k++)); do
		say "oldnew: pair $k/$PAIRS: lateness at 1 ms, spawn, start-to-exit, RSS"
		for which in new old; do
			bin=$TFD
			[[ $which == old ]] && bin=$old
			a=$(harness -i 1000000 -n 3000 -- "$bin" --clock realtime --at '@{T}' --interval '{I}' --count '{N}' --format '%n %l %e')
			detail "oldnew lateness $which $k: $a"
			b=$(harness -r -O "$json" -- "$bin" -i 2ms -n 1000 --json -- /bin/true)
			detail "oldnew spawn $which $k: $b"
			if [[ $which == new ]]; then
				np+=("$(kv p50_us "$a")") n99+=("$(kv p99_us "$a")") nm+=("$(kv missed "$a")")
				nd+=("$(median_run_us "$json")") nc+=("$(per_run "$(kv own_cpu_us "$b")" "$(grep -cE '"action": *"run"' "$json")")")
				nr+=("$(peak_rss "oldnew rss new $k" -- "$bin" -i 1s -n 1 -q)")
			else
				op+=("$(kv p50_us "$a")") o99+=("$(kv p99_us "$a")") om+=("$(kv missed "$a")")
				od+=("$(median_run_us "$json")") oc+=("$(per_run "$(kv own_cpu_us "$b")" "$(grep -cE '"action": *"run"' "$json")")")
				orr+=("$(peak_rss "oldnew rss old $k" -- "$bin" -i 1s -n 1 -q)")
			fi
		done
		x=$(with_steal "$BUILD/startup" "$STARTUP_PAIRS" "$TFD" -d 0 -n 1 -q -- "$old" -d 0 -n 1 -q)
		detail "oldnew start-to-exit $k (a: new, b: old): $x"
		nt+=("$(kv a_p50_us "$x")") ot+=("$(kv b_p50_us "$x")")
	done
	a=$(harness -r -s 20 -- "$TFD" -i 1s -n 5 -q)
	detail "oldnew idle new: $a"
	read -ra t <<<"$(idle_count "$a" 120)"
	b=$(harness -r -s 20 -- "$old" -i 1s -n 5 -q)
	detail "oldnew idle old: $b"
	read -ra f <<<"$(idle_count "$b" 120)"
	oldnew_row "lateness at 1 ms, p50 on arrival, 3000 ticks" "µs, median of $PAIRS: new ${np[*]}; old ${op[*]}" "$(median "${np[@]}")" "$(median "${op[@]}")"
	oldnew_row "lateness at 1 ms, p99 on arrival" "µs: new ${n99[*]}; old ${o99[*]}" "$(median "${n99[@]}")" "$(median "${o99[@]}")"
	row "old vs new: missed ticks at 1 ms (of 3000: new ${nm[*]}; old ${om[*]})" "$(median "${nm[@]}")" "$(median "${om[@]}")" \
		"$(ratio "$(median "${nm[@]}")" "$(median "${om[@]}")")" "≤ old + 1" \
		"$(at_most "$(median "${nm[@]}")" "$(awk -v m="$(median "${om[@]}")" 'BEGIN { print m + 1 }')")"
	oldnew_row "spawn, wall per run of /bin/true at -i 2ms -n 1000 --json" "µs, median run duration: new ${nd[*]}; old ${od[*]}" "$(median "${nd[@]}")" "$(median "${od[@]}")"
	oldnew_row "spawn, tfd's own CPU per run" "µs: new ${nc[*]}; old ${oc[*]}" "$(median "${nc[@]}")" "$(median "${oc[@]}")"
	oldnew_row "start-to-exit, -d 0 -n 1 -q" "µs, median of $PAIRS blocks of $STARTUP_PAIRS in turns: new ${nt[*]}; old ${ot[*]}" "$(median "${nt[@]}")" "$(median "${ot[@]}")"
	oldnew_row "peak RSS on a 1 s timer, VmHWM" "kB: new ${nr[*]}; old ${orr[*]}" "$(median "${nr[@]}")" "$(median "${orr[@]}")"
	row "old vs new: voluntary switches over 5 expirations at 1 s (off an expiration)" "${t[0]} (${t[1]})" "${f[0]} (${f[1]})" "—" "the same as old" \
		"$([[ ${t[0]} == "${f[0]}" && ${t[1]} == "${f[1]}" ]] && printf yes || printf no)"
}

# Storms of due runs (issue 18): jobs all due at the same second, each one
# --at on the realtime clock, so that each runs once and tfd ends after the
# last. STORM_N jobs of /bin/true; STORM_TAG jobs with --tag-output under
# ulimit -n 1024; STORM_TERM jobs and a SIGTERM at the first run.
STORM_N=${STORM_N:-50000}
STORM_TAG=${STORM_TAG:-2000}
STORM_TERM=${STORM_TERM:-10000}

# storm_file FILE N [OPTIONS...]: N jobs due 2 s from now.
storm_file() {
	local file=$1 n=$2 at
	shift 2
	at=$(($(date +%s) + 2))
	awk -v n="$n" -v at="$at" -v rest="$*" \
		'BEGIN { for (i = 1; i <= n; i++) printf "--name j%d --clock realtime --at @%d %s -- /bin/true\n", i, at, rest }' >"$file"
}

# storm_counts JSON: "ticks exits distinct" of a --json event stream.
storm_counts() {
	printf '%s %s %s\n' "$(grep -c '"event":"tick"' "$1")" "$(grep -c '"event":"exit"' "$1")" \
		"$(grep '"event":"exit"' "$1" | grep -o '"job":"[^"]*"' | sort -u | wc -l)"
}

storms_section() {
	local file=$BUILD/storm.jobs json=$BUILD/storm.json err=$BUILD/storm.err status t0 t1 c pid
	have_tfd || return
	say "storms: $STORM_N jobs due at once"
	storm_file "$file" "$STORM_N"
	t0=$EPOCHREALTIME
	"$TFD" --jobs "$file" --json >"$json" 2>"$err"
	status=$?
	t1=$EPOCHREALTIME
	read -ra c <<<"$(storm_counts "$json")"
	detail "storms: $STORM_N jobs: exit $status, ticks ${c[0]}, exits ${c[1]}, distinct ${c[2]}, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, stderr $(wc -l <"$err") lines"
	row "storm: $STORM_N jobs due at once, /bin/true (runs started, ended, distinct jobs; tfd's exit status; seconds from exec to exit)" \
		"${c[0]}/${c[1]}/${c[2]}, exit $status, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" "—" "—" "each once, tfd alive" \
		"$([[ $status == 0 && ${c[0]} == "$STORM_N" && ${c[1]} == "$STORM_N" && ${c[2]} == "$STORM_N" ]] && printf yes || printf no)"
	say "storms: $STORM_TAG --tag-output jobs under ulimit -n 1024"
	storm_file "$file" "$STORM_TAG"
	(ulimit -n 1024 && exec "$TFD" --jobs "$file" --json --tag-output >"$json" 2>"$err")
	status=$?
	read -ra c <<<"$(storm_counts "$json")"
	detail "storms: $STORM_TAG --tag-output jobs: exit $status, ticks ${c[0]}, exits ${c[1]}, distinct ${c[2]}"
	row "storm: $STORM_TAG --tag-output jobs under ulimit -n 1024 (runs started, ended, distinct jobs; exit status)" \
		"${c[0]}/${c[1]}/${c[2]}, exit $status" "—" "—" "each once, tfd alive" \
		"$([[ $status == 0 && ${c[1]} == "$STORM_TAG" && ${c[2]} == "$STORM_TAG" ]] && printf yes || printf no)"
	say "storms: SIGTERM at the first run of $STORM_TERM"
	storm_file "$file" "$STORM_TERM"
	: >"$json"
	"$TFD" --jobs "$file" --json >"$json" 2>"$err" &
	pid=$!
	until grep -q '"event":"tick"' "$json" 2>/dev/null; do sleep 0.01; done
	t0=$EPOCHREALTIME
	kill -TERM "$pid"
	wait "$pid"
	status=$?
	t1=$EPOCHREALTIME
	read -ra c <<<"$(storm_counts "$json")"
	detail "storms: SIGTERM in a storm of $STORM_TERM: exit $status after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms, ${c[0]} started, ${c[1]} reported ended"
	row "storm: SIGTERM at the first run of $STORM_TERM due at once (ms from the signal to exit; runs started, every one reaped and reported)" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms, ${c[0]} started, ${c[1]} ended, exit $status" "—" "—" "< 1000 ms, 143" \
		"$([[ $status == 143 && ${c[0]} == "${c[1]}" ]] && awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a < 1) ? "yes" : "no" }' || printf no)"
}

# Many jobs over many files (issue 17): the same 10,000 lines as the jobs
# section, split into a directory of JOBS_FILES files (jobs-000 ...), each
# its own crontab, against the one file, interleaved PAIRS times. Target:
# within 1.2x of the one file on load, RSS, wake-ups and reload.
JOBS_FILES=${JOBS_FILES:-100}

# jobs_split FILE DIR: FILE's lines into DIR/jobs-000 ... in equal parts.
jobs_split() {
	mkdir -p "$2"
	rm -f "$2"/jobs-*
	split -n "l/$JOBS_FILES" -d -a 3 "$1" "$2/jobs-"
	printf '%s' "$2"
}

# jobsdir_run SOURCE RELOAD_SOURCE: one load run of SOURCE (10 s idle) and
# one SIGHUP run of RELOAD_SOURCE (a file or a directory);
# prints "idle_ms= cpu_ms= vmhwm_kb= wake= reload_ms= kept=".
jobsdir_run() {
	local a h line
	a=$(jobs_probe -w 10000 -- "$TFD" --jobs "$1")
	h=$(jobs_probe -w 2500 -H -- "$TFD" --jobs "$2" --json)
	detail "jobsdir $1: $a; reload $2: $h"
	line=$(kv reload_line "$h")
	printf 'idle_ms=%s cpu_ms=%s vmhwm_kb=%s wake=%s reload_ms=%s kept=%s\n' \
		"$(kv idle_ms "$a")" "$(kv idle_cpu_ms "$a")" "$(kv vmhwm_kb "$a")" \
		"$(($(kv wait_nvcsw "$a") + $(kv wait_nivcsw "$a")))" \
		"$(kv reload_ms "$h")" "$(sed -n 's/.*"kept":\([0-9]*\).*/\1/p' <<<"$line")"
}

jobsdir_row() {
	local what=$1 key=$2 unit=$3 f d
	shift 3
	f=$(for r in "${FILE_RUNS[@]}"; do kv "$key" "$r"; done)
	d=$(for r in "${DIR_RUNS[@]}"; do kv "$key" "$r"; done)
	# shellcheck disable=SC2086 # one figure a word
	f=$(median $f) d=$(median $d)
	local r verdict
	r=$(ratio "$d" "$f")
	if [[ $key == wake ]]; then
		verdict=$(at_most "$d" 0)
	else
		verdict=$(awk -v r="$r" 'BEGIN { print (r != "n/a" && r <= 1.2) ? "yes" : "no" }')
	fi
	row "$JOBS_N jobs in $JOBS_FILES files (a --jobs directory) against one file: $what ($unit; directory $(for x in "${DIR_RUNS[@]}"; do kv "$key" "$x"; done | paste -sd' '); file $(for x in "${FILE_RUNS[@]}"; do kv "$key" "$x"; done | paste -sd' '))" \
		"$d" "$f" "$r" "$([[ $key == wake ]] && printf 0 || printf '≤ 1.2×')" "$verdict"
}

jobsdir_section() {
	local file reload_file dir reload_dir k
	FILE_RUNS=() DIR_RUNS=()
	jobs_bin "$BUILD/jobbin" "$JOBS_N"
	file=$(jobs_file mixed "$JOBS_N" mixed)
	reload_file=$(jobs_file reload "$JOBS_N" mixed)
	printf '%s\n' "--name tick --interval 1s -- /bin/true" >>"$reload_file"
	dir=$(jobs_split "$file" "$BUILD/jobsdir-mixed")
	reload_dir=$(jobs_split "$reload_file" "$BUILD/jobsdir-reload")
	have_tfd || return
	for ((k = 1; k <= PAIRS; k++)); do
		say "jobsdir: pair $k/$PAIRS: $JOBS_N jobs in one file, then in $JOBS_FILES files (load, 10 s idle, SIGHUP)"
		FILE_RUNS+=("$(jobsdir_run "$file" "$reload_file")")
		DIR_RUNS+=("$(jobsdir_run "$dir" "$reload_dir")")
	done
	jobsdir_row "load + arm, exec to asleep in poll" idle_ms "ms, medians"
	jobsdir_row "tfd's own CPU from exec to asleep in poll" cpu_ms "ms, medians"
	jobsdir_row "peak RSS once armed, VmHWM" vmhwm_kb "kB, medians"
	jobsdir_row "wake-ups over 10 s with no job due" wake "context switches"
	jobsdir_row "SIGHUP of the unchanged sources (+ a 1 s ticker) to the \"reload\" event" reload_ms "ms, medians; kept: $(for x in "${DIR_RUNS[@]}"; do kv kept "$x"; done | paste -sd' ')"
}

# Memory (issue 29): the tree against MEMORY_COMMIT (0.4.0's start, 0.3.0's
# code: defee34) in the same run, pairs in turns. 10,000 jobs of one file,
# whose runs' environments each job copied; 10,000 cron.d files of one
# line each, reloaded 20 times one file at a time, whose parses left the
# heap's free pages scattered. Targets: 10,000 jobs ≤ 0.75× the old RSS;
# after 20 reloads ≤ 1.2× the load's. Needs root for the cron.d files
# (--system-crontab loads root's files alone).
MEMORY_COMMIT=${MEMORY_COMMIT:-defee34}
MEMORY_RELOADS=${MEMORY_RELOADS:-20}

# crond_files DIR N: N one-line cron.d files of root's, none due soon.
crond_files() {
	mkdir -p "$1"
	[[ -e $1/f$(printf %05d $(($2 - 1))) ]] && return
	jobs_lines "$2" "$PWD/$BUILD/jobbin" cron.d |
		awk -v d="$1" '{ f = sprintf("%s/f%05d", d, NR - 1); print > f; close(f) }'
}

# Whether PID sleeps in poll or ppoll (x86_64: 7, 271; aarch64: 73).
in_poll() {
	local nr
	read -r nr _ <"/proc/$1/syscall" 2>/dev/null || return 1
	[[ $nr == 7 || $nr == 271 || $nr == 73 ]]
}

# Waits (up to 60 s) until PID has slept in poll for 0.5 s.
wait_settled() {
	local i quiet=0
	for ((i = 0; i < 1200 && quiet < 10; i++)); do
		if in_poll "$1"; then quiet=$((quiet + 1)); else quiet=0; fi
		sleep 0.05
	done
}

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# crond_reloads BIN DIR: BIN on DIR's cron.d files; prints "load_kb= r1_kb=
# rN_kb= hwm_kb=": VmRSS once settled after the load, after the first and
# after the last of MEMORY_RELOADS one-file reloads (a line changed in
# DIR/f00000, each reload's "reload" event waited for), VmHWM at the end.
crond_reloads() {
	local bin=$1 dir=$2 ev=$BUILD/crond.json pid k i load r1 rn orig
	orig=$(cat "$dir/f00000")
	"$bin" --system-crontab --jobs "$dir" --json >"$ev" 2>>"$LOG" &
	pid=$!
	wait_settled "$pid"
	load=$(rss_kb "$pid")
	for ((k = 1; k <= MEMORY_RELOADS; k++)); do
		printf '%d 1 1 1 * root /bin/true %d\n' $((k % 60)) "$k" >"$dir/f00000"
		for ((i = 0; i < 600; i++)); do
			(($(grep -c '"event":"reload"' "$ev") >= k)) && break
			sleep 0.1
		done
		wait_settled "$pid"
		((k == 1)) && r1=$(rss_kb "$pid")
		rn=$(rss_kb "$pid")
	done
	printf 'load_kb=%s r1_kb=%s rN_kb=%s hwm_kb=%s\n' "$load" "$r1" "$rn" \
		"$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")"
	kill -TERM "$pid"
	wait "$pid"
	printf '%s\n' "$orig" >"$dir/f00000"
}

# memory_row WHAT KEY UNIT TARGET LIMIT: the medians of KEY over NEW_RUNS
# and OLD_RUNS, their ratio judged against LIMIT (none: "report").
memory_row() {
	local what=$1 key=$2 unit=$3 target=$4 limit=$5 n o mn mo r
	n=$(for x in "${NEW_RUNS[@]}"; do kv "$key" "$x"; done)
	o=$(for x in "${OLD_RUNS[@]}"; do kv "$key" "$x"; done)
	mn=$(median "$n") mo=$(median "$o")
	r=$(ratio "$mn" "$mo")
	row "$what ($unit; new $(paste -sd' ' <<<"$n"); $MEMORY_COMMIT $(paste -sd' ' <<<"$o"))" \
		"$mn" "$mo" "$r" "$target" "$(if [[ -n $limit ]]; then at_most "$r" "$limit"; else printf report; fi)"
}

memory_section() {
	local old file crond dir k a b
	have_tfd || return
	old=$(tfd_at "$MEMORY_COMMIT" "$BUILD/memory-old") || { say "memory: could not build $MEMORY_COMMIT"; return; }
	jobs_bin "$BUILD/jobbin" "$JOBS_N"
	file=$(jobs_file mixed "$JOBS_N" mixed)
	crond=$(jobs_file crond "$JOBS_N" cron.d)
	NEW_RUNS=() OLD_RUNS=()
	for ((k = 1; k <= PAIRS; k++)); do
		say "memory: pair $k/$PAIRS: $JOBS_N jobs in one file, plain and as cron.d lines"
		a=$(jobs_probe -- "$TFD" --jobs "$file") b=$(jobs_probe -- "$old" --jobs "$file")
		detail "memory $JOBS_N jobs, new: $a; old: $b"
		NEW_RUNS+=("file_hwm=$(kv vmhwm_kb "$a") file_cpu=$(kv idle_cpu_ms "$a")")
		OLD_RUNS+=("file_hwm=$(kv vmhwm_kb "$b") file_cpu=$(kv idle_cpu_ms "$b")")
		a=$(jobs_probe -- "$TFD" --system-crontab --jobs "$crond")
		b=$(jobs_probe -- "$old" --system-crontab --jobs "$crond")
		detail "memory $JOBS_N cron.d lines, new: $a; old: $b"
		NEW_RUNS[-1]+=" crond_hwm=$(kv vmhwm_kb "$a") crond_cpu=$(kv idle_cpu_ms "$a")"
		OLD_RUNS[-1]+=" crond_hwm=$(kv vmhwm_kb "$b") crond_cpu=$(kv idle_cpu_ms "$b")"
	done
	memory_row "$JOBS_N jobs in one file (half crontab, half --calendar): peak RSS once armed, VmHWM" file_hwm "kB, medians" "≤ 0.75× of $MEMORY_COMMIT" 0.75
	memory_row "$JOBS_N jobs in one file: tfd's own CPU from exec to asleep in poll" file_cpu "ms, medians" "report" ""
	memory_row "$JOBS_N crontab lines of root's in one --system-crontab file: peak RSS once armed, VmHWM" crond_hwm "kB, medians" "report" ""
	memory_row "$JOBS_N crontab lines of root's: tfd's own CPU from exec to asleep in poll" crond_cpu "ms, medians" "report" ""
	if [[ $(id -u) != 0 ]]; then
		say "memory: the cron.d files need root (--system-crontab loads root's files alone)"
		return
	fi
	dir=$BUILD/crond-files-$JOBS_N
	crond_files "$dir" "$JOBS_N"
	NEW_RUNS=() OLD_RUNS=()
	for ((k = 1; k <= PAIRS; k++)); do
		say "memory: pair $k/$PAIRS: $JOBS_N cron.d files, $MEMORY_RELOADS one-file reloads"
		a=$(crond_reloads "$TFD" "$dir") b=$(crond_reloads "$old" "$dir")
		detail "memory $JOBS_N cron.d files, new: $a; old: $b"
		NEW_RUNS+=("$a growth=$(ratio "$(kv rN_kb "$a")" "$(kv load_kb "$a")")")
		OLD_RUNS+=("$b growth=$(ratio "$(kv rN_kb "$b")" "$(kv load_kb "$b")")")
	done
	memory_row "$JOBS_N cron.d files of one line: RSS once loaded, VmRSS" load_kb "kB, medians" "report" ""
	memory_row "$JOBS_N cron.d files: RSS after 1 one-file reload" r1_kb "kB, medians" "report" ""
	memory_row "$JOBS_N cron.d files: RSS after $MEMORY_RELOADS one-file reloads" rN_kb "kB, medians" "report" ""
	memory_row "$JOBS_N cron.d files: peak RSS over the load and the reloads, VmHWM" hwm_kb "kB, medians" "report" ""
	local g
	g=$(median "$(for x in "${NEW_RUNS[@]}"; do kv growth "$x"; done)")
	row "$JOBS_N cron.d files: RSS after $MEMORY_RELOADS one-file reloads over RSS once loaded, new (old: $(for x in "${OLD_RUNS[@]}"; do kv growth "$x"; done | paste -sd' '))" \
		"$g" "—" "—" "≤ 1.2×" "$(at_most "$g" 1.2)"
}
