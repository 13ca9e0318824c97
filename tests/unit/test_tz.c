/* SPDX-License-Identifier: MIT */
/* Unit tests for tz: offsets, wall-time mapping and abbreviations (after
 * tzset() and as of each instant) compared with glibc (localtime_r, mktime,
 * tzname) over many zones and instants, and over every zone file; crafted
 * TZif files; unknown names; the cache; speed. */
#include "harness.h"
#include "tsv.h"
#include "tz.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOUR 3600
#define DAY 86400
#define WINDOW (26 * HOUR)
#define MAX_SHOWN 8

/* Instants of a few landmarks. */
#define T_1678 (-9223372036LL) /* the earliest int64 ns instant, in s */
#define T_1900 (-2208988800LL)
#define T_1970 (2 * DAY) /* glibc reads TZ strings as 1970 before */
#define T_2007 1167609600LL
#define T_2100 4102444800LL
#define T_2500 16725225600LL
#define T_9600 240779520000LL
#define T_9999 253402300799LL /* 9999-12-31 23:59:59 UTC */

#define DEFAULT_ZONEINFO "/usr/share/zoneinfo"

static int shown; /* failures printed for the current zone */

/* Like tally_check, but formats only failures (most checks pass, and there
 * are millions) and prints only the first few of a zone so a broken zone
 * does not flood the output. */
