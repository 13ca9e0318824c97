/* SPDX-License-Identifier: MIT */
/* Unit tests for hash: FNV-1a against its published vectors, whole and in
 * pieces; the hash set
 * as a set (find, add, a value changed in place) and as a multiset (equal
 * keys are entries of their own, taken out one at a time, each with its
 * own value), filled to the size given at init so that probes wrap and
 * pass taken entries. */
#include "harness.h"
#include "hash.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void test_fnv(void)
{
	static const struct {
		const char *text;
		uint64_t hash;
	} vectors[] = {
		/* FNV-1a 64-bit: the offset basis, and the reference vectors. */
		{ "", UINT64_C(0xcbf29ce484222325) },
		{ "a", UINT64_C(0xaf63dc4c8601ec8c) },
		{ "foobar", UINT64_C(0x85944171f73967e8) },
	};

	for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++)
		check(hash_text(vectors[i].text) == vectors[i].hash, "hash of \"%s\": %016" PRIx64,
		      vectors[i].text, hash_text(vectors[i].text));
	/* Pieces hash as their bytes joined; a NUL is a byte as any. */
	check(hash_bytes(hash_bytes(HASH_START, "foo", 3), "bar", 3) == hash_text("foobar"),
	      "foo, bar: foobar");
	check(hash_bytes(HASH_START, "", 0) == HASH_START, "no bytes: the start");
	check(hash_bytes(HASH_START, "a\0", 2) != hash_text("a"), "a NUL counts");
}

/* Items are the keys themselves. */
static const char *key_of(const void *item)
{
	return item;
}

#define N 200

static void test_set(void)
{
	static char names[N][16];
	struct hash_set s;
	struct hash_entry *e;

	check(hash_set_init(&s, N, key_of) == 0, "init");
	check(hash_set_find(&s, "x") == NULL, "an empty set finds nothing");
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "job-%zu", i);
		hash_set_add(&s, names[i], i);
	}
	for (size_t i = 0; i < N; i++) {
		e = hash_set_find(&s, names[i]);
		check(e && e->item == names[i] && e->value == i, "find %s", names[i]);
	}
	check(hash_set_find(&s, "job-") == NULL && hash_set_find(&s, "job-200") == NULL,
	      "a key never added is not found");
	/* A value changed through find stays changed. */
	e = hash_set_find(&s, "job-7");
	if (e)
		e->value = 1000;
	e = hash_set_find(&s, "job-7");
	check(e && e->value == 1000, "a value changed in place");
	hash_set_free(&s);
	check(s.slots == NULL, "free forgets the slots");
}

static void test_multiset(void)
{
	/* Three equal keys in separate buffers, as two jobs with the same
	 * identity are: each is an entry of its own. */
	static char a[] = "same", b[] = "same", c[] = "same", d[] = "other";
	struct hash_set s;
	size_t value = 99, seen = 0;

	check(hash_set_init(&s, 4, key_of) == 0, "init");
	hash_set_add(&s, a, 1);
	hash_set_add(&s, d, 4);
	hash_set_add(&s, b, 2);
	hash_set_add(&s, c, 3);
	for (int i = 0; i < 3; i++) {
		check(hash_set_take(&s, "same", &value), "take %d of 3", i + 1);
		check(value >= 1 && value <= 3 && !(seen & (1u << value)),
		      "take %d: value %zu, once", i + 1, value);
		seen |= 1u << value;
	}
	value = 99;
	check(!hash_set_take(&s, "same", &value) && value == 99,
	      "a fourth take finds none and leaves the value alone");
	check(hash_set_find(&s, "same") == NULL, "find skips what was taken");
	check(hash_set_take(&s, "other", &value) && value == 4,
	      "a key past the taken entries is still found");
	hash_set_free(&s);
}

/* Many keys into the smallest table they fit: chains run long and wrap
 * round the end of the slots; every take finds its own. */
static void test_full(void)
{
	static char names[N][16];
	struct hash_set s;

	check(hash_set_init(&s, N, key_of) == 0, "init");
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "%zu", i % (N / 2));
		hash_set_add(&s, names[i], i);
	}
	for (size_t i = 0; i < N; i++) {
		size_t value;
		char key[16];

		snprintf(key, sizeof key, "%zu", i % (N / 2));
		check(hash_set_take(&s, key, &value) && value % (N / 2) == i % (N / 2), "take %s",
		      key);
	}
	for (size_t i = 0; i < N; i++)
		check(hash_set_find(&s, names[i]) == NULL, "%s all taken", names[i]);
	hash_set_free(&s);
}

int main(void)
{
	test_fnv();
	test_set();
	test_multiset();
	test_full();
	return tally_finish(&tally, "hash");
}
