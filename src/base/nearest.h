/* SPDX-License-Identifier: MIT */
/* nearest: the word of a set nearest to one that names none of them, for
 * every "did you mean" of tfd and tfdctl: tfd's options ("--intreval":
 * --interval, on the command line and on a jobs file's line), tfdctl's
 * commands ("lst": list) and a running tfd's job names ("ech": echo).
 * The candidates are offered one at a time, so that a caller needs no
 * array of them (a table of jobs, popt's tables). Pure. */
#ifndef TFD_NEAREST_H
#define TFD_NEAREST_H

#include <stdbool.h>
#include <stddef.h>

/* Words longer than this are never near one (and cost no work). */
#define NEAREST_LEN_MAX 255

/* The edit distance from A to B (optimal string alignment: a byte
 * inserted, deleted or replaced, or two neighbours swapped, each 1;
 * ASCII letters equal whatever their case), or SIZE_MAX when either is
 * longer than NEAREST_LEN_MAX. */
size_t nearest_distance(const char *a, const char *b);

/* The search: begun with the mistyped WORD, offered each candidate in
 * turn, asked for what it found. The rule, the one of every "did you
 * mean" (tfd(1) DIAGNOSTICS says it):
 * - the candidate fewest edits away (nearest_distance), when that is at
 *   most 1 for a word of up to 4 bytes and 2 for a longer one, and fewer
 *   than the word's own length ("ab" is not near "xy"); the first
 *   offered of equals. (3 would take "fleet-dead" for --fleet-lease,
 *   where it begins --fleet-deadline);
 * - else, for a word of 3 bytes or more, the one candidate that begins
 *   with it (case ignored): "dry" is --dry-run; none when several do;
 * - never the word itself: a word of the set is not a mistake. */
struct nearest {
	const char *word;
	size_t len;       /* of WORD */
	size_t limit;     /* the largest distance that is "near" */
	const char *best; /* NULL: none yet */
	size_t distance;
	const char *completion; /* the first candidate that begins with WORD */
	bool completions;       /* more than one does */
};

void nearest_begin(struct nearest *n, const char *word);
void nearest_offer(struct nearest *n, const char *candidate);

/* The candidate the rule above finds, or NULL. */
const char *nearest_found(const struct nearest *n);

#endif
