#include "runner.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

extern char **environ;

struct run {
	pid_t pid;          /* the leader, and so the process group's id */
	uint64_t seq;
	int64_t started;
	int64_t deadline;   /* timeout or end of grace; INT64_MAX for none */
	bool term_sent;     /* the next deadline sends SIGKILL */
	bool killed;        /* SIGKILL was sent: nothing is left to wait for */
	bool superseded;    /* ended by --overlap kill for a newer run */
	bool timed_out;
	bool reaped;        /* leader gone; the group still has members */
};

/* The variables every run sees, in the order of runner->env_slot. */
static const char *const env_names[] = {
	"TFD_SEQ", "TFD_EXPIRATIONS", "TFD_TOTAL", "TFD_TIME", "TFD_LATE_US",
};
#define ENV_SLOTS (sizeof env_names / sizeof env_names[0])

struct runner {
	struct runner_config cfg;
	struct run *runs;
	size_t nruns, cap;
	bool waiting;             /* a queued run, or one waiting for a kill */
	struct tick waiting_tick;
	char **envp;              /* environ without TFD_*, then the slots */
	char env_slot[ENV_SLOTS][64];
};

/* Runs: the table */

static size_t active_runs(const struct runner *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		n += !r->runs[i].reaped;
	return n;
}

static struct run *find_run(struct runner *r, pid_t pid)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i].reaped && r->runs[i].pid == pid)
			return &r->runs[i];
	return NULL;
}

static void remove_run(struct runner *r, struct run *run)
{
	*run = r->runs[--r->nruns];
}

static struct run *add_run(struct runner *r)
{
	if (r->nruns == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4;
		struct run *runs = realloc(r->runs, cap * sizeof *runs);

		if (!runs)
			return NULL;
		r->runs = runs;
		r->cap = cap;
	}
	return &r->runs[r->nruns++];
}

/* Environment */

static bool is_tfd_variable(const char *entry)
{
	for (size_t i = 0; i < ENV_SLOTS; i++) {
		size_t n = strlen(env_names[i]);

		if (strncmp(entry, env_names[i], n) == 0 && entry[n] == '=')
			return true;
	}
	return false;
}

/* Built once: a tick only rewrites the slots' text, so starting a run
 * allocates nothing. */
static int build_environment(struct runner *r)
{
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	r->envp = calloc(n + ENV_SLOTS + 1, sizeof *r->envp);
	if (!r->envp)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!is_tfd_variable(environ[i]))
			r->envp[k++] = environ[i];
	for (size_t i = 0; i < ENV_SLOTS; i++)
		r->envp[k++] = r->env_slot[i];
	return 0;
}

static void fill_environment(struct runner *r, const struct tick *t)
{
	char unix_time[40];

	format_unix(unix_time, t->wall_ns);
	snprintf(r->env_slot[0], sizeof r->env_slot[0], "TFD_SEQ=%" PRIu64, t->seq);
	snprintf(r->env_slot[1], sizeof r->env_slot[1], "TFD_EXPIRATIONS=%" PRIu64,
		 t->expirations);
	snprintf(r->env_slot[2], sizeof r->env_slot[2], "TFD_TOTAL=%" PRIu64, t->total);
	snprintf(r->env_slot[3], sizeof r->env_slot[3], "TFD_TIME=%s", unix_time);
	snprintf(r->env_slot[4], sizeof r->env_slot[4], "TFD_LATE_US=%" PRId64,
		 t->late_ns / 1000);
}

struct runner *runner_new(const struct runner_config *cfg)
{
	struct runner *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->cfg = *cfg;
	if (build_environment(r) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	free(r->envp);
	free(r->runs);
	free(r);
}

/* Starting and signalling */

static int start_run(struct runner *r, const struct tick *t, int64_t now,
		     const char **what)
{
	struct run *run;
	pid_t pid;

	fill_environment(r, t);
	run = add_run(r);
	if (!run) {
		*what = "malloc";
		return -1;
	}
	pid = spawn_run(r->cfg.target, NULL, r->cfg.path, r->cfg.argv, r->envp, what);
	if (pid < 0) {
		r->nruns--;
		return -1;
	}
	*run = (struct run){
		.pid = pid,
		.seq = t->seq,
		.started = now,
		.deadline = r->cfg.timeout_ns ? now + r->cfg.timeout_ns : INT64_MAX,
	};
	return 0;
}

/* A run leads its own process group, so the group gets the signal and
 * whatever the run started in the background goes with it. */
static void signal_run(struct run *run, int sig, int64_t now)
{
	kill(-run->pid, sig);
	if (sig == SIGKILL) {
		run->deadline = INT64_MAX;
		run->killed = true;
		return;
	}
	if (!run->term_sent) {
		run->term_sent = true;
		run->deadline = now + RUNNER_KILL_GRACE_NS;
	}
}

const char *runner_tick(struct runner *r, const struct tick *t, int64_t now,
			const char **what)
{
	if (active_runs(r) == 0 || r->cfg.overlap == OVERLAP_PARALLEL)
		return start_run(r, t, now, what) == 0 ? "run" : NULL;
	switch (r->cfg.overlap) {
	case OVERLAP_QUEUE:
		r->waiting = true;
		r->waiting_tick = *t;
		return "queue";
	case OVERLAP_KILL:
		for (size_t i = 0; i < r->nruns; i++) {
			if (!r->runs[i].reaped) {
				r->runs[i].superseded = true;
				signal_run(&r->runs[i], SIGTERM, now);
			}
		}
		r->waiting = true;
		r->waiting_tick = *t;
		return "kill";
	default:
		return "skip";
	}
}

/* Reaping */

static void describe_end(const struct run *run, int wstatus, int64_t now,
			 struct run_end *end)
{
	*end = (struct run_end){
		.seq = run->seq,
		.pid = run->pid,
		.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1,
		.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0,
		.duration_ns = now - run->started,
		.timed_out = run->timed_out,
		.superseded = run->superseded,
	};
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

bool runner_reaped(struct runner *r, pid_t pid, int wstatus, int64_t now,
		   struct run_end *end, const char **failed)
{
	struct run *run = find_run(r, pid);

	*failed = NULL;
	if (run) {
		describe_end(run, wstatus, now, end);
		run->reaped = true;
	}
	prune_groups(r);
	if (r->waiting && active_runs(r) == 0) {
		r->waiting = false;
		if (start_run(r, &r->waiting_tick, now, failed) != 0 && !*failed)
			*failed = "spawn";
	}
	return run != NULL;
}

void runner_signal_all(struct runner *r, int sig, int64_t now)
{
	r->waiting = false;
	for (size_t i = 0; i < r->nruns; i++)
		signal_run(&r->runs[i], sig, now);
}

void runner_expire(struct runner *r, int64_t now)
{
	for (size_t i = 0; i < r->nruns; i++) {
		struct run *run = &r->runs[i];

		if (run->deadline > now)
			continue;
		if (run->term_sent) {
			signal_run(run, SIGKILL, now);
			continue;
		}
		/* Only a timeout sets a deadline before SIGTERM was sent. */
		run->timed_out = true;
		signal_run(run, SIGTERM, now);
	}
	prune_groups(r);
}

int64_t runner_deadline(const struct runner *r)
{
	int64_t min = INT64_MAX;

	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].deadline < min)
			min = r->runs[i].deadline;
	return min;
}

bool runner_busy(const struct runner *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i].reaped || r->runs[i].term_sent)
			return true;
	return r->waiting;
}
