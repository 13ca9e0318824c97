/* SPDX-License-Identifier: MIT */
/* ownertab: the loop's table of owners on a bare loop (loopkit.h), with
 * two fake rows, each a pipe of its own: both rows' descriptors are in
 * the poll set, a ready slot goes to the row that added it with its tag
 * (never to the other), the row served after every poll gets its slot's
 * events, the deadline timer is armed at the earlier row's deadline, and
 * when it fires both rows expire. */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "deadlines.h"
#include "harness.h"
#include "loopkit.h"
#include "ownertab.h"
#include "timens.h"

#define SEC INT64_C(1000000000)

/* One fake owner: a pipe whose read end it polls, what it was told. */
struct fake {
	int fds[2];
	int tag; /* its slot's tag is &tag */
	int64_t deadline;
	size_t readies, expires, afters;
	int ready_fd;
	void *ready_tag;
	short ready_revents, after_revents;
	int64_t expired_at;
};

static void fake_poll(void *self, owner_add_fn *add, void *set)
{
	struct fake *f = self;

	add(set, f->fds[0], POLLIN, &f->tag);
}

static void fake_ready(void *self, int fd, short revents, void *tag)
{
	struct fake *f = self;

	f->readies++;
	f->ready_fd = fd;
	f->ready_tag = tag;
	f->ready_revents = revents;
}

static int64_t fake_deadline(void *self)
{
	return ((struct fake *)self)->deadline;
}

static void fake_expire(void *self, int64_t now)
{
	struct fake *f = self;

	f->expires++;
	f->expired_at = now;
}

static void fake_after(void *self, short revents)
{
	struct fake *f = self;

	f->afters++;
	f->after_revents = revents;
}

static const struct owner_row plain_row = { .name = "plain",
					    .poll = fake_poll,
					    .ready = fake_ready,
					    .deadline = fake_deadline,
					    .expire = fake_expire };
static const struct owner_row served_row = { .name = "served",
					     .poll = fake_poll,
					     .ready = fake_ready,
					     .deadline = fake_deadline,
					     .expire = fake_expire,
					     .after_poll = fake_after };

static size_t after_calls;

static void count_after(struct loop *l)
{
	(void)l;
	after_calls++;
}

static void fake_open(struct fake *f, int64_t deadline)
{
	*f = (struct fake){ .deadline = deadline, .ready_fd = -1 };
	if (pipe2(f->fds, O_CLOEXEC | O_NONBLOCK) != 0)
		abort();
}

/* The slot of FD in L's last poll set, or N when none. */
static size_t slot_of(const struct loop *l, size_t n, int fd)
{
	for (size_t i = 0; i < n; i++)
		if (l->pfd[i].fd == fd)
			return i;
	return n;
}

/* How long until L's deadline timer fires (ns; 0: disarmed). */
static int64_t timer_left(const struct loop *l)
{
	struct itimerspec its;

	if (timerfd_gettime(l->deadline.fd, &its) != 0)
		return -1;
	return timespec_to_ns(its.it_value);
}

static void test_poll_and_dispatch(struct loop *l, struct fake *a, struct fake *b)
{
	size_t n = 0, sa, sb;

	ownertab_poll(l, &n);
	sa = slot_of(l, n, a->fds[0]);
	sb = slot_of(l, n, b->fds[0]);
	check(n == 2, "both rows' descriptors polled: %zu slots", n);
	check(sa < n && sb < n, "each row's descriptor in the set (%zu, %zu)", sa, sb);
	if (sa >= n || sb >= n)
		return;
	check(l->owners[sa].kind == OWNER_ROW && l->owners[sb].kind == OWNER_ROW,
	      "the slots are rows' (%d, %d)", (int)l->owners[sa].kind, (int)l->owners[sb].kind);
	/* Only the second row's pipe has something to read. */
	check(write(b->fds[1], "x", 1) == 1, "write to the second row's pipe");
	check(poll(l->pfd, n, 1000) == 1, "one slot ready");
	for (size_t i = 0; i < n; i++)
		if (l->pfd[i].revents)
			ownertab_ready(l, i);
	check(a->readies == 0, "the first row is not told of the second's slot (%zu)", a->readies);
	check(b->readies == 1, "the second row is told of its slot once (%zu)", b->readies);
	check(b->ready_fd == b->fds[0] && b->ready_tag == &b->tag && (b->ready_revents & POLLIN),
	      "with its descriptor, its tag and POLLIN (fd %d, tag %p, revents %#x)", b->ready_fd,
	      b->ready_tag, (unsigned)b->ready_revents);
	ownertab_after_poll(l, count_after);
	check(b->afters == 1 && (b->after_revents & POLLIN) && after_calls == 1,
	      "the row served after every poll has its slot's events (%zu, %#x, %zu)", b->afters,
	      (unsigned)b->after_revents, after_calls);
	check(a->afters == 0, "a row without after_poll is not served after the poll");
	/* The next poll set forgets the last one's events. */
	n = 0;
	ownertab_poll(l, &n);
	ownertab_after_poll(l, count_after);
	check(b->afters == 2 && b->after_revents == 0,
	      "a poll where its slot was not ready: after_poll with 0 (%#x)",
	      (unsigned)b->after_revents);
}

static void test_deadlines(struct loop *l, struct fake *a, struct fake *b)
{
	int64_t now = clock_now_ns(CLOCK_MONOTONIC), left;
	struct pollfd p;

	a->deadline = now + 30 * SEC;
	b->deadline = now + 10 * SEC;
	deadlines_arm(l);
	left = timer_left(l);
	check(left > 5 * SEC && left <= 10 * SEC,
	      "the timer is armed at the earlier row's deadline (%lld ns left)", (long long)left);
	b->deadline = INT64_MAX;
	deadlines_arm(l);
	left = timer_left(l);
	check(left > 20 * SEC && left <= 30 * SEC,
	      "then at the other's, once the first has none (%lld ns left)", (long long)left);
	/* Both due: the timer fires, both expire. */
	a->deadline = b->deadline = now;
	deadlines_arm(l);
	p = (struct pollfd){ .fd = l->deadline.fd, .events = POLLIN };
	check(poll(&p, 1, 10000) == 1, "the deadline timer fires");
	deadlines_due(l);
	check(a->expires == 1 && b->expires == 1, "both rows expire (%zu, %zu)", a->expires,
	      b->expires);
	/* One reading of the clock, after the deadline, given to every row. */
	check(a->expired_at == b->expired_at && a->expired_at >= now,
	      "both at one reading of the clock, past the deadline");
}

int main(void)
{
	struct loopkit *k = loopkit_new();
	struct loop *l = &k->l;
	struct fake a, b;

	fake_open(&a, INT64_MAX);
	fake_open(&b, INT64_MAX);
	if (timer_open(&l->deadline, CLOCK_MONOTONIC, CLOCK_MONOTONIC) != 0)
		abort();
	check(ownertab_add(l, &plain_row, &a) == 0 && ownertab_add(l, &served_row, &b) == 0,
	      "two rows added");
	test_poll_and_dispatch(l, &a, &b);
	test_deadlines(l, &a, &b);
	for (size_t i = l->nrows; i < OWNER_ROWS_MAX; i++)
		ownertab_add(l, &plain_row, &a);
	check(ownertab_add(l, &plain_row, &a) == -1, "a full table refuses a row");
	free(l->pfd);
	free(l->owners);
	for (int i = 0; i < 2; i++) {
		close(a.fds[i]);
		close(b.fds[i]);
	}
	loopkit_free(k);
	return tally_finish(&tally, "ownertab");
}
