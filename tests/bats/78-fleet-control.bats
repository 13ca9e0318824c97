#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# tfdctl under --fleet, against a real PostgreSQL of this file's own
# (pg_helper.bash): run claimed (its row's trigger 'manual'), pauses
# fleet-wide in tfd_paused across replicas and restarts, list's LAST and
# RESULT from tfd_runs with the replica; and the table change that came
# with them (trigger added to an older table, extra columns accepted).

load test_helper
load pg_helper

TFDCTL=${TFDCTL:-$REPO/tfdctl}

setup_file() {
	pg_start
}

teardown_file() {
	pg_stop
}

setup() {
	[[ -x $TFDCTL ]] || skip "no $TFDCTL: run make tfdctl first"
	pg_test_db
	cd "$BATS_TEST_TMPDIR" || exit 1
	export TZ=UTC
	: >runs
}

# Starts replica NAME on ./jobs with its control socket ./NAME.sock (its
# JSON events in NAME.out), the rest as tfd's arguments; returns once its
# jobs are in tfd_jobs (its connection is ready).
start_replica() {
	local name=$1
	shift
	start_bg "$TFD" --fleet "$CONN" --replica "$name" --fleet-lease 3s --json \
		--control="$BATS_TEST_TMPDIR/$name.sock" --jobs=jobs "$@" >>"$name.out" 2>>"$name.err"
	eval "PID_$name=\$!"
	wait_until 10 ready "$name" || fail "replica $name not ready: $(cat "$name.err")"
}

ready() {
	[[ -S $BATS_TEST_TMPDIR/$1.sock ]] &&
		(($(pg_sql "SELECT count(*) FROM tfd_jobs WHERE replica = '$1'" "$DB" 2>/dev/null || echo 0) > 0))
}

# Stops replica NAME (SIGTERM) and waits for its exit: status 143 (as a
# signal's), nothing on its stderr (a sanitizer's report included).
stop_replica() {
	local pid_var=PID_$1
	kill -TERM "${!pid_var}"
	wait_bg_exit "${!pid_var}" 15
	assert_equal "$bg_status" 143
	assert_equal "$(fleet_stderr "$1.err")" ""
}

# tfdctl of replica NAME.
ctl() {
	local name=$1
	shift
	"$TFDCTL" --control="$BATS_TEST_TMPDIR/$name.sock" "$@"
}

# Replica NAME's list shows JOB's "FIELD" as VALUE (jq's text of it).
list_shows() {
	[[ $(ctl "$1" --json list | jq -r ".jobs[] | select(.job == \"$2\") | .$3") == "$4" ]]
}

@test "fleet run: claimed like an elapse, its row's trigger manual; --wait exits with the run's status" {
	echo '--name j --cron "0 3 * * *" -- sh -c "echo \$TFD_REPLICA >>runs; exit 3"' >./jobs
	start_replica a
	run --separate-stderr ctl a run j --wait
	assert_equal "$status" 3
	assert_equal "$(cat runs)" a
	assert_equal "$(pg_sql "SELECT replica, trigger, state, exit_status FROM tfd_runs WHERE job = 'j'" "$DB")" \
		"a|manual|failed|3"
	grep -q '"event":"tick","job":"j".*"action":"run","trigger":"manual"' a.out || fail "$(cat a.out)"
	grep -q '"event":"control","job":"j".*"command":"run","uid":0' a.out || fail "$(cat a.out)"
	# Without --wait: answered once the claim is won.
	run ctl a --json run j
	assert_success
	assert_equal "$(jq -r .action <<<"$output")" run
	wait_until 5 eval '(($(pg_sql "SELECT count(*) FROM tfd_runs WHERE job = '"'j'"' AND state = '"'failed'"'" "$DB") == 2))' ||
		fail "$(pg_sql "SELECT * FROM tfd_runs" "$DB")"
}

