/* SPDX-License-Identifier: MIT */
/* cron: classic 5-field cron expressions and @ shorthands, with Vixie
 * semantics, and their next run time. Pure: no I/O, no globals. */
#ifndef TFD_CRON_H
#define TFD_CRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tz.h"

struct cron;

/* Parses EXPR ("30 9 * * mon-fri", "@daily"). Returns 0, or -1 with
 * one line in err naming the bad field: "invalid cron expression 'x': …". */
int cron_parse(const char *expr, struct cron **out, char *err, size_t errlen);

/* The first run time strictly after AFTER_NS (ns since the epoch), local
 * time in ZONE, cronie's DST rules. Returns 0 and *next_ns, or -1 when the
 * expression never runs again. */
int cron_next(const struct cron *cron, const struct tz *zone, int64_t after_ns, int64_t *next_ns);

/* CRON as parsed, in one canonical text in BUF (LEN: 64 holds it): each
 * field's values and the flags that change what they mean (a day field or
 * a weekday field written as '*', a minute or hour field that begins with
 * '*'). Expressions that mean the same write the same text ("0 * * * *"
 * and "@hourly", "mon-fri" and "1-5"); expressions whose instants differ,
 * never. */
void cron_canonical(const struct cron *cron, char *buf, size_t len);

/* Whether no day the expression allows exists (0 0 30 2 *, 0 0 31 4 *):
 * cron's way to write "never", which crontab(1) installs. */
bool cron_never(const struct cron *cron);

void cron_free(struct cron *cron);

#endif
