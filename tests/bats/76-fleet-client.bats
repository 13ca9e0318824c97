#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# The fleet's database client (src/fleet/fleet.c) against a real PostgreSQL of
# this file's own (pg_helper.bash), driven by build/fleet_drive, a poll
# loop of its own around fleet.h: claims, the table, leases, outages, the
# pipeline (over build/delay_proxy, a slow link, where what is sent at once
# costs one round trip).

load test_helper
load pg_helper

DRIVE=$REPO/build/fleet_drive

setup_file() {
	make -s -C "$REPO" build/fleet_drive build/delay_proxy >&2
	pg_start
}

teardown_file() {
	pg_stop
}

setup() {
	pg_test_db
	NOW=$(date +%s)
}

@test "fleet client: a bad connection string is exit 2, and a password in it is not shown" {
	run --separate-stderr "$DRIVE" "host=$PG_DIR password=sekrit-word junk" connected
	assert_equal "$status" 2
	[[ $stderr == *"cannot read the connection string"* ]] || fail "$stderr"
	[[ $stderr != *sekrit* && $stderr != *junk* ]] || fail "shown: $stderr"
	run --separate-stderr "$DRIVE" "postgresql://u:sekrit@[::1/db" connected
	assert_equal "$status" 2
	[[ $stderr != *sekrit* ]] || fail "shown: $stderr"
}

@test "fleet client: 3 racing replicas create the table once and claim each elapse once" {
	for r in a b c; do
		FLEET_REPLICA=$r start_bg "$DRIVE" "$CONN" connected claim job "$NOW" skip \
			claim other "$NOW" parallel >"$BATS_TEST_TMPDIR/$r"
	done
	for pid in "${BG_PIDS[@]}"; do
		wait "$pid"
	done
	BG_PIDS=()
	run cat "$BATS_TEST_TMPDIR"/{a,b,c}
	assert_equal "$(grep -c '^up$' <<<"$output")" 3
	assert_equal "$(grep -c "^claim job $NOW won$" <<<"$output")" 1
	assert_equal "$(grep -c "^claim job $NOW elsewhere$" <<<"$output")" 2
	assert_equal "$(grep -c "^claim other $NOW won$" <<<"$output")" 1
	refute_output --partial error
	assert_equal "$(pg_sql "SELECT count(*) FROM pg_class WHERE relname = 'tfd_runs'" "$DB")" 1
	assert_equal "$(pg_sql "SELECT count(*), min(state) FROM tfd_runs WHERE job = 'job'" "$DB")" "1|running"
}

@test "fleet client: a table of another shape is refused with a clear error" {
	pg_sql "CREATE TABLE tfd_runs (job text, at timestamptz)" "$DB"
	run --separate-stderr "$DRIVE" "$CONN" error
	assert_success
	assert_output --partial "error postgresql: "
	assert_output --partial "table tfd_runs is not tfd's: its columns are (job text, at timestamp with time zone)"
	refute_line up
}

@test "fleet client: a job name with quotes and semicolons is stored verbatim" {
	name="x'); DROP TABLE tfd_runs; --\"; \$\$ \\"
	run --separate-stderr "$DRIVE" "$CONN" connected claim "$name" "$NOW" skip end "$name" "$NOW" 3 flushed
	assert_success
	assert_output --partial "won"
	run pg_sql "SELECT job, state, exit_status FROM tfd_runs WHERE job <> ''" "$DB"
	assert_output "$name|failed|3"
}

@test "fleet client: --overlap skip holds across replicas, parallel does not" {
	out=$BATS_TEST_TMPDIR/a
	FLEET_REPLICA=a start_bg "$DRIVE" "$CONN" connected claim j "$NOW" skip \
		claim p "$NOW" parallel serve 2000 end j "$NOW" 0 flushed >"$out"
	wait_for_lines "$out" 30 3
	FLEET_REPLICA=b run "$DRIVE" "$CONN" connected claim j $((NOW + 1)) skip \
		claim p $((NOW + 1)) parallel
	assert_success
	assert_line "claim j $((NOW + 1)) skipped"
	assert_line "claim p $((NOW + 1)) won"
	wait "${BG_PIDS[0]}"
	BG_PIDS=()
	FLEET_REPLICA=b run "$DRIVE" "$CONN" connected claim j $((NOW + 2)) skip
	assert_line "claim j $((NOW + 2)) won"
}

