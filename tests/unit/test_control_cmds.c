/* SPDX-License-Identifier: MIT */
/* Unit tests for control_cmds.c on a bare loop (loopkit.h), without a
 * listening socket or a poll loop: each request is handed to the commands
 * as the socket's hook would hand it, from a client given on a
 * socketpair, whose other end reads the answers. The table's commands
 * and what each takes (a job, the jobs, "wait") answered as tfdctl(1)
 * says; a manual run enters through due.c and its answer carries the
 * run's own number; run --wait answered at the run's end, a queued run
 * dropped by stop told so, a job that leaves the table and tfd's exit
 * told; pause and resume check every name first; reload answered with
 * its outcome, or when it did not come in time; list made in parts as
 * the socket takes them; an answer owed to a client that hangs up is
 * forgotten. */
#include "control_cmds.h"
#include "harness.h"
#include "loopkit.h"
#include "reload.h"
#include "runs.h"
#include "tick.h"
#include "timens.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const int64_t S = 1000000000;

/* A bare loop with --control's commands and socket (no listening one),
 * the runs' records handed to the commands as loop.c hands them, and
 * clients on socketpairs. */
struct kit {
	struct loopkit *k;
	struct loop *l;
	struct control_client *c[2];
	int peer[2];
};

static void record_to_commands(void *arg, struct job *j, const struct run_record *r, bool final)
{
	control_cmds_run_ended(arg, j, r, final);
}

static void end_ignored(void *arg, struct job *j, const struct run_end *e)
{
	(void)arg;
	(void)j;
	(void)e;
}

static struct kit kit_new(void)
{
	struct kit x = { .k = loopkit_new() };
	struct loop *l = x.l = &x.k->l;
	const struct control_hooks hooks = { control_cmds_request, control_cmds_more,
					     control_cmds_expired, control_cmds_closed, l };

	runs_free(l->runs);
	l->runs = runs_new(record_to_commands, end_ignored, l);
	l->commands = control_cmds_new();
	l->control = control_new(-1, -1, NULL, CONTROL_FDS, &hooks, &l->control_slices);
	if (!l->runs || !l->commands || !l->control)
		abort();
	for (int i = 0; i < 2; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
			abort();
		x.c[i] = control_add_client(l->control, sv[0], 1000 + i);
		x.peer[i] = sv[1];
	}
	return x;
}

static void kit_free(struct kit *x)
{
	control_cmds_free(x->l);
	control_free(x->l->control);
	for (int i = 0; i < 2; i++)
		if (x->peer[i] >= 0)
			close(x->peer[i]);
	loopkit_free(x->k);
}

/* Client I asks REQ, as the socket hands a line up. */
static void ask(struct kit *x, int i, const char *req)
{
	control_cmds_request(x->l, x->c[i], req, strlen(req));
}

/* What client I has been sent by now ("" when nothing). */
static const char *heard(struct kit *x, int i)
{
	static char buf[65536];
	size_t len = 0;
	struct pollfd p = { .fd = x->peer[i], .events = POLLIN };

	while (len < sizeof buf - 1 && poll(&p, 1, 0) == 1) {
		ssize_t n = read(x->peer[i], buf + len, sizeof buf - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static struct job *job_running(struct kit *x, const char *name, char *const *argv,
			       enum overlap overlap)
{
	struct job *j = loopkit_job(x->k, name, NULL, clock_now_ns(CLOCK_MONOTONIC) + 3600 * S, 0);

	if (argv)
		loopkit_command(j, argv);
	j->run.overlap = overlap;
	tick_start_job(x->l, j);
	return j;
}

static void slot_ignored(void *arg, int fd, short events, void *tag)
{
	(void)arg;
	(void)fd;
	(void)events;
	(void)tag;
}

/* The next run to exit, reaped as SIGCHLD's handler reaps it. */
static void reap_next(struct loop *l)
{
	siginfo_t si = { 0 };

	check(waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) == 0 && si.si_pid > 0, "a run exited");
	runs_reap(l);
}

static void test_requests(void)
{
	struct kit x = kit_new();

	job_running(&x, "backup", NULL, OVERLAP_SKIP);
	ask(&x, 0, "{\"command\":");
	check(starts(heard(&x, 0), "{\"ok\":false,\"error\":\"bad request: "), "a bad line");
	ask(&x, 0, "[1]");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"bad request: an object with "
				   "\\\"command\\\" expected\"}\n") == 0,
	      "an object with \"command\"");
	ask(&x, 0, "{\"command\":\"lsit\"}");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"unknown command 'lsit'\"}\n") == 0,
	      "an unknown command");
	ask(&x, 0, "{\"command\":\"status\"}");
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"this command needs \\\"job\\\"\"}\n") == 0,
	      "status takes a job");
	ask(&x, 0, "{\"command\":\"status\",\"job\":\"bakup\"}");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"unknown job 'bakup'; did you mean "
				   "'backup'?\"}\n") == 0,
	      "an unknown job, the nearest said");
	ask(&x, 0, "{\"command\":\"status\",\"job\":\"backup\\u0000x\"}");
	check(strstr(heard(&x, 0), "a job's name holds no NUL") != NULL, "no NUL in a name");
	ask(&x, 0, "{\"command\":\"status\",\"job\":\"backup\"}");
	check(starts(heard(&x, 0), "{\"ok\":true,\"job\":{\"job\":\"backup\""), "status answers");
	check(strstr(loopkit_err(x.k), "control") == NULL, "reading changes nothing: no event");
	kit_free(&x);
}

