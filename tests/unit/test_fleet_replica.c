/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_replica: what the replicas know of each other,
 * with no server (fleetkit.h): the statements of its kinds and their
 * parameters (the name held by an instance of its own, the jobs as
 * arrays of names and fingerprints); the name's answers (taken, held by
 * another and asked again, held for good: the end); the name renewed,
 * the jobs written again or compared; the name released at exit and
 * renewed no more; a difference told once; the
 * outage and a claim queue that falls behind, each told once. The SQL
 * itself runs against PostgreSQL in tests/bats/78-fleet-safety.bats. */
#include "fleetkit.h"
#include "fleet_sql.h"

#include <unistd.h>

static void test_hold(void)
{
	struct fleet *f = kit_fleet("r1"), *g = kit_fleet("r1");
	struct op *op = kit_op(OP_HOLD, NULL, 0);
	struct fleet_statement p = { .n = 0 }, q = { .n = 0 };
	char host[256] = "", pid[32];

	gethostname(host, sizeof host - 1);
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	check(fleet__replica_statement(f, op, &p) == fleet_sql_hold && p.n == 7,
	      "hold: 7 parameters");
	check(p.n == 7 && strcmp(p.v[0], "r1") == 0 && strlen(p.v[1]) == 32 &&
		      strspn(p.v[1], "0123456789abcdef") == 32,
	      "the name, and an instance id of 32 hex digits: %s", p.n == 7 ? p.v[1] : "");
	check(p.n == 7 && strcmp(p.v[2], host) == 0 && strcmp(p.v[3], pid) == 0 &&
		      strcmp(p.v[4], TFD_VERSION) == 0 && strcmp(p.v[5], "60000000") == 0 &&
		      p.v[6] == NULL,
	      "host, pid, version, the lease in microseconds, no holder seen yet");
	fleet__replica_statement(g, op, &q);
	check(p.n == 7 && q.n == 7 && strcmp(p.v[1], q.v[1]) != 0,
	      "two processes under one name are two instances");
	fleet_op_free(op);
	fleet_free(g);
	fleet_free(f);
}

/* The answers to OP_HOLD: the name taken, or held by a live holder. */
static void test_hold_answers(void)
{
	struct fleet *f = kit_fleet("r1");
	struct pg_result taken = { .rows = 1, .fields = 4, .cells = { { "t" } } };
	struct pg_result held = { .rows = 1,
				  .fields = 4,
				  .cells = { { "f", "otherhost", "4242", "1700000000000000" } } };
	struct op *send = NULL, *op;
	struct fleet_statement p = { .n = 0 };
	struct kit_event e;
	int64_t d, mono = fleet__now_mono();

	check(fleet__replica_answer(f, kit_op(OP_HOLD, NULL, 0), &taken, &send) == 0 && send &&
		      send->kind == OP_START,
	      "the name taken: the setup's next step is sent at once");
	fleet_op_free(send);

	f->link = LINK_SETUP;
	check(fleet__replica_answer(f, kit_op(OP_HOLD, NULL, 0), &held, &send) == 0 && !send,
	      "held by another: nothing sent now");
	check(kit_events(f, FLEET_EVENT_FATAL, 0, NULL) == 0,
	      "not the end yet: its holder may be dead");
	d = fleet__replica_deadline(f);
	check(d > mono + 19 * KIT_SEC && d < fleet__now_mono() + 21 * KIT_SEC,
	      "asked again after lease/3 (20 s): %lld ns", (long long)(d - mono));
	op = kit_op(OP_HOLD, NULL, 0);
	fleet__replica_statement(f, op, &p);
	check(p.n == 7 && p.v[6] && strcmp(p.v[6], "1700000000000000") == 0,
	      "with the holder's seen_at, which a dead holder leaves as it was");
	fleet_op_free(op);

	check(fleet__replica_answer(f, kit_op(OP_HOLD, NULL, 0), &held, &send) == 0 && !send,
	      "held again");
	check(kit_events(f, FLEET_EVENT_FATAL, 0, &e) == 1 && strstr(e.msg, "otherhost") &&
		      strstr(e.msg, "pid 4242") && strstr(e.msg, "'r1'"),
	      "the second time is the end, naming the holder: %s", e.msg);
	check(fleet__claims_refused(f), "and nothing more is claimed under the name");
	f->link = LINK_READY;
	fleet_release(f);
	check(f->writes.n == 0, "a name never held is not released");
	fleet_free(f);
}