@test "fleet client: an elapse past its deadline is missed; one within it is claimed late" {
	FLEET_DEADLINE_MS=5000 run "$DRIVE" "$CONN" connected claim late $((NOW - 30)) skip \
		claim recent $((NOW - 2)) skip
	assert_success
	assert_line "claim late $((NOW - 30)) missed"
	assert_line "claim recent $((NOW - 2)) won"
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job = 'late'" "$DB")" 0
}

@test "fleet client: a dead replica's claim is abandoned after its lease, and not run again" {
	FLEET_REPLICA=dead FLEET_LEASE_MS=1200 run "$DRIVE" "$CONN" connected claim j "$NOW" skip
	assert_line "claim j $NOW won"
	# The other replica sweeps every lease/6: within 1.2 s + 0.2 s.
	FLEET_REPLICA=alive FLEET_LEASE_MS=1200 run "$DRIVE" "$CONN" connected serve 3000 \
		claim j "$NOW" skip claim j $((NOW + 1)) skip
	assert_success
	assert_line "claim j $NOW elsewhere"
	assert_line "claim j $((NOW + 1)) won"
	run pg_sql "SELECT replica, state, finished_at IS NOT NULL FROM tfd_runs WHERE job = 'j' ORDER BY scheduled" "$DB"
	assert_line -n 0 "dead|abandoned|t"
	assert_line -n 1 "alive|running|f"
}

@test "fleet client: a running claim is renewed past its lease" {
	FLEET_REPLICA=slow FLEET_LEASE_MS=1200 start_bg "$DRIVE" "$CONN" connected \
		claim j "$NOW" skip serve 4000 end j "$NOW" 0 flushed >"$BATS_TEST_TMPDIR/slow"
	wait_for_lines "$BATS_TEST_TMPDIR/slow" 30 2
	FLEET_REPLICA=other FLEET_LEASE_MS=1200 run "$DRIVE" "$CONN" connected serve 2500
	assert_success
	wait "${BG_PIDS[0]}"
	BG_PIDS=()
	assert_equal "$(pg_sql "SELECT state, renewed_at > claimed_at FROM tfd_runs WHERE job = 'j'" "$DB")" \
		"succeeded|t"
}

@test "fleet client: a won elapse dropped before it ran is abandoned, and nobody runs it" {
	run "$DRIVE" "$CONN" connected claim j "$NOW" skip drop j "$NOW" flushed
	assert_line "claim j $NOW won"
	FLEET_REPLICA=b run "$DRIVE" "$CONN" connected claim j "$NOW" skip claim j $((NOW + 1)) skip
	assert_line "claim j $NOW elsewhere"
	assert_line "claim j $((NOW + 1)) won"
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'j' ORDER BY scheduled LIMIT 1" "$DB")" abandoned
}

@test "fleet client: a replica restarted under the same name abandons its former claims" {
	FLEET_REPLICA=r0 run "$DRIVE" "$CONN" connected claim j "$NOW" skip
	FLEET_REPLICA=r0 run "$DRIVE" "$CONN" connected claim j $((NOW + 1)) skip
	assert_line "claim j $((NOW + 1)) won"
	run pg_sql "SELECT state FROM tfd_runs WHERE job = 'j' ORDER BY scheduled" "$DB"
	assert_output $'abandoned\nrunning'
}

@test "fleet client: a server that starts later is waited for; an end written when it is back" {
	out=$BATS_TEST_TMPDIR/out
	start_bg "$DRIVE" "$CONN" connected claim j "$NOW" skip serve 2500 end j "$NOW" 0 \
		flushed serve 200 >"$out"
	wait_for_lines "$out" 30 2
	pg_down
	sleep 1
	pg_up
	wait "${BG_PIDS[0]}"
	BG_PIDS=()
	run cat "$out"
	assert_line -n 0 up
	assert_line -n 1 "claim j $NOW won"
	assert_line -n 2 --partial "error postgresql: "
	assert_line -n 3 down
	assert_equal "$(grep -c '^error postgresql: ' "$out")" 1
	assert_line up
	assert_equal "$(pg_sql "SELECT state, exit_status FROM tfd_runs WHERE job = 'j'" "$DB")" "succeeded|0"
}

