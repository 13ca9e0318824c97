/* SPDX-License-Identifier: MIT */
/* fleet_print: a job's fingerprint, which each replica writes to tfd_jobs
 * so that the replicas can tell a job defined otherwise on one of them:
 * what must be the same on every replica for the job to run once among
 * them (its schedule, command, environment, user and policies), taken
 * from the built job, not its line's text, so that spacing, the order of
 * options or the way a schedule is written do not count. Pure. */
#ifndef TFD_FLEET_PRINT_H
#define TFD_FLEET_PRINT_H

#include <stdint.h>

struct job;
struct schedule;

/* The schedule as written, normalized: a cron expression's fields as
 * parsed, a calendar event's lists as parsed and normalized (their values
 * where they are few), a timer's first instant and interval; and the
 * zone they are read in, by its UTC offsets through a year. Two
 * schedules whose instants differ (any of them, not a sample) differ
 * here; the same schedule written two ways ("@hourly", "0 * * * *") does
 * not. */
uint64_t fleet_schedule_fingerprint(const struct schedule *s);

/* The schedule's, then the command, its environment, user and policies. */
uint64_t fleet_job_fingerprint(const struct job *j);

#endif
