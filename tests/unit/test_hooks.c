/* SPDX-License-Identifier: MIT */
/* Unit tests for the hooks (hooks.c): which hook follows which end of a
 * run, the environment a hook sees (pure), and a real hook's life with
 * "now" passed in as the loop passes it, so five minutes pass without
 * being waited for: the output file it reads and its removal, a hook
 * that has not ended HOOK_TIMEOUT_NS after its start ended by SIGTERM
 * (SIGKILL its grace later), and each failure an "error" event naming the
 * job and the hook. The test reaps the hooks itself and hands each wait
 * status to them as the loop does. */
#include "harness.h"
#include "loopkit.h"
#include "hooks.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define START_NS (INT64_C(1000) * NSEC_PER_SEC)
#define GRACE_NS (INT64_C(2) * NSEC_PER_SEC)

static const char *find(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}

static void test_which_hook(void)
{
	struct job_hooks h = { .shell = "/bin/sh", .command = { "f", "s" } };
	struct run_end ok = { .attempt = 1 }, bad = { .status = 3, .failed = true },
		       retried = { .status = 3, .failed = false },
		       timeout = { .signal = SIGTERM, .timed_out = true, .failed = true },
		       superseded = { .signal = SIGTERM, .superseded = true };
	enum hook_kind k = HOOK_KINDS;

	check(job_hook_for(&h, &ok, &k) == h.command[HOOK_SUCCESS] && k == HOOK_SUCCESS,
	      "a success runs --on-success");
	check(job_hook_for(&h, &bad, &k) == h.command[HOOK_FAILURE] && k == HOOK_FAILURE,
	      "a failure after the last try runs --on-failure");
	check(job_hook_for(&h, &retried, &k) == NULL, "a try a retry follows runs none");
	check(job_hook_for(&h, &timeout, &k) == h.command[HOOK_FAILURE], "a timeout is a failure");
	check(job_hook_for(&h, &superseded, &k) == NULL, "--overlap kill's end runs none");
	h.command[HOOK_SUCCESS] = NULL;
	check(job_hook_for(&h, &ok, &k) == NULL, "no --on-success: none");
}

static void test_environment(void)
{
	char *base[] = { "PATH=/bin", "HOME=/root", NULL };
	struct run_end e = { .seq = 42,
			     .status = -1,
			     .signal = SIGKILL,
			     .failed = true,
			     .duration_ns = 1500000000,
			     .scheduled_ns = INT64_C(1796292001000123456) };
	struct hook_vars v = { "backup", 42, &e, HOOK_FAILURE, "/tmp/tfd-hook-x" };
	char **envp = hook_environment(base, &v), buf[64];

	check(envp != NULL, "built");
	if (!envp)
		return;
	check(strcmp(envp[0], "PATH=/bin") == 0 && strcmp(envp[1], "HOME=/root") == 0,
	      "the runs' environment first");
	check(find(envp, "TFD_JOB") && strcmp(find(envp, "TFD_JOB"), "backup") == 0, "TFD_JOB");
	check(find(envp, "TFD_RUN") && strcmp(find(envp, "TFD_RUN"), "42") == 0, "TFD_RUN");
	check(find(envp, "TFD_STATUS") && strcmp(find(envp, "TFD_STATUS"), "signal SIGKILL") == 0,
	      "TFD_STATUS: %s", find(envp, "TFD_STATUS"));
	check(find(envp, "TFD_EXIT_STATUS") && strcmp(find(envp, "TFD_EXIT_STATUS"), "137") == 0,
	      "TFD_EXIT_STATUS: 128 + 9");
	check(find(envp, "TFD_DURATION") && strcmp(find(envp, "TFD_DURATION"), "1.5") == 0,
	      "TFD_DURATION");
	check(find(envp, "TFD_SCHEDULED") &&
		      strcmp(find(envp, "TFD_SCHEDULED"), "1796292001.000123456") == 0,
	      "TFD_SCHEDULED");
	check(find(envp, "TFD_HOOK") && strcmp(find(envp, "TFD_HOOK"), "on-failure") == 0,
	      "TFD_HOOK");
	check(find(envp, "TFD_OUTPUT_FILE") &&
		      strcmp(find(envp, "TFD_OUTPUT_FILE"), "/tmp/tfd-hook-x") == 0,
	      "TFD_OUTPUT_FILE");
	free(envp);
	v.output_file = NULL;
	e = (struct run_end){ .seq = 1, .status = 0 };
	envp = hook_environment(NULL, &v);
	check(envp && !find(envp, "TFD_OUTPUT_FILE"), "no output read: no TFD_OUTPUT_FILE");
	check(envp && strcmp(find(envp, "TFD_STATUS"), "success") == 0, "success");
	free(envp);
	e = (struct run_end){ .status = 3 };
	check(strcmp(hook_status_text(&e, buf, sizeof buf), "failure") == 0, "failure");
	e = (struct run_end){ .signal = SIGTERM, .timed_out = true };
	check(strcmp(hook_status_text(&e, buf, sizeof buf), "timeout") == 0, "timeout");
}

