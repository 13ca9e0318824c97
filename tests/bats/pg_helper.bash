# SPDX-License-Identifier: MIT
# A PostgreSQL server of the test file's own, for the fleet's tests: made
# with initdb in $BATS_FILE_TMPDIR, run by pg_ctl as the postgres user
# (the server refuses root), listening on a Unix socket in that directory
# and on 127.0.0.1 at a random free port; stopped by pg_stop in
# teardown_file, so nothing is left running. Debian's postgresql-15 (see
# .ci/install-deps); the tests need root for runuser.
#
#   setup_file()    { pg_start; }
#   teardown_file() { pg_stop; }
#
# After pg_start: PG_DIR (socket directory), PG_PORT, PG_CONNINFO (the
# database "tfd" over the socket), pg_sql SQL [DATABASE] (one query, rows as
# "a|b" lines), pg_restart, pg_down / pg_up, pg_test_db, pg_proxy_start /
# pg_proxy_signal (a socat proxy to the server that a test can stop: a
# network gone silent), pg_delay_proxy_start (a slow link). The fleet's
# tests poll with test_helper.bash's wait_until SECONDS COMMAND....

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

# Lets the postgres user through every directory above DIR that the test
# made (bats makes its temporary directories 0700).
pg_open_path() {
	local dir=$1
	while [[ $dir != / && $dir != /tmp ]]; do
		chmod o+x "$dir"
		dir=$(dirname "$dir")
	done
}

pg_free_port() {
	local port
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 40000))
		if ! ss -Htln "sport = :$port" | grep -q .; then
			echo "$port"
			return 0
		fi
	done
	return 1
}

# Runs a command as postgres from /: PostgreSQL's programs enter their
# working directory again, and a checkout under /root (mode 700) is not
# postgres's to enter ("could not change directory to ...").
as_postgres() {
	(cd / && exec runuser -u postgres -- "$@")
}

pg_ctl_as_postgres() {
	as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" "$@"
}

pg_up() {
	pg_ctl_as_postgres -l "$PG_DIR/log" -w -t 60 \
		-o "-k $PG_DIR -p $PG_PORT -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
}

pg_down() {
	pg_ctl_as_postgres -m fast -w -t 60 stop >/dev/null
}

pg_restart() {
	pg_down && pg_up
}

pg_sql() {
	"$PG_BIN/psql" -X -A -t -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U postgres \
		-d "${2:-tfd}" -c "$1"
}

pg_start() {
	PG_DIR=$BATS_FILE_TMPDIR/pg
	mkdir -p "$PG_DIR"
	pg_open_path "$PG_DIR"
	chown postgres: "$PG_DIR"
	as_postgres "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres \
		--no-sync --no-instructions >/dev/null
	# A port taken between the look and the start fails the start: try
	# another.
	for _ in 1 2 3 4 5; do
		PG_PORT=$(pg_free_port) && pg_up && break
		PG_PORT=
	done
	[[ -n $PG_PORT ]] || {
		cat "$PG_DIR/log" >&2
		return 1
	}
	export PG_DIR PG_PORT
	export PG_CONNINFO="host=$PG_DIR port=$PG_PORT dbname=tfd user=postgres"
	pg_sql "CREATE DATABASE tfd" postgres
}

pg_stop() {
	[[ -n ${PG_DIR:-} && -f $PG_DIR/data/postmaster.pid ]] || return 0
	pg_ctl_as_postgres -m immediate -w -t 60 stop >/dev/null
}

# A database of the running test's own, so tests do not see each other's
# rows: its name in DB, a connection string to it over the socket in CONN.
pg_test_db() {
	DB=t$BATS_SUITE_TEST_NUMBER
	pg_sql "CREATE DATABASE $DB" postgres
	CONN="host=$PG_DIR port=$PG_PORT dbname=$DB user=postgres"
	export DB CONN
}

# A TCP proxy from 127.0.0.1:PROXY_PORT to the server, in a session of its
# own, so that pg_proxy_signal SIG reaches the proxy and the children that
# carry its connections: STOP makes a connection silent without closing
# it (the proxy's kernel still acknowledges what is sent), CONT resumes
# it. Its process group is in BG_PIDS: test_helper's teardown ends it.
pg_proxy_start() {
	require_command socat
	PROXY_PORT=$(pg_free_port)
	setsid socat TCP-LISTEN:"$PROXY_PORT",bind=127.0.0.1,reuseaddr,fork \
		TCP:127.0.0.1:"$PG_PORT" 3>&- &
	PROXY_PID=$!
	# Ended by a signal: no "Killed" line from bash when it is reaped.
	disown "$PROXY_PID"
	BG_PIDS+=("-$PROXY_PID")
	pg_wait_listen "$PROXY_PORT" "the proxy"
}