/* run: the answer carries the run's number; --wait answers at its end;
 * --overlap skip refuses a second while the first goes. */
static void test_run(void)
{
	static char *const t[] = { "/bin/sh", "-c", "exit 3", NULL };
	static char *const sleep30[] = { "/bin/sleep", "30", NULL };
	struct kit x = kit_new();
	struct job *j = job_running(&x, "t", t, OVERLAP_SKIP);

	job_running(&x, "s", sleep30, OVERLAP_SKIP);
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"t\"}");
	/* clang-format off */
	check(strcmp(heard(&x, 0), "{\"ok\":true,\"job\":\"t\",\"seq\":1,\"action\":\"run\"}\n") == 0,
	      "run: started, its number 1");
	/* clang-format on */
	check(strstr(loopkit_err(x.k), "tfd: control: run t (uid 1000)") != NULL,
	      "a control event with the uid: '%s'", loopkit_err(x.k));
	reap_next(x.l);
	check(*heard(&x, 0) == '\0', "no more without --wait");
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"t\",\"wait\":true}");
	check(*heard(&x, 0) == '\0' && j->state->seq == 2, "--wait: nothing until the end");
	reap_next(x.l);
	check(starts(heard(&x, 0), "{\"ok\":true,\"job\":\"t\",\"seq\":2,\"status\":3,\"signal\":"
				   "null,\"timed_out\":false,\"duration\":"),
	      "then the end of run 2");
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"s\"}");
	check(strstr(heard(&x, 0), "\"seq\":1,\"action\":\"run\"") != NULL, "s runs");
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"s\",\"wait\":true}");
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"a run is still going and --overlap is "
		     "skip\",\"action\":\"skip\"}\n") == 0,
	      "--overlap skip refuses the second");
	ask(&x, 1, "{\"command\":\"stop\",\"job\":\"s\"}");
	check(strcmp(heard(&x, 1),
		     "{\"ok\":true,\"job\":\"s\",\"stopped\":1,\"queued_dropped\":null,"
		     "\"retry_dropped\":null}\n") == 0,
	      "stop ends it");
	reap_next(x.l);
	check(*heard(&x, 0) == '\0', "the refused --wait waits no more");
	kit_free(&x);
}

/* What due.c refuses: a job without a command, a run while tfd drains. */
static void test_run_refused(void)
{
	static char *const t[] = { "/bin/true", NULL };
	struct kit x = kit_new();

	job_running(&x, "p", NULL, OVERLAP_SKIP);
	job_running(&x, "t", t, OVERLAP_SKIP);
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"p\"}");
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"job 'p' has no command to run\"}\n") == 0,
	      "no command");
	status_drain(&x.l->st);
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"t\",\"wait\":true}");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"tfd is shutting down\"}\n") == 0,
	      "draining: nothing new starts");
	check(strstr(loopkit_err(x.k), "control: run") == NULL, "refused: no control event");
	kit_free(&x);
}

/* A run --wait on a queued run: stop drops it, and the waiter is told
 * which run did not run. */
