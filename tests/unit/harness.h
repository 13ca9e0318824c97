/* SPDX-License-Identifier: MIT */
/* harness: what every unit test shares: its one pass/fail tally and
 * check(); and for tests that write files, a scratch directory of their
 * own under /tmp, paths in it, its removal, and a watchdog that ends a test
 * that hangs (a FIFO opened without O_NONBLOCK, a read that never returns)
 * as a failure instead of hanging the suite. */
#ifndef TFD_TEST_HARNESS_H
#define TFD_TEST_HARNESS_H

struct tally {
	int passed;
	int failed;
};

/* The test program's tally. */
extern struct tally tally;

/* Records one result in T; a failure prints a FAIL line with FILE:LINE and
 * the message. */
void tally_check(struct tally *t, int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* One check, counted in the program's tally, its message printed when OK
 * is false. */
#define check(ok, ...) tally_check(&tally, (ok), __FILE__, __LINE__, __VA_ARGS__)

/* Prints "NAME: N passed, N failed" and returns the process exit status. */
int tally_finish(const struct tally *t, const char *name);

/* Arms the watchdog (SECONDS, through alarm(2): SIGALRM kills the test)
 * and makes the scratch directory from TEMPLATE ("/tmp/NAME.XXXXXX",
 * filled in place). Exits 1 with a line on stderr when it cannot. */
void harness_start(char *template, unsigned seconds);

/* NAME in the scratch directory. The result lives until the fourth call
 * after this one, so that a few can be used at once. */
const char *harness_path(const char *name);

/* Removes PATH and everything below it; a line on stderr when it cannot. */
void harness_remove_tree(const char *path);

/* Everything written so far to the file at FD (from its start), as a
 * string to free; aborts when it cannot be read. */
char *harness_file_text(int fd);

/* True when the child PID is still running (not yet a zombie) after a
 * short wait: what a test checks of a child it expects not to end yet. */
int harness_still_running(int pid);

#endif
