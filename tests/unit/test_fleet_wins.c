/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_wins: the loop's claims and what becomes of them,
 * with no server (fleetkit.h): a claim queued, missed past its deadline
 * (its row abandoned if it was sent once), refused for good, dropped
 * unsent as tfd stops, held while the clock is ahead of the database's;
 * the recent wins as they end, are released or dropped, and written again
 * after a reconnection; the renewal's keys and its answer (rows taken,
 * keys lost); a claim held by its lease. The SQL itself runs against
 * PostgreSQL in tests/bats/76-fleet-client.bats and 77-fleet.bats. */
#include "fleetkit.h"
#include "fleet_sql.h"

/* Instants of the elapses: whole microseconds, the column's resolution. */
#define T1 (INT64_C(1700000000) * KIT_SEC)
#define T2 (T1 + 60 * KIT_SEC)
#define T3 (T1 + 120 * KIT_SEC)

/* A claim of JOB at AT, won: kept as a recent win, its lease from
 * QUEUED_MONO. */
static void win(struct fleet *f, const char *job, int64_t at, int64_t queued_mono)
{
	struct op *claim = kit_op(OP_CLAIM, job, at);

	claim->queued_mono = queued_mono;
	fleet__win_add(f, claim);
	fleet_op_free(claim);
}

static void test_claims_expire(void)
{
	struct fleet *f = kit_fleet("r1");
	int64_t now = fleet__now_real(), mono = fleet__now_mono(), expiry;
	struct op *abandon;

	check(fleet_claim(f, "late", now - 61 * KIT_SEC, false, 1) == 0 &&
		      fleet_claim(f, "sent-once", now - 62 * KIT_SEC, false, 2) == 0 &&
		      fleet_claim(f, "now", now, false, 3) == 0,
	      "three claims asked");
	check(f->claims.n == 3, "queued, to be sent by the next service: %zu", f->claims.n);
	f->claims.head->next->resent = true; /* "sent-once": its answer was lost */
	fleet__claims_expire(f);
	check(kit_events(f, FLEET_EVENT_CLAIM, FLEET_MISSED, NULL) == 2,
	      "the two past --fleet-deadline are missed now, not when the database is back");
	check(f->claims.n == 1 && strcmp(f->claims.head->job, "now") == 0 &&
		      f->claims.tail == f->claims.head,
	      "the one within it still waits");
	abandon = f->runs.head;
	check(abandon && abandon->kind == OP_ABANDON && strcmp(abandon->job, "sent-once") == 0 &&
		      f->runs.n == 1,
	      "the row a claim sent once may have written is abandoned: nobody runs it");
	expiry = fleet__claims_expiry(f);
	check(expiry > mono + 59 * KIT_SEC && expiry < fleet__now_mono() + 61 * KIT_SEC,
	      "the next expiry is the waiting claim's deadline, 60 s on: %lld ns from now",
	      (long long)(expiry - mono));
	fleet_free(f);
}

