/* SPDX-License-Identifier: MIT */
#include "fleet_sql.h"
#include "fleet.h"

/* pg_advisory_xact_lock's key while a table is created: "tfdruns". */
#define SETUP_LOCK "32199633744817779"

/* SQL: every value is a parameter; no name is ever part of the text. */

/* The tables and indexes, each with its name: created by the setup when
 * missing, printed by --fleet-sql for an administrator. The tables come
 * before tfd_runs' shape check, the indexes after it (an index on a table
 * of another shape would fail on a column first). */
/* clang-format off */
#define FLEET_TABLES(X) \
	X("tfd_runs", \
	  "CREATE TABLE tfd_runs (\n" \
	  "  job text NOT NULL,\n" \
	  "  scheduled timestamptz NOT NULL,\n" \
	  "  replica text NOT NULL,\n" \
	  "  state text NOT NULL,\n" \
	  "  attempts int NOT NULL DEFAULT 1,\n" \
	  "  claimed_at timestamptz NOT NULL,\n" \
	  "  renewed_at timestamptz NOT NULL,\n" \
	  "  lease_until timestamptz NOT NULL,\n" \
	  "  finished_at timestamptz,\n" \
	  "  exit_status int,\n" \
	  "  timed_out bool,\n" \
	  "  trigger text NOT NULL DEFAULT 'schedule',\n" \
	  "  PRIMARY KEY (job, scheduled),\n" \
	  "  CHECK (state IN ('running', 'succeeded', 'failed', 'abandoned', 'skipped')))") \
	X("tfd_replicas", \
	  "CREATE TABLE tfd_replicas (\n" \
	  "  replica text PRIMARY KEY,\n" \
	  "  instance text NOT NULL,\n" \
	  "  host text NOT NULL,\n" \
	  "  pid int NOT NULL,\n" \
	  "  version text NOT NULL,\n" \
	  "  started_at timestamptz NOT NULL,\n" \
	  "  seen_at timestamptz NOT NULL)") \
	X("tfd_jobs", \
	  "CREATE TABLE tfd_jobs (\n" \
	  "  replica text NOT NULL,\n" \
	  "  job text NOT NULL,\n" \
	  "  fingerprint text NOT NULL,\n" \
	  "  seen_at timestamptz NOT NULL,\n" \
	  "  PRIMARY KEY (replica, job))") \
	X("tfd_cleanups", \
	  "CREATE TABLE tfd_cleanups (\n" \
	  "  hour timestamptz PRIMARY KEY,\n" \
	  "  replica text NOT NULL,\n" \
	  "  claimed_at timestamptz NOT NULL,\n" \
	  "  finished_at timestamptz,\n" \
	  "  deleted bigint)") \
	X("tfd_paused", \
	  "CREATE TABLE tfd_paused (\n" \
	  "  job text PRIMARY KEY,\n" \
	  "  paused_at timestamptz NOT NULL,\n" \
	  "  paused_by text NOT NULL)")

#define FLEET_INDEXES(X) \
	X("tfd_runs_one_running", \
	  "CREATE UNIQUE INDEX tfd_runs_one_running ON tfd_runs (job)\n" \
	  "  WHERE state = 'running' AND NOT timed_out") \
	X("tfd_runs_running", \
	  "CREATE INDEX tfd_runs_running ON tfd_runs (replica) WHERE state = 'running'") \
	X("tfd_runs_finished", \
	  "CREATE INDEX tfd_runs_finished ON tfd_runs (finished_at)\n" \
	  "  WHERE state <> 'running'") \
	X("tfd_jobs_job", "CREATE INDEX tfd_jobs_job ON tfd_jobs (job)")
/* clang-format on */

/* Whether a relation of that name is in a schema of the search path,
 * read from pg_class by the statement's own snapshot: to_regclass would
 * go through the catalogue cache, whose "no such relation" would outlast
 * the lock that another replica held while it created it. */
