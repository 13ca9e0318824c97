/* SPDX-License-Identifier: MIT */
#include "jobtable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cronuser.h"
#include "hash.h"
#include "jobsfile.h"
#include "jobsread.h"
#include "linecheck.h"
#include "pathsearch.h"
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

bool jobs_any(struct job *const *jobs, size_t n, bool (*has)(const struct job *))
{
	for (size_t i = 0; i < n; i++)
		if (has(jobs[i]))
			return true;
	return false;
}

bool job_mails(const struct job *j)
{
	return j->mail != NULL;
}

bool job_has_hook(const struct job *j)
{
	return j->hooks.shell != NULL;
}

bool job_notifies(const struct job *j)
{
	return notify_target_any(&j->notify);
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
	char name[2 * NAME_MAX_LEN + 32];
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

/* Under --fleet a default name is a claim's key, which must not hang on
 * the order of lines: a job whose BASE another has takes BASE-HASH (the
 * first four hex digits of its line's hash), the same on every replica
 * whatever lines come before it; only the same line twice (or two lines
 * of one hash) falls back to -2. Elsewhere BASE-2, BASE-3, ... */
static char *default_name_of(struct hash_set *ns, const struct job *j)
{
	char hashed[2 * NAME_MAX_LEN + 8];

	if (!j->name_by_line || !name_taken(ns, j->name_base))
		return unique_name(ns, j->name_base);
	snprintf(hashed, sizeof hashed, "%s-%04x", j->name_base, (unsigned)j->line_hash);
	return unique_name(ns, hashed);
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
		if (!(jobs[i]->name = default_name_of(&ns, jobs[i])))
			rc = -1;
		else
			name_add(&ns, jobs[i]->name);
	}
	hash_set_free(&ns);
	return rc;
}

/* What a reload compares: the line (first, as jobview reads it back),
 * the user whose crontab holds it (USER, or NULL: the same line moved
 * from one user's crontab to another's is another job), the uid its runs
 * take (J's: a user deleted and made again under another uid is another
 * job, which a reload starts; the old one's runs are refused, session.h),
 * and what it sees. Not the name: a default name changes when a line
 * above takes it. */
static char *identity_of(const struct jobs_entry *e, const char *user, const struct job *j)
{
	char uid[32] = "";
	size_t len;
	char *id, *p;

	if (j->user.spec)
		snprintf(uid, sizeof uid, "uid %lu\n", (unsigned long)j->user.uid);
	len = strlen(e->text) + 2 + (user ? strlen(user) + 2 : 0) + strlen(uid);
	for (size_t i = 0; e->env && e->env[i]; i++)
		len += strlen(e->env[i]) + 1;
	id = malloc(len);
	if (!id)
		return NULL;
	p = id + sprintf(id, "%s\n%s%s%s", e->text, user ? user : "", user ? ":\n" : "", uid);
	for (size_t i = 0; e->env && e->env[i]; i++)
		p += sprintf(p, "%s\n", e->env[i]);
	return id;
}

/* The table */

/* One job line of one of the files. */
struct line_ref {
	const struct jobs_entry *e;
	const char *file;
	const char *user; /* a user's crontab: that user; else NULL */
};

struct building {
	struct jobs_source *src;
	struct line_ref *lines; /* every file's lines, in load order */
	struct job **jobs;
	struct job_options *opts;
	bool *dropped; /* lines a host's cron passes over */
	size_t n;
	struct run_user_cache users; /* each --user looked up once a load */
	struct job_envs envs;        /* the runs' environments, shared */
	struct warnings *warnings;
	struct names *unknown;     /* the users found missing */
	bool scoped;               /* default names are SOURCE/WORD */
	struct line_checks checks; /* shells and commands looked at */
};

/* How much of a line a message that quotes nothing else shows. */
#define LINE_SHOWN_MAX 80

static int line_error(const struct building *b, size_t i, int status, const char *why, char *err,
		      size_t errlen)
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
	warnf(b->warnings,
	      "tfd: warning: %s:%u: not run: no such user '%s' (a reload that "
	      "finds the user runs the line)\n",
	      b->lines[i].file, b->lines[i].e->line, user);
	return true;
}

