/* SPDX-License-Identifier: MIT */
#include "cronfile.h"

#include <stdio.h>
#include <string.h>

#include "runuser.h"

const char *cronfile_system_mode_why(mode_t mode, uid_t uid, char *buf, size_t len)
{
	if (uid != 0) {
		snprintf(buf, len, "not owned by root (uid %u)", (unsigned)uid);
		return buf;
	}
	if (mode & S_IWGRP)
		return "writable by group";
	if (mode & S_IWOTH)
		return "writable by others";
	return NULL;
}

const char *cronfile_system_why(const char *path, const struct stat *st, char *buf, size_t len)
{
	struct stat link;

	/* The link itself: whoever owns it may point it at another file. */
	if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != 0) {
		snprintf(buf, len, "a symbolic link not owned by root (uid %u)",
			 (unsigned)link.st_uid);
		return buf;
	}
	return cronfile_system_mode_why(st->st_mode, st->st_uid, buf, len);
}

const char *cronfile_user_mode_why(mode_t mode, uid_t uid, uid_t owner, const char *user, char *buf,
				   size_t len)
{
	if (uid != owner) {
		snprintf(buf, len, "not owned by '%s' (uid %u, not %u)", user, (unsigned)uid,
			 (unsigned)owner);
		return buf;
	}
	if (mode & 077) {
		snprintf(buf, len,
			 "mode %04o gives group or others access (crontab(1) "
			 "writes 0600)",
			 (unsigned)(mode & 07777));
		return buf;
	}
	return NULL;
}

const char *cronfile_user_why(const char *user, const struct stat *st, bool *unknown, char *buf,
			      size_t len)
{
	uid_t owner;
	int known = run_user_known(user, &owner);

	if (known < 0) {
		snprintf(buf, len, "user '%s': %m", user);
		return buf;
	}
	if (known == 0) {
		*unknown = true;
		snprintf(buf, len, "no such user '%s'", user);
		return buf;
	}
	return cronfile_user_mode_why(st->st_mode, st->st_uid, owner, user, buf, len);
}

size_t cronfile_whole_lines(const char *text, size_t len, unsigned *line)
{
	size_t whole = len;

	*line = 0;
	while (whole > 0 && text[whole - 1] != '\n')
		whole--;
	if (whole == len)
		return len;
	for (size_t i = whole; i < len; i++)
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r') {
			*line = 1;
			break;
		}
	if (*line)
		for (size_t i = 0; i < whole; i++)
			*line += text[i] == '\n';
	return whole;
}
