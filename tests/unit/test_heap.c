/* SPDX-License-Identifier: MIT */
/* Unit tests for heap (the schedule's and the deadlines' indexed min-heap):
 * random inserts, removals and key changes, up and down, checked after
 * every step against a plain reference (which nodes are in, with which
 * key), with the heap's own invariants (every node knows its index, no
 * child is smaller than its parent); then emptied in order and compared
 * with the sorted keys. Also: ties, the ends of int64_t, removing what is
 * not in, and reuse after heap_free. */
#include "harness.h"
#include "heap.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES 300

struct item {
	struct heap_node node;
	bool in; /* the reference: is it in, with what key */
	int64_t key;
};

static struct item items[NODES];

static void reset_items(void)
{
	for (size_t i = 0; i < NODES; i++)
		items[i] = (struct item){ .node = { .index = HEAP_ABSENT, .item = &items[i] } };
}

/* The heap's own invariants; returns false (and says why) on the first
 * broken one. */
static bool heap_sound(const struct heap *h, const char *step)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct heap_node *n = h->nodes[i];

		if (n->index != i) {
			check(false, "%s: the node at %zu thinks it is at %zu", step, i, n->index);
			return false;
		}
		if (i > 0 && h->nodes[(i - 1) / 2]->key > n->key) {
			check(false,
			      "%s: the node at %zu (%" PRId64 ") is below a larger parent (%" PRId64
			      ")",
			      step, i, n->key, h->nodes[(i - 1) / 2]->key);
			return false;
		}
	}
	return true;
}

/* The heap agrees with the reference: the same count, the same keys and
 * positions of what is in, HEAP_ABSENT for what is not, the same minimum. */
static bool agrees(const struct heap *h, const char *step)
{
	size_t in = 0;
	int64_t min = INT64_MAX;

	for (size_t i = 0; i < NODES; i++) {
		const struct item *it = &items[i];

		if (!it->in) {
			if (it->node.index != HEAP_ABSENT) {
				check(false, "%s: item %zu is out but has index %zu", step, i,
				      it->node.index);
				return false;
			}
			continue;
		}
		in++;
		if (it->node.index >= h->n || h->nodes[it->node.index] != &it->node ||
		    it->node.key != it->key) {
			check(false,
			      "%s: item %zu is not where it says, or has key %" PRId64
			      " for %" PRId64,
			      step, i, it->node.key, it->key);
			return false;
		}
		if (it->key < min)
			min = it->key;
	}
	if (in != h->n || heap_min_key(h) != min || (in == 0) != (heap_top(h) == NULL) ||
	    (in && heap_top(h)->key != min)) {
		check(false, "%s: %zu in for %zu, minimum %" PRId64 " for %" PRId64, step, h->n, in,
		      heap_min_key(h), min);
		return false;
	}
	return heap_sound(h, step);
}

/* Keys from a small range (many ties), a wide one, and the ends. */
static int64_t random_key(void)
{
	switch (rand() % 8) {
	case 0:
		return INT64_MAX - rand() % 3;
	case 1:
		return INT64_MIN + rand() % 3;
	case 2:
	case 3:
		return rand() % 20;
	default:
		return ((int64_t)rand() << 31 | rand()) - ((int64_t)1 << 52);
	}
}

static int compare_keys(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Empties H from the top: keys come out in the order of the sorted
 * reference, and every node taken is marked absent. */
static void drain_in_order(struct heap *h, const char *what)
{
	int64_t want[NODES] = { 0 };
	size_t n = 0, k = 0;
	bool ok = true;

	for (size_t i = 0; i < NODES; i++)
		if (items[i].in)
			want[n++] = items[i].key;
	qsort(want, n, sizeof *want, compare_keys);
	while (heap_top(h)) {
		struct heap_node *top = heap_top(h);
		struct item *it = top->item;

		ok = ok && k < n && top->key == want[k];
		k++;
		heap_remove(h, top);
		it->in = false;
		ok = ok && top->index == HEAP_ABSENT;
	}
	check(ok && k == n, "%s: %zu keys drained of %zu in, %s", what, k, n,
	      ok ? "in order" : "out of order");
	check(h->n == 0 && heap_min_key(h) == INT64_MAX, "%s: empty after draining", what);
}

static void test_random(unsigned seed, int steps)
{
	struct heap h;
	char step[64];

	srand(seed);
	heap_init(&h);
	reset_items();
	for (int s = 0; s < steps; s++) {
		struct item *it = &items[(size_t)rand() % NODES];
		int op = rand() % 10;

		if (op < 6) {
			/* In, or a key change up, down or to the same. */
			int64_t key = op == 5 && it->in ? it->key : random_key();

			snprintf(step, sizeof step, "seed %u step %d: set %" PRId64, seed, s, key);
			check(heap_set(&h, &it->node, key) == 0, "%s: heap_set failed", step);
			it->in = true;
			it->key = key;
		} else {
			snprintf(step, sizeof step, "seed %u step %d: remove", seed, s);
			heap_remove(&h, &it->node);
			it->in = false;
		}
		if (!agrees(&h, step))
			break;
	}
	snprintf(step, sizeof step, "seed %u", seed);
	drain_in_order(&h, step);
	heap_free(&h);
	check(h.nodes == NULL && h.n == 0 && h.cap == 0, "heap_free empties the heap");
}

static void test_edges(void)
{
	struct heap h;

	heap_init(&h);
	reset_items();
	check(heap_top(&h) == NULL && heap_min_key(&h) == INT64_MAX, "a new heap is empty");
	/* Removing what is not in changes nothing. */
	heap_remove(&h, &items[0].node);
	check(h.n == 0 && items[0].node.index == HEAP_ABSENT, "removing an absent node");
	/* Ties: all in, all out, whatever order they come. */
	for (size_t i = 0; i < 40; i++) {
		heap_set(&h, &items[i].node, 7);
		items[i].in = true;
		items[i].key = 7;
	}
	agrees(&h, "40 equal keys");
	/* The ends of int64_t. */
	heap_set(&h, &items[40].node, INT64_MAX);
	heap_set(&h, &items[41].node, INT64_MIN);
	items[40] = (struct item){ items[40].node, true, INT64_MAX };
	items[41] = (struct item){ items[41].node, true, INT64_MIN };
	agrees(&h, "INT64_MIN and INT64_MAX");
	check(heap_top(&h) == &items[41].node, "INT64_MIN is the top");
	/* The top moved to the bottom, and the last node removed. */
	heap_set(&h, &items[41].node, INT64_MAX);
	items[41].key = INT64_MAX;
	agrees(&h, "the top moved to INT64_MAX");
	heap_remove(&h, h.nodes[h.n - 1]);
	for (size_t i = 0; i < NODES; i++)
		items[i].in = items[i].node.index != HEAP_ABSENT;
	agrees(&h, "the last node removed");
	drain_in_order(&h, "edges");
	heap_free(&h);
	/* A freed heap serves again. */
	heap_set(&h, &items[3].node, 1);
	items[3].in = true;
	items[3].key = 1;
	agrees(&h, "reuse after heap_free");
	heap_remove(&h, &items[3].node);
	items[3].in = false;
	agrees(&h, "empty again");
	heap_free(&h);
}

int main(void)
{
	test_edges();
	for (unsigned seed = 1; seed <= 20; seed++)
		test_random(seed, 4000);
	return tally_finish(&tally, "heap");
}
