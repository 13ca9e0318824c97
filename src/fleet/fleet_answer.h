/* SPDX-License-Identifier: MIT */
/* fleet_answer: what the server's answer to a statement means, as a
 * verdict that fleet.c acts on. It reads the answer through libpq's
 * functions (struct pq) and the statement kind's row of the policy table
 * (fleet_policy.h), and nothing else: no state of the fleet's, no call
 * into fleet.c; a test drives it with a pq of its own. */
#ifndef TFD_FLEET_ANSWER_H
#define TFD_FLEET_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet_types.h"
#include "fleet_op.h"
#include "pq.h"
#include "timens.h"

enum fleet_verdict_kind {
	FLEET_VERDICT_DONE,        /* went through; nothing follows */
	FLEET_VERDICT_NEXT,        /* went through; the op goes on as the
				    * statement NEXT, with SCHEDULED_NS and
				    * TOKEN, sent or queued as its row says */
	FLEET_VERDICT_READY,       /* the start went through: the replica is
				    * ready, BOUNDARY its first instant */
	FLEET_VERDICT_CLAIMS,      /* ROWS rows, each read by fleet_answer_claim */
	FLEET_VERDICT_RENEWED,     /* the leases were renewed */
	FLEET_VERDICT_REPLICA,     /* fleet__replica_answer reads it */
	FLEET_VERDICT_PAUSE,       /* fleet__pause_answer reads it */
	FLEET_VERDICT_LOST,        /* the connection is given up (MESSAGE);
				    * REFUSE_CLAIMS: and the claims missed
				    * at once, the refusal lasting */
	FLEET_VERDICT_ROLLED_BACK, /* SQLSTATE class 40, or aborted in the
				    * pipeline: as its row's rolled_back */
	FLEET_VERDICT_REFUSED,     /* reported (MESSAGE; once a connection
				    * when it LASTS), then as its row's refused */
};

struct fleet_verdict {
	enum fleet_verdict_kind kind;
	enum op_kind next;
	int64_t scheduled_ns;
	uint64_t token;
	int rows;
	int64_t db_now_ns; /* the database's now() in the answer, for
			    * the clock's check; 0: none */
	bool lasts;        /* a refusal that retrying cannot mend
			    * (read-only, no privilege) */
	bool refuse_claims;
	char boundary[64];  /* timestamptz text */
	char message[1024]; /* one line, the server's reason */
};

/* What the answer R to OP means (R NULL: the server sent no result).
 * CONN_OK: the connection is still up. */
void fleet_answer_read(const struct pq *pq, const struct op *op, const pq_result *r, bool conn_ok,
		       struct fleet_verdict *v);

enum fleet_claim_row {
	FLEET_ROW_NONE,     /* names no claim of the batch */
	FLEET_ROW_AGAIN,    /* *ITEM is asked again, in the next statement
			     * (which sees what this one could not) */
	FLEET_ROW_ANSWERED, /* *ITEM's outcome is *O */
};

/* Row ROW (below a FLEET_VERDICT_CLAIMS's ROWS) of the answer to a batch
 * of NITEMS claims: the claim it answers (an index into the batch's
 * items), and how. */
enum fleet_claim_row fleet_answer_claim(const struct pq *pq, const pq_result *r, int row,
					size_t nitems, size_t *item, enum fleet_outcome *o);

/* How far apart this replica's clock and the database's may be before
 * it is said: a second (claims are keyed by the replica's instants). */
#define FLEET_CLOCK_SLACK_NS NSEC_PER_SEC

/* The database's now() in an answer (DB_NS; 0: none: false) against this
 * replica's clock at the middle of the statement's round trip (sent at
 * SENT_REAL, answered at GOT_REAL, both wall clock): *OFF how far ahead
 * (negative: behind) it is, *HALF the half round trip, the measure's
 * uncertainty. */
bool fleet_answer_clock(int64_t db_ns, int64_t sent_real, int64_t got_real, int64_t *off,
			int64_t *half);

/* What a clock OFF ahead of the database's (negative: behind) means for
 * REPLICA's claims, in MSG. */
void fleet_clock_message(const char *replica, int64_t off, char *msg, size_t len);

#endif
