#include "jobtable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "jobsfile.h"

#define NAME_MAX_LEN 256

void job_table_free(struct job_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		job_free(t->jobs[i]);
	free(t->jobs);
	*t = (struct job_table){ 0 };
}

/* Reading the file */

static int read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0) {
		snprintf(err, errlen, "--jobs '%s': %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(cap);
	for (;;) {
		ssize_t got;

		if (!buf) {
			close(fd);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "--jobs '%s': read: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n == cap) {
			char *more = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;

			if (!more)
				free(buf);
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	*text = buf;
	*len = n;
	return 0;
}

/* Lines into options */

static int set_text(char **field, const char *value)
{
	free(*field);
	*field = value ? strdup(value) : NULL;
	return value && !*field ? -1 : 0;
}

/* A crontab line is the defaults plus its schedule and its command, run
 * by the file's shell. Its clock is realtime: a default clock that is not
 * a wall clock belongs to the tfd lines. */
static int crontab_options(const struct jobs_entry *e, const struct job_options *defaults,
			   struct job_options *o)
{
	if (job_options_copy(o, defaults) != 0)
		return -1;
	if (o->clock && strcmp(o->clock, "realtime-alarm") != 0 && set_text(&o->clock, NULL) != 0)
		return -1;
	if (e->kind == JOBS_REBOOT)
		return set_text(&o->delay, "0") || set_text(&o->exec, e->command);
	return set_text(&o->cron, e->schedule) || set_text(&o->exec, e->command);
}

static int entry_options(const struct jobs_entry *e, const struct job_options *defaults,
			 struct job_options *o, char *err, size_t errlen)
{
	if (e->kind == JOBS_TFD)
		return options_read_job_line(e->argv, defaults, o, err, errlen);
	if (crontab_options(e, defaults, o) != 0) {
		job_options_free(o);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Names */

/* The names given so far, in a hash set with, for each default name, the
 * next suffix to try, so that naming N jobs costs O(N) however many share
 * a base name. A name must stay allocated while the set is used (it is a
 * job's name). */
static const char *name_key(const void *name)
{
	return name;
}

static bool name_taken(const struct hash_set *ns, const char *name)
{
	return hash_set_find(ns, name) != NULL;
}

static void name_add(struct hash_set *ns, const char *name)
{
	if (!name_taken(ns, name))
		hash_set_add(ns, name, 2);
}

static void default_name(const struct job_options *o, char *buf, size_t len)
{
	if (o->command)
		jobs_word_name(o->command[0], buf, len);
	else
		jobs_default_name(o->exec ? o->exec : "", buf, len);
	if (!buf[0])
		snprintf(buf, len, "job");
}

/* BASE, else BASE-2, BASE-3, ...: the first not yet taken. BASE's entry
 * remembers where the search for BASE stopped. */
static char *unique_name(struct hash_set *ns, const char *base)
{
	char name[NAME_MAX_LEN + 24];
	struct hash_entry *entry = hash_set_find(ns, base);
	size_t k;

	if (!entry)
		return strdup(base);
	for (k = entry->value;; k++) {
		snprintf(name, sizeof name, "%s-%zu", base, k);
		if (!name_taken(ns, name))
			break;
	}
	entry->value = k + 1;
	return strdup(name);
}

/* What a reload compares: the name, the line and what it sees. */
static char *identity_of(const struct job *j, const struct jobs_entry *e)
{
	size_t len = strlen(j->name) + strlen(e->text) + 3;
	char *id, *p;

	for (size_t i = 0; e->env && e->env[i]; i++)
		len += strlen(e->env[i]) + 1;
	id = malloc(len);
	if (!id)
		return NULL;
	p = id + sprintf(id, "%s\n%s\n", j->name, e->text);
	for (size_t i = 0; e->env && e->env[i]; i++)
		p += sprintf(p, "%s\n", e->env[i]);
	return id;
}

/* The table */

struct building {
	struct jobs_source *src;
	const struct jobs_file *file;
	struct job **jobs;
	struct job_options *opts;
	size_t n;
};

/* How much of a line a message that quotes nothing else shows. */
#define LINE_SHOWN_MAX 80

static int line_error(const struct building *b, const struct jobs_entry *e, int status,
		      const char *why, char *err, size_t errlen)
{
	size_t len = strlen(e->text);

	/* Every error names the bad text: one that quotes none ("no command")
	 * is about the whole line, which is shown. */
	if (strchr(why, '\'') || status == 1)
		snprintf(err, errlen, "%s:%u: %s", b->src->path, e->line, why);
	else
		snprintf(err, errlen, "%s:%u: bad %s line '%.*s%s': %s", b->src->path, e->line,
			 e->kind == JOBS_TFD ? "tfd" : "crontab",
			 (int)(len < LINE_SHOWN_MAX ? len : LINE_SHOWN_MAX), e->text,
			 len > LINE_SHOWN_MAX ? "..." : "", why);
	return status;
}

static int build_entry(struct building *b, size_t i, char *err, size_t errlen)
{
	const struct jobs_entry *e = &b->file->entries[i];
	struct job_context ctx = b->src->ctx;
	char why[7680];
	int status;

	if (entry_options(e, b->src->defaults, &b->opts[i], why, sizeof why) != 0)
		return line_error(b, e, 2, why, err, errlen);
	ctx.in_file = true;
	ctx.env = e->env;
	/* The file's SHELL runs its crontab lines; --exec is /bin/sh's, as on
	 * the command line. */
	ctx.shell = e->kind == JOBS_TFD ? NULL : e->shell;
	ctx.zone_name = e->cron_tz;
	ctx.input = e->input;
	status = job_build(&b->opts[i], &ctx, &b->jobs[i], why, sizeof why);
	if (status != 0)
		return line_error(b, e, status, why, err, errlen);
	b->jobs[i]->line = e->line;
	b->jobs[i]->reboot = e->kind == JOBS_REBOOT;
	if (!b->jobs[i]->format && b->src->tick_format &&
	    !(b->jobs[i]->format = strdup(b->src->tick_format)))
		return line_error(b, e, 1, "out of memory", err, errlen);
	return 0;
}

/* Explicit names first (twice is an error), then the default ones. */
static int assign_names(struct building *b, struct hash_set *ns, char *err, size_t errlen)
{
	for (size_t i = 0; i < b->n; i++) {
		const char *name = b->opts[i].name;

		if (!name)
			continue;
		if (!name[0] || name_taken(ns, name)) {
			const struct jobs_entry *e = &b->file->entries[i];
			char why[512];

			snprintf(why, sizeof why, "--name '%.256s': %s", name,
				 name[0] ? "already the name of another job" : "must not be empty");
			return line_error(b, e, 2, why, err, errlen);
		}
		if (!(b->jobs[i]->name = strdup(name)))
			return line_error(b, &b->file->entries[i], 1, "out of memory", err, errlen);
		name_add(ns, b->jobs[i]->name);
	}
	for (size_t i = 0; i < b->n; i++) {
		char base[NAME_MAX_LEN];

		if (b->jobs[i]->name)
			continue;
		default_name(&b->opts[i], base, sizeof base);
		if (!(b->jobs[i]->name = unique_name(ns, base)))
			return line_error(b, &b->file->entries[i], 1, "out of memory", err, errlen);
		name_add(ns, b->jobs[i]->name);
	}
	for (size_t i = 0; i < b->n; i++)
		if (!(b->jobs[i]->identity = identity_of(b->jobs[i], &b->file->entries[i])))
			return line_error(b, &b->file->entries[i], 1, "out of memory", err, errlen);
	return 0;
}

static int name_jobs(struct building *b, char *err, size_t errlen)
{
	struct hash_set ns;
	int status = hash_set_init(&ns, b->n, name_key) == 0 ? assign_names(b, &ns, err, errlen)
							     : (snprintf(err, errlen, "out of memory"), 1);

	hash_set_free(&ns);
	return status;
}
static int open_jobs(struct building *b, char *err, size_t errlen)
{
	for (size_t i = 0; i < b->n; i++) {
		char why[7680];
		int status = job_open(b->jobs[i], &b->opts[i], &b->src->ctx, why, sizeof why);

		if (status != 0)
			return line_error(b, &b->file->entries[i], status, why, err, errlen);
	}
	return 0;
}

static int build_table(struct building *b, char *err, size_t errlen)
{
	int status = 0;

	b->n = b->file->n;
	b->jobs = calloc(b->n + 1, sizeof *b->jobs);
	b->opts = calloc(b->n + 1, sizeof *b->opts);
	if (!b->jobs || !b->opts) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	for (size_t i = 0; i < b->n && status == 0; i++)
		status = build_entry(b, i, err, errlen);
	if (status == 0)
		status = name_jobs(b, err, errlen);
	if (status == 0)
		status = open_jobs(b, err, errlen);
	return status;
}

static bool same_text(const struct jobs_source *src, const char *text, size_t len)
{
	return src->last_text && src->last_len == len && memcmp(src->last_text, text, len) == 0;
}

int jobs_source_load(struct jobs_source *src, struct job_table *out, bool forced,
		     int *status, char *err, size_t errlen)
{
	struct building b = { .src = src };
	char *text;
	size_t len;

	*status = 2;
	if (read_file(src->path, &text, &len, err, errlen) != 0)
		return -1;
	if (!forced && same_text(src, text, len)) {
		free(text);
		return 1;
	}
	if (jobs_parse(src->path, text, len, (struct jobs_file **)&b.file, err, errlen) != 0) {
		free(text);
		return -1;
	}
	if (b.file->mailto_line && !src->warned_mailto) {
		fprintf(stderr, "tfd: warning: %s:%u: MAILTO is ignored: tfd sends no mail\n",
			src->path, b.file->mailto_line);
		src->warned_mailto = true;
	}
	*status = build_table(&b, err, errlen);
	for (size_t i = 0; b.opts && i < b.n; i++)
		job_options_free(&b.opts[i]);
	free(b.opts);
	jobs_free((struct jobs_file *)b.file);
	if (*status != 0) {
		struct job_table t = { b.jobs, b.n };

		job_table_free(&t);
		free(text);
		return -1;
	}
	free(src->last_text);
	src->last_text = text;
	src->last_len = len;
	*out = (struct job_table){ b.jobs, b.n };
	return 0;
}

int jobs_source_reload(void *src, struct job_table *out, bool forced, char *err, size_t errlen)
{
	int status;

	return jobs_source_load(src, out, forced, &status, err, errlen);
}

void jobs_source_free(struct jobs_source *src)
{
	free(src->last_text);
	src->last_text = NULL;
}

int job_table_single(const struct job_options *o, const struct job_context *ctx,
		     struct job_table *out, char *err, size_t errlen)
{
	struct job *j = NULL;
	char base[NAME_MAX_LEN];
	int status = job_build(o, ctx, &j, err, errlen);

	if (status == 0)
		status = job_open(j, o, ctx, err, errlen);
	if (status == 0 && o->name && !o->name[0]) {
		snprintf(err, errlen, "--name '': must not be empty");
		status = 2;
	}
	if (status == 0) {
		if (o->command)
			jobs_word_name(o->command[0], base, sizeof base);
		else if (o->exec)
			jobs_default_name(o->exec, base, sizeof base);
		else
			snprintf(base, sizeof base, "tfd");
		if (!base[0])
			snprintf(base, sizeof base, "tfd");
		j->name = strdup(o->name ? o->name : base);
		j->identity = strdup("");
		out->jobs = calloc(1, sizeof *out->jobs);
		if (!j->name || !j->identity || !out->jobs) {
			snprintf(err, errlen, "out of memory");
			status = 1;
		}
	}
	if (status != 0) {
		job_free(j);
		free(out->jobs);
		*out = (struct job_table){ 0 };
		return status;
	}
	out->jobs[0] = j;
	out->n = 1;
	return 0;
}
