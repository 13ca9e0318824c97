#include "jobsdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool jobsdir_name_ok(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++) {
		char c = *name;

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct jobsdir_entry *)a)->name,
		      ((const struct jobsdir_entry *)b)->name);
}

size_t jobsdir_filter(struct jobsdir_entry *e, size_t n)
{
	size_t kept = 0;

	/* Swapped, not copied over: the entries stay a permutation, so a
	 * caller that owns the names can free all N. */
	for (size_t i = 0; i < n; i++)
		if (e[i].regular && jobsdir_name_ok(e[i].name)) {
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
static int read_names(DIR *d, struct jobsdir_entry **e, size_t *n)
{
	size_t cap = 0;
	struct dirent *de;

	*e = NULL;
	*n = 0;
	errno = 0;
	while ((de = readdir(d))) {
		if (!jobsdir_name_ok(de->d_name))
			continue;
		if (*n == cap) {
			struct jobsdir_entry *more;

			cap = cap ? cap * 2 : 16;
			more = realloc(*e, cap * sizeof **e);
			if (!more)
				return -1;
			*e = more;
		}
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

int jobsdir_list(const char *dir, char ***paths, size_t *n, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct jobsdir_entry *e = NULL;
	size_t all = 0, kept = 0;
	int rc = -1, saved;

	*paths = NULL;
	*n = 0;
	if (!d) {
		snprintf(err, errlen, "--jobs '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (read_names(d, &e, &all) == 0) {
		kept = jobsdir_filter(e, all);
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
		snprintf(err, errlen, "--jobs '%s': %s", dir,
			 saved == ENOMEM || !saved ? "out of memory" : strerror(saved));
		return -1;
	}
	*n = kept;
	return 0;
}
