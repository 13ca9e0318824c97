/* SPDX-License-Identifier: MIT */
#include "dlsyms.h"

/* The static build has no dlopen (see pq.c): nothing to resolve. */
#ifndef TFD_NO_FLEET

#include <dlfcn.h>
#include <string.h>

const char *dl_resolve(void *handle, void *base, const struct dl_symbol *syms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(handle, syms[i].name);

		if (!p)
			return syms[i].name;
		/* A function pointer is assigned through memcpy: ISO C has no
		 * conversion from dlsym's void *, POSIX guarantees the bits. */
		memcpy((char *)base + syms[i].offset, &p, sizeof p);
	}
	return NULL;
}

#endif
