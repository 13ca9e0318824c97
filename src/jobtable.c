#include "jobtable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "hash.h"
#include "jobsdir.h"
#include "jobsfile.h"
#include "runuser.h"
#include "shellword.h"
#include "timens.h"

#define NAME_MAX_LEN 256

void job_table_free(struct job_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		job_free(t->jobs[i]);
	free(t->jobs);
	*t = (struct job_table){ 0 };
}

size_t job_table_line_max(const struct job_table *t)
{
	size_t cap = REPORT_LINE_MAX;

	for (size_t i = 0; i < t->n; i++)
		if (job_line_max(t->jobs[i]) > cap)
			cap = job_line_max(t->jobs[i]);
	return cap;
}

/* Reading the file */

/* The file at PATH opened for reading, with its size, or -1 with err
 * filled. O_NONBLOCK: a FIFO put at PATH (before a start, or before a
 * reload, which runs in the event loop) must not block tfd in open(); it is
 * then refused, as every kind of file but a regular one is. */
static int open_jobs_file(const char *path, off_t *size, char *err, size_t errlen)
{
	struct stat st;
	const char *why;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0 || fstat(fd, &st) != 0)
		why = strerror(errno);
	else
		why = not_regular_why(st.st_mode);
	if (!why) {
		*size = st.st_size;
		return fd;
	}
	snprintf(err, errlen, "--jobs '%s': %s", path, why);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Reads FD to its end into a new buffer, but never more than MAX + 1 bytes,
 * starting with room for SIZE, what fstat() said. Returns 0; 1 when there
 * was more than MAX (the file grew, or its size said nothing, as in /proc);
 * -1 with errno. */
