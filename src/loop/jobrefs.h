/* SPDX-License-Identifier: MIT */
/* jobrefs: the jobs of the table at one moment, held by an answer that is
 * made in slices across turns of the loop (the list of jobview.h,
 * /metrics' figures). A job that a reload frees meanwhile must never be
 * read again: whenever jobs were freed since the last look (the loop
 * counts them, l->jobs_dropped), one pass over the table finds which of
 * the held ones are gone, so a reload that drops thousands costs each
 * answer under way one pass, not one per job. A job that a reload adds
 * meanwhile is not among them, unless it took the memory of one freed
 * (it is then held in that one's place). */
#ifndef TFD_JOBREFS_H
#define TFD_JOBREFS_H

#include <stddef.h>
#include <stdint.h>

struct loop;
struct job;

struct jobrefs {
	const struct job **jobs; /* NULL: freed since it was taken */
	size_t n;
	uint64_t dropped; /* l->jobs_dropped at the last look */
};

/* The jobs of L's table now, those a reload removed left out. Returns 0,
 * or -1 when memory ran out (R is then empty). */
int jobrefs_take(struct jobrefs *r, const struct loop *l);

/* Jobs R->jobs[FROM..] that were freed since the last look are set to
 * NULL. Returns 0, or -1 when memory ran out. */
int jobrefs_check(struct jobrefs *r, const struct loop *l, size_t from);

void jobrefs_free(struct jobrefs *r);

#endif
