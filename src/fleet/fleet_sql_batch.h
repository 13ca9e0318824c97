/* SPDX-License-Identifier: MIT */
/* fleet_sql_batch: the statements that carry many rows at once (claims,
 * ends, a reconnected replica's recent wins), each row's columns in array
 * parameters taken apart with unnest; and the upgrade of a table made
 * before the state 'skipped'. Parameters as fleet_batch.c fills them. */
#ifndef TFD_FLEET_SQL_BATCH_H
#define TFD_FLEET_SQL_BATCH_H

extern const char fleet_sql_upgrade[];
extern const char fleet_sql_claims[];
extern const char fleet_sql_ends[];
extern const char fleet_sql_rewrite[];

#endif
