/* SPDX-License-Identifier: MIT */
/* hash: FNV-1a, the one hash of bytes, and the one open-addressing hash set of
 * items keyed by a string each item carries, with a number beside each.
 * It is a multiset (two equal keys are two entries) from which a match can
 * be taken out: the reload's merge keys old jobs by identity. Looking up
 * and adding serve as a set: the job table's names, with the next suffix
 * to try beside each. Its size is fixed at init. Pure. */
#ifndef TFD_HASH_H
#define TFD_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FNV-1a (64 bits): HASH_START, then each piece's N bytes at P folded
 * into the hash so far by hash_bytes, which returns the new hash. Pieces
 * hash as their bytes joined: a caller that must tell "ab","c" from
 * "a","bc" hashes an end of its own after each. */
#define HASH_START UINT64_C(14695981039346656037)
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);

/* The hash of the string S (its bytes, without the NUL). */
uint64_t hash_text(const char *s);

struct hash_entry {
	const void *item; /* NULL: empty */
	size_t value;
	bool taken; /* a tombstone: the probe goes on past it */
};

struct hash_set {
	struct hash_entry *slots;
	size_t mask;
	const char *(*key)(const void *item);
};

/* Room for N items without growing. Returns 0, or -1 when memory ran out. */
int hash_set_init(struct hash_set *s, size_t n, const char *(*key)(const void *item));
void hash_set_free(struct hash_set *s);

/* Adds ITEM with VALUE (at most the N given to init). Returns 0. */
int hash_set_add(struct hash_set *s, const void *item, size_t value);

/* The entry of an item whose key is KEY and that was not taken out, or
 * NULL; its value may be changed in place. */
struct hash_entry *hash_set_find(const struct hash_set *s, const char *key);

/* Whether an item whose key is KEY is in the set (and not taken out). */
bool hash_set_has(const struct hash_set *s, const char *key);

/* Takes out one item whose key is KEY: true and its value in *value. */
bool hash_set_take(struct hash_set *s, const char *key, size_t *value);

#endif
