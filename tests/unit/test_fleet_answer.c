/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_answer: what an answer means, as the verdict that
 * fleet.c carries out. No database and no libpq: the answers are results
 * fleetkit.h completes, read through its struct pq. The statements
 * themselves run against PostgreSQL in tests/bats/76-fleet-client.bats. */
#include "fleet_answer.h"
#include "fleet_sql.h"
#include "fleetkit.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

/* A call to anything but the result readers (the connection's) would
 * crash the test. */
static const struct pq pq = KIT_PQ;

static struct fleet_verdict read_answer(enum op_kind kind, const pq_result *r, bool conn_ok)
{
	struct op op = { .kind = kind, .scheduled_ns = 77, .token = 5 };
	struct fleet_verdict v;

	fleet_answer_read(&pq, &op, r, conn_ok, &v);
	return v;
}

static struct pg_result ok(int rows, int fields)
{
	return (struct pg_result){ .status = rows ? PQ_TUPLES_OK : PQ_COMMAND_OK,
				   .rows = rows,
				   .fields = fields };
}

static struct pg_result error(const char *sqlstate, const char *primary)
{
	return (struct pg_result){ .status = 7 /* PGRES_FATAL_ERROR */,
				   .sqlstate = sqlstate,
				   .primary = primary,
				   .message = "ERROR:  the whole text\n" };
}

static void test_no_result(void)
{
	struct fleet_verdict v = read_answer(OP_CLAIMS, NULL, true);

	check(v.kind == FLEET_VERDICT_LOST && strcmp(v.message, "the server sent no result") == 0,
	      "no result: the connection is given up (%d, %s)", v.kind, v.message);
}

static void test_setup_steps(void)
{
	struct pg_result r = ok(0, 0);
	struct fleet_verdict v = read_answer(OP_SETUP, &r, true);

	check(v.kind == FLEET_VERDICT_NEXT && v.next == OP_UPGRADE, "setup, then the upgrade");
	v = read_answer(OP_UPGRADE, &r, true);
	check(v.kind == FLEET_VERDICT_NEXT && v.next == OP_HOLD, "upgrade, then the name");
	v = read_answer(OP_HOLD, &r, true);
	check(v.kind == FLEET_VERDICT_REPLICA, "the name: fleet_replica.c's to read");
}

static void test_start(void)
{
	struct pg_result r = ok(1, 2);
	struct fleet_verdict v;

	r.cells[0][0] = "1796292001000123";
	r.cells[0][1] = "1796292002500000";
	v = read_answer(OP_START, &r, true);
	check(v.kind == FLEET_VERDICT_READY, "start: ready (%d)", v.kind);
	check(strcmp(v.boundary, "2026-12-03 10:00:01.000123+00") == 0, "boundary: %s", v.boundary);
	check(v.db_now_ns == INT64_C(1796292002500000000), "now(): %lld", (long long)v.db_now_ns);
	r.cells[0][1] = NULL;
	v = read_answer(OP_START, &r, true);
	check(v.db_now_ns == 0, "a null now() is no clock to check");
}

