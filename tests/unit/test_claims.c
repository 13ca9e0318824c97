/* SPDX-License-Identifier: MIT */
/* Unit tests for claims.c on a bare loop (loopkit.h), without poll or a
 * database: without --fleet every call costs nothing and holds nothing;
 * with a fleet that connects nowhere, an elapse is held for its claim
 * (never run unclaimed) while an @reboot one acts at once, a held tick
 * keeps tfd up, the job leaving lets go of it, and a run end that was no
 * won elapse writes nothing. What is won is acted on by tick_elapse_act,
 * whose answer (a run came of it, or may) decides the row: that answer is
 * tested in test_tick. */
#include "claims.h"
#include "fleet.h"
#include "harness.h"
#include "loopkit.h"
#include "timens.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const int64_t MS = 1000000;

/* What the claims hand tfdctl's answers to: nothing waits here. */
static void no_manual(void *arg, struct job *j, const struct tick *t)
{
	(void)arg, (void)j, (void)t;
}

static void no_pause(void *arg, uint64_t token, const char *message)
{
	(void)arg, (void)token, (void)message;
}

static const struct claims_hooks hooks = { no_manual, no_pause, NULL };

static void test_without_fleet(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = loopkit_job(k, "a", "%n", 0, MS);
	struct tick t = { .job = "a", .seq = 1, .expirations = 1 };
	struct run_end e = { .seq = 1 };
	short events = 0;

	check(claims_start(l, &hooks) == 0 && l->claims == NULL, "no fleet: no claims");
	check(!claims_hold(l, j, &t), "an elapse acts at once");
	check(!claims_waiting(l) && claims_deadline(l) == INT64_MAX &&
		      claims_poll_fd(l, &events) == -1 && claims_metrics(l) == NULL,
	      "nothing waits, nothing to poll, no figures");
	claims_run_ended(l, j, &e);
	claims_job_gone(l, j);
	claims_finish(l);
	claims_free(l);
	check(loopkit_out(k)[0] == '\0' && l->st.phase == PHASE_RUNNING, "and nothing said");
	loopkit_free(k);
}

/* A fleet whose database is a socket directory that is not there: it
 * never answers, so every claim stays held. */
static struct fleet *fleet_nowhere(void)
{
	struct fleet_config c = { .conninfo = "host=/nonexistent/tfd-test-claims dbname=x",
				  .replica = "test",
				  .lease_ns = FLEET_LEASE_DEFAULT_NS,
				  .deadline_ns = FLEET_DEADLINE_DEFAULT_NS,
				  .keep_ns = FLEET_KEEP_DEFAULT_NS };
	char err[256];
	int status;
	struct fleet *f = fleet_new(&c, &status, err, sizeof err);

	if (!f)
		printf("# no fleet (%s): the fleet part is passed over\n", err);
	return f;
}

static void test_held(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = loopkit_job(k, "h", "%n", 0, MS);
	struct job *boot = loopkit_job(k, "b", "%n", 0, MS);
	struct tick t = { .job = "h",
			  .seq = 1,
			  .expirations = 1,
			  .wall_ns = clock_now_ns(CLOCK_REALTIME) };
	struct run_end e = { .seq = 1, .attempt = 1 };

	k->cfg.fleet = fleet_nowhere();
	if (!k->cfg.fleet) {
		loopkit_free(k);
		return;
	}
	boot->reboot = true;
	check(claims_start(l, &hooks) == 0 && l->claims != NULL, "a fleet: claims set up");
	check(claims_metrics(l) != NULL && claims_metrics(l)->connected == false,
	      "its figures, not connected");
	check(!claims_waiting(l), "nothing held yet");
	check(claims_hold(l, j, &t), "an elapse is held for its claim");
	check(claims_waiting(l), "a held tick keeps tfd up");
	check(loopkit_out(k)[0] == '\0' && j->state->metrics.skipped == 0,
	      "nothing printed or run before the answer");
	check(!claims_hold(l, boot, &t), "an @reboot job runs on every replica: not held");
	claims_run_ended(l, j, &e);
	check(l->st.phase == PHASE_RUNNING, "a run end of no won elapse writes nothing");
	claims_job_gone(l, j);
	check(claims_waiting(l), "the job gone, its claim still waits for its answer");
	claims_free(l);
	check(l->claims == NULL, "freed");
	fleet_free(k->cfg.fleet);
	loopkit_free(k);
}

/* tfd drains (--on-stop=wait) while claims wait unsent (the database
 * away): they are dropped, and their ticks with them, or the drain would
 * wait for answers that never come; a scheduled elapse's tick is not
 * printed (the other replicas claim it), tfdctl run's is missed. */
static void test_unsent_at_drain(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct job *j = loopkit_job(k, "u", "%n", 0, MS);
	int64_t now = clock_now_ns(CLOCK_REALTIME);
	struct tick t = { .job = "u", .seq = 1, .expirations = 1, .wall_ns = now };
	struct tick m = { .job = "u",
			  .seq = 2,
			  .expirations = 1,
			  .wall_ns = now + MS,
			  .manual = true };

	k->cfg.fleet = fleet_nowhere();
	if (!k->cfg.fleet) {
		loopkit_free(k);
		return;
	}
	check(claims_start(l, &hooks) == 0, "a fleet: claims set up");
	check(claims_hold(l, j, &t) && claims_hold(l, j, &m), "two elapses held");
	claims_service(l, 0);
	check(claims_waiting(l) && loopkit_out(k)[0] == '\0',
	      "running, their claims wait for the database");
	status_drain(&l->st);
	claims_service(l, 0);
	check(!claims_waiting(l), "drained: the unsent claims no longer hold tfd up");
	check(strcmp(loopkit_out(k), "2\n") == 0, "only tfdctl run's tick (2) printed, missed: %s",
	      loopkit_out(k));
	claims_free(l);
	fleet_free(k->cfg.fleet);
	loopkit_free(k);
}

int main(void)
{
	alarm(30);
	test_without_fleet();
	test_held();
	test_unsent_at_drain();
	return tally_finish(&tally, "claims");
}
