/* SPDX-License-Identifier: MIT */
/* serve: what serves the loop from above it (loopconfig.h's struct
 * loop_serve, which tfd.c hands loop_run): --control's socket and
 * commands, --listen's endpoints, tfdctl's answers to the loop's news,
 * and the table of the loop's owners, built here because this floor sees
 * every owner: the fleet's client, reload, the mailer, --listen,
 * --control (serve_owners in serve.c). A new owner is one row there. */
#ifndef TFD_SERVE_H
#define TFD_SERVE_H

#include "loopconfig.h"

extern const struct loop_serve serve_loop;

#endif
