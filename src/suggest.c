/* SPDX-License-Identifier: MIT */
#include "suggest.h"

#include <stdbool.h>
#include <string.h>

#include "ascii.h"

/* The optimal string alignment distance between A and B (ASCII case
 * ignored), or LIMIT + 1 once it is certain to be more than LIMIT. Both
 * are at most SUGGEST_WORD_MAX bytes. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb, size_t limit)
{
	size_t rows[3][SUGGEST_WORD_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if ((na > nb ? na - nb : nb - na) > limit)
		return limit + 1;
	for (size_t j = 0; j <= nb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t best;
		size_t *t;

		cur[0] = best = i;
		for (size_t j = 1; j <= nb; j++) {
			bool same = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]);
			size_t d = prev[j - 1] + !same;

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ascii_lower(a[i - 1]) == ascii_lower(b[j - 2]) &&
			    ascii_lower(a[i - 2]) == ascii_lower(b[j - 1]) && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > limit)
			return limit + 1;
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb];
}

/* The one name that begins with WORD, or NULL for none or several. */
static const char *only_completion(const char *word, size_t len, const char *const *names,
				   size_t n)
{
	const char *found = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!names[i] || strlen(names[i]) <= len || !same_nocase(names[i], word, len))
			continue;
		if (found)
			return NULL;
		found = names[i];
	}
	return found;
}

const char *suggest_nearest(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word), limit = len <= 4 ? 1 : 2, best = limit + 1;
	const char *nearest = NULL;

	if (len == 0 || len > SUGGEST_WORD_MAX)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d, nlen = names[i] ? strlen(names[i]) : 0;

		if (nlen == 0 || nlen > SUGGEST_WORD_MAX)
			continue;
		d = distance(word, len, names[i], nlen, limit);
		if (d < best) {
			best = d;
			nearest = names[i];
		}
	}
	if (nearest || len < 3)
		return nearest;
	return only_completion(word, len, names, n);
}
