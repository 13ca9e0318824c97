/* SPDX-License-Identifier: MIT */
/* tz: time zones from TZif files (RFC 8536) and POSIX TZ strings.
 *
 * A zone is a sorted table of transitions, each naming a local time type
 * (offset, daylight flag, abbreviation), plus an optional POSIX rule that
 * takes over after the last transition (the TZif footer) or describes the
 * whole zone (a TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3"): the rules
 * are tzrule.c's, the cache of named zones tzcache.c's; here are TZif
 * reading, loading and the conversions. */
#include "tz.h"

#include "ascii.h"
#include "tzrule.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* RFC 8536 asks offsets to stay within -25:59:59..+25:59:59; the window that
 * tz_local_to_utc searches relies on that bound. */
#define MAX_UTOFF (26 * 3600)
#define TZIF_MAX_SIZE (4 << 20)
#define DEFAULT_TZDIR "/usr/share/zoneinfo"

struct ttype {
	int32_t utoff;
	bool isdst;
	uint32_t abbr; /* index into the zone's abbreviation characters */
};

struct tz {
	size_t ntrans;
	int64_t *trans;      /* ascending instants */
	uint8_t *trans_type; /* type in force from trans[i] on */
	size_t ntypes;
	struct ttype *types; /* types[0] also holds before trans[0] */
	char *abbrs;
	bool has_rule; /* rule governs from the last transition on */
	struct posix_tz rule;
	const char *std_abbr; /* point into abbrs or rule */
	const char *dst_abbr;
	bool is_static;
};

/* TZif reading */

