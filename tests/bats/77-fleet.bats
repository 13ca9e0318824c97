#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# --fleet in tfd's event loop, against a real PostgreSQL of this file's own
# (pg_helper.bash): replicas of tfd with the same jobs run each elapse once
# among them, through a replica's death, an outage of the server and a
# fleet-wide --overlap skip. Each run appends "JOB SCHEDULED REPLICA" to
# $RUNS; the tests count those lines.

load test_helper
load pg_helper

setup_file() {
	pg_start
}

teardown_file() {
	pg_stop
}

# A database of the test's own (pg_test_db); the runs' log; a job's command.
setup() {
	pg_test_db
	fleet_runs_log
}

# The ticks of every replica with ACTION.
count_action() {
	cat "$BATS_TEST_TMPDIR"/*.out | grep '"event":"tick"' | grep -c "\"action\":\"$1\"" || true
}

@test "fleet: 3 replicas x 2 jobs run each elapse once among them, every JSON object names its replica" {
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' "--name even --calendar '*:*:0/2' --count 10 -- sh -c '$LOG'" \
		"--name every --calendar '*:*:*' --count 20 -- sh -c '$LOG'" >"$jobs"
	for r in a b c; do
		start_replica "$r" --jobs "$jobs" --metrics "$BATS_TEST_TMPDIR/$r.prom"
	done
	for r in a b c; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 40
		assert_equal "$bg_status" 0
	done
	assert_each_once
	# Every instant that some replica saw ran once; the replicas' windows
	# differ only by their start-up.
	(($(grep -c '^even ' "$RUNS") >= 9)) || fail "$(sort "$RUNS")"
	(($(grep -c '^every ' "$RUNS") >= 19)) || fail "$(sort "$RUNS")"
	# More than one replica ran something.
	(($(cut -d' ' -f3 "$RUNS" | sort -u | wc -l) >= 2)) || fail "$(sort "$RUNS")"
	(($(count_action elsewhere) > 0)) || fail "no elsewhere"
	# Every object of every replica carries its name.
	for r in a b c; do
		assert_equal "$(grep -vc "\"replica\":\"$r\"" "$BATS_TEST_TMPDIR/$r.out")" 0
	done
	# Each replica's claims add up to its elapses, won ones are its runs.
	won=$(grep -h 'tfd_fleet_claims_total{result="won"}' "$BATS_TEST_TMPDIR"/*.prom |
		awk '{ s += $2 } END { print s }')
	assert_equal "$won" "$(wc -l <"$RUNS")"
	grep -q '^tfd_fleet_connected 1$' "$BATS_TEST_TMPDIR/a.prom"
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE state <> 'succeeded'" "$DB")" 0
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job <> ''" "$DB")" "$(wc -l <"$RUNS")"
}

@test "fleet: a replica SIGKILLed mid-run: the others go on, its claim is abandoned after the lease and not run again" {
	jobs=$BATS_TEST_TMPDIR/jobs
	at=$(($(date +%s) + 2))
	printf '%s\n' "--name tick --calendar '*:*:*' --count 8 -- sh -c '$LOG'" \
		"--name long --clock realtime --at @$at -- sh -c '$LOG; echo \$\$ >$BATS_TEST_TMPDIR/long.pid; exec sleep 30'" \
		>"$jobs"
	for r in a b c; do
		start_replica "$r" --jobs "$jobs" --fleet-lease 2s
	done
	wait_for_lines "$BATS_TEST_TMPDIR/long.pid" 10
	victim=$(awk '$1 == "long" { print $3 }' "$RUNS")
	kill -KILL "$(eval echo "\$PID_$victim")"
	kill -KILL "$(cat "$BATS_TEST_TMPDIR/long.pid")"
	# After the lease (2 s) and a renewal (lease/6) of another replica.
	for _ in $(seq 100); do
		state=$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'long'" "$DB")
		[[ $state == abandoned ]] && break
		nap 0.1
	done
	assert_equal "$state" abandoned
	for r in a b c; do
		[[ $r == "$victim" ]] && continue
		wait_bg_exit "$(eval echo "\$PID_$r")" 30
		assert_equal "$bg_status" 0
	done
	assert_each_once
	assert_equal "$(grep -c '^long ' "$RUNS")" 1
	# No gap: every second from the first tick to the last ran once.
	read -r first last count < <(awk '$1 == "tick" { t = int($2); if (!n++ || t < lo) lo = t;
		if (t > hi) hi = t } END { print lo, hi, n }' "$RUNS")
	assert_equal "$count" $((last - first + 1))
	(($(grep -c '^tick ' "$RUNS") >= 7)) || fail "$(sort "$RUNS")"
}

# True when $RUNS has a run scheduled after the instant $1 (seconds).
ran_after() {
	awk -v t="$1" 'int($2) > t { found = 1 } END { exit !found }' "$RUNS"
}

@test "fleet: the server down longer than --fleet-deadline: elapses in between missed, none doubled, ends written after" {
	# No --count: the reconnection's backoff (doubling to 16 s) decides
	# when runs come back, so the test waits for one, then stops the
	# replicas; --on-stop=wait lets a run in its last moment end.
	for r in a b; do
		start_replica "$r" --fleet-deadline 1s --on-stop=wait --calendar '*:*:*' -- sh -c "$LOG"
	done
	wait_for_lines "$RUNS" 20 2
	pg_down
	sleep 4 # the outage itself: longer than --fleet-deadline
	pg_up
	up=$(date +%s)
	wait_until 40 ran_after "$up" || fail "nothing ran after the outage: $(sort "$RUNS")"
	kill -TERM "$PID_a" "$PID_b"
	for r in a b; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 20
	done
	assert_each_once
	(($(count_action missed) >= 4)) || fail "missed: $(count_action missed)"
	# The outage was reported.
	grep -q '"event":"error".*"call":"postgresql"' "$BATS_TEST_TMPDIR/a.out"
	# Every run that ran has its row, ended (the job '' is the history's
	# hourly clean-up, claimed like a job).
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE state = 'succeeded' AND job <> ''" "$DB")" \
		"$(wc -l <"$RUNS")"
}

@test "fleet: --overlap skip holds across replicas for a run longer than the interval" {
	for r in a b c; do
		start_replica "$r" --calendar '*:*:*' --count 5 -- sh -c "$LOG; sleep 2.5"
	done
	for r in a b c; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 30
		assert_equal "$bg_status" 0
	done
	assert_each_once
	(($(count_action skip) > 0)) || fail "no skip"
	# Runs 2.5 s long started at least 3 s apart, wherever they ran.
	cut -d' ' -f2 "$RUNS" | sort -n | awk 'NR > 1 && $1 - prev < 3 { bad = 1 } { prev = $1 }
		END { exit bad }' || fail "overlapping: $(sort "$RUNS")"
	(($(wc -l <"$RUNS") >= 2)) || fail "$(sort "$RUNS")"
}

@test "fleet: a won run's tries and end are its row's; @reboot runs unclaimed on each replica" {
	jobs=$BATS_TEST_TMPDIR/jobs
	at=$(($(date +%s) + 1))
	printf '%s\n' "@reboot $LOG" \
		"--name flaky --clock realtime --at @$at --retry 1 --retry-delay 200ms -- sh -c '$LOG; exit 3'" \
		>"$jobs"
	for r in a b; do
		start_replica "$r" --jobs "$jobs"
	done
	for r in a b; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 20
	done
	# Both replicas ran @reboot; one ran flaky, twice.
	assert_equal "$(grep -c ' a$' "$RUNS") $(grep -c ' b$' "$RUNS")" \
		"$( (grep -q '^flaky .* a$' "$RUNS" && echo 3 1) || echo 1 3)"
	assert_equal "$(pg_sql "SELECT job, state, attempts, exit_status FROM tfd_runs WHERE job <> ''" "$DB")" \
		"flaky|failed|2|3"
}

@test "fleet: a connection cut silently (a stopped proxy) while a run holds its claim is noticed, reported once, its elapses missed, and tfd goes on after" {
	pg_proxy_start
	CONN="host=127.0.0.1 port=$PROXY_PORT dbname=$DB user=postgres connect_timeout=2"
	jobs=$BATS_TEST_TMPDIR/jobs
	at=$(($(date +%s) + 2))
	printf '%s\n' "--name tick --calendar '*:*:*' --count 16 -- sh -c '$LOG'" \
		"--name long --clock realtime --at @$at -- sh -c '$LOG; sleep 7'" >"$jobs"
	prom=$BATS_TEST_TMPDIR/a.prom
	start_replica a --jobs "$jobs" --fleet-lease 3s --fleet-deadline 1s --metrics "$prom"
	wait_until 10 grep -q '^long ' "$RUNS" || fail "long did not start: $(cat "$RUNS")"
	# The proxy stops answering while a run holds its claim. The replica
	# sends a statement at least every lease/6 (0.5 s: the renewal) and
	# gives each connect_timeout (2 s) to be answered: the stopped proxy's
	# kernel still acknowledges what is sent, so TCP's keepalives and
	# tcp_user_timeout cannot tell.
	pg_proxy_signal STOP
	stopped=$(mono_ns)
	wait_until 10 grep -q '"event":"error".*"call":"postgresql"' "$BATS_TEST_TMPDIR/a.out" ||
		fail "not noticed: $(cat "$BATS_TEST_TMPDIR/a.out")"
	noticed=$(mono_ns)
	((noticed - stopped < 5000000000)) || fail "noticed after $((noticed - stopped)) ns"
	wait_until 5 grep -q '^tfd_fleet_connected 0$' "$prom" || fail "$(cat "$prom")"
	# Elapses that cannot be claimed within the deadline (1 s) are missed.
	wait_until 10 eval '(($(count_action missed) >= 2))' || fail "missed: $(count_action missed)"
	pg_proxy_signal CONT
	wait_bg_exit "$PID_a" 40
	# The outage, an error at run time, is tfd's status 1 at the end.
	assert_equal "$bg_status" 1
	assert_each_once
	run grep -c '"event":"error".*no answer from the server within 2 s' "$BATS_TEST_TMPDIR/a.out"
	assert_output 1
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 1
	grep -q '^tfd_fleet_connected 1$' "$prom" || fail "$(cat "$prom")"
	# It reconnected through the resumed proxy and ran again.
	last=$(awk '$1 == "tick" { print int($2) }' "$RUNS" | sort -n | tail -1)
	missed_last=$(grep '"action":"missed"' "$BATS_TEST_TMPDIR/a.out" |
		sed 's/.*"unix":\([0-9]*\).*/\1/' | sort -n | tail -1)
	((last > missed_last)) || fail "nothing ran after the cut: $(sort "$RUNS")"
	# The run that held its claim through the cut has its end, written
	# once the connection was back; nothing missed has a row.
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'long'" "$DB")" succeeded
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job <> '' AND state = 'succeeded'" "$DB")" \
		"$(wc -l <"$RUNS")"
}