@test "fleet client: an unreachable server is no error at start: one report, claims missed at the deadline" {
	port=$(pg_free_port)
	# A port nothing listens on: refused at once, tried again with backoff.
	FLEET_DEADLINE_MS=1000 run --separate-stderr "$DRIVE" \
		"host=127.0.0.1 port=$port dbname=tfd user=postgres" claim j "$NOW" skip serve 1500
	assert_success
	assert_line "claim j $NOW missed"
	assert_equal "$(grep -c '^error postgresql: ' <<<"$output")" 1
	refute_line up
}

@test "fleet client: --fleet-keep deletes old finished rows, once an hour, by one replica, claimed in tfd_cleanups; replicas long gone go too" {
	run "$DRIVE" "$CONN" connected
	pg_sql "INSERT INTO tfd_runs SELECT 'old', now() - k * interval '1 minute', 'x', 'succeeded', 1,
	        now(), now(), now(), now() - interval '2 days', 0, false FROM generate_series(1, 2500) k" "$DB"
	pg_sql "INSERT INTO tfd_runs VALUES ('new', now(), 'x', 'succeeded', 1, now(), now(), now(), now(), 0, false)" "$DB"
	# A replica gone two days ago, one an hour and a half ago: the first's
	# row and both's jobs go; the second's row stays within --fleet-keep.
	pg_sql "INSERT INTO tfd_replicas VALUES ('old', 'i1', 'h', 1, 'v', now() - interval '3 days',
	        now() - interval '2 days'), ('recent', 'i2', 'h', 2, 'v', now(), now() - interval '90 min');
	        INSERT INTO tfd_jobs VALUES ('old', 'j', 'f', now()), ('recent', 'j', 'f', now())" "$DB"
	# The cleanup comes at the first renewal, lease/6 after connecting.
	FLEET_LEASE_MS=600 FLEET_KEEP_S=86400 run "$DRIVE" "$CONN" connected serve 1500 flushed
	FLEET_LEASE_MS=600 FLEET_KEEP_S=86400 FLEET_REPLICA=b run "$DRIVE" "$CONN" connected serve 1500 flushed
	# tfd_runs holds only runs: the cleanup's claim is a row of its own.
	run pg_sql "SELECT job, count(*), min(state) FROM tfd_runs GROUP BY job ORDER BY job" "$DB"
	assert_output "new|1|succeeded"
	assert_equal "$(pg_sql "SELECT count(*), sum(deleted), bool_and(finished_at IS NOT NULL)
		FROM tfd_cleanups" "$DB")" "1|2500|t"
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_replicas WHERE replica = 'old'" "$DB")" 0
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_replicas WHERE replica = 'recent'" "$DB")" 1
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_jobs" "$DB")" 0
}

@test "fleet client: a connection cut silently (a stopped proxy) is noticed within connect_timeout" {
	pg_proxy_start
	out=$BATS_TEST_TMPDIR/out
	start_bg "$DRIVE" "host=127.0.0.1 port=$PROXY_PORT dbname=$DB user=postgres connect_timeout=2" \
		connected claim a "$NOW" skip serve 1000 claim b "$NOW" skip >"$out"
	wait_for_lines "$out" 30 2
	pg_proxy_signal STOP
	# The second claim's statement gets no answer: given up after 2 s.
	wait_for_lines "$out" 10 4
	pg_proxy_signal CONT
	wait "${BG_PIDS[1]}"
	run cat "$out"
	assert_line -n 0 up
	assert_line -n 1 "claim a $NOW won"
	[[ ${lines[2]} == "error postgresql: --fleet: lost the connection to the database; tfd keeps trying"*": no answer from the server within 2 s" ]] ||
		fail "${lines[2]}"
	assert_line -n 3 down
	assert_line -n 4 up
	assert_line -n 5 "claim b $NOW won"
}

@test "fleet client: a replica whose clock is off the database's by more than 1 s says so once" {
	require_command faketime
	FAKETIME_DONT_FAKE_MONOTONIC=1 run faketime -f '+5s' "$DRIVE" "$CONN" connected \
		claim a "$NOW" skip claim b "$NOW" skip
	assert_success
	assert_equal "$(grep -c '^error clock: .* its clock is [45]\.[0-9]* s ahead of the database' <<<"$output")" 1
	run "$DRIVE" "$CONN" connected claim c "$NOW" skip
	refute_output --partial "error clock"
}