struct tzif_header {
	int version;
	uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

#define TZIF_HEADER_SIZE 44

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

static bool read_tzif_header(const unsigned char *p, size_t len, struct tzif_header *h)
{
	if (len < TZIF_HEADER_SIZE || memcmp(p, "TZif", 4) != 0 ||
	    (p[4] != '\0' && (p[4] < '2' || p[4] > '9')))
		return false;
	h->version = p[4] == '\0' ? 1 : p[4] - '0';
	h->isutcnt = be32(p + 20);
	h->isstdcnt = be32(p + 24);
	h->leapcnt = be32(p + 28);
	h->timecnt = be32(p + 32);
	h->typecnt = be32(p + 36);
	h->charcnt = be32(p + 40);
	/* Bounds that keep the size arithmetic below far from overflow. */
	/* clang-format off */
	return h->typecnt >= 1 && h->typecnt <= 256 &&
	       h->charcnt >= 1 && h->charcnt <= 65536 &&
	       h->timecnt <= TZIF_MAX_SIZE && h->leapcnt <= TZIF_MAX_SIZE &&
	       (h->isstdcnt == 0 || h->isstdcnt == h->typecnt) &&
	       (h->isutcnt == 0 || h->isutcnt == h->typecnt);
	/* clang-format on */
}

static size_t tzif_block_size(const struct tzif_header *h, size_t time_size)
{
	return h->timecnt * time_size + h->timecnt + h->typecnt * 6 + h->charcnt +
	       h->leapcnt * (time_size + 4) + h->isstdcnt + h->isutcnt;
}

/* Copies one data block (transitions, types, abbreviations) into ZONE;
 * leap second records are ignored because instants here are POSIX time. */
static bool load_tzif_block(struct tz *zone, const struct tzif_header *h, const unsigned char *p,
			    size_t time_size)
{
	const unsigned char *idx = p + h->timecnt * time_size;
	const unsigned char *tt = idx + h->timecnt;
	const unsigned char *chars = tt + h->typecnt * 6;

	zone->ntrans = h->timecnt;
	zone->ntypes = h->typecnt;
	zone->trans = calloc(h->timecnt ? h->timecnt : 1, sizeof(*zone->trans));
	zone->trans_type = calloc(h->timecnt ? h->timecnt : 1, 1);
	zone->types = calloc(h->typecnt, sizeof(*zone->types));
	zone->abbrs = malloc(h->charcnt + 1);
	if (!zone->trans || !zone->trans_type || !zone->types || !zone->abbrs)
		return false;
	for (size_t i = 0; i < h->timecnt; i++) {
		zone->trans[i] = time_size == 8 ? be64(p + 8 * i)
						: (int64_t)(int32_t)be32(p + 4 * i);
		zone->trans_type[i] = idx[i];
		if (idx[i] >= h->typecnt || (i > 0 && zone->trans[i] <= zone->trans[i - 1]))
			return false;
	}
	for (size_t i = 0; i < h->typecnt; i++) {
		int32_t utoff = (int32_t)be32(tt + 6 * i);

		if (utoff < -MAX_UTOFF || utoff > MAX_UTOFF || tt[6 * i + 4] > 1 ||
		    tt[6 * i + 5] >= h->charcnt)
			return false;
		zone->types[i].utoff = utoff;
		zone->types[i].isdst = tt[6 * i + 4];
		zone->types[i].abbr = tt[6 * i + 5];
	}
	memcpy(zone->abbrs, chars, h->charcnt);
	zone->abbrs[h->charcnt] = '\0';
	return true;
}

/* The v2+ footer: "\nTZ\n" after the second data block. An empty or
 * unreadable TZ string leaves the last type in force after the last
 * transition, as RFC 8536 allows readers to. */
static void load_tzif_footer(struct tz *zone, const unsigned char *p, size_t len)
{
	char buf[256];
	const unsigned char *end;

	if (len < 2 || p[0] != '\n')
		return;
	end = memchr(p + 1, '\n', len - 1);
	if (!end || (size_t)(end - p - 1) >= sizeof(buf))
		return;
	memcpy(buf, p + 1, (size_t)(end - p - 1));
	buf[end - p - 1] = '\0';
	if (buf[0] != '\0' && tzrule_parse(buf, &zone->rule))
		zone->has_rule = true;
}

/* glibc's tzset() names the zone after the last standard and the last
 * daylight type that a transition switches to; a zone without transitions
 * is named after its first abbreviation. */
static void name_tzif_zone(struct tz *zone)
{
	zone->std_abbr = NULL;
	zone->dst_abbr = NULL;
	for (size_t i = zone->ntrans; i > 0; i--) {
		const struct ttype *type = &zone->types[zone->trans_type[i - 1]];
		const char **slot = type->isdst ? &zone->dst_abbr : &zone->std_abbr;

		if (!*slot)
			*slot = zone->abbrs + type->abbr;
		if (zone->std_abbr && zone->dst_abbr)
			break;
	}
	if (!zone->std_abbr)
		zone->std_abbr = zone->abbrs;
	if (!zone->dst_abbr)
		zone->dst_abbr = zone->std_abbr;
}

static bool parse_tzif(struct tz *zone, const unsigned char *p, size_t len)
{
	struct tzif_header h;
	size_t size;

	if (!read_tzif_header(p, len, &h))
		return false;
	size = tzif_block_size(&h, 4);
	if (len - TZIF_HEADER_SIZE < size)
		return false;
	if (h.version >= 2) {
		p += TZIF_HEADER_SIZE + size;
		len -= TZIF_HEADER_SIZE + size;
		if (!read_tzif_header(p, len, &h))
			return false;
		size = tzif_block_size(&h, 8);
		if (len - TZIF_HEADER_SIZE < size ||
		    !load_tzif_block(zone, &h, p + TZIF_HEADER_SIZE, 8))
			return false;
		load_tzif_footer(zone, p + TZIF_HEADER_SIZE + size, len - TZIF_HEADER_SIZE - size);
	} else if (!load_tzif_block(zone, &h, p + TZIF_HEADER_SIZE, 4)) {
		return false;
	}
	name_tzif_zone(zone);
	return true;
}

/* Reads a whole regular file of at most TZIF_MAX_SIZE bytes. */
static unsigned char *read_small_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	unsigned char *buf = NULL;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > TZIF_MAX_SIZE)
		goto out;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	*len = got;
out:
	close(fd);
	return buf;
}

static struct tz *zone_alloc(void)
{
	return calloc(1, sizeof(struct tz));
}

static struct tz *load_tzif_file(const char *path)
{
	size_t len = 0;
	unsigned char *data = read_small_file(path, &len);
	struct tz *zone;

