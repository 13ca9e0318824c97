/* SPDX-License-Identifier: MIT */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "buf.h"
#include "timens.h"

extern char **environ;

struct run {
	pid_t pid; /* the leader, and so the process group's id */
	uint64_t seq;
	unsigned attempt; /* from 1 */
	struct tick tick; /* what started it, for a retry */
	int64_t started;
	int64_t deadline; /* timeout or end of grace; INT64_MAX for none */
	bool term_sent;   /* the next deadline sends SIGKILL */
	bool killed;      /* SIGKILL was sent: nothing is left to wait for */
	bool superseded;  /* ended by --overlap kill for a newer run */
	bool timed_out;
	bool reaped;    /* leader gone; the group still has members */
	bool overtaken; /* a scheduled wake-up came while it ran: no retry */
	int report_fd;  /* -1, or where a run as another user says why it
			   did not start (read when its leader is reaped) */
};

/* The variables every run sees, in the order of runner_env's slots. */
static const char *const env_names[] = {
	"TFD_SEQ",     "TFD_EXPIRATIONS", "TFD_TOTAL", "TFD_TIME",    "TFD_LATE_US",
	"TFD_ATTEMPT", "TFD_SCHEDULED",   "TFD_JOB",   "TFD_REPLICA",
};
#define ENV_SLOTS (sizeof env_names / sizeof env_names[0])
/* The slots rewritten at each run; TFD_JOB and TFD_REPLICA are fixed. */
#define ENV_TICK (ENV_SLOTS - 2)

struct runner {
	struct runner_config cfg;
	struct run *runs;
	size_t nruns, cap;
	bool waiting; /* a queued run, or one waiting for a kill */
	struct tick waiting_tick;
	bool retrying; /* a failed run waits to be tried again */
	struct tick retry_tick;
	unsigned retry_attempt; /* the attempt that waits */
	int64_t retry_due;
	struct run_end retry_last; /* the try that failed, for a stop (failed set) */
	bool retry_not_started;    /* that try never started */
	bool stopping;             /* shutdown: nothing new starts */
	int64_t next_run;          /* the job's next scheduled run, as last told */
	struct runner_env *env;    /* held: what its runs start from */
	char *job_slot;            /* "TFD_JOB=NAME" */
	char *replica_slot;        /* "TFD_REPLICA=ID" */
	char *not_started;         /* the last reaped run's report: why it did not
				      start (allocated when one came), or NULL */
};

struct runner_env {
	unsigned refs;
	char **envp; /* the base, then room for the slots and a NULL */
	size_t n;    /* the base's entries */
	char **owned;
	char slot[ENV_TICK][64]; /* the starting run's TFD_* values */
};

/* Runs: the table */

size_t runner_active(const struct runner *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		n += !r->runs[i].reaped;
	return n;
}

size_t runner_pids(const struct runner *r, pid_t *pids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i].reaped && n++ < max)
			pids[n - 1] = r->runs[i].pid;
	return n;
}

bool runner_retrying(const struct runner *r)
{
	return r->retrying;
}

bool runner_runs_seq(const struct runner *r, uint64_t seq)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i].reaped && r->runs[i].seq == seq)
			return true;
	return false;
}

bool runner_would_wait(const struct runner *r)
{
	return runner_active(r) > 0 &&
	       (r->cfg.overlap == OVERLAP_QUEUE || r->cfg.overlap == OVERLAP_KILL);
}

bool runner_has_groups(const struct runner *r)
{
	return runner_active(r) < r->nruns;
}

static struct run *find_run(struct runner *r, pid_t pid)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i].reaped && r->runs[i].pid == pid)
			return &r->runs[i];
	return NULL;
}

static void close_report(struct run *run)
{
	if (run->report_fd >= 0)
		close(run->report_fd);
	run->report_fd = -1;
}

static void remove_run(struct runner *r, struct run *run)
{
	close_report(run);
	*run = r->runs[--r->nruns];
}

