/* SPDX-License-Identifier: MIT */
#include "pam.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "oplog.h"

#ifdef TFD_NO_FLEET

/* The static build has no dlopen (see pq.c): no PAM session. */
const struct pam_library *pam_load(struct pam_loader *loader)
{
	if (!loader->tried)
		oplog_stderr(OPLOG_WARNING, "tfd: warning: this build cannot load libpam: runs "
					    "as another user open no PAM session\n");
	loader->tried = true;
	return NULL;
}

#else

#include <dlfcn.h>

#include "dlsyms.h"

/* libpam0g's soname, not the development link only libpam0g-dev installs. */
#define PAM_LIBRARY "libpam.so.0"

/* clang-format off */
#define PAM_SYMBOLS(X) \
	X(start, pam_start) X(end, pam_end) X(set_item, pam_set_item) \
	X(acct_mgmt, pam_acct_mgmt) X(setcred, pam_setcred) \
	X(open_session, pam_open_session) X(close_session, pam_close_session) \
	X(getenvlist, pam_getenvlist) X(strerror, pam_strerror)
/* clang-format on */

#define PAM_SLOT(slot, symbol) { #symbol, offsetof(struct pam_library, slot) },
static const struct dl_symbol pam_symbols[] = { PAM_SYMBOLS(PAM_SLOT) };
#undef PAM_SLOT

/* One library for the process, loaded once, as the dynamic linker keeps
 * it, before any run's child is started. */
const struct pam_library *pam_load(struct pam_loader *loader)
{
	struct pam_library *pam = &loader->lib;

	if (loader->tried)
		return pam->handle ? pam : NULL;
	loader->tried = true;
	pam->handle = dlopen(PAM_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!pam->handle) {
		/* cron without PAM would not start; tfd runs on, and says so. */
		oplog_stderr(OPLOG_WARNING,
			     "tfd: warning: %s; runs as another user open no PAM "
			     "session\n",
			     dlerror());
		return NULL;
	}
	if (dl_resolve(pam->handle, pam, pam_symbols, sizeof pam_symbols / sizeof pam_symbols[0])) {
		oplog_stderr(OPLOG_WARNING,
			     "tfd: warning: %s lacks a function of Linux-PAM's; "
			     "runs as another user open no PAM session\n",
			     PAM_LIBRARY);
		dlclose(pam->handle);
		pam->handle = NULL;
	}
	return pam->handle ? pam : NULL;
}

#endif