@test "fleet: 3 replicas released at the same instant on an empty database create the table once" {
	gate=$BATS_TEST_TMPDIR/gate
	log_errors=$(grep -c ERROR "$PG_DIR/log" || true)
	for r in a b c; do
		# Each waits, polling every 10 ms, for the gate to exist.
		start_bg sh -c 'until [ -e "$1" ]; do sleep 0.01; done; shift; exec "$@"' sh "$gate" \
			"$TFD" --fleet "$CONN" --replica "$r" --json --calendar '*:*:*' --count 4 -- sh -c "$LOG" \
			>"$BATS_TEST_TMPDIR/$r.out" 2>"$BATS_TEST_TMPDIR/$r.err"
		eval "PID_$r=\$!"
	done
	nap 0.5
	: >"$gate"
	for r in a b c; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 30
		assert_equal "$bg_status" 0
		assert_equal "$(fleet_stderr "$BATS_TEST_TMPDIR/$r.err")" ""
		assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/$r.out")" 0
	done
	assert_each_once
	(($(wc -l <"$RUNS") >= 3)) || fail "$(sort "$RUNS")"
	assert_equal "$(pg_sql "SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE 'tfd%'" "$DB")" \
		'tfd_cleanups tfd_jobs tfd_paused tfd_replicas tfd_runs'
	# No statement of theirs failed on the server (a second CREATE, a
	# unique violation on the table's catalogue row).
	assert_equal "$(grep -c ERROR "$PG_DIR/log" || true)" "$log_errors"
}

