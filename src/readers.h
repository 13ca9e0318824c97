/* readers: the pipes of --tag-output runs, read line by line into events.
 * A run's "exit" event waits until both its pipes reach their end: when
 * the reaper sees a run end while its pipes are open, the end is parked
 * here (readers_park_end) and handed back by readers_read once the last
 * pipe closes, for the caller to finish. Knows jobs only by pointer and
 * name. */
#ifndef TFD_READERS_H
#define TFD_READERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture.h"
#include "events.h"
#include "report.h"

struct job;

/* One run's pipes. */
struct run_outputs {
	struct job *job;
	const char *name;      /* the job's name, for the lines */
	pid_t pid;
	int open;              /* pipes not yet at end of stream */
	bool ended;            /* the run was reaped: END is its end */
	struct run_end end;
};

struct reader {
	int fd;
	int stream;            /* 1 stdout, 2 stderr */
	uint64_t seq;
	size_t index;          /* in struct readers */
	struct run_outputs *run;
	struct capture cap;
};

struct readers {
	struct reader **r;
	size_t n, cap;
	bool oom;              /* a line found no memory: the caller says so */
};

/* Takes over a run's two pipes. Returns 0, or -1 when memory ran out
 * (then the pipes that found no reader are closed). */
int readers_add_run(struct readers *rs, struct job *j, const char *name, pid_t pid,
		    uint64_t seq, int out_fd, int err_fd);

/* The run PID ended: true when its pipes are still open, so END waits
 * here for readers_read to return it. */
bool readers_park_end(struct readers *rs, pid_t pid, const struct run_end *end);

enum reader_result {
	READER_MORE,          /* read some, or nothing was there */
	READER_RUN_DONE,      /* the run's last pipe closed after its end: *done */
};

/* Reads what R's pipe holds now (at most a bounded amount) into EV; at
 * the end of the stream R is closed and freed. */
enum reader_result readers_read(struct readers *rs, struct reader *r, struct events *ev,
				struct job **job, struct run_end *done);

/* True while some run of J still has a pipe open. */
bool readers_pending_for(const struct readers *rs, const struct job *j);

/* At exit: closes what is left (nothing, when every run was waited for). */
void readers_free(struct readers *rs, struct events *ev);

#endif
