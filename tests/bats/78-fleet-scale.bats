#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# --fleet at scale and when things go wrong, against a real PostgreSQL of
# this file's own (pg_helper.bash): a burst of elapses claimed in batches,
# ends written while claims flow, a recorded skip. The server logs every
# statement with its client's application_name (each replica gives its
# own), so the tests count the statements of each replica.

load test_helper
load pg_helper

setup_file() {
	pg_start
	pg_sql "ALTER SYSTEM SET log_line_prefix = '%m [%p] app=%a '" postgres
	pg_sql "SELECT pg_reload_conf()" postgres >/dev/null
}

teardown_file() {
	pg_stop
}

setup() {
	pg_test_db
	pg_sql "ALTER DATABASE $DB SET log_statement = 'all'" postgres
	fleet_runs_log
	LOG_FROM=$(($(stat -c %s "$PG_DIR/log") + 1))
}

# Starts replica NAME as start_replica does, its connections carrying
# application_name NAME, which the server's log names.
start_named_replica() {
	local CONN="$CONN application_name=$1"
	start_replica "$@"
}

# The server's log since the test began.
server_log() {
	tail -c +"$LOG_FROM" "$PG_DIR/log"
}

# How many claim statements replica $1 sent (each is one execution of the
# batch statement, which begins "WITH item AS").
claim_statements() {
	server_log | grep -c "app=$1 LOG:  execute [^:]*: WITH item AS" || true
}

