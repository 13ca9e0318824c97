/* SPDX-License-Identifier: MIT */
/* nearest: the word of a set nearest to one that names none of them, for
 * a "did you mean" after a mistyped name: tfdctl's commands ("lst":
 * list) and a running tfd's job names ("ech": echo). Words are compared
 * as bytes. Pure. */
#ifndef TFD_NEAREST_H
#define TFD_NEAREST_H

#include <stddef.h>

/* Words longer than this are never near one (and cost no work). */
#define NEAREST_LEN_MAX 255

/* The edit distance from A to B (optimal string alignment: a byte
 * inserted, deleted or replaced, or two neighbours swapped, each 1), or
 * SIZE_MAX when either is longer than NEAREST_LEN_MAX. */
size_t nearest_distance(const char *a, const char *b);

/* The search: begun with the mistyped WORD, offered each candidate in
 * turn (the first of equal distance stays), asked for the best. */
struct nearest {
	const char *word;
	size_t limit;             /* the largest distance that is "near" */
	const char *best;         /* NULL: none yet */
	size_t distance;
};

void nearest_begin(struct nearest *n, const char *word);
void nearest_offer(struct nearest *n, const char *candidate);

/* The nearest candidate within the limit, or NULL: a word of up to 4
 * bytes may be 1 edit away, up to 8 bytes 2, longer 3 (and never the
 * whole word: "ab" is not near "xy"). */
const char *nearest_found(const struct nearest *n);

#endif