@test "fleet client: a fleet-wide skip is a 'skipped' row: a replica that asks after the run ended hears skip too" {
	out=$BATS_TEST_TMPDIR/a
	# a's run lasts 6 s: b's claim must come while it goes (b connects
	# first, which a loaded machine made take longer than 1.5 s).
	FLEET_REPLICA=a start_bg "$DRIVE" "$CONN" connected claim j "$NOW" skip serve 6000 \
		end j "$NOW" 0 flushed >"$out"
	wait_for_lines "$out" 30 2
	FLEET_REPLICA=b run "$DRIVE" "$CONN" connected claim j $((NOW + 1)) skip
	assert_line "claim j $((NOW + 1)) skipped"
	wait "${BG_PIDS[0]}"
	BG_PIDS=()
	# The run ended: no running row holds the job, yet c, late, skips.
	FLEET_REPLICA=c run "$DRIVE" "$CONN" connected claim j $((NOW + 1)) skip
	assert_line "claim j $((NOW + 1)) skipped"
	run pg_sql "SELECT scheduled - to_timestamp($NOW), replica, state, attempts FROM tfd_runs
		WHERE job = 'j' ORDER BY scheduled" "$DB"
	assert_output $'00:00:00|a|succeeded|1\n00:00:01|b|skipped|0'
}

@test "fleet client: an elapse is not won after a later elapse of its job was claimed" {
	FLEET_REPLICA=a run "$DRIVE" "$CONN" connected claim j $((NOW + 5)) skip end j $((NOW + 5)) 0 \
		flushed claim j "$NOW" skip claim j $((NOW + 6)) skip
	assert_success
	assert_line "claim j $NOW missed"
	assert_line "claim j $((NOW + 6)) won"
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job = 'j'" "$DB")" 2
}

@test "fleet client: a claim re-sent after its answer was lost is not won when its row was abandoned meanwhile" {
	# The table first; then the server writes the first insert of "slow"
	# abandoned (as a sweep would have marked it) and holds its commit 3 s
	# (after the row is in the index, so a second insert waits for it);
	# the client gives the statement up after 2 s (connect_timeout) and
	# sends the claim again on a new connection.
	run "$DRIVE" "$CONN" connected
	pg_sql "CREATE SEQUENCE tries;
		CREATE FUNCTION mark_first() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			IF NEW.job = 'slow' AND nextval('tries') = 1 THEN
				NEW.state := 'abandoned';
				NEW.finished_at := now();
			END IF;
			RETURN NEW;
		END \$\$;
		CREATE FUNCTION hold_first() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			IF NEW.job = 'slow' AND NEW.state = 'abandoned' THEN
				PERFORM pg_sleep(3);
			END IF;
			RETURN NULL;
		END \$\$;
		CREATE TRIGGER mark_first BEFORE INSERT ON tfd_runs
			FOR EACH ROW EXECUTE FUNCTION mark_first();
		CREATE TRIGGER hold_first AFTER INSERT ON tfd_runs
			FOR EACH ROW EXECUTE FUNCTION hold_first();" "$DB"
	FLEET_REPLICA=a run "$DRIVE" "$CONN connect_timeout=2" connected claim slow "$NOW" skip
	assert_success
	assert_line --regexp "^error postgresql: --fleet: lost the connection to the database; .*: no answer from the server within 2 s$"
	assert_line "claim slow $NOW missed"
	refute_line "claim slow $NOW won"
	assert_equal "$(pg_sql "SELECT replica, state FROM tfd_runs WHERE job = 'slow'" "$DB")" "a|abandoned"
}

@test "fleet client: a run's end whose row is gone (a failover lost it) is inserted again; one whose key another replica holds is not" {
	FLEET_REPLICA=a run "$DRIVE" "$CONN" connected claim j "$NOW" skip claim k "$NOW" skip
	assert_line "claim j $NOW won"
	pg_sql "DELETE FROM tfd_runs WHERE job = 'j'; UPDATE tfd_runs SET replica = 'other' WHERE job = 'k'" "$DB"
	FLEET_REPLICA=a run "$DRIVE" "$CONN" connected end j "$NOW" 3 end k "$NOW" 0 flushed
	assert_success
	run pg_sql "SELECT job, replica, state, exit_status, claimed_at <= finished_at FROM tfd_runs
		WHERE job IN ('j', 'k') ORDER BY job" "$DB"
	assert_line -n 0 "j|a|failed|3|t"
	assert_line -n 1 "k|other|running||"
}