static void test_stop_queued(void)
{
	static char *const sleep30[] = { "/bin/sleep", "30", NULL };
	struct kit x = kit_new();

	job_running(&x, "q", sleep30, OVERLAP_QUEUE);
	ask(&x, 1, "{\"command\":\"run\",\"job\":\"q\"}");
	check(strstr(heard(&x, 1), "\"seq\":1,\"action\":\"run\"") != NULL, "run 1 goes");
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"q\",\"wait\":true}");
	check(*heard(&x, 0) == '\0', "run 2 is queued behind it: its waiter waits");
	ask(&x, 1, "{\"command\":\"stop\",\"job\":\"q\"}");
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"run 2 of 'q' was dropped from the queue "
		     "by tfdctl stop: it did not run\"}\n") == 0,
	      "the waiter is told");
	check(strcmp(heard(&x, 1), "{\"ok\":true,\"job\":\"q\",\"stopped\":1,\"queued_dropped\":2,"
				   "\"retry_dropped\":null}\n") == 0,
	      "stop says what it dropped");
	reap_next(x.l);
	kit_free(&x);
}

/* A waiter whose job leaves the table is told; one left at tfd's exit
 * too; and one whose client hung up is forgotten. */
static void test_waiters_told(void)
{
	static char *const sleep30[] = { "/bin/sleep", "30", NULL };
	struct kit x = kit_new();
	struct job *j = job_running(&x, "p", sleep30, OVERLAP_PARALLEL);

	ask(&x, 0, "{\"command\":\"run\",\"job\":\"p\",\"wait\":true}");
	control_cmds_job_gone(x.l, j);
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"job 'p' left the table before its run "
		     "ended\"}\n") == 0,
	      "a job that leaves: told");
	ask(&x, 1, "{\"command\":\"run\",\"job\":\"p\",\"wait\":true}");
	close(x.peer[1]);
	x.peer[1] = -1;
	/* Its end of stream read, then its hang-up: closed, and freed at
	 * the next turn (under ASan, an answer owed to it still would be
	 * a use after free). */
	control_ready(x.l->control, x.c[1]);
	control_ready(x.l->control, x.c[1]);
	control_poll(x.l->control, slot_ignored, NULL);
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"p\",\"wait\":true}");
	runner_stop(j->state->runner, clock_now_ns(CLOCK_MONOTONIC), &(struct runner_stopped){ 0 });
	while (runner_active(j->state->runner) > 0)
		reap_next(x.l);
	check(strstr(heard(&x, 0), "\"seq\":3,\"status\":null,\"signal\":\"SIGTERM\"") != NULL,
	      "the waiter of run 3 hears its end; run 2's, gone, is forgotten");
	ask(&x, 0, "{\"command\":\"run\",\"job\":\"p\",\"wait\":true}");
	control_cmds_free(x.l);
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"tfd exited before the run ended\"}\n") == 0,
	      "at exit: told");
	runner_stop(j->state->runner, clock_now_ns(CLOCK_MONOTONIC), &(struct runner_stopped){ 0 });
	reap_next(x.l);
	check(*heard(&x, 0) == '\0', "the run's end, after: no one waits");
	kit_free(&x);
}

/* pause and resume: every name checked before any job changes. */
static void test_pause(void)
{
	struct kit x = kit_new();
	struct job *a = job_running(&x, "a", NULL, OVERLAP_SKIP);
	struct job *b = job_running(&x, "b", NULL, OVERLAP_SKIP);

	ask(&x, 0, "{\"command\":\"pause\",\"jobs\":[\"a\",\"nope\"]}");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"unknown job 'nope'\"}\n") == 0 &&
		      !a->state->paused,
	      "an unknown name: nothing paused");
	ask(&x, 0, "{\"command\":\"pause\",\"jobs\":[1]}");
	check(strstr(heard(&x, 0), "\\\"jobs\\\" holds names (strings)") != NULL, "names only");
	ask(&x, 0, "{\"command\":\"resume\"}");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"resume needs \\\"jobs\\\" (names) or "
				   "\\\"all\\\": true\"}\n") == 0,
	      "resume names what it resumes");
	ask(&x, 0, "{\"command\":\"pause\",\"jobs\":[\"a\",\"b\"]}");
	check(strcmp(heard(&x, 0), "{\"ok\":true}\n") == 0 && a->state->paused &&
		      b->state->paused && x.l->metrics_dirty,
	      "both paused");
	check(strstr(loopkit_err(x.k), "control: pause a (uid 1000)") &&
		      strstr(loopkit_err(x.k), "control: pause b (uid 1000)"),
	      "an event each");
	ask(&x, 0, "{\"command\":\"resume\",\"all\":true}");
	check(strcmp(heard(&x, 0), "{\"ok\":true}\n") == 0 && !a->state->paused &&
		      !b->state->paused,
	      "all resumed");
	check(strstr(loopkit_err(x.k), "control: resume (uid 1000)") != NULL, "one event");
	ask(&x, 0, "{\"command\":\"pause\",\"job\":\"b\"}");
	check(strcmp(heard(&x, 0), "{\"ok\":true}\n") == 0 && b->state->paused && !a->state->paused,
	      "\"job\" alone");
	kit_free(&x);
}