static void test_jobs(void)
{
	struct fleet *f = kit_fleet("r1");
	const char *names[] = { "a", "b\"q" };
	const uint64_t prints[] = { 1, UINT64_C(0xfedcba9876543210) };
	struct op *op = kit_op(OP_JOBS, NULL, 0);
	struct fleet_statement p = { .n = 0 };

	check(fleet__replica_jobs(f) == NULL, "no jobs before they are set");
	check(fleet_set_jobs(f, 2, names, prints) == 0, "jobs set");
	check(fleet__replica_jobs(f) && strcmp(fleet__replica_jobs(f), "{\"a\",\"b\\\"q\"}") == 0,
	      "the names as a text[] literal, quoted: %s", fleet__replica_jobs(f));
	check(f->writes.n == 0, "not connected: written when the connection is ready");
	check(fleet__replica_statement(f, op, &p) == fleet_sql_jobs && p.n == 3 &&
		      strcmp(p.v[2], "{\"0000000000000001\",\"fedcba9876543210\"}") == 0,
	      "the fingerprints as 16 hex digits each: %s", p.n == 3 ? p.v[2] : "");
	fleet_op_free(op);
	f->link = LINK_READY;
	check(fleet_set_jobs(f, 1, names, prints) == 0 && kit_queued(&f->writes, OP_JOBS) == 1,
	      "set again while connected (a reload): written at once");
	fleet_free(f);
}

/* The name's renewal, and what its answer asks next. */
static void test_beat(void)
{
	struct fleet *f = kit_fleet("r1");
	const char *names[] = { "a" };
	const uint64_t prints[] = { 7 };
	struct pg_result yes = { .rows = 1, .fields = 4, .cells = { { "t" } } };
	struct pg_result jobs = { .rows = 0, .fields = 0 };
	struct op *send, *op;

	fleet_set_jobs(f, 1, names, prints);
	f->link = LINK_READY;
	fleet__replica_ready(f);
	check(kit_queued(&f->writes, OP_JOBS) == 1 && kit_queued(&f->chores, OP_VIEW) == 1,
	      "a connection ready: the jobs written again, the fleet's view read");
	check(kit_events(f, FLEET_EVENT_NOTE, 0, NULL) == 1, "and the connection told");
	fleet__replica_beat_at(f, 0);
	check(fleet__replica_service(f, &send) == 0 && !send &&
		      kit_queued(&f->writes, OP_BEAT) == 1,
	      "the name's renewal is due: queued");
	fleet__replica_service(f, &send);
	check(kit_queued(&f->writes, OP_BEAT) == 1, "once, until its answer");

	while ((op = fleet_queue_pop(&f->writes)))
		fleet_op_free(op);
	while ((op = fleet_queue_pop(&f->chores)))
		fleet_op_free(op);
	fleet__replica_answer(f, kit_op(OP_BEAT, NULL, 0), &yes, &send);
	check(kit_queued(&f->writes, OP_JOBS) == 1 && kit_queued(&f->chores, OP_VIEW) == 1,
	      "renewed while the jobs are not written: they are, and the view is read again");
	op = fleet_queue_pop(&f->writes);
	fleet__replica_answer(f, op, &jobs, &send);
	check(kit_queued(&f->writes, OP_DIFFER) == 1,
	      "the jobs written: compared with the others'");
	while ((op = fleet_queue_pop(&f->writes)))
		fleet_op_free(op);
	fleet__replica_answer(f, kit_op(OP_BEAT, NULL, 0), &yes, &send);
	check(kit_queued(&f->writes, OP_DIFFER) == 1 && kit_queued(&f->writes, OP_JOBS) == 0,
	      "renewed with the jobs written: only compared again");
	fleet_free(f);
}

/* At exit the name is released, and nothing renews it after: not a
 * renewal falling due in the exit's grace, nor the answer of one sent
 * before (a renewal after the release held the name a lease longer). */
static void test_release_ends_renewals(void)
{
	struct fleet *f = kit_fleet("r1");
	const char *names[] = { "a" };
	const uint64_t prints[] = { 7 };
	struct pg_result yes = { .rows = 1, .fields = 4, .cells = { { "t" } } };
	struct op *send, *op;

	fleet_set_jobs(f, 1, names, prints);
	f->link = LINK_READY;
	fleet__replica_ready(f);
	kit_events(f, FLEET_EVENT_NOTE, 0, NULL);
	while ((op = fleet_queue_pop(&f->writes)))
		fleet_op_free(op);
	fleet_release(f);
	check(kit_queued(&f->writes, OP_RELEASE) == 1, "the name released");
	fleet__replica_beat_at(f, 0);
	check(fleet__replica_deadline(f) > fleet__now_mono() + KIT_SEC,
	      "a renewal due after the release does not wake the loop");
	check(fleet__replica_service(f, &send) == 0 && !send &&
		      kit_queued(&f->writes, OP_BEAT) == 0,
	      "nor is it queued");
	fleet__replica_answer(f, kit_op(OP_BEAT, NULL, 0), &yes, &send);
	check(kit_queued(&f->writes, OP_JOBS) == 0 && kit_queued(&f->writes, OP_DIFFER) == 0 &&
		      kit_queued(&f->writes, OP_BEAT) == 0,
	      "a renewal answered after the release asks nothing more");
	fleet_release(f);
	check(kit_queued(&f->writes, OP_RELEASE) == 1, "released once");
	while ((op = fleet_queue_pop(&f->writes)))
		fleet_op_free(op);
	fleet__replica_ready(f);
	check(kit_queued(&f->writes, OP_RELEASE) == 1 && kit_queued(&f->writes, OP_JOBS) == 0,
	      "a connection made again in the exit's grace releases the name again");
	fleet_free(f);
}