/* Waits up to 10 s for PATH. */
static bool appeared(const char *path)
{
	for (int i = 0; i < 1000; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/* Starts COMMAND as the --on-failure hook of run 7 of "job", with the
 * output tail TAIL; returns its pid. */
static pid_t start(struct hooks *hs, struct events *ev, const char *command, const char *tail)
{
	struct run_end e = { .seq = 7, .status = 1, .failed = true };
	struct hook_start s = { .kind = HOOK_FAILURE,
				.shell = "/bin/sh",
				.command = command,
				.job = "job",
				.end = &e,
				.tail = tail,
				.tail_len = tail ? strlen(tail) : 0,
				.kill_grace_ns = GRACE_NS };
	struct hook_record rec;
	struct hook_started out;

	check(hooks_start(hs, &s, ev, START_NS, 0, &rec, &out), "started");
	check(out.out_fd < 0 && out.err_fd < 0, "no pipes without capture");
	check(hs->n == 1, "one hook going");
	return hs->n == 1 ? hs->h[0]->pid : -1;
}

/* Reaps PID, hands its status to the hooks; returns its record. */
static struct hook_record reap(struct hooks *hs, struct events *ev, pid_t pid, int64_t now)
{
	struct hook_record rec = { 0 };
	void *owner;
	bool ended;
	int status;

	if (waitpid(pid, &status, 0) != pid)
		abort();
	check(hooks_reaped(hs, pid, status, ev, now, &ended, &owner, &rec) && ended,
	      "the hooks know their hook");
	return rec;
}

static void test_output_file(struct events *ev, int fd)
{
	struct hooks hs = { 0 };
	char command[512], *copy = strdup(harness_path("copy"));
	char text[64] = "", *events;
	struct hook_record rec;
	struct stat st;
	FILE *f;
	pid_t pid;

	snprintf(command, sizeof command,
		 "cat \"$TFD_OUTPUT_FILE\" >'%s.tmp'; echo \"$TFD_OUTPUT_FILE\" >>'%s.tmp';"
		 " mv '%s.tmp' '%s'",
		 copy, copy, copy, copy);
	pid = start(&hs, ev, command, "the tail\n");
	check(hs.h[0]->output_file && stat(hs.h[0]->output_file, &st) == 0 &&
		      (st.st_mode & 0777) == 0600,
	      "the output file is there, 0600");
	rec = reap(&hs, ev, pid, START_NS + 1000);
	check(rec.status == 0 && !rec.signal && rec.kind == HOOK_FAILURE && rec.seq == 7 &&
		      rec.duration_ns == 1000,
	      "its record");
	f = fopen(copy, "r");
	check(f && fread(text, 1, sizeof text - 1, f) > 0, "the hook read the file");
	check(strncmp(text, "the tail\n/", 10) == 0, "its content: %s", text);
	text[strcspn(text + 10, "\n") + 10] = '\0';
	check(access(text + 9, F_OK) != 0, "removed once the hook ended: %s", text + 9);
	if (f)
		fclose(f);
	events = harness_file_text(fd);
	check(strstr(events, "hook") == NULL, "no error event: %s", events);
	free(events);
	hooks_free(&hs);
	free(copy);
}

static void test_slow_hook(struct events *ev, int fd)
{
	struct hooks hs = { 0 };
	char *ready = strdup(harness_path("ready-slow")), command[256], *text;
	struct hook_record rec;
	pid_t pid;

	snprintf(command, sizeof command, "trap '' TERM; : >'%s'; while :; do sleep 1; done",
		 ready);
	pid = start(&hs, ev, command, NULL);
	check(hooks_deadline(&hs) == START_NS + HOOK_TIMEOUT_NS, "deadline at 300 s");
	check(appeared(ready), "the hook started");
	hooks_expire(&hs, START_NS + HOOK_TIMEOUT_NS - 1);
	check(harness_still_running(pid), "not ended before 300 s");
	hooks_expire(&hs, START_NS + HOOK_TIMEOUT_NS);
	check(hooks_deadline(&hs) == START_NS + HOOK_TIMEOUT_NS + GRACE_NS,
	      "SIGKILL due the kill grace after SIGTERM");
	check(harness_still_running(pid), "SIGTERM ignored");
	hooks_expire(&hs, START_NS + HOOK_TIMEOUT_NS + GRACE_NS);
	rec = reap(&hs, ev, pid, START_NS + HOOK_TIMEOUT_NS + GRACE_NS);
	check(rec.signal == SIGKILL && rec.timed_out, "ended by SIGKILL, timed out");
	check(!hooks_busy(&hs, NULL), "no hook left");
	text = harness_file_text(fd);
	check(strstr(text, "\"event\":\"error\",\"job\":\"job\",\"call\":\"hook\"") &&
		      strstr(text, "job: --on-failure hook of run 7: ended by SIGKILL: it had not "
				   "ended 300 s after it started"),
	      "the error event: %s", text);
	free(text);
	hooks_free(&hs);
	free(ready);
}

static void test_failing_hook(struct events *ev, int fd)
{
	struct hooks hs = { 0 };
	struct run_end e = { .seq = 8, .status = 1, .failed = true };
	struct hook_start s = { .kind = HOOK_SUCCESS,
				.shell = "/nonexistent/sh",
				.command = "true",
				.job = "job",
				.end = &e };
	struct hook_record rec;
	struct hook_started out;
	char *text;
	pid_t pid = start(&hs, ev, "exit 4", NULL);

	rec = reap(&hs, ev, pid, START_NS);
	check(rec.status == 4, "exit status 4");
	text = harness_file_text(fd);
	check(strstr(text, "job: --on-failure hook of run 7: exited with status 4") != NULL,
	      "the error event: %s", text);
	free(text);
	/* A shell that is not there: exec fails in the child (127). */
	check(hooks_start(&hs, &s, ev, START_NS, 0, &rec, &out) && out.pid > 0, "started");
	rec = reap(&hs, ev, out.pid, START_NS);
	check(rec.status == 127, "127: %d", rec.status);
	text = harness_file_text(fd);
	check(strstr(text, "job: --on-success hook of run 8: exited with status 127") != NULL,
	      "the error event: %s", text);
	free(text);
	hooks_signal(&hs, SIGTERM, START_NS);
	check(hooks_start(&hs, &s, ev, START_NS, 0, &rec, &out) && hs.n == 0 && out.pid == 0,
	      "once a stop was forwarded, nothing starts");
	hooks_free(&hs);
}

/* With capture, the hook's stdout and stderr come through two pipes, or
 * one. */
static void test_capture(struct events *ev)
{
	struct hooks hs = { 0 };
	struct run_end e = { .seq = 9 };
	struct hook_start s = { .kind = HOOK_SUCCESS,
				.shell = "/bin/sh",
				.command = "echo out; echo err >&2",
				.job = "job",
				.end = &e,
				.capture = true };
	struct hook_record rec;
	struct hook_started out;
	char buf[64];
	ssize_t n;

	check(hooks_start(&hs, &s, ev, START_NS, 0, &rec, &out) && out.out_fd >= 0 &&
		      out.err_fd >= 0,
	      "two pipes");
	rec = reap(&hs, ev, out.pid, START_NS);
	n = read(out.out_fd, buf, sizeof buf);
	check(n == 4 && memcmp(buf, "out\n", 4) == 0, "stdout through the first");
	n = read(out.err_fd, buf, sizeof buf);
	check(n == 4 && memcmp(buf, "err\n", 4) == 0, "stderr through the second");
	close(out.out_fd);
	close(out.err_fd);
	s.one_pipe = true;
	check(hooks_start(&hs, &s, ev, START_NS, 0, &rec, &out) && out.out_fd >= 0 &&
		      out.err_fd < 0,
	      "one pipe");
	rec = reap(&hs, ev, out.pid, START_NS);
	n = read(out.out_fd, buf, sizeof buf);
	check(n == 8 && memcmp(buf, "out\nerr\n", 8) == 0, "both through it");
	close(out.out_fd);
	hooks_free(&hs);
}

int main(void)
{
	char dir[] = "/tmp/tfd-test_hooks.XXXXXX";
	struct events ev;
	int fd;

	harness_start(dir, 60);
	test_which_hook();
	test_environment();
	fd = loopkit_json_events(&ev, harness_path("events"));
	if (fd < 0)
		return 1;
	test_output_file(&ev, fd);
	test_slow_hook(&ev, fd);
	test_failing_hook(&ev, fd);
	test_capture(&ev);
	events_close(&ev);
	close(fd);
	harness_remove_tree(dir);
	return tally_finish(&tally, "hooks");
}
