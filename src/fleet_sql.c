#include "fleet_sql.h"

/* pg_advisory_xact_lock's key while the table is created: "tfdruns". */
#define SETUP_LOCK "32199633744817779"

/* SQL: every value is a parameter; no name is ever part of the text. */

const char fleet_sql_setup[] =
	"DO $tfd$\n"
	"DECLARE shape text;\n"
	"BEGIN\n"
	"  PERFORM pg_advisory_xact_lock(" SETUP_LOCK ");\n"
	"  CREATE TABLE IF NOT EXISTS tfd_runs (\n"
	"    job text NOT NULL,\n"
	"    scheduled timestamptz NOT NULL,\n"
	"    replica text NOT NULL,\n"
	"    state text NOT NULL,\n"
	"    attempts int NOT NULL DEFAULT 1,\n"
	"    claimed_at timestamptz NOT NULL,\n"
	"    renewed_at timestamptz NOT NULL,\n"
	"    lease_until timestamptz NOT NULL,\n"
	"    finished_at timestamptz,\n"
	"    exit_status int,\n"
	"    timed_out bool,\n"
	"    PRIMARY KEY (job, scheduled),\n"
	"    CHECK (state IN ('running', 'succeeded', 'failed', 'abandoned', 'skipped')));\n"
	"  SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)\n"
	"    INTO shape FROM pg_attribute\n"
	"    WHERE attrelid = 'tfd_runs'::regclass AND attnum > 0 AND NOT attisdropped;\n"
	"  IF shape IS DISTINCT FROM 'job text, scheduled timestamp with time zone, replica text, "
	"state text, attempts integer, claimed_at timestamp with time zone, renewed_at timestamp "
	"with time zone, lease_until timestamp with time zone, finished_at timestamp with time "
	"zone, exit_status integer, timed_out boolean'\n"
	"     OR NOT EXISTS (SELECT 1 FROM pg_index WHERE indrelid = 'tfd_runs'::regclass\n"
	"                    AND indisprimary AND indkey::text = '1 2') THEN\n"
	"    RAISE EXCEPTION 'table % is not tfd''s: its columns are (%)%', "
	"'tfd_runs'::regclass::text, shape,\n"
	"      ' and tfd needs (job text, scheduled timestamptz, replica text, state text, "
	"attempts int, claimed_at timestamptz, renewed_at timestamptz, lease_until timestamptz, "
	"finished_at timestamptz, exit_status int, timed_out bool, PRIMARY KEY (job, scheduled)): "
	"rename or drop it, or give --fleet another schema';\n"
	"  END IF;\n"
	"  CREATE UNIQUE INDEX IF NOT EXISTS tfd_runs_one_running ON tfd_runs (job)\n"
	"    WHERE state = 'running' AND NOT timed_out;\n"
	"  CREATE INDEX IF NOT EXISTS tfd_runs_running ON tfd_runs (replica) WHERE state = 'running';\n"
	"  CREATE INDEX IF NOT EXISTS tfd_runs_finished ON tfd_runs (finished_at)\n"
	"    WHERE state <> 'running';\n"
	"END\n"
	"$tfd$";

/* The replica's boundary (the database's time of its first connection,
 * kept across reconnections): rows of its name claimed before it are a
 * former process's and are abandoned; the ones after are its own. */
const char fleet_sql_start[] =
	"WITH b AS (SELECT coalesce($2::timestamptz, now()) AS t),\n"
	"old AS (UPDATE tfd_runs SET state = 'abandoned', finished_at = now()\n"
	"        WHERE replica = $1 AND state = 'running' AND claimed_at < (SELECT t FROM b)\n"
	"        RETURNING 1)\n"
	"SELECT (extract(epoch FROM (SELECT t FROM b)) * 1000000)::bigint,\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint, (SELECT count(*) FROM old)";

const char fleet_sql_attempt[] =
	"UPDATE tfd_runs SET attempts = $4::int\n"
	"WHERE job = $1 AND scheduled = $2::timestamptz AND replica = $3";

/* A won elapse that will not run (fleet_run_dropped), or a claim whose
 * insert may have been carried out, on a connection lost before its
 * answer, and whose deadline passed before it could be asked again (the
 * loop was told it was missed): the row, if there is one, is given up
 * rather than left running, and renewed, for ever. */
const char fleet_sql_abandon[] =
	"UPDATE tfd_runs SET state = 'abandoned', finished_at = now()\n"
	"WHERE job = $1 AND scheduled = $2::timestamptz AND replica = $3 AND state = 'running'";

const char fleet_sql_renew[] =
	"WITH renewed AS (\n"
	"  UPDATE tfd_runs SET renewed_at = now(),\n"
	"         lease_until = now() + $2::bigint * interval '1 microsecond'\n"
	"  WHERE replica = $1 AND state = 'running' AND claimed_at >= $3::timestamptz RETURNING 1),\n"
	"swept AS (\n"
	"  UPDATE tfd_runs SET state = 'abandoned', finished_at = now()\n"
	"  WHERE state = 'running' AND lease_until < now()\n"
	"    AND NOT (replica = $1 AND claimed_at >= $3::timestamptz) RETURNING 1)\n"
	"SELECT (SELECT count(*) FROM renewed), (SELECT count(*) FROM swept),\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint";

const char fleet_sql_keep_claim[] =
	"INSERT INTO tfd_runs (job, scheduled, replica, state, attempts, claimed_at,\n"
	"                      renewed_at, lease_until)\n"
	"VALUES ($1, date_trunc('hour', now()), $2, 'running', 1, now(), now(),\n"
	"        now() + $3::bigint * interval '1 microsecond')\n"
	"ON CONFLICT DO NOTHING\n"
	"RETURNING (extract(epoch FROM scheduled) * 1000000)::bigint";

const char fleet_sql_keep_delete[] =
	"WITH gone AS (\n"
	"  DELETE FROM tfd_runs WHERE ctid = ANY (ARRAY(\n"
	"    SELECT ctid FROM tfd_runs\n"
	"    WHERE state <> 'running'\n"
	"      AND finished_at < now() - $1::bigint * interval '1 microsecond'\n"
	"    LIMIT " FLEET_KEEP_BATCH "))\n"
	"  RETURNING 1)\n"
	"SELECT count(*) FROM gone";
