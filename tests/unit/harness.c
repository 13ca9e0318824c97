/* SPDX-License-Identifier: MIT */
#include "harness.h"
#include "tsv.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct tally tally;

static const char *scratch;

void tally_check(struct tally *t, int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		t->passed++;
		return;
	}
	t->failed++;
	fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int tally_finish(const struct tally *t, const char *name)
{
	printf("%s: %d passed, %d failed\n", name, t->passed, t->failed);
	return t->failed ? 1 : 0;
}

void harness_start(char *template, unsigned seconds)
{
	alarm(seconds);
	if (!mkdtemp(template)) {
		perror("mkdtemp");
		exit(1);
	}
	scratch = template;
}

const char *harness_path(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	return path_join(buf[k], sizeof buf[k], scratch, name);
}

void harness_remove_tree(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", path);
}

char *harness_file_text(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *text = len >= 0 ? calloc(1, (size_t)len + 1) : NULL;

	if (!text || pread(fd, text, (size_t)len, 0) != len)
		abort();
	return text;
}

int harness_still_running(int pid)
{
	siginfo_t si = { 0 };

	usleep(200000);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}
