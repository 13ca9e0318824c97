/* SPDX-License-Identifier: MIT */
/* fleet_params: the connection parameters of --fleet, read once by
 * fleet_new. Nothing here connects: libpq only parses CONNINFO. */
#ifndef TFD_FLEET_PARAMS_H
#define TFD_FLEET_PARAMS_H

#include <stdint.h>
#include <stddef.h>

#include "fleet_secrets.h"
#include "pq.h"

struct fleet_params {
	char **keywords, **values;    /* libpq's connection parameters, NULL-ended */
	int64_t answer_ns;            /* a connection or statement silent this long is dead */
	struct fleet_secrets secrets; /* scrubbed from every message of libpq's */
};

/* Fills F from CONNINFO (the user's parameters, then tfd's defaults for
 * keepalives and timeouts that neither CONNINFO nor a PG* variable set).
 * Returns 0, or the exit status (2: CONNINFO is bad, 1: out of memory)
 * with one line in err; a quoted part of libpq's message that is not a
 * parameter's name is shown as "...", as it may be a password, and no
 * part of a password is shown (fleet_secrets.h). A URI that libpq would
 * misread, or a port that is not a number, is a usage error. F is left
 * for fleet_params_free either way. */
int fleet_params_parse(struct fleet_params *f, const struct pq *pq, const char *conninfo, char *err,
		       size_t errlen);
void fleet_params_free(struct fleet_params *f);

/* A connection that could not be made (its host refused it, closed it
 * after accepting it, as a proxy whose server is gone does, or did not
 * answer): the next try begins at the next host of a multi-host CONNINFO
 * (its host, hostaddr and port lists turned by one). libpq, given the
 * list again, would stop at the same host each time and never reach a
 * promoted standby behind it. Nothing with one host. */
void fleet_params_next_host(struct fleet_params *f);

/* MSG (NULL: "unknown error") copied onto one line: libpq's messages end
 * in a newline and may have several; each run of blanks and line ends
 * becomes one space, none left at either end. NULL when out of memory. */
char *fleet_one_line(const char *msg);

#endif
