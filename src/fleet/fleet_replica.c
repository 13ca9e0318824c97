/* SPDX-License-Identifier: MIT */
/* fleet_replica: what the replicas know of each other. Each process holds
 * its --replica name in tfd_replicas with an instance id of its own,
 * renewed every lease/6; it writes its jobs' fingerprints to tfd_jobs and
 * compares them with the other live replicas'. Also the outage's report
 * and a claim queue that falls behind. */
#include "fleet.h"
#include "fleet_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "fleet_sql.h"
#include "report.h"

/* Decisions:
 * - A name is another process's while its holder renews it: a second
 *   process under one name would abandon the first one's running claims
 *   at its start and renew them as its own. The newcomer waits lease/3
 *   before it concludes: a holder that renewed within the last lease may
 *   have just died (a container restarted in its pod), and a live one
 *   renews within lease/6.
 * - Jobs are compared by fingerprint, in the database, by every replica
 *   at each renewal: during a rolling upgrade two definitions of a job run
 *   side by side, each replica claiming at its own instants, and only the
 *   database sees both. Each difference (job, other replica, its
 *   fingerprint) is told once. */

struct fleet_replica {
	char instance[33]; /* this process's, random: who holds the name */
	char host[256];
	int64_t beat_at;              /* the next renewal of the name (monotonic) */
	int64_t hold_retry_at;        /* the name held by another: asked again then; 0 */
	int64_t holder_seen_us;       /* that holder's seen_at when found; -1: none */
	char *job_names, *job_prints; /* this replica's jobs as array literals; NULL: none yet */
	uint64_t jobs_version, jobs_written;
	char **differ_told; /* "job\x1freplica\x1ffingerprint" told once */
	size_t ndiffer_told;
	int64_t ready_real;        /* when the connection was last ready (wall clock) */
	int64_t unreachable_since; /* monotonic: the outage's first failure; 0: none */
	bool ever_ready;           /* a connection was ready once */
	bool behind_reported, fatal;
	bool released; /* given up at exit: never renewed or written again */
};