	if (!data)
		return NULL;
	zone = zone_alloc();
	if (zone && !parse_tzif(zone, data, len)) {
		tz_free(zone);
		zone = NULL;
	}
	free(data);
	return zone;
}

static struct tz *load_posix_zone(const char *spec)
{
	struct posix_tz rule;
	struct tz *zone;

	if (!tzrule_parse(spec, &rule))
		return NULL;
	zone = zone_alloc();
	if (!zone)
		return NULL;
	zone->has_rule = true;
	zone->rule = rule;
	zone->std_abbr = zone->rule.std_name;
	zone->dst_abbr = zone->rule.dst_name;
	return zone;
}

/* Zone loading */

static const struct ttype utc_type = { 0, false, 0 };

/* Never written: tz_free leaves it alone. */
static const struct tz utc_zone = {
	.ntypes = 1,
	.types = (struct ttype *)&utc_type,
	.abbrs = (char *)"UTC",
	.std_abbr = "UTC",
	.dst_abbr = "UTC",
	.is_static = true,
};

struct tz *tz_load_utc(void)
{
	return (struct tz *)&utc_zone;
}

/* Whether NAME has a ".." path component, which could leave the zone
 * directory. */
static bool has_dotdot(const char *name)
{
	for (const char *p = name; (p = strstr(p, "..")) != NULL; p++) {
		if ((p == name || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	}
	return false;
}

static const char *zone_dir(void)
{
	const char *dir = getenv("TZDIR");

	return dir && *dir ? dir : DEFAULT_TZDIR;
}

struct tz *tz_load_named(const char *name)
{
	char path[4096];
	int n;

	if (name[0] == '\0' || name[0] == '/' || has_dotdot(name))
		return NULL;
	n = snprintf(path, sizeof(path), "%s/%s", zone_dir(), name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	return load_tzif_file(path);
}

static struct tz *load_zone_spec(const char *name, char *err, size_t errlen)
{
	const char *spec = name[0] == ':' ? name + 1 : name;
	struct tz *zone;

	if (spec[0] == '\0')
		return tz_load_utc();
	if (has_dotdot(spec)) {
		snprintf(err, errlen, "invalid time zone '%s': '..' is not allowed", name);
		return NULL;
	}
	/* As glibc does, a name is a file first and a TZ string second. */
	zone = spec[0] == '/' ? load_tzif_file(spec) : tz_load_named(spec);
	if (!zone && spec[0] != '/')
		zone = load_posix_zone(spec);
	if (!zone && strcmp(spec, "UTC") == 0)
		zone = tz_load_utc();
	if (!zone)
		snprintf(err, errlen, "unknown time zone '%s'", name);
	return zone;
}

struct tz *tz_load(const char *name, char *err, size_t errlen)
{
	struct tz *zone;

	if (name)
		return load_zone_spec(name, err, errlen);
	name = getenv("TZ");
	if (name)
		return load_zone_spec(name, err, errlen);
	zone = load_tzif_file("/etc/localtime");
	if (zone)
		return zone;
	if (access("/etc/localtime", F_OK) != 0)
		return tz_load_utc();
	snprintf(err, errlen, "invalid time zone file '/etc/localtime'");
	return NULL;
}

void tz_free(struct tz *zone)
{
	if (!zone || zone->is_static)
		return;
	free(zone->trans);
	free(zone->trans_type);
	free(zone->types);
	free(zone->abbrs);
	free(zone);
}

const char *tz_std_abbr(const struct tz *zone)
{
	return zone->std_abbr;
}

const char *tz_dst_abbr(const struct tz *zone)
{
	return zone->dst_abbr;
}

/* Conversions */

/* Index of the first transition after T (ntrans if none). */
static size_t first_transition_after(const struct tz *zone, int64_t t)
{
	size_t lo = 0, hi = zone->ntrans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (zone->trans[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether instant T falls where the rule, not the table, decides. */
static bool in_rule_range(const struct tz *zone, int64_t t)
{
	return zone->has_rule && (zone->ntrans == 0 || t >= zone->trans[zone->ntrans - 1]);
}

int32_t tz_offset_at(const struct tz *zone, int64_t t, int *isdst)
{
	const struct ttype *type;
	size_t i;

	if (in_rule_range(zone, t))
		return tzrule_offset_at(&zone->rule, t, isdst);
	i = first_transition_after(zone, t);
	type = i == 0 ? &zone->types[0] : &zone->types[zone->trans_type[i - 1]];
	if (isdst)
		*isdst = type->isdst;
	return type->utoff;
}

/* mktime(3) */

/* glibc's answer when the requested isdst disagrees with the zone at T:
 * the offset of the nearest instant (probing about a week at a time,
 * closest first, up to some seven years away: the longest stretch without
 * the other kind that glibc allows for) that has the requested isdst;
 * failing that, a one-hour difference. */
static bool follow_requested_dst(const struct tz *zone, int64_t local, int64_t t, int dst, int want,
				 int64_t *out)
{
	const int64_t stride = 601200, bound = 457243209 / 2 + stride;
	int other;

	for (int64_t delta = stride; delta < bound; delta += stride) {
		for (int dir = -1; dir <= 1; dir += 2) {
			int64_t probe;
			int32_t off;

			if (__builtin_add_overflow(t, dir * delta, &probe))
				continue;
			off = tz_offset_at(zone, probe, &other);
			if ((other != 0) == want)
				return !__builtin_sub_overflow(local, off, out);
		}
	}
	return !__builtin_add_overflow(t, 3600 * ((want == 0) - (dst == 0)), out);
}

/* The search starts from the remembered offset and corrects by the error
 * until the wall time matches. A wall time in a gap never matches: the two
 * readings then alternate, and glibc settles for the one in daylight time
 * (or, when isdst is requested, the one that differs from it), or fails
 * after six probes when neither fits. */
bool tz_mktime(const struct tz *zone, int64_t local, int want_dst, int64_t *guess, int64_t *out)
{
	int64_t t, t1, t2, error, shown;
	int dst = 0, dst2 = 0, probes = 6, want = want_dst < 0 ? -1 : want_dst != 0;

	if (__builtin_sub_overflow(local, *guess, &t))
		return false;
	for (t1 = t2 = t;; t1 = t2, t2 = t, t += error, dst2 = dst) {
		int32_t off = tz_offset_at(zone, t, &dst);

		dst = dst != 0;
		if (__builtin_add_overflow(t, off, &shown) ||
		    __builtin_sub_overflow(local, shown, &error))
			return false;
		if (error == 0) {
			if (want >= 0 && dst != want &&
			    !follow_requested_dst(zone, local, t, dst, want, &t))
				return false;
			break;
		}
		if (t == t1 && t != t2 && (want < 0 ? dst2 <= dst : want != dst))
			break;
		if (--probes == 0 || __builtin_add_overflow(t, error, &shown))
			return false;
	}
	*guess = local - t;
	*out = t;
	return true;
}

bool tz_name_plausible(const char *name)
{
	bool slash = true; /* refuses a leading '/' */

	if (*name == '\0')
		return false;
	for (const char *p = name; *p; p++) {
		char c = ascii_lower(*p);
		bool ok = is_digit(c) || (c >= 'a' && c <= 'z') || c == '-' || c == '_' ||
			  c == '+' || c == '/';

		if (!ok || (c == '/' && slash))
			return false;
		slash = c == '/';
	}
	return !slash;
}

/* Abbreviations as of an instant */

static const char *type_abbr(const struct tz *zone, size_t type)
{
	return zone->abbrs + zone->types[type].abbr;
}

const char *tz_abbr_at(const struct tz *zone, int64_t t)
{
	size_t i;
	int dst = 0;

	if (in_rule_range(zone, t)) {
		tzrule_offset_at(&zone->rule, t, &dst);
		return dst ? zone->rule.dst_name : zone->rule.std_name;
	}
	i = first_transition_after(zone, t);
	return type_abbr(zone, i == 0 ? 0 : zone->trans_type[i - 1]);
}

/* Before the first transition glibc names each kind after the first type
 * of that kind in the file; with no standard type at all, type 0 serves as
 * standard time. */
static void abbrs_before_table(const struct tz *zone, const char *names[2])
{
	for (size_t i = 0; i < zone->ntypes; i++) {
		const char **slot = &names[zone->types[i].isdst];

		if (!*slot)
			*slot = type_abbr(zone, i);
	}
	if (!names[0])
		names[0] = type_abbr(zone, 0);
}

/* Within the table (and after it, when no rule follows) the type in force
 * names its kind and glibc looks ahead, not back, for the other kind. */
static void abbrs_in_table(const struct tz *zone, int64_t t, const char *names[2])
{
	size_t next = first_transition_after(zone, t);
	size_t type = zone->trans_type[next - 1];
	bool dst = zone->types[type].isdst;

	names[dst] = type_abbr(zone, type);
	for (size_t i = next; i < zone->ntrans; i++) {
		type = zone->trans_type[i];
		if (zone->types[type].isdst != dst) {
			names[!dst] = type_abbr(zone, type);
			break;
		}
	}
}

void tz_abbrs_at(const struct tz *zone, int64_t t, const char **std, const char **dst)
{
	const char *names[2] = { NULL, NULL };

	if (zone->ntypes == 0) {
		/* A TZ string: its own names, whatever T is. */
		names[0] = zone->rule.std_name;
		names[1] = zone->rule.dst_name;
	} else if (zone->ntrans == 0 || t < zone->trans[0]) {
		/* glibc takes this branch even when a footer rule exists. */
		abbrs_before_table(zone, names);
	} else if (in_rule_range(zone, t)) {
		names[0] = zone->rule.std_name;
		names[1] = zone->rule.dst_name;
	} else {
		abbrs_in_table(zone, t, names);
	}
	*std = names[0] ? names[0] : names[1];
	*dst = names[1] ? names[1] : names[0];
}

/* The first instant after T at which the zone may change; false if none. */
static bool next_transition(const struct tz *zone, int64_t t, int64_t *next)
{
	size_t i;
	bool dst, has_next = false;

	if (in_rule_range(zone, t)) {
		if (!zone->rule.has_dst)
			return false;
		tzrule_locate(&zone->rule, t, &dst, next, &has_next);
		return has_next;
	}
	i = first_transition_after(zone, t);
	if (i == zone->ntrans)
		return false;
	*next = zone->trans[i];
	return true;
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

struct local_search {
	int count;        /* instants found */
	int64_t found[2]; /* earliest and latest */
	bool gap;
	int64_t gap_shifted; /* the wall time read with the pre-gap offset */
	int64_t gap_end;     /* the transition that opens the gap */
};

static void note_instant(struct local_search *s, int64_t t)
{
	s->found[s->count < 2 ? s->count : 1] = t;
	if (s->count < 2)
		s->count++;
}

/* Walks the stretches of constant offset that could hold LOCAL (offsets
 * never exceed MAX_UTOFF) and keeps each instant that shows LOCAL on the
 * wall clock, and the first gap that LOCAL falls into. */
int tz_local_to_utc(const struct tz *zone, int64_t local, int64_t out[2])
{
	struct local_search s = { 0 };
	int64_t start = sat_add(local, -MAX_UTOFF);
	int64_t limit = sat_add(local, MAX_UTOFF);
	int32_t off = tz_offset_at(zone, start, NULL);

	for (;;) {
		int64_t end, t;
		bool more = next_transition(zone, start, &end) && end <= limit;
		int32_t prev_off;

		if (!__builtin_sub_overflow(local, (int64_t)off, &t) && t >= start &&
		    (!more || t < end))
			note_instant(&s, t);
		if (!more)
			break;
		prev_off = off;
		off = tz_offset_at(zone, end, NULL);
		if (!s.gap && sat_add(end, prev_off) <= local && local < sat_add(end, off)) {
			s.gap = true;
			s.gap_shifted = sat_add(local, -prev_off);
			s.gap_end = end;
		}
		start = end;
	}
	if (s.count > 0) {
		out[0] = s.found[0];
		out[1] = s.count > 1 ? s.found[1] : s.found[0];
		return s.count;
	}
	if (s.gap) {
		out[0] = s.gap_shifted;
		out[1] = s.gap_end;
	} else {
		/* Only at the ends of the int64 range: nothing representable. */
		out[0] = out[1] = sat_add(local, -off);
	}
	return 0;
}
