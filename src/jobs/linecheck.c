/* SPDX-License-Identifier: MIT */
#include "linecheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail.h"
#include "pathsearch.h"
#include "shellword.h"

/* Found by the shell without a look-up: POSIX's special and regular
 * builtins, reserved words, and bash's own (a crontab's SHELL may be
 * bash). Sorted, for bsearch. */
static const char *const builtins[] = {
	"!",        ".",         ":",        "[",       "[[",      "]]",     "alias",   "bg",
	"bind",     "break",     "builtin",  "caller",  "case",    "cd",     "command", "compgen",
	"complete", "compopt",   "continue", "coproc",  "declare", "dirs",   "disown",  "do",
	"done",     "echo",      "elif",     "else",    "enable",  "esac",   "eval",    "exec",
	"exit",     "export",    "false",    "fc",      "fg",      "fi",     "for",     "function",
	"getopts",  "hash",      "help",     "history", "if",      "in",     "jobs",    "kill",
	"let",      "local",     "logout",   "mapfile", "popd",    "printf", "pushd",   "pwd",
	"read",     "readarray", "readonly", "return",  "select",  "set",    "shift",   "shopt",
	"source",   "suspend",   "test",     "then",    "time",    "times",  "trap",    "true",
	"type",     "typeset",   "ulimit",   "umask",   "unalias", "unset",  "until",   "wait",
	"while",    "{",         "}",
};

static int compare_word(const void *key, const void *item)
{
	return strcmp(key, *(const char *const *)item);
}

bool line_shell_builtin(const char *word)
{
	return bsearch(word, builtins, sizeof builtins / sizeof *builtins, sizeof *builtins,
		       compare_word) != NULL;
}

/* Whether SHELL reads sh's language, in which the first word of a command
 * is the command looked up in PATH (a SHELL of another language has other
 * rules: nothing is said of its lines). */
static bool sh_family(const char *shell)
{
	static const char *const names[] = { "sh",   "bash",  "dash", "ash",  "ksh",
					     "mksh", "pdksh", "posh", "yash", "zsh" };
	const char *base = strrchr(shell, '/');

	base = base ? base + 1 : shell;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(base, names[i]) == 0)
			return true;
	return false;
}

static const char *key_of(const void *item)
{
	return item;
}

int line_checks_init(struct line_checks *c, size_t n, struct warnings *w)
{
	/* A line looks at most at its shell and its command. */
	*c = (struct line_checks){ .max = 2 * n + 2, .warnings = w };
	c->keys = calloc(c->max, sizeof *c->keys);
	if (!c->keys || hash_set_init(&c->seen, c->max, key_of) != 0) {
		free(c->keys);
		*c = (struct line_checks){ 0 };
		return -1;
	}
	return 0;
}

void line_checks_free(struct line_checks *c)
{
	for (size_t i = 0; i < c->nkeys; i++)
		free(c->keys[i]);
	free(c->keys);
	if (c->seen.slots)
		hash_set_free(&c->seen);
	*c = (struct line_checks){ 0 };
}

/* The entry of KIND A B (A and B joined by a newline, which neither a path
 * nor a PATH holds in practice), *FRESH when it was not there and is now,
 * with the value 0 for the caller's verdict. NULL when it cannot be kept
 * (memory): then nothing is looked at. */
static struct hash_entry *remember(struct line_checks *c, char kind, const char *a, const char *b,
				   bool *fresh)
{
	size_t len = strlen(a) + strlen(b) + 4;
	struct hash_entry *e;
	char *key;

	if (c->nkeys == c->max || !(key = malloc(len)))
		return NULL;
	snprintf(key, len, "%c %s\n%s", kind, a, b);
	*fresh = !(e = hash_set_find(&c->seen, key));
	if (!*fresh) {
		free(key);
		return e;
	}
	c->keys[c->nkeys++] = key;
	hash_set_add(&c->seen, key, 0);
	return hash_set_find(&c->seen, key);
}

/* J's shell, looked at once: whether it can run, warned of once. */
static bool shell_runs(struct line_checks *c, const struct job *j, const char *file, unsigned line)
{
	char path[4096];
	const char *why;
	bool fresh;
	struct hash_entry *e = remember(c, 's', j->path, "", &fresh);
	int status;

	/* A shell named without a '/' is execve(2)'s to find in the run's
	 * directory, which tfd does not know. */
	if (!e || !strchr(j->path, '/'))
		return true;
	if (fresh && (status = resolve_command_in(j->path, NULL, path, sizeof path, &why)) != 0) {
		e->value = 1;
		warnf(c->warnings,
		      "tfd: warning: %s:%u: the shell '%s': %s: the runs of the "
		      "lines it runs will fail (status %d)\n",
		      file, line, j->path, why, status);
	}
	return e->value == 0;
}

/* The PATH J's runs get: the file's (another user: cron's default too),
 * else tfd's own. */
static const char *run_path(const struct job *j)
{
	const char *path = j->envp ? mail_env_value(j->envp, "PATH") : NULL;

	return path ? path : getenv("PATH");
}

/* SCRIPT's command, looked at once with the PATH J's runs get. */
static void check_command(struct line_checks *c, const struct job *j, const char *script,
			  const char *file, unsigned line)
{
	char word[1024], found[4096];
	const char *dirs = run_path(j), *why;
	struct hash_entry *e;
	bool fresh;
	int status;

	if (c->commands == LINE_CHECK_COMMANDS_MAX || !sh_family(j->path) ||
	    !shell_command_word(script, word, sizeof word) || line_shell_builtin(word))
		return;
	/* A relative path is the run's directory's (HOME, for another user). */
	if (strchr(word, '/') && word[0] != '/')
		return;
	e = remember(c, 'c', word, word[0] == '/' || !dirs ? "" : dirs, &fresh);
	if (!e || !fresh)
		return;
	c->commands++;
	if ((status = resolve_command_in(word, dirs, found, sizeof found, &why)) == 0)
		return;
	if (status == 127 && !strchr(word, '/'))
		warnf(c->warnings,
		      "tfd: warning: %s:%u: '%s' is not found in its PATH (%s): "
		      "its runs will fail (status 127)\n",
		      file, line, word, dirs ? dirs : "the default");
	else
		warnf(c->warnings,
		      "tfd: warning: %s:%u: '%s': %s: its runs will fail "
		      "(status %d)\n",
		      file, line, word, why, status);
}

void line_checks_warn(struct line_checks *c, const struct job *j, const char *script, bool command,
		      const char *file, unsigned line)
{
	if (!c->keys || !script || !j->path)
		return;
	if (shell_runs(c, j, file, line) && command)
		check_command(c, j, script, file, line);
}
