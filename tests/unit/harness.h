/* SPDX-License-Identifier: MIT */
/* harness: what tests that write files share: a scratch directory of their
 * own under /tmp, paths in it, its removal, and a watchdog that ends a test
 * that hangs (a FIFO opened without O_NONBLOCK, a read that never returns)
 * as a failure instead of hanging the suite. */
#ifndef TFD_TEST_HARNESS_H
#define TFD_TEST_HARNESS_H

/* Arms the watchdog (SECONDS, through alarm(2): SIGALRM kills the test)
 * and makes the scratch directory from TEMPLATE ("/tmp/NAME.XXXXXX",
 * filled in place). Exits 1 with a line on stderr when it cannot. */
void harness_start(char *template, unsigned seconds);

/* NAME in the scratch directory. The result lives until the fourth call
 * after this one, so that a few can be used at once. */
const char *harness_path(const char *name);

/* Removes PATH and everything below it; a line on stderr when it cannot. */
void harness_remove_tree(const char *path);

#endif
