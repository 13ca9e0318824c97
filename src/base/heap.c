/* SPDX-License-Identifier: MIT */
#include "heap.h"

#include <stdbool.h>
#include <stdlib.h>

#include "buf.h"

void heap_init(struct heap *h)
{
	*h = (struct heap){ 0 };
}

void heap_free(struct heap *h)
{
	free(h->nodes);
	*h = (struct heap){ 0 };
}

static bool before(const struct heap_node *a, const struct heap_node *b)
{
	return a->key < b->key || (a->key == b->key && a->order < b->order);
}

static void place(struct heap *h, size_t i, struct heap_node *node)
{
	h->nodes[i] = node;
	node->index = i;
}

static void sift_up(struct heap *h, size_t i)
{
	struct heap_node *node = h->nodes[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(node, h->nodes[parent]))
			break;
		place(h, i, h->nodes[parent]);
		i = parent;
	}
	place(h, i, node);
}

static void sift_down(struct heap *h, size_t i)
{
	struct heap_node *node = h->nodes[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= h->n)
			break;
		if (child + 1 < h->n && before(h->nodes[child + 1], h->nodes[child]))
			child++;
		if (!before(h->nodes[child], node))
			break;
		place(h, i, h->nodes[child]);
		i = child;
	}
	place(h, i, node);
}

int heap_set(struct heap *h, struct heap_node *node, int64_t key)
{
	int64_t old = node->key;

	if (node->index != HEAP_ABSENT) {
		node->key = key;
		if (key < old)
			sift_up(h, node->index);
		else
			sift_down(h, node->index);
		return 0;
	}
	if (array_reserve(&h->nodes, &h->cap, h->n + 1, sizeof *h->nodes, SIZE_MAX) != 0)
		return -1;
	node->key = key;
	place(h, h->n++, node);
	sift_up(h, node->index);
	return 0;
}

void heap_remove(struct heap *h, struct heap_node *node)
{
	size_t i = node->index;
	struct heap_node *last;

	if (i == HEAP_ABSENT)
		return;
	node->index = HEAP_ABSENT;
	last = h->nodes[--h->n];
	if (last == node)
		return;
	place(h, i, last);
	sift_up(h, i);
	sift_down(h, last->index);
}
