/* SPDX-License-Identifier: MIT */
/* fleet_statement: an op turned into its SQL and parameters. Above
 * fleet_op.c (the ops and their queues) and fleet_batch.c (a batch's
 * arrays), so that neither calls the other back. */
#include "fleet_statement.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleet_sql.h"
#include "fleet_sql_batch.h"

static void format_micros(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%" PRId64, ns / 1000);
}

/* Statements */

static void param_instant(struct fleet_statement *p, int slot, int64_t ns)
{
	fleet_format_instant(p->buf[slot], sizeof p->buf[slot], ns);
	p->v[p->n++] = p->buf[slot];
}

static void param_micros(struct fleet_statement *p, int slot, int64_t ns)
{
	format_micros(p->buf[slot], sizeof p->buf[slot], ns);
	p->v[p->n++] = p->buf[slot];
}

static void param_int(struct fleet_statement *p, int slot, long v)
{
	snprintf(p->buf[slot], sizeof p->buf[slot], "%ld", v);
	p->v[p->n++] = p->buf[slot];
}

const char *fleet_statement_of(const struct fleet_config *cfg, const char *boundary,
			       const struct op *op, struct fleet_statement *p)
{
	const struct fleet_end *e = &op->end;

	switch (op->kind) {
	case OP_SETUP:
		return fleet_sql_setup;
	case OP_UPGRADE:
		return fleet_sql_upgrade;
	case OP_START:
		p->v[p->n++] = cfg->replica;
		p->v[p->n++] = boundary;
		return fleet_sql_start;
	case OP_CLAIMS:
	case OP_ENDS:
	case OP_REWRITE:
		return fleet_batch_statement(cfg, op, p);
	case OP_ATTEMPT:
		p->v[p->n++] = op->job;
		param_instant(p, 0, op->scheduled_ns);
		p->v[p->n++] = cfg->replica;
		param_int(p, 1, (long)e->attempts);
		return fleet_sql_attempt;
	case OP_CLAIM:
	case OP_END:
		break;  /* items of a batch, never sent alone */
	case OP_ABANDON:
		p->v[p->n++] = op->job;
		param_instant(p, 0, op->scheduled_ns);
		p->v[p->n++] = cfg->replica;
		return fleet_sql_abandon;
	case OP_KEEP_CLAIM:
		p->v[p->n++] = cfg->replica;
		return fleet_sql_keep_claim;
	case OP_KEEP_DELETE:
		param_micros(p, 0, cfg->keep_ns);
		return fleet_sql_keep_delete;
	case OP_KEEP_END:
		p->v[p->n++] = cfg->replica;
		param_instant(p, 0, op->scheduled_ns);
		param_int(p, 1, (long)op->token);
		param_micros(p, 2, cfg->keep_ns);
		return fleet_sql_keep_end;
	case OP_HOLD:
	case OP_BEAT:
	case OP_RELEASE:
	case OP_JOBS:
	case OP_DIFFER:
	case OP_RENEW:
	case OP_PAUSE:
	case OP_RESUME:
	case OP_VIEW:
		break;  /* written by another file (the policy's statement column) */
	case OP_KINDS:
		break;
	}
	return NULL;
}

void fleet_statement_free(struct fleet_statement *p)
{
	for (int i = 0; i < p->narrays; i++)
		free(p->arrays[i]);
	p->narrays = 0;
}
