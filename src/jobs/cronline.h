/* SPDX-License-Identifier: MIT */
/* cronline: a crontab line of a jobs file split as cronie's load_entry
 * splits it (the schedule, a system crontab's user, the command), and its
 * command cut at the first unescaped '%' into the command and its stdin,
 * as cronie's do_command does. The schedule's values are not checked
 * here (cron.c does), only that each field is made of what fields are
 * made of. Pure. */
#ifndef TFD_CRONLINE_H
#define TFD_CRONLINE_H

#include <stdbool.h>
#include <stddef.h>

#define CRON_LINE_FIELDS 5

/* What a jobs file's line is: a crontab line, an @reboot line, a tfd
 * line (jobsfile.h). */
enum jobs_kind { JOBS_CRONTAB, JOBS_REBOOT, JOBS_TFD };

struct cron_line {
	enum jobs_kind kind;                 /* JOBS_CRONTAB or JOBS_REBOOT */
	const char *field[CRON_LINE_FIELDS]; /* the time fields, or the nickname */
	size_t field_len[CRON_LINE_FIELDS];
	int nfields;
	const char *user; /* a system crontab's user field, or NULL */
	size_t user_len;
	const char *command; /* the rest of the line */
};

/* Splits P (at its first non-blank) into the schedule, the user (SYSTEM)
 * and the command. Returns 0, or -1 and why not in WHY (LEN bytes): a
 * word among the five fields that no time field is made of (named: "4
 * time fields before 'echo'"), no command, a user field that is not a
 * user's name alone (a ':' or a number, which cron's getpwnam(3) finds
 * no user for). */
int cron_line_split(const char *p, struct cron_line *c, bool system, char *why, size_t len);

/* Copies the command of CMD, up to its first unescaped '%', into OUT
 * (strlen(CMD) + 1 bytes), "\%" as '%' and every other backslash kept.
 * Returns the '%', or NULL when none. */
const char *cron_command_cut(const char *cmd, char *out);

/* Copies the input after the '%' into OUT (strlen(IN) + 2 bytes) as
 * cronie's do_command writes it to the command's stdin: '%' as a newline,
 * "\%" as '%', any other backslash kept, and a final newline when the last
 * character written (a trailing lone backslash aside) was not one. */
void cron_input_copy(const char *in, char *out);

#endif