#define EXISTS_SQL(name) \
	"EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace\n" \
	"        WHERE c.relname = '" name "' AND n.nspname = ANY (current_schemas(false)))"
#define MISSING(name, ddl) "\n     OR NOT " EXISTS_SQL(name)
/* clang-format off */
#define CREATE_MISSING(name, ddl) \
	"    IF NOT " EXISTS_SQL(name) " THEN\n" ddl ";\n    END IF;\n"
/* clang-format on */
#define DDL(name, ddl) ddl ";\n"

/* tfd_runs' columns that every version since the first has, with their
 * types as format_type names them. */
#define RUNS_COLUMNS \
	"'job text', 'scheduled timestamp with time zone', 'replica text', 'state text', " \
	"'attempts integer', 'claimed_at timestamp with time zone', " \
	"'renewed_at timestamp with time zone', 'lease_until timestamp with time zone', " \
	"'finished_at timestamp with time zone', 'exit_status integer', 'timed_out boolean'"
#define RUNS_NCOLUMNS "11"

/* Least privilege: a statement that would create what exists still needs
 * CREATE on the schema (PostgreSQL checks it before IF NOT EXISTS), so the
 * catalogue is asked first and only what is missing is created; a role
 * with SELECT, INSERT, UPDATE and DELETE on tables an administrator made
 * creates nothing and takes no lock. */
/* clang-format off */
const char fleet_sql_setup[] =
	"DO $tfd$\n"
	"DECLARE shape text; have int;\n"
	"BEGIN\n"
	"  IF false" FLEET_TABLES(MISSING) " THEN\n"
	"    PERFORM pg_advisory_xact_lock(" SETUP_LOCK ");\n"
	FLEET_TABLES(CREATE_MISSING)
	"  END IF;\n"
	"  SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)\n"
	"    INTO shape FROM pg_attribute\n"
	"    WHERE attrelid = 'tfd_runs'::regclass AND attnum > 0 AND NOT attisdropped;\n"
	/* Columns beyond tfd's are a later version's: accepted. Each of
	 * tfd's must be there with its type; trigger may be missing (the
	 * upgrade adds it) but not of another type. */
	"  SELECT count(*) INTO have FROM pg_attribute\n"
	"    WHERE attrelid = 'tfd_runs'::regclass AND attnum > 0 AND NOT attisdropped\n"
	"      AND attname || ' ' || format_type(atttypid, atttypmod) = ANY (ARRAY[" RUNS_COLUMNS "]);\n"
	"  IF have <> " RUNS_NCOLUMNS "\n"
	"     OR EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'tfd_runs'::regclass\n"
	"                AND attname = 'trigger' AND NOT attisdropped\n"
	"                AND format_type(atttypid, atttypmod) <> 'text')\n"
	"     OR NOT EXISTS (SELECT 1 FROM pg_index WHERE indrelid = 'tfd_runs'::regclass\n"
	"                    AND indisprimary AND indkey::text = '1 2') THEN\n"
	"    RAISE EXCEPTION 'table % is not tfd''s: its columns are (%)%', "
	"'tfd_runs'::regclass::text, shape,\n"
	"      ' and tfd needs (job text, scheduled timestamptz, replica text, state text, "
	"attempts int, claimed_at timestamptz, renewed_at timestamptz, lease_until timestamptz, "
	"finished_at timestamptz, exit_status int, timed_out bool, trigger text (added when "
	"missing), PRIMARY KEY (job, scheduled); other columns may follow): "
	"rename or drop it, or give --fleet another schema';\n"
	"  END IF;\n"
	"  IF false" FLEET_INDEXES(MISSING) " THEN\n"
	"    PERFORM pg_advisory_xact_lock(" SETUP_LOCK ");\n"
	FLEET_INDEXES(CREATE_MISSING)
	"  END IF;\n"
	"END\n"
	"$tfd$";

