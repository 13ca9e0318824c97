/* SPDX-License-Identifier: MIT */
/* fleet_policy: the table. A field a row leaves out is its zero: no SQL
 * of its own (an item of a batch), no queue, dropped when its statement
 * does not go through, given up when refused, no timer, nothing to read,
 * nothing the exit waits for. */
#include "fleet_policy.h"

/* clang-format off */
static const struct fleet_policy policies[OP_KINDS] = {
	/* The setup, in order, each step sent when the one before went
	 * through; a new connection starts it again. The replica is not ready
	 * without it: a refusal gives the connection up. */
	[OP_SETUP] = { .name = "setup", .statement = FLEET_SQL_OP,
		       .refused = FLEET_REFUSED_RECONNECT, .reading = FLEET_READ_NEXT,
		       .next = OP_UPGRADE },
	[OP_UPGRADE] = { .name = "upgrade", .statement = FLEET_SQL_OP,
			 .refused = FLEET_REFUSED_RECONNECT, .reading = FLEET_READ_NEXT,
			 .next = OP_HOLD },
	[OP_HOLD] = { .name = "hold", .statement = FLEET_SQL_REPLICA,
		      .refused = FLEET_REFUSED_RECONNECT, .reading = FLEET_READ_REPLICA },
	[OP_START] = { .name = "start", .statement = FLEET_SQL_OP,
		       .refused = FLEET_REFUSED_RECONNECT, .reading = FLEET_READ_START },

	/* A claim waits in its queue and goes as an item of a batch. A batch
	 * lost in flight may have inserted its rows: it is sent again marked
	 * resent, and an elapse missed meanwhile has its row abandoned. A
	 * batch refused misses its elapses at once: nobody runs them, rather
	 * than a claim asked for ever. */
	[OP_CLAIM] = { .name = "claim", .queue = FLEET_QUEUE_CLAIMS, .abandon_if_resent = true,
		       .pending = FLEET_PENDING_ONE },
	[OP_CLAIMS] = { .name = "claims", .statement = FLEET_SQL_OP, .queue = FLEET_QUEUE_CLAIMS,
			.batch = true, .lost = FLEET_AGAIN_RESENT,
			.rolled_back = FLEET_AGAIN_REQUEUE, .refused = FLEET_REFUSED_MISS,
			.reading = FLEET_READ_CLAIMS, .pending = FLEET_PENDING_ITEMS },

	/* A won run's rows: written whatever happens to the connection (an
	 * unwritten end holds the job's next elapses skipped), before
	 * anything else that waits. */
	[OP_ATTEMPT] = { .name = "attempt", .statement = FLEET_SQL_OP, .queue = FLEET_QUEUE_RUNS,
			 .lost = FLEET_AGAIN_REQUEUE, .rolled_back = FLEET_AGAIN_REQUEUE,
			 .pending = FLEET_PENDING_ONE },
	[OP_END] = { .name = "end", .queue = FLEET_QUEUE_RUNS, .pending = FLEET_PENDING_ONE },
	[OP_ENDS] = { .name = "ends", .statement = FLEET_SQL_OP, .queue = FLEET_QUEUE_RUNS,
		      .batch = true, .lost = FLEET_AGAIN_REQUEUE,
		      .rolled_back = FLEET_AGAIN_REQUEUE, .pending = FLEET_PENDING_ITEMS },
	[OP_ABANDON] = { .name = "abandon", .statement = FLEET_SQL_OP, .queue = FLEET_QUEUE_RUNS,
			 .lost = FLEET_AGAIN_REQUEUE, .rolled_back = FLEET_AGAIN_REQUEUE,
			 .pending = FLEET_PENDING_ONE },
	/* The recent wins, written again after a reconnection: each
	 * reconnection asks for it anew; rows written before, so the exit
	 * need not wait for it. */
	[OP_REWRITE] = { .name = "rewrite", .statement = FLEET_SQL_OP, .batch = true,
			 .rolled_back = FLEET_AGAIN_DUE, .timer = FLEET_TIMER_REWRITE },

	/* The leases' renewal: a new connection renews at once; one refused
	 * waits for its next period. */
	[OP_RENEW] = { .name = "renew", .statement = FLEET_SQL_WINS, .rolled_back = FLEET_AGAIN_DUE,
		       .refused = FLEET_REFUSED_LATER, .timer = FLEET_TIMER_RENEW,
		       .reading = FLEET_READ_RENEW },

	/* The cleanup: claimed for the hour, rows deleted in batches, its row
	 * finished. Anything amiss waits for the next cleanup. */
	[OP_KEEP_CLAIM] = { .name = "keep-claim", .statement = FLEET_SQL_OP,
			    .timer = FLEET_TIMER_KEEP, .reading = FLEET_READ_KEEP_CLAIM,
			    .next = OP_KEEP_DELETE },
	[OP_KEEP_DELETE] = { .name = "keep-delete", .statement = FLEET_SQL_OP,
			     .queue = FLEET_QUEUE_CHORES, .timer = FLEET_TIMER_KEEP,
			     .reading = FLEET_READ_KEEP_DELETE, .next = OP_KEEP_END },
	[OP_KEEP_END] = { .name = "keep-end", .statement = FLEET_SQL_OP,
			  .queue = FLEET_QUEUE_CHORES, .timer = FLEET_TIMER_KEEP },

	/* The replica's name and jobs (fleet_replica.c). A new connection
	 * renews the name and writes the jobs again; the release at exit is
	 * not sent again on one, but is what the exit waits for. */
	[OP_BEAT] = { .name = "beat", .statement = FLEET_SQL_REPLICA, .queue = FLEET_QUEUE_WRITES,
		      .rolled_back = FLEET_AGAIN_REQUEUE, .refused = FLEET_REFUSED_LATER,
		      .timer = FLEET_TIMER_BEAT, .reading = FLEET_READ_REPLICA },
	[OP_RELEASE] = { .name = "release", .statement = FLEET_SQL_REPLICA,
			 .queue = FLEET_QUEUE_WRITES, .rolled_back = FLEET_AGAIN_REQUEUE,
			 .reading = FLEET_READ_REPLICA, .pending = FLEET_PENDING_ONE },
	[OP_JOBS] = { .name = "jobs", .statement = FLEET_SQL_REPLICA, .queue = FLEET_QUEUE_WRITES,
		      .rolled_back = FLEET_AGAIN_REQUEUE, .reading = FLEET_READ_REPLICA },
	[OP_DIFFER] = { .name = "differ", .statement = FLEET_SQL_REPLICA,
			.queue = FLEET_QUEUE_WRITES, .rolled_back = FLEET_AGAIN_REQUEUE,
			.reading = FLEET_READ_REPLICA },

	/* tfdctl pause and resume (fleet_pause.c): written after the claims;
	 * one lost with the connection is not sent again (its client
	 * was told it is not done); the exit waits for one asked for. The
	 * view of the fleet's pauses and last runs is read after the claims,
	 * each connection and each renewal period asks for it anew. */
	[OP_PAUSE] = { .name = "pause", .statement = FLEET_SQL_PAUSE, .queue = FLEET_QUEUE_WRITES,
		       .rolled_back = FLEET_AGAIN_REQUEUE, .reading = FLEET_READ_PAUSE,
		       .pending = FLEET_PENDING_ONE },
	[OP_RESUME] = { .name = "resume", .statement = FLEET_SQL_PAUSE, .queue = FLEET_QUEUE_WRITES,
			.rolled_back = FLEET_AGAIN_REQUEUE, .reading = FLEET_READ_PAUSE,
			.pending = FLEET_PENDING_ONE },
	[OP_VIEW] = { .name = "view", .statement = FLEET_SQL_PAUSE, .queue = FLEET_QUEUE_CHORES,
		      .reading = FLEET_READ_PAUSE },
};
/* clang-format on */

const struct fleet_policy *fleet_policy(enum op_kind kind)
{
	return &policies[kind];
}

size_t fleet_op_pending(const struct op *op)
{
	switch (fleet_policy(op->kind)->pending) {
	case FLEET_PENDING_ONE:
		return 1;
	case FLEET_PENDING_ITEMS:
		return op->nitems;
	case FLEET_PENDING_NONE:
		break;
	}
	return 0;
}
