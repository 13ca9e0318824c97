#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# --fleet when things go wrong, against a real PostgreSQL of this file's
# own (pg_helper.bash): passwords never printed, a role with only DML
# privileges, a read-only database, replicas that disagree on a job or
# share a name, names that are not UTF-8, the cleanup kept out of tfd_runs.

load test_helper
load pg_helper

# A password with every character that URIs and key=value strings treat
# specially; its pieces of three are what the tests look for in tfd's
# output.
PW='Qz7@Wx9/Kp4:Rm2%Tn5'
PIECES=(Qz7 Wx9 Kp4 Rm2 Tn5)
PW_URI='Qz7%40Wx9%2FKp4%3ARm2%25Tn5'

setup_file() {
	pg_start
	# fleetpw logs in over TCP with its password (SCRAM); every other role
	# as the helper set it up.
	sed -i "1i host all fleetpw 127.0.0.1/32 scram-sha-256" "$PG_DIR/data/pg_hba.conf"
	pg_ctl_as_postgres reload >/dev/null
	pg_sql "CREATE ROLE fleetpw LOGIN SUPERUSER PASSWORD '${PW//\'/\'\'}'" postgres
}

teardown_file() {
	pg_stop
}

setup() {
	pg_test_db
	fleet_runs_log
}

# Runs tfd with CONNINFO ($1) and the environment before it, for one elapse
# at the next second after it starts, and fails when anything it printed
# (stdout, stderr, the metrics file) holds a piece of the password. Its
# status in $tfd_status, what it printed in $printed. tfd ends by itself
# once the elapse ran or was missed, within --fleet-deadline ($DEADLINE,
# 1s): a case that connects, or that waits for a server's refusal, gives
# it room (on a loaded machine the connection may take longer, and the
# elapse would be missed before the refusal came, tfd then ending with
# nothing to say). timeout only stops a tfd that hangs.
run_printed() {
	local conninfo=$1 out=$BATS_TEST_TMPDIR/p.out err=$BATS_TEST_TMPDIR/p.err prom=$BATS_TEST_TMPDIR/p.prom
	rm -f "$prom"
	tfd_status=0
	timeout 120 "$TFD" --fleet "$conninfo" --json --metrics "$prom" --fleet-deadline "${DEADLINE:-1s}" \
		--calendar '*:*:*' --count 1 -- true >"$out" 2>"$err" || tfd_status=$?
	printed=$(cat "$out" "$err" "$prom" 2>/dev/null || true)
	for piece in "${PIECES[@]}"; do
		[[ $printed != *"$piece"* ]] || fail "'$piece' of the password printed for $conninfo: $printed"
	done
}

