/* SPDX-License-Identifier: MIT */
#include "mhd.h"

#include <stdio.h>
#include <string.h>

#ifdef TFD_NO_HTTP

int mhd_load(struct mhd *m, char *err, size_t errlen)
{
	*m = (struct mhd){ 0 };
	snprintf(err, errlen,
		 "--listen: this tfd was built without HTTP (a static build "
		 "cannot load libmicrohttpd); use the dynamic tfd, or --metrics=FILE");
	return -1;
}

void mhd_unload(struct mhd *m)
{
	*m = (struct mhd){ 0 };
}

#else

#include <dlfcn.h>
#include <stddef.h>

#include "dlsyms.h"

/* Debian's libmicrohttpd12: the soname, not the development link. */
#define MHD_LIBRARY "libmicrohttpd.so.12"

/* Each slot of struct mhd and the symbol that fills it. */
/* clang-format off */
#define MHD_SYMBOLS(X) \
	X(start_daemon, MHD_start_daemon) X(stop_daemon, MHD_stop_daemon) \
	X(get_daemon_info, MHD_get_daemon_info) X(get_timeout, MHD_get_timeout) \
	X(run, MHD_run) X(lookup_connection_value, MHD_lookup_connection_value) \
	X(get_connection_info, MHD_get_connection_info) \
	X(create_response_from_buffer, MHD_create_response_from_buffer) \
	X(create_response_from_callback, MHD_create_response_from_callback) \
	X(add_response_header, MHD_add_response_header) \
	X(queue_response, MHD_queue_response) X(destroy_response, MHD_destroy_response)
/* clang-format on */

#define MHD_SLOT(slot, symbol) { #symbol, offsetof(struct mhd, slot) },
static const struct dl_symbol mhd_symbols[] = { MHD_SYMBOLS(MHD_SLOT) };
#undef MHD_SLOT

int mhd_load(struct mhd *m, char *err, size_t errlen)
{
	const char *missing;

	*m = (struct mhd){ 0 };
	m->handle = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!m->handle) {
		snprintf(err, errlen,
			 "--listen needs libmicrohttpd (Debian's "
			 "libmicrohttpd12): %s",
			 dlerror());
		return -1;
	}
	missing = dl_resolve(m->handle, m, mhd_symbols, sizeof mhd_symbols / sizeof mhd_symbols[0]);
	if (missing) {
		snprintf(err, errlen, "--listen: %s has no %s", MHD_LIBRARY, missing);
		dlclose(m->handle);
		mhd_unload(m);
		return -1;
	}
	return 0;
}

/* The library stays mapped: it is unloaded only as tfd exits, where
 * dlclose gains nothing, and GnuTLS (which it pulls in) leaves blocks of
 * thread-local storage behind that LeakSanitizer's exit check then trips
 * on. */
void mhd_unload(struct mhd *m)
{
	*m = (struct mhd){ 0 };
}

#endif