static void test_claims(void)
{
	static const char *const rows[][KIT_FIELDS] = {
		{ "1", "won", NULL, "1796292003000000" },
		{ "3", "again" },
		{ "9", "won" },
		{ "2", "elsewhere" },
		{ "0", "won" },
		{ "4", "skipped" },
		{ "5", "missed" },
		{ "x", "won" },
	};
	struct pg_result r = ok(8, 4);
	enum fleet_outcome o;
	size_t item;
	struct fleet_verdict v;

	memcpy(r.cells, rows, sizeof rows);
	v = read_answer(OP_CLAIMS, &r, true);
	check(v.kind == FLEET_VERDICT_CLAIMS && v.rows == 8, "claims: 8 rows (%d, %d)", v.kind,
	      v.rows);
	check(v.db_now_ns == INT64_C(1796292003000000000), "now() from the first row");
	check(fleet_answer_claim(&pq, &r, 0, 5, &item, &o) == FLEET_ROW_ANSWERED && item == 0 &&
		      o == FLEET_WON,
	      "row 1: the first claim, won");
	check(fleet_answer_claim(&pq, &r, 1, 5, &item, &o) == FLEET_ROW_AGAIN && item == 2,
	      "row 2: the third claim, asked again");
	check(fleet_answer_claim(&pq, &r, 2, 5, &item, &o) == FLEET_ROW_NONE,
	      "row 3 names no claim of five");
	check(fleet_answer_claim(&pq, &r, 3, 5, &item, &o) == FLEET_ROW_ANSWERED && item == 1 &&
		      o == FLEET_ELSEWHERE,
	      "row 4: the second claim, elsewhere");
	check(fleet_answer_claim(&pq, &r, 4, 5, &item, &o) == FLEET_ROW_NONE, "claim 0: none");
	check(fleet_answer_claim(&pq, &r, 5, 5, &item, &o) == FLEET_ROW_ANSWERED && item == 3 &&
		      o == FLEET_SKIPPED,
	      "skipped");
	check(fleet_answer_claim(&pq, &r, 6, 5, &item, &o) == FLEET_ROW_ANSWERED && item == 4 &&
		      o == FLEET_MISSED,
	      "missed");
	check(fleet_answer_claim(&pq, &r, 7, 5, &item, &o) == FLEET_ROW_NONE, "not a number: none");
	r.fields = 3;
	v = read_answer(OP_CLAIMS, &r, true);
	check(v.kind == FLEET_VERDICT_CLAIMS && v.rows == 0 && v.db_now_ns == 0,
	      "rows of another shape answer nothing: every claim is asked again");
}

static void test_renew_and_writes(void)
{
	static const enum op_kind done[] = { OP_ATTEMPT, OP_ENDS, OP_ABANDON, OP_REWRITE,
					     OP_KEEP_END };
	static const enum op_kind replica[] = { OP_BEAT, OP_RELEASE, OP_JOBS, OP_DIFFER };
	struct pg_result r = ok(1, FLEET_RENEW_COLUMNS);
	struct fleet_verdict v;

	r.cells[0][FLEET_RENEW_NOW] = "1796292004000000";
	v = read_answer(OP_RENEW, &r, true);
	check(v.kind == FLEET_VERDICT_RENEWED && v.db_now_ns == INT64_C(1796292004000000000),
	      "renewed, now() read");
	for (size_t i = 0; i < sizeof done / sizeof *done; i++)
		check(read_answer(done[i], &r, true).kind == FLEET_VERDICT_DONE, "kind %d: done",
		      done[i]);
	for (size_t i = 0; i < sizeof replica / sizeof *replica; i++)
		check(read_answer(replica[i], &r, true).kind == FLEET_VERDICT_REPLICA,
		      "kind %d: fleet_replica.c's", replica[i]);
}

static void test_keep(void)
{
	struct pg_result r = ok(1, 1), none = ok(0, 1);
	struct fleet_verdict v;

	r.cells[0][0] = "1796292000000000";
	v = read_answer(OP_KEEP_CLAIM, &r, true);
	check(v.kind == FLEET_VERDICT_NEXT && v.next == OP_KEEP_DELETE &&
		      v.scheduled_ns == INT64_C(1796292000000000000) && v.token == 0,
	      "the hour claimed: its rows are deleted next");
	v = read_answer(OP_KEEP_CLAIM, &none, true);
	check(v.kind == FLEET_VERDICT_DONE, "no row: another replica cleans this hour");
	r.cells[0][0] = "1000";
	v = read_answer(OP_KEEP_DELETE, &r, true);
	check(v.kind == FLEET_VERDICT_NEXT && v.next == OP_KEEP_DELETE && v.token == 1005 &&
		      v.scheduled_ns == 77,
	      "a full batch deleted: more to delete (%d, %llu)", v.next,
	      (unsigned long long)v.token);
	r.cells[0][0] = "7";
	v = read_answer(OP_KEEP_DELETE, &r, true);
	check(v.kind == FLEET_VERDICT_NEXT && v.next == OP_KEEP_END && v.token == 12 &&
		      v.scheduled_ns == 77,
	      "the last batch: the cleanup's row is finished");
}

