# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# bench/fleet.sh: the `fleet` section of bench/run.sh (issue 16): replicas
# of tfd with --fleet against a PostgreSQL 15 of the section's own, started
# as the tests start theirs (tests/bats/pg_helper.bash: initdb and pg_ctl as
# the postgres user through runuser, a Unix socket in a temporary
# directory, fsync off; stopped at the end). Needs root and Debian's
# postgresql-15. Sourced by bench/run.sh, whose helpers (row, detail,
# median, ratio, minus, fix, at_most, say, old_tfd, with_steal) it uses.
#
# Four parts, FLEET_PARTS to choose (default all, about 14 minutes):
#   claim     the start of a run after its scheduled instant, --fleet on a
#             local socket against no --fleet, in turns (even and odd
#             seconds), FLEET_SAMPLES runs each
#   scale     one tfd without --fleet on FLEET_JOBS `* * * * *` lines for
#             FLEET_MINUTES minutes (the fork floor), then 3 replicas on the
#             same lines, the server's fsync as FLEET_SCALE_FSYNC says (off
#             and then on): runs, doubled, missed, the last start after
#             each minute, and the last claim's answer after it (the
#             server's log of each replica's claim statements)
#   failover  3 replicas, FLEET_FAIL_JOBS jobs every 20 s running 8 s, one
#             replica SIGKILLed 3 s into its runs, --fleet-lease
#             FLEET_LEASE_S
#   startup   start-to-exit and peak RSS of tfd without --fleet against the
#             tfd from before the fleet (TFD_BASE, or FLEET_BASE_COMMIT
#             built as the oldnew section builds its old tfd)
#   burst     3 replicas x FLEET_BURST_JOBS jobs due at one instant (issue
#             23), the server's fsync on (as a user runs it) and off (as
#             the tests do): the last claim's answer, runs, doubled,
#             missed, skipped, claim statements per replica, and the
#             replicas' set-up (their last statement before the instant)

FLEET_PARTS=${FLEET_PARTS:-claim scale failover startup burst}
FLEET_BURST_JOBS=${FLEET_BURST_JOBS:-10000}
# Seconds from the replicas' start to the instant: each reads the jobs
# file (10,000 tfd lines), connects and writes its jobs' fingerprints
# first, which took more than 12 s on a loaded machine: the instant then
# came while they were still setting up.
FLEET_BURST_LEAD=${FLEET_BURST_LEAD:-30}
FLEET_SAMPLES=${FLEET_SAMPLES:-80}
FLEET_JOBS=${FLEET_JOBS:-1000}
FLEET_MINUTES=${FLEET_MINUTES:-5}
FLEET_SCALE_FSYNC=${FLEET_SCALE_FSYNC:-off on}
FLEET_FAIL_JOBS=${FLEET_FAIL_JOBS:-30}
FLEET_LEASE_S=${FLEET_LEASE_S:-6}
FLEET_BASE_COMMIT=${FLEET_BASE_COMMIT:-72ad394}
FLEET_STARTUP_BLOCKS=${FLEET_STARTUP_BLOCKS:-5}
FLEET_RSS_PAIRS=${FLEET_RSS_PAIRS:-21}
# The first runs of each side in the claim part are not counted: the
# replica's first claims follow its connection and the table's creation.
FLEET_WARMUP=2
FLEET_REPLICAS=(r1 r2 r3)

# The server

# shellcheck source=tests/bats/pg_helper.bash
. tests/bats/pg_helper.bash

# In /tmp, not under bench/build: pg_helper.bash opens every directory
# above the server's to the postgres user, up to /tmp.
fleet_pg_start() {
	FLEET_TMP=$(mktemp -d /tmp/tfd-fleet-bench.XXXXXX) || return 1
	# pg_helper.bash keeps its server under the test file's directory.
	BATS_FILE_TMPDIR=$FLEET_TMP
	pg_start >>"$LOG" 2>&1
}

fleet_stop() {
	local pid
	for pid in "${FLEET_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${FLEET_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	FLEET_PIDS=()
}

fleet_pg_stop() {
	fleet_stop
	[[ -n ${FLEET_TMP-} ]] || return 0
	pg_stop
	# FLEET_KEEP=1: the replicas' JSON and the server's directory stay.
	if [[ ${FLEET_KEEP-} == 1 ]]; then
		say "fleet: kept $FLEET_TMP"
	else
		rm -rf "$FLEET_TMP"
	fi
	FLEET_TMP=
}

# fleet_db NAME: a new database; prints its connection string (the socket).
fleet_db() {
	pg_sql "CREATE DATABASE $1" postgres >>"$LOG" 2>&1 &&
		printf 'host=%s port=%s dbname=%s user=postgres' "$PG_DIR" "$PG_PORT" "$1"
}