/* Whether the table is a host's cron, whose bad lines are passed over. */
static bool host_cron(const struct jobs_source *src)
{
	/* clang-format off */
	return jobs_from_host(&(struct jobs_from){ .system = src->system,
						   .user_crontabs = src->user_crontabs });
	/* clang-format on */
}

/* A bad line of a host's cron is passed over with a warning, as cron
 * does: one package's or user's mistake never stops the host's cron nor
 * a reload. Memory running out is no line's fault. Returns 0 then, else
 * STATUS with the error in err. */
static int line_failed(struct building *b, size_t i, int status, const char *why, char *err,
		       size_t errlen)
{
	line_error(b, i, status, why, err, errlen);
	if (!host_cron(b->src) || strcmp(why, "out of memory") == 0)
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

	if (entry_options(e, b->lines[i].user, b->src->defaults, &b->opts[i], why, sizeof why) != 0)
		return line_failed(b, i, 2, why, err, errlen);
	ctx.in_file = true;
	ctx.cron_file = b->src->system || b->lines[i].user != NULL;
	ctx.env = e->env;
	ctx.envs = &b->envs;
	/* The file's SHELL runs its crontab lines; --exec is /bin/sh's, as on
	 * the command line. */
	ctx.shell = e->kind == JOBS_TFD ? NULL : e->shell;
	ctx.zone_name = e->cron_tz;
	ctx.input = e->input;
	ctx.reboot = e->kind == JOBS_REBOOT;
	/* clang-format off */
	if (b->opts[i].user &&
	    (status = run_user_cached(&b->users, b->opts[i].user, &ctx.user, why, sizeof why)) != 0) {
		/* clang-format on */
		char named[sizeof why + 2];

		if (status == 2 && e->kind != JOBS_TFD && user_unknown(b, i)) {
			b->dropped[i] = true;
			return 0;
		}
		/* The user databases failed: a later reload tries again. */
		if (status == 1 && host_cron(b->src))
			names_add(b->unknown, b->opts[i].user);
		/* A crontab line's user field is not an option: "user 'x'". */
		snprintf(named, sizeof named, "%s%s", e->user || b->lines[i].user ? "" : "--", why);
		return line_failed(b, i, status, named, err, errlen);
	}
	status = job_build(&b->opts[i], &ctx, &b->jobs[i], why, sizeof why);
	if (status != 0)
		return line_failed(b, i, status, why, err, errlen);
	if (b->jobs[i]->never)
		warnf(b->warnings,
		      "tfd: warning: %s:%u: '%s' names no day that exists: the line "
		      "is loaded and never runs\n",
		      b->lines[i].file, e->line, b->opts[i].cron);
	/* A dry run often runs where the commands are not installed (CI):
	 * it says only what no run could start without, the shell. */
	line_checks_warn(&b->checks, b->jobs[i], b->opts[i].exec,
			 e->kind != JOBS_TFD && !ctx.dry_run, b->lines[i].file, e->line);
	b->jobs[i]->line = e->line;
	if (!(b->jobs[i]->file = strdup(b->lines[i].file)))
		return line_error(b, i, 1, "out of memory", err, errlen);
	b->jobs[i]->reboot = e->kind == JOBS_REBOOT;
	if (!b->jobs[i]->format && b->src->tick_format &&
	    !(b->jobs[i]->format = strdup(b->src->tick_format)))
		return line_error(b, i, 1, "out of memory", err, errlen);
	return 0;
}

/* Whether default names say their file (SOURCE/WORD): whenever more than
 * one file may be read, so that adding, removing or renaming a file never
 * renames another's jobs. One --jobs FILE alone keeps bare names; a file
 * that is not a --jobs PATH itself came from a directory. */
static bool names_scoped(const struct jobs_source *src, const struct loaded *l)
{
	return src->system || src->user_crontabs || src->npaths > 1 || l->nfiles > 1 ||
	       (l->nfiles == 1 && strcmp(l->files[0].path, src->paths[0]) != 0);
}

/* Line I's default name before any suffix: its command's word, after
 * SOURCE/ (its file's base name, a user's crontab's user) when scoped. */