static void test_setting_up_refused(void)
{
	struct pg_result r = error("42501", "permission denied for schema public");
	struct fleet_verdict v = read_answer(OP_SETUP, &r, true);

	check(v.kind == FLEET_VERDICT_LOST && v.lasts && v.refuse_claims,
	      "setup refused for good: connection given up, claims missed at once");
	check(strstr(v.message, "permission denied for schema public: tfd creates") == v.message &&
		      strstr(v.message, "tfd --fleet-sql"),
	      "the way out: %s", v.message);
	v = read_answer(OP_UPGRADE, &r, true);
	check(v.kind == FLEET_VERDICT_LOST && strcmp(v.message, "permission denied for schema "
								"public") == 0,
	      "the upgrade's message gives the owner's statement: %s", v.message);
	r = error("25006", "cannot execute INSERT in a read-only transaction");
	v = read_answer(OP_START, &r, true);
	check(v.kind == FLEET_VERDICT_LOST && v.refuse_claims && strstr(v.message, "read-write"),
	      "start on a standby: %s", v.message);
	r = error("57014", "canceling statement due to statement timeout");
	v = read_answer(OP_SETUP, &r, true);
	check(v.kind == FLEET_VERDICT_LOST && v.lasts && v.refuse_claims &&
		      strstr(v.message, "ALTER ROLE name SET statement_timeout = 0"),
	      "statement_timeout: said at once, claims missed at once: %s", v.message);
	r = error("57P01", "terminating connection");
	v = read_answer(OP_HOLD, &r, true);
	check(v.kind == FLEET_VERDICT_LOST && !v.lasts && !v.refuse_claims,
	      "a passing failure while setting up: connect again, claims wait");
	r = error("40001", "could not serialize access");
	v = read_answer(OP_START, &r, true);
	check(v.kind == FLEET_VERDICT_LOST, "setting up, even a rollback gives the connection up");
}

static void test_errors(void)
{
	struct pg_result r = error("40001", "could not serialize access");
	struct fleet_verdict v = read_answer(OP_CLAIMS, &r, true);

	check(v.kind == FLEET_VERDICT_ROLLED_BACK, "serialization failure: rolled back");
	r.sqlstate = "40P01";
	check(read_answer(OP_RENEW, &r, true).kind == FLEET_VERDICT_ROLLED_BACK,
	      "deadlock: rolled back");
	check(read_answer(OP_RENEW, &r, false).kind == FLEET_VERDICT_LOST,
	      "the connection down: lost, whatever the SQLSTATE");
	r = error("22021", "invalid byte sequence for encoding \"LATIN1\"");
	v = read_answer(OP_CLAIMS, &r, true);
	check(v.kind == FLEET_VERDICT_REFUSED && !v.lasts &&
		      strcmp(v.message, "invalid byte sequence for encoding \"LATIN1\"") == 0,
	      "the statement's own fault: refused, reported: %s", v.message);
	r = error("42501", "permission denied for table tfd_runs");
	v = read_answer(OP_CLAIMS, &r, true);
	check(v.kind == FLEET_VERDICT_REFUSED && v.lasts && !v.refuse_claims &&
		      strstr(v.message, ": the role of --fleet needs SELECT"),
	      "no privilege: refused for good: %s", v.message);
	r = error("42P01", "relation \"tfd_runs\" does not exist");
	v = read_answer(OP_ENDS, &r, true);
	check(v.kind == FLEET_VERDICT_LOST && !v.lasts, "the table dropped: set up again");
	r.sqlstate = "3F000";
	check(read_answer(OP_ATTEMPT, &r, true).kind == FLEET_VERDICT_LOST,
	      "the schema gone: set up again");
	r = error(NULL, NULL);
	v = read_answer(OP_ABANDON, &r, true);
	check(v.kind == FLEET_VERDICT_REFUSED && strcmp(v.message, "ERROR:  the whole text\n") == 0,
	      "no primary message: the whole text");
	r.message = NULL;
	v = read_answer(OP_ABANDON, &r, true);
	check(strcmp(v.message, "unknown error") == 0, "no message at all: %s", v.message);
}

