#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/fleet-renew.sh: the cost of the fleet's lease renewal, the one
# statement a replica sends every lease/6, against a PostgreSQL 15 of its
# own (tests/bats/pg_helper.bash: fsync off, a Unix socket; stopped at the
# end; needs root and Debian's postgresql-15). tfd_runs holds RENEW_RUNNING
# running rows of replica a (its runs going) and RENEW_FINISHED finished
# ones; the statement of the tree (which names each running key: issue 35
# item 1) and the one of RENEW_BASE (default prep, which renewed every
# running row of the replica's name) are timed in turns, RENEW_ROUNDS
# times each, from psql's \timing: their medians and ratio, in ms.
#
#   bash bench/fleet-renew.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RENEW_RUNNING=${RENEW_RUNNING:-10000}
RENEW_FINISHED=${RENEW_FINISHED:-200000}
RENEW_ROUNDS=${RENEW_ROUNDS:-9}
RENEW_BASE=${RENEW_BASE:-prep}

# shellcheck source=tests/bats/pg_helper.bash
. tests/bats/pg_helper.bash

# The text of the C string constant NAME of FILE, as the server gets it.
sql_text() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
body = re.search(r'const char ' + sys.argv[2] + r'\[\] =\n(.*?);\n', src, re.S).group(1)
macros = dict(re.findall(r'#define (\w+) "(\w+)"', open('src/fleet/fleet_sql.h').read()))
out = ''
for m in re.finditer(r'"((?:[^"\\]|\\.)*)"|([A-Z_]+)', body):
    out += macros[m.group(2)] if m.group(2) else m.group(1).encode().decode('unicode_escape')
print(out)
EOF
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

BENCH_TMP=$(mktemp -d /tmp/tfd-renew-bench.XXXXXX)
BATS_FILE_TMPDIR=$BENCH_TMP
trap 'pg_stop; rm -rf "$BENCH_TMP"' EXIT
pg_start >/dev/null
./tfd --fleet-sql | "$PG_BIN/psql" -X -q -h "$PG_DIR" -p "$PG_PORT" -U postgres -d tfd >/dev/null
pg_sql "INSERT INTO tfd_runs (job, scheduled, replica, state, attempts, claimed_at, renewed_at,
		lease_until, timed_out)
	SELECT 'j' || i, '2026-12-05 00:00:00+00', 'a', 'running', 1, now(), now(),
		now() + interval '60 s', false FROM generate_series(1, $RENEW_RUNNING) i;
	INSERT INTO tfd_runs (job, scheduled, replica, state, attempts, claimed_at, renewed_at,
		lease_until, finished_at, exit_status, timed_out)
	SELECT 'j' || (k % $RENEW_RUNNING), '2026-12-04 00:00:00+00'::timestamptz - k * interval '1 min',
		'a', 'succeeded', 1, now(), now(), now(), now(), 0, false
	FROM generate_series(1, $RENEW_FINISHED) k"
pg_sql "VACUUM ANALYZE tfd_runs"
# The base's fleet_sql.[ch]: in src/fleet/, or in a flat src/ before the
# folders.
for ext in c h; do
	git show "$RENEW_BASE:src/fleet/fleet_sql.$ext" >"$BENCH_TMP/base.$ext" 2>/dev/null ||
		git show "$RENEW_BASE:src/fleet_sql.$ext" >"$BENCH_TMP/base.$ext" || exit 1
done
old=$(sql_text "$BENCH_TMP/base.c" fleet_sql_renew)
new=$(sql_text src/fleet/fleet_sql.c fleet_sql_renew)
{
	echo "SELECT array_agg('j' || i)::text AS keys, array_agg('2026-12-05 00:00:00+00'::text)::text AS ats
		FROM generate_series(1, $RENEW_RUNNING) i \\gset"
	echo "PREPARE old (text, bigint, timestamptz) AS $old;"
	echo "PREPARE new (text, bigint, timestamptz, text, text, bool, text, bigint) AS $new;"
	printf '%s\n' '\timing on'
	for ((i = 0; i < RENEW_ROUNDS; i++)); do
		echo "EXECUTE old ('a', 60000000, '2026-01-01');"
		echo "EXECUTE new ('a', 60000000, '2026-01-01', :'keys', :'ats', false, :'keys', 60000000);"
	done
} >"$BENCH_TMP/bench.sql"
"$PG_BIN/psql" -X -q -h "$PG_DIR" -p "$PG_PORT" -U postgres -d tfd -f "$BENCH_TMP/bench.sql" |
	awk '/^Time:/ { print $2 }' >"$BENCH_TMP/times"
old_ms=$(awk 'NR % 2 == 1' "$BENCH_TMP/times" | median)
new_ms=$(awk 'NR % 2 == 0' "$BENCH_TMP/times" | median)
echo "renewal of $RENEW_RUNNING running rows among $((RENEW_RUNNING + RENEW_FINISHED)), median of $RENEW_ROUNDS (ms): now $new_ms, $RENEW_BASE $old_ms, ratio $(awk -v a="$new_ms" -v b="$old_ms" 'BEGIN { printf "%.2f", a / b }')"
echo "each (now): $(awk 'NR % 2 == 0' "$BENCH_TMP/times" | tr '\n' ' ')"
echo "each ($RENEW_BASE): $(awk 'NR % 2 == 1' "$BENCH_TMP/times" | tr '\n' ' ')"