@test "fleet secrets: a password with @ / : % is never printed, whatever the form of CONNINFO and however libpq quotes it" {
	tcp="127.0.0.1:$PG_PORT"
	# An '@' and a '/' not encoded: libpq would put the password's tail in
	# the host name and its head in the port. Usage errors that say how.
	run_printed "postgresql://u:Qz7Wx9@PW-Kp4@$tcp/$DB"
	assert_equal "$tfd_status" 2
	[[ $printed == *"write an '@' of the user name or password as %40"* ]] || fail "$printed"
	run_printed "postgresql://u:Qz7/Wx9Kp4@$tcp/$DB"
	assert_equal "$tfd_status" 2
	[[ $printed == *"%2F"* ]] || fail "$printed"
	run_printed "postgresql://fleetpw:$PW@$tcp/$DB"
	assert_equal "$tfd_status" 2
	# A '%' that is no escape: libpq's message quotes the password.
	run_printed "postgresql://fleetpw:Qz7Wx9%Kp4@$tcp/$DB"
	assert_equal "$tfd_status" 2
	run_printed "host=127.0.0.1 port=$PG_PORT password=Qz7@Wx9 Kp4 dbname=$DB"
	assert_equal "$tfd_status" 2
	# libpq echoes a host that holds the password's text at connect time
	# (a socket directory: no name server asked, which could take the
	# resolver's timeouts): the fragments are scrubbed from its error.
	run_printed "host=$BATS_TEST_TMPDIR/Qz7-Wx9-Kp4 password=Qz7-Wx9-Kp4 dbname=$DB connect_timeout=2"
	assert_equal "$tfd_status" 1
	[[ $printed == *'"event":"error"'*'cannot connect to the database'* ]] || fail "$printed"
	# Encoded right, or quoted in key=value form: it connects and runs.
	DEADLINE=60s run_printed "postgresql://fleetpw:$PW_URI@$tcp/$DB"
	assert_equal "$tfd_status" 0
	DEADLINE=60s run_printed "host=127.0.0.1 port=$PG_PORT user=fleetpw dbname=$DB password='$PW'"
	assert_equal "$tfd_status" 0
	# A wrong password, by PGPASSWORD and by a passfile: refused, reported,
	# never shown.
	PGPASSWORD="${PW}x" DEADLINE=10s run_printed "host=127.0.0.1 port=$PG_PORT user=fleetpw dbname=$DB connect_timeout=2"
	assert_equal "$tfd_status" 1
	[[ $printed == *"password authentication failed"* ]] || fail "$printed"
	passfile=$BATS_TEST_TMPDIR/pgpass
	printf '*:*:*:fleetpw:%s\n' "${PW//:/\\:}y" >"$passfile"
	chmod 600 "$passfile"
	PGPASSFILE=$passfile DEADLINE=10s run_printed "host=127.0.0.1 port=$PG_PORT user=fleetpw dbname=$DB connect_timeout=2"
	assert_equal "$tfd_status" 1
	[[ $printed == *"password authentication failed"* ]] || fail "$printed"
}

@test "fleet secrets: no password reaches a job: PGPASSWORD and a variable holding CONNINFO are not in its environment nor in tfd's /proc/PID/environ, and tfd connects again after a restart" {
	conninfo="host=127.0.0.1 port=$PG_PORT user=fleetpw dbname=$DB connect_timeout=5"
	dump=$BATS_TEST_TMPDIR/env
	start_bg env PGPASSWORD="$PW" TFD_FLEET="$conninfo" DB_URL=" $conninfo" "$TFD" \
		--fleet "$conninfo" --json --fleet-deadline 60s --calendar '*:*:*' --count 4 --overlap parallel -- \
		sh -c 'env >"$1.run.$TFD_SEQ"; tr "\0" "\n" </proc/$PPID/environ >"$1.tfd.$TFD_SEQ"
			echo "$TFD_SEQ" >>"$2"' _ "$dump" "$RUNS" \
		>"$BATS_TEST_TMPDIR/a.out" 2>"$BATS_TEST_TMPDIR/a.err"
	pid=$!
	wait_for_lines "$RUNS" 30 1 || fail "no run: $(cat "$BATS_TEST_TMPDIR/a.err")"
	# The next connection needs the password again, PGPASSWORD gone.
	pg_restart
	wait_bg_exit "$pid" 90
	(($(wc -l <"$RUNS") == 4)) || fail "runs: $(cat "$RUNS") $(grep -v '"exit"' "$BATS_TEST_TMPDIR/a.out") $(cat "$BATS_TEST_TMPDIR/a.err")"
	for f in "$dump".*; do
		for piece in "${PIECES[@]}"; do
			! grep -q -- "$piece" "$f" || fail "'$piece' of the password in $f: $(cat "$f")"
		done
		! grep -qF -- "$conninfo" "$f" || fail "the connection string in $f: $(cat "$f")"
	done
	grep -q '^TFD_REPLICA=' "$dump.run.1" || fail "$(cat "$dump.run.1")"
	grep -q "connected to the database again" "$BATS_TEST_TMPDIR/a.err" ||
		fail "$(cat "$BATS_TEST_TMPDIR/a.err")"
}

