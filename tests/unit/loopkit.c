/* SPDX-License-Identifier: MIT */
#include "loopkit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deadlines.h"
#include "runs.h"
#include "starts.h"
#include "tick.h"

static void on_record(void *arg, struct job *j, const struct run_record *r, bool final)
{
	struct loopkit *k = arg;

	(void)j;
	k->records++;
	k->finals += final;
	k->last_record = *r;
}

static void on_end(void *arg, struct job *j, const struct run_end *e)
{
	struct loopkit *k = arg;

	(void)j;
	(void)e;
	k->ends++;
}

struct loopkit *loopkit_new(void)
{
	struct loopkit *k = calloc(1, sizeof *k);
	struct events_config ec = { 0 };
	struct loop *l;

	if (!k)
		abort();
	l = &k->l;
	snprintf(k->out_path, sizeof k->out_path, "/tmp/tfd-loopkit.XXXXXX");
	snprintf(k->err_path, sizeof k->err_path, "/tmp/tfd-loopkit.XXXXXX");
	k->out_fd = mkstemp(k->out_path);
	k->err_fd = mkstemp(k->err_path);
	if (k->out_fd < 0 || k->err_fd < 0 || events_open(&l->ev, &ec) != 0)
		abort();
	/* The loop's stdout and stderr are the test's files. */
	output_open(&l->ev.out, k->out_fd, "stdout");
	output_open(&l->ev.err, k->err_fd, "stderr");
	l->cfg = &k->cfg;
	l->signal_fd = l->precise_fd = -1;
	tick_clocks_init(l);
	deadlines_init(l);
	starts_init(&l->starts, 64);
	l->runs = runs_new(on_record, on_end, k);
	if (!l->runs)
		abort();
	return k;
}

void loopkit_free(struct loopkit *k)
{
	struct loop *l = &k->l;

	for (size_t i = 0; i < l->njobs; i++) {
		struct job *j = l->jobs[i];

		job_state_free(j);
		free(j->name);
		free(j->format);
		free(j);
	}
	free(l->jobs);
	tick_clocks_free(l);
	deadlines_free(l);
	runs_free(l->runs);
	events_close(&l->ev);
	close(k->out_fd);
	close(k->err_fd);
	unlink(k->out_path);
	unlink(k->err_path);
	free(k);
}

static void read_back(struct output *o, const char *path, char *text, size_t size)
{
	ssize_t n;
	int fd;

	output_flush(o);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, text, size - 1) : -1;
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
}

const char *loopkit_out(struct loopkit *k)
{
	static char text[8192];

	read_back(&k->l.ev.out, k->out_path, text, sizeof text);
	return text;
}

const char *loopkit_err(struct loopkit *k)
{
	static char text[8192];

	read_back(&k->l.ev.err, k->err_path, text, sizeof text);
	return text;
}

struct job *loopkit_job(struct loopkit *k, const char *name, const char *format, int64_t first_ns,
			int64_t interval_ns)
{
	struct loop *l = &k->l;
	struct job *j = calloc(1, sizeof *j);
	struct job **jobs = realloc(l->jobs, (l->njobs + 1) * sizeof *jobs);

	if (!j || !jobs)
		abort();
	l->jobs = jobs;
	j->name = strdup(name);
	j->format = format ? strdup(format) : NULL;
	j->schedule = (struct schedule){ .kind = SCHEDULE_TIMER,
					 .clock = CLOCK_MONOTONIC,
					 .first_ns = first_ns,
					 .interval_ns = interval_ns };
	j->clock_name = "monotonic";
	j->read_clock = CLOCK_MONOTONIC;
	j->start_mono_ns = first_ns;
	if (!j->name || (format && !j->format) || job_state_attach(j) != 0)
		abort();
	j->state->for_deadline = INT64_MAX;
	l->jobs[l->njobs++] = j;
	return j;
}

void loopkit_command(struct job *j, char *const *argv)
{
	j->path = argv[0];
	j->argv = (char **)argv;
	j->target = (struct spawn_target){ .cgroup_fd = -1, .join_pidfd = -1 };
	j->run.path = j->path;
	j->run.argv = j->argv;
	j->run.target = &j->target;
}

int loopkit_json_events(struct events *ev, const char *path)
{
	struct events_config cfg = { .json = true };
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0 || events_open(ev, &cfg) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* The events go to a file of the test's, not to its stdout. */
	output_close(&ev->out);
	output_close(&ev->err);
	output_open(&ev->out, fd, "stdout");
	output_open(&ev->err, fd, "stderr");
	return fd;
}
