/* SPDX-License-Identifier: MIT */
/* showtext: text as tfdctl puts it on a terminal. A job's name comes from
 * a crontab line any user of the host may write, and a run's output from
 * anything: shown raw, an escape sequence in either could clear the
 * screen, set the window's title or move the cursor. So control
 * characters are shown escaped, as systemctl shows them ("\x1b"), and a
 * command's words are quoted as a POSIX shell would take them back. Pure:
 * each call appends to a struct buf (buf.h). */
#ifndef TFD_SHOWTEXT_H
#define TFD_SHOWTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Appends the N bytes at S (NULs allowed) with every byte that a terminal
 * could take as a command escaped as "\xNN": C0 controls, DEL, the C1
 * controls U+0080..U+009F, and each byte of a sequence that is not valid
 * UTF-8 (utf8.h). With LINES (an output tail) a newline and a tab are
 * kept as they are; without (a name), they are escaped too, and so is the
 * backslash ("\\"), so that the text shown is unambiguous: a shell's
 * $'...' gives the bytes back. Returns 0, or -1 when memory ran out (as
 * buf_put). */
int show_escaped(struct buf *out, const char *s, size_t n, bool lines);

/* Appends the N bytes at S as one word a POSIX shell reads back as those
 * bytes: as they are when made only of characters no shell treats
 * specially, else in single quotes ('\'' for a quote); a word holding a
 * byte show_escaped would escape is written $'...' with those escapes
 * (bash, zsh, ksh and POSIX.1-2024 shells read it). An empty word is ''.
 * Returns as show_escaped. */
int show_shell_word(struct buf *out, const char *s, size_t n);

#endif