static void test_clock(void)
{
	const int64_t s = NSEC_PER_SEC, sent = 1796292000 * s;
	int64_t off = 1, half = 1;
	char msg[400] = "";

	check(!fleet_answer_clock(0, sent, sent + s, &off, &half),
	      "no now() in the answer: no measure");
	check(fleet_answer_clock(sent + s / 2, sent, sent + s, &off, &half) && off == 0 &&
		      half == s / 2,
	      "the same instant at the round trip's middle");
	check(fleet_answer_clock(sent - 2 * s, sent, sent + s / 5, &off, &half) &&
		      off == 2 * s + s / 10 && half == s / 10,
	      "ahead by 2.1 s");
	check(fleet_answer_clock(sent + 90 * s, sent, sent, &off, &half) && off == -90 * s,
	      "behind by 90 s");
	fleet_clock_message("r1", 2 * s + s / 10, msg, sizeof msg);
	/* clang-format off */
	check(strstr(msg, "replica r1: its clock is 2.100 s ahead of the database's now()") == msg &&
		      strstr(msg, "waits for the database's instant to claim each elapse"),
	      "ahead: %s", msg);
	/* clang-format on */
	fleet_clock_message("r2", -90 * s, msg, sizeof msg);
	check(strstr(msg, "90.000 s behind the database's now()") &&
		      strstr(msg, "claims each elapse that much late"),
	      "behind: %s", msg);
}

/* A statement aborted in the pipeline was not run: sent again as after a
 * rollback, or, while setting up, the connection given up. */
static void test_aborted(void)
{
	struct pg_result r = { .status = PQ_RESULT_ABORTED };
	static const enum op_kind queued[] = { OP_CLAIMS, OP_ENDS, OP_ATTEMPT, OP_RENEW, OP_BEAT };

	for (size_t i = 0; i < sizeof queued / sizeof *queued; i++)
		check(read_answer(queued[i], &r, true).kind == FLEET_VERDICT_ROLLED_BACK,
		      "kind %d aborted: as rolled back", queued[i]);
	check(read_answer(OP_SETUP, &r, true).kind == FLEET_VERDICT_LOST &&
		      read_answer(OP_START, &r, true).kind == FLEET_VERDICT_LOST,
	      "a setup step aborted: the connection is given up");
}

/* A FATAL error ends the session: in the pipeline its statement is
 * answered before libpq sees the connection close. */
static void test_fatal(void)
{
	struct pg_result r = error("57P01", "terminating connection due to administrator command");
	struct fleet_verdict v;

	r.severity = "FATAL";
	v = read_answer(OP_ENDS, &r, true);
	check(v.kind == FLEET_VERDICT_LOST && strcmp(v.message, "terminating connection due to "
								"administrator command") == 0,
	      "FATAL: lost, the connection looking up or not (%d, %s)", v.kind, v.message);
	r.severity = "ERROR";
	check(read_answer(OP_ENDS, &r, true).kind == FLEET_VERDICT_REFUSED,
	      "the same SQLSTATE as an ERROR: the statement's own");
}

int main(void)
{
	test_no_result();
	test_aborted();
	test_fatal();
	test_setup_steps();
	test_start();
	test_claims();
	test_renew_and_writes();
	test_keep();
	test_setting_up_refused();
	test_errors();
	test_clock();
	return tally_finish(&tally, "fleet_answer");
}
