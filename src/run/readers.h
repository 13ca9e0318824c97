/* SPDX-License-Identifier: MIT */
/* readers: the pipes of --tag-output runs, read line by line into events.
 * A run's "exit" follows its leader's exit: when the reaper sees the leader
 * end, what it wrote is read first (readers_leader_ended), so its lines
 * come before its "exit". What the run left in the background may write
 * on: its lines are still read and tagged, until the pipes reach their end
 * or the run's process group is gone (readers_close_gone: a process that
 * left the group and kept the pipe gets EPIPE). A mailed run's output
 * (MAILTO) is not cut into lines but collected, both streams in the
 * order read, up to MAIL_BODY_MAX (the rest read and counted), and handed
 * to on_collected when its last pipe closes. Knows jobs only by pointer
 * and name. */
#ifndef TFD_READERS_H
#define TFD_READERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture.h"
#include "events.h"
#include "mail.h"
#include "report.h"

struct job;

/* One run's pipes. */
struct run_outputs {
	struct job *job;
	const char *name; /* the job's name, for the lines */
	pid_t pid;
	uint64_t seq;
	int open;               /* pipes not yet at end of stream */
	bool ended;             /* the leader was reaped */
	struct mail_body *mail; /* MAILTO: the output collected; NULL: lines */
	bool hook;              /* a hook's (hooks.h), labelled with its run's
				   SEQ: not the run's output, so on_bytes is
				   not told */
};

struct reader {
	int fd;     /* -1: closed, freed at readers_collect */
	int stream; /* 1 stdout, 2 stderr */
	uint64_t seq;
	size_t index; /* in struct readers */
	struct run_outputs *run;
	struct capture cap;
	struct reader *next_closed;
};

struct readers {
	struct reader **r;
	size_t n, cap;
	bool *oom;             /* set when a line finds no memory (sticky: the
				* loop's one failure flag, loopstatus.h); NULL: not noted */
	struct reader *closed; /* closed while a poll set may still name them */
	/* A mailed run's pipes are all closed: its output, for the callee
	 * to take (BODY's contents; the struct is freed after). */
	void (*on_collected)(void *arg, struct job *j, const char *name, uint64_t seq,
			     struct mail_body *body);
	/* Every chunk read from a run of J, as read (NULL: not told). */
	void (*on_bytes)(void *arg, struct job *j, const char *buf, size_t n);
	void *arg;
};

/* Takes over a run's two pipes (ERR_FD -1: OUT_FD carries both); MAIL:
 * its output is collected for a mail rather than cut into lines. Returns
 * 0, or -1 when memory ran out (then the pipes that found no reader are
 * closed). */
int readers_add_run(struct readers *rs, struct job *j, const char *name, pid_t pid, uint64_t seq,
		    bool mail, int out_fd, int err_fd);

/* The same for a hook of run SEQ of J (hooks.h): its lines are labelled
 * as the run's, its mail is the job's; on_bytes is not told. */
int readers_add_hook(struct readers *rs, struct job *j, const char *name, pid_t pid, uint64_t seq,
		     bool mail, int out_fd, int err_fd);

/* The leader of run PID was reaped: what its pipes hold now is read into
 * EV (bounded), pipes at their end are closed. */
void readers_leader_ended(struct readers *rs, pid_t pid, struct events *ev);

/* Closes, after reading what they hold, the pipes of runs whose leader
 * was reaped and whose process group has no member left. */
void readers_close_gone(struct readers *rs, struct events *ev);

/* Frees the readers closed since the last call: a poll slot may name a
 * reader that a reap closed, so they live until no poll set does. */
void readers_collect(struct readers *rs);

/* Reads what R's pipe holds now (at most a bounded amount) into EV; at
 * the end of the stream R is closed. A closed R is left as it is. */
void readers_read(struct readers *rs, struct reader *r, struct events *ev);

/* True while some run of J still has a pipe open. */
bool readers_pending_for(const struct readers *rs, const struct job *j);

/* At exit: closes what is left (nothing, when every run was waited for). */
void readers_free(struct readers *rs, struct events *ev);

/* Reads what every pipe holds now (bounded) and closes it: its run's
 * lines are printed, its mail handed on, though the run may write more. */
void readers_close_all(struct readers *rs, struct events *ev);

/* At exit, when another process (keeper.h) reads the pipes on: closes
 * them without reading, printing or mailing what they hold, and frees RS. */
void readers_forget(struct readers *rs);

#endif
