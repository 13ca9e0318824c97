/* SPDX-License-Identifier: MIT */
#include "harness.h"
#include "tsv.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *scratch;

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