# fleet_replicas CONN OUT_PREFIX TFD_ARGS...: starts the 3 replicas, each
# with --json to OUT_PREFIX.NAME and its name as its connection's
# application_name (the server's log names it); their pids in FLEET_PIDS,
# by name in FLEET_PID_OF.
fleet_replicas() {
	local conn=$1 out=$2 r
	shift 2
	for r in "${FLEET_REPLICAS[@]}"; do
		"$TFD" --fleet "$conn application_name=$r" --replica "$r" --json "$@" >"$out.$r" 2>>"$LOG" &
		FLEET_PIDS+=("$!")
		FLEET_PID_OF[$r]=$!
	done
}

# Sleeps until the realtime clock reads T (Unix seconds, fractions allowed).
sleep_until() {
	local d
	d=$(awk -v t="$1" -v n="$EPOCHREALTIME" 'BEGIN { d = t - n; print (d > 0) ? d : 0 }')
	sleep "$d"
}

# pctl P: the P-th percentile (nearest rank) of the numbers on stdin.
pctl() {
	sort -g | awk -v p="$1" '{ v[NR] = $1 } END {
		if (!NR) { print "n/a"; exit }
		k = int(p / 100 * NR); if (k < p / 100 * NR) k++; if (k < 1) k = 1
		print v[k] }'
}

# Claim cost

# A difference in µs as signed ms ("+0.41 ms"), or "n/a".
fleet_ms_diff() {
	if isnum "$1"; then awk -v d="$1" 'BEGIN { printf "%+.2f ms", d / 1000 }'; else printf 'n/a'; fi
}

fleet_claim() {
	local conn file=$FLEET_TMP/claim.runs n=$((FLEET_SAMPLES + FLEET_WARMUP)) side p50=() p99=() d50 d99 late
	conn=$(fleet_db claim) || return
	: >"$file"
	say "fleet: claim cost, $FLEET_SAMPLES runs each with and without --fleet, in turns ($((2 * n)) s)"
	# The two tfds take turns, one on even seconds and one on odd, so
	# that neither's run competes with the other's for the CPU.
	"$TFD" --name plain --calendar '*:*:0/2' --count "$n" -q -- "$STAMP" "$file" 2>>"$LOG" &
	FLEET_PIDS+=("$!")
	"$TFD" --fleet "$conn" --replica r1 --name fleet --calendar '*:*:1/2' --count "$n" -q -- \
		"$STAMP" "$file" 2>>"$LOG" &
	FLEET_PIDS+=("$!")
	wait "${FLEET_PIDS[@]}"
	FLEET_PIDS=()
	for side in fleet plain; do
		# µs from the scheduled instant to the run's first clock reading.
		awk -v s="$side" '$1 == s { print $4 }' "$file" | tail -n +$((FLEET_WARMUP + 1)) >"$FLEET_TMP/claim.$side"
		mapfile -t late <"$FLEET_TMP/claim.$side"
		p50+=("$(median "${late[@]}")") p99+=("$(pctl 99 <"$FLEET_TMP/claim.$side")")
		detail "fleet claim $side: $(wc -l <"$FLEET_TMP/claim.$side") runs, p50 ${p50[-1]} µs, p99 ${p99[-1]} µs: $(tr '\n' ' ' <"$FLEET_TMP/claim.$side")"
	done
	d50=$(minus "${p50[0]}" "${p50[1]}") d99=$(minus "${p99[0]}" "${p99[1]}")
	# Where the claim's time goes: the database's now() at the insert.
	detail "fleet claim: rows $(pg_sql "SELECT count(*) || ' ' || string_agg(DISTINCT state, ',') FROM tfd_runs" claim);" \
		"the insert's now() after the instant, p50 and p99 (µs): $(pg_sql "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY d)) || ' ' ||
			round(percentile_cont(0.99) WITHIN GROUP (ORDER BY d)) FROM (SELECT extract(epoch FROM claimed_at - scheduled) * 1000000 AS d
			FROM tfd_runs WHERE job = 'fleet' ORDER BY scheduled OFFSET $FLEET_WARMUP) c" claim)"
	row "fleet claim cost: a run's start after its scheduled instant, p50 (µs; $(wc -l <"$FLEET_TMP/claim.fleet") and $(wc -l <"$FLEET_TMP/claim.plain") runs of bench/fleet_stamp, --calendar '*:*:1/2' with --fleet on a local socket, '*:*:0/2' without; tfd: with, ref: without; ratio column: the difference)" \
		"$(fix "${p50[0]}" 1)" "$(fix "${p50[1]}" 1)" "$(fleet_ms_diff "$d50")" "≤ +2 ms" "$(at_most "$d50" 2000)"
	row "fleet claim cost: the same runs, p99 (µs, nearest rank)" \
		"$(fix "${p99[0]}" 1)" "$(fix "${p99[1]}" 1)" "$(fleet_ms_diff "$d99")" "≤ +5 ms" "$(at_most "$d99" 5000)"
}

