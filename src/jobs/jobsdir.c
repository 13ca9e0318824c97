/* SPDX-License-Identifier: MIT */
#include "jobsdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"

bool jobsdir_name_ok(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++) {
		char c = *name;

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

bool jobsdir_spool_name_ok(const char *name)
{
	return *name && *name != '.' && strncmp(name, "tmp.", 4) != 0 && !strchr(name, '~') &&
	       !strchr(name, '/');
}

/* The rule of a directory's names: run-parts', or a spool's. */
static bool name_passes(const char *name, bool spool)
{
	return spool ? jobsdir_spool_name_ok(name) : jobsdir_name_ok(name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct jobsdir_entry *)a)->name,
		      ((const struct jobsdir_entry *)b)->name);
}

static size_t filter_as(struct jobsdir_entry *e, size_t n, bool spool)
{
	size_t kept = 0;

	/* Swapped, not copied over: the entries stay a permutation, so a
	 * caller that owns the names can free all N. */
	for (size_t i = 0; i < n; i++)
		if (e[i].regular && name_passes(e[i].name, spool)) {
			struct jobsdir_entry keep = e[i];

			e[i] = e[kept];
			e[kept++] = keep;
		}
	/* strcmp compares as unsigned char: byte order, as run-parts' C
	 * locale scandir/alphasort does. An empty directory's E may be NULL,
	 * which qsort must not be given even for no element. */
	if (kept > 1)
		qsort(e, kept, sizeof *e, by_name);
	return kept;
}

size_t jobsdir_filter(struct jobsdir_entry *e, size_t n)
{
	return filter_as(e, n, false);
}

void jobsdir_free(char **paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
}

/* Whether NAME in the directory DFD is a regular file, after links. Only
 * names that pass are looked at, so "..data" costs no stat. */
static bool is_regular(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, 0) == 0 && S_ISREG(st.st_mode);
}

/* Reads the names of D that pass into *E (*N of them, strings owned). */
static int read_names(DIR *d, bool spool, struct jobsdir_entry **e, size_t *n)
{
	size_t cap = 0;
	struct dirent *de;

	*e = NULL;
	*n = 0;
	errno = 0;
	while ((de = readdir(d))) {
		if (!name_passes(de->d_name, spool))
			continue;
		if (array_reserve(e, &cap, *n + 1, sizeof **e, SIZE_MAX) != 0)
			return -1;
		(*e)[*n].regular = is_regular(dirfd(d), de->d_name);
		if (!((*e)[*n].name = strdup(de->d_name)))
			return -1;
		++*n;
		errno = 0;
	}
	return errno ? -1 : 0;
}

static char *join_path(const char *dir, const char *name)
{
	size_t len = strlen(dir);
	char *p = malloc(len + strlen(name) + 2);

	if (p)
		sprintf(p, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
	return p;
}

static int list_as(const char *dir, bool spool, char ***paths, size_t *n, char *err, size_t errlen)
{
	const char *option = spool ? "--user-crontabs" : "--jobs";
	DIR *d = opendir(dir);
	struct jobsdir_entry *e = NULL;
	size_t all = 0, kept = 0;
	int rc = -1, saved;

	*paths = NULL;
	*n = 0;
	if (!d) {
		snprintf(err, errlen, "%s '%s': %s", option, dir, strerror(errno));
		return -1;
	}
	if (read_names(d, spool, &e, &all) == 0) {
		kept = filter_as(e, all, spool);
		*paths = calloc(kept + 1, sizeof **paths);
		rc = *paths ? 0 : -1;
		for (size_t i = 0; rc == 0 && i < kept; i++)
			if (!((*paths)[i] = join_path(dir, e[i].name)))
				rc = -1;
	}
	saved = errno;
	/* After the filter the names are a permutation: free them all. */
	for (size_t i = 0; i < all; i++)
		free((char *)e[i].name);
	free(e);
	closedir(d);
	if (rc != 0) {
		jobsdir_free(*paths);
		*paths = NULL;
		snprintf(err, errlen, "%s '%s': %s", option, dir,
			 saved == ENOMEM || !saved ? "out of memory" : strerror(saved));
		return -1;
	}
	*n = kept;
	return 0;
}

int jobsdir_list(const char *dir, char ***paths, size_t *n, char *err, size_t errlen)
{
	return list_as(dir, false, paths, n, err, errlen);
}

int jobsdir_list_spool(const char *dir, char ***paths, size_t *n, char *err, size_t errlen)
{
	return list_as(dir, true, paths, n, err, errlen);
}

/* Whether the file NAME of DFD is a user's crontab as crontab(1) writes
 * it: a regular file owned by the user it is named after, with no
 * permission for group or others. */
static bool written_by_crontab(int dfd, const char *name)
{
	struct stat st;
	struct passwd *pw;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 077))
		return false;
	pw = getpwnam(name);
	return pw && pw->pw_uid == st.st_uid;
}

bool jobsdir_looks_like_spool(const char *dir, char *file, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	/* The first such name in byte order, so the warning names the same
	 * file whatever order the file system lists them in. */
	while ((de = readdir(d)))
		if ((!found || strcmp(de->d_name, file) < 0) && jobsdir_name_ok(de->d_name) &&
		    written_by_crontab(dirfd(d), de->d_name)) {
			snprintf(file, len, "%s", de->d_name);
			found = true;
		}
	closedir(d);
	return found;
}