static void test_differ_told_once(void)
{
	struct fleet *f = kit_fleet("r1");
	struct pg_result r = { .rows = 3,
			       .fields = 3,
			       .cells = { { "a", "r2", "00000000000000aa" },
					  { "a", "r2", "00000000000000aa" },
					  { "a", "r3", "00000000000000bb" } } };
	struct kit_event e;
	struct op *send;

	fleet__replica_answer(f, kit_op(OP_DIFFER, NULL, 0), &r, &send);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, &e) == 2 && strstr(e.msg, "job 'a'") &&
		      strstr(e.msg, "'r3'"),
	      "each difference (job, replica, fingerprint) told: %s", e.msg);
	fleet__replica_answer(f, kit_op(OP_DIFFER, NULL, 0), &r, &send);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 0, "once, not at every comparison");
	/* A minute on, the events' own repeat period (one line a minute) is
	 * over: the difference is still not told again. */
	for (size_t i = 0; i < FLEET_REPEAT_MAX; i++)
		f->events.repeats.told[i].told_at -= FLEET_REPEAT_NS + KIT_SEC;
	fleet__replica_answer(f, kit_op(OP_DIFFER, NULL, 0), &r, &send);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 0, "not a minute later either");
	r.rows = 1;
	r.cells[0][1] = "r4";
	fleet__replica_answer(f, kit_op(OP_DIFFER, NULL, 0), &r, &send);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 1, "another replica's is told too");
	fleet_free(f);
}

static void test_outage_told_once(void)
{
	struct fleet *f = kit_fleet("r1");
	struct kit_event e;

	f->link = LINK_READY;
	fleet__link_lost(f, "server closed the connection unexpectedly");
	check(kit_events(f, FLEET_EVENT_ERROR, 0, &e) == 1 &&
		      strstr(e.msg, "lost the connection to the database") &&
		      strstr(e.msg, "--fleet-deadline (60 s)") &&
		      strstr(e.msg, "server closed the connection unexpectedly"),
	      "the outage told with what tfd does meanwhile: %s", e.msg);
	f->outage_reported = true; /* fleet.c's, once told */
	f->link = LINK_WAIT;
	fleet__link_lost(f, "could not connect");
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 0, "once an outage");
	f->outage_reported = false;
	f->link = LINK_SETUP;
	fleet__refuse_claims(f);
	fleet__link_lost(f, "permission denied for table tfd_runs");
	check(kit_events(f, FLEET_EVENT_ERROR, 0, &e) == 1 &&
		      strstr(e.msg, "misses every elapse at once"),
	      "claims refused for good: said so: %s", e.msg);
	fleet_free(f);
}

static void test_backlog(void)
{
	struct fleet *f = kit_fleet("r1");
	int64_t now = fleet__now_real();
	struct kit_event e;
	struct op *op;

	f->link = LINK_READY;
	fleet_claim(f, "slow", now - 31 * KIT_SEC, false, 1);
	fleet__check_backlog(f);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, &e) == 1 && strstr(e.msg, "falls behind") &&
		      strstr(e.msg, "job 'slow'"),
	      "an elapse waiting more than half the deadline: told: %s", e.msg);
	fleet__check_backlog(f);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 0, "once, until the queue catches up");
	while ((op = fleet_queue_pop(&f->claims)))
		fleet_op_free(op);
	fleet__check_backlog(f);
	fleet_claim(f, "slow-again", now - 31 * KIT_SEC, false, 2);
	fleet__check_backlog(f);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 1, "caught up, then behind again: told");

	/* The elapses that waited for a connection are not counted: the
	 * connection was ready just now. */
	fleet__replica_ready(f);
	kit_events(f, FLEET_EVENT_NOTE, 0, NULL);
	while ((op = fleet_queue_pop(&f->claims)))
		fleet_op_free(op);
	fleet__check_backlog(f);
	fleet_claim(f, "waited-for-the-link", now - 45 * KIT_SEC, false, 3);
	fleet__check_backlog(f);
	check(kit_events(f, FLEET_EVENT_ERROR, 0, NULL) == 0,
	      "an elapse older than the connection is counted from it");
	fleet_free(f);
}

int main(void)
{
	kit_check_writer(fleet__replica_statement, FLEET_SQL_REPLICA);
	test_hold();
	test_hold_answers();
	test_jobs();
	test_beat();
	test_release_ends_renewals();
	test_differ_told_once();
	test_outage_told_once();
	test_backlog();
	return tally_finish(&tally, "fleet_replica");
}
