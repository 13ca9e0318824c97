/* SPDX-License-Identifier: MIT */
/* cronfile: the checks cron(8) makes on a crontab before it loads it, kept
 * for a host's cron (--system-crontab, --user-crontabs): who may have
 * written the file, and whether its last line is whole. A file that fails
 * a check is passed over with a warning; the others load. */
#ifndef TFD_CRONFILE_H
#define TFD_CRONFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Why the system crontab PATH, whose open descriptor FSTAT said ST, may
 * not load (NULL: it may): as cron reads /etc/crontab and /etc/cron.d,
 * it must be owned by root and writable by nobody else, and when PATH is
 * a symbolic link, the link must be root's too. The reason is static text
 * or written in BUF. */
const char *cronfile_system_why(const char *path, const struct stat *st, char *buf, size_t len);

/* Why the crontab of USER in a spool (PATH, whose open descriptor FSTAT
 * said ST) may not load (NULL: it may): it must be owned by USER and give
 * no permission to group or others, as crontab(1) writes it. *UNKNOWN is
 * set when USER does not exist (a later reload may find it). */
const char *cronfile_user_why(const char *user, const struct stat *st, bool *unknown, char *buf,
			      size_t len);

/* Why the mode MODE and owner UID (the user's: OWNER) of a user's crontab
 * refuse it, or NULL. Pure. */
const char *cronfile_user_mode_why(mode_t mode, uid_t uid, uid_t owner, const char *user, char *buf,
				   size_t len);

/* Why the owner UID and mode MODE of a system crontab refuse it, or NULL.
 * Pure. */
const char *cronfile_system_mode_why(mode_t mode, uid_t uid, char *buf, size_t len);

/* The length of TEXT (LEN bytes) without a last line that has no '\n',
 * which cron ignores (a file being written may end mid-line). *LINE is
 * that line's number when it holds more than blanks, else 0. Pure. */
size_t cronfile_whole_lines(const char *text, size_t len, unsigned *line);

#endif