static void test_refused_and_stopped(void)
{
	struct fleet *f = kit_fleet("r1");
	int64_t now = fleet__now_real();
	struct kit_event e;

	fleet_claim(f, "a", now, false, 1);
	fleet__refuse_claims(f);
	check(fleet__claims_refused(f) && f->claims.n == 0 &&
		      kit_events(f, FLEET_EVENT_CLAIM, FLEET_MISSED, NULL) == 1,
	      "refused for good: the queued claim is missed at once");
	fleet_claim(f, "b", now, false, 2);
	check(f->claims.n == 0 && kit_events(f, FLEET_EVENT_CLAIM, FLEET_MISSED, NULL) == 1,
	      "and a new one as it comes");
	fleet__claims_accepted(f);
	fleet_claim(f, "c", now, false, 3);
	check(!fleet__claims_refused(f) && f->claims.n == 1 &&
		      kit_events(f, FLEET_EVENT_CLAIM, FLEET_MISSED, NULL) == 0,
	      "accepted again: claims wait for the statement");

	/* tfd stops: "c" was never sent, "d" was (its row may exist). */
	fleet_claim(f, "d", now, false, 4);
	f->claims.tail->resent = true;
	fleet_stop_claiming(f);
	check(kit_events(f, FLEET_EVENT_UNSENT, 0, &e) == 1 && strcmp(e.job, "c") == 0 &&
		      e.ev.token == 3,
	      "the claim never sent is dropped and told unsent: %s", e.job);
	check(f->claims.n == 1 && strcmp(f->claims.head->job, "d") == 0,
	      "the one sent once is asked again, to act on its answer");
	fleet_claim(f, "e", now, false, 5);
	check(f->claims.n == 1 && kit_events(f, FLEET_EVENT_CLAIM, FLEET_MISSED, NULL) == 1,
	      "a claim asked while stopping is missed at once");
	fleet_stop_claiming(f);
	check(kit_events(f, FLEET_EVENT_UNSENT, 0, NULL) == 0, "stopping twice tells nothing more");
	fleet_free(f);
}

static void test_clock_ahead(void)
{
	struct fleet *f = kit_fleet("r1");
	int64_t now = fleet__now_real(), mono = fleet__now_mono(), expiry;
	struct kit_event e;

	fleet_claim(f, "queued-before", now, false, 1);
	/* The answer says the database's now() is 30 s behind this clock. */
	f->sent_real = now;
	fleet__wins_clock(f, now - 30 * KIT_SEC);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, &e) == 1 && strcmp(e.ev.call, "clock") == 0 &&
		      strstr(e.msg, "ahead"),
	      "a clock 30 s ahead is said: %s", e.msg);
	check(f->claims.n == 0, "a claim queued before is held for the database's instant");
	fleet_claim(f, "early", now, false, 2);
	fleet_claim(f, "due", now - 40 * KIT_SEC, false, 3);
	check(f->claims.n == 1 && strcmp(f->claims.head->job, "due") == 0,
	      "an elapse the database's clock reached goes at once; one it did not waits");
	fleet__claims_expire(f);
	check(f->claims.n == 1, "still early after an expiry pass");
	expiry = fleet__claims_expiry(f);
	check(expiry > mono + 29 * KIT_SEC && expiry < fleet__now_mono() + 31 * KIT_SEC,
	      "woken when the database reaches them, 30 s on: %lld", (long long)(expiry - mono));
	fleet__wins_clock(f, fleet__now_real() - 30 * KIT_SEC);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 0, "said once");
	fleet_free(f);
}

static void test_wins_rewritten(void)
{
	struct fleet *f = kit_fleet("r1");
	int64_t mono = fleet__now_mono();
	struct fleet_end failed = { .failed = true,
				    .exit_status = 3,
				    .attempts = 2,
				    .finished_ns = T1 + KIT_SEC };
	struct op *rw;

	win(f, "a", T1, mono);
	win(f, "b", T2, mono);
	win(f, "c", T3, mono);
	check(fleet_run_ended(f, "a", T1, &failed) == 0 && f->runs.tail->kind == OP_END &&
		      f->runs.tail->state == ROW_FAILED,
	      "an end of state failed is queued");
	check(fleet_run_released(f, "b", T2) == 0 && f->runs.tail->state == ROW_RELEASED,
	      "a release is an end of state released");
	rw = fleet__wins_rewrite(f);
	check(rw && rw->kind == OP_REWRITE && rw->nitems == 2,
	      "after a reconnection the wins are written again, but the released one: %zu",
	      rw ? rw->nitems : 0);
	check(rw && rw->nitems == 2 && strcmp(rw->items[0]->job, "a") == 0 &&
		      rw->items[0]->state == ROW_FAILED && rw->items[0]->end.exit_status == 3 &&
		      strcmp(rw->items[1]->job, "c") == 0 && rw->items[1]->state == ROW_RUNNING,
	      "each as it stands: a failed (status 3), c running, oldest first");
	fleet_op_free(rw);
	check(fleet_run_dropped(f, "c", T3) == 0 && f->runs.tail->kind == OP_ABANDON,
	      "a dropped run's row is abandoned");
	rw = fleet__wins_rewrite(f);
	check(rw && rw->nitems == 2 && rw->items[1]->state == ROW_ABANDONED,
	      "and written again abandoned");
	fleet_op_free(rw);
	fleet_free(f);

	f = kit_fleet("r1");
	check(fleet__wins_rewrite(f) == NULL, "no wins: nothing to write again");
	fleet_free(f);
}