static void base_name(const struct building *b, size_t i, char *buf, size_t len)
{
	const char *file = b->lines[i].file, *slash = strrchr(file, '/');
	const char *source = b->lines[i].user ? b->lines[i].user : slash ? slash + 1 : file;
	char word[NAME_MAX_LEN];

	default_name(&b->opts[i], word, sizeof word);
	if (b->scoped)
		snprintf(buf, len, "%s/%s", source, word);
	else
		snprintf(buf, len, "%s", word);
}

/* The lines passed over leave the table: the others close up, in order,
 * and none is marked dropped any more. */
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
	memset(b->dropped, 0, b->n * sizeof *b->dropped);
	b->n = kept;
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
			int status;

			snprintf(why, sizeof why, "--name '%.256s': %s", name,
				 name[0] ? "already the name of another job" : "must not be empty");
			if ((status = line_failed(b, i, 2, why, err, errlen)) != 0) {
				hash_set_free(&explicit);
				return status;
			}
			continue;
		}
		if (!(b->jobs[i]->name = strdup(name))) {
			hash_set_free(&explicit);
			return line_error(b, i, 1, "out of memory", err, errlen);
		}
		name_add(&explicit, b->jobs[i]->name);
	}
	hash_set_free(&explicit);
	drop_lines(b);
	for (size_t i = 0; i < b->n; i++) {
		char base[2 * NAME_MAX_LEN];

		if (b->jobs[i]->name)
			continue;
		base_name(b, i, base, sizeof base);
		if (!(b->jobs[i]->name_base = strdup(base)))
			return line_error(b, i, 1, "out of memory", err, errlen);
		if ((b->jobs[i]->name_by_line = b->src->ctx.fleet))
			b->jobs[i]->line_hash = (uint16_t)(hash_text(b->lines[i].e->text) >> 48);
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

		if (!(b->jobs[i]->identity = identity_of(b->lines[i].e, b->lines[i].user,
							 b->jobs[i])))
			status = line_error(b, i, 1, "out of memory", err, errlen);
		else if (job_check_fleet_name(b->jobs[i], &b->src->ctx, why, sizeof why) != 0)
			status = line_failed(b, i, 2, why, err, errlen);
	}
	drop_lines(b);
	return status;
}

