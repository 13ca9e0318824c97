/* SPDX-License-Identifier: MIT */
#include "ctlpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int control_default_path(char *buf, size_t len, char *err, size_t errlen)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	int n;

	if (geteuid() == 0) {
		n = snprintf(buf, len, "/run/tfd/control");
	} else if (dir && *dir) {
		n = snprintf(buf, len, "%s/tfd/control", dir);
	} else {
		snprintf(err, errlen,
			 "no control socket path: XDG_RUNTIME_DIR is not set; "
			 "give --control=PATH");
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "control socket path too long");
		return -1;
	}
	return 0;
}
