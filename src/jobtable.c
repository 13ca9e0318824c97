#include "jobtable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cronfile.h"
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
static int open_jobs_file(const char *path, struct stat *st, char *err, size_t errlen)
{
	const char *why;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0 || fstat(fd, st) != 0)
		why = strerror(errno);
	else
		why = not_regular_why(st->st_mode);
	if (!why)
		return fd;
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
	struct stat st;

	return jobs_file_read_stat(path, max, text, len, &st, err, errlen);
}

int jobs_file_read_stat(const char *path, size_t max, char **text, size_t *len,
			struct stat *st, char *err, size_t errlen)
{
	int fd = open_jobs_file(path, st, err, errlen), rc;

	if (fd < 0)
		return -1;
	/* The size first: a huge file is refused without reading any of it. */
	rc = (uintmax_t)st->st_size > max ? 1 : read_at_most(fd, st->st_size, max, text, len);
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
static int crontab_options(const struct jobs_entry *e, const char *user,
			   const struct job_options *defaults, struct job_options *o)
{
	if (job_options_copy(o, defaults) != 0)
		return -1;
	if (o->clock && strcmp(o->clock, "realtime-alarm") != 0 && set_text(&o->clock, NULL) != 0)
		return -1;
	/* A system crontab's user field is the line's --user; a user's
	 * crontab is that user's. */
	if ((user || e->user) && set_text(&o->user, user ? user : e->user) != 0)
		return -1;
	if (e->kind == JOBS_REBOOT)
		return set_text(&o->delay, "0") || set_text(&o->exec, e->command);
	return set_text(&o->cron, e->schedule) || set_text(&o->exec, e->command);
}

static int entry_options(const struct jobs_entry *e, const char *user,
			 const struct job_options *defaults, struct job_options *o, char *err,
			 size_t errlen)
{
	if (e->kind == JOBS_TFD)
		return options_read_job_line(e->argv, defaults, o, err, errlen);
	if (crontab_options(e, user, defaults, o) != 0) {
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

/* What a reload compares: the line, what it sees, and the user whose
 * crontab holds it (USER, or NULL): the same line moved from one user's
 * crontab to another's is another job. Not the name: a default name
 * changes when a line above takes it. */
static char *identity_of(const struct jobs_entry *e, const char *user)
{
	size_t len = strlen(e->text) + 2 + (user ? strlen(user) + 2 : 0);
	char *id, *p;

	for (size_t i = 0; e->env && e->env[i]; i++)
		len += strlen(e->env[i]) + 1;
	id = malloc(len);
	if (!id)
		return NULL;
	p = id + sprintf(id, "%s%s%s\n", user ? user : "", user ? ":\n" : "", e->text);
	for (size_t i = 0; e->env && e->env[i]; i++)
		p += sprintf(p, "%s\n", e->env[i]);
	return id;
}

/* The table */

/* One job line of one of the files. */
struct line_ref {
	const struct jobs_entry *e;
	const char *file;
	const char *user;            /* a user's crontab: that user; else NULL */
};

/* A load's warnings, one line each, given out when the load is over (and
 * not when nothing changed). */
struct warnings {
	char *text;
	size_t len, cap;
	bool lost;                   /* memory ran out: some are missing */
};

/* Names, such as the users a load found missing. */
struct names {
	char **v;                    /* NULL-terminated once one is added */
	size_t n, cap;
};

static void names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Adds NAME once. Memory running out loses it: the user's line then waits
 * for a change to its file, or SIGHUP, rather than for any reload. */
static void names_add(struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->v[i], name) == 0)
			return;
	if (ns->n + 1 >= ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 8;
		char **more = realloc(ns->v, cap * sizeof *more);

		if (!more)
			return;
		ns->v = more;
		ns->cap = cap;
	}
	if ((ns->v[ns->n] = strdup(name)))
		ns->v[++ns->n] = NULL;
}

/* Whether one of the users missing at the last load exists now. */
static bool user_found(char **unknown)
{
	uid_t uid;

	for (size_t i = 0; unknown && unknown[i]; i++)
		if (run_user_known(unknown[i], &uid) == 1)
			return true;
	return false;
}

struct building {
	struct jobs_source *src;
	struct line_ref *lines;      /* every file's lines, in load order */
	struct job **jobs;
	struct job_options *opts;
	bool *dropped;               /* lines a host's cron passes over */
	size_t n;
	struct run_user_cache users; /* each --user looked up once a load */
	struct warnings *warnings;
	struct names *unknown;       /* the users found missing */
};

static void warnf(struct warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warnf(struct warnings *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 1 > w->cap - w->len) {
		size_t cap = w->cap ? w->cap : 1024;
		char *more;

		while (n >= 0 && cap - w->len < (size_t)n + 1 && cap <= SIZE_MAX / 2)
			cap *= 2;
		if (n < 0 || cap - w->len < (size_t)n + 1 || !(more = realloc(w->text, cap))) {
			w->lost = true;
			return;
		}
		w->text = more;
		w->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(w->text + w->len, w->cap - w->len, fmt, ap);
	va_end(ap);
	w->len += (size_t)n;
}

/* Gives out every warning, a line at a time. */
static void warnings_give(struct warnings *w, jobs_warn_fn warn, void *arg)
{
	for (size_t at = 0; warn && at < w->len;) {
		char *nl = memchr(w->text + at, '\n', w->len - at);
		size_t end = nl ? (size_t)(nl - w->text) + 1 : w->len;
		char saved = w->text[end];   /* len < cap: text[len] is its NUL */

		/* Each line on its own, with its newline. */
		w->text[end] = '\0';
		warn(arg, w->text + at);
		w->text[end] = saved;
		at = end;
	}
	if (warn && w->lost)
		warn(arg, "tfd: warning: out of memory: some warnings of this load are lost\n");
	free(w->text);
	*w = (struct warnings){ 0 };
}

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

/* Whether line I names a user that does not exist, under a host's cron:
 * cron passes such a line over, and so does tfd (a later reload that finds
 * the user runs it). --user on a tfd line stays an error. */
static bool user_unknown(struct building *b, size_t i)
{
	const char *user = b->lines[i].user ? b->lines[i].user : b->lines[i].e->user;
	uid_t uid;

	if (!user || run_user_known(user, &uid) != 0)
		return false;
	names_add(b->unknown, user);
	warnf(b->warnings, "tfd: warning: %s:%u: not run: no such user '%s' (a reload that "
	      "finds the user runs the line)\n", b->lines[i].file, b->lines[i].e->line, user);
	return true;
}

/* A line of a user's crontab that is bad is passed over with a warning, as
 * cron does: one user's mistake never stops the host's cron nor another
 * user's reload. Returns 0 then, else STATUS with the error in err. */
static int line_failed(struct building *b, size_t i, int status, const char *why, char *err,
		       size_t errlen)
{
	line_error(b, i, status, why, err, errlen);
	if (status != 2 || !b->lines[i].user)
		return status;
	warnf(b->warnings, "tfd: warning: %s; the line is not loaded\n", err);
	b->dropped[i] = true;
	return 0;
}

static int build_entry(struct building *b, size_t i, char *err, size_t errlen)
{
	const struct jobs_entry *e = b->lines[i].e;
	struct job_context ctx = b->src->ctx;
	char why[7680];
	int status;

	if (entry_options(e, b->lines[i].user, b->src->defaults, &b->opts[i], why,
			  sizeof why) != 0)
		return line_failed(b, i, 2, why, err, errlen);
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

		if (status == 2 && e->kind != JOBS_TFD && user_unknown(b, i)) {
			b->dropped[i] = true;
			return 0;
		}
		/* A crontab line's user field is not an option: "user 'x'". */
		snprintf(named, sizeof named, "%s%s", e->kind != JOBS_TFD ? "" : "--", why);
		return line_failed(b, i, status, named, err, errlen);
	}
	status = job_build(&b->opts[i], &ctx, &b->jobs[i], why, sizeof why);
	if (status != 0)
		return line_failed(b, i, status, why, err, errlen);
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

	for (size_t i = 0; i < b->n && status == 0; i++)
		if (!(b->jobs[i]->identity = identity_of(b->lines[i].e, b->lines[i].user)))
			status = line_error(b, i, 1, "out of memory", err, errlen);
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

/* The lines passed over leave the table: the others close up, in order. */
static void drop_lines(struct building *b)
{
	size_t kept = 0;

	for (size_t i = 0; i < b->n; i++) {
		if (b->dropped[i]) {
			job_free(b->jobs[i]);
			job_options_free(&b->opts[i]);
			continue;
		}
		b->jobs[kept] = b->jobs[i];
		b->opts[kept] = b->opts[i];
		b->lines[kept++] = b->lines[i];
	}
	for (size_t i = kept; i < b->n; i++) {
		b->jobs[i] = NULL;
		b->opts[i] = (struct job_options){ 0 };
	}
	b->n = kept;
}

static int build_table(struct building *b, char *err, size_t errlen)
{
	int status = 0;

	b->jobs = calloc(b->n + 1, sizeof *b->jobs);
	b->opts = calloc(b->n + 1, sizeof *b->opts);
	b->dropped = calloc(b->n + 1, sizeof *b->dropped);
	if (!b->jobs || !b->opts || !b->dropped) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	for (size_t i = 0; i < b->n && status == 0; i++)
		status = build_entry(b, i, err, errlen);
	if (status == 0)
		drop_lines(b);
	if (status == 0)
		status = name_jobs(b, err, errlen);
	if (status == 0)
		status = open_jobs(b, err, errlen);
	return status;
}

/* Loading every file */

/* One file a load reads. */
struct load_file {
	char *path;
	const char *user;           /* a spool's file: its name, the user's */
	bool skipped;               /* passed over, with a warning */
	dev_t dev;                  /* what fstat said, to read a file once */
	ino_t ino;
};

/* What one load reads: the files, their texts in one buffer (each name,
 * its length and its text, so that a real change is seen cheaply; a file
 * passed over has "-" and why instead, so that a chmod is a change too),
 * their parses. */
struct loaded {
	struct load_file *files;    /* in load order */
	size_t nfiles, cap;
	char *text;                 /* "NAME\0LEN\0TEXT" or "NAME\0-\0WHY" each */
	size_t len, text_cap;
	struct jobs_file **parsed;  /* one per file; NULL when passed over */
	struct warnings warnings;
	struct names unknown;       /* the users found missing */
};

static void loaded_free(struct loaded *l)
{
	for (size_t i = 0; i < l->nfiles; i++) {
		free(l->files[i].path);
		if (l->parsed)
			jobs_free(l->parsed[i]);
	}
	free(l->files);
	free(l->parsed);
	free(l->text);
	free(l->warnings.text);
	names_free(l->unknown.v);
	*l = (struct loaded){ 0 };
}

static int add_file(struct loaded *l, const char *path, bool spool)
{
	const char *base;

	if (l->nfiles == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct load_file *more = realloc(l->files, cap * sizeof *more);

		if (!more)
			return -1;
		l->files = more;
		l->cap = cap;
	}
	l->files[l->nfiles] = (struct load_file){ .path = strdup(path) };
	if (!l->files[l->nfiles].path)
		return -1;
	base = strrchr(l->files[l->nfiles].path, '/');
	if (spool)
		l->files[l->nfiles].user = base ? base + 1 : l->files[l->nfiles].path;
	l->nfiles++;
	return 0;
}

/* The files PATH stands for: itself, or a directory's by jobsdir's rule;
 * the spool (SPOOL) by its own. */
static int expand_path(struct loaded *l, const char *path, bool spool, char *err,
		       size_t errlen)
{
	struct stat st;
	char **paths = NULL;
	size_t n = 0;
	int rc = 0;

	if (!spool && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
		return add_file(l, path, false) == 0 ? 0 : (snprintf(err, errlen, "out of memory"), -1);
	rc = spool ? jobsdir_list_spool(path, &paths, &n, err, errlen)
		   : jobsdir_list(path, &paths, &n, err, errlen);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (add_file(l, paths[i], spool) != 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	jobsdir_free(paths);
	return rc;
}

/* Appends "NAME\0HEAD\0" and TEXT to the buffer of every file's text. */
static int append_text(struct loaded *l, const char *name, const char *head,
		       const char *text, size_t len)
{
	size_t name_len = strlen(name) + 1;
	size_t head_len = strlen(head) + 1;
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

/* The file read before I that is the same file (device and inode), or
 * NULL: two paths to one file (--jobs F --jobs ./F, a cron.d link to
 * /etc/crontab) would run each line twice. */
static const char *twin_of(const struct loaded *l, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!l->files[k].skipped && l->files[k].dev == l->files[i].dev &&
		    l->files[k].ino == l->files[i].ino)
			return l->files[k].path;
	return NULL;
}

/* Why file I, read (ST), is passed over, or NULL: read twice, or, for a
 * host's cron, not written by whom cron would take it from (cronfile). */
static const char *skip_why(const struct jobs_source *src, struct loaded *l, size_t i,
			    const struct stat *st, char *buf, size_t len)
{
	const struct load_file *f = &l->files[i];
	const char *twin = twin_of(l, i), *why;
	bool unknown = false;

	if (twin) {
		snprintf(buf, len, "the same file as '%s', read once", twin);
		return buf;
	}
	if (!f->user)
		return src->system ? cronfile_system_why(f->path, st, buf, len) : NULL;
	why = cronfile_user_why(f->user, st, &unknown, buf, len);
	if (unknown)
		names_add(&l->unknown, f->user);
	return why;
}

/* Cuts a host's crontab at its last newline, as cron does: a line still
 * being written never runs half. */
static size_t cut_unended(const struct jobs_source *src, struct loaded *l, size_t i,
			  const char *text, size_t len)
{
	unsigned line;
	size_t whole;

	if (!src->system && !l->files[i].user)
		return len;
	whole = cronfile_whole_lines(text, len, &line);
	if (line)
		warnf(&l->warnings, "tfd: warning: %s:%u: not loaded: the last line has no "
		      "newline (cron ignores it too)\n", l->files[i].path, line);
	return whole;
}

/* Reads file I into the buffer, or records why it is passed over. A
 * spool's file that cannot be read is passed over; a --jobs file is an
 * error. */
static int read_file(const struct jobs_source *src, struct loaded *l, size_t i, char *err,
		     size_t errlen)
{
	struct load_file *f = &l->files[i];
	struct stat st, link;
	const char *why = NULL;
	char buf[512], head[32];
	char *text = NULL;
	size_t len = 0;
	int rc;

	/* A link in the spool is not a crontab(1) wrote: cron refuses it. */
	if (f->user && lstat(f->path, &link) == 0 && S_ISLNK(link.st_mode))
		why = "a symbolic link";
	else if (jobs_file_read_stat(f->path, JOBS_FILE_MAX, &text, &len, &st, err, errlen) != 0) {
		if (!f->user || strcmp(err, "out of memory") == 0)
			return -1;
		why = err;
	} else {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		why = skip_why(src, l, i, &st, buf, sizeof buf);
	}
	if (why) {
		f->skipped = true;
		warnf(&l->warnings, "tfd: warning: %s: not loaded: %s\n", f->path, why);
		/* With its NUL: the parse finds where it ends. */
		rc = append_text(l, f->path, "-", why, strlen(why) + 1);
	} else {
		len = cut_unended(src, l, i, text, len);
		snprintf(head, sizeof head, "%zu", len);
		rc = append_text(l, f->path, head, text, len);
	}
	free(text);
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}

/* Reads every file into the buffer; parses come after the comparison. */
static int read_files(const struct jobs_source *src, struct loaded *l, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < src->npaths; i++)
		if (expand_path(l, src->paths[i], false, err, errlen) != 0)
			return -1;
	if (src->user_crontabs && expand_path(l, src->user_crontabs, true, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < l->nfiles; i++)
		if (read_file(src, l, i, err, errlen) != 0)
			return -1;
	return 0;
}

/* Parses file I (TEXT, LEN bytes): its environment is its own. A user's
 * crontab that does not parse is passed over with a warning. */
static int parse_file(const struct jobs_source *src, struct loaded *l, size_t i,
		      const char *text, size_t len, char *err, size_t errlen)
{
	const char *user = l->files[i].user;
	unsigned flags = user ? JOBS_USER : src->system ? JOBS_SYSTEM : 0;

	if (jobs_parse_as(l->files[i].path, text, len, flags, &l->parsed[i], err, errlen) == 0)
		return 0;
	if (!user || strcmp(err, "out of memory") == 0)
		return -1;
	warnf(&l->warnings, "tfd: warning: %s; the file is not loaded\n", err);
	l->parsed[i] = NULL;
	return 0;
}

/* Parses each file of the buffer on its own and lists every line of them
 * all. */
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
		const char *head = p + strlen(p) + 1, *text = head + strlen(head) + 1;
		size_t len = l->files[i].skipped ? strlen(text) + 1
						 : (size_t)strtoull(head, NULL, 10);

		if (!l->files[i].skipped && parse_file(src, l, i, text, len, err, errlen) != 0)
			return -1;
		total += l->parsed[i] ? l->parsed[i]->n : 0;
		p = text + len;
	}
	if (!(b->lines = calloc(total + 1, sizeof *b->lines))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < l->nfiles; i++)
		for (size_t j = 0; l->parsed[i] && j < l->parsed[i]->n; j++)
			b->lines[k++] = (struct line_ref){ &l->parsed[i]->entries[j],
							   l->files[i].path, l->files[i].user };
	b->n = total;
	return 0;
}

static bool same_text(const struct jobs_source *src, const struct loaded *l)
{
	return src->last_text && src->last_len == l->len &&
	       memcmp(src->last_text, l->text, l->len) == 0;
}

/* Builds the table of what was read; 0 or the exit status. */
static int build_loaded(struct jobs_source *src, struct loaded *l, struct job_table *out,
			char *err, size_t errlen)
{
	struct building b = { .src = src, .warnings = &l->warnings, .unknown = &l->unknown };
	int status = 2;

	if (parse_files(src, l, &b, err, errlen) == 0)
		status = build_table(&b, err, errlen);
	for (size_t i = 0; b.opts && i < b.n; i++)
		job_options_free(&b.opts[i]);
	free(b.opts);
	free(b.lines);
	free(b.dropped);
	run_user_cache_free(&b.users);
	if (status != 0) {
		struct job_table t = { b.jobs, b.n };

		job_table_free(&t);
		return status;
	}
	*out = (struct job_table){ b.jobs, b.n };
	return 0;
}

int jobs_source_load(struct jobs_source *src, struct job_table *out, bool forced,
		     jobs_warn_fn warn, void *warn_arg, int *status, char *err, size_t errlen)
{
	struct loaded l = { 0 };
	/* A user missing at the last load may exist now: load again. */
	bool retry = user_found(src->unknown);

	*status = 2;
	if (read_files(src, &l, err, errlen) != 0) {
		warnings_give(&l.warnings, warn, warn_arg);
		loaded_free(&l);
		return -1;
	}
	if (!forced && !retry && same_text(src, &l)) {
		loaded_free(&l);
		return 1;
	}
	*status = build_loaded(src, &l, out, err, errlen);
	warnings_give(&l.warnings, warn, warn_arg);
	if (*status != 0) {
		loaded_free(&l);
		return -1;
	}
	free(src->last_text);
	src->last_text = l.text;
	src->last_len = l.len;
	l.text = NULL;
	names_free(src->unknown);
	src->unknown = l.unknown.v;
	l.unknown = (struct names){ 0 };
	loaded_free(&l);
	return 0;
}

int jobs_source_reload(void *arg, struct job_table *out, bool forced, jobs_warn_fn warn,
		       void *warn_arg, char *err, size_t errlen)
{
	struct jobs_source *src = arg;
	int status;

	/* A job the reload adds starts as at start, at the reload's instant:
	 * its first --delay or --interval, and --for, count from now. */
	src->ctx.wall_now_ns = clock_now_ns(CLOCK_REALTIME);
	src->ctx.mono_now_ns = clock_now_ns(CLOCK_MONOTONIC);
	return jobs_source_load(src, out, forced, warn, warn_arg, &status, err, errlen);
}

void jobs_source_free(struct jobs_source *src)
{
	free(src->last_text);
	src->last_text = NULL;
	names_free(src->unknown);
	src->unknown = NULL;
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
