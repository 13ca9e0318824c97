/* SPDX-License-Identifier: MIT */
#include "fleet_sql_batch.h"

/* The same key as fleet_sql.c's setup: replicas upgrading at once take
 * turns. */
#define UPGRADE_LOCK "32199633744817779"

/* A table made before the state 'skipped' existed: its CHECK is widened
 * (once, under the setup's lock). A table that already allows it, or has
 * no such CHECK, is left as it is. Only the table's owner may: another
 * role is told, in one line, the statement its owner must run. */
const char fleet_sql_upgrade[] =
	"DO $tfd$\n"
	"DECLARE c name; fix text;\n"
	"BEGIN\n"
	"  SELECT conname INTO c FROM pg_constraint\n"
	"    WHERE conrelid = 'tfd_runs'::regclass AND contype = 'c'\n"
	"      AND pg_get_constraintdef(oid) LIKE '%abandoned%'\n"
	"      AND pg_get_constraintdef(oid) NOT LIKE '%skipped%';\n"
	"  IF c IS NOT NULL THEN\n"
	"    fix := format('ALTER TABLE %s DROP CONSTRAINT %I, ADD CONSTRAINT %I CHECK (state IN '\n"
	"      '(''running'', ''succeeded'', ''failed'', ''abandoned'', ''skipped''))',\n"
	"      'tfd_runs'::regclass::text, c, c);\n"
	"    PERFORM pg_advisory_xact_lock(" UPGRADE_LOCK ");\n"
	"    BEGIN\n"
	"      EXECUTE fix;\n"
	"    EXCEPTION WHEN insufficient_privilege THEN\n"
	"      RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(\n"
	"        'table %s predates the state ''skipped'' and only its owner may widen its CHECK: %s',\n"
	"        'tfd_runs'::regclass::text, fix);\n"
	"    END;\n"
	"  END IF;\n"
	/* A table made before the column trigger: it is added (a constant
	 * default: no rewrite of the table), by its owner only, as above. */
	"  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'tfd_runs'::regclass\n"
	"                 AND attname = 'trigger' AND NOT attisdropped) THEN\n"
	"    fix := format('ALTER TABLE %s ADD COLUMN IF NOT EXISTS trigger text NOT NULL '\n"
	"      'DEFAULT ''schedule''', 'tfd_runs'::regclass::text);\n"
	"    PERFORM pg_advisory_xact_lock(" UPGRADE_LOCK ");\n"
	"    BEGIN\n"
	"      EXECUTE fix;\n"
	"    EXCEPTION WHEN insufficient_privilege THEN\n"
	"      RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(\n"
	"        'table %s predates the column trigger and only its owner may add it: %s',\n"
	"        'tfd_runs'::regclass::text, fix);\n"
	"    END;\n"
	"  END IF;\n"
	"END\n"
	"$tfd$";

/* Up to FLEET_BATCH_MAX elapses claimed in one statement. $1 jobs, $2
 * instants, $3 exclusive (--overlap skip), $4 resent (its answer was lost
 * with a connection), $5 the replica, $6 the lease and $7 the deadline in
 * microseconds, $8 manual (tfdctl run: its row's trigger is 'manual'). One
 * row per elapse: its place in the arrays, the outcome ("paused": the job
 * is in tfd_paused, nothing written; a manual run is never paused),
 * the holder when another replica's, the database's now().
 *
 * The claim is the insert; rows are inserted in (job, scheduled) order so
 * that replicas claiming the same batch wait for each other in one order,
 * never in a deadlock. What the insert did not take is told from the rows
 * the statement sees: one already there (held, skipped, or this replica's
 * own when re-sent: won only while still running), the deadline passed, a
 * later elapse of the job already claimed (overtaken: never run after
 * it; a manual run's row, at the instant of its request, overtakes no
 * elapse), the job paused, or another of the job's runs going on (the skip, recorded as a
 * 'skipped' row so every replica that asks later hears the same). A
 * conflict with a row that another replica committed while this statement
 * ran is invisible to it: that elapse is "again", asked in the next
 * statement, which sees it. */