const char fleet_sql_ddl[] =
	"-- The tables of tfd --fleet, for an administrator: run this as a role that\n"
	"-- may create in the schema that --fleet's connection uses, then let the\n"
	"-- role of --fleet use them:\n"
	"--   GRANT SELECT, INSERT, UPDATE, DELETE\n"
	"--     ON tfd_runs, tfd_replicas, tfd_jobs, tfd_cleanups, tfd_paused TO that_role;\n"
	"BEGIN;\n"
	FLEET_TABLES(DDL)
	FLEET_INDEXES(DDL)
	"COMMIT;\n";
/* clang-format on */

/* The replica's boundary (the database's time of its first connection,
 * kept across reconnections): rows of its name claimed before it are a
 * former process's and are abandoned; the ones after are its own. One
 * row, and one more for each row abandoned (its job and instant, which
 * the first leaves null), every one with the boundary and now(). */
const char fleet_sql_start[] =
	"WITH b AS (SELECT coalesce($2::timestamptz, now()) AS t),\n"
	"old AS (UPDATE tfd_runs SET state = 'abandoned', finished_at = now()\n"
	"        WHERE replica = $1 AND state = 'running' AND claimed_at < (SELECT t FROM b)\n"
	"        RETURNING job, scheduled)\n"
	"SELECT (extract(epoch FROM (SELECT t FROM b)) * 1000000)::bigint,\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint, (SELECT count(*) FROM old),\n"
	"       o.job, (extract(epoch FROM o.scheduled) * 1000000)::bigint\n"
	"FROM (SELECT NULL::text AS job, NULL::timestamptz AS scheduled\n"
	"      UNION ALL SELECT job, scheduled FROM old) o";

const char fleet_sql_attempt[] = "UPDATE tfd_runs SET attempts = $4::int\n"
				 "WHERE job = $1 AND scheduled = $2::timestamptz AND replica = $3";

/* A won elapse that will not run (fleet_run_dropped), or a claim whose
 * insert may have been carried out, on a connection lost before its
 * answer, and whose deadline passed before it could be asked again (the
 * loop was told it was missed): the row, if there is one, is given up
 * rather than left running, and renewed, for ever. */
const char fleet_sql_abandon[] =
	"UPDATE tfd_runs SET state = 'abandoned', finished_at = now()\n"
	"WHERE job = $1 AND scheduled = $2::timestamptz AND replica = $3 AND state = 'running'";

/* The renewal, every lease/6. $1 the replica, $2 the lease in
 * microseconds, $3 its boundary, $4 and $5 the keys (jobs, instants) of
 * the claims it holds (its runs going, its claims in flight), $6 its
 * check (the first renewal of a connection: its other running rows are
 * ended), $7 its jobs (text[]), $8 the deadline in microseconds.
 *
 * Only the keys it holds are renewed: after an asynchronous failover the
 * promoted server may hold rows of runs that ended on the old one, which
 * renewing by name would keep running for ever (and their jobs skipped on
 * every replica). Rows whose lease passed are abandoned, any replica's
 * (its own too: one it no longer holds); at the check, its rows that it
 * does not hold go at once. It takes the rows that a stopping replica
 * released (running, replica '') of its jobs, within the deadline and
 * never after a later elapse of the job, SKIP LOCKED so that replicas
 * taking at once neither wait nor deadlock; a released row nobody took
 * within the deadline is abandoned (its lease is no one's). One row each: 'lost' (a key
 * it holds whose row was not renewed), 'taken', 'abandoned' (a run whose
 * replica's lease passed, marked by this statement alone: the row-level
 * UPDATE lets one replica's renewal mark it, and the others' find it no
 * longer running; its replica too; not this replica's own, whose runs it
 * knows), and 'now'; every row carries now(). A released row abandoned
 * is no run, and not told. */