@test "fleet: a claim and an end the server rolls back (deadlock, serialization failure) are asked again and run once" {
	# The table exists first (a replica made it), then a trigger makes the
	# server answer the first claim of job "once" with SQLSTATE 40P01, as
	# a real deadlock does, and the first write of its end with 40001, as
	# a serialization failure does; sequences count, as a rollback keeps
	# them.
	run "$TFD" --fleet "$CONN" --at now --count 1
	assert_success
	pg_sql "CREATE SEQUENCE tries; CREATE SEQUENCE end_tries;
		CREATE FUNCTION fail_first() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			IF NEW.job = 'once' AND TG_OP = 'INSERT' AND nextval('tries') = 1 THEN
				RAISE EXCEPTION 'deadlock detected (test)' USING ERRCODE = '40P01';
			END IF;
			IF NEW.job = 'once' AND TG_OP = 'UPDATE' AND NEW.state <> 'running'
			   AND nextval('end_tries') = 1 THEN
				RAISE EXCEPTION 'serialization failure (test)' USING ERRCODE = '40001';
			END IF;
			RETURN NEW;
		END \$\$;
		CREATE TRIGGER fail_first BEFORE INSERT OR UPDATE ON tfd_runs
			FOR EACH ROW EXECUTE FUNCTION fail_first();" "$DB"
	start_replica a --name once --fleet-deadline 5s --calendar '*:*:*' --count 1 -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 20
	assert_equal "$bg_status" 0
	# Asked twice, run once, no error and nothing missed.
	assert_equal "$(pg_sql "SELECT last_value FROM tries" "$DB")" 2
	assert_equal "$(pg_sql "SELECT last_value FROM end_tries" "$DB")" 2
	assert_equal "$(grep -c '^once ' "$RUNS")" 1
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 0
	assert_equal "$(count_action missed)" 0
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'once'" "$DB")" succeeded
}

