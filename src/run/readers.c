/* SPDX-License-Identifier: MIT */
#include "readers.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"

/* At most this many bytes are read from one run's pipe per wake-up, so
 * one chatty run cannot starve the others. */
#define CAPTURE_READ_MAX (64 * 1024)

/* At most this many reads drain a pipe when its run's leader ends: the
 * pipe's capacity (64 KiB by default, 1 MiB at most unprivileged) and no
 * more, though a process left behind keeps writing. */
#define DRAIN_READS_MAX 16

static int add_reader(struct readers *rs, struct run_outputs *ro, int fd, int stream, uint64_t seq)
{
	struct reader *r;

	if (array_reserve(&rs->r, &rs->cap, rs->n + 1, sizeof *rs->r, SIZE_MAX) != 0)
		return -1;
	r = calloc(1, sizeof *r);
	if (!r)
		return -1;
	*r = (struct reader){ .fd = fd, .stream = stream, .seq = seq, .run = ro, .index = rs->n };
	rs->r[rs->n++] = r;
	ro->open++;
	return 0;
}

static void run_outputs_free(struct run_outputs *ro)
{
	if (ro && ro->mail)
		mail_body_free(ro->mail);
	if (ro)
		free(ro->mail);
	free(ro);
}

static int add_outputs(struct readers *rs, struct job *j, const char *name, pid_t pid, uint64_t seq,
		       bool mail, bool hook, int out_fd, int err_fd)
{
	struct run_outputs *ro = calloc(1, sizeof *ro);

	if (ro)
		*ro = (struct run_outputs){ .job = j,
					    .name = name,
					    .pid = pid,
					    .seq = seq,
					    .hook = hook };
	if (ro && mail && !(ro->mail = calloc(1, sizeof *ro->mail))) {
		free(ro);
		ro = NULL;
	}
	if (!ro || add_reader(rs, ro, out_fd, 1, seq) != 0 ||
	    (err_fd >= 0 && add_reader(rs, ro, err_fd, 2, seq) != 0)) {
		/* Without a reader the pipe has no other end: the run
		 * sees EPIPE, tfd says why. */
		if (!ro || ro->open == 0) {
			close(out_fd);
			run_outputs_free(ro);
		}
		if (err_fd >= 0)
			close(err_fd);
		return -1;
	}
	return 0;
}

int readers_add_run(struct readers *rs, struct job *j, const char *name, pid_t pid, uint64_t seq,
		    bool mail, int out_fd, int err_fd)
{
	return add_outputs(rs, j, name, pid, seq, mail, false, out_fd, err_fd);
}

int readers_add_hook(struct readers *rs, struct job *j, const char *name, pid_t pid, uint64_t seq,
		     bool mail, int out_fd, int err_fd)
{
	return add_outputs(rs, j, name, pid, seq, mail, true, out_fd, err_fd);
}

struct line_target {
	struct events *ev;
	const struct reader *r;
	bool oom;
};

static void note_oom(struct readers *rs, bool oom)
{
	if (oom && rs->oom)
		*rs->oom = true;
}

static void captured_line(void *arg, const char *line, size_t len)
{
	struct line_target *t = arg;

	if (events_output_line(t->ev, t->r->run->name, t->r->seq, t->r->stream, line, len) != 0)
		t->oom = true;
}

static void close_reader(struct readers *rs, struct reader *r, struct events *ev)
{
	struct run_outputs *ro = r->run;
	struct line_target t = { ev, r, false };

	capture_finish(&r->cap, captured_line, &t);
	note_oom(rs, t.oom);
	capture_free(&r->cap);
	close(r->fd);
	r->fd = -1;
	rs->r[r->index] = rs->r[--rs->n];
	rs->r[r->index]->index = r->index;
	r->next_closed = rs->closed;
	rs->closed = r;
	if (--ro->open > 0)
		return;
	if (ro->mail && rs->on_collected)
		rs->on_collected(rs->arg, ro->job, ro->name, ro->seq, ro->mail);
	run_outputs_free(ro);
}

enum read_result { READ_SOME, READ_NOTHING, READ_CLOSED };

static enum read_result read_some(struct readers *rs, struct reader *r, struct events *ev)
{
	struct line_target t = { ev, r, false };
	char buf[CAPTURE_READ_MAX];
	ssize_t n = read(r->fd, buf, sizeof buf);

