/* SPDX-License-Identifier: MIT */
#include "runuser.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"

void run_user_free(struct run_user *u)
{
	free(u->spec);
	free(u->name);
	free(u->home);
	free(u->groups);
	*u = (struct run_user){ 0 };
}

/* A getpwnam or getgrnam miss: NULL with errno 0 (or ENOENT, ESRCH, EBADF, EPERM,
 * which glibc's NSS modules report for "not there"), else a real error. */
static bool lookup_failed(void)
{
	return errno != 0 && errno != ENOENT && errno != ESRCH && errno != EBADF && errno != EPERM;
}

/* The supplementary groups of NAME with GID, as initgroups(3) would set. */
static int fill_groups(struct run_user *u)
{
	int n = 16;

	for (;;) {
		int got = n;
		gid_t *g = realloc(u->groups, (size_t)n * sizeof *g);

		if (!g)
			return -1;
		u->groups = g;
		if (getgrouplist(u->name, u->gid, u->groups, &got) >= 0) {
			u->ngroups = (size_t)got;
			return 0;
		}
		if (got <= n || got > 65536)
			return -1;
		n = got;
	}
}

/* TEXT as a decimal id, as runuser(1) and setpriv(1) read a number where
 * a name does not match: digits only, below (uid_t)-1, which means "no
 * change" to setuid and setgid. */
static bool numeric_id(const char *text, unsigned long *id)
{
	if (!*text || strspn(text, "0123456789") != strlen(text))
		return false;
	errno = 0;
	*id = strtoul(text, NULL, 10);
	return errno == 0 && *id < (uid_t)-1;
}

/* GROUP by name, or a number, which needs no entry in the group
 * database (setpriv --regid takes any). */
static int find_group(const char *group, gid_t *gid, char *err, size_t errlen, const char *spec)
{
	struct group *gr;
	unsigned long id;

	errno = 0;
	gr = getgrnam(group);
	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	if (lookup_failed()) {
		snprintf(err, errlen, "user '%s': group '%s': %s", spec, group, strerror(errno));
		return 1;
	}
	if (numeric_id(group, &id)) {
		*gid = (gid_t)id;
		return 0;
	}
	snprintf(err, errlen, "user '%s': no such group '%s'", spec, group);
	return 2;
}

/* tfd that is not root runs jobs as itself only: a setuid in the child
 * would fail at every run, so the line is refused now. */
static int check_may_become(struct run_user *u, char *err, size_t errlen)
{
	if (geteuid() == 0) {
		u->change = true;
		return 0;
	}
	if (u->uid == geteuid() && u->gid == getegid())
		return 0;
	snprintf(err, errlen,
		 "user '%s': tfd runs as uid %u, not root, and cannot run "
		 "jobs as another user or group",
		 u->spec, (unsigned)geteuid());
	return 2;
}

/* USER by name, else as a number: the password entry of that uid, which
 * must exist (its name, HOME and groups are the run's). NULL with errno
 * as getpwnam leaves it when there is none. */
static struct passwd *find_user(const char *user)
{
	struct passwd *pw;
	unsigned long id;

	errno = 0;
	pw = getpwnam(user);
	if (pw || lookup_failed() || !numeric_id(user, &id))
		return pw;
	errno = 0;
	return getpwuid((uid_t)id);
}

static int resolve(const char *spec, struct run_user *u, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	char *user = strndup(spec, colon ? (size_t)(colon - spec) : strlen(spec));
	struct passwd *pw;
	int status;

	if (!user)
		return -1;
	if (!*user || (colon && !colon[1])) {
		snprintf(err, errlen, "user '%s': %s", spec,
			 *user ? "empty group after ':'" : "empty user name");
		free(user);
		return 2;
	}
	pw = find_user(user);
	if (!pw) {
		status = lookup_failed() ? 1 : 2;
		snprintf(err, errlen, "user '%s': %s", spec,
			 status == 1 ? strerror(errno) : "no such user");
		free(user);
		return status;
	}
	free(user);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	if (!(u->name = strdup(pw->pw_name)) || !(u->home = strdup(pw->pw_dir)))
		return -1;
	if (colon && (status = find_group(colon + 1, &u->gid, err, errlen, spec)) != 0)
		return status;
	if (fill_groups(u) != 0)
		return -1;
	return check_may_become(u, err, errlen);
}

int run_user_resolve(const char *spec, struct run_user *u, char *err, size_t errlen)
{
	int status;

	*u = (struct run_user){ .spec = strdup(spec) };
	status = u->spec ? resolve(spec, u, err, errlen) : -1;
	if (status < 0) {
		snprintf(err, errlen, "out of memory");
		status = 1;
	}
	if (status != 0)
		run_user_free(u);
	return status;
}

int run_user_copy(struct run_user *dst, const struct run_user *src)
{
	*dst = *src;
	dst->spec = strdup(src->spec);
	dst->name = strdup(src->name);
	dst->home = strdup(src->home);
	dst->groups = malloc((src->ngroups ? src->ngroups : 1) * sizeof *dst->groups);
	if (!dst->spec || !dst->name || !dst->home || !dst->groups) {
		run_user_free(dst);
		return -1;
	}
	memcpy(dst->groups, src->groups, src->ngroups * sizeof *dst->groups);
	return 0;
}

int run_user_cached(struct run_user_cache *c, const char *spec, const struct run_user **out,
		    char *err, size_t errlen)
{
	int status;

	/* A few distinct users however many lines: a list is enough. */
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->users[i].spec, spec) == 0) {
			*out = &c->users[i];
			return 0;
		}
	if (array_reserve(&c->users, &c->cap, c->n + 1, sizeof *c->users, SIZE_MAX) != 0) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	status = run_user_resolve(spec, &c->users[c->n], err, errlen);
	if (status != 0)
		return status;
	*out = &c->users[c->n++];
	return 0;
}

void run_user_cache_free(struct run_user_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		run_user_free(&c->users[i]);
	free(c->users);
	*c = (struct run_user_cache){ 0 };
}

int run_user_known(const char *name, uid_t *uid)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(name);
	if (pw) {
		*uid = pw->pw_uid;
		return 1;
	}
	return lookup_failed() ? -1 : 0;
}