static int no_reload(void *arg, struct job_table *out, bool forced, char *const *held,
		     jobs_warn_fn warn, void *warn_arg, char *err, size_t errlen)
{
	(void)arg;
	(void)out;
	(void)forced;
	(void)held;
	(void)warn;
	(void)warn_arg;
	(void)err;
	(void)errlen;
	return -1;
}

/* reload: answered with its outcome, or told it did not come. */
static void test_reload(void)
{
	struct kit x = kit_new();
	struct reload_counts counts = { .added = 1, .removed = 0, .kept = 2 };

	ask(&x, 0, "{\"command\":\"reload\"}");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"reload needs a tfd started with "
				   "--jobs\"}\n") == 0,
	      "one job from the command line: refused");
	x.k->cfg.jobs_path = "jobs";
	x.k->cfg.reload = no_reload;
	x.l->reload = reload_new(NULL, NULL);
	ask(&x, 0, "{\"command\":\"reload\"}");
	check(*heard(&x, 0) == '\0' && reload_deadline(x.l) <= clock_now_ns(CLOCK_MONOTONIC),
	      "a reload asked for; the answer waits for it");
	control_cmds_reloaded(x.l, &counts, NULL);
	check(strcmp(heard(&x, 0), "{\"ok\":true,\"added\":1,\"removed\":0,\"kept\":2}\n") == 0,
	      "its counts");
	ask(&x, 0, "{\"command\":\"reload\"}");
	control_cmds_reloaded(x.l, &counts, "jobs:3: bad line");
	check(strcmp(heard(&x, 0), "{\"ok\":false,\"error\":\"jobs:3: bad line\"}\n") == 0,
	      "or its error");
	status_stop(&x.l->st, SIGTERM);
	ask(&x, 0, "{\"command\":\"reload\"}");
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"tfd is stopping: no reload now\"}\n") == 0,
	      "none while tfd stops");
	x.l->st.phase = PHASE_RUNNING;
	ask(&x, 0, "{\"command\":\"reload\"}");
	control_expire(x.l->control, clock_now_ns(CLOCK_MONOTONIC) + 3600 * S);
	check(strcmp(heard(&x, 0),
		     "{\"ok\":false,\"error\":\"the reload did not come in time\"}\n") == 0,
	      "or that it did not come");
	reload_free(x.l->reload);
	kit_free(&x);
}

/* list: made in parts as the socket takes them, the whole table. */
static void test_list(void)
{
	struct kit x = kit_new();
	static char all[1 << 20];
	size_t names = 0;

	for (int i = 0; i < 300; i++) {
		char name[48];

		snprintf(name, sizeof name, "job-with-a-long-name-%03d", i);
		job_running(&x, name, NULL, OVERLAP_SKIP);
	}
	slice_budget_renew(&x.l->control_slices, clock_now_ns(CLOCK_MONOTONIC));
	ask(&x, 0, "{\"command\":\"list\"}");
	for (int turns = 0; turns < 1000 && !strstr(all, "]}\n"); turns++) {
		x.l->control_slices.left_ns = SLICE_NS;
		control_ready(x.l->control, x.c[0]);
		strncat(all, heard(&x, 0), sizeof all - strlen(all) - 1);
	}
	for (const char *p = all; (p = strstr(p, "\"job\":\"job-with-a-long-name-")); p++)
		names++;
	check(starts(all, "{\"ok\":true,\"jobs\":[") && strstr(all, "]}\n") && names == 300,
	      "every job, once: %zu", names);
	ask(&x, 0, "{\"command\":\"status\",\"job\":\"job-with-a-long-name-007\"}");
	check(strstr(heard(&x, 0), "\"job\":\"job-with-a-long-name-007\"") != NULL,
	      "then the next request");
	kit_free(&x);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_requests();
	test_run();
	test_run_refused();
	test_stop_queued();
	test_waiters_told();
	test_pause();
	test_reload();
	test_list();
	return tally_finish(&tally, "test_control_cmds");
}