static struct run *add_run(struct runner *r)
{
	if (array_reserve(&r->runs, &r->cap, r->nruns + 1, sizeof *r->runs, SIZE_MAX) != 0)
		return NULL;
	return &r->runs[r->nruns++];
}

/* Environment */

bool runner_variable(const char *entry)
{
	for (size_t i = 0; i < ENV_SLOTS; i++) {
		size_t n = strlen(env_names[i]);

		if (strncmp(entry, env_names[i], n) == 0 && entry[n] == '=')
			return true;
	}
	return false;
}

void runner_clean_environment(void)
{
	for (size_t i = 0; i < ENV_SLOTS; i++)
		unsetenv(env_names[i]);
}

void runner_default_replica(char *buf, size_t len)
{
	char host[256];

	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	snprintf(buf, len, "%s:%ld", host, (long)getpid());
}

static char *env_entry(const char *name, const char *value)
{
	char *entry = malloc(strlen(name) + strlen(value) + 2);

	if (entry)
		sprintf(entry, "%s=%s", name, value);
	return entry;
}

static void free_strings(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The base holds no TFD_* variable (see runner_clean_environment), so it
 * is taken as it is. */
struct runner_env *runner_env_new(char *const *base, char **owned)
{
	struct runner_env *e = calloc(1, sizeof *e);
	size_t n = 0;

	if (!base)
		base = environ;
	while (base[n])
		n++;
	if (e)
		e->envp = calloc(n + ENV_SLOTS + 1, sizeof *e->envp);
	if (!e || !e->envp) {
		free(e);
		free_strings(owned);
		return NULL;
	}
	memcpy(e->envp, base, n * sizeof *e->envp);
	e->n = n;
	e->owned = owned;
	e->refs = 1;
	return e;
}

struct runner_env *runner_env_hold(struct runner_env *e)
{
	e->refs++;
	return e;
}

void runner_env_drop(struct runner_env *e)
{
	if (!e || --e->refs > 0)
		return;
	free(e->envp);
	free_strings(e->owned);
	free(e);
}

char *const *runner_env_base(const struct runner_env *e)
{
	return e->envp;
}

char *const *runner_env_owned(const struct runner_env *e)
{
	return e->owned;
}

static int build_run_environment(struct runner *r)
{
	char replica[RUNNER_REPLICA_MAX + 1];

	if (!r->cfg.replica)
		runner_default_replica(replica, sizeof replica);
	r->env = r->cfg.env ? runner_env_hold(r->cfg.env) : runner_env_new(NULL, NULL);
	r->job_slot = env_entry("TFD_JOB", r->cfg.name ? r->cfg.name : "tfd");
	r->replica_slot = env_entry("TFD_REPLICA", r->cfg.replica ? r->cfg.replica : replica);
	return r->env && r->job_slot && r->replica_slot ? 0 : -1;
}

/* The starting run's TFD_* variables after the base, until
 * take_environment: starting a run allocates nothing. */
static char *const *fill_environment(struct runner *r, const struct tick *t, unsigned attempt)
{
	struct runner_env *e = r->env;
	/* clang-format 14 would write "char(*slot)[64]", a call to read. */
	/* clang-format off */
	char (*slot)[64] = e->slot, unix_time[40];
	/* clang-format on */
	size_t k = e->n;

	format_unix(unix_time, t->wall_ns);
	snprintf(slot[0], sizeof slot[0], "TFD_SEQ=%" PRIu64, t->seq);
	snprintf(slot[1], sizeof slot[1], "TFD_EXPIRATIONS=%" PRIu64, t->expirations);
	snprintf(slot[2], sizeof slot[2], "TFD_TOTAL=%" PRIu64, t->total);
	snprintf(slot[3], sizeof slot[3], "TFD_TIME=%s", unix_time);
	snprintf(slot[4], sizeof slot[4], "TFD_LATE_US=%" PRId64, t->late_ns / 1000);
	snprintf(slot[5], sizeof slot[5], "TFD_ATTEMPT=%u", attempt);
	format_unix(unix_time, tick_scheduled_ns(t));
	snprintf(slot[6], sizeof slot[6], "TFD_SCHEDULED=%s", unix_time);
	for (size_t i = 0; i < ENV_TICK; i++)
		e->envp[k++] = slot[i];
	e->envp[k++] = r->job_slot;
	e->envp[k++] = r->replica_slot;
	e->envp[k] = NULL;
	return e->envp;
}

/* The run has its own copy now: the shared base ends where it did. */
static void take_environment(struct runner *r)
{
	r->env->envp[r->env->n] = NULL;
}

struct runner *runner_new(const struct runner_config *cfg)
{
	struct runner *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->cfg = *cfg;
	if (build_run_environment(r) != 0) {
		runner_free(r);
		return NULL;
	}
	return r;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	free(r->job_slot);
	free(r->replica_slot);
	free(r->not_started);
	runner_env_drop(r->env);
	for (size_t i = 0; i < r->nruns; i++)
		close_report(&r->runs[i]);
	free(r->runs);
	free(r);
}

/* Starting and signalling */

/* A crontab line's '%' text, as a file the run reads from the start: cron
 * pipes it, a memfd holds it without a writer to keep. */
static int open_input(const char *text, const char **what)
{
	size_t len = strlen(text), off = 0;
	int fd = memfd_create("tfd-input", MFD_CLOEXEC);

	if (fd < 0) {
		*what = "memfd_create";
		return -1;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*what = "write (run input)";
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* The run's end of each pipe goes to the child; tfd keeps the other,
 * non-blocking so a read never stops the loop. */
static int open_capture(int pipefd[2], const char **what)
{
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		*what = "pipe2";
		return -1;
	}
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* A run as another user looks its user up and opens its PAM session in
 * its own child; what went wrong there comes back through this pipe, read
 * without waiting once the child is reaped (its one line is in the pipe by
 * then), so the loop needs no slot for it. */
static int open_report(const struct runner *r, int report[2], const char **what)
{
	if (!r->cfg.target || !r->cfg.target->session)
		return 0;
	if (pipe2(report, O_CLOEXEC) != 0) {
		*what = "pipe2";
		return -1;
	}
	fcntl(report[0], F_SETFL, O_NONBLOCK);
	return 0;
}

static int prepare_io(struct runner *r, struct spawn_io *io, int out[2], int err[2], int report[2],
		      const char **what)
{
	*io = (struct spawn_io){ { -1, -1, -1 }, r->cfg.tty_fd, false, -1 };
	if (open_report(r, report, what) != 0)
		return -1;
	io->has_report = report[1] >= 0;
	io->report_fd = report[1];
	if (r->cfg.input && (io->fd[0] = open_input(r->cfg.input, what)) < 0)
		return -1;
	if (r->cfg.tag_output) {
		if (open_capture(out, what) != 0)
			return -1;
		if (!r->cfg.one_pipe && open_capture(err, what) != 0)
			return -1;
		io->fd[1] = out[1];
		io->fd[2] = r->cfg.one_pipe ? out[1] : err[1];
	}
	return 0;
}

/* Retries */

/* The wait before try ATTEMPT+1: the delay doubled ATTEMPT-1 times. */
static int64_t retry_wait(const struct runner *r, unsigned attempt)
{
	int64_t wait = r->cfg.retry_delay_ns;

	for (unsigned i = 1; i < attempt; i++)
		if (__builtin_mul_overflow(wait, 2, &wait))
			return INT64_MAX;
	return wait;
}

/* A failed try is tried again when tries are left, nothing else waits,
 * and the retry comes before the job's next scheduled run: the one after
 * NOW, and none came while the try ran (even one --overlap skip dropped). */
static bool plan_retry(struct runner *r, const struct run *run, int64_t now, int64_t next_run)
{
	int64_t due = ns_after(now, retry_wait(r, run->attempt));

	if (r->stopping || r->waiting || run->overtaken || run->attempt > r->cfg.retry ||
	    due >= next_run)
		return false;
	r->retrying = true;
	r->retry_tick = run->tick;
	r->retry_attempt = run->attempt + 1;
	r->retry_due = due;
	return true;
}

/* Starting a run */

/* The kernel may have these again soon: processes, memory, descriptors. */
static bool transient_error(int error)
{
	return error == EAGAIN || error == ENOMEM || error == EMFILE || error == ENFILE;
}

/* The try ATTEMPT of T could not start: a failed try, retried as a failed
 * run would be, and returned in START. */
static void fail_start(struct runner *r, const struct tick *t, unsigned attempt, int64_t now,
		       const char *call, int error, struct run_start *start)
{
	struct run tried = { .attempt = attempt, .tick = *t };

	start->kind = RUN_START_FAILED;
	start->failure = (struct start_failure){ t->seq, attempt, call, error, false, t->manual };
	start->failure.retried = plan_retry(r, &tried, now, r->next_run);
	if (start->failure.retried) {
		r->retry_last = (struct run_end){ .job = r->cfg.name,
						  .seq = t->seq,
						  .status = -1,
						  .attempt = attempt,
						  .failed = true,
						  .manual = t->manual,
						  .scheduled_ns = tick_scheduled_ns(t) };
		r->retry_not_started = true;
	}
}

/* Returns 0 when the run started or its start failed for want of a
 * resource (both in START), -1 with *what when not. */
static int start_run(struct runner *r, const struct tick *t, unsigned attempt, int64_t now,
		     struct run_start *start, const char **what)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, report[2] = { -1, -1 };
	struct spawn_io io;
	struct run *run;
	pid_t pid = -1;
	int saved;

	run = add_run(r);
	if (!run) {
		*what = "malloc";
		return -1;
	}
	if (prepare_io(r, &io, out, err, report, what) == 0)
		pid = spawn_run(r->cfg.target, &io, r->cfg.path, r->cfg.argv,
				fill_environment(r, t, attempt), what);
	saved = errno;
	take_environment(r);
	if (io.fd[0] >= 0)
		close(io.fd[0]);
	spawn_close_fds(&out[1], 1);
	spawn_close_fds(&err[1], 1);
	spawn_close_fds(&report[1], 1);
	if (pid < 0) {
		spawn_close_fds(&out[0], 1);
		spawn_close_fds(&err[0], 1);
		spawn_close_fds(&report[0], 1);
		r->nruns--;
		if (transient_error(saved)) {
			const char *call = *what;

			/* Not tfd's failure: the caller hears of none. */
			*what = NULL;
			fail_start(r, t, attempt, now, call, saved, start);
			return 0;
		}
		errno = saved;
		return -1;
	}
	*run = (struct run){
		.pid = pid,
		.seq = t->seq,
		.attempt = attempt,
		.tick = *t,
		.started = now,
		.deadline = INT64_MAX,
		.report_fd = report[0],
	};
	if (r->cfg.timeout_ns)
		run->deadline = ns_after(now, r->cfg.timeout_ns);
	start->kind = RUN_START_RUN;
	start->run = (struct run_started){ pid, t->seq, out[0], err[0] };
	return 0;
}

/* A run leads its own process group, so the group gets the signal and
 * whatever the run started in the background goes with it. A run as
 * another user makes its group itself (setsid) a moment after it starts:
 * until then the signal goes to its leader alone, which holds it blocked
 * until it execs, so it is not lost. A leader not yet reaped still owns
 * its pid; a reaped one's pid may be another process's by now. */
static void signal_group(const struct run *run, int sig)
{
	if (kill(-run->pid, sig) < 0 && errno == ESRCH && !run->reaped)
		kill(run->pid, sig);
}

/* The grace from SIGTERM to SIGKILL: --kill-after's. */
static int64_t kill_grace(const struct runner *r)
{
	return r->cfg.kill_after_ns ? r->cfg.kill_after_ns : RUNNER_KILL_GRACE_NS;
}

static void signal_run(const struct runner *r, struct run *run, int sig, int64_t now)
{
	signal_group(run, sig);
	if (sig == SIGKILL) {
		run->deadline = INT64_MAX;
		run->killed = true;
		return;
	}
	if (!run->term_sent) {
		run->term_sent = true;
		run->deadline = ns_after(now, kill_grace(r));
	}
}

enum tick_action runner_tick(struct runner *r, const struct tick *t, int64_t now, int64_t next_run,
			     struct run_start *start, const char **what)
{
	start->kind = RUN_START_NONE;
	r->next_run = next_run;
	/* A scheduled run takes over from a retry still waiting, and from
	 * the tries going now: a retry of theirs would start after it. */
	r->retrying = false;
	for (size_t i = 0; i < r->nruns; i++)
		r->runs[i].overtaken = true;
	if (runner_active(r) == 0 || r->cfg.overlap == OVERLAP_PARALLEL)
		return start_run(r, t, 1, now, start, what) == 0 ? TICK_RUN : TICK_ACTION_NONE;
	switch (r->cfg.overlap) {
	case OVERLAP_QUEUE:
		r->waiting = true;
		r->waiting_tick = *t;
		return TICK_QUEUE;
	case OVERLAP_KILL:
		for (size_t i = 0; i < r->nruns; i++) {
			if (!r->runs[i].reaped) {
				r->runs[i].superseded = true;
				signal_run(r, &r->runs[i], SIGTERM, now);
			}
		}
		r->waiting = true;
		r->waiting_tick = *t;
		return TICK_KILL;
	default:
		return TICK_SKIP;
	}
}

/* Reaping */

/* Why a run as another user did not start, if it says so: its child wrote
 * one line and ended (125) before exec. NULL when it started. */
static const char *read_report(struct runner *r, struct run *run)
{
	char line[1024];
	ssize_t n = -1;

	if (run->report_fd >= 0)
		while ((n = read(run->report_fd, line, sizeof line - 1)) < 0 && errno == EINTR)
			continue;
	close_report(run);
	if (n <= 0)
		return NULL;
	line[n] = '\0';
	/* Kept by the runner only while its end is told: a buffer a job
	 * would hold for ever is ten megabytes in ten thousand jobs. */
	free(r->not_started);
	r->not_started = strdup(line);
	return r->not_started ? r->not_started : "it did not start (no memory to say why)";
}

static void describe_end(const struct runner *r, const struct run *run, int wstatus, int64_t now,
			 struct run_end *end)
{
	*end = (struct run_end){
		.job = r->cfg.name,
		.seq = run->seq,
		.pid = run->pid,
		.attempt = run->attempt,
		.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1,
		.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0,
		.duration_ns = now - run->started,
		.timed_out = run->timed_out,
		.superseded = run->superseded,
		.manual = run->tick.manual,
		.scheduled_ns = tick_scheduled_ns(&run->tick),
	};
	/* A run that --overlap kill ended made way for a newer one. */
	end->failed = run_end_unsuccessful(end);
}

static bool group_has_members(pid_t pgid)
{
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

/* Groups whose leader is gone are kept only while they have members and
 * SIGKILL is still to come: after it, what remains are zombies that only
 * their own parent (perhaps in another pid namespace) can reap. */
static void prune_groups(struct runner *r)
{
	for (size_t i = 0; i < r->nruns;) {
		const struct run *run = &r->runs[i];

		if (run->reaped && (run->killed || !group_has_members(run->pid)))
			remove_run(r, &r->runs[i]);
		else
			i++;
	}
}

static void start_waiting(struct runner *r, int64_t now, struct run_start *start,
			  const char **failed)
{
	if (!r->waiting || runner_active(r) != 0 || r->stopping)
		return;
	r->waiting = false;
	if (start_run(r, &r->waiting_tick, 1, now, start, failed) != 0 && !*failed)
		*failed = "spawn";
}

enum reaped runner_reaped(struct runner *r, pid_t pid, int wstatus, int64_t now, int64_t next_run,
			  struct run_end *end, struct run_start *start, const char **failed)
{
	struct run *run = find_run(r, pid);

	start->kind = RUN_START_NONE;
	*failed = NULL;
	r->next_run = next_run;
	if (run && WIFSTOPPED(wstatus)) {
		end->pid = pid;
		return REAPED_STOPPED;
	}
	if (run) {
		describe_end(r, run, wstatus, now, end);
		end->not_started = read_report(r, run);
		run->reaped = true;
		if (end->failed && plan_retry(r, run, now, next_run)) {
			end->failed = false;
			r->retry_last = *end;
			r->retry_last.failed = true;
			r->retry_last.not_started = NULL; /* said once, at its end */
			r->retry_not_started = false;
		}
		/* -E: the first failure is tfd's status; nothing queued
		 * behind it may start and overwrite it. */
		if (end->failed && r->cfg.exit_on_error)
			r->waiting = false;
	}
	prune_groups(r);
	start_waiting(r, now, start, failed);
	return run ? REAPED_RUN : REAPED_NOT_OURS;
}

size_t runner_drain(struct runner *r)
{
	size_t dropped = (size_t)r->waiting + (size_t)r->retrying;

	r->waiting = false;
	r->retrying = false;
	r->stopping = true;
	return dropped;
}

size_t runner_signal_all(struct runner *r, int sig, int64_t now)
{
	size_t dropped = runner_drain(r);

	for (size_t i = 0; i < r->nruns; i++)
		signal_run(r, &r->runs[i], sig, now);
	return dropped;
}

void runner_stop(struct runner *r, int64_t now, struct runner_stopped *out)
{
	*out = (struct runner_stopped){ .queued = r->waiting,
					.queued_seq = r->waiting_tick.seq,
					.retry = r->retrying,
					.retry_not_started = r->retry_not_started,
					.last_try = r->retry_last };
	r->waiting = false;
	r->retrying = false;
	for (size_t i = 0; i < r->nruns; i++) {
		struct run *run = &r->runs[i];

		if (run->reaped || run->term_sent)
			continue;
		run->overtaken = true;
		signal_run(r, run, SIGTERM, now);
		out->signalled++;
	}
}

void runner_drop_waiting(struct runner *r)
{
	r->waiting = false;
}

void runner_forward(struct runner *r, int sig)
{
	for (size_t i = 0; i < r->nruns; i++)
		signal_group(&r->runs[i], sig);
}

void runner_expire(struct runner *r, int64_t now, struct run_start *start, const char **failed)
{
	start->kind = RUN_START_NONE;
	*failed = NULL;
	for (size_t i = 0; i < r->nruns; i++) {
		struct run *run = &r->runs[i];

		if (run->deadline > now)
			continue;
		if (run->term_sent) {
			signal_run(r, run, SIGKILL, now);
			continue;
		}
		/* Only a timeout sets a deadline before SIGTERM was sent. */
		run->timed_out = true;
		signal_run(r, run, SIGTERM, now);
	}
	prune_groups(r);
	if (r->retrying && r->retry_due <= now && !r->stopping) {
		r->retrying = false;
		if (start_run(r, &r->retry_tick, r->retry_attempt, now, start, failed) != 0 &&
		    !*failed)
			*failed = "spawn";
	}
}

int64_t runner_deadline(const struct runner *r)
{
	int64_t min = r->retrying ? r->retry_due : INT64_MAX;

	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].deadline < min)
			min = r->runs[i].deadline;
	return min;
}

bool runner_busy(const struct runner *r)
{
	return r->nruns > 0 || r->waiting || r->retrying;
}

void runner_finish_groups(struct runner *r, int64_t now)
{
	for (size_t i = 0; i < r->nruns; i++) {
		struct run *run = &r->runs[i];

		if (run->reaped && !run->term_sent && run->deadline == INT64_MAX)
			signal_run(r, run, SIGTERM, now);
	}
}
