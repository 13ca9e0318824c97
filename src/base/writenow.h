/* SPDX-License-Identifier: MIT */
/* writenow: the one loop that writes to a non-blocking descriptor without
 * waiting, for tfd's own stdout and stderr (output.c) and a sendmail's
 * stdin (mailer.c): as much as the descriptor takes now, a write that a
 * signal interrupted tried again, the rest left for when poll() says it
 * takes more. */
#ifndef TFD_WRITENOW_H
#define TFD_WRITENOW_H

#include <stddef.h>
#include <sys/types.h>

/* One write of up to LEN bytes at BUF, as the caller's descriptor wants
 * it (write(2), send(2), a chunk after poll()): what write(2) returns,
 * with errno. */
typedef ssize_t (*write_fn)(void *arg, const char *buf, size_t len);

/* write(2) on the descriptor at ARG (an int *). */
ssize_t write_fd(void *arg, const char *buf, size_t len);

/* Writes BUF[*OFF..LEN) through FN until all is written or the descriptor
 * takes no more, moving *OFF past what went. Returns 0 when all went,
 * EAGAIN when the rest must wait, or the errno of the write that failed
 * (EIO for one that wrote nothing and gave no error). */
int write_now(const char *buf, size_t len, size_t *off, write_fn fn, void *arg);

#endif