@test "fleet least privilege: tfd --fleet-sql's tables, made by an administrator, run the fleet for a role with only SELECT, INSERT, UPDATE, DELETE" {
	run --separate-stderr "$TFD" --fleet-sql
	assert_success
	[[ $output == *"CREATE TABLE tfd_runs"* && $output == *"CREATE TABLE tfd_replicas"* ]] || fail "$output"
	# Before the tables exist, the role cannot create them (PostgreSQL 15:
	# no CREATE on public for PUBLIC): one line that says what to do, no
	# SQL, and the elapses missed at once rather than at the deadline.
	pg_sql "CREATE ROLE dml_$DB LOGIN" "$DB"
	CONN="host=$PG_DIR port=$PG_PORT dbname=$DB user=dml_$DB"
	start_replica a --calendar '*:*:*' --count 2 -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 15
	assert_equal "$bg_status" 1
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 1
	grep -q '"event":"error".*permission denied for schema public: .*tfd --fleet-sql' \
		"$BATS_TEST_TMPDIR/a.out" || fail "$(cat "$BATS_TEST_TMPDIR/a.out")"
	! grep -q 'CREATE\|DO \$tfd' "$BATS_TEST_TMPDIR/a.out" || fail "SQL shown: $(cat "$BATS_TEST_TMPDIR/a.out")"
	assert_equal "$(grep -c '"action":"missed"' "$BATS_TEST_TMPDIR/a.out")" 2
	# The administrator runs what --fleet-sql printed and grants DML only.
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U postgres -d "$DB" \
		<<<"$output" >/dev/null
	# First without INSERT on tfd_runs: each claim is refused, missed at
	# once, and reported once.
	pg_sql "GRANT SELECT, INSERT, UPDATE, DELETE ON tfd_replicas, tfd_jobs, tfd_cleanups, tfd_paused TO dml_$DB;
		GRANT SELECT, UPDATE, DELETE ON tfd_runs TO dml_$DB" "$DB"
	start_replica c --fleet-deadline 30s --calendar '*:*:*' --count 2 -- sh -c "$LOG"
	wait_bg_exit "$PID_c" 15
	assert_equal "$bg_status" 1
	assert_equal "$(grep -c '"action":"missed"' "$BATS_TEST_TMPDIR/c.out")" 2
	run grep -c '"event":"error".*permission denied for table tfd_runs: the role of --fleet needs SELECT, INSERT, UPDATE and DELETE' \
		"$BATS_TEST_TMPDIR/c.out"
	assert_output 1
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/c.out")" 1
	pg_sql "GRANT INSERT ON tfd_runs TO dml_$DB" "$DB"
	start_replica b --fleet-lease 1s --calendar '*:*:*' --count 3 -- sh -c "$LOG"
	wait_bg_exit "$PID_b" 20
	assert_equal "$bg_status" 0
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/b.out")" 0
	assert_equal "$(wc -l <"$RUNS")" 3
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE state = 'succeeded'" "$DB")" 3
	# The cleanup (at lease/6) ran too, in its own table: tfd_runs holds
	# only runs.
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_cleanups WHERE finished_at IS NOT NULL" "$DB")" 1
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job = ''" "$DB")" 0
}

