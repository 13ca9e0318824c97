#include "pam.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#ifdef TFD_NO_FLEET

/* The static build has no dlopen (see pq.c): no PAM session. */
const struct pam_library *pam_library(void)
{
	return NULL;
}

#else

#include <dlfcn.h>

/* libpam0g's soname, not the development link only libpam0g-dev installs. */
#define PAM_LIBRARY "libpam.so.0"

#define PAM_SYMBOLS(X) \
	X(start, pam_start) X(end, pam_end) X(set_item, pam_set_item) \
	X(acct_mgmt, pam_acct_mgmt) X(setcred, pam_setcred) \
	X(open_session, pam_open_session) X(close_session, pam_close_session) \
	X(getenvlist, pam_getenvlist) X(strerror, pam_strerror)

static bool resolve_all(struct pam_library *pam)
{
	/* Function pointers through memcpy, as pq.c explains. */
#define PAM_RESOLVE(slot, symbol) \
	{ \
		void *p = dlsym(pam->handle, #symbol); \
		if (!p) \
			return false; \
		memcpy(&pam->slot, &p, sizeof p); \
	}
	PAM_SYMBOLS(PAM_RESOLVE)
#undef PAM_RESOLVE
	return true;
}

/* One library for the process, loaded once, as the dynamic linker keeps
 * it: the only state here, set before any run's child is started. */
const struct pam_library *pam_library(void)
{
	static struct pam_library pam;
	static bool tried;

	if (!tried) {
		tried = true;
		pam.handle = dlopen(PAM_LIBRARY, RTLD_NOW | RTLD_LOCAL);
		if (pam.handle && !resolve_all(&pam)) {
			dlclose(pam.handle);
			pam.handle = NULL;
		}
	}
	return pam.handle ? &pam : NULL;
}

#endif