# Scale

# fleet_scale_wait RUNS LAST: waits until every job has run at LAST (or
# until LAST + 50 s), then stops the tfds.
fleet_scale_wait() {
	local runs=$1 last=$2
	sleep_until "$last"
	while (($(awk -v t="$last" 'int($2) == t' "$runs" | wc -l) < FLEET_JOBS)) &&
		awk -v t="$last" -v n="$EPOCHREALTIME" 'BEGIN { exit !(n < t + 50) }'; do
		sleep 1
	done
	sleep 2
	fleet_stop
}

# fleet_scale_counts RUNS FIRST LAST: "runs doubled missed" over the
# instants FIRST..LAST, from the runs' own lines.
fleet_scale_counts() {
	awk -v a="$2" -v b="$3" -v n="$FLEET_JOBS" '{ t = int($2) } t >= a && t <= b {
		runs++; if (seen[$1 " " t]++) doubled++ }
		END { want = n * ((b - a) / 60 + 1); printf "%d %d %d\n", runs, doubled, want - length(seen) }' "$1"
}

# fleet_scale_last RUNS FIRST LAST: each minute's last start after the
# minute, in ms, and every start's median.
fleet_scale_last() {
	awk -v a="$2" -v b="$3" '{ t = int($2) } t >= a && t <= b { if ($4 > m[t]) m[t] = $4 }
		END { for (t = a; t <= b; t += 60) printf "%.0f ", m[t] / 1000 }' "$1"
}

fleet_scale_all_median() {
	local late
	mapfile -t late < <(awk -v a="$2" -v b="$3" '{ t = int($2) } t >= a && t <= b { printf "%.1f\n", $4 / 1000 }' "$1")
	median "${late[@]}"
}

# The first whole minute at least 5 s after now; sleeps until 10 s before a
# minute first, so that the run waits as little as it can.
fleet_next_minute() {
	local now
	now=$(date +%s)
	if ((now % 60 < 50)); then
		sleep $((50 - now % 60))
		now=$(date +%s)
	fi
	printf '%d' $(((now + 5) / 60 * 60 + 60))
}

# fleet_scale_jobs DIR: the jobs files, FLEET_JOBS `* * * * *` lines each
# (jobs.fleet writes to DIR/fleet.runs, jobs.plain to DIR/plain.runs).
fleet_scale_jobs() {
	local dir=$1 r
	mkdir -p "$dir"
	# Crontab lines of the same command get names of their own
	# (fleet_stamp, fleet_stamp-2, ...), the same on every replica.
	for ((r = 0; r < FLEET_JOBS; r++)); do
		printf '* * * * * %s %s\n' "$STAMP" "$dir/fleet.runs"
	done >"$dir/jobs.fleet"
	sed "s|$dir/fleet.runs|$dir/plain.runs|" "$dir/jobs.fleet" >"$dir/jobs.plain"
	: >"$dir/fleet.runs"
	: >"$dir/plain.runs"
}

# fleet_load: the machine's load averages, for the details.
fleet_load() { cut -d' ' -f1-3 /proc/loadavg; }

# fleet_claim_ends FROM: "SECONDS REPLICA" of each claim statement's end
# in the server's log from byte FROM on (its own clock; a claim statement
# begins WITH item AS).
fleet_claim_ends() {
	local lines=$FLEET_TMP/claim.lines
	tail -c +"$1" "$PG_DIR/log" | grep 'LOG:  duration: .* execute [^:]*: WITH item AS' >"$lines"
	[[ -s $lines ]] || return 0
	paste -d' ' <(cut -c1-27 "$lines" | date -f - +%s.%N) <(grep -o 'app=[^ ]*' "$lines" | cut -d= -f2)
}

# fleet_scale_claims FROM FIRST LAST: each minute's last claim answered
# after the minute (s, the latest replica), then each replica's claim
# statements in each minute (REPLICA@MINUTE:COUNT, the first minute 1),
# as "LASTS|STATEMENTS".
fleet_scale_claims() {
	fleet_claim_ends "$1" | awk -v a="$2" -v b="$3" '{ t = $1; m = int(t / 60) * 60 }
		m >= a && m <= b { d = t - m; if (d > last[m]) last[m] = d; n[$2 "@" (m - a) / 60 + 1]++ }
		END { for (m = a; m <= b; m += 60) printf "%.3f ", last[m]; printf "|"
		      for (k in n) printf "%s:%d ", k, n[k] }'
}