@test "fleet least privilege: a role that does not own a table made before 'skipped' is told in one line the ALTER TABLE for its owner, its elapses missed at once" {
	# The administrator's tables, tfd_runs' CHECK as a tfd before
	# 'skipped' made it; the role may only read and write them.
	"$TFD" --fleet-sql | "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" \
		-U postgres -d "$DB" >/dev/null
	pg_sql "ALTER TABLE tfd_runs DROP CONSTRAINT tfd_runs_state_check, ADD CONSTRAINT tfd_runs_state_check
			CHECK (state IN ('running', 'succeeded', 'failed', 'abandoned'));
		CREATE ROLE dml_$DB LOGIN;
		GRANT SELECT, INSERT, UPDATE, DELETE ON tfd_runs, tfd_replicas, tfd_jobs, tfd_cleanups, tfd_paused
			TO dml_$DB" "$DB"
	CONN="host=$PG_DIR port=$PG_PORT dbname=$DB user=dml_$DB"
	start_replica a --calendar '*:*:*' --count 2 -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 15
	assert_equal "$bg_status" 1
	assert_equal "$(grep -c '"action":"missed"' "$BATS_TEST_TMPDIR/a.out")" 2
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 1
	fix=$(jq -r 'select(.event == "error") | .message' "$BATS_TEST_TMPDIR/a.out")
	[[ $fix == "--fleet: tfd cannot use the database; it keeps trying, and misses every elapse at once"*": table tfd_runs predates the state 'skipped' and only its owner may widen its CHECK: ALTER TABLE "* ]] ||
		fail "$fix"
	[[ $fix != *'the role of --fleet needs'* && $fix != *'DO $tfd'* ]] || fail "$fix"
	assert_equal "$(wc -l <"$RUNS")" 0
	# The owner runs the statement it was given; the role's replica runs.
	pg_sql "${fix#*widen its CHECK: }" "$DB"
	start_replica b --calendar '*:*:*' --count 2 -- sh -c "$LOG"
	wait_bg_exit "$PID_b" 15
	assert_equal "$bg_status" 0
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/b.out")" 0
	assert_equal "$(wc -l <"$RUNS")" 2
}

@test "fleet read-only: a database with default_transaction_read_only misses the elapses at once, reported once" {
	# The tables exist (a first run made them); then the database turns
	# read-only, as a standby or a maintenance window does.
	run "$TFD" --fleet "$CONN" --clock realtime --at "@$(($(date +%s) + 1))" -q -- true
	assert_success
	pg_sql "ALTER DATABASE $DB SET default_transaction_read_only = on" postgres
	started=$(date +%s)
	start_replica a --calendar '*:*:*' --count 3 -- sh -c "$LOG"
	wait_bg_exit "$PID_a" 30
	# Missed at once: not at the 60 s deadline.
	(($(date +%s) - started <= 10)) || fail "took $(($(date +%s) - started)) s"
	assert_equal "$bg_status" 1
	assert_equal "$(grep -c '"action":"missed"' "$BATS_TEST_TMPDIR/a.out")" 3
	assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/a.out")" 1
	grep -q '"event":"error".*read-only transaction: the database is read-only (default_transaction_read_only' \
		"$BATS_TEST_TMPDIR/a.out" || fail "$(cat "$BATS_TEST_TMPDIR/a.out")"
	assert_equal "$(wc -l <"$RUNS")" 0
}

@test "fleet replicas that disagree: a job defined otherwise on two live replicas is reported once by each, an equal one not, a reload compared again" {
	for r in a b; do
		every=$([[ $r == a ]] && echo 2 || echo 3)
		printf '%s\n' "--name differs --calendar '*:*:0/$every' -- true" \
			"--name same --calendar '*:*:0/5' -- true" >"$BATS_TEST_TMPDIR/$r.jobs"
		start_replica "$r" --fleet-lease 3s --jobs "$BATS_TEST_TMPDIR/$r.jobs"
	done
	# Each compares at its renewals (every 0.5 s): four seconds is plenty.
	sleep 4
	assert_equal "$(pg_sql "SELECT replica, count(*), count(DISTINCT fingerprint) FROM tfd_jobs GROUP BY 1 ORDER BY 1" "$DB")" \
		$'a|2|2\nb|2|2'
	assert_equal "$(pg_sql "SELECT count(DISTINCT fingerprint) FROM tfd_jobs WHERE job = 'same'" "$DB")" 1
	# A reload that changes "same" on b: its new fingerprint is written,
	# and that difference is told once more by each.
	printf '%s\n' "--name differs --calendar '*:*:0/3' -- true" \
		"--name same --calendar '*:*:0/5' -- echo changed" >"$BATS_TEST_TMPDIR/b.jobs.new"
	mv "$BATS_TEST_TMPDIR/b.jobs.new" "$BATS_TEST_TMPDIR/b.jobs"
	wait_until 10 eval '(($(pg_sql "SELECT count(DISTINCT fingerprint) FROM tfd_jobs WHERE job = '"'same'"'" "$DB") == 2))' ||
		fail "not written again: $(pg_sql "SELECT * FROM tfd_jobs" "$DB")"
	sleep 1.5
	for r in a b; do
		kill -TERM "$(eval echo "\$PID_$r")"
	done
	for r in a b; do
		wait_bg_exit "$(eval echo "\$PID_$r")" 10
		other=$([[ $r == a ]] && echo b || echo a)
		for job in differs same; do
			run grep -c "\"event\":\"error\".*\"call\":\"fleet\".*job '$job' is defined otherwise on replica '$other'" \
				"$BATS_TEST_TMPDIR/$r.out"
			assert_output 1
		done
		assert_equal "$(grep -c '"event":"error"' "$BATS_TEST_TMPDIR/$r.out")" 2
	done
	# At exit each let its name go, and its jobs.
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_jobs" "$DB")" 0
}

