/* SPDX-License-Identifier: MIT */
#include "fleet_print.h"

#include <string.h>

#include "buf.h"
#include "calendar.h"
#include "cron.h"
#include "job.h"
#include "schedule.h"
#include "timens.h"
#include "tz.h"

/* Decisions:
 * - Schedules are compared as written, normalized, not by the instants
 *   they give at a few sample moments: "0 * * * *" and "0 0-11 * * *"
 *   agree on every sample taken in the morning, and replicas running
 *   both claim the afternoon's elapses on one of them only.
 * - A zone is compared by what it does (its offsets through a year), not
 *   by its name: TZ=CET and TZ=Europe/Paris give the same instants. */

/* FNV-1a, fed piece by piece. */
struct fnv {
	uint64_t h;
};

static void fnv_bytes(struct fnv *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h->h ^= b[i];
		h->h *= UINT64_C(0x100000001b3);
	}
}

static void fnv_int(struct fnv *h, int64_t v)
{
	fnv_bytes(h, &v, sizeof v);
}

/* A string and its end: "ab","c" differs from "a","bc". */
static void fnv_text(struct fnv *h, const char *s)
{
	if (s)
		fnv_bytes(h, s, strlen(s));
	fnv_bytes(h, s ? "\1" : "\2", 1);
}

static void fnv_words(struct fnv *h, char *const *words)
{
	for (size_t i = 0; words && words[i]; i++)
		fnv_text(h, words[i]);
	fnv_int(h, -1);
}

/* A zone by its offsets on the 1st and 15th of each month of 2026 (its
 * daylight saving time's rule and dates, as far as a schedule sees them). */
static void fnv_zone(struct fnv *h, const struct tz *zone)
{
	const int64_t year = INT64_C(1767225600); /* 2026-01-01T00:00:00Z */

	if (!zone) {
		fnv_int(h, -1);
		return;
	}
	for (int half_month = 0; half_month < 24; half_month++) {
		int64_t t = year + half_month * INT64_C(1314900); /* a 24th of 365.25 days */

		fnv_int(h, tz_offset_at(zone, t, NULL));
	}
}

static void fnv_calendar(struct fnv *h, const struct calendar *cal, const struct tz *local)
{
	struct buf text = { 0 };
	const struct tz *own = NULL;

	calendar_canonical(cal, &text, &own);
	/* Memory that ran out leaves a text cut short: a fingerprint that
	 * differs, told as a job defined otherwise, not a false match. */
	fnv_bytes(h, text.s ? text.s : "", text.len);
	fnv_int(h, (int64_t)text.failed);
	fnv_zone(h, own ? own : local);
	buf_free(&text);
}

uint64_t fleet_schedule_fingerprint(const struct schedule *s)
{
	struct fnv h = { UINT64_C(0xcbf29ce484222325) };
	char cron[80];

	fnv_int(&h, s->kind);
	fnv_int(&h, s->clock);
	switch (s->kind) {
	case SCHEDULE_TIMER:
		fnv_int(&h, s->first_ns);
		fnv_int(&h, s->interval_ns);
		break;
	case SCHEDULE_CRON:
		cron_canonical(s->cron, cron, sizeof cron);
		fnv_text(&h, cron);
		fnv_zone(&h, s->zone);
		break;
	case SCHEDULE_CALENDAR:
		fnv_calendar(&h, s->calendar, s->zone);
		break;
	}
	return h.h;
}

uint64_t fleet_job_fingerprint(const struct job *j)
{
	struct fnv h = { UINT64_C(0xcbf29ce484222325) };

	fnv_int(&h, (int64_t)fleet_schedule_fingerprint(&j->schedule));
	fnv_text(&h, j->path);
	fnv_words(&h, j->argv);
	fnv_words(&h, j->file_env);
	fnv_text(&h, j->input);
	fnv_text(&h, j->user.spec);
	fnv_int(&h, j->run.overlap);
	fnv_int(&h, j->run.timeout_ns);
	fnv_int(&h, j->run.retry);
	fnv_int(&h, j->run.retry_delay_ns);
	fnv_int(&h, j->random_delay_ns);
	fnv_int(&h, (int64_t)j->count);
	fnv_int(&h, j->for_ns);
	return h.h;
}
