/* SPDX-License-Identifier: MIT */
/* runuser: --user USER[:GROUP] and a system crontab's user field (names
 * or numeric ids), looked up in the password and group databases at load,
 * in tfd itself. A run as tfd's own user takes the ids ready made (its
 * child shares tfd's memory until exec and may not call NSS); a run as
 * another user looks them up again in a forked child of its own
 * (session.h). */
#ifndef TFD_RUNUSER_H
#define TFD_RUNUSER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct run_user {
	char *spec; /* as given: "USER" or "USER:GROUP" */
	char *name; /* the password entry's name: LOGNAME, USER */
	char *home; /* its directory: HOME */
	uid_t uid;
	gid_t gid;     /* GROUP's, else the entry's primary group */
	gid_t *groups; /* supplementary groups, as initgroups(3) sets them */
	size_t ngroups;
	bool change; /* tfd is root: the run takes these ids; false when
			tfd already is this user and cannot change */
};

/* Looks SPEC up. Returns 0; 2 with one line in err ("user 'x': no such
 * user", or another user when tfd is not root); 1 when the lookup itself
 * failed (out of memory, an NSS error). */
int run_user_resolve(const char *spec, struct run_user *u, char *err, size_t errlen);

/* Whether the user NAME exists (1, with its *UID), does not (0), or the
 * lookup failed (-1, errno): what a host's cron needs to pass over a line
 * of an unknown user instead of refusing the load. */
int run_user_known(const char *name, uid_t *uid);

/* A deep copy (the job's own); -1 when out of memory. */
int run_user_copy(struct run_user *dst, const struct run_user *src);

void run_user_free(struct run_user *u);

/* The users a load has looked up, each once however many lines name it. */
struct run_user_cache {
	struct run_user *users;
	size_t n, cap;
};

/* The entry for SPEC, looked up on its first use: 0 and *out, or
 * run_user_resolve's failure. */
int run_user_cached(struct run_user_cache *c, const char *spec, const struct run_user **out,
		    char *err, size_t errlen);

void run_user_cache_free(struct run_user_cache *c);

#endif
