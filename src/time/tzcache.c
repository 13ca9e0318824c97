/* SPDX-License-Identifier: MIT */
/* tzcache: the zones that parsed text names, each loaded once (see tz.h).
 * A list: a process meets a handful of zone names. */
#include "tz.h"

#include <stdlib.h>
#include <string.h>

struct cache_entry {
	char *name;
	struct tz *zone; /* NULL: known to be unknown */
	struct cache_entry *next;
};

struct tz_cache {
	struct cache_entry *head;
	int unknown; /* negative entries, bounded */
};

#define CACHE_MAX_UNKNOWN 64

struct tz_cache *tz_cache_new(void)
{
	return calloc(1, sizeof(struct tz_cache));
}

void tz_cache_free(struct tz_cache *cache)
{
	struct cache_entry *e, *next;

	if (!cache)
		return;
	for (e = cache->head; e; e = next) {
		next = e->next;
		tz_free(e->zone);
		free(e->name);
		free(e);
	}
	free(cache);
}

static struct cache_entry *cache_find(struct tz_cache *cache, const char *name)
{
	for (struct cache_entry *e = cache->head; e; e = e->next) {
		if (strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

/* Names come from parsed text ("… Europe/Berlin"), so, as systemd does, only
 * zoneinfo names (and "UTC") count: not TZ strings, not paths. */
const struct tz *tz_cache_lookup(void *arg, const char *name)
{
	struct tz_cache *cache = arg;
	struct cache_entry *e = cache_find(cache, name);
	struct tz *zone;

	if (e)
		return e->zone;
	zone = tz_load_named(name);
	if (!zone && strcmp(name, "UTC") == 0)
		zone = tz_load_utc();
	if (!zone && cache->unknown >= CACHE_MAX_UNKNOWN)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (e)
		e->name = strdup(name);
	if (!e || !e->name) {
		free(e);
		tz_free(zone);
		return NULL;
	}
	e->zone = zone;
	e->next = cache->head;
	cache->head = e;
	cache->unknown += !zone;
	return zone;
}