@test "fleet run: skipped while the job runs on the other replica, the skip recorded as manual" {
	echo '--name long --cron "0 3 * * *" -- sh -c "echo \$TFD_REPLICA >>runs; sleep 3"' >./jobs
	start_replica a
	start_replica b
	run ctl a run long
	assert_success
	wait_for_lines runs 5 1
	run --separate-stderr ctl b run long
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: a run is still going and --overlap is skip"
	assert_equal "$(cat runs)" a
	assert_equal "$(pg_sql "SELECT replica, state, trigger FROM tfd_runs WHERE job = 'long' ORDER BY scheduled" "$DB")" \
		$'a|running|manual\nb|skipped|manual'
	grep -q '"event":"tick","job":"long".*"action":"skip","trigger":"manual"' b.out || fail "$(cat b.out)"
}

@test "fleet pause: paused on A, B's elapses are paused too; it survives a restart of both; resumed from B" {
	echo '--name p --calendar "*:*:*" -- sh -c "echo \$TFD_REPLICA >>runs"' >./jobs
	start_replica a
	start_replica b
	wait_for_lines runs 5 1 || fail "no run before the pause"
	run ctl a pause p
	assert_success
	assert_equal "$(pg_sql "SELECT job, paused_by FROM tfd_paused" "$DB")" "p|uid 0 on replica a"
	grep -q '"event":"control","job":"p".*"command":"pause","uid":0' a.out || fail "$(cat a.out)"
	# An elapse claimed before the pause may still be running: then none.
	sleep 1
	: >runs
	wait_until 5 grep -q '"action":"paused"' b.out || fail "B ran on: $(cat runs)"
	wait_until 5 grep -q '"action":"paused"' a.out || fail "A ran on: $(cat runs)"
	wait_until 5 list_shows b p state paused || fail "B's list: $(ctl b list)"
	assert_equal "$(cat runs)" ""
	(($(ctl b --json status p | jq .job.counters.paused) > 0)) || fail "$(ctl b --json status p)"
	# Both stop and start again: the pause is the database's.
	stop_replica a
	stop_replica b
	: >a.out
	: >b.out
	start_replica a
	start_replica b
	wait_until 5 list_shows a p state paused || fail "A's list after the restart: $(ctl a list)"
	wait_until 5 grep -q '"action":"paused"' b.out || fail "B after the restart: $(cat b.out)"
	assert_equal "$(cat runs)" ""
	run ctl b resume p
	assert_success
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_paused" "$DB")" 0
	wait_for_lines runs 5 1 || fail "not run after resume: $(cat a.out b.out)"
	wait_until 5 list_shows a p state idle || fail "A's list after resume: $(ctl a list)"
	stop_replica a
	stop_replica b
}

@test "fleet pause --all and resume --all: every job's row, one control event" {
	printf '%s\n' '--name x --cron "0 3 * * *" -- true' '--name y --cron "0 4 * * *" -- true' >./jobs
	start_replica a
	run ctl a pause --all
	assert_success
	assert_equal "$(pg_sql "SELECT string_agg(job, ',' ORDER BY job) FROM tfd_paused" "$DB")" x,y
	assert_equal "$(grep -c '"event":"control".*"command":"pause"' a.out)" 1
	run ctl a --json list
	assert_equal "$(jq -r '[.jobs[].state] | join(",")' <<<"$output")" paused,paused
	run ctl a resume --all
	assert_success
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_paused" "$DB")" 0
	run ctl a --json list
	assert_equal "$(jq -r '[.jobs[].state] | join(",")' <<<"$output")" idle,idle
	run --separate-stderr ctl a pause nosuch
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: unknown job 'nosuch'"
	stop_replica a
}

@test "fleet list: LAST and RESULT of a run made by the other replica, with that replica" {
	echo '--name l --cron "0 3 * * *" -- sh -c "exit 4"' >./jobs
	start_replica a
	start_replica b
	run ctl a run l --wait
	assert_equal "$status" 4
	# B reads the fleet's view each lease/6 (here 0.5 s).
	wait_until 5 list_shows b l replica a || fail "B's list: $(ctl b --json list)"
	run ctl b --json list
	assert_equal "$(jq -r '.jobs[0] | .result, (.last_unix != null), (.duration != null)' <<<"$output")" \
		$'status 4\ntrue\ntrue'
	run ctl b list
	assert_line --partial "status 4 on a"
	# A's own run: its own record, its own name.
	assert_equal "$(ctl a --json list | jq -r '.jobs[0] | .replica + " " + .result')" "a status 4"
	stop_replica a
	stop_replica b
}