@test "fleet client: names an array's text form would misread (braces, commas, NULL, quotes, backslashes, spaces) are stored verbatim in one batch" {
	names=('NULL' '{a,b}' ' lead' 'x"y\z' 'a,b' 'end\' "it's")
	run "$DRIVE" "$CONN" connected claims "${#names[@]}" "$NOW" "${names[@]}"
	assert_success
	assert_equal "$(grep -c " $NOW won$" <<<"$output")" "${#names[@]}"
	# One statement claimed them all.
	run pg_sql "SELECT count(DISTINCT claimed_at) FROM tfd_runs WHERE job <> ''" "$DB"
	assert_output 1
	run pg_sql "SELECT job FROM tfd_runs WHERE job <> '' ORDER BY job" "$DB"
	assert_output "$(printf '%s\n' "${names[@]}" | sort)"
}

@test "fleet client: a table made before the state 'skipped' is taken as it is, its CHECK widened" {
	pg_sql "CREATE TABLE tfd_runs (job text NOT NULL, scheduled timestamptz NOT NULL,
		replica text NOT NULL, state text NOT NULL, attempts int NOT NULL DEFAULT 1,
		claimed_at timestamptz NOT NULL, renewed_at timestamptz NOT NULL,
		lease_until timestamptz NOT NULL, finished_at timestamptz, exit_status int,
		timed_out bool, PRIMARY KEY (job, scheduled),
		CHECK (state IN ('running', 'succeeded', 'failed', 'abandoned')))" "$DB"
	FLEET_REPLICA=a run "$DRIVE" "$CONN" connected claim j "$NOW" skip claim j $((NOW + 1)) skip
	assert_success
	assert_line "claim j $NOW won"
	assert_line "claim j $((NOW + 1)) skipped"
	refute_output --partial error
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'j' ORDER BY scheduled" "$DB")" \
		$'running\nskipped'
}

