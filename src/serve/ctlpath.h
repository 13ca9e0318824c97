/* SPDX-License-Identifier: MIT */
/* ctlpath: where the control socket is when no PATH is given, the one
 * rule tfd --control and tfdctl share. */
#ifndef TFD_CTLPATH_H
#define TFD_CTLPATH_H

#include <stddef.h>

/* /run/tfd/control for root, else $XDG_RUNTIME_DIR/tfd/control. Returns
 * 0, or -1 with one line in err (no XDG_RUNTIME_DIR, a path too long). */
int control_default_path(char *buf, size_t len, char *err, size_t errlen);

#endif
