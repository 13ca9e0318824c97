/* SPDX-License-Identifier: MIT */
/* qemu-run: runs COMMAND [ARG...] (qemu-user and a guest program) with the
 * C library's internal signals, 32 and 33, at their default disposition.
 *
 * make, like every program that starts its children with posix_spawn,
 * leaves those two ignored in them. tfd resets them for its runs (see
 * spawn.c), and the tests check that a run starts with nothing ignored.
 * Under qemu-user that reset cannot work: qemu keeps the two host signals
 * for itself, so the guest's rt_sigaction never reaches the host, and a
 * host program the guest execs inherits them ignored. This launcher, built
 * for the machine the tests run on, resets them before qemu starts, as a
 * real aarch64 tfd's own reset would. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sigaction on x86_64; all zero is SIG_DFL. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

int main(int argc, char **argv)
{
	struct kernel_sigaction dfl = { 0 };

	if (argc < 2) {
		fprintf(stderr, "usage: qemu-run COMMAND [ARG...]\n");
		return 2;
	}
	for (int sig = 32; sig <= 33; sig++) {
		if (syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask) < 0)
			perror("rt_sigaction");
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