# The backend of application_name $1 sleeps in pg_sleep.
backend_sleeps() {
	[[ $(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1'
		AND wait_event = 'PgSleep'" "$DB") == 1 ]]
}

# ms between the first two "mark" lines of $output.
marks_apart() {
	awk '$1 == "mark" { m[n++] = $2 } END { print m[1] - m[0] }' <<<"$output"
}

@test "fleet client: every claim statement of an instant goes out at once: 2,500 claims over a link of 1 s each way take about one round trip" {
	pg_delay_proxy_start 1000
	mapfile -t names < <(seq -f 'j%g' 2500)
	run --separate-stderr "$DRIVE" "host=127.0.0.1 port=$DELAY_PORT dbname=$DB user=postgres" \
		connected mark claims 2500 "$NOW" "${names[@]}" mark
	assert_success
	assert_equal "$(grep -c " $NOW won$" <<<"$output")" 2500
	# One round trip is 2 s; a statement at a time, 3 statements took 6.
	(($(marks_apart) < 5000)) || fail "answered in $(marks_apart) ms"
	# Still 3 statements, each a transaction of its own (its own now()).
	assert_equal "$(pg_sql "SELECT count(DISTINCT claimed_at) FROM tfd_runs WHERE job LIKE 'j%'" "$DB")" 3
}

@test "fleet client: an error inside a pipeline is its statement's alone: the others go through, a rollback is sent again, a refusal reported" {
	run "$DRIVE" "$CONN" connected
	pg_sql "CREATE SEQUENCE rolls;
		CREATE FUNCTION check_end() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			IF NEW.state <> 'running' AND NEW.job = 'bad' THEN
				RAISE EXCEPTION 'no end for job bad';
			END IF;
			IF NEW.state <> 'running' AND NEW.job = 'roll' AND nextval('rolls') = 1 THEN
				RAISE EXCEPTION 'rolled back once' USING ERRCODE = 'serialization_failure';
			END IF;
			RETURN NEW;
		END \$\$;
		CREATE TRIGGER check_end BEFORE UPDATE ON tfd_runs
			FOR EACH ROW EXECUTE FUNCTION check_end();" "$DB"
	pg_delay_proxy_start 1000
	# Queued together, sent in one pass: the end of bad, a try of k, the
	# end of roll, the claim of x, four statements (a try breaks the ends'
	# batch), in one round trip of 2 s; roll's end again in a second. One
	# at a time, they took five.
	run --separate-stderr "$DRIVE" "host=127.0.0.1 port=$DELAY_PORT dbname=$DB user=postgres" \
		connected claim bad "$NOW" skip claim k "$NOW" skip claim roll "$NOW" skip \
		mark end bad "$NOW" 0 attempt k "$NOW" 2 end roll "$NOW" 0 claims 1 "$NOW" x flushed mark
	assert_success
	assert_line "claim x $NOW won"
	assert_equal "$(grep -c '^error ' <<<"$output")" 1
	assert_line "error postgresql: --fleet: no end for job bad"
	refute_output --partial "rolled back once"
	(($(marks_apart) < 7000)) || fail "written in $(marks_apart) ms: not two round trips"
	run pg_sql "SELECT job, state, attempts FROM tfd_runs ORDER BY job" "$DB"
	assert_output $'bad|running|1\nk|running|2\nroll|succeeded|1\nx|running|1'
}

@test "fleet client: a connection lost with statements in flight: each sent again as its kind says, nothing twice" {
	run "$DRIVE" "$CONN" connected
	pg_sql "CREATE SEQUENCE sleeps;
		CREATE FUNCTION slow_end() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			IF NEW.state <> 'running' AND NEW.job = 'slow' AND nextval('sleeps') = 1 THEN
				PERFORM pg_sleep(30);
			END IF;
			RETURN NEW;
		END \$\$;
		CREATE TRIGGER slow_end BEFORE UPDATE ON tfd_runs
			FOR EACH ROW EXECUTE FUNCTION slow_end();" "$DB"
	out=$BATS_TEST_TMPDIR/out
	# The end of slow holds the server; the try and the claims behind it
	# in the pipeline wait for it when the connection is cut.
	FLEET_REPLICA=a start_bg "$DRIVE" "$CONN application_name=cut" connected \
		claim slow "$NOW" skip claim k "$NOW" skip \
		end slow "$NOW" 0 attempt k "$NOW" 2 claims 2 "$NOW" x y flushed >"$out"
	wait_until 30 backend_sleeps cut || fail "the end of slow never reached the server"
	pg_sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cut'" "$DB" >/dev/null
	wait "${BG_PIDS[0]}"
	BG_PIDS=()
	run cat "$out"
	assert_line --partial "error postgresql: "
	assert_line down
	assert_line "claim x $NOW won"
	assert_line "claim y $NOW won"
	assert_equal "$(grep -c '^claim [xy] ' <<<"$output")" 2
	run pg_sql "SELECT job, replica, state, attempts FROM tfd_runs ORDER BY job" "$DB"
	assert_output $'k|a|running|2\nslow|a|succeeded|1\nx|a|running|1\ny|a|running|1'
}

@test "fleet client: the answer timeout counts from the last answer: slow statements in a row are waited for, a silent one is given up" {
	run "$DRIVE" "$CONN" connected
	pg_sql "CREATE SEQUENCE sleeps;
		CREATE FUNCTION slow_end() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			IF NEW.state <> 'running' AND NEW.job LIKE 's%' THEN
				PERFORM pg_sleep(1.2);
			END IF;
			IF NEW.state <> 'running' AND NEW.job = 'stuck' AND nextval('sleeps') = 1 THEN
				PERFORM pg_sleep(4);
			END IF;
			RETURN NEW;
		END \$\$;
		CREATE TRIGGER slow_end BEFORE UPDATE ON tfd_runs
			FOR EACH ROW EXECUTE FUNCTION slow_end();" "$DB"
	# Three ends of 1.2 s each, sent at once (a try between each breaks
	# their batch): 3.6 s in all, each answered within 2 s of the one
	# before it.
	run "$DRIVE" "$CONN connect_timeout=2" connected claim s1 "$NOW" skip claim s2 "$NOW" skip \
		claim s3 "$NOW" skip claim k "$NOW" skip end s1 "$NOW" 0 attempt k "$NOW" 2 \
		end s2 "$NOW" 0 attempt k "$NOW" 3 end s3 "$NOW" 0 flushed
	assert_success
	refute_output --partial "error"
	assert_equal "$(pg_sql "SELECT count(*) FROM tfd_runs WHERE job LIKE 's%' AND state = 'succeeded'" "$DB")" 3
	# The first end of stuck is silent for 4 s: given up after 2, sent
	# again on a new connection, with the claim behind it.
	run "$DRIVE" "$CONN connect_timeout=2" connected claim stuck "$NOW" skip \
		end stuck "$NOW" 0 claims 1 "$NOW" z flushed
	assert_success
	assert_line --regexp "^error postgresql: --fleet: lost the connection .*: no answer from the server within 2 s$"
	assert_line "claim z $NOW won"
	assert_equal "$(pg_sql "SELECT state FROM tfd_runs WHERE job = 'stuck'" "$DB")" succeeded
}

@test "fleet client: a run's end goes out before the renewal that came due with it" {
	# A loop busy for 1.2 s (idle) lets the renewal (every lease/6 =
	# 0.5 s) come due beside the end of a: the end is sent first, so the
	# renewal finds a ended and renews b alone; sent after the renewal, the
	# end would leave a renewed with b, at the same now().
	FLEET_LEASE_MS=3000 run --separate-stderr "$DRIVE" "$CONN" connected claim a "$NOW" skip \
		claim b "$NOW" skip idle 1200 end a "$NOW" 0 flushed
	assert_success
	run pg_sql "SELECT a.state, b.state, a.renewed_at < b.renewed_at FROM tfd_runs a, tfd_runs b
		WHERE a.job = 'a' AND b.job = 'b'" "$DB"
	assert_output "succeeded|running|t"
}

@test "fleet client: over a link of 1 s each way, a run's end lands within about one way's delay, not behind renewals and bookkeeping" {
	run "$DRIVE" "$CONN" connected
	pg_sql "CREATE TABLE landed (job text, at timestamptz);
		CREATE FUNCTION note_end() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN
			IF NEW.state <> 'running' AND OLD.state = 'running' THEN
				INSERT INTO landed VALUES (NEW.job, clock_timestamp());
			END IF;
			RETURN NEW;
		END \$\$;
		CREATE TRIGGER note_end AFTER UPDATE ON tfd_runs
			FOR EACH ROW EXECUTE FUNCTION note_end();" "$DB"
	pg_delay_proxy_start 1000
	# A 6 s lease: the leases and the name renewed every second, each a
	# round trip of 2 s; three runs end a second apart meanwhile.
	FLEET_LEASE_MS=6000 run --separate-stderr "$DRIVE" \
		"host=127.0.0.1 port=$DELAY_PORT dbname=$DB user=postgres" connected \
		claims 4 "$NOW" a b c d serve 2500 end a "$NOW" 0 serve 1000 end b "$NOW" 0 \
		serve 1000 end c "$NOW" 0 flushed
	assert_success
	run pg_sql "SELECT r.job, round(extract(epoch FROM l.at - r.finished_at)::numeric, 2)
		FROM tfd_runs r JOIN landed l USING (job) ORDER BY r.job" "$DB"
	assert_equal "${#lines[@]}" 3
	awk -F'|' '$2 >= 1.8 { bad = 1 } END { exit bad }' <<<"$output" ||
		fail "an end landed 1.8 s or more after it was written (job|s): $output"
}

@test "fleet client: a row is never finished before it was claimed: the failover's rewrite, a clock behind" {
	out=$BATS_TEST_TMPDIR/out
	# The run of j ends while the database is down, after its row was lost
	# (a failover to a standby that never had it): the reconnected replica
	# writes the row again, ended.
	FLEET_REPLICA=a start_bg "$DRIVE" "$CONN" connected claim j "$NOW" skip disconnected \
		end j "$NOW" 0 flushed >"$out"
	wait_for_lines "$out" 30 2
	pg_sql "DELETE FROM tfd_runs WHERE job = 'j'" "$DB"
	pg_down
	wait_for_lines "$out" 30 4
	pg_up
	wait "${BG_PIDS[0]}"
	BG_PIDS=()
	run pg_sql "SELECT replica, state, claimed_at <= finished_at, renewed_at <= finished_at
		FROM tfd_runs WHERE job = 'j'" "$DB"
	assert_output "a|succeeded|t|t"
	# A replica whose clock is 3 s behind the database's ends a run of a
	# moment "before" the database's claim: the end is the claim's instant.
	require_command faketime
	FAKETIME_DONT_FAKE_MONOTONIC=1 run faketime -f '-3s' "$DRIVE" "$CONN" connected \
		claim k "$NOW" skip end k "$NOW" 0 flushed
	assert_success
	assert_equal "$(pg_sql "SELECT state, claimed_at <= finished_at FROM tfd_runs WHERE job = 'k'" "$DB")" \
		"succeeded|t"
}