@test "fleet tables: an older tfd_runs gets trigger; one with a column more is accepted; a column of another type or missing is refused" {
	pg_sql "CREATE TABLE tfd_runs (job text NOT NULL, scheduled timestamptz NOT NULL,
		replica text NOT NULL, state text NOT NULL, attempts int NOT NULL DEFAULT 1,
		claimed_at timestamptz NOT NULL, renewed_at timestamptz NOT NULL,
		lease_until timestamptz NOT NULL, finished_at timestamptz, exit_status int,
		timed_out bool, PRIMARY KEY (job, scheduled),
		CHECK (state IN ('running', 'succeeded', 'failed', 'abandoned', 'skipped')));
		INSERT INTO tfd_runs VALUES ('old', now(), 'z', 'succeeded', 1, now(), now(), now(), now(), 0, false)" "$DB"
	once=(--fleet "$CONN" --json --fleet-deadline 2s --clock realtime --at "@$(($(date +%s) + 1))")
	run --separate-stderr timeout 20 "$TFD" "${once[@]}" --name n -- true
	assert_success
	refute_output --partial '"error"'
	assert_equal "$(pg_sql "SELECT job, trigger FROM tfd_runs ORDER BY job" "$DB")" $'n|schedule\nold|schedule'
	assert_equal "$(pg_sql "SELECT format_type(atttypid, atttypmod), attnotnull FROM pg_attribute
		WHERE attrelid = 'tfd_runs'::regclass AND attname = 'trigger'" "$DB")" "text|t"
	# A later version's column: accepted as it is.
	pg_sql "ALTER TABLE tfd_runs ADD COLUMN note text" "$DB"
	once[-1]="@$(($(date +%s) + 1))"
	run --separate-stderr timeout 20 "$TFD" "${once[@]}" --name m -- true
	assert_success
	refute_output --partial '"error"'
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job = 'm' AND state = 'succeeded'" "$DB")" 1
	# trigger of another type, then a column of tfd's missing: refused.
	pg_sql "ALTER TABLE tfd_runs DROP COLUMN trigger; ALTER TABLE tfd_runs ADD COLUMN trigger int" "$DB"
	once[-1]="@$(($(date +%s) + 1))"
	run --separate-stderr timeout 20 "$TFD" "${once[@]}" --name k -- true
	assert_output --partial "table tfd_runs is not tfd's: its columns are (job text, "
	assert_output --partial "trigger integer)"
	assert_output --partial '"action":"missed"'
	pg_sql "ALTER TABLE tfd_runs DROP COLUMN trigger, DROP COLUMN exit_status" "$DB"
	once[-1]="@$(($(date +%s) + 1))"
	run --separate-stderr timeout 20 "$TFD" "${once[@]}" --name k -- true
	assert_output --partial "table tfd_runs is not tfd's"
	assert_output --partial '"action":"missed"'
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job = 'k'" "$DB")" 0
}

@test "fleet tables: tfd --fleet-sql creates tfd_paused and grants it" {
	run --separate-stderr "$TFD" --fleet-sql
	assert_success
	assert_output --partial "CREATE TABLE tfd_paused ("
	assert_output --partial "ON tfd_runs, tfd_replicas, tfd_jobs, tfd_cleanups, tfd_paused TO"
	assert_output --partial "trigger text NOT NULL DEFAULT 'schedule'"
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U postgres -d "$DB" \
		<<<"$output" >/dev/null
	assert_equal "$(pg_sql "SELECT count(*) FROM pg_class WHERE relname = 'tfd_paused'" "$DB")" 1
}