@test "fleet: at exit, every run's end is written while a slow server still answers, past the 2 s grace" {
	# A first run makes the table; then each end's row takes the server
	# 0.4 s (a trigger), so the ten ends below take 4 s, twice the grace.
	run "$TFD" --fleet "$CONN" --replica a --clock realtime --at "@$(($(date +%s) + 1))" -q -- true
	assert_success
	pg_sql "CREATE FUNCTION slow_end() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN PERFORM pg_sleep(0.4); RETURN NEW; END \$\$;
		CREATE TRIGGER slow_end BEFORE UPDATE ON tfd_runs FOR EACH ROW
		WHEN (NEW.state <> 'running') EXECUTE FUNCTION slow_end()" "$DB"
	jobs=$BATS_TEST_TMPDIR/jobs
	at=$(($(date +%s) + 2))
	for i in $(seq 10); do
		printf '%s\n' "--name j$i --clock realtime --at @$at -- true"
	done >"$jobs"
	run "$TFD" --fleet "$CONN" --replica a --jobs "$jobs" -q
	assert_success
	assert_equal "$(pg_sql "SELECT state || ' ' || count(*) FROM tfd_runs WHERE job LIKE 'j%' GROUP BY state" "$DB")" \
		"succeeded 10"
}

@test "fleet: at exit with the server down, tfd waits for its last row no more than 2 s" {
	at=$(($(date +%s) + 2))
	start_replica a --clock realtime --at "@$at" -- sh -c "$LOG; sleep 2"
	wait_for_lines "$RUNS" 10
	pg_down
	# The run ends 2 s after it started; its end cannot be written.
	wait_bg_exit "$PID_a" 10
	ended=$(date +%s)
	pg_up
	# The outage was an error (exit 1, as a failed --metrics write is).
	assert_equal "$bg_status" 1
	((ended - at <= 8)) || fail "tfd ended $((ended - at)) s after the instant"
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job <> ''" "$DB")" running
}