int fleet__replica_init(struct fleet *f)
{
	unsigned char id[16] = { 0 };

	if (!(f->rep = calloc(1, sizeof *f->rep)))
		return -1;

	/* Not a secret, only unique: a short read leaves zeros beside the pid
	 * and the time, which still tell two processes apart. */
	if (getrandom(id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id) {
		int64_t t = fleet__now_real();
		pid_t pid = getpid();

		memcpy(id, &t, sizeof t);
		memcpy(id + sizeof t, &pid, sizeof pid);
	}
	for (size_t i = 0; i < sizeof id; i++)
		snprintf(f->rep->instance + 2 * i, 3, "%02x", id[i]);
	if (gethostname(f->rep->host, sizeof f->rep->host) != 0)
		snprintf(f->rep->host, sizeof f->rep->host, "unknown");
	f->rep->host[sizeof f->rep->host - 1] = '\0';
	f->rep->holder_seen_us = -1;
	return 0;
}

void fleet__replica_free(struct fleet *f)
{
	if (!f->rep)
		return;
	for (size_t i = 0; i < f->rep->ndiffer_told; i++)
		free(f->rep->differ_told[i]);
	free(f->rep->differ_told);
	free(f->rep->job_names);
	free(f->rep->job_prints);
	free(f->rep);
	f->rep = NULL;
}

const char *fleet__replica_jobs(const struct fleet *f)
{
	return f->rep->job_names;
}

void fleet__replica_beat_at(struct fleet *f, int64_t at)
{
	f->rep->beat_at = at;
}

/* Statements */

static void param_text(struct fleet_statement *p, int slot, const char *fmt, int64_t v)
{
	snprintf(p->buf[slot], sizeof p->buf[slot], fmt, v);
	p->v[p->n++] = p->buf[slot];
}

const char *fleet__replica_statement(struct fleet *f, const struct op *op,
				     struct fleet_statement *p)
{
	switch (op->kind) {
	case OP_HOLD:
		p->v[p->n++] = f->replica;
		p->v[p->n++] = f->rep->instance;
		p->v[p->n++] = f->rep->host;
		param_text(p, 0, "%" PRId64, (int64_t)getpid());
		p->v[p->n++] = TFD_VERSION;
		param_text(p, 1, "%" PRId64, f->cfg.lease_ns / 1000);
		if (f->rep->holder_seen_us >= 0)
			param_text(p, 2, "%" PRId64, f->rep->holder_seen_us);
		else
			p->v[p->n++] = NULL;
		return fleet_sql_hold;
	case OP_BEAT:
		p->v[p->n++] = f->replica;
		p->v[p->n++] = f->rep->instance;
		return fleet_sql_beat;
	case OP_RELEASE:
		p->v[p->n++] = f->replica;
		p->v[p->n++] = f->rep->instance;
		param_text(p, 0, "%" PRId64, f->cfg.lease_ns / 1000);
		return fleet_sql_release;
	case OP_JOBS:
		p->v[p->n++] = f->replica;
		p->v[p->n++] = f->rep->job_names;
		p->v[p->n++] = f->rep->job_prints;
		return fleet_sql_jobs;
	case OP_DIFFER:
		p->v[p->n++] = f->replica;
		param_text(p, 0, "%" PRId64, f->cfg.lease_ns / 1000);
		return fleet_sql_differ;
	default:
		return NULL;
	}
}

static void queue_op(struct fleet *f, enum op_kind kind)
{
	struct op *op = fleet_op_new(kind, NULL, 0);

	if (!op) {
		f->events.lost = true; /* the loop stops: out of memory */
		return;
	}
	op->token = f->rep->jobs_version;
	fleet__enqueue(f, op);
}

/* The name is another process's: said once, and nothing more is claimed
 * under it. */
static void fatal_holder(struct fleet *f, const pq_result *r, int host_field)
{
	char msg[600];
	bool known = !f->pq.get_is_null(r, 0, host_field);

	snprintf(msg, sizeof msg,
		 "--fleet: replica '%.200s': another process holds this name (%s%.200s%s%s), "
		 "renewed within the last --fleet-lease: give each process its own --replica",
		 f->replica, known ? "host " : "nobody now",
		 known ? f->pq.get_value(r, 0, host_field) : "", known ? ", pid " : "",
		 known ? f->pq.get_value(r, 0, host_field + 1) : "");
	f->rep->fatal = true;
	fleet__refuse_claims(f);
	fleet_events_push(&f->events,
			  &(struct fleet_event){ .kind = FLEET_EVENT_FATAL, .call = "fleet" }, NULL,
			  msg);
}

static bool first_is_true(const struct fleet *f, const pq_result *r)
{
	return f->pq.ntuples(r) > 0 && strcmp(f->pq.get_value(r, 0, 0), "t") == 0;
}

/* The name taken: the setup goes on (its next statement in *SEND).
 * Held by another: asked again after lease/3 with the holder's seen_at,
 * which a dead holder leaves as it was; a second refusal is the end. */
static int answer_hold(struct fleet *f, const pq_result *r, struct op **send)
{
	if (first_is_true(f, r)) {
		f->rep->holder_seen_us = -1;
		f->rep->hold_retry_at = 0;
		*send = fleet_op_new(OP_START, NULL, 0);
		return *send ? 0 : -ENOMEM;
	}
	if (f->rep->holder_seen_us >= 0 || f->pq.ntuples(r) < 1 || f->pq.get_is_null(r, 0, 3)) {
		fatal_holder(f, r, 1);
		return 0;
	}
	f->rep->holder_seen_us = strtoll(f->pq.get_value(r, 0, 3), NULL, 10);
	f->rep->hold_retry_at = fleet__now_mono() + f->cfg.lease_ns / 3;
	return 0;
}

static bool told_before(struct fleet *f, const char *job, const char *replica, const char *print)
{
	size_t len = strlen(job) + strlen(replica) + strlen(print) + 3;
	char *key = malloc(len), **grown;

	if (!key)
		return true;
	snprintf(key, len, "%s\x1f%s\x1f%s", job, replica, print);
	for (size_t i = 0; i < f->rep->ndiffer_told; i++)
		if (strcmp(f->rep->differ_told[i], key) == 0) {
			free(key);
			return true;
		}
	grown = realloc(f->rep->differ_told, (f->rep->ndiffer_told + 1) * sizeof *grown);
	if (!grown) {
		free(key);
		return true;
	}
	f->rep->differ_told = grown;
	f->rep->differ_told[f->rep->ndiffer_told++] = key;
	return false;
}

static void answer_differ(struct fleet *f, const pq_result *r)
{
	for (int i = 0; i < f->pq.ntuples(r); i++) {
		const char *job = f->pq.get_value(r, i, 0), *other = f->pq.get_value(r, i, 1);
		char msg[800];

		if (told_before(f, job, other, f->pq.get_value(r, i, 2)))
			continue;
		/* clang-format off */
		snprintf(msg, sizeof msg, "job '%.300s' is defined otherwise on replica '%.200s' "
			 "(its schedule, command or policies differ): each replica claims it at its "
			 "own instants", job, other);
		/* clang-format on */
		fleet__push_error(f, "fleet", msg);
	}
}

int fleet__replica_answer(struct fleet *f, struct op *op, const pq_result *r, struct op **send)
{
	int rc = 0;

	*send = NULL;
	switch (op->kind) {
	case OP_HOLD:
		rc = answer_hold(f, r, send);
		break;
	case OP_BEAT:
		if (!first_is_true(f, r)) {
			fatal_holder(f, r, 1);
			break;
		}
		if (f->rep->released)
			break; /* sent before the release: nothing follows it */
		f->rep->beat_at = fleet__now_mono() + f->cfg.lease_ns / 6;
		if (f->rep->job_names)
			queue_op(f, f->rep->jobs_written == f->rep->jobs_version ? OP_DIFFER
										 : OP_JOBS);
		fleet__pause_refresh(f, f->rep->job_names);
		break;
	case OP_JOBS:
		f->rep->jobs_written = op->token;
		queue_op(f, OP_DIFFER);
		break;
	case OP_DIFFER:
		answer_differ(f, r);
		break;
	default:
		break;
	}
	fleet_op_free(op);
	return rc;
}

/* Connections */

/* A line each time the connection is made (a failover's, a restart's
 * are worth knowing), saying how long the database was missed, to the
 * tenth of a second. Made again and again (a server that drops idle
 * connections), it is told once, then as a count. */
static void note_connected(struct fleet *f)
{
	char msg[400];
	bool again = f->rep->ever_ready;
	int64_t tenths = f->rep->unreachable_since
				 ? (fleet__now_mono() - f->rep->unreachable_since) / 100000000
				 : -1;

	if (tenths < 0)
		snprintf(msg, sizeof msg, "--fleet: connected to the database as replica '%.200s'",
			 f->replica);
	else
		snprintf(msg, sizeof msg,
			 "--fleet: connected to the database %sas replica '%.200s', "
			 "after %" PRId64 ".%" PRId64 " s %s",
			 again ? "again " : "", f->replica, tenths / 10, tenths % 10,
			 again ? "without it" : "of trying");
	f->rep->unreachable_since = 0;
	f->rep->ever_ready = true;
	fleet_events_note(&f->events, again ? "connected again" : "connected", msg);
}

/* The outage told, once: what failed and what tfd does meanwhile, then
 * the reason, last, as a statement to run that it may give ends it. */
static void report_lost(struct fleet *f, const char *why)
{
	char msg[1400], deadline[32], *line;

	if (!f->rep->unreachable_since)
		f->rep->unreachable_since = fleet__now_mono();
	if (f->outage_reported)
		return;
	format_seconds(deadline, f->cfg.deadline_ns);
	line = fleet_one_line(why);
	/* clang-format off */
	if (fleet__claims_refused(f))
		snprintf(msg, sizeof msg, "tfd cannot use the database; it keeps trying, and misses "
			 "every elapse at once until the database accepts its statements: %s",
			 line ? line : why);
	else
		snprintf(msg, sizeof msg, "%s; tfd keeps trying (after 0.25 s, then twice as long, "
			 "16 s at most), and an elapse not claimed within --fleet-deadline (%s s) of its "
			 "instant is missed: %s",
			 f->link == LINK_READY ? "lost the connection to the database"
			 : f->link == LINK_SETUP ? "tfd cannot use the database"
			 : "cannot connect to the database", deadline, line ? line : why);
	/* clang-format on */
	free(line);
	fleet__push_error(f, "postgresql", msg);
}

void fleet__link_lost(struct fleet *f, const char *why)
{
	if (f->link == LINK_CONNECTING)
		fleet_params_next_host(&f->params);
	report_lost(f, why);
}

void fleet__replica_ready(struct fleet *f)
{
	note_connected(f);
	f->rep->ready_real = fleet__now_real();
	f->rep->beat_at = fleet__now_mono() + f->cfg.lease_ns / 6;
	if (!f->rep->fatal)
		fleet__claims_accepted(f);
	f->refusal_reported = false;
	/* Written again on each connection: the database may be another
	 * (a failover) or its rows deleted. A connection made again in the
	 * exit's grace (to write the runs' ends) gives the name up again:
	 * its setup took it. */
	f->rep->jobs_written = 0;
	if (f->rep->released && !f->rep->fatal)
		queue_op(f, OP_RELEASE);
	else if (f->rep->job_names)
		queue_op(f, OP_JOBS);
	fleet__pause_refresh(f, f->rep->job_names);
}

int fleet_set_jobs(struct fleet *f, size_t n, const char *const *names,
		   const uint64_t *fingerprints)
{
	/* clang-format 14 would write "char(*hex)[17]", a call to read. */
	/* clang-format off */
	char (*hex)[17] = calloc(n ? n : 1, sizeof *hex);
	/* clang-format on */
	const char **prints = calloc(n ? n : 1, sizeof *prints);
	char *nl = NULL, *pl = NULL;

	if (hex && prints) {
		for (size_t i = 0; i < n; i++) {
			snprintf(hex[i], sizeof hex[i], "%016" PRIx64, fingerprints[i]);
			prints[i] = hex[i];
		}
		nl = fleet_array_literal(n, names);
		pl = fleet_array_literal(n, prints);
	}
	free(hex);
	free(prints);
	if (!nl || !pl) {
		free(nl);
		free(pl);
		return -1;
	}
	free(f->rep->job_names);
	free(f->rep->job_prints);
	f->rep->job_names = nl;
	f->rep->job_prints = pl;
	f->rep->jobs_version++;
	if (f->link == LINK_READY)
		queue_op(f, OP_JOBS);
	return 0;
}

/* Whether the name is renewed now: held on a ready connection, not given
 * up. */
static bool renews_name(const struct fleet *f)
{
	return f->link == LINK_READY && !f->rep->fatal && !f->rep->released;
}

/* After the release nothing renews the name: a renewal sent after it
 * would hold the name for a lease past tfd's exit, and a restart would
 * wait for it (the exit's grace serves the fleet while the release is
 * answered, and a renewal falls due every lease/6). */
void fleet_release(struct fleet *f)
{
	if (renews_name(f))
		queue_op(f, OP_RELEASE);
	f->rep->released = true;
}

/* Service */

/* The oldest elapse waiting to be claimed, queued or in a batch being
 * asked (a queue is in the order of the elapses, and those batches were
 * its head), or NULL. */
static const struct op *oldest_waiting(const struct fleet *f)
{
	const struct op *head = f->claims.head;

	for (const struct op *in = fleet_pipe_oldest(&f->pipe); in; in = in->next)
		for (size_t i = 0; in->kind == OP_CLAIMS && i < in->nitems; i++)
			if (!head || in->items[i]->scheduled_ns < head->scheduled_ns)
				head = in->items[i];
	return head;
}

/* The oldest elapse waiting to be claimed, for longer than half the
 * deadline since the connection was ready, judged when the server
 * answers: the link or the server is too slow for this replica's jobs.
 * Not an outage: a link that stopped answering is told as one, and the
 * elapses that waited for a connection are not counted. Told once, until
 * the queue has caught up. */
void fleet__check_backlog(struct fleet *f)
{
	const struct op *head = oldest_waiting(f);
	char msg[800], at[64];
	int64_t ready = f->rep->ready_real;
	int64_t since = head && head->scheduled_ns > ready ? head->scheduled_ns : ready;
	int64_t age = head ? fleet__now_real() - since : 0;

	if (age < f->cfg.deadline_ns / 4)
		f->rep->behind_reported = false;
	if (!head || f->rep->behind_reported || f->link != LINK_READY ||
	    age <= f->cfg.deadline_ns / 2)
		return;
	f->rep->behind_reported = true;
	fleet_format_instant(at, sizeof at, head->scheduled_ns);
	/* clang-format off */
	snprintf(msg, sizeof msg, "replica '%.200s' falls behind: its oldest elapse waiting to be "
		 "claimed (job '%.200s' at %s) has waited %" PRId64 ".%03" PRId64 " s, more than half "
		 "of --fleet-deadline; its later elapses may be missed", f->replica, head->job, at,
		 age / NSEC_PER_SEC, age % NSEC_PER_SEC / 1000000);
	/* clang-format on */
	fleet__push_error(f, "fleet", msg);
}

int fleet__replica_service(struct fleet *f, struct op **send)
{
	int64_t now = fleet__now_mono();

	*send = NULL;
	fleet_events_flush(&f->events, now);
	if (f->link == LINK_SETUP && !fleet_pipe_awaits(&f->pipe) && f->rep->hold_retry_at &&
	    now >= f->rep->hold_retry_at) {
		f->rep->hold_retry_at = 0;
		/* The name asked for again: the setup's statement, sent at once. */
		if (!(*send = fleet_op_new(OP_HOLD, NULL, 0)))
			return -ENOMEM;
	}
	if (renews_name(f) && now >= f->rep->beat_at) {
		f->rep->beat_at = INT64_MAX; /* until its answer */
		queue_op(f, OP_BEAT);
	}
	return 0;
}

int64_t fleet__replica_deadline(const struct fleet *f)
{
	int64_t flush = fleet_events_flush_at(&f->events);

	if (f->events.head)
		return fleet__now_mono(); /* events to take: served at once */
	if (f->link == LINK_SETUP && !fleet_pipe_awaits(&f->pipe) && f->rep->hold_retry_at &&
	    f->rep->hold_retry_at < flush)
		return f->rep->hold_retry_at;
	if (renews_name(f) && f->rep->beat_at < flush)
		return f->rep->beat_at;
	return flush;
}
