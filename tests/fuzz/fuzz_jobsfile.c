/* libFuzzer harness: jobs files. The input is the file's bytes. An accepted
 * file's entries are well formed (in line order, each kind with its own
 * fields, environments of NAME=VALUE), and every default name is a
 * non-empty base name; a refused one gets one line naming FILE:LINE. Every
 * input is read three times: as a jobs file, as a system crontab
 * (JOBS_SYSTEM), whose crontab lines carry a user field, and as a user's
 * crontab (JOBS_USER), which takes no tfd line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobsfile.h"
#include "shellword.h"

static void check_name(const char *command)
{
	char buf[64];
	size_t n = jobs_default_name(command, buf, sizeof(buf));

	if (n == 0 || n != strlen(buf) || strchr(buf, '/'))
		abort();
}

static void check_entry(const struct jobs_entry *e, unsigned flags)
{
	if (!e->text || !e->env || !e->shell || !*e->shell)
		abort();
	for (char **v = e->env; *v; v++)
		if (!strchr(*v, '=') || **v == '=')
			abort();
	switch (e->kind) {
	case JOBS_CRONTAB:
	case JOBS_REBOOT:
		if (!e->command || !*e->command || e->argv ||
		    (e->kind == JOBS_CRONTAB) != (e->schedule != NULL))
			abort();
		/* The user field is one non-empty word, in a system crontab
		 * only. */
		if ((flags & JOBS_SYSTEM) ? !e->user || !*e->user || strpbrk(e->user, " \t")
					  : e->user != NULL)
			abort();
		check_name(e->command);
		break;
	case JOBS_TFD:
		if ((flags & JOBS_USER) || e->command || e->schedule || e->input || e->user || !e->argv ||
		    e->argc < 1 || e->argv[e->argc] || e->argv[0][0] != '-')
			abort();
		break;
	default:
		abort();
	}
}

static void check_file(const uint8_t *data, size_t size, unsigned flags)
{
	struct jobs_file *f;
	char err[256];

	if (jobs_parse_as("jobs", (const char *)data, size, flags, &f, err, sizeof(err))) {
		if ((strncmp(err, "jobs:", 5) != 0 && strcmp(err, "out of memory") != 0) ||
		    strchr(err, '\n'))
			abort();
		return;
	}
	for (size_t i = 0; i < f->n; i++) {
		check_entry(&f->entries[i], flags);
		if (i > 0 && f->entries[i].line <= f->entries[i - 1].line)
			abort();
	}
	jobs_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_file(data, size, 0);
	check_file(data, size, JOBS_SYSTEM);
	check_file(data, size, JOBS_USER);
	return 0;
}