static int read_at_most(int fd, off_t size, size_t max, char **text, size_t *len)
{
	size_t cap = (size_t)size < max ? (size_t)size + 1 : max + 1, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -1;
	for (;;) {
		ssize_t got;

		if (n == cap) {
			size_t more = cap <= (max + 1) / 2 ? cap * 2 : max + 1;
			char *bigger = cap > max ? NULL : realloc(buf, more);

			if (!bigger) {
				free(buf);
				return cap > max ? 1 : -1;
			}
			buf = bigger;
			cap = more;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	*text = buf;
	*len = n;
	return 0;
}

int jobs_file_read(const char *path, size_t max, char **text, size_t *len, char *err,
		   size_t errlen)
{
	off_t size;
	int fd = open_jobs_file(path, &size, err, errlen), rc;

	if (fd < 0)
		return -1;
	/* The size first: a huge file is refused without reading any of it. */
	rc = (uintmax_t)size > max ? 1 : read_at_most(fd, size, max, text, len);
	if (rc > 0)
		snprintf(err, errlen, "--jobs '%s': too large: more than %zu bytes", path, max);
	else if (rc < 0 && errno == ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc < 0)
		snprintf(err, errlen, "--jobs '%s': read: %s", path, strerror(errno));
	close(fd);
	return rc == 0 ? 0 : -1;
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
	/* A system crontab's user field is the line's --user. */
	if (e->user && set_text(&o->user, e->user) != 0)
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

/* The names given so far, in the one hash set with, for each default
 * name, the next suffix to try, so that naming N jobs costs O(N) however
 * many share a base name. A name must stay allocated while the set is used
 * (it is a job's name). */
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

int job_names_default(struct job **jobs, size_t n)
{
	struct hash_set ns;
	int rc = 0;

	if (hash_set_init(&ns, n, name_key) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (jobs[i]->name)
			name_add(&ns, jobs[i]->name);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (jobs[i]->name || !jobs[i]->name_base)
			continue;
		if (!(jobs[i]->name = unique_name(&ns, jobs[i]->name_base)))
			rc = -1;
		else
			name_add(&ns, jobs[i]->name);
	}
	hash_set_free(&ns);
	return rc;
}

/* What a reload compares: the line and what it sees. Not the name: a
 * default name changes when a line above takes it. */
static char *identity_of(const struct jobs_entry *e)
{
	size_t len = strlen(e->text) + 2;
	char *id, *p;

	for (size_t i = 0; e->env && e->env[i]; i++)
		len += strlen(e->env[i]) + 1;
	id = malloc(len);
	if (!id)
		return NULL;
	p = id + sprintf(id, "%s\n", e->text);
	for (size_t i = 0; e->env && e->env[i]; i++)
		p += sprintf(p, "%s\n", e->env[i]);
	return id;
}

/* The table */

/* One job line of one of the files. */
struct line_ref {
	const struct jobs_entry *e;
	const char *file;
};

struct building {
	struct jobs_source *src;
	struct line_ref *lines;      /* every file's lines, in load order */
	struct job **jobs;
	struct job_options *opts;
	size_t n;
	struct run_user_cache users; /* each --user looked up once a load */
};

/* How much of a line a message that quotes nothing else shows. */
#define LINE_SHOWN_MAX 80

static int line_error(const struct building *b, size_t i, int status,
		      const char *why, char *err, size_t errlen)
{
	const struct jobs_entry *e = b->lines[i].e;
	const char *file = b->lines[i].file;
	size_t len = strlen(e->text);

	/* Every error names the bad text: one that quotes none ("no command")
	 * is about the whole line, which is shown. */
	if (strchr(why, '\'') || status == 1)
		snprintf(err, errlen, "%s:%u: %s", file, e->line, why);
	else
		snprintf(err, errlen, "%s:%u: bad %s line '%.*s%s': %s", file, e->line,
			 e->kind == JOBS_TFD ? "tfd" : "crontab",
			 (int)(len < LINE_SHOWN_MAX ? len : LINE_SHOWN_MAX), e->text,
			 len > LINE_SHOWN_MAX ? "..." : "", why);
	return status;
}

static int build_entry(struct building *b, size_t i, char *err, size_t errlen)
{
	const struct jobs_entry *e = b->lines[i].e;
	struct job_context ctx = b->src->ctx;
	char why[7680];
	int status;

	if (entry_options(e, b->src->defaults, &b->opts[i], why, sizeof why) != 0)
		return line_error(b, i, 2, why, err, errlen);
	ctx.in_file = true;
	ctx.env = e->env;
	/* The file's SHELL runs its crontab lines; --exec is /bin/sh's, as on
	 * the command line. */
	ctx.shell = e->kind == JOBS_TFD ? NULL : e->shell;
	ctx.zone_name = e->cron_tz;
	ctx.input = e->input;
	ctx.reboot = e->kind == JOBS_REBOOT;
	if (b->opts[i].user &&
	    (status = run_user_cached(&b->users, b->opts[i].user, &ctx.user, why, sizeof why)) != 0) {
		char named[sizeof why + 2];

		/* A crontab line's user field is not an option: "user 'x'". */
		snprintf(named, sizeof named, "%s%s", e->user ? "" : "--", why);
		return line_error(b, i, status, named, err, errlen);
	}
	status = job_build(&b->opts[i], &ctx, &b->jobs[i], why, sizeof why);
	if (status != 0)
		return line_error(b, i, status, why, err, errlen);
	b->jobs[i]->line = e->line;
	b->jobs[i]->reboot = e->kind == JOBS_REBOOT;
	if (!b->jobs[i]->format && b->src->tick_format &&
	    !(b->jobs[i]->format = strdup(b->src->tick_format)))
		return line_error(b, i, 1, "out of memory", err, errlen);
	return 0;
}

/* Explicit names first (twice is an error), then the default ones. */
static int assign_names(struct building *b, char *err, size_t errlen)
{
	struct hash_set explicit;

	if (hash_set_init(&explicit, b->n, name_key) != 0)
		return snprintf(err, errlen, "out of memory"), 1;
	for (size_t i = 0; i < b->n; i++) {
		const char *name = b->opts[i].name;

		if (!name)
			continue;
		if (!name[0] || name_taken(&explicit, name)) {
			char why[512];

			hash_set_free(&explicit);
			snprintf(why, sizeof why, "--name '%.256s': %s", name,
				 name[0] ? "already the name of another job" : "must not be empty");
			return line_error(b, i, 2, why, err, errlen);
		}
		if (!(b->jobs[i]->name = strdup(name))) {
			hash_set_free(&explicit);
			return line_error(b, i, 1, "out of memory", err, errlen);
		}
		name_add(&explicit, b->jobs[i]->name);
	}
	hash_set_free(&explicit);
	for (size_t i = 0; i < b->n; i++) {
		char base[NAME_MAX_LEN];

		if (b->jobs[i]->name)
			continue;
		default_name(&b->opts[i], base, sizeof base);
		if (!(b->jobs[i]->name_base = strdup(base)))
			return line_error(b, i, 1, "out of memory", err, errlen);
	}
	if (job_names_default(b->jobs, b->n) != 0)
		return snprintf(err, errlen, "out of memory"), 1;
	return 0;
}

static int name_jobs(struct building *b, char *err, size_t errlen)
{
	int status = b->n ? assign_names(b, err, errlen) : 0;

	for (size_t i = 0; i < b->n && status == 0; i++) {
		char why[1200];

		if (!(b->jobs[i]->identity = identity_of(b->lines[i].e)))
			status = line_error(b, i, 1, "out of memory", err, errlen);
		else if (job_check_fleet_name(b->jobs[i], &b->src->ctx, why, sizeof why) != 0)
			status = line_error(b, i, 2, why, err, errlen);
	}
	return status;
}

static int open_jobs(struct building *b, char *err, size_t errlen)
{
	for (size_t i = 0; i < b->n; i++) {
		char why[7680];
		int status = job_open(b->jobs[i], &b->opts[i], &b->src->ctx, why, sizeof why);

		if (status != 0)
			return line_error(b, i, status, why, err, errlen);
	}
	return 0;
}

static int build_table(struct building *b, char *err, size_t errlen)
{
	int status = 0;

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

/* Loading every file */

/* What one load reads: the files, their texts in one buffer (each name,
 * its length and its text, so that a real change is seen cheaply), their
 * parses. */
struct loaded {
	char **files;               /* paths, in load order */
	size_t nfiles, cap;
	char *text;                 /* "NAME\0LEN\0TEXT" for each file */
	size_t len, text_cap;
	struct jobs_file **parsed;  /* one per file */
};

static void loaded_free(struct loaded *l)
{
	for (size_t i = 0; i < l->nfiles; i++) {
		free(l->files[i]);
		if (l->parsed)
			jobs_free(l->parsed[i]);
	}
	free(l->files);
	free(l->parsed);
	free(l->text);
	*l = (struct loaded){ 0 };
}

static int add_file(struct loaded *l, const char *path)
{
	if (l->nfiles == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **more = realloc(l->files, cap * sizeof *more);

		if (!more)
			return -1;
		l->files = more;
		l->cap = cap;
	}
	if (!(l->files[l->nfiles] = strdup(path)))
		return -1;
	l->nfiles++;
	return 0;
}

/* The files PATH stands for: itself, or a directory's by jobsdir's rule. */
static int expand_path(struct loaded *l, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char **paths;
	size_t n;
	int rc = 0;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return add_file(l, path) == 0 ? 0 : (snprintf(err, errlen, "out of memory"), -1);
	if (jobsdir_list(path, &paths, &n, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (add_file(l, paths[i]) != 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	jobsdir_free(paths);
	return rc;
}

/* Appends "NAME\0LEN\0" and TEXT to the buffer of every file's text. */
static int append_text(struct loaded *l, const char *name, const char *text, size_t len)
{
	char head[32];
	size_t name_len = strlen(name) + 1;
	size_t head_len = (size_t)snprintf(head, sizeof head, "%zu", len) + 1;
	size_t need = l->len + name_len + head_len + len + 1;

	/* Doubling: 100 files of a directory are not 100 copies of the whole. */
	if (need > l->text_cap) {
		size_t cap = l->text_cap ? l->text_cap : 4096;
		char *more;

		while (cap < need && cap <= SIZE_MAX / 2)
			cap *= 2;
		if (cap < need || !(more = realloc(l->text, cap)))
			return -1;
		l->text = more;
		l->text_cap = cap;
	}
	memcpy(l->text + l->len, name, name_len);
	memcpy(l->text + l->len + name_len, head, head_len);
	memcpy(l->text + l->len + name_len + head_len, text, len);
	l->len += name_len + head_len + len;
	return 0;
}

/* Reads every file into the buffer; parses come after the comparison. */
static int read_files(const struct jobs_source *src, struct loaded *l, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < src->npaths; i++)
		if (expand_path(l, src->paths[i], err, errlen) != 0)
			return -1;
	for (size_t i = 0; i < l->nfiles; i++) {
		char *text;
		size_t len;
		int rc;

		if (jobs_file_read(l->files[i], JOBS_FILE_MAX, &text, &len, err, errlen) != 0)
			return -1;
		rc = append_text(l, l->files[i], text, len);
		free(text);
		if (rc != 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* Parses each file of the buffer on its own (its environment is its own)
 * and lists every line of them all. */
static int parse_files(const struct jobs_source *src, struct loaded *l, struct building *b,
		       char *err, size_t errlen)
{
	const char *p = l->text;
	size_t total = 0, k = 0;

	if (!(l->parsed = calloc(l->nfiles + 1, sizeof *l->parsed))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < l->nfiles; i++) {
		const char *size = p + strlen(p) + 1, *text = size + strlen(size) + 1;
		size_t len = (size_t)strtoull(size, NULL, 10);

		if (jobs_parse_as(l->files[i], text, len, src->system ? JOBS_SYSTEM : 0,
				  &l->parsed[i], err, errlen) != 0)
			return -1;
		total += l->parsed[i]->n;
		p = text + len;
	}
	if (!(b->lines = calloc(total + 1, sizeof *b->lines))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < l->nfiles; i++)
		for (size_t j = 0; j < l->parsed[i]->n; j++)
			b->lines[k++] = (struct line_ref){ &l->parsed[i]->entries[j], l->files[i] };
	b->n = total;
	return 0;
}

static bool same_text(const struct jobs_source *src, const struct loaded *l)
{
	return src->last_text && src->last_len == l->len &&
	       memcmp(src->last_text, l->text, l->len) == 0;
}

int jobs_source_load(struct jobs_source *src, struct job_table *out, bool forced,
		     int *status, char *err, size_t errlen)
{
	struct building b = { .src = src };
	struct loaded l = { 0 };

	*status = 2;
	if (read_files(src, &l, err, errlen) != 0) {
		loaded_free(&l);
		return -1;
	}
	if (!forced && same_text(src, &l)) {
		loaded_free(&l);
		return 1;
	}
	if (parse_files(src, &l, &b, err, errlen) != 0) {
		free(b.lines);
		loaded_free(&l);
		return -1;
	}
	*status = build_table(&b, err, errlen);
	for (size_t i = 0; b.opts && i < b.n; i++)
		job_options_free(&b.opts[i]);
	free(b.opts);
	free(b.lines);
	run_user_cache_free(&b.users);
	if (*status != 0) {
		struct job_table t = { b.jobs, b.n };

		job_table_free(&t);
		loaded_free(&l);
		return -1;
	}
	free(src->last_text);
	src->last_text = l.text;
	src->last_len = l.len;
	l.text = NULL;
	loaded_free(&l);
	*out = (struct job_table){ b.jobs, b.n };
	return 0;
}

int jobs_source_reload(void *arg, struct job_table *out, bool forced, char *err, size_t errlen)
{
	struct jobs_source *src = arg;
	int status;

	/* A job the reload adds starts as at start, at the reload's instant:
	 * its first --delay or --interval, and --for, count from now. */
	src->ctx.wall_now_ns = clock_now_ns(CLOCK_REALTIME);
	src->ctx.mono_now_ns = clock_now_ns(CLOCK_MONOTONIC);
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
		} else {
			status = job_check_fleet_name(j, ctx, err, errlen);
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
