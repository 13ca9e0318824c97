/* SPDX-License-Identifier: MIT */
/* Checks src/fleet/pq.h's declarations of libpq's types against libpq-fe.h:
 * compiled, not run (tests/bats/75-fleet.bats), where libpq-dev is
 * installed. */
#include <libpq-fe.h>
#include <stddef.h>

#include "pq.h"

#define SAME_FIELD(f) \
	_Static_assert(offsetof(PQconninfoOption, f) == offsetof(struct pq_option, f), #f)

SAME_FIELD(keyword);
SAME_FIELD(envvar);
SAME_FIELD(compiled);
SAME_FIELD(val);
SAME_FIELD(label);
SAME_FIELD(dispchar);
SAME_FIELD(dispsize);
_Static_assert(sizeof(PQconninfoOption) == sizeof(struct pq_option), "size");
#define SAME_VALUE(a, b) _Static_assert((int)(a) == (int)(b), #a)

SAME_VALUE(CONNECTION_OK, PQ_CONNECTION_OK);
SAME_VALUE(CONNECTION_BAD, PQ_CONNECTION_BAD);
SAME_VALUE(PGRES_POLLING_FAILED, PQ_POLLING_FAILED);
SAME_VALUE(PGRES_POLLING_READING, PQ_POLLING_READING);
SAME_VALUE(PGRES_POLLING_WRITING, PQ_POLLING_WRITING);
SAME_VALUE(PGRES_POLLING_OK, PQ_POLLING_OK);
SAME_VALUE(PGRES_COMMAND_OK, PQ_COMMAND_OK);
SAME_VALUE(PGRES_TUPLES_OK, PQ_TUPLES_OK);
SAME_VALUE(PGRES_PIPELINE_SYNC, PQ_RESULT_SYNC);
SAME_VALUE(PGRES_PIPELINE_ABORTED, PQ_RESULT_ABORTED);
_Static_assert(PG_DIAG_SQLSTATE == PQ_DIAG_SQLSTATE, "sqlstate");
_Static_assert(PG_DIAG_MESSAGE_PRIMARY == PQ_DIAG_MESSAGE_PRIMARY, "primary message");
_Static_assert(PG_DIAG_SEVERITY_NONLOCALIZED == PQ_DIAG_SEVERITY, "severity");
_Static_assert(sizeof(Oid) == sizeof(pq_oid), "oid");

/* The slots whose types name no enum must take libpq's functions as they
 * are (with -Werror, a mismatch fails the build); the others return or
 * take an enum, which has the ABI of an int, or PQconninfoOption, whose
 * layout is checked above. */
int main(void)
{
	struct pq pq = { 0 };

	pq.freemem = PQfreemem;
	pq.connect_start_params = PQconnectStartParams;
	pq.socket = PQsocket;
	pq.error_message = PQerrorMessage;
	pq.finish = PQfinish;
	pq.set_nonblocking = PQsetnonblocking;
	pq.set_notice_processor = PQsetNoticeProcessor;
	pq.enter_pipeline_mode = PQenterPipelineMode;
	pq.pipeline_sync = PQpipelineSync;
	pq.send_query_params = PQsendQueryParams;
	pq.flush = PQflush;
	pq.consume_input = PQconsumeInput;
	pq.is_busy = PQisBusy;
	pq.get_result = PQgetResult;
	pq.result_error_message = PQresultErrorMessage;
	pq.result_error_field = PQresultErrorField;
	pq.ntuples = PQntuples;
	pq.nfields = PQnfields;
	pq.get_value = PQgetvalue;
	pq.get_is_null = PQgetisnull;
	pq.clear = PQclear;
	return pq.handle == NULL ? 0 : 1;
}
