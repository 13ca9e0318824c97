/* SPDX-License-Identifier: MIT */
/* tz: time zones read from TZif files (zoneinfo) and POSIX TZ strings.
 *
 * Loading (tz_load, the cache) does file I/O; every conversion below is pure
 * and works on a loaded zone, so parsers and schedulers can take a zone as an
 * argument instead of consulting the process-wide TZ through localtime(3). */
#ifndef TFD_TZ_H
#define TFD_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tz;

/* Loads a zone. NAME may be an IANA name ("Europe/Berlin", looked up under
 * $TZDIR or /usr/share/zoneinfo), an absolute path, a POSIX TZ string
 * ("CET-1CEST,M3.5.0,M10.5.0/3", "UTC0") or ":NAME". NULL means the zone the
 * process would use: $TZ if set (empty = UTC), else /etc/localtime, else UTC.
 * Returns NULL and a one-line reason in err when the zone is unknown. */
struct tz *tz_load(const char *name, char *err, size_t errlen);
void tz_free(struct tz *zone);

/* A zone that is always UTC; never fails. */
struct tz *tz_load_utc(void);

/* NAME looked up in the zone directory only ("Europe/Berlin"): not a TZ
 * string, not a path, nothing with "..". NULL when there is none. */
struct tz *tz_load_named(const char *name);

/* Offset east of UTC in seconds in effect at instant T (seconds since the
 * epoch). *isdst (may be NULL) is set to 1 in daylight time. */
int32_t tz_offset_at(const struct tz *zone, int64_t t, int *isdst);

/* Maps a local wall time, given as seconds since the epoch counted as if the
 * wall clock were UTC, to instants. Returns how many instants show that wall
 * time: 1 normally, 2 in a repeated (fall-back) hour with out[0] < out[1],
 * 0 in a skipped (spring-forward) gap. For a gap, out[0] is the wall time read
 * with the offset in force before the gap (so it lands after the gap, moved
 * forward by the gap's length) and out[1] is the instant the gap ends. */
int tz_local_to_utc(const struct tz *zone, int64_t local, int64_t out[2]);

/* mktime(3) as glibc computes it in ZONE, because systemd's answers are
 * made of it. LOCAL is the wall time as seconds counted as if the wall clock
 * were UTC (seconds 0..59: the caller adds a leap second's excess);
 * WANT_DST is tm_isdst: -1 (either), 0 or 1. *GUESS is the offset (local
 * minus UTC, seconds) glibc remembers from its previous call and starts
 * from; a fresh process has 0. It is updated as glibc updates it.
 *
 * In a repeated (fall-back) hour the answer is the occurrence the search
 * from *GUESS meets first, or the one WANT_DST names; in a skipped hour the
 * search alternates between the two sides of the gap and settles on the
 * daylight side (or the side WANT_DST does not name). A WANT_DST that the
 * zone does not have at that time borrows the offset of the nearest instant
 * that has it. Returns false where glibc fails (and on overflow). */
bool tz_mktime(const struct tz *zone, int64_t local, int want_dst, int64_t *guess, int64_t *out);

/* The abbreviation localtime(3) gives for instant T (tm_zone: "CET",
 * "CEST", "+1030"). Never NULL. */
const char *tz_abbr_at(const struct tz *zone, int64_t t);

/* Whether NAME can be a zone name as systemd accepts one in a timestamp or
 * calendar event: letters, digits, '-', '_', '+' and single slashes between
 * parts, so never a file path or a POSIX TZ string. */
bool tz_name_plausible(const char *name);

/* The zone's standard and daylight abbreviations as glibc's tzname[0] and
 * tzname[1] give them right after tzset() has loaded the zone, before any
 * conversion ("CET", "CEST"): those of the last standard and the last
 * daylight type the transitions switch to. dst may equal std for zones
 * without daylight time. Never NULL. */
const char *tz_std_abbr(const struct tz *zone);
const char *tz_dst_abbr(const struct tz *zone);

/* The abbreviations glibc's tzname[0] and tzname[1] hold right after
 * localtime_r(T) in this zone (T in seconds since the epoch); every
 * conversion rewrites them. Within the transition table: the type in force
 * at T names its own kind (standard or daylight), and the first later
 * transition to the other kind names that one. From the last transition
 * on: the names in the zone's POSIX rule. Before the first transition (or
 * without any): the first standard and the first daylight type. A kind
 * left without a name takes the other's, so neither is NULL; Asia/Tokyo
 * has JST/JDT in 1950 and JST/JST from 1952. */
void tz_abbrs_at(const struct tz *zone, int64_t t, const char **std, const char **dst);

/* A lookup from zone name to loaded zone, injected into the pure parsers so
 * they can resolve "… Europe/Berlin" without doing I/O themselves. Returns
 * NULL for an unknown name. The zone stays owned by whoever supplied it. */
typedef const struct tz *(*tz_lookup_fn)(void *arg, const char *name);

/* A small cache of loaded zones that is such a lookup (the I/O side;
 * tzcache.c). */
struct tz_cache;
struct tz_cache *tz_cache_new(void);
void tz_cache_free(struct tz_cache *cache);
const struct tz *tz_cache_lookup(void *cache, const char *name);

#endif