@test "fleet replicas that disagree: schedules are compared as written, normalized: 0 * * * * and 0 0-11 * * * differ, @hourly and 0 * * * * do not" {
	printf '%s\n' "--name hours --cron '0 * * * *' -- true" \
		"--name same --cron '@hourly' -- true" >"$BATS_TEST_TMPDIR/a.jobs"
	printf '%s\n' "--name hours --cron '0 0-11 * * *' -- true" \
		"--name same --cron '0 * * * *' -- true" >"$BATS_TEST_TMPDIR/b.jobs"
	for r in a b; do
		start_replica "$r" --fleet-lease 3s --jobs "$BATS_TEST_TMPDIR/$r.jobs"
	done
	told() {
		grep -q "\"call\":\"fleet\".*job 'hours' is defined otherwise on replica '$2'" \
			"$BATS_TEST_TMPDIR/$1.out"
	}
	wait_until 20 told a b || fail "a: $(cat "$BATS_TEST_TMPDIR/a.out")"
	wait_until 20 told b a || fail "b: $(cat "$BATS_TEST_TMPDIR/b.out")"
	assert_equal "$(pg_sql "SELECT count(DISTINCT fingerprint) FROM tfd_jobs WHERE job = 'same'" "$DB")" 1
	refute grep -q "job 'same'" "$BATS_TEST_TMPDIR/a.out" "$BATS_TEST_TMPDIR/b.out"
}

@test "fleet replica names: a second process under a live replica's name exits 1 naming its host and pid; after its death the name is taken" {
	start_replica a --fleet-lease 6s --calendar '*:*:*' -- sh -c "$LOG"
	wait_until 10 grep -q . "$RUNS" || fail "a did not run: $(cat "$BATS_TEST_TMPDIR/a.out")"
	# The same name again: after lease/3 (2 s) of seeing it renewed (every
	# lease/6, 1 s).
	run --separate-stderr timeout 20 "$TFD" --fleet "$CONN" --replica a --json --fleet-lease 6s \
		--calendar '*:*:*' -- sh -c "$LOG"
	assert_equal "$status" 1
	[[ $output == *'"event":"error"'*"replica 'a': another process holds this name (host $(hostname), pid $PID_a)"* ]] ||
		fail "$output"
	[[ $output != *'"action":"run"'* ]] || fail "it ran: $output"
	assert_equal "$(pg_sql "SELECT pid FROM tfd_replicas WHERE replica = 'a'" "$DB")" "$PID_a"
	# The holder dies without a word: a newcomer sees its renewals stop
	# within lease/3 and takes the name.
	kill -KILL "$PID_a"
	wait_bg_exit "$PID_a" 5
	: >"$RUNS"
	# (parallel: its elapses wait for the name, then come at once.)
	start_replica b --fleet-lease 6s --replica a --calendar '*:*:*' --count 2 --overlap parallel \
		-- sh -c "$LOG"
	wait_bg_exit "$PID_b" 20
	assert_equal "$bg_status" 0
	assert_equal "$(wc -l <"$RUNS")" 2 || fail "$(cat "$BATS_TEST_TMPDIR/b.out")"
	# It let the name go at exit: a restart takes it at once.
	assert_equal "$(pg_sql "SELECT seen_at < now() - interval '5 s' FROM tfd_replicas WHERE replica = 'a'" "$DB")" t
}

