/* SPDX-License-Identifier: MIT */
/* endpoints: what each path of --listen answers, from the loop's state
 * (http.h speaks the protocol; this reads the loop and changes nothing):
 * /metrics, /healthz, /readyz, /jobs, /jobs/NAME. */
#ifndef TFD_ENDPOINTS_H
#define TFD_ENDPOINTS_H

#include "http.h"

/* An http_answer_fn; ARG is the struct loop. */
void endpoints_answer(void *arg, const char *path, struct http_answer *out);

#endif
