/* SPDX-License-Identifier: MIT */
#include "nearest.h"

#include <stdint.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Three rows of the table: the one two above (for a swap), the one
 * above, the one being filled. */
size_t nearest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][NEAREST_LEN_MAX + 1];
	size_t *two = rows[0], *up = rows[1], *row = rows[2];

	if (la > NEAREST_LEN_MAX || lb > NEAREST_LEN_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		up[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			row[j] = min3(up[j] + 1, row[j - 1] + 1, up[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    two[j - 2] + 1 < row[j])
				row[j] = two[j - 2] + 1;
		}
		t = two, two = up, up = row, row = t;
	}
	return up[lb];
}

void nearest_begin(struct nearest *n, const char *word)
{
	size_t len = strlen(word);

	n->word = word;
	n->limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	if (n->limit >= len)
		n->limit = len > 0 ? len - 1 : 0;
	n->best = NULL;
	n->distance = SIZE_MAX;
}

void nearest_offer(struct nearest *n, const char *candidate)
{
	size_t la = strlen(n->word), lb = strlen(candidate);
	size_t d;

	/* The lengths alone may rule it out, before any table. */
	if ((la > lb ? la - lb : lb - la) > n->limit)
		return;
	d = nearest_distance(n->word, candidate);
	if (d > 0 && d <= n->limit && d < n->distance) {
		n->best = candidate;
		n->distance = d;
	}
}

const char *nearest_found(const struct nearest *n)
{
	return n->best;
}
