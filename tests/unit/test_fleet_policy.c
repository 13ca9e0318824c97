/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_policy: every statement kind has its row, the rows
 * agree with each other (a kind sent again has a queue to go back to, one
 * made due again has a timer), and the fleet's rules as SPEC and tfd(1)
 * state them: a run's rows go before renewals, claims and chores, a claim whose
 * answer was lost is sent again marked resent and abandoned if missed, a
 * rollback is retried, a refused batch of claims misses them at once, a
 * refusal while setting up gives the connection up. */
#include "fleet_policy.h"
#include "fleet_statement.h"
#include "fleetkit.h"
#include "harness.h"

#include <string.h>

static const struct fleet_policy *row(enum op_kind k)
{
	return fleet_policy(k);
}

static bool sent_again(enum fleet_again a)
{
	return a == FLEET_AGAIN_REQUEUE || a == FLEET_AGAIN_RESENT;
}

/* A kind added to enum op_kind without its row has no name. */
static void test_every_kind_has_a_row(void)
{
	for (int k = 0; k < OP_KINDS; k++) {
		const char *name = row(k)->name;

		check(name && *name, "kind %d has a row", k);
		for (int j = 0; name && j < k; j++)
			check(!row(j)->name || strcmp(row(j)->name, name) != 0,
			      "kinds %d and %d share the name %s", j, k, name);
	}
}

static void test_rows_agree(void)
{
	for (int k = 0; k < OP_KINDS; k++) {
		const struct fleet_policy *p = row(k);
		const char *n = p->name ? p->name : "?";

		check(!(sent_again(p->lost) || sent_again(p->rolled_back)) ||
			      p->queue != FLEET_QUEUE_NONE,
		      "%s: sent again, so it has a queue to wait in", n);
		check((p->lost != FLEET_AGAIN_DUE && p->rolled_back != FLEET_AGAIN_DUE &&
		       p->refused != FLEET_REFUSED_LATER) ||
			      p->timer != FLEET_TIMER_NONE,
		      "%s: made due again, so a timer makes it", n);
		check((p->lost != FLEET_AGAIN_RESENT && p->rolled_back != FLEET_AGAIN_RESENT &&
		       p->refused != FLEET_REFUSED_MISS && p->pending != FLEET_PENDING_ITEMS) ||
			      p->batch,
		      "%s: its items are marked, missed or counted, so it has items", n);
		check(p->reading != FLEET_READ_NEXT || row(p->next)->queue == FLEET_QUEUE_NONE,
		      "%s: a setup step sends the next one at once", n);
		check(p->refused != FLEET_REFUSED_RECONNECT || p->queue == FLEET_QUEUE_NONE,
		      "%s: the setup's steps wait in no queue (there are no turns yet)", n);
		check(!p->abandon_if_resent || row(OP_ABANDON)->queue != FLEET_QUEUE_NONE,
		      "%s: its abandon has a queue", n);
	}
}

static void test_queues(void)
{
	static const enum op_kind runs[] = { OP_END, OP_ENDS, OP_ATTEMPT, OP_ABANDON };
	static const enum op_kind writes[] = { OP_BEAT,   OP_RELEASE, OP_JOBS,
					       OP_DIFFER, OP_PAUSE,   OP_RESUME };

	/* The queues are sent in the order of enum fleet_queue (fleet.c
	 * next_op): a run's rows before the claims, the bookkeeping and the
	 * chores. */
	check(FLEET_QUEUE_RUNS < FLEET_QUEUE_CLAIMS && FLEET_QUEUE_CLAIMS < FLEET_QUEUE_WRITES &&
		      FLEET_QUEUE_WRITES < FLEET_QUEUE_CHORES,
	      "the queues in the order they are sent");
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++)
		check(row(runs[i])->queue == FLEET_QUEUE_RUNS,
		      "%s goes first, before renewals, claims and chores", row(runs[i])->name);
	for (size_t i = 0; i < sizeof writes / sizeof *writes; i++)
		check(row(writes[i])->queue == FLEET_QUEUE_WRITES,
		      "%s: bookkeeping, after the claims", row(writes[i])->name);
	check(row(OP_RENEW)->queue == FLEET_QUEUE_NONE && row(OP_RENEW)->timer == FLEET_TIMER_RENEW,
	      "the leases' renewal waits in no queue: sent after the runs' rows when due");
	check(row(OP_CLAIM)->queue == FLEET_QUEUE_CLAIMS &&
		      row(OP_CLAIMS)->queue == FLEET_QUEUE_CLAIMS,
	      "claims wait in theirs");
	check(row(OP_KEEP_DELETE)->queue == FLEET_QUEUE_CHORES &&
		      row(OP_KEEP_END)->queue == FLEET_QUEUE_CHORES &&
		      row(OP_VIEW)->queue == FLEET_QUEUE_CHORES,
	      "the cleanup and the view after the claims");
}

static void test_sent_again(void)
{
	check(row(OP_CLAIMS)->lost == FLEET_AGAIN_RESENT && row(OP_CLAIM)->abandon_if_resent,
	      "claims lost in flight: sent again marked resent, abandoned if missed");
	check(row(OP_ENDS)->lost == FLEET_AGAIN_REQUEUE &&
		      row(OP_ATTEMPT)->lost == FLEET_AGAIN_REQUEUE &&
		      row(OP_ABANDON)->lost == FLEET_AGAIN_REQUEUE,
	      "a run's rows are written whatever happens to the connection");
	check(row(OP_RELEASE)->lost == FLEET_AGAIN_DROP &&
		      row(OP_RELEASE)->pending == FLEET_PENDING_ONE,
	      "the release: not sent on another connection, but waited for at exit");
	check(row(OP_RENEW)->lost == FLEET_AGAIN_DROP && row(OP_BEAT)->lost == FLEET_AGAIN_DROP &&
		      row(OP_JOBS)->lost == FLEET_AGAIN_DROP,
	      "renewals and the jobs: made again by the next connection");
	for (int k = 0; k < OP_KINDS; k++)
		check(!row(k)->abandon_if_resent || k == OP_CLAIM, "%s: only a claim is abandoned",
		      row(k)->name);
}

