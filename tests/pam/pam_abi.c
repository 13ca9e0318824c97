/* SPDX-License-Identifier: MIT */
/* Checks src/run/pam.h's declarations of Linux-PAM's types and constants
 * against <security/pam_appl.h>: compiled, not run
 * (tests/bats/62-host-runs.bats), where libpam0g-dev is installed. */
#include <security/pam_appl.h>
#include <stddef.h>

#include "pam.h"

#define SAME_FIELD(ours, theirs, f) \
	_Static_assert(offsetof(struct ours, f) == offsetof(struct theirs, f), #theirs "." #f)
#define SAME_SIZE(ours, theirs) \
	_Static_assert(sizeof(struct ours) == sizeof(struct theirs), #theirs)
#define SAME_VALUE(a, b) _Static_assert((long)(a) == (long)(b), #a)

SAME_FIELD(tfd_pam_message, pam_message, msg_style);
SAME_FIELD(tfd_pam_message, pam_message, msg);
SAME_SIZE(tfd_pam_message, pam_message);
SAME_FIELD(tfd_pam_response, pam_response, resp);
SAME_FIELD(tfd_pam_response, pam_response, resp_retcode);
SAME_SIZE(tfd_pam_response, pam_response);
SAME_FIELD(tfd_pam_conv, pam_conv, conv);
SAME_FIELD(tfd_pam_conv, pam_conv, appdata_ptr);
SAME_SIZE(tfd_pam_conv, pam_conv);

SAME_VALUE(TFD_PAM_SUCCESS, PAM_SUCCESS);
SAME_VALUE(TFD_PAM_BUF_ERR, PAM_BUF_ERR);
SAME_VALUE(TFD_PAM_CONV_ERR, PAM_CONV_ERR);
SAME_VALUE(TFD_PAM_TTY, PAM_TTY);
SAME_VALUE(TFD_PAM_ERROR_MSG, PAM_ERROR_MSG);
SAME_VALUE(TFD_PAM_TEXT_INFO, PAM_TEXT_INFO);
SAME_VALUE(TFD_PAM_SILENT, PAM_SILENT);
SAME_VALUE(TFD_PAM_ESTABLISH_CRED, PAM_ESTABLISH_CRED);
SAME_VALUE(TFD_PAM_DELETE_CRED, PAM_DELETE_CRED);

/* The functions as struct pam_library calls them: the same parameters,
 * with tfd's struct pam_conv where PAM has its own. */
static void check_functions(struct pam_library *p)
{
	p->end = pam_end;
	p->set_item = pam_set_item;
	p->acct_mgmt = pam_acct_mgmt;
	p->setcred = pam_setcred;
	p->open_session = pam_open_session;
	p->close_session = pam_close_session;
	p->getenvlist = pam_getenvlist;
	p->strerror = pam_strerror;
}

void (*pam_abi_checked)(struct pam_library *) = check_functions;
