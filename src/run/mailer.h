/* SPDX-License-Identifier: MIT */
/* mailer: the loop's side of MAILTO — for each run's collected output, a
 * `sendmail -i -t` child (SENDMAIL), started as cron starts it: as the
 * job's user with the run's environment, so the envelope sender is that
 * user. Its stdin is a pipe written without blocking when poll() says it
 * takes more; it is reaped like any other child. A sendmail that cannot
 * start, exits non-zero, is killed or takes only part of the message is
 * an "error" event, and the output goes to tfd's stdout as --tag-output
 * lines: never lost. A sendmail still going MAILER_TIMEOUT_NS after its
 * start is ended (SIGTERM, SIGKILL MAILER_KILL_GRACE_NS later), so a
 * wedged MTA never piles up processes; once tfd is told to stop, a
 * sendmail has MAILER_STOP_GRACE_NS to end (tfd waits for it), then it is
 * killed: a stuck MTA never keeps tfd up.
 *
 * Time is the caller's: every function that acts on a deadline takes NOW
 * (the loop's CLOCK_MONOTONIC), so a test can pass 10 minutes without
 * waiting for them. */
#ifndef TFD_MAILER_H
#define TFD_MAILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "mail.h"
#include "spawn.h"
#include "timens.h"

/* How long a sendmail may still take once tfd is told to stop. */
#define MAILER_STOP_GRACE_NS (INT64_C(5) * NSEC_PER_SEC)

/* How long a sendmail may take at all, and the wait from its SIGTERM to
 * SIGKILL then. */
#define MAILER_TIMEOUT_NS (INT64_C(600) * NSEC_PER_SEC)
#define MAILER_KILL_GRACE_NS (INT64_C(5) * NSEC_PER_SEC)

/* Who sends a job's mail: the runs' user (and whatever else of the runs'
 * target drops privileges to that user; never their cgroup or namespaces,
 * since the MTA is tfd's host's) and the runs' environment. */
struct mail_sender {
	const struct spawn_target *target; /* NULL: tfd's own user */
	char *const *envp;                 /* NULL: tfd's environment */
};

/* One message on its way. */
struct mail_send {
	pid_t pid;
	int fd;    /* sendmail's stdin; -1 once all is written */
	char *msg; /* msg[off..len) is still to write */
	size_t off, len;
	char *job; /* the job's name, for messages and fallback */
	uint64_t seq;
	char *sendmail;        /* the program, for messages */
	struct mail_body body; /* printed if the mail fails */
	int write_error;       /* errno of a write that failed (EPIPE) */
	int64_t term_at;       /* monotonic: SIGTERM, it took too long; INT64_MAX: sent */
	int64_t kill_at;       /* monotonic: SIGKILL; INT64_MAX: none (yet) */
	bool timed_out;        /* ended at term_at */
	bool stop_killed;      /* killed at kill_at */
};

struct mailer {
	struct mail_send **s;
	size_t n, cap;
	bool closing;  /* tfd exits: output is printed, not mailed */
	bool stopping; /* tfd was told to stop: sendmails have a grace */
	bool *oom;     /* set when printed output finds no memory (sticky:
			* the loop's one failure flag); NULL: not noted */
};

/* Mails the output BODY of run SEQ of JOB as M says, sent by AS (or,
 * when tfd is closing, prints it), taking BODY's contents; an empty BODY
 * sends no mail. */
void mailer_send(struct mailer *ms, const struct mail_job *m, const struct mail_sender *as,
		 const char *job, uint64_t seq, struct mail_body *body, struct events *ev,
		 int64_t now);

/* tfd was told to stop at NOW: every sendmail, and each one started from
 * now on, is killed MAILER_STOP_GRACE_NS after NOW (or its start). */
void mailer_stop(struct mailer *ms, int64_t now);

/* The earliest term_at or kill_at (INT64_MAX: none), for the loop's
 * deadline timer. */
int64_t mailer_deadline(const struct mailer *ms);

/* Ends (SIGTERM, or SIGKILL; its whole process group) each sendmail whose
 * term_at or kill_at has come; its reaping prints the output. */
void mailer_expire(struct mailer *ms, int64_t now);

/* PID changed state: true when it is a sendmail of MS (then, when it
 * ended, its mail is done or its output printed). */
bool mailer_reaped(struct mailer *ms, pid_t pid, int wstatus, struct events *ev);

/* Writes what the sendmail pipes take now (poll said one takes more). */
void mailer_write_all(struct mailer *ms);

/* True while a sendmail runs. */
static inline bool mailer_busy(const struct mailer *ms)
{
	return ms->n > 0;
}

/* At exit: prints what was not mailed (nothing, once every sendmail was
 * reaped) and frees MS. */
void mailer_free(struct mailer *ms, struct events *ev);

#endif
