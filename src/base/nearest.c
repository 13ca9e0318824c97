/* SPDX-License-Identifier: MIT */
#include "nearest.h"

#include <stdint.h>
#include <string.h>

#include "ascii.h"

/* A completion is offered only for a word this long: "dr" begins too
 * much to be a guess. */
#define COMPLETION_MIN 3

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

static bool same(char a, char b)
{
	return ascii_lower(a) == ascii_lower(b);
}

/* The distance from A (LA bytes) to B (LB), both at most NEAREST_LEN_MAX,
 * or some value above LIMIT as soon as it is certain to be above it (a
 * whole row is). Three rows of the table: the one two above (for a
 * swap), the one above, the one being filled. */
static size_t distance_within(const char *a, size_t la, const char *b, size_t lb, size_t limit)
{
	size_t rows[3][NEAREST_LEN_MAX + 1];
	size_t *two = rows[0], *up = rows[1], *row = rows[2];

	for (size_t j = 0; j <= lb; j++)
		up[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t least, *t;

		row[0] = least = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = !same(a[i - 1], b[j - 1]);

			row[j] = min3(up[j] + 1, row[j - 1] + 1, up[j - 1] + cost);
			if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) &&
			    same(a[i - 2], b[j - 1]) && two[j - 2] + 1 < row[j])
				row[j] = two[j - 2] + 1;
			if (row[j] < least)
				least = row[j];
		}
		if (least > limit)
			return least;
		t = two, two = up, up = row, row = t;
	}
	return up[lb];
}

size_t nearest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > NEAREST_LEN_MAX || lb > NEAREST_LEN_MAX)
		return SIZE_MAX;
	return distance_within(a, la, b, lb, SIZE_MAX);
}

void nearest_begin(struct nearest *n, const char *word)
{
	size_t len = strlen(word);

	*n = (struct nearest){ .word = word, .len = len, .distance = SIZE_MAX };
	n->limit = len <= 4 ? 1 : 2;
	if (n->limit >= len)
		n->limit = len > 0 ? len - 1 : 0;
}

/* CANDIDATE (LEN bytes) begins with the word and is longer. */
static void offer_completion(struct nearest *n, const char *candidate, size_t len)
{
	if (len <= n->len || !same_nocase(candidate, n->word, n->len))
		return;
	if (n->completion)
		n->completions = true;
	else
		n->completion = candidate;
}

void nearest_offer(struct nearest *n, const char *candidate)
{
	size_t len = strlen(candidate), d;

	if (n->len == 0 || n->len > NEAREST_LEN_MAX || len > NEAREST_LEN_MAX ||
	    strcmp(candidate, n->word) == 0)
		return;
	offer_completion(n, candidate, len);
	/* The lengths alone may rule it out, before any table. */
	if ((n->len > len ? n->len - len : len - n->len) > n->limit)
		return;
	d = distance_within(n->word, n->len, candidate, len, n->limit);
	if (d <= n->limit && d < n->distance) {
		n->best = candidate;
		n->distance = d;
	}
}

const char *nearest_found(const struct nearest *n)
{
	if (n->best)
		return n->best;
	if (n->len >= COMPLETION_MIN && !n->completions)
		return n->completion;
	return NULL;
}