# Waits up to 5 s for something to listen on 127.0.0.1:PORT; fails the
# test naming WHAT otherwise.
pg_wait_listen() {
	for _ in $(seq 100); do
		ss -Htln "sport = :$1" | grep -q . && return 0
		nap 0.05
	done
	fail "$2 does not listen on $1"
}

pg_proxy_signal() {
	kill -"$1" -- -"$PROXY_PID"
}

# A TCP proxy from 127.0.0.1:DELAY_PORT to the server that delays every
# byte by MS milliseconds each way (build/delay_proxy: a slow link, where a
# round trip costs 2 * MS); ended by test_helper's teardown (BG_PIDS).
pg_delay_proxy_start() {
	DELAY_PORT=$(pg_free_port)
	"$REPO/build/delay_proxy" "$DELAY_PORT" "$PG_PORT" "$1" 3>&- &
	BG_PIDS+=("$!")
	pg_wait_listen "$DELAY_PORT" "the delaying proxy"
}

# The runs' log of a fleet test: each run appends "JOB SCHEDULED REPLICA"
# to $RUNS; $LOG is the command that does it, for a job's line.
fleet_runs_log() {
	RUNS=$BATS_TEST_TMPDIR/runs
	# shellcheck disable=SC2016,SC2034 # expanded by the job's shell; the test files use it
	LOG='echo "$TFD_JOB $TFD_SCHEDULED $TFD_REPLICA" >>'"$RUNS"
	: >"$RUNS"
}

# Starts replica NAME on $CONN (its JSON events in $BATS_TEST_TMPDIR/NAME.out,
# its pid in $PID_NAME) with the rest as tfd's arguments.
start_replica() {
	local name=$1
	shift
	start_bg "$TFD" --fleet "$CONN" --replica "$name" --json "$@" \
		>"$BATS_TEST_TMPDIR/$name.out" 2>"$BATS_TEST_TMPDIR/$name.err"
	eval "PID_$name=\$!"
}

# A replica's stderr (the file $1) without the line tfd writes each time
# its connection is made: what is left is a warning or an error.
fleet_stderr() {
	grep -v "^tfd: --fleet: connected to the database" "$1" || true
}

# A burst: N jobs j1..jN due at one instant, far enough ahead (4 s) for
# replicas to read them and connect on a loaded machine, each logging its
# run ($LOG, fleet_runs_log); with a second argument "keep", a job that
# keeps a replica running after them too; in $jobs.
burst_jobs() {
	local at=$(($(date +%s) + 4)) i
	jobs=$BATS_TEST_TMPDIR/jobs
	for i in $(seq "$1"); do
		printf '%s\n' "--name j$i --clock realtime --at @$at -- sh -c '$LOG'"
	done >"$jobs"
	if [[ ${2:-} == keep ]]; then
		printf '%s\n' "--name keep --calendar 2199-01-01 -- true" >>"$jobs"
	fi
}

# True when N elapses of j1..jN have rows in tfd_runs and none is running.
burst_settled() {
	[[ $(pg_sql "SELECT count(*) FILTER (WHERE state <> 'running') = $1 AND
		count(*) FILTER (WHERE state = 'running') = 0 FROM tfd_runs WHERE job LIKE 'j%'" "$DB") == t ]]
}

# The end of a burst's test: once N elapses are settled (burst_settled,
# within 120 s), replica PID is stopped (60 s) and each (job, instant) of
# $RUNS must have run once.
stop_when_settled() {
	wait_until 120 burst_settled "$1" ||
		fail "$(pg_sql "SELECT state, replica, count(*) FROM tfd_runs GROUP BY 1, 2" "$DB")"
	kill -TERM "$2"
	wait_bg_exit "$2" 60
	assert_each_once
}

# Fails when some (job, instant) of $RUNS ran more than once.
assert_each_once() {
	local doubled
	doubled=$(cut -d' ' -f1,2 "$RUNS" | sort | uniq -d | head -5)
	[[ -z $doubled ]] || fail "run more than once: $doubled"$'\n'"$(sort "$RUNS" | head -40)"
}
