/* SPDX-License-Identifier: MIT */
/* suggest: the nearest of a list of names to a word that matches none,
 * for "did you mean --interval?" after an unknown option (tfd) or command
 * (tfdctl). Pure: no I/O, no globals. */
#ifndef TFD_SUGGEST_H
#define TFD_SUGGEST_H

#include <stddef.h>

/* The longest word compared: a longer one gets no suggestion. */
#define SUGGEST_WORD_MAX 64

/* The name of NAMES (N of them, NULLs skipped) nearest to WORD, or NULL
 * when none is near enough to be what was meant: the fewest edits
 * (a letter added, dropped, changed, or two neighbours swapped: the
 * optimal string alignment distance, ignoring ASCII case), at most 1 for
 * a word of up to 4 letters and 2 for a longer one; else the one name WORD
 * (3 letters or more) begins. On a tie the first in NAMES. */
const char *suggest_nearest(const char *word, const char *const *names, size_t n);

#endif