static void test_lease_held(void)
{
	struct fleet *f = kit_fleet("r1");
	int64_t mono = fleet__now_mono();

	win(f, "fresh", T1, mono);
	win(f, "stale", T1, mono - 55 * KIT_SEC);
	check(fleet_claim_held(f, "fresh", T1), "a claim confirmed now is held");
	check(!fleet_claim_held(f, "stale", T1),
	      "one confirmed 55 s ago is not, with a lease of 60 s less a tenth");
	check(fleet_claim_held(f, "fresh", T2) && fleet_claim_held(f, "never", T1),
	      "an elapse never won here has nothing to lose");
	fleet_free(f);
}

/* The renewal's SQL and its parameters: the replica, the lease, the
 * boundary, the keys held (jobs, instants), the check, the jobs it may
 * take from, the deadline. */
static void test_renewal(void)
{
	struct fleet *f = kit_fleet("r1");
	struct op *renew = kit_op(OP_RENEW, "{\"a\",\"x\"}", 0);
	struct fleet_statement p = { .n = 0 };
	struct pg_result r = { .rows = 2, .fields = FLEET_RENEW_COLUMNS };
	struct fleet_end ok = { .attempts = 1, .finished_ns = T2 };
	struct kit_event e;
	const char *sql;

	f->boundary = kit_need(strdup("2023-11-14 22:13:20+00"));
	win(f, "a", T1, fleet__now_mono());
	win(f, "b", T2, fleet__now_mono());
	fleet_run_ended(f, "b", T2, &ok);
	fleet__wins_connected(f);
	sql = fleet__wins_statement(f, renew, &p);
	check(sql == fleet_sql_renew && p.n == 8, "the renewal: 8 parameters, %d", p.n);
	check(p.n == 8 && strcmp(p.v[0], "r1") == 0 && strcmp(p.v[1], "60000000") == 0 &&
		      strcmp(p.v[2], f->boundary) == 0 && strcmp(p.v[7], "60000000") == 0,
	      "replica, lease and deadline in microseconds, boundary");
	check(p.n == 8 && strcmp(p.v[3], "{\"a\"}") == 0 &&
		      strcmp(p.v[4], "{\"2023-11-14 22:13:20.000000+00\"}") == 0,
	      "the keys: the running win only, not the ended one: %s %s", p.n == 8 ? p.v[3] : "",
	      p.n == 8 ? p.v[4] : "");
	check(p.n == 8 && strcmp(p.v[5], "t") == 0 && strcmp(p.v[6], "{\"a\",\"x\"}") == 0,
	      "the first renewal of a connection ends the rows not held; it may take its jobs' rows");
	fleet_statement_free(&p);
	p = (struct fleet_statement){ .n = 0 };
	fleet__wins_statement(f, renew, &p);
	check(p.n == 8 && strcmp(p.v[5], "f") == 0, "the next one does not end them");
	fleet_statement_free(&p);
	fleet_stop_claiming(f);
	p = (struct fleet_statement){ .n = 0 };
	fleet__wins_statement(f, renew, &p);
	check(p.n == 8 && strcmp(p.v[6], "{}") == 0, "a stopping replica takes nothing");
	fleet_statement_free(&p);
	fleet_op_free(renew);

	/* Its answer: "x" released by a stopping replica is taken, "a" lost. */
	r.cells[0][FLEET_RENEW_WHAT] = "taken";
	r.cells[0][FLEET_RENEW_JOB] = "x";
	r.cells[0][FLEET_RENEW_SCHEDULED] = "1700000180000000";
	r.cells[0][FLEET_RENEW_EXCLUSIVE] = "t";
	r.cells[0][FLEET_RENEW_MANUAL] = "t";
	r.cells[1][FLEET_RENEW_WHAT] = "lost";
	r.cells[1][FLEET_RENEW_JOB] = "a";
	r.cells[1][FLEET_RENEW_SCHEDULED] = "1700000000000000";
	check(!fleet__wins_renewed(f, &r), "one row taken: no more wait");
	check(kit_events(f, FLEET_EVENT_TAKEN, 0, &e) == 1 && strcmp(e.job, "x") == 0 &&
		      e.ev.scheduled_ns == T1 + 180 * KIT_SEC && e.ev.manual,
	      "the row taken is told, to be run here: %s", e.job);
	check(fleet_claim_held(f, "x", T1 + 180 * KIT_SEC), "and held by this renewal's lease");
	check(!fleet_claim_held(f, "a", T1), "a key the server lost is held no more");

	/* Another replica's run whose lease passed, marked abandoned by this
	 * renewal: told once, with the replica that held it. */
	r = (struct pg_result){ .rows = 1, .fields = FLEET_RENEW_COLUMNS };
	r.cells[0][FLEET_RENEW_WHAT] = "abandoned";
	r.cells[0][FLEET_RENEW_JOB] = "d";
	r.cells[0][FLEET_RENEW_SCHEDULED] = "1700000060000000";
	r.cells[0][FLEET_RENEW_REPLICA] = "r2";
	check(!fleet__wins_renewed(f, &r), "an abandoned row: no more wait");
	check(kit_events(f, FLEET_EVENT_ABANDONED, 0, &e) == 1 && strcmp(e.job, "d") == 0 &&
		      e.ev.scheduled_ns == T1 + 60 * KIT_SEC && strcmp(e.msg, "r2") == 0,
	      "the run abandoned is told, with its replica: %s %s", e.job, e.msg);
	fleet_free(f);
}