const char fleet_sql_claims[] =
	"WITH item AS (\n"
	"  SELECT i.n, i.job, i.scheduled, i.exclusive, i.resent, i.manual,\n"
	"         now() <= i.scheduled + $7::bigint * interval '1 microsecond' AS in_time,\n"
	"         NOT i.manual AND EXISTS (SELECT 1 FROM tfd_runs l WHERE l.job = i.job\n"
	"                 AND l.scheduled > i.scheduled AND l.state <> 'skipped'\n"
	"                 AND l.trigger = 'schedule') AS overtaken,\n"
	"         NOT i.manual AND EXISTS (SELECT 1 FROM tfd_paused p WHERE p.job = i.job) AS paused\n"
	"  FROM unnest($1::text[], $2::timestamptz[], $3::bool[], $4::bool[], $8::bool[])\n"
	"       WITH ORDINALITY AS i(job, scheduled, exclusive, resent, manual, n)),\n"
	"claim AS (\n"
	"  INSERT INTO tfd_runs (job, scheduled, replica, state, attempts, claimed_at,\n"
	"                        renewed_at, lease_until, timed_out, trigger)\n"
	"  SELECT job, scheduled, $5, 'running', 1, now(), now(),\n"
	"         now() + $6::bigint * interval '1 microsecond', CASE WHEN exclusive THEN false END,\n"
	"         CASE WHEN manual THEN 'manual' ELSE 'schedule' END\n"
	"  FROM item WHERE in_time AND NOT overtaken AND NOT paused\n"
	"  ORDER BY job, scheduled\n"
	"  ON CONFLICT DO NOTHING\n"
	"  RETURNING job, scheduled),\n"
	"seen AS (\n"
	"  SELECT i.*, c.job IS NOT NULL AS won, r.replica AS holder, r.state AS held,\n"
	"         i.exclusive AND EXISTS (SELECT 1 FROM tfd_runs o WHERE o.job = i.job\n"
	"                                 AND o.state = 'running' AND NOT o.timed_out) AS busy\n"
	"  FROM item i\n"
	"  LEFT JOIN claim c ON c.job = i.job AND c.scheduled = i.scheduled\n"
	"  LEFT JOIN tfd_runs r ON r.job = i.job AND r.scheduled = i.scheduled),\n"
	"skip AS (\n"
	"  INSERT INTO tfd_runs (job, scheduled, replica, state, attempts, claimed_at,\n"
	"                        renewed_at, lease_until, finished_at, trigger)\n"
	"  SELECT job, scheduled, $5, 'skipped', 0, now(), now(), now(), now(),\n"
	"         CASE WHEN manual THEN 'manual' ELSE 'schedule' END\n"
	"  FROM seen WHERE NOT won AND holder IS NULL AND in_time AND NOT overtaken AND NOT paused\n"
	"    AND busy\n"
	"  ORDER BY job, scheduled\n"
	"  ON CONFLICT DO NOTHING\n"
	"  RETURNING job, scheduled)\n"
	"SELECT s.n,\n"
	"       CASE WHEN s.won THEN 'won'\n"
	"            WHEN s.holder IS NOT NULL THEN\n"
	"              CASE WHEN s.held = 'skipped' THEN 'skipped'\n"
	"                   WHEN s.holder = $5 AND s.resent AND s.held = 'running' THEN 'won'\n"
	"                   WHEN s.holder = $5 AND s.resent THEN 'missed'\n"
	"                   ELSE 'elsewhere' END\n"
	"            WHEN s.paused THEN 'paused'\n"
	"            WHEN NOT s.in_time OR s.overtaken THEN 'missed'\n"
	"            WHEN k.job IS NOT NULL THEN 'skipped'\n"
	"            ELSE 'again' END,\n"
	"       s.holder,\n"
	"       (extract(epoch FROM now()) * 1000000)::bigint\n"
	"FROM seen s LEFT JOIN skip k ON k.job = s.job AND k.scheduled = s.scheduled";

/* Runs' ends, up to FLEET_BATCH_MAX: $1 jobs, $2 instants, $3 states, $4
 * tries, $5 exit statuses, $6 timed out, $7 ends, $8 the replica, $9
 * manual (the trigger of a row inserted again). An end
 * is written even over 'abandoned' (the run did end; the row is its
 * history); an end whose row is gone (lost with a failover's unreplicated
 * WAL) is inserted again, claimed at its instant, unless another
 * replica's row holds the key now. A row never finishes before it was
 * claimed: an end is the replica's clock, a claim the database's, and a
 * replica whose clock is behind would write a run that ended before it
 * began; its end is then the claim's instant. The state 'released' is no
 * end: a won elapse that a stopping replica never started, its row still
 * running and now nobody's (replica ''), for another replica's renewal to
 * take (fleet_sql_renew). */