const char fleet_sql_renew[] =
	"WITH mine AS (\n"
	"  SELECT * FROM unnest($4::text[], $5::timestamptz[]) WITH ORDINALITY AS m(job, scheduled, n)),\n"
	"renewed AS (\n"
	"  UPDATE tfd_runs r SET renewed_at = now(),\n"
	"         lease_until = now() + $2::bigint * interval '1 microsecond'\n"
	"  FROM mine m WHERE r.job = m.job AND r.scheduled = m.scheduled\n"
	"    AND r.replica = $1 AND r.state = 'running'\n"
	"  RETURNING m.n),\n"
	"swept AS (\n"
	"  UPDATE tfd_runs r SET state = 'abandoned', finished_at = now()\n"
	"  WHERE r.state = 'running' AND r.replica <> ''\n"
	"    AND (r.lease_until < now()\n"
	"         OR ($6::bool AND r.replica = $1 AND r.claimed_at >= $3::timestamptz))\n"
	"    AND NOT EXISTS (SELECT 1 FROM mine m\n"
	"                    WHERE m.job = r.job AND m.scheduled = r.scheduled AND r.replica = $1)\n"
	"  RETURNING r.job, r.scheduled, r.replica),\n"
	"gone AS (\n"
	"  UPDATE tfd_runs r SET state = 'abandoned', finished_at = now()\n"
	"  WHERE r.state = 'running' AND r.replica = ''\n"
	"    AND now() > r.scheduled + $8::bigint * interval '1 microsecond'\n"
	"  RETURNING 1),\n"
	"taken AS (\n"
	"  UPDATE tfd_runs r SET replica = $1, claimed_at = now(), renewed_at = now(),\n"
	"         lease_until = now() + $2::bigint * interval '1 microsecond'\n"
	"  FROM (SELECT t.job, t.scheduled FROM tfd_runs t\n"
	"        WHERE t.state = 'running' AND t.replica = '' AND t.job = ANY ($7::text[])\n"
	"          AND now() <= t.scheduled + $8::bigint * interval '1 microsecond'\n"
	"          AND (t.trigger = 'manual' OR NOT EXISTS (SELECT 1 FROM tfd_runs l\n"
	"                WHERE l.job = t.job AND l.scheduled > t.scheduled\n"
	"                  AND l.state <> 'skipped' AND l.trigger = 'schedule'))\n"
	"        ORDER BY t.job, t.scheduled LIMIT " FLEET_TAKE_ROWS "\n"
	"        FOR UPDATE OF t SKIP LOCKED) t\n"
	"  WHERE r.job = t.job AND r.scheduled = t.scheduled\n"
	"  RETURNING r.job, r.scheduled, r.timed_out IS NOT NULL AS exclusive,\n"
	"            r.trigger = 'manual' AS manual),\n"
	"counted AS (SELECT (SELECT count(*) FROM swept) + (SELECT count(*) FROM gone) AS n)\n"
	"SELECT 'now', NULL, NULL::bigint, NULL::bool, NULL::bool,\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint, NULL FROM counted\n"
	"UNION ALL\n"
	"SELECT 'lost', m.job, (extract(epoch FROM m.scheduled) * 1000000)::bigint, NULL, NULL,\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint, NULL\n"
	"FROM mine m WHERE m.n NOT IN (SELECT n FROM renewed)\n"
	"UNION ALL\n"
	"SELECT 'taken', job, (extract(epoch FROM scheduled) * 1000000)::bigint, exclusive, manual,\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint, NULL\n"
	"FROM taken\n"
	"UNION ALL\n"
	"SELECT 'abandoned', job, (extract(epoch FROM scheduled) * 1000000)::bigint, NULL, NULL,\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint, replica\n"
	"FROM swept WHERE replica <> $1";

/* The hourly cleanup is claimed, by one replica an hour, in a table of
 * its own, so that tfd_runs holds only runs. Its rows older than
 * --fleet-keep go with the runs'. */
const char fleet_sql_keep_claim[] = "INSERT INTO tfd_cleanups (hour, replica, claimed_at)\n"
				    "VALUES (date_trunc('hour', now()), $1, now())\n"
				    "ON CONFLICT DO NOTHING\n"
				    "RETURNING (extract(epoch FROM hour) * 1000000)::bigint";

