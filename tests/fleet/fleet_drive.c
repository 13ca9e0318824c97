/* SPDX-License-Identifier: MIT */
/* fleet_drive: src/fleet/fleet.h driven by a poll loop of its own, so the bats
 * tests (tests/bats/76-fleet-client.bats) exercise the database client
 * against a real PostgreSQL apart from tfd's loop.
 *
 *   fleet_drive CONNINFO STEP...
 *
 * Steps, run in order:
 *   connected                    wait until the table is ready
 *   claim JOB SECONDS skip|parallel
 *                                claim JOB's elapse at Unix SECONDS and wait
 *                                for the answer: prints "claim JOB SECONDS won"
 *                                (elsewhere, skipped, missed)
 *   manual JOB SECONDS skip|parallel
 *                                as claim, for tfdctl run (trigger 'manual')
 *   pause JOB, resume JOB        write tfd_paused and wait for the answer:
 *                                prints "done ok" (or the error)
 *   claims N SECONDS JOB...      claim N jobs' elapses at SECONDS at once
 *                                (skip), as one wake-up does; wait for all
 *   end JOB SECONDS STATUS       the run ended with exit STATUS (0 succeeded)
 *   attempt JOB SECONDS N        the run is tried again: its row counts N tries
 *   drop JOB SECONDS             the won elapse will not run
 *                                (end, attempt and drop queue their row and
 *                                go on: the steps up to the next that serves
 *                                the fleet are sent together, in one pipeline)
 *   flushed                      wait until every claim and end is written
 *   error                        wait for an error event
 *   disconnected                 wait until the connection is lost ("down")
 *   serve MS                     serve the fleet for MS milliseconds
 *   idle MS                      do not serve it for MS milliseconds (as a
 *                                loop busy elsewhere: what comes due meanwhile
 *                                is sent together at the next service)
 *   mark                         print "mark MS", the monotonic clock in ms
 * Events print as "up", "down", "error CALL: MESSAGE", "fatal CALL: MESSAGE".
 * At the end the replica's name is let go (fleet_release), as tfd does. The environment
 * gives FLEET_REPLICA (default HOSTNAME:PID), FLEET_LEASE_MS,
 * FLEET_DEADLINE_MS, FLEET_KEEP_S. Exit: 0 after the last step, fleet_new's
 * status for a bad CONNINFO, 3 when a wait passed 60 s. */
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "runner.h"
#include "timens.h"

#define MS (INT64_C(1000000))
#define WAIT_MAX (60000 * MS)

struct drive {
	struct fleet *fleet;
	bool up, answered, errored, done;
	long unanswered;             /* claims still waiting (claims N) */
};

static int64_t env_ms(const char *name, int64_t fallback)
{
	const char *v = getenv(name);

	return v ? strtoll(v, NULL, 10) * MS : fallback;
}

/* The outcomes as the tests read them. */
static const char *outcome_name(enum fleet_outcome o)
{
	static const char *const names[] = {
		[FLEET_WON] = "won", [FLEET_ELSEWHERE] = "elsewhere",
		[FLEET_SKIPPED] = "skipped", [FLEET_MISSED] = "missed", [FLEET_PAUSED] = "paused",
	};

	return names[o];
}

static void take_events(struct drive *d)
{
	struct fleet_event ev;

	while (fleet_next_event(d->fleet, &ev)) {
		switch (ev.kind) {
		case FLEET_EVENT_CLAIM:
			printf("claim %s %lld %s\n", ev.job, (long long)(ev.scheduled_ns / NSEC_PER_SEC),
			       outcome_name(ev.outcome));
			d->answered = true;
			d->unanswered--;
			break;
		case FLEET_EVENT_ERROR:
			printf("error %s: %s\n", ev.call, ev.message);
			d->errored = true;
			break;
		case FLEET_EVENT_LOST:
			puts("error malloc: an event was lost");
			d->errored = true;
			break;
		case FLEET_EVENT_CONNECTED:
			puts("up");
			d->up = true;
			break;
		case FLEET_EVENT_DISCONNECTED:
			puts("down");
			d->up = false;
			break;
		case FLEET_EVENT_FATAL:
			printf("fatal %s: %s\n", ev.call, ev.message);
			d->errored = true;
			break;
		case FLEET_EVENT_DONE:
			printf("done %s\n", ev.message ? ev.message : "ok");
			d->done = true;
			break;
		case FLEET_EVENT_NOTE:
			/* As tfd prints them: stderr, apart from the events. */
			fprintf(stderr, "note %s\n", ev.message);
			break;
		case FLEET_EVENT_TAKEN:
			printf("taken %s %lld\n", ev.job, (long long)(ev.scheduled_ns / NSEC_PER_SEC));
			break;
		case FLEET_EVENT_UNSENT:
			printf("unsent %s %lld\n", ev.job, (long long)(ev.scheduled_ns / NSEC_PER_SEC));
			d->unanswered--;
			break;
		case FLEET_EVENT_ABANDONED:
			printf("abandoned %s %lld %s\n", ev.job,
			       (long long)(ev.scheduled_ns / NSEC_PER_SEC), ev.message);
			break;
		}
		fflush(stdout);
	}
}