const char fleet_sql_ends[] =
	"WITH e AS (\n"
	"  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::int[], $5::int[],\n"
	"                       $6::bool[], $7::timestamptz[], $9::bool[])\n"
	"         AS e(job, scheduled, state, attempts, exit_status, timed_out, finished_at, manual)),\n"
	"written AS (\n"
	"  UPDATE tfd_runs r SET state = e.state, attempts = e.attempts, exit_status = e.exit_status,\n"
	"         timed_out = e.timed_out, finished_at = greatest(e.finished_at, r.claimed_at)\n"
	"  FROM e WHERE r.job = e.job AND r.scheduled = e.scheduled AND r.replica = $8\n"
	"    AND e.state <> 'released'\n"
	"  RETURNING 1),\n"
	"released AS (\n"
	"  UPDATE tfd_runs r SET replica = '', renewed_at = now()\n"
	"  FROM e WHERE r.job = e.job AND r.scheduled = e.scheduled AND r.replica = $8\n"
	"    AND r.state = 'running' AND e.state = 'released'\n"
	"  RETURNING 1),\n"
	"restored AS (\n"
	"  INSERT INTO tfd_runs (job, scheduled, replica, state, attempts, claimed_at, renewed_at,\n"
	"                        lease_until, finished_at, exit_status, timed_out, trigger)\n"
	"  SELECT job, scheduled, $8, state, attempts, least(scheduled, finished_at), finished_at,\n"
	"         finished_at, finished_at, exit_status, timed_out,\n"
	"         CASE WHEN manual THEN 'manual' ELSE 'schedule' END\n"
	"  FROM e WHERE e.state <> 'released' AND NOT EXISTS (SELECT 1 FROM tfd_runs r\n"
	"                           WHERE r.job = e.job AND r.scheduled = e.scheduled)\n"
	"  ORDER BY job, scheduled\n"
	"  ON CONFLICT DO NOTHING\n"
	"  RETURNING 1)\n"
	"SELECT (SELECT count(*) FROM written) + (SELECT count(*) FROM released),\n"
	"       (SELECT count(*) FROM restored)";

/* A replica that reconnected writes again the rows of the elapses it won
 * lately, before any new claim: a failover to a standby that had not
 * received them lost them, and another replica would claim those elapses
 * again. A row that another replica holds now is left as it is; a row of
 * its own that the promoted server has as running while the run ended
 * (its end was not replicated) gets that end, or its job would be
 * skipped on every replica for as long as the row is renewed. $1-$7 as
 * for the ends (a running row: state 'running', no end), $8 the replica,
 * $9 the lease in microseconds, $10 manual. A run still going is claimed
 * and renewed now (after the replica's boundary, so that its renewals
 * find it); one that ended is written as the ends insert a row that is
 * gone: claimed at its instant, renewed and its lease over at its end.
 * Either way a row never finishes before it was claimed. */
const char fleet_sql_rewrite[] =
	"WITH w AS (\n"
	"  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::int[], $5::int[],\n"
	"                       $6::bool[], $7::timestamptz[], $10::bool[])\n"
	"         AS w(job, scheduled, state, attempts, exit_status, timed_out, finished_at, manual)),\n"
	"ended AS (\n"
	"  UPDATE tfd_runs r SET state = w.state, attempts = w.attempts, exit_status = w.exit_status,\n"
	"         timed_out = w.timed_out, finished_at = greatest(w.finished_at, r.claimed_at)\n"
	"  FROM w WHERE r.job = w.job AND r.scheduled = w.scheduled AND r.replica = $8\n"
	"    AND r.state = 'running' AND w.state <> 'running'\n"
	"  RETURNING 1)\n"
	"INSERT INTO tfd_runs (job, scheduled, replica, state, attempts, claimed_at, renewed_at,\n"
	"                      lease_until, finished_at, exit_status, timed_out, trigger)\n"
	"SELECT job, scheduled, $8, state, attempts,\n"
	"       CASE WHEN finished_at IS NULL THEN now() ELSE least(scheduled, finished_at) END,\n"
	"       coalesce(finished_at, now()),\n"
	"       coalesce(finished_at, now() + $9::bigint * interval '1 microsecond'),\n"
	"       finished_at, exit_status, timed_out,\n"
	"       CASE WHEN manual THEN 'manual' ELSE 'schedule' END\n"
	"FROM w\n"
	"ORDER BY job, scheduled\n"
	"ON CONFLICT DO NOTHING";