@test "fleet names: a job name that is not valid UTF-8 is a usage error, FILE:LINE in a jobs file; a --replica longer than 255 bytes too" {
	# A dry run checks what a start checks, and ends where a tfd that
	# accepted the name would run on.
	nowhere='host=/nonexistent dbname=tfd'
	assert_usage_error $'--fleet: the job\'s name \'a\\xffb\' is not valid UTF-8' \
		--fleet "$nowhere" --dry-run=1 --name $'a\xffb' --cron '* * * * *' -- true
	jobs=$BATS_TEST_TMPDIR/jobs
	printf '%s\n' '@reboot true' $'--name ok\xc3\xa9 --cron "* * * * *" -- true' \
		$'--name bad\xc3 --cron "* * * * *" -- true' >"$jobs"
	assert_usage_error "$jobs:3: --fleet: the job's name 'bad\\xc3' is not valid UTF-8" \
		--fleet "$nowhere" --dry-run=1 --jobs "$jobs"
	# A default name, from the command's word.
	printf '%s\n' $'* * * * * tru\xffe' >"$jobs"
	assert_usage_error "$jobs:1: --fleet: the job's name" --fleet "$nowhere" --dry-run=1 --jobs "$jobs"
	# A replica's name is never cut: more than 255 bytes is an error.
	long=$(printf 'r%.0s' $(seq 256))
	assert_usage_error "--replica 'rrrr" --fleet "$nowhere" --replica "$long" --dry-run=1 \
		--cron '* * * * *' -- true
	run_clean "$TFD" --fleet "$nowhere" --replica "${long:1}" --cron '* * * * *' --base-time @0 \
		--dry-run=1 --format %u
	# Without --fleet, no database stores it: accepted.
	run_clean "$TFD" --name $'a\xffb' --cron '* * * * *' --base-time @0 --dry-run=1 --format %u
	assert_output 60.000000000
}

@test "fleet backlog: a replica whose oldest waiting claim is older than half the deadline says so once" {
	# Each claimed row takes the server 0.5 s (a trigger): the statement
	# that claims the eight elapses of one instant takes 4 s, and they
	# wait in it past half of a 4 s deadline (told at its answer).
	run "$TFD" --fleet "$CONN" --clock realtime --at "@$(($(date +%s) + 1))" -q -- true
	assert_success
	pg_sql "CREATE FUNCTION slow_claim() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END \$\$;
		CREATE TRIGGER slow_claim BEFORE INSERT ON tfd_runs FOR EACH ROW
		EXECUTE FUNCTION slow_claim()" "$DB"
	at=$(($(date +%s) + 2))
	for i in $(seq 8); do
		printf '%s\n' "--name j$i --clock realtime --at @$at -- true"
	done >"$BATS_TEST_TMPDIR/jobs"
	start_replica a --fleet-deadline 4s --jobs "$BATS_TEST_TMPDIR/jobs"
	wait_bg_exit "$PID_a" 30
	run grep -c '"event":"error".*"call":"fleet".*falls behind: its oldest elapse waiting to be claimed' \
		"$BATS_TEST_TMPDIR/a.out"
	assert_output 1
	# Told at the answer, before its runs start.
	told=$(grep -n 'falls behind' "$BATS_TEST_TMPDIR/a.out" | cut -d: -f1)
	ran=$(grep -n '"action":"run"' "$BATS_TEST_TMPDIR/a.out" | head -1 | cut -d: -f1)
	((told < ran)) || fail "told after the runs: $(cat "$BATS_TEST_TMPDIR/a.out")"
}