	if (n > 0 && rs->on_bytes && !r->run->hook)
		rs->on_bytes(rs->arg, r->run->job, buf, (size_t)n);
	if (n > 0 && r->run->mail) {
		/* Bytes past the cap are counted: the run never blocks. */
		if (mail_body_add(r->run->mail, buf, (size_t)n) != 0)
			t.oom = true;
		note_oom(rs, t.oom);
		return READ_SOME;
	}
	if (n > 0) {
		if (capture_feed(&r->cap, buf, (size_t)n, captured_line, &t) != 0)
			t.oom = true;
		note_oom(rs, t.oom);
		return READ_SOME;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return READ_NOTHING;
	close_reader(rs, r, ev);
	return READ_CLOSED;
}

void readers_read(struct readers *rs, struct reader *r, struct events *ev)
{
	if (r->fd >= 0)
		read_some(rs, r, ev);
}

void readers_collect(struct readers *rs)
{
	while (rs->closed) {
		struct reader *r = rs->closed;

		rs->closed = r->next_closed;
		free(r);
	}
}

/* Reads R until its pipe is empty or closed; CLOSE: closes it then. */
static void drain(struct readers *rs, struct reader *r, struct events *ev, bool close)
{
	enum read_result got = READ_SOME;

	for (int k = 0; k < DRAIN_READS_MAX && got == READ_SOME; k++)
		got = read_some(rs, r, ev);
	if (close && got != READ_CLOSED)
		close_reader(rs, r, ev);
}

/* Index of the next reader of RO from I on (rs->n when none): readers
 * move when one closes, so each pass looks again from the start. */
static size_t find_reader_of(const struct readers *rs, const struct run_outputs *ro, size_t i)
{
	while (i < rs->n && rs->r[i]->run != ro)
		i++;
	return i;
}

/* Drains (CLOSE: and closes) every pipe of the run RO. */
static void drain_run(struct readers *rs, struct run_outputs *ro, struct events *ev, bool close)
{
	struct reader *mine[2];
	size_t n = 0;

	for (size_t i = find_reader_of(rs, ro, 0); i < rs->n && n < 2;
	     i = find_reader_of(rs, ro, i + 1))
		mine[n++] = rs->r[i];
	/* The last close frees RO: nothing of it is touched after. */
	for (size_t k = 0; k < n; k++)
		drain(rs, mine[k], ev, close);
}

static struct run_outputs *run_of(const struct readers *rs, pid_t pid)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i]->run->pid == pid)
			return rs->r[i]->run;
	return NULL;
}

void readers_leader_ended(struct readers *rs, pid_t pid, struct events *ev)
{
	struct run_outputs *ro = run_of(rs, pid);

	if (!ro)
		return;
	ro->ended = true;
	drain_run(rs, ro, ev, false);
}

static bool group_gone(pid_t pgid)
{
	return kill(-pgid, 0) != 0 && errno == ESRCH;
}

void readers_close_gone(struct readers *rs, struct events *ev)
{
	for (size_t i = 0; i < rs->n;) {
		struct run_outputs *ro = rs->r[i]->run;

		if (ro->ended && group_gone(ro->pid)) {
			drain_run(rs, ro, ev, true);
			i = 0;
		} else {
			i++;
		}
	}
}

void readers_close_all(struct readers *rs, struct events *ev)
{
	while (rs->n > 0)
		drain_run(rs, rs->r[0]->run, ev, true);
}

bool readers_pending_for(const struct readers *rs, const struct job *j)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i]->run->job == j)
			return true;
	return false;
}

void readers_free(struct readers *rs, struct events *ev)
{
	while (rs->n > 0)
		close_reader(rs, rs->r[rs->n - 1], ev);
	readers_collect(rs);
	free(rs->r);
	rs->r = NULL;
	rs->cap = 0;
}

void readers_forget(struct readers *rs)
{
	while (rs->n > 0) {
		struct reader *r = rs->r[--rs->n];
		struct run_outputs *ro = r->run;

		capture_free(&r->cap);
		close(r->fd);
		free(r);
		if (--ro->open == 0)
			run_outputs_free(ro);
	}
	readers_collect(rs);
	free(rs->r);
	rs->r = NULL;
	rs->cap = 0;
}
