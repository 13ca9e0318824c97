/* SPDX-License-Identifier: MIT */
/* Unit tests for buf (the one byte buffer and growing array): text kept
 * in order across many growths, capacities that double from the first
 * and stop at the caller's limit, sizes that would overflow refused, a
 * failure that sticks until cleared, arrays of several element sizes and
 * a limit in elements. */
#include "buf.h"
#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under ASan a failed huge allocation returns NULL, as malloc(3) does,
 * instead of ending the test. */
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static bool is_power_of_two(size_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* 100,000 pieces of 1 to 37 bytes: every byte where it was put, and each
 * capacity a power of two that holds the text. */
static void test_put_many(void)
{
	struct buf b = { 0 };
	size_t want = 0;
	bool ok = true;

	for (unsigned i = 0; i < 100000 && ok; i++) {
		char piece[37];
		size_t n = i % 37 + 1;

		memset(piece, 'a' + (int)(i % 26), n);
		ok = buf_put(&b, piece, n) == 0 && b.len == want + n && b.cap >= b.len &&
		     is_power_of_two(b.cap);
		want += n;
	}
	check(ok && !b.failed, "100,000 pieces put: len %zu cap %zu", b.len, b.cap);
	for (unsigned i = 0, at = 0; i < 100000 && ok; i++) {
		size_t n = i % 37 + 1;

		for (size_t k = 0; k < n; k++)
			ok = ok && b.s[at + k] == 'a' + (int)(i % 26);
		at += (unsigned)n;
	}
	check(ok, "every piece where it was put");
	buf_free(&b);
	check(!b.s && b.len == 0 && b.cap == 0 && !b.failed, "buf_free empties it");
	check(buf_put(&b, "", 0) == 0 && b.len == 0, "an empty put on an empty buffer");
	buf_free(&b);
}

/* The limit: reached exactly, never passed, and the capacity stops there
 * even when doubling would pass it. */
static void test_limit(void)
{
	struct buf b = { 0 };

	check(buf_reserve(&b, 1000, 1000) == 0 && b.cap == 1000, "the limit reached: cap %zu",
	      b.cap);
	b.len = 1000;
	check(buf_reserve(&b, 0, 1000) == 0, "nothing more at the limit");
	check(buf_reserve(&b, 1, 1000) == -1 && b.failed && b.len == 1000 && b.cap == 1000,
	      "one byte past the limit refused");
	check(buf_reserve(&b, 0, 1000) == -1, "a failed buffer stays failed");
	b.failed = false;
	b.len = 600;
	check(buf_reserve(&b, 400, 1000) == 0 && b.cap == 1000, "cleared, it serves again");
	buf_free(&b);
	check(buf_reserve(&b, 300, 4096) == 0 && b.cap == 512, "doubled from 256: cap %zu", b.cap);
	buf_free(&b);
}

/* Sizes that wrap around or that no memory holds. */
static void test_overflow(void)
{
	struct buf b = { 0 };
	char c = 'x';

	check(buf_put(&b, &c, 1) == 0, "one byte");
	check(buf_reserve(&b, SIZE_MAX, SIZE_MAX) == -1 && b.failed && b.len == 1 && b.s[0] == 'x',
	      "len + SIZE_MAX wraps: refused, the text kept");
	b.failed = false;
	check(buf_reserve(&b, SIZE_MAX / 2, SIZE_MAX) == -1 && b.failed && b.s[0] == 'x',
	      "half the address space: no memory, the text kept");
	check(buf_put(&b, &c, 1) == -1 && b.len == 1, "then a put fails too (sticky)");
	buf_free(&b);
}

struct wide {
	char bytes[24];
};

static void test_array(void)
{
	struct wide *w = NULL;
	int *v = NULL;
	size_t cap = 0, wcap = 0;
	bool ok = true;

	check(array_reserve(&v, &cap, 0, sizeof *v, SIZE_MAX) == 0 && !v && cap == 0,
	      "nothing asked: nothing allocated");
	for (int i = 0; i < 10000 && ok; i++) {
		ok = array_reserve(&v, &cap, (size_t)i + 1, sizeof *v, SIZE_MAX) == 0 &&
		     cap >= (size_t)i + 1 && is_power_of_two(cap);
		if (ok)
			v[i] = i;
	}
	for (int i = 0; i < 10000 && ok; i++)
		ok = v[i] == i;
	check(ok && cap == 16384, "10,000 ints kept in order: cap %zu", cap);
	free(v);
	check(array_reserve(&w, &wcap, 5, sizeof *w, 20) == 0 && wcap == 8, "first cap 8: %zu",
	      wcap);
	check(array_reserve(&w, &wcap, 17, sizeof *w, 20) == 0 && wcap == 20,
	      "the limit in elements stops the doubling: %zu", wcap);
	check(array_reserve(&w, &wcap, 21, sizeof *w, 20) == -1 && wcap == 20 && w,
	      "past the limit: refused, the array as it was");
	check(array_reserve(&w, &wcap, SIZE_MAX / 8, sizeof *w, SIZE_MAX) == -1 && wcap == 20,
	      "a byte count that wraps: refused");
	/* Past PTRDIFF_MAX bytes, which malloc refuses on every platform (an
	 * eighth of SIZE_MAX fits a 32-bit process's memory). */
	check(array_reserve(&w, &wcap, (size_t)PTRDIFF_MAX / sizeof *w + 1, sizeof *w, SIZE_MAX) ==
			      -1 &&
		      wcap == 20,
	      "more than memory holds: refused, the array as it was");
	w[19].bytes[0] = 'z';
	check(w[19].bytes[0] == 'z', "the last element is there");
	free(w);
}

int main(void)
{
	test_put_many();
	test_limit();
	test_overflow();
	test_array();
	return tally_finish(&tally, "buf");
}