static void fail(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (shown++ >= MAX_SHOWN) {
		tally.failed++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tally_check(&tally, 0, __FILE__, line, "%s", msg);
}

#define check_at(ok, line, ...) \
	do { \
		if (ok) \
			tally.passed++; \
		else \
			fail(line, __VA_ARGS__); \
	} while (0)

/* The glibc oracle */

struct state {
	long off;
	int isdst;
};

static void use_glibc_zone(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static struct state glibc_state(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	struct state s = { 0, -1 };

	if (localtime_r(&tt, &tm)) {
		s.off = tm.tm_gmtoff;
		s.isdst = tm.tm_isdst > 0;
	}
	return s;
}

static struct state our_state(const struct tz *zone, int64_t t)
{
	struct state s;

	s.off = tz_offset_at(zone, t, &s.isdst);
	return s;
}

static int same_state(struct state a, struct state b)
{
	return a.off == b.off && a.isdst == b.isdst;
}

/* Loads NAME both here and in glibc, or records why not. */
static struct tz *load_with_glibc(const char *name, int line)
{
	struct tz *zone = tz_load(name, NULL, 0);

	shown = 0;
	check_at(zone != NULL, line, "tz_load(%s)", name);
	if (zone)
		use_glibc_zone(name);
	return zone;
}

/* Where glibc's names stop being comparable (see test_against_glibc). */
static int64_t abbrs_until = INT64_MAX;

/* glibc rewrites tzname on every conversion: right after glibc_state(T),
 * it must read as tz_abbrs_at(T). */
static void check_abbrs(const char *name, const struct tz *zone, int64_t t)
{
	const char *std, *dst;

	if (t >= abbrs_until)
		return;
	tz_abbrs_at(zone, t, &std, &dst);
	check_at(tzname[0] && tzname[1] && strcmp(std, tzname[0]) == 0 &&
			 strcmp(dst, tzname[1]) == 0,
		 __LINE__, "%s: names at %lld %s/%s, glibc %s/%s", name, (long long)t, std, dst,
		 tzname[0] ? tzname[0] : "(null)", tzname[1] ? tzname[1] : "(null)");
}

/* The last instant in (A, B] whose glibc or our state differs from A's is
 * found by bisection; STATE_AT says whose. */
static int64_t bisect_change(const struct tz *zone, int64_t a, int64_t b, int ours)
{
	struct state s0 = ours ? our_state(zone, a) : glibc_state(a);

	while (b - a > 1) {
		int64_t mid = a + (b - a) / 2;
		struct state s = ours ? our_state(zone, mid) : glibc_state(mid);

		if (same_state(s, s0))
			a = mid;
		else
			b = mid;
	}
	return b;
}

/* The instants glibc's offsets map to wall time LOCAL: every L - o that
 * keeps offset o, for the offsets seen near L. Returns how many (up to 8),
 * sorted. */
static int glibc_instants(int64_t local, const long *extra, int nextra, int64_t out[8])
{
	long offs[8];
	int noffs = 0, n = 0;

	/* Without a known transition, the offsets a day either side and at
	 * LOCAL cover every offset that can show LOCAL. */
	if (nextra == 0) {
		offs[noffs++] = glibc_state(local - WINDOW).off;
		offs[noffs++] = glibc_state(local).off;
		offs[noffs++] = glibc_state(local + WINDOW).off;
	}
	for (int i = 0; i < nextra && noffs < 8; i++)
		offs[noffs++] = extra[i];
	for (int i = 0; i < noffs; i++) {
		int64_t t = local - offs[i];
		int dup = 0;

		for (int j = 0; j < n; j++)
			dup |= out[j] == t;
		if (!dup && glibc_state(t).off == offs[i] && n < 8)
			out[n++] = t;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
			int64_t x = out[j];

			out[j] = out[j - 1];
			out[j - 1] = x;
		}
	return n;
}

/* Compares tz_local_to_utc at LOCAL with what glibc's offsets imply. When
 * a transition T from offset OB to OA is known nearby, a gap is checked
 * exactly: out[0] = LOCAL - OB, out[1] = T. */
static void check_local(const char *name, const struct tz *zone, int64_t local, int have_t,
			int64_t T, long ob, long oa)
{
	int64_t want[8], got[2] = { 0, 0 };
	long extra[2] = { ob, oa };
	int nwant = glibc_instants(local, extra, have_t ? 2 : 0, want);
	int n = tz_local_to_utc(zone, local, got);

	if (nwant > 2) {
		want[1] = want[nwant - 1];
		nwant = 2;
	}
	if (nwant > 0) {
		check_at(n == nwant && got[0] == want[0] && (n == 1 || got[1] == want[1]), __LINE__,
			 "%s: local %lld: got %d [%lld %lld], want %d [%lld %lld]", name,
			 (long long)local, n, (long long)got[0], (long long)got[1], nwant,
			 (long long)want[0], (long long)want[1]);
		return;
	}
	if (have_t && local >= T + ob && local < T + oa)
		check_at(n == 0 && got[0] == local - ob && got[1] == T, __LINE__,
			 "%s: gap local %lld: got %d [%lld %lld], want 0 [%lld %lld]", name,
			 (long long)local, n, (long long)got[0], (long long)got[1],
			 (long long)(local - ob), (long long)T);
	else
		check_at(n == 0, __LINE__, "%s: local %lld: got %d, want a gap", name,
			 (long long)local, n);
}

/* Checks one transition at T (the first instant of the new state) found by
 * either side: both sides agree just before and at it, and the wall times
 * around the gap or fold it makes map back correctly. */
static void check_transition(const char *name, const struct tz *zone, int64_t T)
{
	struct state before = glibc_state(T - 1), after = glibc_state(T);
	long ob = before.off, oa = after.off;
	int64_t locals[6] = {
		T + ob - 1, T + ob, T + oa - 1, T + oa, T + (ob + oa) / 2, T + ob + 1
	};

	check_at(same_state(our_state(zone, T - 1), before) &&
			 same_state(our_state(zone, T), after),
		 __LINE__, "%s: transition at %lld: ours %ld/%d -> %ld/%d, glibc %ld/%d -> %ld/%d",
		 name, (long long)T, our_state(zone, T - 1).off, our_state(zone, T - 1).isdst,
		 our_state(zone, T).off, our_state(zone, T).isdst, ob, before.isdst, oa,
		 after.isdst);
	if (ob == oa)
		return;
	for (int i = 0; i < 6; i++)
		check_local(name, zone, locals[i], 1, T, ob, oa);
}

/* mktime with tm_isdst = -1 is unambiguous outside folds and gaps. */
static void check_mktime(const char *name, const struct tz *zone, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	int64_t out[2];

	if (!localtime_r(&tt, &tm))
		return;
	if (tz_local_to_utc(zone, t + tm.tm_gmtoff, out) != 1)
		return;
	tm.tm_isdst = -1;
	check_at((int64_t)mktime(&tm) == out[0], __LINE__, "%s: mktime disagrees at %lld: %lld",
		 name, (long long)t, (long long)out[0]);
}

struct sweep {
	int64_t from, to, step;
	int local_every;      /* check wall-time mapping every Nth sample */
	int transition_every; /* check every Nth change to the second */
};

/* Samples [FROM, TO] every STEP seconds; where either side changes between
 * samples, finds the change to the second (by bisecting glibc, or ours
 * when only ours changed) and checks it. */
static void sweep_zone(const char *name, const struct tz *zone, struct sweep sw)
{
	int64_t prev = sw.from;
	struct state g_prev = glibc_state(prev), o_prev = our_state(zone, prev);
	long n = 0, changes = 0;

	for (int64_t t = sw.from + sw.step; t <= sw.to; t += sw.step, n++) {
		struct state g = glibc_state(t), o = our_state(zone, t);
		int g_changed = !same_state(g, g_prev);
		int o_changed = !same_state(o, o_prev);

		check_abbrs(name, zone, t);
		check_at(same_state(g, o), __LINE__, "%s: at %lld ours %ld/%d, glibc %ld/%d", name,
			 (long long)t, o.off, o.isdst, g.off, g.isdst);
		if (n % sw.local_every == 0)
			check_local(name, zone, t + g.off, 0, 0, 0, 0);
		if (n % (4 * sw.local_every) == 0)
			check_mktime(name, zone, t);
		if ((g_changed || o_changed) && changes++ % sw.transition_every == 0)
			check_transition(name, zone, bisect_change(zone, prev, t, !g_changed));
		prev = t;
		g_prev = g;
		o_prev = o;
	}
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Loads NAME both ways, compares names, then sweeps from FROM: sparsely
 * before 1900, densely to 2100, and when FAR sparsely to 2500 and in the
 * last centuries before 10000. */
static void compare_with_glibc(const char *name, int far, int64_t from)
{
	char err[256] = "";
	struct tz *zone = tz_load(name, err, sizeof(err));

	shown = 0;
	check_at(zone != NULL, __LINE__, "tz_load(%s): %s", name, err);
	if (!zone)
		return;
	use_glibc_zone(name);
	check_at(strcmp(tz_std_abbr(zone), tzname[0]) == 0 &&
			 strcmp(tz_dst_abbr(zone), tzname[1]) == 0,
		 __LINE__, "%s: names %s/%s, glibc %s/%s", name, tz_std_abbr(zone),
		 tz_dst_abbr(zone), tzname[0], tzname[1]);
	if (from < T_1900)
		sweep_zone(name, zone,
			   (struct sweep){ from, T_1900, 61 * DAY + 7 * HOUR + 13, 4, 1 });
	sweep_zone(name, zone, (struct sweep){ max64(from, T_1900), T_2100, 5 * DAY + 3661, 8, 1 });
	if (far) {
		sweep_zone(name, zone, (struct sweep){ T_2100, T_2500, 23 * DAY + 3607, 8, 8 });
		sweep_zone(name, zone, (struct sweep){ T_9600, T_9999, 47 * DAY + 3607, 8, 8 });
	}
	tz_free(zone);
}

/* Zones whose footer rules are also compared far into the future. */
static int is_far_zone(const char *name)
{
	static const char *const far[] = {
		"Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
		"Europe/Dublin", "Antarctica/Troll", "America/Santiago",
	};

	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++)
		if (strcmp(name, far[i]) == 0)
			return 1;
	return 0;
}

/* A start date in month 13 (issue 11 item 18): glibc keeps EST/EDT and
 * standard time, where tfd used to fall back to UTC. glibc's leftover
 * state also shows daylight time from 00:00 UTC on 1 January until 00:00
 * daylight time; tfd does not copy that, so those hours are left out. */
static void test_month_13(void)
{
	const char *name = "EST5EDT,M13.2.0,M11.1.0";
	struct tz *zone = load_with_glibc(name, __LINE__);

	if (!zone)
		return;
	check_at(strcmp(tz_std_abbr(zone), "EST") == 0 && strcmp(tz_dst_abbr(zone), "EDT") == 0 &&
			 strcmp(tzname[0], "EST") == 0,
		 __LINE__, "names %s/%s", tz_std_abbr(zone), tz_dst_abbr(zone));
	for (int64_t t = T_1970; t < T_2100; t += 5 * DAY + 3661) {
		time_t tt = (time_t)t;
		struct tm utc;

		gmtime_r(&tt, &utc);
		if (utc.tm_yday == 0 && utc.tm_hour < 4)
			continue;
		check_at(same_state(our_state(zone, t), glibc_state(t)) &&
				 our_state(zone, t).off == -5 * HOUR,
			 __LINE__, "%s at %lld: %ld, glibc %ld", name, (long long)t,
			 our_state(zone, t).off, glibc_state(t).off);
	}
	tz_free(zone);
	/* No start date read: both changes are the zeroed rule, an hour of
	 * standard time after 04:00 UTC on 1 January and daylight time
	 * otherwise. (The fold and gap checks of compare_with_glibc cannot
	 * see two changes an hour apart, so only the offsets are compared.) */
	for (int i = 0; i < 2; i++) {
		name = i ? "EST5EDT,x" : "EST5EDT,,M11.1.0";
		zone = load_with_glibc(name, __LINE__);
		if (!zone)
			continue;
		for (int64_t t = T_1970; t < T_2100; t += 5 * DAY + 3661)
			check_at(same_state(our_state(zone, t), glibc_state(t)), __LINE__,
				 "%s at %lld: %ld, glibc %ld", name, (long long)t,
				 our_state(zone, t).off, glibc_state(t).off);
		for (int64_t t = T_2007 - HOUR; t < T_2007 + 3 * HOUR; t += 61)
			check_at(same_state(our_state(zone, t), glibc_state(t)), __LINE__,
				 "%s at %lld: %ld, glibc %ld", name, (long long)t,
				 our_state(zone, t).off, glibc_state(t).off);
		tz_free(zone);
	}
}

static void test_against_glibc(void)
{
	static const char *const zones[] = {
		"UTC",
		"Europe/Berlin",
		"America/New_York",
		"Australia/Lord_Howe",
		"Asia/Kolkata",
		"Pacific/Apia",
		"America/Sao_Paulo",
		"Europe/Dublin",
		"Antarctica/Troll",
		"Asia/Tehran",
		"Europe/London",
		"America/St_Johns",
		"Africa/Casablanca",
		"America/Nuuk",
		"Pacific/Kiritimati",
		"Pacific/Chatham",
		"Asia/Kathmandu",
		"America/Santiago",
		"EST5EDT",
		"Etc/GMT+5",
		":Europe/Paris",
		"/usr/share/zoneinfo/Asia/Tokyo",
	};
	static const char *const strings[] = {
		"UTC0",
		"EST5EDT,M3.2.0,M11.1.0",
		"CET-1CEST,M3.5.0,M10.5.0/3",
		"<+03>-3",
		"<-0330>3:30",
		"AEST-10AEDT,M10.1.0,M4.1.0/3",
		"NZST-12NZDT,M9.5.0,M4.1.0/3",
		"<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
		"IST-2IDT,M3.4.4/26,M10.5.0",
		"<+0330>-3:30<+0430>,J79/24,J263/24",
		"ABC-1DEF,59/2,300/3",
		"ABC-1DEF-3,J60/1:30:15,J300",
		"GMT0IST,M3.5.0/1,M10.5.0",
		"<+13>-13<+14>,M9.5.0/3,M4.1.0/4",
		/* Bad rules that glibc reads anyway (issue 11 item 18): a
		 * date followed by junk counts at 00:00, what is not read is
		 * glibc's zeroed rule (1 January, 00:00), a missing end date
		 * is the US one, text after the end is ignored. */
		"CET-1CEST,M3.5.0",
		"EST5EDT,M3.2.0,M11.1.0x",
		"EST5EDT,M3.2.0,",
		"EST5EDT,M3.2.0/,M11.1.0",
		"EST5EDT,M3.2.0,garbage",
		"EST5EDT,M3.2.0x,M11.1.0",
		"EST5EDT,M3.2.0/",
		"EST5EDT,M3.2.0/x,M11.1.0",
		"EST5EDT,J60x",
		"EST5EDT,M3.2.0/2,M11.1.0/",
	};
	size_t i;

	for (i = 0; i < sizeof(zones) / sizeof(zones[0]); i++)
		compare_with_glibc(zones[i], is_far_zone(zones[i]), T_1678);
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		compare_with_glibc(strings[i], 1, T_1970);
	/* Without dates glibc borrows the rules of its posixrules file
	 * (New York's history), which agree with ours from 2007 on. After
	 * that file's last transition (2037-11-01 06:00 UTC) glibc's tzname
	 * shows the file's own names (EST/EDT), not ABC/DEF; tz keeps the
	 * string's names there. */
	abbrs_until = 2140668000;
	compare_with_glibc("ABC5DEF", 1, T_2007);
	abbrs_until = INT64_MAX;
	test_month_13();
}

/* Abbreviations as of an instant */

/* Compares tz_abbrs_at with glibc's tzname after localtime_r at every
 * STEP seconds in [FROM, TO]. */
static void compare_abbrs(const char *name, int64_t from, int64_t to, int64_t step)
{
	struct tz *zone = load_with_glibc(name, __LINE__);

	if (!zone)
		return;
	for (int64_t t = from; t <= to; t += step) {
		glibc_state(t);
		check_abbrs(name, zone, t);
	}
	tz_free(zone);
}

/* What the timestamp parser relies on, spelled out: the pair changes with
 * the instant, and a kind missing ahead takes the other kind's name. */
static void expect_abbrs(const char *name, int64_t t, const char *want_std, const char *want_dst)
{
	struct tz *zone = tz_load(name, NULL, 0);
	const char *std = "-", *dst = "-";

	if (zone)
		tz_abbrs_at(zone, t, &std, &dst);
	check_at(strcmp(std, want_std) == 0 && strcmp(dst, want_dst) == 0, __LINE__,
		 "%s at %lld: %s/%s, want %s/%s", name, (long long)t, std, dst, want_std, want_dst);
	tz_free(zone);
}

#define T_1940 (-946771200LL)
#define T_2030 1893456000LL

static int is_tzif_file(const char *path)
{
	char magic[4] = "";
	FILE *f = fopen(path, "re");
	int ok = f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "TZif", 4) == 0;

	if (f)
		fclose(f);
	return ok;
}

/* Every zone file below DIR (REL names it relative to the zone directory),
 * except the posix/ and right/ copies, sampled from 1900 to 2040. */
static void compare_abbrs_tree(const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL) {
		char path[1024], name[1024];
		struct stat st;

		if (e->d_name[0] == '.' || strcmp(e->d_name, "posix") == 0 ||
		    strcmp(e->d_name, "right") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(name, sizeof(name), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			compare_abbrs_tree(path, name);
		else if (S_ISREG(st.st_mode) && is_tzif_file(path))
			compare_abbrs(name, T_1900, T_2030 + 10 * 365 * DAY,
				      173 * DAY + 7 * HOUR + 17);
	}
	if (d)
		closedir(d);
}

static void test_abbrs_at(void)
{
	static const char *const zones[] = {
		"Asia/Tokyo",      "Asia/Kolkata",      "Australia/Lord_Howe",
		"Europe/Berlin",   "America/New_York",  "Europe/Dublin",
		"America/Phoenix", "Africa/Casablanca", "Europe/Moscow",
	};
	static const struct {
		const char *zone;
		int64_t t;
		const char *std, *dst;
	} cases[] = {
		{ "Asia/Tokyo", -600000000, "JST", "JDT" },      /* 1950 */
		{ "Asia/Tokyo", 1781526896, "JST", "JST" },      /* 2026 */
		{ "Asia/Kolkata", -1000000000, "IST", "+0630" }, /* 1938 */
		{ "Asia/Kolkata", 1781526896, "IST", "IST" },
		{ "Australia/Lord_Howe", 157766400, "AEST", "+1130" }, /* 1975 */
		{ "Australia/Lord_Howe", 1781526896, "+1030", "+11" },
		{ "Europe/Dublin", 1781526896, "IST", "GMT" },
		{ "America/Phoenix", 1781526896, "MST", "MST" },
		{ "UTC", 1781526896, "UTC", "UTC" },
		{ "CET-1CEST,M3.5.0,M10.5.0/3", 0, "CET", "CEST" },
		{ "<+03>-3", 0, "+03", "+03" },
	};

	for (size_t i = 0; i < sizeof(zones) / sizeof(zones[0]); i++)
		compare_abbrs(zones[i], T_1940, T_2030, 3 * DAY + 1601);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_abbrs(cases[i].zone, cases[i].t, cases[i].std, cases[i].dst);
	compare_abbrs_tree(DEFAULT_ZONEINFO, "");
}

/* Data-driven wall-time cases (tests/vectors/tz.tsv, made with Python's
 * zoneinfo): zone, local wall time, count, out[0], out[1]. */
static int vector_row(const struct tsv_row *row, void *arg)
{
	const char *file = arg;
	struct tm tm = { 0 };
	struct tz *zone;
	int64_t got[2], local;
	long long want0, want1;
	int want_n, n;
	char *end;

	if (row->nfields != 5) {
		tally_check(&tally, 0, file, row->line, "expected 5 fields");
		return 1;
	}
	end = strptime(row->field[1], "%Y-%m-%d %H:%M:%S", &tm);
	want_n = atoi(row->field[2]);
	want0 = atoll(row->field[3]);
	want1 = atoll(row->field[4]);
	zone = tz_load(row->field[0], NULL, 0);
	if (!end || *end || !zone) {
		tally_check(&tally, 0, file, row->line, "bad row or zone %s", row->field[0]);
		tz_free(zone);
		return 1;
	}
	local = (int64_t)timegm(&tm);
	n = tz_local_to_utc(zone, local, got);
	tally_check(&tally, n == want_n && got[0] == want0 && got[1] == want1, file, row->line,
		    "%s %s: got %d %lld %lld, want %d %lld %lld", row->field[0], row->field[1], n,
		    (long long)got[0], (long long)got[1], want_n, want0, want1);
	tz_free(zone);
	return 0;
}

static void test_vectors(const char *dir)
{
	char path[4096];

	path_join(path, sizeof(path), dir, "tz.tsv");
	if (tsv_each(path, 1, vector_row, path) < 0)
		tally_check(&tally, 0, path, 0, "cannot open");
}

/* Crafted TZif files */

struct tzif_spec {
	int version; /* 1, 2 or 3 */
	int ntrans;
	const int64_t *trans;
	const unsigned char *idx;
	int ntypes;
	const int32_t *utoff;
	const unsigned char *isdst;
	const unsigned char *abbrind;
	const char *chars; /* NUL-separated abbreviations */
	int charcnt;
	int nleap;
	const char *footer; /* v2+: the TZ string between newlines */
};

struct buf {
	unsigned char data[8192];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_be(struct buf *b, uint64_t v, int size)
{
	for (int i = size - 1; i >= 0; i--)
		b->data[b->len++] = (unsigned char)(v >> (8 * i));
}

/* One header and data block; the v1 block of a v2+ file carries no
 * transitions, as zic's slim output does. */
static void put_block(struct buf *b, const struct tzif_spec *s, int time_size, int ntrans)
{
	put(b, "TZif", 4);
	b->data[b->len++] = s->version == 1 ? 0 : (unsigned char)('0' + s->version);
	memset(b->data + b->len, 0, 15);
	b->len += 15;
	put_be(b, (uint64_t)s->ntypes, 4); /* isutcnt */
	put_be(b, (uint64_t)s->ntypes, 4); /* isstdcnt */
	put_be(b, (uint64_t)s->nleap, 4);
	put_be(b, (uint64_t)ntrans, 4);
	put_be(b, (uint64_t)s->ntypes, 4);
	put_be(b, (uint64_t)s->charcnt, 4);
	for (int i = 0; i < ntrans; i++)
		put_be(b, (uint64_t)s->trans[i], time_size);
	for (int i = 0; i < ntrans; i++)
		b->data[b->len++] = s->idx[i];
	for (int i = 0; i < s->ntypes; i++) {
		put_be(b, (uint32_t)s->utoff[i], 4);
		b->data[b->len++] = s->isdst[i];
		b->data[b->len++] = s->abbrind[i];
	}
	put(b, s->chars, (size_t)s->charcnt);
	for (int i = 0; i < s->nleap; i++) {
		put_be(b, (uint64_t)(78796800 + 15897600LL * i), time_size);
		put_be(b, (uint64_t)(i + 1), 4);
	}
	for (int i = 0; i < 2 * s->ntypes; i++)
		b->data[b->len++] = 0;
}

static void build_tzif(struct buf *b, const struct tzif_spec *s)
{
	b->len = 0;
	if (s->version == 1) {
		put_block(b, s, 4, s->ntrans);
		return;
	}
	put_block(b, s, 4, 0);
	put_block(b, s, 8, s->ntrans);
	b->data[b->len++] = '\n';
	put(b, s->footer, strlen(s->footer));
	b->data[b->len++] = '\n';
}

static char tmpdir[64];

static const char *write_file(const char *name, const void *data, size_t len)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "we");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
	return path;
}

static const char *write_tzif(const char *name, const struct tzif_spec *s)
{
	static struct buf b;

	build_tzif(&b, s);
	return write_file(name, b.data, b.len);
}

static void expect_offset(const char *what, const struct tz *zone, int64_t t, long off, int isdst)
{
	struct state st = our_state(zone, t);

	check_at(st.off == off && st.isdst == isdst, __LINE__,
		 "%s: at %lld got %ld/%d, want %ld/%d", what, (long long)t, st.off, st.isdst, off,
		 isdst);
}

static const int64_t v_trans[] = { -1000000000, 0, 100000000 };
static const unsigned char v_idx[] = { 1, 2, 1 };
static const int32_t v_utoff[] = { 3000, 3600, 7200 };
static const unsigned char v_isdst[] = { 0, 0, 1 };
static const unsigned char v_abbrind[] = { 0, 4, 8 };
static const char v_chars[] = "LMT\0AAA\0AAB";

static struct tzif_spec base_spec(int version, const char *footer)
{
	/* clang-format off */
	struct tzif_spec s = {
		version, 3, v_trans, v_idx, 3, v_utoff, v_isdst, v_abbrind,
		v_chars, sizeof(v_chars), 0, footer,
	};
	/* clang-format on */

	return s;
}

/* Files glibc also reads are compared with it; the rest with the
 * behaviour RFC 8536 specifies. */
static void test_crafted_files(void)
{
	struct tzif_spec s;
	struct tz *zone;
	char err[256];
	const char *path;

	/* v1: type 0 before the first transition, the last type after. */
	s = base_spec(1, NULL);
	path = write_tzif("v1", &s);
	compare_with_glibc(path, 0, T_1678);
	zone = tz_load(path, NULL, 0);
	expect_offset("v1", zone, -2000000000, 3000, 0);
	expect_offset("v1", zone, -1, 3600, 0);
	expect_offset("v1", zone, 0, 7200, 1);
	expect_offset("v1", zone, INT64_MAX, 3600, 0);
	tz_free(zone);

	/* v3 footer with a negative and a beyond-24h rule time. */
	s = base_spec(3, "AAA-1AAB,M3.5.0/-1,M10.5.0/26");
	compare_with_glibc(write_tzif("v3", &s), 1, T_1678);

	/* v2 with an empty footer: the last type stays. */
	s = base_spec(2, "");
	zone = tz_load(write_tzif("v2empty", &s), NULL, 0);
	expect_offset("v2 empty footer", zone, 4000000000LL, 3600, 0);
	tz_free(zone);

	/* Leap second records are skipped: instants are POSIX time. */
	s = base_spec(2, "AAA-1");
	s.nleap = 3;
	zone = tz_load(write_tzif("leaps", &s), NULL, 0);
	check_at(zone != NULL, __LINE__, "file with leap seconds rejected");
	if (zone)
		expect_offset("leaps", zone, 100000000, 3600, 0);
	tz_free(zone);

	/* No transitions: the footer governs all time (slim zic output). */
	{
		static const int32_t off[] = { -18000 };
		static const unsigned char dst[] = { 0 }, ind[] = { 0 };
		/* clang-format off */
		struct tzif_spec slim = { 3, 0, NULL, NULL, 1, off, dst, ind,
					  "EST\0EDT", 8, 0, "EST5EDT,M3.2.0,M11.1.0" };
		/* clang-format on */

		path = write_tzif("slim", &slim);
		/* glibc names a zone without transitions after its types,
		 * not after the footer: EST/EST all the time. */
		compare_abbrs(path, T_1900, T_2100, 47 * DAY + 1);
		zone = tz_load(path, NULL, 0);
		check_at(zone != NULL, __LINE__, "slim file rejected");
		if (zone) {
			expect_offset("slim", zone, 1751328000, -14400, 1);
			expect_offset("slim", zone, 1735689600, -18000, 0);
			expect_offset("slim", zone, -2208988800LL + 180 * DAY, -14400, 1);
			check_at(strcmp(tz_std_abbr(zone), "EST") == 0 &&
					 strcmp(tz_dst_abbr(zone), "EST") == 0,
				 __LINE__, "slim names %s/%s", tz_std_abbr(zone),
				 tz_dst_abbr(zone));
		}
		tz_free(zone);
	}

	/* Type 0 in daylight time still holds before the first transition
	 * (RFC 8536; glibc would pick the first standard type). */
	{
		static const int64_t tr[] = { 0 };
		static const unsigned char ix[] = { 1 };
		static const int32_t off[] = { 7200, 3600 };
		static const unsigned char dst[] = { 1, 0 }, ind[] = { 0, 4 };
		struct tzif_spec d = { 2, 1, tr, ix, 2, off, dst, ind, "DDD\0SSS", 8, 0, "SSS-1" };

		path = write_tzif("dst0", &d);
		/* Its names do follow glibc's, which skips type 0 for
		 * standard time. */
		compare_abbrs(path, -10 * DAY, 10 * DAY, 3 * HOUR + 1);
		zone = tz_load(path, NULL, 0);
		expect_offset("type 0 dst", zone, -1, 7200, 1);
		expect_offset("type 0 dst", zone, 0, 3600, 0);
		tz_free(zone);
	}

	/* Damaged files are unknown zones, never crashes. */
	{
		static const int64_t bad_order[] = { 5, 5, 7 };
		static const unsigned char bad_idx[] = { 1, 3, 1 };
		static const int32_t bad_off[] = { 3000, 30 * 3600, 7200 };
		static const unsigned char bad_ind[] = { 0, 4, 40 };
		struct tzif_spec bad[5];
		static struct buf b;
		const char *names[] = { "order", "idx", "utoff", "abbrind", "notypes" };

		for (int i = 0; i < 5; i++)
			bad[i] = base_spec(2, "AAA-1");
		bad[0].trans = bad_order;
		bad[1].idx = bad_idx;
		bad[2].utoff = bad_off;
		bad[3].abbrind = bad_ind;
		bad[4].ntypes = 0;
		bad[4].ntrans = 0;
		for (int i = 0; i < 5; i++) {
			path = write_tzif(names[i], &bad[i]);
			zone = tz_load(path, err, sizeof(err));
			check_at(zone == NULL, __LINE__, "damaged file %s accepted", names[i]);
			tz_free(zone);
		}
		s = base_spec(2, "AAA-1");
		build_tzif(&b, &s);
		for (size_t cut = 0; cut + 8 < b.len; cut += 7) {
			zone = tz_load(write_file("cut", b.data, cut), NULL, 0);
			check_at(zone == NULL, __LINE__, "file cut at %zu accepted", cut);
			tz_free(zone);
		}
		b.data[4] = '1';
		zone = tz_load(write_file("badversion", b.data, b.len), NULL, 0);
		check_at(zone == NULL, __LINE__, "version '1' accepted");
		tz_free(zone);
	}
}

static void expect_unknown(const char *name, const char *want_err)
{
	char err[256] = "";
	struct tz *zone = tz_load(name, err, sizeof(err));

	check_at(zone == NULL && (!want_err || strcmp(err, want_err) == 0), __LINE__,
		 "tz_load('%s'): %s, err '%s'", name, zone ? "loaded" : "NULL", err);
	tz_free(zone);
}

static void expect_known(const char *name, long off_2025_07, int isdst)
{
	char err[256] = "";
	struct tz *zone = tz_load(name, err, sizeof(err));

	check_at(zone != NULL, __LINE__, "tz_load('%s'): %s", name, err);
	if (zone)
		expect_offset(name, zone, 1751328000, off_2025_07, isdst);
	tz_free(zone);
}

static void test_names(void)
{
	static const char *const bad_strings[] = {
		"XYZ25",
		"AB5",
		"<A>5",
		"EST5EDT,M3.6.0,M11.1.0",
		"EST5EDT,M3..0,M11.1.0",
		"EST5EDT,M3.2.0,M13.1.0",
		"EST5EDT,M0.1.0,M11.1.0",
		"EST5EDT,M3.2.7,M11.1.0",
		"EST5EDT,J0,J365",
		"EST5EDT,366,1",
		"EST5EDT,M3.2.0/168,M11.1.0",
		"EST5:60",
		"EST5EDT4:00:60,M3.2.0,M11.1.0",
		"EST+",
		"<+03-3",
		"EST 5",
		"EST5 ",
		"ESTX",
	};

	expect_unknown("Nowhere/Zone", "unknown time zone 'Nowhere/Zone'");
	expect_unknown("../../etc/passwd", NULL);
	expect_unknown("Europe/../Europe/Berlin", NULL);
	expect_unknown("/usr/share/zoneinfo/../zoneinfo/UTC", NULL);
	expect_unknown("Europe/Berlin/..", NULL);
	expect_unknown("Europe", "unknown time zone 'Europe'");
	expect_unknown("zone1970.tab", NULL);
	expect_unknown("/etc/passwd", "unknown time zone '/etc/passwd'");
	expect_unknown("/nonexistent/zone", NULL);
	expect_unknown(":Nowhere", "unknown time zone ':Nowhere'");
	for (size_t i = 0; i < sizeof(bad_strings) / sizeof(bad_strings[0]); i++)
		expect_unknown(bad_strings[i], NULL);

	expect_known("", 0, 0);
	expect_known(":", 0, 0);
	expect_known("UTC", 0, 0);
	expect_known("EST5EDT4,M3.2.0/-167,M11.1.0/167", -4 * HOUR, 1);
	expect_known("<+0530>-5:30", 19800, 0);
	expect_known("EST+5", -5 * HOUR, 0);
	expect_known("ABC5DEF,", -4 * HOUR, 1);
	expect_known("WART4WARST,J1/0,J365/25", -3 * HOUR, 1);
	expect_known("Europe/Berlin", 2 * HOUR, 1);
	expect_known("/usr/share/zoneinfo/Europe/Berlin", 2 * HOUR, 1);

	/* tzcode's "daylight time all year" idiom: never standard time. */
	{
		struct tz *zone = tz_load("WART4WARST,J1/0,J365/25", NULL, 0);

		shown = 0;
		for (int64_t t = T_1900; t < T_2100; t += 3 * DAY + 7)
			expect_offset("all-year DST", zone, t, -3 * HOUR, 1);
		for (int64_t t = T_2007 - 2 * DAY; t < T_2007 + 2 * DAY; t += 601)
			expect_offset("all-year DST", zone, t, -3 * HOUR, 1);
		tz_free(zone);
	}
}

/* The zone of the process: TZ, else /etc/localtime, else UTC. */
static void test_process_zone(void)
{
	char err[256] = "";
	struct tz *zone, *etc;

	unsetenv("TZ");
	zone = tz_load(NULL, err, sizeof(err));
	etc = tz_load("/etc/localtime", NULL, 0);
	check_at(zone && etc, __LINE__, "tz_load(NULL) with TZ unset: %s", err);
	if (zone && etc)
		for (int64_t t = T_1900; t < T_2100; t += 97 * DAY)
			check_at(tz_offset_at(zone, t, NULL) == tz_offset_at(etc, t, NULL),
				 __LINE__, "TZ unset: offset at %lld", (long long)t);
	tz_free(zone);
	tz_free(etc);

	use_glibc_zone("");
	zone = tz_load(NULL, NULL, 0);
	check_at(zone && strcmp(tz_std_abbr(zone), tzname[0]) == 0 &&
			 strcmp(tz_dst_abbr(zone), tzname[1]) == 0 &&
			 tz_offset_at(zone, 1751328000, NULL) == 0,
		 __LINE__, "TZ='': %s/%s, glibc %s/%s", zone ? tz_std_abbr(zone) : "-",
		 zone ? tz_dst_abbr(zone) : "-", tzname[0], tzname[1]);
	tz_free(zone);

	setenv("TZ", ":Asia/Tokyo", 1);
	zone = tz_load(NULL, NULL, 0);
	check_at(zone && tz_offset_at(zone, 1751328000, NULL) == 9 * HOUR, __LINE__,
		 "TZ=:Asia/Tokyo");
	tz_free(zone);

	setenv("TZ", "Bogus/Zone", 1);
	zone = tz_load(NULL, err, sizeof(err));
	check_at(!zone && strcmp(err, "unknown time zone 'Bogus/Zone'") == 0, __LINE__,
		 "TZ=Bogus/Zone: err '%s'", err);
	tz_free(zone);
	unsetenv("TZ");

	zone = tz_load_utc();
	check_at(tz_offset_at(zone, 0, NULL) == 0 && strcmp(tz_std_abbr(zone), "UTC") == 0 &&
			 strcmp(tz_dst_abbr(zone), "UTC") == 0,
		 __LINE__, "tz_load_utc");
	tz_free(zone);
}

static void test_tzdir_and_cache(void)
{
	struct tz_cache *cache = tz_cache_new();
	const struct tz *a, *b;
	struct tz *zone;
	char sub[128];
	struct tzif_spec s = base_spec(3, "AAA-1AAB,M3.5.0/-1,M10.5.0/26");

	a = tz_cache_lookup(cache, "Europe/Berlin");
	b = tz_cache_lookup(cache, "Europe/Berlin");
	check_at(a && a == b && tz_offset_at(a, 1751328000, NULL) == 2 * HOUR, __LINE__,
		 "cache: Europe/Berlin twice");
	check_at(tz_cache_lookup(cache, "Nowhere/Zone") == NULL &&
			 tz_cache_lookup(cache, "Nowhere/Zone") == NULL,
		 __LINE__, "cache: unknown zone");
	check_at(tz_cache_lookup(cache, "CET-1CEST,M3.5.0,M10.5.0/3") == NULL &&
			 tz_cache_lookup(cache, "/usr/share/zoneinfo/Europe/Berlin") == NULL &&
			 tz_cache_lookup(cache, "../zoneinfo/UTC") == NULL &&
			 tz_cache_lookup(cache, "") == NULL &&
			 tz_cache_lookup(cache, "Mon") == NULL,
		 __LINE__, "cache: TZ strings, paths and words are not zone names");
	for (int i = 0; i < 100; i++) {
		char name[32];

		snprintf(name, sizeof(name), "No/Such%d", i);
		check_at(tz_cache_lookup(cache, name) == NULL, __LINE__, "cache: %s", name);
	}
	check_at(tz_cache_lookup(cache, "Asia/Kolkata") != NULL, __LINE__,
		 "cache: a zone after many unknown ones");

	/* TZDIR moves the zone directory; "UTC" works even where it has no
	 * file of that name. */
	snprintf(sub, sizeof(sub), "%s/Test", tmpdir);
	mkdir(sub, 0700);
	write_tzif("Test/Zone", &s);
	setenv("TZDIR", tmpdir, 1);
	zone = tz_load("Test/Zone", NULL, 0);
	check_at(zone && tz_offset_at(zone, 1751328000, NULL) == 2 * HOUR, __LINE__,
		 "TZDIR: Test/Zone");
	tz_free(zone);
	expect_unknown("Europe/Berlin", NULL);
	a = tz_cache_lookup(cache, "UTC");
	check_at(a && tz_offset_at(a, 1751328000, NULL) == 0 && strcmp(tz_std_abbr(a), "UTC") == 0,
		 __LINE__, "cache: UTC without a file");
	check_at(tz_cache_lookup(cache, "Test/Zone") != NULL, __LINE__, "cache: TZDIR");
	unsetenv("TZDIR");
	remove(write_file("Test/Zone", "", 0));
	rmdir(sub);
	tz_cache_free(cache);
	tz_cache_free(NULL);
}

/* Every instant of the int64 range works: offsets stay sane and wall times
 * map back to themselves; rule zones repeat every 400 years. */
static void test_extremes(void)
{
	static const char *const names[] = {
		"UTC",
		"Europe/Berlin",
		"Australia/Lord_Howe",
		"Europe/Dublin",
		"Asia/Kolkata",
		"WART4WARST,J1/0,J365/25",
		"<+13>-13<+14>,M9.5.0/3,M4.1.0/4",
	};
	static const int64_t ts[] = {
		INT64_MIN,
		INT64_MIN + 1,
		INT64_MIN + WINDOW,
		-(1LL << 62),
		T_1678 - 1,
		T_1678,
		-1,
		0,
		T_9999,
		T_9999 + 1,
		1LL << 62,
		INT64_MAX - 2 * WINDOW,
		INT64_MAX - WINDOW,
		INT64_MAX - 1,
		INT64_MAX,
	};
	const int64_t cycle = 146097LL * DAY;

	shown = 0;
	for (size_t z = 0; z < sizeof(names) / sizeof(names[0]); z++) {
		struct tz *zone = tz_load(names[z], NULL, 0);

		for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
			int64_t out[2], back;
			int32_t off = tz_offset_at(zone, ts[i], NULL);
			int n = tz_local_to_utc(zone, ts[i], out);

			check_at(off >= -WINDOW && off <= WINDOW && n >= 0 && n <= 2, __LINE__,
				 "%s: at %lld off %d n %d", names[z], (long long)ts[i], off, n);
			/* clang-format off */
			for (int k = 0; k < n; k++)
				check_at(!__builtin_add_overflow(out[k],
					(int64_t)tz_offset_at(zone, out[k], NULL), &back) &&
				      back == ts[i], __LINE__, "%s: local %lld maps to %lld",
				      names[z], (long long)ts[i], (long long)out[k]);
			/* clang-format on */
		}
		if (z >= 1 && z != 4)
			for (int64_t t = T_2100; t < T_2500; t += 7 * DAY + 3 * HOUR + 1) {
				int64_t far = t + (INT64_MAX / cycle - 2) * cycle;
				/* clang-format off */
				check_at(tz_offset_at(zone, t, NULL) == tz_offset_at(zone, t + cycle, NULL) &&
				      tz_offset_at(zone, t, NULL) == tz_offset_at(zone, far, NULL),
				      __LINE__, "%s: 400-year period at %lld", names[z], (long long)t);
				/* clang-format on */
			}
		tz_free(zone);
	}
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The scheduler calls these about 100,000 times a second; an optimized
 * build does several million. The bar here is low enough to hold under
 * valgrind on a busy machine and still catches a slide into linear scans. */
static void test_speed(void)
{
	static const char *const names[] = { "Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3" };
	const long n = 200000;

	for (size_t z = 0; z < 2; z++) {
		struct tz *zone = tz_load(names[z], NULL, 0);
		int64_t sum = 0, out[2];
		double t0 = cpu_seconds(), t1, t2;

		for (long i = 0; i < n; i++)
			sum += tz_offset_at(zone, 1700000000 + (int64_t)i * 7919, NULL);
		t1 = cpu_seconds();
		for (long i = 0; i < n; i++)
			sum += tz_local_to_utc(zone, 1700000000 + (int64_t)i * 7919, out);
		t2 = cpu_seconds();
		check_at(n / (t1 - t0 + 1e-9) > 50000 && n / (t2 - t1 + 1e-9) > 50000, __LINE__,
			 "%s: %.0f offsets/s, %.0f local maps/s (%lld)", names[z], n / (t1 - t0),
			 n / (t2 - t1), (long long)sum);
		tz_free(zone);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Whatever a zone came from, its answers stay in bounds. */
static void probe_zone(const char *what, const struct tz *zone)
{
	static const int64_t ts[] = { INT64_MIN,  T_1678, -1,     0,
				      1751328000, T_2100, T_9999, INT64_MAX };

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		int64_t out[2];
		int32_t off = tz_offset_at(zone, ts[i], NULL);
		int n = tz_local_to_utc(zone, ts[i], out);

		check_at(off >= -WINDOW && off <= WINDOW && n >= 0 && n <= 2 && tz_std_abbr(zone) &&
				 tz_dst_abbr(zone),
			 __LINE__, "%s: at %lld off %d n %d", what, (long long)ts[i], off, n);
	}
}

/* Damaged copies of a real file and random TZ strings load or are
 * refused, never crash (ASan and valgrind watch the reads). */
static void test_garbage(void)
{
	static unsigned char orig[8192], copy[8192];
	static const char alphabet[] = "ESTDAB<>+-0123456789:,.MJ/";
	FILE *f = fopen("/usr/share/zoneinfo/Europe/Berlin", "re");
	size_t len = f ? fread(orig, 1, sizeof(orig), f) : 0;
	char err[256], spec[40];

	if (f)
		fclose(f);
	shown = 0;
	for (int i = 0; i < 300 && len > 0; i++) {
		size_t n = len;
		struct tz *zone;

		memcpy(copy, orig, len);
		for (int k = 1 + (int)(rng() % 4); k > 0; k--)
			copy[rng() % len] = (unsigned char)rng();
		if (rng() % 4 == 0)
			n = rng() % len;
		zone = tz_load(write_file("garbage", copy, n), err, sizeof(err));
		if (zone)
			probe_zone("damaged file", zone);
		tz_free(zone);
	}
	for (int i = 0; i < 2000; i++) {
		size_t n = 1 + rng() % (sizeof(spec) - 1);
		struct tz *zone;

		for (size_t k = 0; k < n; k++)
			spec[k] = alphabet[rng() % (sizeof(alphabet) - 1)];
		spec[n] = '\0';
		zone = tz_load(spec, err, sizeof(err));
		if (zone)
			probe_zone(spec, zone);
		tz_free(zone);
	}
}

static void cleanup_tmpdir(void)
{
	DIR *dir = opendir(tmpdir);
	struct dirent *e;
	char path[512];

	while (dir && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		unlink(path);
	}
	if (dir)
		closedir(dir);
	rmdir(tmpdir);
}

int main(int argc, char **argv)
{
	(void)argc;
	strcpy(tmpdir, "/tmp/test_tz.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_against_glibc();
	test_abbrs_at();
	test_crafted_files();
	test_names();
	test_process_zone();
	test_tzdir_and_cache();
	test_extremes();
	test_garbage();
	test_speed();
	if (argc > 2)
		test_vectors(argv[2]);
	cleanup_tmpdir();
	return tally_finish(&tally, "tz");
}
