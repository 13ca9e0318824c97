/* SPDX-License-Identifier: MIT */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(1099511628211);
	return h;
}

uint64_t hash_text(const char *s)
{
	return hash_bytes(HASH_START, s, strlen(s));
}

int hash_set_init(struct hash_set *s, size_t n, const char *(*key)(const void *item))
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	s->slots = calloc(cap, sizeof *s->slots);
	s->mask = cap - 1;
	s->key = key;
	return s->slots ? 0 : -1;
}

void hash_set_free(struct hash_set *s)
{
	free(s->slots);
	s->slots = NULL;
}

int hash_set_add(struct hash_set *s, const void *item, size_t value)
{
	size_t k = hash_text(s->key(item)) & s->mask;

	while (s->slots[k].item)
		k = (k + 1) & s->mask;
	s->slots[k] = (struct hash_entry){ item, value, false };
	return 0;
}

struct hash_entry *hash_set_find(const struct hash_set *s, const char *key)
{
	for (size_t k = hash_text(key) & s->mask; s->slots[k].item; k = (k + 1) & s->mask) {
		struct hash_entry *e = &s->slots[k];

		if (!e->taken && strcmp(s->key(e->item), key) == 0)
			return e;
	}
	return NULL;
}

bool hash_set_has(const struct hash_set *s, const char *key)
{
	return hash_set_find(s, key) != NULL;
}

bool hash_set_take(struct hash_set *s, const char *key, size_t *value)
{
	struct hash_entry *e = hash_set_find(s, key);

	if (!e)
		return false;
	e->taken = true;
	*value = e->value;
	return true;
}
