/* SPDX-License-Identifier: MIT */
#include "curl.h"

#include <stdio.h>

#ifdef TFD_NO_HTTP

int curl_load(struct curl *c, char *err, size_t errlen)
{
	*c = (struct curl){ 0 };
	snprintf(err, errlen,
		 "--ping and --notify: this tfd was built without HTTP (a static "
		 "build cannot load libcurl); use the dynamic tfd");
	return -1;
}

#else

#include <dlfcn.h>
#include <stddef.h>

#include "dlsyms.h"

/* Debian's libcurl4: the soname, not the development link. */
#define CURL_LIBRARY "libcurl.so.4"

#define CURL_SYMBOLS(X) \
	X(global_init, curl_global_init) \
	X(easy_init, curl_easy_init) \
	X(easy_setopt, curl_easy_setopt) \
	X(easy_getinfo, curl_easy_getinfo) \
	X(easy_cleanup, curl_easy_cleanup) \
	X(easy_strerror, curl_easy_strerror) \
	X(multi_init, curl_multi_init) \
	X(multi_setopt, curl_multi_setopt) \
	X(multi_add_handle, curl_multi_add_handle) \
	X(multi_remove_handle, curl_multi_remove_handle) \
	X(multi_socket_action, curl_multi_socket_action) \
	X(multi_info_read, curl_multi_info_read) \
	X(multi_cleanup, curl_multi_cleanup) \
	X(slist_append, curl_slist_append) \
	X(slist_free_all, curl_slist_free_all)

#define CURL_SLOT(slot, symbol) { #symbol, offsetof(struct curl, slot) },
static const struct dl_symbol curl_symbols[] = { CURL_SYMBOLS(CURL_SLOT) };
#undef CURL_SLOT

/* The library stays mapped until exit, as libmicrohttpd does (mhd.c):
 * its TLS library leaves thread-local blocks that dlclose would only
 * hand to LeakSanitizer's exit check. */
int curl_load(struct curl *c, char *err, size_t errlen)
{
	const char *missing;

	*c = (struct curl){ 0 };
	c->handle = dlopen(CURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!c->handle) {
		snprintf(err, errlen, "--ping and --notify need libcurl (Debian's libcurl4): %s",
			 dlerror());
		return -1;
	}
	missing = dl_resolve(c->handle, c, curl_symbols,
			     sizeof curl_symbols / sizeof curl_symbols[0]);
	if (missing) {
		snprintf(err, errlen, "--ping and --notify: %s has no %s", CURL_LIBRARY, missing);
		*c = (struct curl){ 0 };
		return -1;
	}
	if (c->global_init(CURL_SHIM_GLOBAL_ALL) != 0) {
		snprintf(err, errlen, "--ping and --notify: curl_global_init failed");
		*c = (struct curl){ 0 };
		return -1;
	}
	return 0;
}

#endif
