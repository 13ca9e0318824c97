#include "readers.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* At most this many bytes are read from one run's pipe per wake-up, so
 * one chatty run cannot starve the others. */
#define CAPTURE_READ_MAX (64 * 1024)

static int add_reader(struct readers *rs, struct run_outputs *ro, int fd, int stream,
		      uint64_t seq)
{
	struct reader *r;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 8;
		struct reader **p = realloc(rs->r, cap * sizeof *p);

		if (!p)
			return -1;
		rs->r = p;
		rs->cap = cap;
	}
	r = calloc(1, sizeof *r);
	if (!r)
		return -1;
	*r = (struct reader){ .fd = fd, .stream = stream, .seq = seq, .run = ro,
			      .index = rs->n };
	rs->r[rs->n++] = r;
	ro->open++;
	return 0;
}

int readers_add_run(struct readers *rs, struct job *j, const char *name, pid_t pid,
		    uint64_t seq, int out_fd, int err_fd)
{
	struct run_outputs *ro = calloc(1, sizeof *ro);

	if (ro)
		*ro = (struct run_outputs){ .job = j, .name = name, .pid = pid };
	if (!ro || add_reader(rs, ro, out_fd, 1, seq) != 0 ||
	    add_reader(rs, ro, err_fd, 2, seq) != 0) {
		/* Without a reader the pipe has no other end: the run
		 * sees EPIPE, tfd says why. */
		if (!ro || ro->open == 0) {
			close(out_fd);
			free(ro);
		}
		close(err_fd);
		return -1;
	}
	return 0;
}

bool readers_park_end(struct readers *rs, pid_t pid, const struct run_end *end)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct run_outputs *ro = rs->r[i]->run;

		if (ro->pid == pid && !ro->ended) {
			ro->ended = true;
			ro->end = *end;
			return true;
		}
	}
	return false;
}

struct line_target {
	struct events *ev;
	const struct reader *r;
	bool oom;
};

static void captured_line(void *arg, const char *line, size_t len)
{
	struct line_target *t = arg;

	if (events_output_line(t->ev, t->r->run->name, t->r->seq, t->r->stream, line, len) != 0)
		t->oom = true;
}

/* Returns true when R was its run's last pipe and the run had ended. */
static bool close_reader(struct readers *rs, struct reader *r, struct events *ev,
			 struct job **job, struct run_end *done)
{
	struct run_outputs *ro = r->run;
	struct line_target t = { ev, r, false };
	bool finished = false;

	capture_finish(&r->cap, captured_line, &t);
	rs->oom = rs->oom || t.oom;
	capture_free(&r->cap);
	close(r->fd);
	rs->r[r->index] = rs->r[--rs->n];
	rs->r[r->index]->index = r->index;
	free(r);
	if (--ro->open == 0) {
		if (ro->ended) {
			*job = ro->job;
			*done = ro->end;
			finished = true;
		}
		free(ro);
	}
	return finished;
}

enum reader_result readers_read(struct readers *rs, struct reader *r, struct events *ev,
				struct job **job, struct run_end *done)
{
	struct line_target t = { ev, r, false };
	char buf[CAPTURE_READ_MAX];
	ssize_t n = read(r->fd, buf, sizeof buf);

	if (n > 0) {
		if (capture_feed(&r->cap, buf, (size_t)n, captured_line, &t) != 0)
			t.oom = true;
		rs->oom = rs->oom || t.oom;
		return READER_MORE;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return READER_MORE;
	return close_reader(rs, r, ev, job, done) ? READER_RUN_DONE : READER_MORE;
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
	struct job *job;
	struct run_end done;

	while (rs->n > 0)
		close_reader(rs, rs->r[rs->n - 1], ev, &job, &done);
	free(rs->r);
	rs->r = NULL;
	rs->cap = 0;
}