@test "fleet: a lone elapse's claim goes at once, not after the batch's gathering time (50 ms)" {
	# Each run writes how long after its scheduled instant it started
	# (ms): the claim, a fork and an exec. The gathering that lets one
	# statement carry a burst must not hold back a claim that is alone.
	# A tfd without --fleet runs the same elapses beside it: what a
	# loaded machine adds to a fork and an exec, it adds to both.
	local local_runs=$BATS_TEST_TMPDIR/local-runs
	start_bg timeout 30 "$TFD" --calendar '*:*:*' --count 7 -q -- \
		sh -c 'echo "$(date +%s.%N) $TFD_SCHEDULED" >>"$1"' _ "$local_runs"
	timeout 30 "$TFD" --fleet "$CONN" --replica a --calendar '*:*:*' --count 7 -q -- \
		sh -c 'echo "$(date +%s.%N) $TFD_SCHEDULED" >>"$1"' _ "$RUNS" 2>"$BATS_TEST_TMPDIR/err"
	wait_bg_exit "${BG_PIDS[0]}" 10
	assert_equal "$(fleet_stderr "$BATS_TEST_TMPDIR/err")" ""
	median_late() {
		local -a late
		mapfile -t late < <(awk '{ printf "%d\n", ($1 - $2) * 1000 }' "$1" | sort -n)
		((${#late[@]} == 7)) || fail "runs in $1: ${late[*]}"
		echo "${late[3]}"
	}
	local fleet local_
	fleet=$(median_late "$RUNS")
	local_=$(median_late "$local_runs")
	# The claim's round trip to a server the same load slows: twice the
	# local lateness, and 40 ms; on a quiet machine (a few ms each) a
	# 50 ms gathering still fails it.
	((fleet < 2 * local_ + 40)) ||
		fail "median start $fleet ms after the instant, $local_ ms without --fleet"
}

@test "fleet: connection messages say --fleet:, what tfd does while the database is away, and when the connection is made and made again" {
	pg_down
	start_replica a --fleet-deadline 30s --calendar '*:*:*' --count 30 -- sh -c "$LOG"
	err=$BATS_TEST_TMPDIR/a.err
	wait_until 20 grep -q 'cannot connect' "$err" || fail "$(cat "$err")"
	line=$(grep 'cannot connect' "$err")
	[[ $line == "tfd: --fleet: cannot connect to the database; tfd keeps trying"*"an elapse not claimed within --fleet-deadline (30 s) of its instant is missed: connection to server"* ]] ||
		fail "$line"
	grep -q '"event":"error","job":null,"replica":"a","call":"postgresql","message":"--fleet: cannot connect' \
		"$BATS_TEST_TMPDIR/a.out" || fail "$(cat "$BATS_TEST_TMPDIR/a.out")"
	pg_up
	wait_until 30 grep -q "^tfd: --fleet: connected to the database as replica 'a', after [0-9.]* s of trying$" \
		"$err" || fail "$(cat "$err")"
	wait_for_lines "$RUNS" 30 1 || fail "nothing ran"
	pg_restart
	wait_until 30 grep -q "^tfd: --fleet: connected to the database again as replica 'a', after [0-9.]* s without it$" \
		"$err" || fail "$(cat "$err")"
	grep -q 'lost the connection to the database; tfd keeps trying' "$err" || fail "$(cat "$err")"
	# A line that is no failure is no "error" event.
	refute grep -q '"message":"--fleet: connected' "$BATS_TEST_TMPDIR/a.out"
}

@test "fleet: a server that drops each idle connection (idle_session_timeout) is told once, not at each reconnection" {
	pg_sql "ALTER DATABASE $DB SET idle_session_timeout = '1s'" postgres
	start_replica a --calendar '*:*:0/3' --count 4 -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 40
	assert_each_once
	(($(wc -l <"$RUNS") == 4)) || fail "$(cat "$RUNS")"
	# Dropped between elapses, three times or more: one error line.
	(($(grep -c 'connected to the database' "$BATS_TEST_TMPDIR/a.err") >= 2)) ||
		fail "never dropped: $(cat "$BATS_TEST_TMPDIR/a.err")"
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 1
	assert_equal "$(grep -c 'connected to the database again' "$BATS_TEST_TMPDIR/a.err")" 1
}

@test "fleet: a refusal said at every statement (a full disk) is one line, then a count" {
	# What a full disk answers to each insert, from a trigger.
	pg_sql "CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			RAISE EXCEPTION 'could not extend file \"base/1/2\": No space left on device'
				USING ERRCODE = '53100';
		END \$\$" "$DB"
	run "$TFD" --fleet "$CONN" --at now --count 1 -q
	pg_sql "CREATE TRIGGER full_disk BEFORE INSERT ON tfd_runs
		FOR EACH ROW WHEN (NEW.job <> '') EXECUTE FUNCTION full_disk()" "$DB"
	start_replica a --calendar '*:*:*' --count 6 -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 30
	assert_equal "$bg_status" 1
	assert_equal "$(wc -l <"$RUNS")" 0
	assert_equal "$(count_action missed)" 6
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 1
	grep -q '"event":"error".*No space left on device' "$BATS_TEST_TMPDIR/a.out"
}

@test "fleet: a statement_timeout that cancels tfd's statements is said at once, naming the setting, and the elapses are missed at once" {
	pg_sql "ALTER DATABASE $DB SET statement_timeout = '1ms'" postgres
	start_replica a --fleet-deadline 60s --calendar '*:*:*' --count 3 -- sh -c "$LOG"
	# Not at the deadline, a minute away: the elapses are missed as they come.
	wait_bg_exit "$PID_a" 20
	pg_sql "ALTER DATABASE $DB RESET statement_timeout" postgres
	assert_equal "$bg_status" 1
	assert_equal "$(count_action missed)" 3
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 1
	grep -q '"event":"error".*statement timeout.*ALTER ROLE name SET statement_timeout = 0' \
		"$BATS_TEST_TMPDIR/a.out" || fail "$(cat "$BATS_TEST_TMPDIR/a.out")"
}

@test "fleet: a run whose --random-delay outlasts its claim's lease (its replica stopped) does not start: its claim was abandoned" {
	# b renews every 0.33 s and sweeps a's claims once their lease passed.
	start_replica b --fleet-lease 2s --name keep --calendar 2199-01-01 -- true
	for attempt in 1 2 3; do
		at=$(($(date +%s) + 2))
		start_replica a --fleet-lease 2s --name "late$attempt" --clock realtime --at "@$at" \
			--random-delay 9s -- sh -c "$LOG"
		claimed() {
			[[ $(pg_sql "SELECT replica FROM tfd_runs WHERE job = 'late$attempt'" "$DB") == a ]]
		}
		wait_until 20 claimed || fail "not claimed: $(cat "$BATS_TEST_TMPDIR/a.out")"
		kill -STOP "$PID_a"
		stopped=$(date +%s)
		# Its delay was drawn shorter than the moment it took to stop it:
		# again, with another job.
		[[ -s $RUNS ]] || break
		kill -KILL "$PID_a"
		: >"$RUNS"
		(( attempt < 3 )) || fail "the run started before its replica could be stopped, 3 times"
	done
	abandoned() {
		[[ $(pg_sql "SELECT state FROM tfd_runs WHERE job = 'late$attempt'" "$DB") == abandoned ]]
	}
	wait_until 20 abandoned || fail "not abandoned"
	# Stopped past its delay (9 s at most) and its lease: due at once.
	while (($(date +%s) < stopped + 11)); do sleep 0.2; done
	kill -CONT "$PID_a"
	wait_bg_exit "$PID_a" 20
	assert_equal "$(wc -l <"$RUNS")" 0
	grep -q "\"event\":\"tick\",\"job\":\"late$attempt\".*\"action\":\"missed\"" "$BATS_TEST_TMPDIR/a.out" ||
		fail "$(cat "$BATS_TEST_TMPDIR/a.out")"
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'late$attempt'" "$DB")" abandoned
}

@test "fleet: a replica whose clock is 30 s ahead waits for the database's instant: nothing runs early, nothing is missed while it joins" {
	# faketime's library, preloaded into tfd itself (the faketime command
	# would stand between, its own process).
	lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
	[[ -n $lib ]] || skip "libfaketime is not installed"
	# The run's real time, outside faketime's.
	LOG='echo "$TFD_JOB $TFD_SCHEDULED $TFD_REPLICA $(env -u LD_PRELOAD -u FAKETIME date +%s.%N)" >>'"$RUNS"
	start_replica a --calendar '*:*:*' --count 14 -- sh -c "$LOG"
	wait_for_lines "$RUNS" 20 1
	start_bg env LD_PRELOAD="$lib" FAKETIME=+30s ASAN_OPTIONS=verify_asan_link_order=0 "$TFD" \
		--fleet "$CONN" --replica b --json --calendar '*:*:*' -- sh -c "$LOG" \
		>"$BATS_TEST_TMPDIR/b.out" 2>"$BATS_TEST_TMPDIR/b.err"
	PID_b=$!
	wait_bg_exit "$PID_a" 30
	kill -TERM "$PID_b"
	wait_bg_exit "$PID_b" 20
	assert_each_once
	# Each run starts at its instant or after it, by the real clock.
	awk '$4 < $2 - 0.2 { print; bad = 1 } END { exit bad }' "$RUNS" ||
		fail "early: $(sort -k2 "$RUNS")"
	# Every second of a's, after b joined too, ran once.
	assert_equal "$(count_action missed)" 0
	assert_equal "$(awk '$1 == "sh" { print int($2) }' "$RUNS" | sort -u | wc -l)" 14
	grep -q '"event":"error".*"call":"clock".*ahead of the database.*waits for the database' \
		"$BATS_TEST_TMPDIR/b.out" || fail "$(cat "$BATS_TEST_TMPDIR/b.out")"
}

@test "fleet: a multi-host CONNINFO through a proxy per server: a proxy whose server is gone holds the replica for one try, the next begins at the next host" {
	require_command socat
	# A proxy in front of a server that is not there (a failed primary):
	# it accepts each connection, then closes it.
	gone=$(pg_free_port)
	dead=$(pg_free_port)
	setsid socat TCP-LISTEN:"$dead",bind=127.0.0.1,reuseaddr,fork TCP:127.0.0.1:"$gone" \
		2>/dev/null 3>&- &
	BG_PIDS+=("-$!")
	disown "$!"
	wait_until 10 eval 'ss -Htln "sport = :$dead" | grep -q .' || fail "the proxy does not listen"
	pg_proxy_start
	CONN="host=127.0.0.1,127.0.0.1 port=$dead,$PROXY_PORT dbname=$DB user=postgres target_session_attrs=read-write"
	start_replica a --fleet-deadline 30s --calendar '*:*:*' --count 3 -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 40
	assert_equal "$(wc -l <"$RUNS")" 3
	grep -q "port $dead failed" "$BATS_TEST_TMPDIR/a.err" || fail "$(cat "$BATS_TEST_TMPDIR/a.err")"
	grep -q "connected to the database as replica 'a'" "$BATS_TEST_TMPDIR/a.err" ||
		fail "$(cat "$BATS_TEST_TMPDIR/a.err")"
}
