/* SPDX-License-Identifier: MIT */
/* session: what a run as another user does before its command starts, as
 * cron(8) does it for each job: the user looked up again (a user removed
 * or changed since the load is seen now), the supplementary groups as
 * initgroups(3) sets them today, a PAM session of service "cron" where
 * libpam is installed (the account check, pam_env's variables, pam_limits'
 * limits), and the run's environment with the entry's HOME, LOGNAME, USER.
 *
 * This runs in the run's own first child, a forked copy of tfd that may
 * call NSS and PAM (which tfd's loop never does at run time, so a slow
 * directory service stalls one run, never the timers); spawn.c calls it
 * and, with a PAM session open, forks the command and keeps the session
 * until the command ends, then closes it. */
#ifndef TFD_SESSION_H
#define TFD_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "pam.h"
#include "runuser.h"

/* A run as another user, as its target describes it. */
struct session_spec {
	const char *user; /* USER[:GROUP], as --user or the user field gives it */
	uid_t uid;        /* USER's uid when the job was loaded: a run whose
			     lookup finds another (the user deleted and
			     made again) does not start */
	bool keep_home;   /* the jobs file sets HOME: the entry's does not replace it */
	const struct pam_library *pam; /* libpam, loaded in tfd (pam_load); NULL: none */
};

struct session {
	struct run_user user; /* as the databases say now */
	const struct pam_library *pam;
	pam_handle_t *pamh; /* NULL: no PAM session (libpam not loaded) */
	char **envp;        /* the run's environment */
	const char *home;   /* its working directory: HOME */
};

/* Looks the user up, sets the process's supplementary groups, opens the
 * PAM session (when libpam is loaded) and builds the environment from
 * ENVP: PAM's variables first, unless ENVP sets them, then ENVP with the
 * entry's HOME (unless SPEC keeps the file's), LOGNAME and USER. Returns
 * 0, or -1 with one line in why ("user 'x': no such user", or its uid no
 * longer the one loaded). */
int session_open(struct session *s, const struct session_spec *spec, char *const *envp, char *why,
		 size_t whylen);

/* The session's end: pam_close_session, pam_setcred (DELETE), pam_end. */
void session_close(struct session *s);

#endif
