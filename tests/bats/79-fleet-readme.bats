#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output and $lines.
# README.md's fleet in six commands, run as README writes them, against a
# PostgreSQL of the file's own (pg_helper.bash) with no database yet:
# the role and the database, `tfd --fleet-sql | psql`, the grants, two
# replicas, `tfd_runs` read. The commands reach the test's server through
# PGHOST and PGPORT, `sudo -u postgres` is runuser, `tfd` is $TFD, and
# the role is the test's user (root), as $USER names it. tfd-fleet(7)
# shows the same six lines: 86-man.bats checks that they are README's.

load test_helper
load pg_helper

setup_file() {
	((EUID == 0)) && [[ -x $PG_BIN/initdb ]] || return 0
	pg_start
	# README starts from a server without the database.
	pg_sql "DROP DATABASE tfd" postgres
}

teardown_file() {
	pg_stop
}

setup() {
	((EUID == 0)) || skip "the server is run as postgres through runuser: needs root"
	[[ -x $PG_BIN/initdb ]] || skip "PostgreSQL 15 is not installed (.ci/install-deps)"
	cd "$BATS_TEST_TMPDIR" || exit 1
	mkdir bin
	ln -s "$TFD" bin/tfd
	# sudo -u USER COMMAND...: the command as USER, with this environment
	# (the server's socket and port), from a directory USER may enter.
	cat >bin/sudo <<-'EOF'
		#!/bin/bash
		[[ $1 == -u ]] || { echo "sudo stub: -u USER only" >&2; exit 1; }
		user=$2
		shift 2
		cd / && exec runuser -u "$user" -- env PATH="$PATH" PGHOST="$PGHOST" PGPORT="$PGPORT" "$@"
	EOF
	chmod +x bin/sudo
	export PATH="$PWD/bin:$PG_BIN:$PATH" PGHOST=$PG_DIR PGPORT=$PG_PORT USER=root
}

# True when two replicas are live and $1 elapses have run.
both_ran() {
	[[ $(pg_sql 'SELECT count(*) FROM tfd_replicas') == 2 &&
		$(pg_sql "SELECT count(*) FROM tfd_runs WHERE state = 'succeeded'") -ge $1 ]]
}

@test "README's fleet in six commands: two replicas share the jobs through a role that may only use the tables" {
	local -a cmds
	mapfile -t cmds < <(readme_fleet_commands)
	assert_equal "${#cmds[@]}" 6
	# What the replicas run: an elapse every second.
	echo '--name tick --calendar "*:*:*" -- true' >./jobs
	local i line
	for i in 0 1 2; do
		run bash -c "${cmds[i]}"
		assert_success
	done
	# The replicas' lines end in "&": started here, ended in teardown.
	for i in 3 4; do
		line=${cmds[i]}
		[[ $line == *' &' ]] || fail "not a replica in the background: $line"
		start_bg bash -c "exec ${line% &}" >"replica$i.out" 2>"replica$i.err"
	done
	# Both replicas are live, and the elapses of at least 4 seconds ran.
	wait_until 60 both_ran 4 || fail "no runs: $(cat replica*.err)"
	run bash -c "${cmds[5]}"
	assert_success
	assert_line --regexp '^ *tick *\| [0-9-]+ [0-9:]+\+00 *\| (one|two) *\| succeeded$'
	# The role may use the tables and nothing more: it owns none, and
	# neither replica said a word of error.
	assert_equal "$(pg_sql "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'tfd_%' AND tableowner = 'postgres'")" 5
	assert_equal "$(pg_sql "SELECT count(*) FROM pg_tables WHERE tableowner = 'root'")" 0
	assert_equal "$(without_operator_log "$(cat replica3.err replica4.err)")" ""
	# Each elapse ran once, on one replica or the other.
	assert_equal "$(pg_sql "SELECT count(*) - count(DISTINCT scheduled) FROM tfd_runs WHERE job = 'tick'")" 0
}