# fleet_scale_fleet FSYNC: the 3 replicas for FLEET_MINUTES minutes, the
# server's fsync FSYNC; sets SCALE_C (runs doubled missed), SCALE_L (each
# minute's last start), SCALE_M (every start's median), SCALE_Q (each
# minute's last claim and the statements), SCALE_PER, SCALE_TAB.
fleet_scale_fleet() {
	local fsync=$1 db=scale_$1 conn dir=$FLEET_TMP/scale.$1 first last r from
	fleet_burst_restart "$fsync" || { say "fleet: scale: the server did not restart (see $LOG)"; return 1; }
	conn=$(fleet_db "$db") || return
	# Each statement's end logged, without its parameters (10,000 names).
	pg_sql "ALTER DATABASE $db SET log_min_duration_statement = 0;
		ALTER DATABASE $db SET log_parameter_max_length = 0" postgres >>"$LOG" 2>&1
	fleet_scale_jobs "$dir"
	first=$(fleet_next_minute)
	last=$((first + (FLEET_MINUTES - 1) * 60))
	say "fleet: scale, 3 replicas x $FLEET_JOBS jobs, $FLEET_MINUTES minutes from $(date -d "@$first" +%H:%M), fsync $fsync"
	from=$(($(stat -c %s "$PG_DIR/log") + 1))
	detail "fleet scale fsync $fsync: load average at the start $(fleet_load)"
	fleet_replicas "$conn" "$dir/json" --jobs "$dir/jobs.fleet"
	fleet_scale_wait "$dir/fleet.runs" "$last"
	detail "fleet scale fsync $fsync: load average at the end $(fleet_load)"
	SCALE_Q=$(fleet_scale_claims "$from" "$first" "$last")
	SCALE_C=$(fleet_scale_counts "$dir/fleet.runs" "$first" "$last")
	SCALE_L=$(fleet_scale_last "$dir/fleet.runs" "$first" "$last")
	SCALE_M=$(fleet_scale_all_median "$dir/fleet.runs" "$first" "$last")
	SCALE_PER=()
	for r in "${FLEET_REPLICAS[@]}"; do
		SCALE_PER+=("$r $(awk -v a="$first" -v b="$last" -v r="$r" '{ t = int($2) } t >= a && t <= b && $3 == r' "$dir/fleet.runs" | wc -l)")
	done
	SCALE_TAB=$(pg_sql "SELECT count(*), count(*) FILTER (WHERE state = 'succeeded'),
		(SELECT count(*) FROM (SELECT 1 FROM tfd_runs GROUP BY job, scheduled HAVING count(*) > 1) d),
		string_agg(DISTINCT replica, ',')
		FROM tfd_runs WHERE scheduled BETWEEN to_timestamp($first) AND to_timestamp($last)" "$db")
	detail "fleet scale fsync $fsync: runs doubled missed: $SCALE_C; by replica: ${SCALE_PER[*]}; table (rows, succeeded, doubled keys, replicas): $SCALE_TAB"
	detail "fleet scale fsync $fsync: ticks missed $(cat "$dir"/json.* | grep -c '"action":"missed"'), elsewhere $(cat "$dir"/json.* | grep -c '"action":"elsewhere"')"
	for r in "${FLEET_REPLICAS[@]}"; do
		detail "fleet scale fsync $fsync: $r's ticks by action: $(grep -o '"action":"[a-z]*"' "$dir/json.$r" | sort | uniq -c | tr -s ' \n' ' ')"
	done
	# Rows by replica and state: a won elapse not started when the
	# replicas stop is released (replica '').
	detail "fleet scale fsync $fsync: rows by replica and state: $(pg_sql "SELECT replica, state, count(*) FROM tfd_runs
		WHERE scheduled BETWEEN to_timestamp($first) AND to_timestamp($last) GROUP BY 1, 2 ORDER BY 1, 2" "$db" | tr '\n' ' ')"
	detail "fleet scale fsync $fsync: last start after each minute (ms): $SCALE_L; median start $SCALE_M ms"
	detail "fleet scale fsync $fsync: last claim answered after each minute (s): ${SCALE_Q%%|*}; claim statements (replica@minute:count): ${SCALE_Q#*|}"
}

# fleet_scale_plain: one tfd without --fleet, the same jobs; sets PLAIN_C,
# PLAIN_L, PLAIN_M as fleet_scale_fleet does.
fleet_scale_plain() {
	local dir=$FLEET_TMP/scale.plain first last
	fleet_scale_jobs "$dir"
	first=$(fleet_next_minute)
	last=$((first + (FLEET_MINUTES - 1) * 60))
	say "fleet: scale, one tfd without --fleet, the same $FLEET_JOBS jobs, $FLEET_MINUTES minutes from $(date -d "@$first" +%H:%M)"
	detail "fleet scale, no --fleet: load average at the start $(fleet_load)"
	"$TFD" --jobs "$dir/jobs.plain" -q 2>>"$LOG" &
	FLEET_PIDS+=("$!")
	fleet_scale_wait "$dir/plain.runs" "$last"
	detail "fleet scale, no --fleet: load average at the end $(fleet_load)"
	PLAIN_C=$(fleet_scale_counts "$dir/plain.runs" "$first" "$last")
	PLAIN_L=$(fleet_scale_last "$dir/plain.runs" "$first" "$last")
	PLAIN_M=$(fleet_scale_all_median "$dir/plain.runs" "$first" "$last")
	detail "fleet scale, no --fleet: runs doubled missed: $PLAIN_C; last start after each minute (ms): $PLAIN_L; median start $PLAIN_M ms"
}

# fleet_scale_rows FSYNC: the rows of one fsync setting against the plain run.
fleet_scale_rows() {
	local c=() p=() lf lp
	read -ra c <<<"$SCALE_C"
	read -ra p <<<"$PLAIN_C"
	row "fleet scale: 3 replicas × $FLEET_JOBS \`* * * * *\` lines, $FLEET_MINUTES minutes, the server's fsync $1: runs (the runs' own lines; by replica: ${SCALE_PER[*]}), doubled, missed; tfd_runs rows (rows, succeeded, keys twice, replicas: ${SCALE_TAB//|/, }) (ref: one tfd without --fleet)" \
		"${c[0]} runs, ${c[1]} doubled, ${c[2]} missed" "${p[0]} runs, ${p[1]} doubled, ${p[2]} missed" "—" \
		"$((FLEET_JOBS * FLEET_MINUTES)) runs, 0 doubled, 0 missed" \
		"$([[ ${c[0]} == $((FLEET_JOBS * FLEET_MINUTES)) && ${c[1]} == 0 && ${c[2]} == 0 ]] && printf yes || printf no)"
	read -ra c <<<"$SCALE_L"
	read -ra p <<<"$PLAIN_L"
	lf=$(median "${c[@]}") lp=$(median "${p[@]}")
	row "fleet scale, fsync $1: the last run's start after the minute (ms, median of the $FLEET_MINUTES minutes: with --fleet ${c[*]}; without ${p[*]}, the fork floor; every start's median: with $SCALE_M, without $PLAIN_M)" \
		"$lf" "$lp" "$(ratio "$lf" "$lp")" "report" "report"
	read -ra c <<<"${SCALE_Q%%|*}"
	lf=$(printf '%s\n' "${c[@]}" | pctl 100)
	row "fleet scale, fsync $1: the last claim's answer after the minute (s, the latest of the 3 replicas, on the server's clock; each minute: ${c[*]}; claim statements by replica@minute: ${SCALE_Q#*|})" \
		"$lf" "—" "—" "≤ 3 s" "$(at_most "$lf" 3)"
}

# Scale: the fleet with the server's fsync off and on, and the same jobs on
# one tfd without --fleet as the reference.
fleet_scale() {
	local fsync
	fleet_scale_plain
	for fsync in $FLEET_SCALE_FSYNC; do
		fleet_scale_fleet "$fsync" || continue
		fleet_scale_rows "$fsync"
	done
	fleet_burst_restart off >/dev/null 2>&1
}

# Failover

# fleet_fail_lines RUNS I: "job replica late_us" of the runs at instant I.
fleet_fail_at() { awk -v t="$2" 'int($2) == t { print $1, $3, $4 }' "$1"; }

fleet_failover() {
	local conn dir=$FLEET_TMP/failover runs k i0 victim t_kill left ab=() jobs=() j n late=() before=() lim
	local missed=0 doubled=0 rerun=0 by_victim=0
	conn=$(fleet_db failover) || return
	mkdir -p "$dir"
	runs=$dir/runs
	: >"$runs"
	for ((k = 1; k <= FLEET_FAIL_JOBS; k++)); do
		printf -- "--name f%d --calendar '*:*:0/20' -- %s %s 8\n" "$k" "$STAMP" "$runs"
	done >"$dir/jobs"
	fleet_replicas "$conn" "$dir/json" --jobs "$dir/jobs" --fleet-lease "${FLEET_LEASE_S}s"
	i0=$((($(date +%s) + 25) / 20 * 20))
	say "fleet: failover, 3 replicas x $FLEET_FAIL_JOBS jobs every 20 s, one SIGKILLed at $(date -d "@$i0" +%T) + 3 s"
	sleep_until $((i0 + 3))
	# The victim: the replica running the most of the instant's runs.
	victim=$(fleet_fail_at "$runs" "$i0" | awk '{ print $2 }' | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	[[ -n $victim ]] || { say "fleet: failover: no run at $i0"; fleet_stop; return; }
	kill -KILL "${FLEET_PID_OF[$victim]}"
	t_kill=$EPOCHREALTIME
	mapfile -t jobs < <(fleet_fail_at "$runs" "$i0" | awk -v v="$victim" '$2 == v { print $1 }')
	# The database's clock, the one that marks a claim abandoned.
	detail "fleet failover: killed $victim at $t_kill (database: $(pg_sql 'SELECT extract(epoch FROM clock_timestamp())' failover)); it ran ${#jobs[@]} of the instant's runs: ${jobs[*]}"
	for _ in $(seq 150); do
		left=$(pg_sql "SELECT count(*) FROM tfd_runs WHERE replica = '$victim' AND state = 'running'" failover)
		((left == 0)) && break
		sleep 0.1
	done
	mapfile -t ab < <(pg_sql "SELECT round((extract(epoch FROM finished_at) - $t_kill)::numeric, 3) FROM tfd_runs
		WHERE replica = '$victim' AND state = 'abandoned' ORDER BY 1" failover)
	detail "fleet failover: still running $left; abandoned after (s from the kill): ${ab[*]}"
	# The next two instants, and their 8 s runs, then the end.
	sleep_until $((i0 + 49))
	fleet_stop
	for ((i = i0; i <= i0 + 40; i += 20)); do
		n=$(fleet_fail_at "$runs" "$i" | awk '{ print $1 }' | sort -u | wc -l)
		missed=$((missed + FLEET_FAIL_JOBS - n))
		doubled=$((doubled + $(fleet_fail_at "$runs" "$i" | wc -l) - n))
	done
	for j in "${jobs[@]}"; do
		for ((i = i0 + 20; i <= i0 + 40; i += 20)); do
			late+=("$(fleet_fail_at "$runs" "$i" | awk -v j="$j" '$1 == j { printf "%.1f\n", $3 / 1000 }')")
			by_victim=$((by_victim + $(fleet_fail_at "$runs" "$i" | awk -v j="$j" -v v="$victim" '$1 == j && $2 == v' | wc -l)))
		done
	done
	mapfile -t before < <(fleet_fail_at "$runs" "$i0" | awk '{ printf "%.1f\n", $3 / 1000 }')
	rerun=$(pg_sql "SELECT count(*) FROM tfd_runs WHERE scheduled = to_timestamp($i0) AND replica <> '$victim' AND job IN (SELECT job FROM tfd_runs WHERE scheduled = to_timestamp($i0) AND replica = '$victim')" failover)
	detail "fleet failover: instants $i0..$((i0 + 40)): missed $missed, doubled $doubled; the victim's jobs at the next two: starts after the instant (ms) ${late[*]}; all jobs before the kill: ${before[*]}; its abandoned claims run again elsewhere: $rerun"
	detail "fleet failover: rows by state: $(pg_sql "SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM tfd_runs GROUP BY state) s" failover)"
	lim=$(awk -v l="$FLEET_LEASE_S" 'BEGIN { print l + l / 6 }')
	row "fleet failover: one of 3 replicas SIGKILLed 3 s into its runs ($FLEET_FAIL_JOBS jobs --calendar '*:*:0/20' running 8 s, --fleet-lease ${FLEET_LEASE_S}s): its ${#jobs[@]} running claims marked abandoned, s from the kill to the last (each: ${ab[*]}; still running: $left)" \
		"${ab[-1]:-n/a}" "—" "—" "≤ $lim s (lease + lease/6)" \
		"$([[ $left == 0 && ${#ab[@]} == "${#jobs[@]}" ]] && at_most "${ab[-1]:-n/a}" "$lim" || printf no)"
	row "fleet failover: the next 2 elapses of each of its ${#jobs[@]} jobs: missed, doubled (all $FLEET_FAIL_JOBS jobs over 3 instants), the abandoned run again; start after the instant (ms, median / max; before the kill, all jobs: $(median "${before[@]}") / $(printf '%s\n' "${before[@]}" | pctl 100))" \
		"$missed missed, $doubled doubled, $rerun again; $(median "${late[@]}") / $(printf '%s\n' "${late[@]}" | pctl 100) ms" "—" "—" "0 missed, on time" \
		"$([[ $missed == 0 && $doubled == 0 && $rerun == 0 && $by_victim == 0 ]] && printf yes || printf no)"
}

# Start-up and footprint without --fleet

# fleet_rss BIN: peak RSS (kB) of `BIN --at now --count 1 -q`, start to exit.
fleet_rss() { /usr/bin/time -f %M "$1" --at now --count 1 -q 2>&1 >/dev/null | tail -n 1; }

fleet_startup() {
	local base k x a=() b=() ra=() rb=() ma mb
	base=${TFD_BASE:-$(OLD_COMMIT=$FLEET_BASE_COMMIT TFD_OLD='' old_tfd)} || { say "fleet: could not build $FLEET_BASE_COMMIT"; return; }
	say "fleet: start-up and RSS without --fleet against $FLEET_BASE_COMMIT, $FLEET_STARTUP_BLOCKS blocks of $STARTUP_PAIRS pairs"
	for ((k = 1; k <= FLEET_STARTUP_BLOCKS; k++)); do
		x=$(with_steal "$BUILD/startup" "$STARTUP_PAIRS" "$TFD" --at now --count 1 -q -- "$base" --at now --count 1 -q)
		detail "fleet start-to-exit $k (a: tfd, b: $FLEET_BASE_COMMIT): $x"
		a+=("$(kv a_p50_us "$x")") b+=("$(kv b_p50_us "$x")")
	done
	for ((k = 1; k <= FLEET_RSS_PAIRS; k++)); do
		ra+=("$(fleet_rss "$TFD")") rb+=("$(fleet_rss "$base")")
	done
	detail "fleet peak RSS (kB, /usr/bin/time -f %M, in turns): tfd ${ra[*]}; $FLEET_BASE_COMMIT ${rb[*]}"
	ma=$(median "${a[@]}") mb=$(median "${b[@]}")
	row "fleet: start-to-exit without --fleet, \`--at now --count 1 -q\` (µs, median of $FLEET_STARTUP_BLOCKS blocks of $STARTUP_PAIRS pairs in turns: tfd ${a[*]}; before the fleet ${b[*]}; ref: $FLEET_BASE_COMMIT)" \
		"$ma" "$mb" "$(ratio "$ma" "$mb")" "≤ 1.02×" "$(at_most "$(ratio "$ma" "$mb")" 1.02)"
	ma=$(median "${ra[@]}") mb=$(median "${rb[@]}")
	row "fleet: peak RSS without --fleet, the same command (kB, /usr/bin/time -f %M, median of $FLEET_RSS_PAIRS pairs in turns; ref: $FLEET_BASE_COMMIT)" \
		"$ma" "$mb" "$(ratio "$ma" "$mb")" "≤ 1.02×" "$(at_most "$(ratio "$ma" "$mb")" 1.02)"
}

# Burst

# The server again with fsync $1 (on or off), every statement's end logged
# with its client's application_name (log_min_duration_statement 0 in the
# burst's databases).
fleet_burst_restart() {
	pg_sql "ALTER SYSTEM SET log_line_prefix = '%m [%p] app=%a '" postgres >>"$LOG" 2>&1 &&
		pg_ctl_as_postgres -m fast -w -t 60 stop >>"$LOG" 2>&1 &&
		pg_ctl_as_postgres -l "$PG_DIR/log" -w -t 60 \
			-o "-k $PG_DIR -p $PG_PORT -c listen_addresses=127.0.0.1 -c fsync=$1" start >>"$LOG" 2>&1
}

# fleet_burst_log FROM REPLICA: the lines of REPLICA's claim statements in
# the server's log from byte FROM on.
fleet_burst_log() {
	tail -c +"$1" "$PG_DIR/log" | grep "app=$2 LOG:  duration: .* execute [^:]*: WITH item AS"
}

fleet_burst_one() {
	local fsync=$1 db=burst_$1 conn dir at from r i pid runs doubled missed skipped per=() stmts=()
	local last=0 lasts=() t want met=yes
	fleet_burst_restart "$fsync" || { say "fleet: burst: the server did not restart (see $LOG)"; return 1; }
	conn=$(fleet_db "$db") || return 1
	pg_sql "ALTER DATABASE $db SET log_min_duration_statement = 0;
		ALTER DATABASE $db SET log_parameter_max_length = 0" postgres >>"$LOG" 2>&1
	"$TFD" --fleet "$conn" --replica setup --at now --count 1 -q 2>>"$LOG"
	dir=$FLEET_TMP/burst.$fsync
	mkdir -p "$dir"
	at=$(($(date +%s) + FLEET_BURST_LEAD))
	for ((i = 1; i <= FLEET_BURST_JOBS; i++)); do
		printf -- '--name j%d --clock realtime --at @%d -- true\n' "$i" "$at"
	done >"$dir/jobs"
	from=$(($(stat -c %s "$PG_DIR/log") + 1))
	say "fleet: burst, 3 replicas x $FLEET_BURST_JOBS jobs due at one instant, fsync $fsync"
	detail "fleet burst fsync $fsync: load average at the start $(fleet_load)"
	for r in "${FLEET_REPLICAS[@]}"; do
		"$TFD" --fleet "$conn application_name=$r" --replica "$r" --json --jobs "$dir/jobs" \
			>"$dir/json.$r" 2>>"$LOG" &
		FLEET_PIDS+=("$!")
	done
	for pid in "${FLEET_PIDS[@]}"; do
		wait "$pid"
	done
	FLEET_PIDS=()
	runs=$(cat "$dir"/json.* | grep -c '"action":"run"')
	doubled=$(cat "$dir"/json.* | grep '"action":"run"' | grep -o '"job":"[^"]*"' | sort | uniq -d | wc -l)
	missed=$(cat "$dir"/json.* | grep -c '"action":"missed"')
	skipped=$(cat "$dir"/json.* | grep -c '"action":"skip"')
	for r in "${FLEET_REPLICAS[@]}"; do
		per+=("$r $(grep -c '"action":"run"' "$dir/json.$r")")
		stmts+=("$(fleet_burst_log "$from" "$r" | wc -l)")
		# The last claim statement's end, on the server's clock.
		t=$(fleet_burst_log "$from" "$r" | tail -n 1 | cut -c1-27)
		t=$(date -d "$t" +%s.%N 2>/dev/null) || t=$at
		lasts+=("$(awk -v t="$t" -v a="$at" 'BEGIN { printf "%.3f", t - a }')")
		last=$(awk -v x="${lasts[-1]}" -v m="$last" 'BEGIN { print (x > m) ? x : m }')
	done
	want=$(((FLEET_BURST_JOBS + 999) / 1000))
	detail "fleet burst fsync $fsync: runs $runs (${per[*]}), doubled $doubled, missed $missed, skipped $skipped; claim statements ${stmts[*]}; last claim answered after the instant (s) ${lasts[*]}; rows $(pg_sql "SELECT count(*) || ' ' || string_agg(DISTINCT state, ',') FROM tfd_runs WHERE job LIKE 'j%'" "$db")"
	# Set up in time: every replica's statements before the instant (the
	# jobs' fingerprints, the check against the others) had ended by it.
	detail "fleet burst fsync $fsync: the replicas' last statement before the first claim, after the instant (s; negative: before it): $(fleet_burst_setup "$from" "$at")"
	detail "fleet burst fsync $fsync: load average at the end $(fleet_load)"
	awk -v l="$last" 'BEGIN { exit !(l <= 3) }' || met=no
	((runs == FLEET_BURST_JOBS && doubled == 0 && missed == 0 && skipped == 0)) || met=no
	row "fleet burst: 3 replicas × $FLEET_BURST_JOBS jobs due at one instant, the server's fsync $fsync: the last claim's answer after the instant (s, each replica's: ${lasts[*]}); runs (${per[*]}), doubled, missed, skipped; claim statements per replica (report: ⌈n/1000⌉ = $want, and those that ask again)" \
		"$last s; $runs, $doubled, $missed, $skipped; ${stmts[*]}" "—" "—" \
		"≤ 3 s; $FLEET_BURST_JOBS, 0, 0, 0" "$met"
}

# fleet_burst_setup FROM AT: each replica's last statement other than a
# claim that ended before its first claim statement, in s after AT.
fleet_burst_setup() {
	local r first setup
	for r in "${FLEET_REPLICAS[@]}"; do
		first=$(fleet_burst_log "$1" "$r" | head -n 1 | cut -c1-27)
		setup=$(tail -c +"$1" "$PG_DIR/log" | grep "app=$r LOG:  duration: .* execute " |
			grep -v ': WITH item AS' |
			awk -v f="$first" 'substr($0, 1, 27) >= f { exit } { l = substr($0, 1, 27) } END { print l }')
		[[ -n $setup ]] || { printf '%s n/a ' "$r"; continue; }
		printf '%s %s ' "$r" "$(awk -v t="$(date -d "$setup" +%s.%N)" -v a="$2" 'BEGIN { printf "%.3f", t - a }')"
	done
}

fleet_burst() {
	fleet_burst_one on && fleet_burst_one off
	fleet_burst_restart off >/dev/null 2>&1
}

fleet_section() {
	local part
	have_tfd || return
	declare -gA FLEET_PID_OF=()
	FLEET_PIDS=()
	STAMP=$PWD/$BUILD/fleet_stamp
	if [[ $FLEET_PARTS != startup ]]; then
		if [[ ! -x $PG_BIN/initdb ]] || ((EUID != 0)); then
			say "fleet: needs root and PostgreSQL 15 ($PG_BIN; .ci/install-deps)"
			return
		fi
		trap fleet_pg_stop EXIT
		trap 'exit 130' INT TERM
		fleet_pg_start || { say "fleet: PostgreSQL did not start (see $LOG)"; fleet_pg_stop; return; }
	fi
	for part in $FLEET_PARTS; do
		case $part in
		claim | scale | failover | startup | burst) "fleet_$part" ;;
		*) say "fleet: unknown part '$part'" ;;
		esac
	done
	fleet_pg_stop
	trap - EXIT INT TERM
}