count_action() {
	cat "$BATS_TEST_TMPDIR"/*.out | grep '"event":"tick"' | grep -c "\"action\":\"$1\"" || true
}

@test "fleet scale: 3 replicas x 600 jobs due at one instant: each run once, none missed, one claim statement per replica and a few more" {
	burst_jobs 600
	for r in a b c; do
		start_named_replica "$r" --jobs "$jobs" --fleet-deadline 30s
	done
	for r in a b c; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 60
		assert_equal "$bg_status" 0
	done
	assert_each_once
	assert_equal "$(wc -l <"$RUNS")" 600
	assert_equal "$(count_action missed)" 0
	assert_equal "$(count_action elsewhere)" 1200
	assert_equal "$(pg_sql "SELECT state, count(*) FROM tfd_runs WHERE job <> '' GROUP BY state" "$DB")" \
		"succeeded|600"
	# ceil(600 / 1000) = 1 statement per replica, one more for the elapses
	# whose conflict with another replica's insert it could not see, and
	# one for elapses that woke a moment later.
	for r in a b c; do
		n=$(claim_statements "$r")
		((n >= 1 && n <= 3)) || fail "replica $r sent $n claim statements"
	done
}

@test "fleet scale: a run's end is in its row within a second while claims flow" {
	# Claims are slowed down on the server (each insert of a "c" job takes
	# 2 ms, a statement of 300 of them 0.6 s) and flow every second; the
	# run of "short" ends in the middle of them.
	run "$TFD" --fleet "$CONN" --replica a --at now --count 1 -q
	assert_success
	pg_sql "CREATE FUNCTION slow_claim() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN PERFORM pg_sleep(0.002); RETURN NEW; END \$\$;
		CREATE TRIGGER slow_claim BEFORE INSERT ON tfd_runs FOR EACH ROW
		WHEN (NEW.job LIKE 'c%') EXECUTE FUNCTION slow_claim()" "$DB"
	jobs=$BATS_TEST_TMPDIR/jobs
	for i in $(seq 300); do
		printf '%s\n' "--name c$i --calendar '*:*:*' --count 6 -- true"
	done >"$jobs"
	at=$(($(date +%s) + 3))
	ended=$BATS_TEST_TMPDIR/ended
	printf '%s\n' "--name short --clock realtime --at @$at -- sh -c 'sleep 0.7; date +%s.%N >$ended'" >>"$jobs"
	start_named_replica a --jobs "$jobs"
	wait_until 20 test -s "$ended" || fail "short did not end"
	end_ns=$(to_ns "$(cat "$ended")")
	row_ns=
	for _ in $(seq 60); do
		row_ns=$(pg_sql "SELECT (extract(epoch FROM clock_timestamp()) * 1e9)::bigint
			FROM tfd_runs WHERE job = 'short' AND state = 'succeeded'" "$DB")
		[[ -n $row_ns ]] && break
		nap 0.05
	done
	[[ -n $row_ns ]] || fail "short's end not written within 3 s"
	((row_ns - end_ns < 1500000000)) || fail "written $(((row_ns - end_ns) / 1000000)) ms after the end"
	# Claims were flowing meanwhile.
	(($(claim_statements a) >= 3)) || fail "$(claim_statements a) claim statements"
	wait_bg_exit "$PID_a" 30
	assert_equal "$bg_status" 0
}

@test "fleet scale: an elapse is not run after a later elapse of its job ran" {
	# b's row for T+10 is there; a claims T, within its deadline: missed.
	at=$(($(date +%s) + 2))
	run "$TFD" --fleet "$CONN" --at now --count 1 -q
	pg_sql "INSERT INTO tfd_runs VALUES ('j', to_timestamp($at + 10), 'b', 'succeeded', 1,
		now(), now(), now(), now(), 0, false)" "$DB"
	start_named_replica a --name j --clock realtime --at "@$at" -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 20
	assert_equal "$bg_status" 0
	assert_equal "$(count_action missed)" 1
	assert_equal "$(wc -l <"$RUNS")" 0
}

# A primary and its streaming standby (pg_basebackup -R), each on a Unix
# socket of its own in $BATS_TEST_TMPDIR (no TCP port), the standby's
# replication through a socat proxy that the test can stop: a standby that
# falls behind, as an asynchronous one does.
pair_ctl() {
	local dir=$1
	shift
	as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" "$@"
}

pair_start() {
	local base=$BATS_TEST_TMPDIR/pair
	PRIMARY=$base/primary STANDBY=$base/standby RELAY=$base/relay
	mkdir -p "$PRIMARY" "$STANDBY" "$RELAY"
	pg_open_path "$base"
	chown postgres: "$PRIMARY" "$STANDBY" "$RELAY"
	as_postgres "$PG_BIN/initdb" -D "$PRIMARY/data" -A trust -U postgres \
		--no-sync --no-instructions >/dev/null
	pair_ctl "$PRIMARY" -l "$PRIMARY/log" -w -t 60 \
		-o "-k $PRIMARY -p 5432 -c listen_addresses= -c fsync=off" start >/dev/null
	"$PG_BIN/psql" -X -q -h "$PRIMARY" -U postgres -d postgres -c "CREATE DATABASE tfd"
	(cd / && exec setsid runuser -u postgres -- socat UNIX-LISTEN:"$RELAY/.s.PGSQL.5432",fork \
		UNIX-CONNECT:"$PRIMARY/.s.PGSQL.5432") 2>/dev/null 3>&- &
	RELAY_PID=$!
	disown "$RELAY_PID"
	BG_PIDS+=("-$RELAY_PID")
	wait_until 10 test -S "$RELAY/.s.PGSQL.5432" || fail "the relay does not listen"
	as_postgres "$PG_BIN/pg_basebackup" -D "$STANDBY/data" -R -h "$RELAY" -p 5432 \
		-U postgres --no-sync --checkpoint=fast
	pair_ctl "$STANDBY" -l "$STANDBY/log" -w -t 60 \
		-o "-k $STANDBY -p 5432 -c listen_addresses= -c fsync=off" start >/dev/null
	wait_until 20 eval '[[ $(pair_sql "$PRIMARY" "SELECT count(*) FROM pg_stat_replication WHERE state = '"'streaming'"'") == 1 ]]' ||
		fail "the standby does not stream"
}

pair_sql() {
	"$PG_BIN/psql" -X -A -t -q -v ON_ERROR_STOP=1 -h "$1" -U postgres -d tfd -c "$2"
}

# The standby stops receiving (its relay stopped): what the primary
# commits from now on is not on the standby, however fast the machine.
# Returns once the standby has replayed all it received, so that what it
# holds now is what it will hold when promoted.
standby_stop_receiving() {
	kill -STOP -- -"$RELAY_PID"
	caught_up() {
		[[ $(pair_sql "$STANDBY" "SELECT pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()") == t ]]
	}
	wait_until 20 caught_up || fail "the standby does not replay what it received"
}

# The primary is lost; the standby is promoted.
failover() {
	pair_ctl "$PRIMARY" -m immediate -w -t 60 stop >/dev/null
	kill -KILL -- -"$RELAY_PID"
	pair_ctl "$STANDBY" -w -t 60 promote >/dev/null
}

pair_stop() {
	local dir
	for dir in "${PRIMARY:-}" "${STANDBY:-}"; do
		[[ -n $dir && -f $dir/data/postmaster.pid ]] && pair_ctl "$dir" -m immediate -w -t 60 stop >/dev/null
	done
	return 0
}

@test "fleet scale: failover to a standby that lost the last rows: the multi-host CONNINFO follows the promotion, the replicas write their recent wins and ends again, none run twice" {
	require_command socat
	pair_start
	conn="host=$PRIMARY,$STANDBY port=5432 dbname=tfd user=postgres target_session_attrs=read-write connect_timeout=2"
	# A deadline longer than the gap: a replica writes again the wins of
	# the last --fleet-deadline, and the elapses of the failover wait.
	# 20 elapses: on a loaded machine the failover takes several seconds,
	# and some must be left after it.
	for r in a b; do
		start_bg "$TFD" --fleet "$conn" --replica "$r" --json --fleet-deadline 20s \
			--calendar '*:*:*' --count 20 -- sh -c "$LOG" \
			>"$BATS_TEST_TMPDIR/$r.out" 2>"$BATS_TEST_TMPDIR/$r.err"
		eval "PID_$r=\$!"
	done
	wait_for_lines "$RUNS" 20 3 || fail "no runs: $(cat "$BATS_TEST_TMPDIR"/*.out)"
	standby_stop_receiving
	rows_on_primary() { pair_sql "$PRIMARY" "SELECT count(*) FROM tfd_runs WHERE job <> ''"; }
	before=$(rows_on_primary)
	primary_gained_2() { (($(rows_on_primary) >= before + 2)); }
	wait_until 15 primary_gained_2 || fail "no claims while the standby lags"
	lost=$(rows_on_primary)
	# What the standby has is what it will have once promoted, counted
	# before the promotion: after it, the replicas write their rows again.
	kept=$(pair_sql "$STANDBY" "SELECT count(*) FROM tfd_runs WHERE job <> ''")
	((kept < lost)) || { pair_stop; fail "the standby lost nothing ($kept of $lost rows)"; }
	failover
	promoted=$(date +%s)
	for r in a b; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 40
	done
	assert_each_once
	# Runs went on on the promoted server.
	last=$(cut -d' ' -f2 "$RUNS" | sort -n | tail -1)
	((${last%.*} > promoted)) || { pair_stop; fail "nothing ran after the promotion: $(sort "$RUNS")"; }
	# Every run has its row, ended: the rows the failover lost were
	# written again.
	rows=$(pair_sql "$STANDBY" "SELECT count(*) FROM tfd_runs WHERE job <> '' AND state = 'succeeded'")
	missing=$(pair_sql "$STANDBY" "SELECT count(*) FROM tfd_runs WHERE job <> '' AND state <> 'succeeded' AND state <> 'skipped'")
	all=$(pair_sql "$STANDBY" "SELECT extract(epoch FROM scheduled), replica, state FROM tfd_runs ORDER BY 1")
	pair_stop
	[[ "$rows $missing" == "$(wc -l <"$RUNS") 0" ]] ||
		fail "$rows rows succeeded, $missing not ended: $(sort -k2 "$RUNS") $all"
}

# pgbouncer in transaction pooling in front of the server, on the first
# free port of 16430-16439, with fewer server connections than replicas;
# BOUNCER_PORT. Its process group is in BG_PIDS: teardown ends it.
bouncer_start() {
	require_command pgbouncer
	local dir=$BATS_TEST_TMPDIR/bouncer port
	mkdir -p "$dir"
	pg_open_path "$dir"
	for port in $(seq 16430 16439); do
		ss -Htln "sport = :$port" | grep -q . || break
	done
	BOUNCER_PORT=$port
	printf '"postgres" ""\n' >"$dir/users"
	cat >"$dir/ini" <<-INI
		[databases]
		* = host=$PG_DIR port=$PG_PORT
		[pgbouncer]
		listen_addr = 127.0.0.1
		listen_port = $BOUNCER_PORT
		unix_socket_dir =
		auth_type = trust
		auth_file = $dir/users
		pool_mode = transaction
		default_pool_size = 2
		max_client_conn = 50
		logfile = $dir/log
	INI
	chown -R postgres: "$dir"
	(cd / && exec setsid runuser -u postgres -- pgbouncer "$dir/ini") >/dev/null 2>&1 3>&- &
	BOUNCER_PID=$!
	disown "$BOUNCER_PID"
	BG_PIDS+=("-$BOUNCER_PID")
	wait_until 10 eval 'ss -Htln "sport = :$BOUNCER_PORT" | grep -q .' ||
		fail "pgbouncer does not listen: $(cat "$dir/log")"
}

@test "fleet scale: 3 replicas through pgbouncer in transaction pooling (2 server connections): each elapse of a burst and of a job every second once, none missed" {
	bouncer_start
	conn="host=127.0.0.1 port=$BOUNCER_PORT dbname=$DB user=postgres"
	burst_jobs 300
	printf '%s\n' "--name every --calendar '*:*:*' --count 8 -- sh -c '$LOG'" >>"$jobs"
	for r in a b c; do
		start_bg "$TFD" --fleet "$conn" --replica "$r" --json --jobs "$jobs" \
			>"$BATS_TEST_TMPDIR/$r.out" 2>"$BATS_TEST_TMPDIR/$r.err"
		eval "PID_$r=\$!"
	done
	for r in a b c; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 60
		assert_equal "$bg_status" 0
		assert_equal "$(fleet_stderr "$BATS_TEST_TMPDIR/$r.err")" ""
	done
	assert_each_once
	assert_equal "$(grep -c '^j' "$RUNS")" 300
	(($(grep -c '^every ' "$RUNS") >= 7)) || fail "$(grep '^every ' "$RUNS")"
	assert_equal "$(count_action missed)" 0
	assert_equal "$(pg_sql "SELECT job, scheduled, replica, state, exit_status FROM tfd_runs WHERE job <> '' AND state <> 'succeeded'" "$DB")" ""
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job <> ''" "$DB")" "$(wc -l <"$RUNS")"
}

@test "fleet scale: after an asynchronous failover a replica renews only the runs it has: rows of runs that ended on the old primary end, and their jobs run again at once" {
	pair_start
	conn="host=$PRIMARY,$STANDBY port=5432 dbname=tfd user=postgres target_session_attrs=read-write connect_timeout=2"
	jobs=$BATS_TEST_TMPDIR/jobs
	for i in $(seq 10); do
		printf '%s\n' "--name j$i --calendar '*:*:*' -- sh -c '$LOG; sleep 2'"
	done >"$jobs"
	start_bg "$TFD" --fleet "$conn" --replica a --json --jobs "$jobs" \
		>"$BATS_TEST_TMPDIR/a.out" 2>"$BATS_TEST_TMPDIR/a.err"
	# Every job has a run going, and the standby has its row, running.
	running_on_standby() {
		(($(pair_sql "$STANDBY" "SELECT count(*) FROM tfd_runs WHERE state = 'running'") == 10))
	}
	wait_until 30 running_on_standby || { pair_stop; fail "no running rows on the standby"; }
	standby_stop_receiving
	last=$(pair_sql "$STANDBY" "SELECT max(scheduled) FROM tfd_runs WHERE state = 'running'")
	# Those runs end on the primary alone.
	ended_on_primary() {
		(($(pair_sql "$PRIMARY" "SELECT count(*) FROM tfd_runs
			WHERE state = 'running' AND scheduled <= '$last'") == 0))
	}
	wait_until 20 ended_on_primary || { pair_stop; fail "the runs did not end"; }
	failover
	promoted=$(date +%s)
	# Each job runs again, on the promoted server, within seconds; renewed
	# for ever, the stale rows would hold every job skipped.
	ran_again() {
		(($(awk -v p="$promoted" '$2 > p { print $1 }' "$RUNS" | sort -u | wc -l) == 10))
	}
	wait_until 30 ran_again || {
		pair_stop
		fail "jobs run after the failover: $(awk -v p="$promoted" '$2 > p' "$RUNS" | sort)"
	}
	stale=$(pair_sql "$STANDBY" "SELECT count(*) FROM tfd_runs WHERE state = 'running' AND scheduled <= '$last'")
	pair_stop
	assert_equal "$stale" 0
	assert_each_once
}

@test "fleet scale: a replica stopped (SIGTERM) while it starts the runs it won releases the rest: another replica runs each elapse once, none abandoned" {
	burst_jobs 2000 keep
	start_named_replica a --fleet-lease 6s --jobs "$jobs"
	# Stopped with most of its won runs not started (64 start a turn).
	wait_until 30 eval '(($(grep -c " a$" "$RUNS") >= 20))' || fail "a ran nothing"
	kill -TERM "$PID_a"
	wait_bg_exit "$PID_a" 60
	assert_equal "$bg_status" 143
	started=$(grep -c ' a$' "$RUNS")
	# b takes what a released, at its renewals (every second).
	start_named_replica b --fleet-lease 6s --jobs "$jobs"
	stop_when_settled 2000 "$PID_b"
	((started < 1000)) || fail "a started $started runs: nothing to release"
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job <> '' AND state = 'abandoned'" "$DB")" 0
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job <> '' AND replica = 'b'" "$DB")" \
		"$(grep -c ' b$' "$RUNS")"
	# Every elapse ran: on b, or on a (a run a's SIGTERM ended, its row failed).
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job LIKE 'j%' AND state IN ('succeeded', 'failed')" "$DB")" 2000
}
