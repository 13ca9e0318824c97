/* SPDX-License-Identifier: MIT */
/* shellword: one word of a command as a POSIX shell quotes it (nothing
 * expanded), for a tfd line's words and a job's default name. Pure. */
#ifndef TFD_SHELLWORD_H
#define TFD_SHELLWORD_H

#include <stdbool.h>
#include <stddef.h>

/* Where the characters of a word go: a buffer, or with BASENAME only the
 * part after its last '/' that is followed by more, truncated to fit. A
 * NULL sink takes nothing. */
struct word_sink {
	char *buf;
	size_t len, cap;
	bool basename, slash;
};

void word_sink_put(struct word_sink *s, char c);

enum word_scan { WORD_OK, WORD_SQUOTE, WORD_DQUOTE, WORD_BACKSLASH, WORD_OPERATOR };

/* Reads one shell word at *PP (not at a blank) into OUT with the quoting of
 * a POSIX shell: '...' literal, "..." where a backslash escapes only $ ` "
 * and \, an unquoted backslash escapes any character. Nothing is expanded.
 * Stops at a blank or the end (WORD_OK), or at what a shell would not
 * take as part of a word: an unterminated quote, a backslash at the end,
 * an unquoted special character (*PP is left at it). */
enum word_scan word_scan(const char **pp, struct word_sink *out);

/* The default name of a job whose command is the shell string COMMAND (a
 * crontab line's command, an --exec string): the base name of its first
 * word, quotes removed, after any leading NAME=VALUE assignments ("FOO=1
 * /usr/bin/curl -fsS" -> "curl", "'my tool' x" -> "my tool"). "job" when
 * there is none (an empty string, "/"). Writes it into BUF (LEN bytes,
 * NUL-terminated, truncated to fit) and returns its length. */
size_t jobs_default_name(const char *command, char *buf, size_t len);

/* The same for a command given as words: the base name of WORD (argv[0]),
 * taken as it is. */
size_t jobs_word_name(const char *word, char *buf, size_t len);

/* The command word of the shell string COMMAND, whole (not its base
 * name), after any leading NAME=VALUE assignments, its quotes removed,
 * into BUF (LEN bytes): true; false when there is none a look-up could
 * judge: a redirection or a substitution first, a word the shell would
 * expand (~, * ? [, braces), a quote left open, or one too long for BUF. */
bool shell_command_word(const char *command, char *buf, size_t len);

#endif
