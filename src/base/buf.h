/* SPDX-License-Identifier: MIT */
/* buf: the one way tfd grows memory, as skalibs' stralloc and genalloc are
 * for its tools: a byte buffer and a growing array, whose sizes are
 * overflow-checked here and nowhere else. Both double as they fill, up to
 * a limit the caller names. A buffer remembers that it could not grow, so
 * a writer can put many pieces and look once at the end. */
#ifndef TFD_BUF_H
#define TFD_BUF_H

#include <stdbool.h>
#include <stddef.h>

/* Zeroed is empty. */
struct buf {
	char *s; /* s[0..len) is the text; NULL until something is kept */
	size_t len, cap;
	bool failed; /* a reserve failed: sticky, until its owner clears it */
};

/* The slow paths of the two below: they grow. */
int buf_grow(struct buf *b, size_t more, size_t max);
int array_grow(void *array, size_t *cap, size_t n, size_t elem, size_t max);

/* Room for MORE bytes after b->len, the capacity never above MAX bytes.
 * Returns 0, or -1 with b->failed set when len + MORE is past MAX, when
 * memory ran out, or when B had failed before (then B is as it was). */
static inline int buf_reserve(struct buf *b, size_t more, size_t max)
{
	/* len <= cap, so the subtraction cannot wrap; cap <= max, so the
	 * room found is under MAX. */
	if (!b->failed && more <= b->cap - b->len && b->cap <= max)
		return 0;
	return buf_grow(b, more, max);
}

/* Appends the N bytes at P; returns as buf_reserve (no limit). */
int buf_put(struct buf *b, const void *p, size_t n);

/* Frees B's text and empties it. */
void buf_free(struct buf *b);

/* Makes the array whose pointer is at ARRAY (the address of the caller's
 * pointer, of any object type; NULL while *CAP is 0) hold at least N
 * elements of ELEM bytes, never more than MAX. Returns 0, or -1 when N is
 * past MAX or memory ran out (then the array is as it was). */
static inline int array_reserve(void *array, size_t *cap, size_t n, size_t elem, size_t max)
{
	return n <= *cap ? 0 : array_grow(array, cap, n, elem, max);
}

#endif
