/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_pause: tfdctl under --fleet, the database's side,
 * with no server (fleetkit.h): a pause or a resume queued with its jobs
 * and its caller, its answer (the view updated, the caller told) or its
 * refusal; what a claim's answer says of a pause; the view read back
 * (paused jobs, each job's last run, in any order the server gives);
 * the view asked for once at a time; a manual run claimed as such. The
 * SQL itself runs against PostgreSQL in tests/bats/78-fleet-control.bats. */
#include "fleetkit.h"
#include "fleet_sql.h"

static void test_pause_and_resume(void)
{
	struct fleet *f = kit_fleet("r1");
	const char *jobs[] = { "a", "b" };
	struct pg_result done = { .rows = 0, .fields = 0 };
	struct fleet_statement p = { .n = 0 };
	struct kit_event e;
	struct op *op;

	check(fleet_pause_write(f, 2, jobs, true, 1000, 7) == 0, "pause of a and b asked");
	op = f->writes.head;
	check(op && op->kind == OP_PAUSE && op->nitems == 2 && op->token == 7 && f->writes.n == 1,
	      "queued with the bookkeeping, its jobs and its caller's token");
	check(fleet_pending(f) == 1, "the exit waits for it");
	check(op && fleet__pause_statement(f, op, &p) == fleet_sql_pause && p.n == 3 &&
		      strcmp(p.v[0], "{\"a\",\"b\"}") == 0 && strcmp(p.v[1], "1000") == 0 &&
		      strcmp(p.v[2], "r1") == 0,
	      "the jobs as a text[], the caller's uid, the replica");
	fleet_statement_free(&p);
	check(!fleet_job_paused(f, "a") && !fleet_view_changed(f),
	      "nothing changes before the answer");
	fleet__pause_answer(f, fleet_queue_pop(&f->writes), &done);
	check(kit_events(f, FLEET_EVENT_DONE, 0, &e) == 1 && e.ev.token == 7 && !e.ev.message,
	      "done: the caller is told");
	check(fleet_job_paused(f, "a") && fleet_job_paused(f, "b") && !fleet_job_paused(f, "c"),
	      "a and b paused in the view");
	check(fleet_view_changed(f) && !fleet_view_changed(f), "the view changed, said once");

	fleet_pause_write(f, 1, jobs, false, 1000, 8);
	op = fleet_queue_pop(&f->writes);
	p = (struct fleet_statement){ .n = 0 };
	check(op && op->kind == OP_RESUME &&
		      fleet__pause_statement(f, op, &p) == fleet_sql_resume && p.n == 1,
	      "a resume: the jobs alone");
	fleet_statement_free(&p);
	fleet__pause_answer(f, op, &done);
	check(!fleet_job_paused(f, "a") && fleet_job_paused(f, "b") && fleet_view_changed(f),
	      "a resumed, b still paused");
	check(kit_events(f, FLEET_EVENT_DONE, 0, NULL) == 1, "told");

	fleet_pause_write(f, 1, jobs, true, 0, 9);
	op = fleet_queue_pop(&f->writes);
	fleet__pause_refused(f, op, "permission denied for table tfd_paused");
	check(kit_events(f, FLEET_EVENT_DONE, 0, &e) == 1 && e.ev.token == 9 &&
		      strcmp(e.msg, "permission denied for table tfd_paused") == 0,
	      "refused: the caller is told why");
	check(!fleet_job_paused(f, "a"), "and nothing changes");
	fleet_op_free(op);
	op = kit_op(OP_VIEW, "{}", 0);
	fleet__pause_refused(f, op, "no");
	check(kit_events(f, FLEET_EVENT_DONE, 0, NULL) == 0,
	      "a view refused has no caller to tell");
	fleet_op_free(op);
	fleet_free(f);
}

/* What a scheduled elapse's claim says of its job. */
static void test_claims_seen(void)
{
	struct fleet *f = kit_fleet("r1");
	struct op *claim = kit_op(OP_CLAIM, "c", 0);

	fleet__pause_saw(f, claim, FLEET_PAUSED);
	check(fleet_job_paused(f, "c") && fleet_view_changed(f), "answered paused: paused");
	fleet__pause_saw(f, claim, FLEET_ELSEWHERE);
	fleet__pause_saw(f, claim, FLEET_MISSED);
	fleet__pause_saw(f, claim, FLEET_SKIPPED);
	check(fleet_job_paused(f, "c") && !fleet_view_changed(f),
	      "elsewhere, missed or skipped say nothing of a pause (a row from before it)");
	fleet__pause_saw(f, claim, FLEET_WON);
	check(!fleet_job_paused(f, "c") && fleet_view_changed(f), "won: not paused");
	claim->manual = true;
	fleet__pause_saw(f, claim, FLEET_PAUSED);
	check(!fleet_job_paused(f, "c"), "a manual run's claim is never paused");
	fleet_op_free(claim);
	fleet_free(f);
}

static void test_view_read(void)
{
	struct fleet *f = kit_fleet("r1");
	struct pg_result r = {
		.rows = 3,
		.fields = 8,
		.cells = { { "b", "t", NULL },
			   { "a", "f", "r2", "succeeded", "1700000000000000", "1700000002000000",
			     "0", "f" },
			   { "c", "f", "r3", "what", "1700000000000000", NULL, NULL, NULL } },
	};
	struct pg_result short_row = { .rows = 1, .fields = 7, .cells = { { "z", "t" } } };
	struct fleet_last last;

	fleet__pause_answer(f, kit_op(OP_VIEW, "{}", 0), &r);
	check(fleet_view_changed(f), "the view read: changed");
	check(fleet_job_paused(f, "b") && !fleet_job_paused(f, "a") && !fleet_job_paused(f, "c"),
	      "b paused, a and c not, found in whatever order the server gave them");
	check(!fleet_job_last(f, "b", &last), "b has no last run");
	check(fleet_job_last(f, "a", &last) && strcmp(last.replica, "r2") == 0 &&
		      strcmp(last.state, "succeeded") == 0 &&
		      last.start_ns == INT64_C(1700000000) * KIT_SEC &&
		      last.end_ns == INT64_C(1700000002) * KIT_SEC && last.exit_status == 0 &&
		      !last.timed_out,
	      "a's last run: on r2, succeeded, 2 s, status 0");
	check(fleet_job_last(f, "c", &last) && strcmp(last.state, "failed") == 0 &&
		      last.end_ns == 0 && last.exit_status == -1,
	      "a state tfd does not know reads failed; no end, no status");
	check(!fleet_job_last(f, "zz", &last) && !fleet_job_paused(f, "zz"),
	      "a job not in the view");
	fleet__pause_answer(f, kit_op(OP_VIEW, "{}", 0), &short_row);
	check(fleet_job_paused(f, "b") && !fleet_job_paused(f, "z"),
	      "an answer of another shape leaves the view as it was");
	fleet_free(f);
}

static void test_refresh_and_manual(void)
{
	struct fleet *f = kit_fleet("r1");
	struct fleet_statement p = { .n = 0 };

	fleet__pause_refresh(f, NULL);
	check(f->chores.n == 0, "no jobs yet: no view to read");
	fleet__pause_refresh(f, "{\"a\"}");
	fleet__pause_refresh(f, "{\"a\"}");
	check(f->chores.n == 1 && f->chores.head->kind == OP_VIEW, "one view asked, not two");
	check(fleet__pause_statement(f, f->chores.head, &p) == fleet_sql_view && p.n == 1 &&
		      strcmp(p.v[0], "{\"a\"}") == 0,
	      "of the jobs it was asked for");
	fleet_statement_free(&p);
	check(fleet_claim_manual(f, "m", 5, false, 11) == 0 && f->claims.n == 1 &&
		      f->claims.head->manual && f->claims.head->token == 11,
	      "tfdctl run: a claim of trigger manual");
	check(strcmp(fleet_self(f), "r1") == 0, "the replica's name");
	fleet_free(f);
}

int main(void)
{
	kit_check_writer(fleet__pause_statement, FLEET_SQL_PAUSE);
	test_pause_and_resume();
	test_claims_seen();
	test_view_read();
	test_refresh_and_manual();
	return tally_finish(&tally, "fleet_pause");
}
