/* SPDX-License-Identifier: MIT */
#include "session.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cron's PAM service: /etc/pam.d/cron, which Debian's cron installs (and
 * where it is missing, PAM's "other"). */
#define SESSION_SERVICE "cron"

/* No one answers a prompt: a module that asks (a password, a new one) fails
 * the session, as it fails under cron. Messages for a user are dropped. */
static int no_conversation(int n, const struct tfd_pam_message **msg,
			   struct tfd_pam_response **resp, void *arg)
{
	(void)arg;
	for (int i = 0; i < n; i++)
		if (msg[i]->msg_style != TFD_PAM_ERROR_MSG &&
		    msg[i]->msg_style != TFD_PAM_TEXT_INFO)
			return TFD_PAM_CONV_ERR;
	*resp = calloc((size_t)n, sizeof **resp);
	return *resp ? TFD_PAM_SUCCESS : TFD_PAM_BUF_ERR;
}

/* The length of NAME in "NAME=VALUE". */
static size_t name_len(const char *entry)
{
	return strcspn(entry, "=");
}

static bool same_name(const char *a, const char *b)
{
	size_t n = name_len(a);

	return n == name_len(b) && strncmp(a, b, n) == 0;
}

static bool has_variable(char *const *envp, const char *entry)
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (same_name(envp[i], entry))
			return true;
	return false;
}

static char *variable(const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	char *entry = malloc(len);

	if (entry)
		snprintf(entry, len, "%s=%s", name, value);
	return entry;
}

static size_t count(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* The entry's HOME, LOGNAME and USER over ENVP's (HOME only when the file
 * did not set it), with PAM's variables that ENVP does not set before
 * them: the jobs file's lines win over pam_env's, as they do in cron. */
static int build_session_environment(struct session *s, const struct session_spec *spec,
				     char *const *envp, char **pam_env)
{
	char *own[3] = { spec->keep_home ? NULL : variable("HOME", s->user.home),
			 variable("LOGNAME", s->user.name), variable("USER", s->user.name) };
	size_t n = 0;

	s->envp = calloc(count(pam_env) + count(envp) + 4, sizeof *s->envp);
	if (!s->envp || (!spec->keep_home && !own[0]) || !own[1] || !own[2])
		return -1;
	for (size_t i = 0; pam_env && pam_env[i]; i++)
		if (!has_variable(envp, pam_env[i]))
			s->envp[n++] = pam_env[i];
	for (size_t i = 0; envp[i]; i++) {
		size_t k = 0;

		while (k < 3 && !(own[k] && same_name(own[k], envp[i])))
			k++;
		if (k == 3)
			s->envp[n++] = envp[i];
	}
	for (size_t k = 0; k < 3; k++)
		if (own[k])
			s->envp[n++] = own[k];
	return 0;
}

/* The run's working directory: its HOME, the file's or the entry's. */
static const char *home_of(char *const *envp)
{
	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], "HOME=", 5) == 0)
			return envp[i] + 5;
	return "/";
}

/* A failed PAM call: its name and PAM's own words. */
static int pam_failed(struct session *s, const char *call, int rc, char *why, size_t whylen)
{
	snprintf(why, whylen, "user '%s': %s (service %s): %s", s->user.spec, call, SESSION_SERVICE,
		 s->pam->strerror(s->pamh, rc));
	s->pam->end(s->pamh, rc);
	s->pamh = NULL;
	return -1;
}

/* As cron opens it: the account check first (an expired or locked account
 * does not run), then the credentials and the session, whose modules set
 * the limits (pam_limits) and the variables (pam_env) the command gets. */
static int open_pam(struct session *s, char *why, size_t whylen)
{
	static const struct tfd_pam_conv conv = { no_conversation, NULL };
	int rc;

	rc = s->pam->start(SESSION_SERVICE, s->user.name, &conv, &s->pamh);
	if (rc != TFD_PAM_SUCCESS) {
		snprintf(why, whylen, "user '%s': pam_start (service %s) failed (%d)", s->user.spec,
			 SESSION_SERVICE, rc);
		s->pamh = NULL;
		return -1;
	}
	/* cron's name for its "terminal", which pam_access rules may name. */
	s->pam->set_item(s->pamh, TFD_PAM_TTY, "cron");
	if ((rc = s->pam->acct_mgmt(s->pamh, TFD_PAM_SILENT)) != TFD_PAM_SUCCESS)
		return pam_failed(s, "pam_acct_mgmt", rc, why, whylen);
	if ((rc = s->pam->setcred(s->pamh, TFD_PAM_ESTABLISH_CRED | TFD_PAM_SILENT)) !=
	    TFD_PAM_SUCCESS)
		return pam_failed(s, "pam_setcred", rc, why, whylen);
	if ((rc = s->pam->open_session(s->pamh, TFD_PAM_SILENT)) != TFD_PAM_SUCCESS) {
		s->pam->setcred(s->pamh, TFD_PAM_DELETE_CRED | TFD_PAM_SILENT);
		return pam_failed(s, "pam_open_session", rc, why, whylen);
	}
	return 0;
}

int session_open(struct session *s, const struct session_spec *spec, char *const *envp, char *why,
		 size_t whylen)
{
	char **pam_env = NULL;

	*s = (struct session){ .pam = spec->pam };
	if (run_user_resolve(spec->user, &s->user, why, whylen) != 0)
		return -1;
	/* The name now belongs to someone else: the jobs were another's. */
	if (s->user.uid != spec->uid) {
		snprintf(why, whylen,
			 "user '%s': uid %lu now, not %lu as when the job was "
			 "loaded (deleted and made again?); a reload or a restart takes the "
			 "user as it is now",
			 spec->user, (unsigned long)s->user.uid, (unsigned long)spec->uid);
		run_user_free(&s->user);
		return -1;
	}
	/* Before PAM: pam_group's credentials add to the groups of today. */
	if (setgroups(s->user.ngroups, s->user.groups) < 0) {
		snprintf(why, whylen, "user '%s': setgroups: %s", spec->user, strerror(errno));
		return -1;
	}
	if (s->pam && open_pam(s, why, whylen) != 0)
		return -1;
	if (s->pamh)
		pam_env = s->pam->getenvlist(s->pamh);
	if (build_session_environment(s, spec, envp, pam_env) != 0) {
		snprintf(why, whylen, "user '%s': out of memory", spec->user);
		session_close(s);
		return -1;
	}
	s->home = home_of(s->envp);
	return 0;
}

void session_close(struct session *s)
{
	if (!s->pamh)
		return;
	s->pam->close_session(s->pamh, TFD_PAM_SILENT);
	s->pam->setcred(s->pamh, TFD_PAM_DELETE_CRED | TFD_PAM_SILENT);
	s->pam->end(s->pamh, TFD_PAM_SUCCESS);
	s->pamh = NULL;
}