static void test_rolled_back(void)
{
	static const enum op_kind queued[] = { OP_CLAIMS, OP_ENDS,    OP_ATTEMPT, OP_ABANDON,
					       OP_BEAT,   OP_RELEASE, OP_JOBS,    OP_DIFFER };

	for (size_t i = 0; i < sizeof queued / sizeof *queued; i++)
		check(row(queued[i])->rolled_back == FLEET_AGAIN_REQUEUE,
		      "%s rolled back: sent again, first", row(queued[i])->name);
	check(row(OP_CLAIMS)->rolled_back != FLEET_AGAIN_RESENT,
	      "claims rolled back wrote nothing: not marked resent");
	check(row(OP_RENEW)->rolled_back == FLEET_AGAIN_DUE &&
		      row(OP_REWRITE)->rolled_back == FLEET_AGAIN_DUE,
	      "renewal and rewrite rolled back: due again at once");
	check(row(OP_KEEP_CLAIM)->rolled_back == FLEET_AGAIN_DROP,
	      "the cleanup rolled back: the next one");
}

static void test_refused(void)
{
	static const enum op_kind setting_up[] = { OP_SETUP, OP_UPGRADE, OP_HOLD, OP_START };

	for (size_t i = 0; i < sizeof setting_up / sizeof *setting_up; i++)
		check(row(setting_up[i])->refused == FLEET_REFUSED_RECONNECT,
		      "%s refused: the connection is given up", row(setting_up[i])->name);
	for (int k = 0; k < OP_KINDS; k++)
		if (row(k)->refused == FLEET_REFUSED_RECONNECT)
			check(k == OP_SETUP || k == OP_UPGRADE || k == OP_HOLD || k == OP_START,
			      "%s: only setting up gives the connection up", row(k)->name);
	check(row(OP_CLAIMS)->refused == FLEET_REFUSED_MISS, "a refused batch of claims: missed");
	check(row(OP_RENEW)->refused == FLEET_REFUSED_LATER &&
		      row(OP_BEAT)->refused == FLEET_REFUSED_LATER,
	      "a refused renewal: at its next period");
	check(row(OP_ENDS)->refused == FLEET_REFUSED_DROP, "refused ends: given up, not for ever");
}

static void test_pending(void)
{
	struct op *items[3] = { 0 };
	struct op claim = { .kind = OP_CLAIM },
		  batch = { .kind = OP_ENDS, .items = items, .nitems = 3 };
	struct op renew = { .kind = OP_RENEW },
		  rewrite = { .kind = OP_REWRITE, .items = items, .nitems = 3 };

	check(fleet_op_pending(&claim) == 1, "a claim: 1");
	check(fleet_op_pending(&batch) == 3, "a batch of 3 ends: 3");
	check(fleet_op_pending(&renew) == 0, "the renewal: 0");
	check(fleet_op_pending(&rewrite) == 0, "rows written before: the exit need not wait");
}

/* fleet_statement_of as kit_check_writer calls the other files' writers:
 * from the fleet's settings and a boundary of its own. */
static const char *statement_of(struct fleet *f, const struct op *op, struct fleet_statement *p)
{
	return fleet_statement_of(&f->cfg, "2026-12-05 00:00:00+00", op, p);
}

/* The statement column names who writes each kind's SQL (fleet.c
 * send_op asks that file alone): every kind sent has a writer, only a
 * batch's items have none, and fleet_statement.c writes exactly the
 * kinds whose row says FLEET_SQL_OP (a kind it writes that its row
 * gives another file, or the other way round, would go unsent). */
static void test_statements(void)
{
	for (int k = 0; k < OP_KINDS; k++) {
		bool item_kind = k == OP_CLAIM || k == OP_END;

		check((row(k)->statement == FLEET_SQL_NONE) == item_kind, "%s: %s", row(k)->name,
		      item_kind ? "an item, never sent alone" : "a writer of its SQL");
	}
	kit_check_writer(statement_of, FLEET_SQL_OP);
	check(row(OP_RENEW)->statement == FLEET_SQL_WINS,
	      "the renewal: fleet_wins.c (the keys held)");
	check(row(OP_HOLD)->statement == FLEET_SQL_REPLICA &&
		      row(OP_BEAT)->statement == FLEET_SQL_REPLICA &&
		      row(OP_JOBS)->statement == FLEET_SQL_REPLICA,
	      "the name and the jobs: fleet_replica.c");
	check(row(OP_PAUSE)->statement == FLEET_SQL_PAUSE &&
		      row(OP_VIEW)->statement == FLEET_SQL_PAUSE,
	      "pauses and the view: fleet_pause.c");
}

int main(void)
{
	test_every_kind_has_a_row();
	test_rows_agree();
	test_queues();
	test_sent_again();
	test_rolled_back();
	test_refused();
	test_pending();
	test_statements();
	return tally_finish(&tally, "fleet_policy");
}