@test "fleet tables: a role that does not own an older tfd_runs is told the ALTER TABLE that adds trigger, its elapses missed; it runs once the owner ran it" {
	"$TFD" --fleet-sql | "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" \
		-U postgres -d "$DB" >/dev/null
	pg_sql "ALTER TABLE tfd_runs DROP COLUMN trigger;
		CREATE ROLE dml_$DB LOGIN;
		GRANT SELECT, INSERT, UPDATE, DELETE ON tfd_runs, tfd_replicas, tfd_jobs, tfd_cleanups,
			tfd_paused TO dml_$DB" "$DB"
	dml="host=$PG_DIR port=$PG_PORT dbname=$DB user=dml_$DB"
	run --separate-stderr timeout 20 "$TFD" --fleet "$dml" --json --calendar '*:*:*' --count 2 -- true
	assert_equal "$(grep -c '"action":"missed"' <<<"$output")" 2
	assert_equal "$(grep -c '"event":"error"' <<<"$output")" 1
	fix=$(jq -r 'select(.event == "error") | .message' <<<"$output")
	[[ $fix == "--fleet: tfd cannot use the database; it keeps trying, and misses every elapse at once"*": table tfd_runs predates the column trigger and only its owner may add it: ALTER TABLE "* ]] ||
		fail "$fix"
	pg_sql "${fix#*may add it: }" "$DB"
	run --separate-stderr timeout 20 "$TFD" --fleet "$dml" --json --calendar '*:*:*' --count 2 -- true
	assert_success
	refute_output --partial '"event":"error"'
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE trigger = 'schedule' AND state = 'succeeded'" "$DB")" 2
}

@test "fleet run: a manual run's row, lost while it ran (a failover), is written again at its end with trigger manual" {
	echo '--name r --cron "0 3 * * *" -- sh -c "echo go >>runs; sleep 1"' >./jobs
	start_replica a
	run ctl a run r
	assert_success
	wait_for_lines runs 5 1
	pg_sql "DELETE FROM tfd_runs WHERE job = 'r'" "$DB"
	wait_until 5 eval '[[ $(pg_sql "SELECT state, trigger FROM tfd_runs WHERE job = '"'r'"'" "$DB") == "succeeded|manual" ]]' ||
		fail "$(pg_sql "SELECT * FROM tfd_runs" "$DB")"
	stop_replica a
}

@test "fleet claims: a manual run's row overtakes no elapse; a paused job's elapse is answered paused and nothing written, its manual run won" {
	drive=$REPO/build/fleet_drive
	[[ -x $drive ]] || skip "no $drive: run make build/fleet_drive first"
	now=$(date +%s)
	run --separate-stderr env FLEET_REPLICA=a "$drive" "$CONN" connected \
		manual j $((now + 5)) parallel claim j "$now" skip end j "$now" 0 \
		pause j claim j $((now + 1)) skip manual j $((now + 6)) parallel \
		resume j claim j $((now + 2)) skip flushed
	assert_success
	assert_equal "$output" "up
claim j $((now + 5)) won
claim j $now won
done ok
claim j $((now + 1)) paused
claim j $((now + 6)) won
done ok
claim j $((now + 2)) won"
	assert_equal "$(pg_sql "SELECT extract(epoch FROM scheduled)::bigint - $now, trigger FROM tfd_runs
		WHERE job = 'j' ORDER BY scheduled" "$DB")" $'0|schedule\n2|schedule\n5|manual\n6|manual'
	assert_equal "$(pg_sql "SELECT paused_by FROM tfd_paused" "$DB")" ""
}

@test "fleet pause: a database that does not answer within 5 s is said so; the pause is written once it answers" {
	pg_proxy_start
	CONN="host=127.0.0.1 port=$PROXY_PORT dbname=$DB user=postgres connect_timeout=20"
	echo '--name s --cron "0 3 * * *" -- true' >./jobs
	start_replica a
	pg_proxy_signal STOP
	run --separate-stderr ctl a pause s
	pg_proxy_signal CONT
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: the fleet's database did not answer within 5 s: the change is sent when it answers"
	wait_until 10 eval '[[ $(pg_sql "SELECT job FROM tfd_paused" "$DB") == s ]]' || fail "not written"
	wait_until 5 list_shows a s state paused || fail "$(ctl a list)"
	stop_replica a
}
