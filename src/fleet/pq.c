/* SPDX-License-Identifier: MIT */
#include "pq.h"

#include <stdio.h>
#include <string.h>

#ifdef TFD_NO_FLEET

int pq_load(struct pq *pq, char *err, size_t errlen)
{
	*pq = (struct pq){ 0 };
	snprintf(err, errlen,
		 "--fleet: this tfd was built without the fleet (a static "
		 "build cannot load libpq); use the dynamic tfd");
	return -1;
}

void pq_unload(struct pq *pq)
{
	*pq = (struct pq){ 0 };
}

#else

#include <dlfcn.h>
#include <stddef.h>

#include "dlsyms.h"

/* Debian's libpq5 and every distribution's libpq: the soname, not the
 * development link libpq.so, which only libpq-dev installs. */
#define PQ_LIBRARY "libpq.so.5"

/* Each slot of struct pq and the symbol that fills it. */
/* clang-format off */
#define PQ_SYMBOLS(X) \
	X(conninfo_parse, PQconninfoParse) X(conninfo_free, PQconninfoFree) \
	X(freemem, PQfreemem) X(connect_start_params, PQconnectStartParams) \
	X(connect_poll, PQconnectPoll) X(status, PQstatus) X(socket, PQsocket) \
	X(error_message, PQerrorMessage) X(finish, PQfinish) \
	X(set_nonblocking, PQsetnonblocking) X(set_notice_processor, PQsetNoticeProcessor) \
	X(enter_pipeline_mode, PQenterPipelineMode) X(pipeline_sync, PQpipelineSync) \
	X(send_query_params, PQsendQueryParams) X(flush, PQflush) \
	X(consume_input, PQconsumeInput) X(is_busy, PQisBusy) X(get_result, PQgetResult) \
	X(result_status, PQresultStatus) X(result_error_message, PQresultErrorMessage) \
	X(result_error_field, PQresultErrorField) X(ntuples, PQntuples) X(nfields, PQnfields) \
	X(get_value, PQgetvalue) X(get_is_null, PQgetisnull) X(clear, PQclear)
/* clang-format on */

#define PQ_SLOT(slot, symbol) { #symbol, offsetof(struct pq, slot) },
static const struct dl_symbol pq_symbols[] = { PQ_SYMBOLS(PQ_SLOT) };
#undef PQ_SLOT

int pq_load(struct pq *pq, char *err, size_t errlen)
{
	const char *missing;

	*pq = (struct pq){ 0 };
	pq->handle = dlopen(PQ_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!pq->handle) {
		snprintf(err, errlen,
			 "--fleet needs libpq (PostgreSQL's client library, "
			 "Debian's libpq5): %s",
			 dlerror());
		return -1;
	}
	missing = dl_resolve(pq->handle, pq, pq_symbols, sizeof pq_symbols / sizeof pq_symbols[0]);
	if (missing) {
		snprintf(err, errlen,
			 "--fleet: %s has no %s: libpq 14 or later is needed "
			 "(its pipeline mode; the server may be PostgreSQL 12 or later)",
			 PQ_LIBRARY, missing);
		pq_unload(pq);
		return -1;
	}
	return 0;
}

void pq_unload(struct pq *pq)
{
	if (pq->handle)
		dlclose(pq->handle);
	*pq = (struct pq){ 0 };
}

#endif