/* The cleanup's end: its row finished, and what tfd_cleanups,
 * tfd_replicas and tfd_jobs would otherwise gather for ever (each start
 * under a default name is a replica of its own): cleanups and replicas
 * older than --fleet-keep ($4), and the jobs of every replica not seen
 * within the hour (no live replica compares with them). */
const char fleet_sql_keep_end[] =
	"WITH done AS (\n"
	"  UPDATE tfd_cleanups SET finished_at = now(), deleted = $3::bigint\n"
	"  WHERE hour = $2::timestamptz AND replica = $1 RETURNING 1),\n"
	"old AS (\n"
	"  DELETE FROM tfd_cleanups WHERE hour < now() - $4::bigint * interval '1 microsecond'\n"
	"  RETURNING 1),\n"
	"gone AS (\n"
	"  DELETE FROM tfd_replicas WHERE seen_at < now() - $4::bigint * interval '1 microsecond'\n"
	"  RETURNING 1),\n"
	"stale AS (\n"
	"  DELETE FROM tfd_jobs j WHERE NOT EXISTS (SELECT 1 FROM tfd_replicas r\n"
	"    WHERE r.replica = j.replica AND r.seen_at >= now() - interval '1 hour')\n"
	"  RETURNING 1)\n"
	"SELECT (SELECT count(*) FROM done), (SELECT count(*) FROM old),\n"
	"       (SELECT count(*) FROM gone), (SELECT count(*) FROM stale)";

const char fleet_sql_keep_delete[] =
	"WITH gone AS (\n"
	"  DELETE FROM tfd_runs WHERE ctid = ANY (ARRAY(\n"
	"    SELECT ctid FROM tfd_runs\n"
	"    WHERE state <> 'running'\n"
	"      AND finished_at < now() - $1::bigint * interval '1 microsecond'\n"
	"    LIMIT " FLEET_KEEP_BATCH "))\n"
	"  RETURNING 1)\n"
	"SELECT count(*) FROM gone";

/* tfd_replicas and tfd_jobs (fleet_replica.c) */

/* Holds the replica's name for this process ($2, its instance): taken
 * when free, already its own, not renewed within the lease ($6), or still
 * at the seen_at ($7, microseconds) it had lease/3 ago, when its holder
 * was first found (it stopped renewing: it died). The answer says whether
 * it was taken, and the holder before this statement. */
const char fleet_sql_hold[] =
	"WITH took AS (\n"
	"  INSERT INTO tfd_replicas AS r (replica, instance, host, pid, version, started_at, seen_at)\n"
	"  VALUES ($1, $2, $3, $4::int, $5, now(), now())\n"
	"  ON CONFLICT (replica) DO UPDATE SET instance = $2, host = $3, pid = $4::int,\n"
	"    version = $5, seen_at = now(),\n"
	"    started_at = CASE WHEN r.instance = $2 THEN r.started_at ELSE now() END\n"
	"  WHERE r.instance = $2 OR r.seen_at < now() - $6::bigint * interval '1 microsecond'\n"
	"     OR (extract(epoch FROM r.seen_at) * 1000000)::bigint = $7::bigint\n"
	"  RETURNING 1)\n"
	"SELECT EXISTS (SELECT 1 FROM took), h.host, h.pid,\n"
	"       (extract(epoch FROM h.seen_at) * 1000000)::bigint\n"
	"FROM (SELECT 1) AS one LEFT JOIN tfd_replicas h ON h.replica = $1";

/* Renewed with the leases; no row: another instance took the name. */
const char fleet_sql_beat[] =
	"WITH beat AS (\n"
	"  UPDATE tfd_replicas SET seen_at = now() WHERE replica = $1 AND instance = $2 RETURNING 1)\n"
	"SELECT EXISTS (SELECT 1 FROM beat), h.host, h.pid\n"
	"FROM (SELECT 1) AS one LEFT JOIN tfd_replicas h ON h.replica = $1";

