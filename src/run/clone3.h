/* SPDX-License-Identifier: MIT */
/* clone3: the kernel's clone3(2) arguments and the constants older
 * headers may lack, for spawn.c (every run's start) and target.c (the
 * check that --cgroup can be used). */
#ifndef TFD_CLONE3_H
#define TFD_CLONE3_H

#include <stdint.h>
#include <sys/syscall.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* struct clone_args of <linux/sched.h>, spelled out up to the cgroup field
 * (CLONE_ARGS_SIZE_VER2, Linux 5.7) so that older kernel headers build too.
 * The kernel reads only the size we pass. */
struct clone3_args {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
	uint64_t set_tid;
	uint64_t set_tid_size;
	uint64_t cgroup;
};
_Static_assert(sizeof(struct clone3_args) == 88, "clone_args VER2 is 88 bytes");

#endif
