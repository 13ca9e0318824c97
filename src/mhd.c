/* SPDX-License-Identifier: MIT */
#include "mhd.h"

#include <stdio.h>
#include <string.h>

#ifdef TFD_NO_HTTP

int mhd_load(struct mhd *m, char *err, size_t errlen)
{
	*m = (struct mhd){ 0 };
	snprintf(err, errlen, "--listen: this tfd was built without HTTP (a static build "
		 "cannot load libmicrohttpd); use the dynamic tfd, or --metrics=FILE");
	return -1;
}

void mhd_unload(struct mhd *m)
{
	*m = (struct mhd){ 0 };
}

#else

#include <dlfcn.h>

/* Debian's libmicrohttpd12: the soname, not the development link. */
#define MHD_LIBRARY "libmicrohttpd.so.12"

/* Each slot of struct mhd and the symbol that fills it. */
#define MHD_SYMBOLS(X) \
	X(start_daemon, MHD_start_daemon) X(stop_daemon, MHD_stop_daemon) \
	X(get_daemon_info, MHD_get_daemon_info) X(get_timeout, MHD_get_timeout) \
	X(run, MHD_run) X(lookup_connection_value, MHD_lookup_connection_value) \
	X(create_response_from_buffer, MHD_create_response_from_buffer) \
	X(create_response_from_callback, MHD_create_response_from_callback) \
	X(add_response_header, MHD_add_response_header) \
	X(queue_response, MHD_queue_response) X(destroy_response, MHD_destroy_response)

int mhd_load(struct mhd *m, char *err, size_t errlen)
{
	*m = (struct mhd){ 0 };
	m->handle = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!m->handle) {
		snprintf(err, errlen, "--listen needs libmicrohttpd (Debian's "
			 "libmicrohttpd12): %s", dlerror());
		return -1;
	}
	/* A function pointer is assigned through memcpy: ISO C has no
	 * conversion from dlsym's void *, POSIX guarantees the bits. */
#define MHD_RESOLVE(slot, symbol) \
	{ \
		void *p = dlsym(m->handle, #symbol); \
		if (!p) { \
			snprintf(err, errlen, "--listen: %s has no %s", MHD_LIBRARY, #symbol); \
			dlclose(m->handle); \
			mhd_unload(m); \
			return -1; \
		} \
		memcpy(&m->slot, &p, sizeof p); \
	}
	MHD_SYMBOLS(MHD_RESOLVE)
#undef MHD_RESOLVE
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
