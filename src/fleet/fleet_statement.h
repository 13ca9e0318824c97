/* SPDX-License-Identifier: MIT */
/* fleet_statement: the SQL and the parameters of an op (fleet_op.h). */
#ifndef TFD_FLEET_STATEMENT_H
#define TFD_FLEET_STATEMENT_H

#include "fleet_op.h"

/* OP's SQL, with its parameters filled into P (which starts empty):
 * CFG's replica, lease and keep, and the replica's BOUNDARY (ISO text, or
 * NULL before the first connection), for the kinds whose row of the
 * policy table says FLEET_SQL_OP. NULL for the others, which another
 * file writes (fleet_int.h), and for a batch's items, never sent alone. */
const char *fleet_statement_of(const struct fleet_config *cfg, const char *boundary,
			       const struct op *op, struct fleet_statement *p);

/* Frees what P's arrays hold (a batch's). */
void fleet_statement_free(struct fleet_statement *p);

#endif
