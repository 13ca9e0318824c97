/* SPDX-License-Identifier: MIT */
/* heap: an indexed binary min-heap of items keyed by an int64_t instant.
 * Each item keeps its own position (an index the heap maintains), so a key
 * can change or an item leave in O(log n): the schedule keeps every job's
 * next elapse in one, the deadlines (timeouts, graces, retries, delays) in
 * another, and the earliest is always heap_top(). Pure: no I/O. */
#ifndef TFD_HEAP_H
#define TFD_HEAP_H

#include <stddef.h>
#include <stdint.h>

#define HEAP_ABSENT ((size_t)-1)

/* Embedded in an item: its key and where it sits (HEAP_ABSENT: not in). */
struct heap_node {
	int64_t key;
	size_t order; /* breaks ties between equal keys: smaller first */
	size_t index;
	void *item;
};

struct heap {
	struct heap_node **nodes;
	size_t n, cap;
};

void heap_init(struct heap *h);
void heap_free(struct heap *h);

/* Puts NODE in with KEY, or moves it there if it is in. Returns 0, or -1
 * when memory ran out (the heap is unchanged). */
int heap_set(struct heap *h, struct heap_node *node, int64_t key);

/* Takes NODE out if it is in. */
void heap_remove(struct heap *h, struct heap_node *node);

/* The node with the smallest key, or NULL when empty. */
static inline struct heap_node *heap_top(const struct heap *h)
{
	return h->n ? h->nodes[0] : NULL;
}

static inline int64_t heap_min_key(const struct heap *h)
{
	return h->n ? h->nodes[0]->key : INT64_MAX;
}

#endif
