/* SPDX-License-Identifier: MIT */
/* fleet_sql: the text of each statement the fleet sends to PostgreSQL,
 * the creation of what is missing of its tables and tfd_runs' shape check
 * among them. Every value is a
 * parameter ($1, $2, ...): no job's or replica's name is ever part of the
 * text. fleet.c says what the parameters are and reads the answers. */
#ifndef TFD_FLEET_SQL_H
#define TFD_FLEET_SQL_H

/* How many finished rows one cleanup statement deletes at most. */
#define FLEET_KEEP_BATCH "1000"
#define FLEET_KEEP_BATCH_ROWS 1000

/* How many released rows one renewal takes at most; a renewal that took
 * that many renews again at once, for the rest (fleet__wins_renewed). */
#define FLEET_TAKE_ROWS "1000"
#define FLEET_TAKE_ROWS_MAX 1000

/* The start's answer (fleet_sql_start): its rows' columns. */
enum fleet_start_column {
	FLEET_START_BOUNDARY,  /* microseconds since the epoch, in every row */
	FLEET_START_NOW,       /* now(), microseconds, in every row */
	FLEET_START_COUNT,     /* the rows abandoned */
	FLEET_START_JOB,       /* a row abandoned (null in the first row) */
	FLEET_START_SCHEDULED, /* its instant, microseconds */
	FLEET_START_COLUMNS
};

/* The renewal's answer: one row each, of these columns. */
enum fleet_renew_column {
	FLEET_RENEW_WHAT, /* 'now', 'lost' (a key held, not renewed), 'taken',
			   * 'abandoned' (a run whose lease passed) */
	FLEET_RENEW_JOB,
	FLEET_RENEW_SCHEDULED, /* microseconds since the epoch */
	FLEET_RENEW_EXCLUSIVE, /* taken: --overlap skip's row */
	FLEET_RENEW_MANUAL,    /* taken: tfdctl run's */
	FLEET_RENEW_NOW,       /* now(), microseconds, in every row */
	FLEET_RENEW_REPLICA,   /* abandoned: the replica that held it */
	FLEET_RENEW_COLUMNS
};

/* How many differing jobs one check reports at most. */
#define FLEET_DIFFER_ROWS "100"

extern const char fleet_sql_setup[];
/* fleet_sql_ddl, for --fleet-sql: in fleet.h, the fleet's public face. */
extern const char fleet_sql_start[];
extern const char fleet_sql_attempt[];
extern const char fleet_sql_abandon[];
extern const char fleet_sql_renew[];
extern const char fleet_sql_keep_claim[];
extern const char fleet_sql_keep_delete[];
extern const char fleet_sql_keep_end[];
extern const char fleet_sql_hold[];
extern const char fleet_sql_beat[];
extern const char fleet_sql_release[];
extern const char fleet_sql_jobs[];
extern const char fleet_sql_differ[];
extern const char fleet_sql_pause[];
extern const char fleet_sql_resume[];
extern const char fleet_sql_view[];

#endif
