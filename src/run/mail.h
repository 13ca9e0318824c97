/* SPDX-License-Identifier: MIT */
/* mail: a job's MAILTO, and the message cron would send for one run —
 * pure: the output collected up to a cap, the headers, the message text.
 * The loop's side (the sendmail child, its pipe, its end) is mailer.h. */
#ifndef TFD_MAIL_H
#define TFD_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* The most of a run's output a mail holds: the rest is read (so the run
 * never blocks on its pipes), counted and cut, and the mail says how
 * many bytes were cut. */
#define MAIL_BODY_MAX (256 * 1024)

/* The program that sends mail when the file sets no SENDMAIL. */
#define MAIL_SENDMAIL "/usr/sbin/sendmail"

/* Where a job's runs' output goes: read once from the jobs file's
 * environment (MAILTO, MAILFROM, SENDMAIL) when the job is built. */
struct mail_job {
	char *to;       /* MAILTO, never empty */
	char *from;     /* MAILFROM, or the user the runs run as */
	char *user;     /* the user the runs run as, for the Subject */
	char *sendmail; /* SENDMAIL, or MAIL_SENDMAIL */
	char *command;  /* a crontab line's command for the Subject;
			   NULL: a tfd line, whose Subject names the job */
	char **env;     /* the NAME=VALUE lines the file set for the line,
			   one X-Cron-Env header each; NULL-terminated */
};

/* One run's output, in the order it was read from its pipes. */
struct mail_body {
	struct buf text; /* at most MAIL_BODY_MAX bytes */
	uint64_t cut;    /* bytes past MAIL_BODY_MAX, or that found no
			    memory: read and dropped */
};

/* The value of NAME in ENV ("NAME=VALUE" strings, NULL-terminated; ENV
 * may be NULL), or NULL when it is not set. */
const char *mail_env_value(char *const *env, const char *name);

/* The mail of a job whose line sees ENV, for runs as USER, with COMMAND
 * (NULL for a tfd line). A MAILTO unset in ENV mails to USER when TO_USER
 * (a file cron itself reads: cron mails there), else it is none. NULL and
 * *none when there is no mail (MAILTO empty, or unset without TO_USER);
 * NULL and !*none when memory ran out. */
struct mail_job *mail_job_new(char *const *env, const char *user, const char *command, bool to_user,
			      bool *none);
void mail_job_free(struct mail_job *m);

/* Keeps what of DATA fits under MAIL_BODY_MAX and counts the rest as
 * cut. Returns -1 when memory ran out: those bytes, and every byte after
 * them, are counted as cut, so what a mail holds is always the output's
 * beginning. */
int mail_body_add(struct mail_body *b, const char *data, size_t len);
void mail_body_free(struct mail_body *b);

static inline bool mail_body_empty(const struct mail_body *b)
{
	return b->text.len == 0 && b->cut == 0;
}

/* The line that ends an output that was cut (no newline): how many bytes
 * of it were cut. Returns its length (truncated to LEN - 1). */
size_t mail_cut_note(const struct mail_body *b, char *buf, size_t len);

/* The message for `sendmail -i -t`: headers (To, From, Subject "Cron
 * <USER@HOST> COMMAND" or JOB for a tfd line, MIME and auto-submitted
 * headers, "X-Cron-Env: <NAME=VALUE>" for each variable the file set, as
 * cron's), a blank line, the body, the cut note when some was cut.
 * Header values have their line ends turned into spaces, so no output or
 * variable adds a header. Returns 0 with *MSG (malloc'ed) and *LEN, or
 * -1 when memory ran out. */
int mail_compose(const struct mail_job *m, const char *host, const char *job,
		 const struct mail_body *b, char **msg, size_t *len);

#endif