/* The start's answer: its first row, then one for each run of the
 * name's former process that it marked abandoned, told as held by it. */
static void test_start_abandoned(void)
{
	struct fleet *f = kit_fleet("r1");
	struct pg_result r = { .rows = 2, .fields = FLEET_START_COLUMNS };
	struct kit_event e;

	for (int row = 0; row < 2; row++) {
		r.cells[row][FLEET_START_BOUNDARY] = "1700000000000000";
		r.cells[row][FLEET_START_NOW] = "1700000000000000";
		r.cells[row][FLEET_START_COUNT] = "1";
	}
	r.cells[1][FLEET_START_JOB] = "d";
	r.cells[1][FLEET_START_SCHEDULED] = "1700000060000000";
	fleet__wins_started(f, &r);
	check(kit_events(f, FLEET_EVENT_ABANDONED, 0, &e) == 1 && strcmp(e.job, "d") == 0 &&
		      e.ev.scheduled_ns == T1 + 60 * KIT_SEC && strcmp(e.msg, "r1") == 0,
	      "the former process's run is told, held by this name: %s %s", e.job, e.msg);
	r.rows = 1;
	fleet__wins_started(f, &r);
	check(kit_events(f, FLEET_EVENT_ABANDONED, 0, NULL) == 0, "none abandoned: nothing told");
	fleet_free(f);
}

int main(void)
{
	kit_check_writer(fleet__wins_statement, FLEET_SQL_WINS);
	test_claims_expire();
	test_refused_and_stopped();
	test_clock_ahead();
	test_wins_rewritten();
	test_lease_held();
	test_renewal();
	test_start_abandoned();
	return tally_finish(&tally, "fleet_wins");
}
