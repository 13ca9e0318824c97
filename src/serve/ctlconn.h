/* SPDX-License-Identifier: MIT */
/* ctlconn: tfdctl's side of the control socket: one request sent and its
 * one-line answer read, within deadlines, to a tfd it trusts. A stopped
 * or wedged tfd never hangs tfdctl (nor a shell's Tab); a process that
 * answers at the path but runs as another user than tfdctl's or root is
 * not talked to (SO_PEERCRED); a socket tfdctl may not open is said to be
 * whose it is, not "no tfd answers". Every failure is one line on stderr. */
#ifndef TFD_CTLCONN_H
#define TFD_CTLCONN_H

#include <stdint.h>

#include "jsonw.h"

struct ctlconn {
	const char *path;         /* the socket */
	const char *timeout_text; /* --timeout as given, for messages ("10s": none given) */
	int64_t send_ns;          /* how long connecting and sending may take; -1: no limit */
	int64_t answer_ns;        /* how long the answer may take then; -1: no limit */
};

/* Sends REQ (its line) to the tfd at CC's path and reads its answer's
 * line into ANSWER (without the newline). Returns 0, or -1 with one line
 * on stderr: no tfd there, permission denied, a peer not trusted, no
 * answer in time, the connection closed first. */
int ctlconn_talk(const struct ctlconn *cc, const struct jsonw *req, struct jsonw *answer);

#endif
