/* SPDX-License-Identifier: MIT */
/* dlsyms: the functions of a library loaded on demand (libpq for --fleet,
 * libmicrohttpd for --listen, libpam for runs as another user) filled
 * into a struct of function pointers, each slot named by a table. */
#ifndef TFD_DLSYMS_H
#define TFD_DLSYMS_H

#include <stddef.h>

/* One slot: the symbol NAME, at OFFSET in the struct (offsetof). */
struct dl_symbol {
	const char *name;
	size_t offset;
};

/* Fills the N slots of BASE from HANDLE (dlopen's). Returns NULL, or the
 * name of the first symbol the library lacks (the slots before it are
 * filled, the rest are not). */
const char *dl_resolve(void *handle, void *base, const struct dl_symbol *syms, size_t n);

#endif
