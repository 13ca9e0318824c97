/* SPDX-License-Identifier: MIT */
/* Unit tests for the mailer's limits (mailer.c), with "now" passed in as
 * the loop passes it, so ten minutes pass without being waited for: a
 * sendmail that has not ended MAILER_TIMEOUT_NS after its start gets
 * SIGTERM, one that ignores it SIGKILL MAILER_KILL_GRACE_NS later, and
 * either way its run's output is printed with an "error" event; a
 * sendmail that ends in time is left alone. The sendmails are real
 * processes (sh scripts in a scratch directory); the test reaps them
 * itself and hands each wait status to the mailer as the loop does.
 * (A bats test would wait ten real minutes, and faking the clock for tfd
 * would also fake the timerfd it sleeps on.) */
#include "harness.h"
#include "loopkit.h"
#include "mailer.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define START_NS (INT64_C(1000) * NSEC_PER_SEC)

/* Writes an executable sh script NAME whose body is BODY; returns its path. */
static char *script(const char *name, const char *body)
{
	char *path = strdup(harness_path(name));
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "#!/bin/sh\n%s\n", body) < 0 || fclose(f) != 0 ||
	    chmod(path, 0755) != 0)
		abort();
	return path;
}

/* Waits up to 10 s for file PATH, writing the mail's pipes meanwhile. */
static bool appeared(struct mailer *ms, const char *path)
{
	for (int i = 0; i < 1000; i++) {
		mailer_write_all(ms);
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/* Sends a mail of one output line through SENDMAIL at START_NS; returns
 * the sendmail's pid. */
static pid_t send_one(struct mailer *ms, struct events *ev, char *sendmail, const char *line)
{
	struct mail_job m = { .to = "t", .from = "f", .user = "u", .sendmail = sendmail };
	struct mail_sender as = { NULL, NULL };
	struct mail_body body = { 0 };

	mail_body_add(&body, line, strlen(line));
	mailer_send(ms, &m, &as, "job", 7, &body, ev, START_NS);
	check(ms->n == 1, "one sendmail going");
	return ms->n == 1 ? ms->s[0]->pid : -1;
}

/* Reaps PID, hands its status to the mailer, returns the status. */
static int reap(struct mailer *ms, struct events *ev, pid_t pid)
{
	int status = 0;

	if (waitpid(pid, &status, 0) != pid)
		abort();
	check(mailer_reaped(ms, pid, status, ev), "the mailer knows its sendmail");
	return status;
}

static void test_slow_sendmail(struct events *ev, int fd)
{
	struct mailer ms = { 0 };
	char *ready = strdup(harness_path("ready-slow"));
	char body[256];
	char *sm, *text;
	pid_t pid;
	int status;

	snprintf(body, sizeof body, "cat >/dev/null\n: >'%s'\nexec sleep 600", ready);
	sm = script("slow", body);
	pid = send_one(&ms, ev, sm, "slow line\n");
	check(mailer_deadline(&ms) == START_NS + MAILER_TIMEOUT_NS, "deadline at 600 s");
	check(appeared(&ms, ready), "the sendmail read the mail");
	mailer_expire(&ms, START_NS + MAILER_TIMEOUT_NS - 1);
	check(harness_still_running(pid), "not ended before 600 s");
	mailer_expire(&ms, START_NS + MAILER_TIMEOUT_NS);
	status = reap(&ms, ev, pid);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "ended by SIGTERM: %#x", status);
	check(!mailer_busy(&ms), "no sendmail left");
	text = harness_file_text(fd);
	check(strstr(text, "\"call\":\"sendmail\"") &&
		      strstr(text, "ended by SIGTERM: it had not ended 600 s after it started; "
				   "run 7's output is printed instead"),
	      "the error event: %s", text);
	check(strstr(text, "\"event\":\"output\",\"job\":\"job\",\"seq\":7,\"stream\":\"stdout\","
			   "\"line\":\"slow line\",\"time\":\"") != NULL,
	      "the output printed: %s", text);
	free(text);
	mailer_free(&ms, ev);
	free(sm);
	free(ready);
}

static void test_stubborn_sendmail(struct events *ev, int fd)
{
	struct mailer ms = { 0 };
	char *ready = strdup(harness_path("ready-stubborn"));
	char body[256];
	char *sm, *text;
	pid_t pid;
	int status;

	snprintf(body, sizeof body, "trap '' TERM\ncat >/dev/null\n: >'%s'\nexec sleep 600", ready);
	sm = script("stubborn", body);
	pid = send_one(&ms, ev, sm, "stubborn line\n");
	check(appeared(&ms, ready), "the sendmail read the mail");
	mailer_expire(&ms, START_NS + MAILER_TIMEOUT_NS);
	check(mailer_deadline(&ms) == START_NS + MAILER_TIMEOUT_NS + MAILER_KILL_GRACE_NS,
	      "SIGKILL due 5 s after SIGTERM");
	check(harness_still_running(pid), "SIGTERM ignored");
	mailer_expire(&ms, START_NS + MAILER_TIMEOUT_NS + MAILER_KILL_GRACE_NS - 1);
	check(harness_still_running(pid), "not killed before the grace is over");
	mailer_expire(&ms, START_NS + MAILER_TIMEOUT_NS + MAILER_KILL_GRACE_NS);
	status = reap(&ms, ev, pid);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "ended by SIGKILL: %#x", status);
	text = harness_file_text(fd);
	check(strstr(text, "ended by SIGKILL: it had not ended 600 s after it started") != NULL,
	      "the error event: %s", text);
	check(strstr(text, "\"line\":\"stubborn line\"") != NULL, "the output printed: %s", text);
	free(text);
	mailer_free(&ms, ev);
	free(sm);
	free(ready);
}

/* One that ends in time: no signal, no error, nothing printed. */
static void test_prompt_sendmail(struct events *ev, int fd)
{
	struct mailer ms = { 0 };
	char *got = strdup(harness_path("got")), body[256], *sm, *text;
	off_t before = lseek(fd, 0, SEEK_END);
	pid_t pid;
	int status;

	snprintf(body, sizeof body, "cat >'%s'", got);
	sm = script("prompt", body);
	pid = send_one(&ms, ev, sm, "prompt line\n");
	for (int i = 0; i < 1000 && ms.s[0]->fd >= 0; i++) {
		mailer_write_all(&ms);
		usleep(1000);
	}
	status = reap(&ms, ev, pid);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exited 0: %#x", status);
	text = harness_file_text(fd);
	check(strlen(text) == (size_t)before, "nothing printed: %s", text + before);
	free(text);
	mailer_free(&ms, ev);
	free(sm);
	free(got);
}

int main(void)
{
	char dir[] = "/tmp/tfd-test_mailer.XXXXXX";
	struct events ev;
	int fd;

	harness_start(dir, 60);
	fd = loopkit_json_events(&ev, harness_path("events"));
	if (fd < 0)
		return 1;
	test_slow_sendmail(&ev, fd);
	test_stubborn_sendmail(&ev, fd);
	test_prompt_sendmail(&ev, fd);
	events_close(&ev);
	close(fd);
	harness_remove_tree(dir);
	return tally_finish(&tally, "mailer");
}