/* At exit: as if renewed a lease ago, so that a process that takes the
 * name next (a restart) need not wait; its jobs go, as nobody compares
 * with a replica that is not running. */
const char fleet_sql_release[] =
	"WITH mine AS (\n"
	"  UPDATE tfd_replicas SET seen_at = now() - $3::bigint * interval '1 microsecond'\n"
	"  WHERE replica = $1 AND instance = $2 RETURNING 1)\n"
	"DELETE FROM tfd_jobs WHERE replica = $1 AND EXISTS (SELECT 1 FROM mine)";

/* This replica's jobs ($2, $3: arrays of names and fingerprints) replace
 * its former rows. */
const char fleet_sql_jobs[] =
	"WITH mine AS (SELECT * FROM unnest($2::text[], $3::text[]) AS m (job, fingerprint)),\n"
	"gone AS (\n"
	"  DELETE FROM tfd_jobs t WHERE t.replica = $1\n"
	"    AND NOT EXISTS (SELECT 1 FROM mine WHERE mine.job = t.job) RETURNING 1),\n"
	"put AS (\n"
	"  INSERT INTO tfd_jobs (replica, job, fingerprint, seen_at)\n"
	"  SELECT $1, job, fingerprint, now() FROM mine\n"
	"  ON CONFLICT (replica, job) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,\n"
	"    seen_at = now()\n"
	"  RETURNING 1)\n"
	"SELECT (SELECT count(*) FROM put), (SELECT count(*) FROM gone)";

/* The jobs of this replica's that another live replica (renewed within
 * the lease, $2) defines otherwise. */
const char fleet_sql_differ[] =
	"SELECT o.job, o.replica, o.fingerprint FROM tfd_jobs m\n"
	"JOIN tfd_jobs o ON o.job = m.job AND o.replica <> m.replica AND o.fingerprint <> m.fingerprint\n"
	"JOIN tfd_replicas r ON r.replica = o.replica\n"
	"  AND r.seen_at >= now() - $2::bigint * interval '1 microsecond'\n"
	"WHERE m.replica = $1 ORDER BY o.job, o.replica LIMIT " FLEET_DIFFER_ROWS;

/* tfd_paused and the replica's view (fleet_pause.c) */

/* $1 the jobs (text[]), $2 the caller's uid, $3 the replica; in the
 * jobs' order, so that two replicas pausing the same jobs never wait for
 * each other in a deadlock. A job paused already keeps its row. */
const char fleet_sql_pause[] =
	"WITH put AS (\n"
	"  INSERT INTO tfd_paused (job, paused_at, paused_by)\n"
	"  SELECT DISTINCT job, now(), format('uid %s on replica %s', $2::text, $3::text)\n"
	"  FROM unnest($1::text[]) AS j(job) ORDER BY job\n"
	"  ON CONFLICT (job) DO NOTHING RETURNING 1)\n"
	"SELECT count(*) FROM put";

const char fleet_sql_resume[] =
	"WITH gone AS (DELETE FROM tfd_paused WHERE job = ANY ($1::text[]) RETURNING 1)\n"
	"SELECT count(*) FROM gone";

/* For each of the replica's jobs ($1): whether it is paused, and its last
 * row that is not a skip (the primary key's index, read backwards), in
 * byte order of the names. */
const char fleet_sql_view[] =
	"SELECT j.job, EXISTS (SELECT 1 FROM tfd_paused p WHERE p.job = j.job), r.replica, r.state,\n"
	"       (extract(epoch FROM r.claimed_at) * 1000000)::bigint,\n"
	"       (extract(epoch FROM r.finished_at) * 1000000)::bigint, r.exit_status, r.timed_out\n"
	"FROM unnest($1::text[]) AS j(job)\n"
	"LEFT JOIN LATERAL (SELECT * FROM tfd_runs t WHERE t.job = j.job AND t.state <> 'skipped'\n"
	"                   ORDER BY t.scheduled DESC LIMIT 1) r ON true\n"
	"ORDER BY j.job COLLATE \"C\"";
