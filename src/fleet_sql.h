/* fleet_sql: the text of each statement the fleet sends to PostgreSQL,
 * tfd_runs' creation and its shape check among them. Every value is a
 * parameter ($1, $2, ...): no job's or replica's name is ever part of the
 * text. fleet.c says what the parameters are and reads the answers. */
#ifndef TFD_FLEET_SQL_H
#define TFD_FLEET_SQL_H

/* How many finished rows one cleanup statement deletes at most. */
#define FLEET_KEEP_BATCH      "1000"
#define FLEET_KEEP_BATCH_ROWS 1000

extern const char fleet_sql_setup[];
extern const char fleet_sql_start[];
extern const char fleet_sql_attempt[];
extern const char fleet_sql_abandon[];
extern const char fleet_sql_renew[];
extern const char fleet_sql_keep_claim[];
extern const char fleet_sql_keep_delete[];

#endif