/* One turn of the loop: poll the fleet's descriptor until its deadline
 * (at most UNTIL), then serve it. */
static void turn(struct drive *d, int64_t until)
{
	short events;
	struct pollfd p = { .fd = fleet_poll_fd(d->fleet, &events) };
	int64_t due = fleet_deadline(d->fleet), now = clock_now_ns(CLOCK_MONOTONIC);
	int timeout;

	p.events = events;
	if (due > until)
		due = until;
	timeout = due <= now ? 0 : (int)((due - now + MS - 1) / MS);
	if (poll(&p, p.fd >= 0 ? 1 : 0, timeout) < 0)
		p.revents = 0;
	fleet_service(d->fleet, p.fd >= 0 ? p.revents : 0);
	take_events(d);
}

/* Turns until DONE says so; false after WAIT_MAX. */
static bool wait_for(struct drive *d, bool (*done)(const struct drive *))
{
	int64_t until = clock_now_ns(CLOCK_MONOTONIC) + WAIT_MAX;

	while (!done(d))
		if (clock_now_ns(CLOCK_MONOTONIC) >= until)
			return false;
		else
			turn(d, until);
	return true;
}

static bool is_up(const struct drive *d) { return d->up; }
static bool is_down(const struct drive *d) { return !d->up; }
static bool has_answer(const struct drive *d) { return d->answered; }
static bool has_error(const struct drive *d) { return d->errored; }
static bool is_done(const struct drive *d) { return d->done; }
static bool is_flushed(const struct drive *d) { return fleet_pending(d->fleet) == 0; }
static bool all_answered(const struct drive *d) { return d->unanswered <= 0; }

/* claims N SECONDS JOB...: queued together, sent by one fleet_service. */
static bool claim_many(struct drive *d, char **argv, int argc, int *i)
{
	long n = *i + 2 <= argc ? strtol(argv[*i], NULL, 10) : -1;
	int64_t at;

	if (n < 1 || *i + 2 + n > argc)
		return false;
	at = strtoll(argv[*i + 1], NULL, 10) * NSEC_PER_SEC;
	*i += 2;
	d->unanswered = n;
	for (long k = 0; k < n; k++)
		if (fleet_claim(d->fleet, argv[(*i)++], at, true, (uint64_t)k) != 0)
			return false;
	return wait_for(d, all_answered);
}

static void serve(struct drive *d, int64_t ns)
{
	int64_t until = clock_now_ns(CLOCK_MONOTONIC) + ns;

	while (clock_now_ns(CLOCK_MONOTONIC) < until)
		turn(d, until);
}

/* Runs the step at ARGV[*i] and moves *i past it; false on a bad step or a
 * wait that took too long. */