static int open_jobs(struct building *b, char *err, size_t errlen)
{
	for (size_t i = 0; i < b->n; i++) {
		char why[7680];
		int status = job_open(b->jobs[i], &b->opts[i], &b->src->ctx, why, sizeof why);

		if (status != 0 && (status = line_failed(b, i, status, why, err, errlen)) != 0)
			return status;
	}
	drop_lines(b);
	return 0;
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
	/* Without the memory for them, the checks are left out. */
	line_checks_init(&b->checks, b->n, b->warnings);
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

/* A user of this host (cronuser.h): one that is not also a command. */
static bool host_user(void *arg, const char *word)
{
	char path[4096];
	const char *why;
	uid_t uid;

	(void)arg;
	return run_user_known(word, &uid) == 1 &&
	       resolve_command_in(word, getenv("PATH"), path, sizeof path, &why) != 0;
}

/* A plain --jobs file whose crontab lines name a user (/etc/crontab read
 * without --system-crontab): said once a load, at its first such line. */
static void warn_system_like(struct loaded *l, size_t i)
{
	char user[64];
	long at = cronuser_first_line(l->parsed[i], host_user, NULL, user, sizeof user);

	if (at >= 0)
		warnf(&l->warnings,
		      "tfd: warning: %s:%u: the command begins with '%s', a user of "
		      "this host: a system crontab's lines name their user only with "
		      "--system-crontab (without it '%s' is run as the command)\n",
		      l->files[i].path, l->parsed[i]->entries[at].line, user, user);
}

/* Parses file I (TEXT, LEN bytes): its environment is its own. A host's
 * cron passes a bad line over with a warning, and loads the rest. */
static int parse_file(const struct jobs_source *src, struct loaded *l, size_t i, const char *text,
		      size_t len, char *err, size_t errlen)
{
	const char *user = l->files[i].user;
	/* clang-format off */
	unsigned flags = (user ? JOBS_USER : src->system ? JOBS_SYSTEM : 0) |
			 (host_cron(src) ? JOBS_LENIENT : 0);
	/* clang-format on */
	const struct jobs_file *f;

	if (jobs_parse_as(l->files[i].path, text, len, flags, &l->parsed[i], err, errlen) != 0)
		return -1;
	f = l->parsed[i];
	for (size_t k = 0; k < f->nbad; k++)
		warnf(&l->warnings, "tfd: warning: %s; the line is not loaded\n", f->bad[k].why);
	if (!(flags & (JOBS_USER | JOBS_SYSTEM)))
		warn_system_like(l, i);
	return 0;
}

/* Parses each file of the buffer on its own and lists every line of them
 * all. */
static int parse_files(const struct jobs_source *src, struct loaded *l, struct building *b,
		       char *err, size_t errlen)
{
	const char *p = l->text.s;
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
	return src->last_text && src->last_len == l->text.len &&
	       memcmp(src->last_text, l->text.s, l->text.len) == 0;
}

/* Builds the table of what was read; 0 or the exit status. */
static int build_loaded(struct jobs_source *src, struct loaded *l, struct job_table *out, char *err,
			size_t errlen)
{
	struct building b = { .src = src,
			      .warnings = &l->warnings,
			      .unknown = &l->unknown,
			      .scoped = names_scoped(src, l) };
	int status = 2;

	if (parse_files(src, l, &b, err, errlen) == 0)
		status = build_table(&b, err, errlen);
	for (size_t i = 0; b.opts && i < b.n; i++)
		job_options_free(&b.opts[i]);
	free(b.opts);
	free(b.lines);
	free(b.dropped);
	run_user_cache_free(&b.users);
	job_envs_free(&b.envs);
	line_checks_free(&b.checks);
	if (status != 0) {
		struct job_table t = { b.jobs, b.n };

		job_table_free(&t);
		return status;
	}
	*out = (struct job_table){ b.jobs, b.n };
	return 0;
}

int jobs_source_load(struct jobs_source *src, struct job_table *out, bool forced, jobs_warn_fn warn,
		     void *warn_arg, int *status, char *err, size_t errlen)
{
	struct jobs_from from = { src->paths, src->npaths, src->system, src->user_crontabs,
				  src->held };
	struct loaded l = { 0 };
	/* A user missing at the last load may exist now: load again. */
	bool retry = names_user_found(src->unknown);

	/* A refused load says why, and nothing else: its warnings are of
	 * jobs that do not load. */
	*status = 2;
	src->read_failed = false;
	if (jobs_read_files(&from, &l, err, errlen) != 0) {
		src->read_failed = true;
		loaded_free(&l);
		return -1;
	}
	if (!forced && !retry && same_text(src, &l)) {
		loaded_free(&l);
		return 1;
	}
	*status = build_loaded(src, &l, out, err, errlen);
	if (*status != 0) {
		loaded_free(&l);
		return -1;
	}
	src->nfiles = 0;
	for (size_t i = 0; i < l.nfiles; i++)
		src->nfiles += !l.files[i].skipped;
	warnings_give(&l.warnings, warn, warn_arg);
	free(src->last_text);
	src->last_text = l.text.s;
	src->last_len = l.text.len;
	l.text = (struct buf){ 0 };
	names_free(src->unknown);
	src->unknown = l.unknown.v;
	l.unknown = (struct names){ 0 };
	loaded_free(&l);
	return 0;
}

int jobs_source_reload(void *arg, struct job_table *out, bool forced, char *const *held,
		       jobs_warn_fn warn, void *warn_arg, char *err, size_t errlen)
{
	struct jobs_source *src = arg;
	int status, rc;

	/* A job the reload adds starts as at start, at the reload's instant:
	 * its first --delay or --interval, and --for, count from now. */
	src->ctx.wall_now_ns = clock_now_ns(CLOCK_REALTIME);
	src->ctx.mono_now_ns = clock_now_ns(CLOCK_MONOTONIC);
	src->held = held;
	rc = jobs_source_load(src, out, forced, warn, warn_arg, &status, err, errlen);
	src->held = NULL;
	return rc;
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
