/* SPDX-License-Identifier: MIT */
#include "buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The first capacities: a short line, a few elements. */
#define BUF_FIRST 256
#define ARRAY_FIRST 8

/* CAP (FIRST when 0) doubled until it holds NEED, never past MAX; NEED is
 * at most MAX, so the doubling cannot overflow. */
static size_t grown(size_t cap, size_t first, size_t need, size_t max)
{
	if (cap == 0)
		cap = first;
	while (cap < need)
		cap = cap > max / 2 ? max : cap * 2;
	return cap < max ? cap : max;
}

int buf_grow(struct buf *b, size_t more, size_t max)
{
	size_t need, cap;
	char *s;

	if (b->failed || __builtin_add_overflow(b->len, more, &need) || need > max)
		goto fail;
	if (need <= b->cap)
		return 0;
	cap = grown(b->cap, BUF_FIRST, need, max);
	s = realloc(b->s, cap);
	if (!s)
		goto fail;
	b->s = s;
	b->cap = cap;
	return 0;
fail:
	b->failed = true;
	return -1;
}

int buf_put(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n, SIZE_MAX) != 0)
		return -1;
	if (n > 0)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	return 0;
}

void buf_free(struct buf *b)
{
	free(b->s);
	*b = (struct buf){ 0 };
}

/* The caller's pointer is read and written as bytes, so that one function
 * serves arrays of every type without reading a `struct x *` through a
 * `void *` lvalue (which the aliasing rules forbid). */
int array_grow(void *array, size_t *cap, size_t n, size_t elem, size_t max)
{
	void *old, *p;
	size_t want;

	if (n <= *cap)
		return 0;
	if (max > SIZE_MAX / elem)
		max = SIZE_MAX / elem;
	if (n > max)
		return -1;
	want = grown(*cap, ARRAY_FIRST, n, max);
	memcpy(&old, array, sizeof old);
	p = realloc(old, want * elem);
	if (!p)
		return -1;
	memcpy(array, &p, sizeof p);
	*cap = want;
	/* P is the caller's now (cppcheck does not follow the memcpy). */
	/* cppcheck-suppress memleak */
	return 0;
}
