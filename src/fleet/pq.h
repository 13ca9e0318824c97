/* SPDX-License-Identifier: MIT */
/* pq: the few functions of libpq (PostgreSQL's client library) that the
 * fleet uses, found with dlopen when --fleet is given and not before, so a
 * tfd without --fleet neither links nor maps libpq: its start-up and size
 * stay as they were. The types below are libpq's own, declared here as
 * libpq 5's ABI fixes them (libpq-fe.h is not needed to build tfd, nor
 * installed for the cross builds); tests/fleet/pq_abi.c checks them
 * against libpq-fe.h (tests/bats/75-fleet.bats). A build with TFD_NO_FLEET
 * (the static one) has no dlopen: pq_load says so. */
#ifndef TFD_PQ_H
#define TFD_PQ_H

#include <stddef.h>

typedef struct pg_conn pq_conn;
typedef struct pg_result pq_result;
typedef unsigned int pq_oid;
typedef void (*pq_notice_fn)(void *arg, const char *message);

/* PQconninfoOption */
struct pq_option {
	char *keyword, *envvar, *compiled, *val, *label, *dispchar;
	int dispsize;
};

/* ConnStatusType, PostgresPollingStatusType, ExecStatusType: the values
 * used here. */
enum { PQ_CONNECTION_OK = 0, PQ_CONNECTION_BAD = 1 };
enum { PQ_POLLING_FAILED = 0, PQ_POLLING_READING = 1, PQ_POLLING_WRITING = 2, PQ_POLLING_OK = 3 };
/* PGRES_PIPELINE_SYNC and PGRES_PIPELINE_ABORTED (libpq's PQ_PIPELINE_*
 * names are its PGpipelineStatus's). */
enum { PQ_COMMAND_OK = 1, PQ_TUPLES_OK = 2, PQ_RESULT_SYNC = 10, PQ_RESULT_ABORTED = 11 };
/* PG_DIAG_SQLSTATE, PG_DIAG_MESSAGE_PRIMARY, PG_DIAG_SEVERITY_NONLOCALIZED */
#define PQ_DIAG_SQLSTATE 'C'
#define PQ_DIAG_MESSAGE_PRIMARY 'M'
#define PQ_DIAG_SEVERITY 'V'

struct pq {
	void *handle;
	struct pq_option *(*conninfo_parse)(const char *conninfo, char **errmsg);
	void (*conninfo_free)(struct pq_option *options);
	void (*freemem)(void *p);
	pq_conn *(*connect_start_params)(const char *const *keywords, const char *const *values,
					 int expand_dbname);
	int (*connect_poll)(pq_conn *conn);
	int (*status)(const pq_conn *conn);
	int (*socket)(const pq_conn *conn);
	char *(*error_message)(const pq_conn *conn);
	void (*finish)(pq_conn *conn);
	int (*set_nonblocking)(pq_conn *conn, int arg);
	/* Pipeline mode (libpq 14 and later): statements sent without waiting
	 * for the answers of those before them, each followed by a sync. */
	int (*enter_pipeline_mode)(pq_conn *conn);
	int (*pipeline_sync)(pq_conn *conn);
	pq_notice_fn (*set_notice_processor)(pq_conn *conn, pq_notice_fn proc, void *arg);
	int (*send_query_params)(pq_conn *conn, const char *command, int n, const pq_oid *types,
				 const char *const *values, const int *lengths, const int *formats,
				 int result_format);
	int (*flush)(pq_conn *conn);
	int (*consume_input)(pq_conn *conn);
	int (*is_busy)(pq_conn *conn);
	pq_result *(*get_result)(pq_conn *conn);
	int (*result_status)(const pq_result *res);
	char *(*result_error_message)(const pq_result *res);
	char *(*result_error_field)(const pq_result *res, int field);
	int (*ntuples)(const pq_result *res);
	int (*nfields)(const pq_result *res);
	char *(*get_value)(const pq_result *res, int row, int field);
	int (*get_is_null)(const pq_result *res, int row, int field);
	void (*clear)(pq_result *res);
};

/* Loads libpq.so.5 and resolves every function above. Returns 0, or -1
 * with err saying why (not installed, a symbol missing: a libpq older
 * than 14, which has no pipeline mode; a build without the fleet). */
int pq_load(struct pq *pq, char *err, size_t errlen);
void pq_unload(struct pq *pq);

#endif