static bool step(struct drive *d, char **argv, int argc, int *i)
{
	const char *s = argv[(*i)++];
	int need = strcmp(s, "claim") == 0 || strcmp(s, "end") == 0 || strcmp(s, "manual") == 0 ||
			   strcmp(s, "attempt") == 0 ? 3
		 : strcmp(s, "drop") == 0 ? 2
		 : strcmp(s, "serve") == 0 || strcmp(s, "idle") == 0 || strcmp(s, "pause") == 0 ||
		   strcmp(s, "resume") == 0;

	if (strcmp(s, "claims") == 0)
		return claim_many(d, argv, argc, i);
	if (*i + need > argc)
		return false;
	*i += need;
	if (strcmp(s, "connected") == 0)
		return wait_for(d, is_up);
	if (strcmp(s, "flushed") == 0)
		return wait_for(d, is_flushed);
	if (strcmp(s, "error") == 0)
		return wait_for(d, has_error);
	if (strcmp(s, "disconnected") == 0)
		return wait_for(d, is_down);
	if (strcmp(s, "serve") == 0) {
		serve(d, strtoll(argv[*i - 1], NULL, 10) * MS);
		return true;
	}
	if (strcmp(s, "idle") == 0) {
		int64_t ns = strtoll(argv[*i - 1], NULL, 10) * MS;

		nanosleep(&(struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC },
			  NULL);
		return true;
	}
	if (strcmp(s, "mark") == 0) {
		printf("mark %lld\n", (long long)(clock_now_ns(CLOCK_MONOTONIC) / MS));
		fflush(stdout);
		return true;
	}
	if (strcmp(s, "pause") == 0 || strcmp(s, "resume") == 0) {
		const char *job = argv[*i - 1];

		d->done = false;
		return fleet_pause_write(d->fleet, 1, &job, strcmp(s, "pause") == 0, 0, 1) == 0 &&
		       wait_for(d, is_done);
	}
	if (strcmp(s, "drop") == 0)
		return fleet_run_dropped(d->fleet, argv[*i - 2],
					 strtoll(argv[*i - 1], NULL, 10) * NSEC_PER_SEC) == 0;
	int64_t at = strtoll(argv[*i - 2], NULL, 10) * NSEC_PER_SEC;
	if (strcmp(s, "claim") == 0 || strcmp(s, "manual") == 0) {
		d->answered = false;
		return (strcmp(s, "manual") == 0 ? fleet_claim_manual : fleet_claim)(
			       d->fleet, argv[*i - 3], at, strcmp(argv[*i - 1], "skip") == 0, 0) == 0 &&
		       wait_for(d, has_answer);
	}
	if (strcmp(s, "attempt") == 0)
		return fleet_run_attempt(d->fleet, argv[*i - 3], at,
					 (unsigned)strtoul(argv[*i - 1], NULL, 10)) == 0;
	if (strcmp(s, "end") == 0) {
		int status = atoi(argv[*i - 1]);
		struct fleet_end e = { .failed = status != 0, .exit_status = status, .attempts = 1,
				       .finished_ns = clock_now_ns(CLOCK_REALTIME) };

		return fleet_run_ended(d->fleet, argv[*i - 3], at, &e) == 0;
	}
	return false;
}

int main(int argc, char **argv)
{
	char replica[300], err[1024];
	struct fleet_config c = {
		.conninfo = argc > 1 ? argv[1] : "",
		.lease_ns = env_ms("FLEET_LEASE_MS", FLEET_LEASE_DEFAULT_NS),
		.deadline_ns = env_ms("FLEET_DEADLINE_MS", FLEET_DEADLINE_DEFAULT_NS),
		.keep_ns = env_ms("FLEET_KEEP_S", FLEET_KEEP_DEFAULT_NS / 1000) * 1000,
	};
	struct drive d = { 0 };
	int status, i = 2;

	runner_default_replica(replica, sizeof replica);
	c.replica = getenv("FLEET_REPLICA") ? getenv("FLEET_REPLICA") : replica;
	if (!(d.fleet = fleet_new(&c, &status, err, sizeof err))) {
		fprintf(stderr, "fleet_drive: %s\n", err);
		return status;
	}
	fleet_start(d.fleet);
	while (i < argc && (status = step(&d, argv, argc, &i) ? 0 : 3) == 0)
		;
	if (status)
		fprintf(stderr, "fleet_drive: step %d (%s) failed or waited too long\n", i,
			argv[i - 1]);
	/* As tfd at exit: the name is let go, within a second. */
	fleet_release(d.fleet);
	for (int64_t until = clock_now_ns(CLOCK_MONOTONIC) + 1000 * MS;
	     fleet_pending(d.fleet) > 0 && clock_now_ns(CLOCK_MONOTONIC) < until;)
		turn(&d, until);
	fleet_free(d.fleet);
	return status;
}
