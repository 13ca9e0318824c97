/* SPDX-License-Identifier: MIT */
/* spawn: starts every run of the user's command with clone3(2).
 *
 * Three shapes of child:
 *  - plain and --cgroup: CLONE_VM|CLONE_VFORK on a small stack of our own,
 *    so starting a run costs the same whatever tfd's size, as posix_spawn
 *    does: through clone3 with tfd's own trampoline on x86_64, else (and
 *    where clone3 is missing or refused) through the C library's clone(2),
 *    which cannot take CLONE_INTO_CGROUP: --cgroup elsewhere forks with
 *    clone3. The child shares tfd's memory until it execs, so it only
 *    makes raw, async-signal-safe calls.
 *  - --join: clone3 (or clone) with fork semantics, because setns(2) into a
 *    user or time namespace refuses a caller that shares its memory.
 *  - --join into another PID namespace: entering it only affects children,
 *    so the joined child forks once more and relays signals to that
 *    grandchild, then ends exactly as the grandchild did.
 *
 * A run as another user (NSS, PAM in the child) is forked with the C
 * library's fork(): tfd starts no thread, but libcurl's resolver may run
 * one while a --ping or --notify names a host. The one piece of state
 * kept here is the vfork child's stack, mapped once and reused by every
 * run (larger when a run's arguments need it). */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clone3.h"
#include "session.h"

/* The status a child ends with when it fails before exec (setns, the second
 * fork into a PID namespace). 125 is what env(1), chroot(1), timeout(1) and
 * container runtimes use for "the wrapper failed, the command never ran", so
 * a user can tell it from the command's own exit 1 (--exit-on-error passes
 * a run's status on as tfd's). 126 and 127 keep their exec meanings. */
#define SETUP_FAILED 125

#define CHILD_STACK_SIZE (64 * 1024)

/* Functions that run in the vfork child, on the private stack while sharing
 * tfd's memory: ASan must not keep stack bookkeeping (fake frames, shadow
 * poisoning) for them, since that state is tfd's own. */
#define CHILD_CODE __attribute__((no_sanitize_address))

/* What the child needs; it lives on the parent's stack, which a CLONE_VM
 * child can read and a forked child has a copy of. */
struct child_plan {
	const char *path;
	char *const *argv;
	char *const *envp;
	size_t argc;
	int join_pidfd; /* -1: no --join */
	int join_nstypes;
	int join_root_fd; /* -1: the target's root is ours */
	int join_cwd_fd;
	uint64_t reset_mask;                /* bit N-1: reset signal N */
	const struct spawn_target *user;    /* --user: its ids; NULL: tfd's */
	bool groups_set;                    /* the session set the groups: keep them */
	const struct session_spec *session; /* a run as another user */
	const char *cwd;                    /* NULL: tfd's (or --join's) directory */
	int fd[3];                          /* struct spawn_io's */
	int tty_fd;
	int report_fd;
};

/* Child side: raw, async-signal-safe work only */

/* strerror() may format into a buffer; the description table is static. */
CHILD_CODE static const char *error_text(int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	const char *text = strerrordesc_np(err);

	return text ? text : "Unknown error";
#else
	/* clang-format off */
	switch (err) {
	case ENOENT: return "No such file or directory";
	case EACCES: return "Permission denied";
	case EPERM: return "Operation not permitted";
	case ENOEXEC: return "Exec format error";
	case ENOMEM: return "Cannot allocate memory";
	case E2BIG: return "Argument list too long";
	case ENOTDIR: return "Not a directory";
	case EISDIR: return "Is a directory";
	case ELOOP: return "Too many levels of symbolic links";
	case ENAMETOOLONG: return "File name too long";
	case ETXTBSY: return "Text file busy";
	case EINVAL: return "Invalid argument";
	case ESRCH: return "No such process";
	case EAGAIN: return "Resource temporarily unavailable";
	case ENOSYS: return "Function not implemented";
	default: return "Unknown error";
	}
	/* clang-format on */
#endif
}

/* Writes "tfd: CALL 'ARG': error text" (or without the quoted part when ARG
 * is NULL) to stderr in one writev, with no formatting buffer. */
CHILD_CODE static void report_child_failure(const char *call, const char *arg, int err)
{
	struct iovec part[8];
	int n = 0;

#define PART(s) (part[n].iov_base = (void *)(s), part[n++].iov_len = strlen(s))
	PART("tfd: ");
	PART(call);
	if (arg) {
		PART(" '");
		PART(arg);
		PART("'");
	}
	PART(": ");
	PART(error_text(err));
	PART("\n");
#undef PART
	if (writev(STDERR_FILENO, part, n) < 0) {
		/* Nothing is left to tell it to. */
	}
}

/* The kernel's struct sigaction, as rt_sigaction(2) takes it on the
 * architectures tfd builds for (x86_64, aarch64, i386, arm: handler, flags,
 * restorer, mask; MIPS and others differ). The mask is 64 signals in
 * words of unsigned long, as the kernel's sigset_t: one word, or two on
 * 32-bit, where a 64-bit integer would be 8-byte aligned on arm and leave
 * a gap the kernel does not have. The kernel takes only sizeof mask == 8. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask[64 / (8 * sizeof(unsigned long))];
};
_Static_assert(sizeof(((struct kernel_sigaction *)0)->mask) == 8,
	       "the kernel's sigset_t is 64 bits");

/* Caught signals are reset by execve anyway, but the child unblocks signals
 * before it execs, and a handler of tfd's must never run in it; ignored ones
 * (SIGPIPE, or anything tfd's own parent ignored) would survive exec. The C
 * library refuses its internal signals (32, 33), which a parent may still
 * have left ignored, so those go to the kernel directly. */
CHILD_CODE static void reset_signal_dispositions(uint64_t reset_mask)
{
	struct sigaction dfl;
	struct kernel_sigaction kdfl;

	memset(&dfl, 0, sizeof dfl);
	memset(&kdfl, 0, sizeof kdfl);
	dfl.sa_handler = SIG_DFL;
	kdfl.handler = SIG_DFL;
	for (int sig = 1; sig < _NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || sig > 64 ||
		    !(reset_mask & (UINT64_C(1) << (sig - 1))))
			continue;
		if (sigaction(sig, &dfl, NULL) != 0)
			syscall(SYS_rt_sigaction, sig, &kdfl, NULL, sizeof kdfl.mask);
	}
}

CHILD_CODE static void unblock_all_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Makes the run's process group the terminal's foreground group, so that
 * it may read the terminal and ^C, ^Z reach it. A background group may do
 * this only with SIGTTOU blocked or ignored, and every signal is blocked
 * here. A failure (the terminal hung up) does not stop the run: touching
 * the terminal then gives it the terminal's own error, as it would anyone. */
CHILD_CODE static void take_terminal(int tty_fd)
{
	if (tty_fd >= 0 && tcsetpgrp(tty_fd, getpid()) < 0) {
		/* See above: the run goes on without the terminal. */
	}
}

/* Puts the run's descriptors on 0, 1 and 2. A source that is itself one of
 * 0..2 but meant for another slot is first copied out of the way, so that
 * no dup2 overwrites a source still to come (swapping 1 and 2 works). The
 * sources are close-on-exec in tfd; a dup2 copy is not, and a source that
 * already sits in its own slot has the flag cleared. The copies out of the
 * way are close-on-exec and closed before exec anyway. */
CHILD_CODE static int install_descriptors(const int want[3])
{
	int src[3];

	for (int i = 0; i < 3; i++) {
		src[i] = want[i];
		if (src[i] >= 0 && src[i] < 3 && src[i] != i) {
			src[i] = fcntl(want[i], F_DUPFD_CLOEXEC, 3);
			if (src[i] < 0)
				return -1;
		}
	}
	for (int i = 0; i < 3; i++) {
		if (src[i] >= 0 && (src[i] == i ? fcntl(i, F_SETFD, 0) : dup2(src[i], i)) < 0)
			return -1;
	}
	return 0;
}

/* Every descriptor of tfd's is O_CLOEXEC, but tfd may have inherited open
 * ones from its own parent; the run gets 0, 1 and 2 only. The loop is for
 * kernels before 5.9, which lack close_range. */
CHILD_CODE static void close_descriptors_from(int first)
{
	struct rlimit lim;

	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur > INT_MAX)
		lim.rlim_cur = 65536;
	for (int fd = first; fd < (int)lim.rlim_cur; fd++)
		close(fd);
}

CHILD_CODE static void close_inherited_descriptors(void)
{
	close_descriptors_from(3);
}

/* Whether clone3 failed because it cannot be used here at all, so that
 * clone(2) may take its place: missing (before Linux 5.3, valgrind,
 * qemu-user) or refused by a seccomp profile (older container runtimes
 * answer EPERM). tfd passes no flag for which EPERM means anything else. */
CHILD_CODE static bool clone3_unusable(int err)
{
	return err == ENOSYS || err == EPERM;
}

/* A copy of the calling process that returns 0 in the child, as fork() does
 * but without the C library's fork handlers, which a child that only
 * execs has no use for. Where clone3 is unusable, clone(2) does the same
 * with SIGCHLD as its flags and no new stack (the flags come first on every
 * architecture tfd builds for). */
CHILD_CODE static pid_t fork_plain(const struct clone3_args *base)
{
	struct clone3_args args = *base;
	long pid;

	args.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &args, sizeof args);
	if (pid < 0 && clone3_unusable(errno) && !(args.flags & CLONE_INTO_CGROUP))
		pid = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
	return (pid_t)pid;
}

/* Ends this process the way the grandchild ended: same exit status, or
 * killed by the same signal, without leaving a core of tfd's memory. */
CHILD_CODE __attribute__((noreturn)) static void end_like(int status)
{
	struct rlimit no_core = { 0, 0 };
	struct sigaction dfl;
	sigset_t just;
	int sig;

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &no_core);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	sigemptyset(&just);
	sigaddset(&just, sig);
	sigprocmask(SIG_UNBLOCK, &just, NULL);
	kill(getpid(), sig);
	/* A signal whose default is not to terminate cannot have ended it. */
	_exit(128 + sig);
}

/* The PID tfd knows is this relay; the command runs as its child inside the
 * joined PID namespace. Every signal is still blocked here, so the ones a
 * user or tfd sends arrive through sigwaitinfo and are passed on. */
CHILD_CODE __attribute__((noreturn)) static void relay_until_exit(pid_t child)
{
	static const int relayed[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	sigset_t wanted;
	int status;

	sigemptyset(&wanted);
	sigaddset(&wanted, SIGCHLD);
	for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++)
		sigaddset(&wanted, relayed[i]);
	for (;;) {
		int sig = sigwaitinfo(&wanted, NULL);

		if (sig > 0 && sig != SIGCHLD)
			kill(child, sig);
		if (waitpid(child, &status, WNOHANG) == child)
			end_like(status);
	}
}

/* Takes the --join target's root and working directory, as nsenter -r -w
 * does: setns into a mount namespace leaves this process at that
 * namespace's root, which is not the target's when the target runs
 * chrooted or pivoted, and a chrooted target in our own namespaces is
 * entered by nothing else. The descriptors were opened when --join was
 * read, so they name the target's directories from outside. */
CHILD_CODE static void enter_join_directories(const struct child_plan *plan)
{
	if (plan->join_root_fd >= 0 && (fchdir(plan->join_root_fd) < 0 || chroot(".") < 0)) {
		report_child_failure("chroot (--join root)", NULL, errno);
		_exit(SETUP_FAILED);
	}
	if (fchdir(plan->join_cwd_fd) < 0) {
		report_child_failure("fchdir (--join working directory)", NULL, errno);
		_exit(SETUP_FAILED);
	}
}

/* Enters the --join target: namespaces, root, working directory. Returns
 * in the process that is to exec: this one, or, for a PID namespace, its
 * new child. Ends the process on failure. */
CHILD_CODE static void enter_join_target(const struct child_plan *plan)
{
	static const struct clone3_args plain = { .flags = 0 };
	pid_t pid;

	if (plan->join_nstypes && setns(plan->join_pidfd, plan->join_nstypes) < 0) {
		report_child_failure("setns (--join)", NULL, errno);
		_exit(SETUP_FAILED);
	}
	enter_join_directories(plan);
	if (!(plan->join_nstypes & CLONE_NEWPID))
		return;
	pid = fork_plain(&plain);
	if (pid < 0) {
		report_child_failure("clone3 (--join PID namespace)", NULL, errno);
		_exit(SETUP_FAILED);
	}
	if (pid == 0) {
		/* The relay is the run as tfd sees it: if it is killed on its
		 * own, the command must not outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		return;
	}
	close_inherited_descriptors();
	relay_until_exit(pid);
}

/* The raw calls: the C library's wrappers would ask every thread of tfd
 * to change too (setxid broadcast), in a child that shares tfd's memory.
 * On 32-bit x86 and arm the plain numbers take 16-bit ids. */
#ifdef SYS_setgroups32
#define RAW_SETGROUPS SYS_setgroups32
#define RAW_SETGID SYS_setgid32
#define RAW_SETUID SYS_setuid32
#else
#define RAW_SETGROUPS SYS_setgroups
#define RAW_SETGID SYS_setgid
#define RAW_SETUID SYS_setuid
#endif

/* --user: the supplementary groups, the group, then the user (after which
 * neither of the others could change), each checked, so a run never goes
 * on as root by mistake. A credential change clears the parent-death
 * signal, which the PID namespace's grandchild needs again. */
CHILD_CODE static void become_user(const struct child_plan *plan)
{
	const struct spawn_target *u = plan->user;

	if (!plan->groups_set && syscall(RAW_SETGROUPS, u->ngroups, u->groups) < 0) {
		report_child_failure("setgroups (--user)", NULL, errno);
		_exit(SETUP_FAILED);
	}
	if (syscall(RAW_SETGID, u->gid) < 0) {
		report_child_failure("setgid (--user)", NULL, errno);
		_exit(SETUP_FAILED);
	}
	if (syscall(RAW_SETUID, u->uid) < 0) {
		report_child_failure("setuid (--user)", NULL, errno);
		_exit(SETUP_FAILED);
	}
	if (plan->join_nstypes & CLONE_NEWPID)
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

/* execve, and for a file the kernel cannot run (ENOEXEC: a script without
 * "#!"), /bin/sh with the file as its script, as execvp(3) and the shells
 * do. The shell's arguments are built on this stack, which spawn_run made
 * large enough (child_stack_need). Returns execve's error for the file. */
CHILD_CODE static int exec_command(const struct child_plan *plan)
{
	/* execve(2) reads its arguments and never writes them. */
	static const char shell[] = "/bin/sh";

	execve(plan->path, plan->argv, plan->envp);
	if (errno != ENOEXEC)
		return errno;
	{
		char *shell_argv[plan->argc + 3];
		size_t n = 0;

		shell_argv[n++] = (char *)shell;
		shell_argv[n++] = (char *)plan->path;
		for (size_t i = 1; i < plan->argc; i++)
			shell_argv[n++] = plan->argv[i];
		shell_argv[n] = NULL;
		execve(shell, shell_argv, plan->envp);
	}
	return ENOEXEC;
}

/* Everything from the child's own process group to execve. The parent
 * blocked every signal before cloning, so none can arrive until the
 * dispositions are reset. Returns only on failure, with the status to exit
 * with. */
CHILD_CODE static int run_command(const struct child_plan *plan)
{
	int err;

	reset_signal_dispositions(plan->reset_mask);
	if (plan->join_pidfd >= 0)
		enter_join_target(plan);
	/* After the join: setns needs tfd's privileges, and the ids are
	 * those of the user as the joined namespaces map them. */
	if (plan->user)
		become_user(plan);
	/* As the user, as cron does: a HOME the user cannot enter is /. */
	if (plan->cwd && chdir(plan->cwd) < 0 && chdir("/") < 0) {
		report_child_failure("chdir", "/", errno);
		return SETUP_FAILED;
	}
	/* After the join, which still needs the pidfd (tfd started with 0, 1
	 * or 2 closed may hold it there), and in the process that execs, so
	 * that a PID namespace's relay holds none of the run's pipes. */
	if (install_descriptors(plan->fd) < 0) {
		report_child_failure("dup2", NULL, errno);
		return SETUP_FAILED;
	}
	unblock_all_signals();
	close_inherited_descriptors();
	err = exec_command(plan);
	report_child_failure("exec", plan->path, err);
	return err == ENOENT ? 127 : 126;
}

/* A run as another user cannot start: one line to tfd, which makes it an
 * "error" event, or to stderr. */
static void report_session_failure(int fd, const char *why)
{
	struct iovec part[3] = { { (void *)"tfd: ", 5 },
				 { (void *)why, strlen(why) },
				 { (void *)"\n", 1 } };

	if (fd >= 0 ? write(fd, why, strlen(why)) : writev(STDERR_FILENO, part, 3)) {
		/* Nothing is left to tell it to. */
	}
}

/* The PAM session's keeper holds none of the run's descriptors (its pipes
 * end when the command's last process closes them) nor tfd's standard
 * ones, waits for the command, closes the session, and ends as the
 * command ended. The descriptors PAM's modules opened (syslog, audit)
 * stay open for their close. */
__attribute__((noreturn)) static void keep_session(struct session *s, pid_t command,
						   const int run_fd[3])
{
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int status = 0;

	for (int fd = 0; fd < 3; fd++)
		if (null_fd >= 0 && fd != null_fd)
			dup2(null_fd, fd);
	for (int i = 0; i < 3; i++)
		if (run_fd[i] > 2 && run_fd[i] != null_fd)
			close(run_fd[i]);
	if (null_fd > 2)
		close(null_fd);
	while (waitpid(command, &status, 0) < 0 && errno == EINTR)
		continue;
	session_close(s);
	end_like(status);
}

/* The session's keeper is a forked copy of tfd holding every descriptor
 * of tfd's (other runs' pipes, a mail's pipe to its sendmail) and lives as
 * long as its command: it keeps only what this run needs, before PAM opens
 * descriptors of its own, so that no other pipe waits on it for its end. */
static void keep_only_run_descriptors(const struct child_plan *plan)
{
	const int keep[] = { plan->fd[0],      plan->fd[1],      plan->fd[2],
			     plan->report_fd,  plan->join_pidfd, plan->join_root_fd,
			     plan->join_cwd_fd };
	const size_t n = sizeof keep / sizeof keep[0];
	int top = 2;

	for (size_t i = 0; i < n; i++)
		if (keep[i] > top)
			top = keep[i];
	for (int fd = 3; fd <= top; fd++) {
		bool kept = false;

		for (size_t i = 0; i < n; i++)
			kept = kept || keep[i] == fd;
		if (!kept)
			close(fd);
	}
	close_descriptors_from(top + 1);
}

/* A run as another user, in a forked child: a session of its own (so no
 * terminal of tfd's can be its controlling one), the user and the PAM
 * session as cron sets them up now, stdin /dev/null unless the run has
 * input. With a PAM session, this process keeps it and the command runs
 * in a child; without, this process runs the command. */
static int run_session_child(const struct child_plan *parent_plan)
{
	static const struct clone3_args plain = { .flags = 0 };
	struct child_plan plan = *parent_plan;
	struct spawn_target ids = { .cgroup_fd = -1, .join_pidfd = -1 };
	struct session s;
	char why[1024];
	pid_t pid;

	if (setsid() < 0) {
		report_child_failure("setsid", NULL, errno);
		return SETUP_FAILED;
	}
	keep_only_run_descriptors(&plan);
	if (session_open(&s, plan.session, plan.envp, why, sizeof why) != 0) {
		report_session_failure(plan.report_fd, why);
		return SETUP_FAILED;
	}
	ids.uid = s.user.uid;
	ids.gid = s.user.gid;
	plan.user = &ids;
	plan.groups_set = true;
	plan.envp = s.envp;
	plan.cwd = plan.join_pidfd < 0 ? s.home : NULL;
	plan.session = NULL;
	if (plan.fd[0] < 0 && (plan.fd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		report_child_failure("open", "/dev/null", errno);
		session_close(&s);
		return SETUP_FAILED;
	}
	if (plan.report_fd >= 0)
		close(plan.report_fd);
	if (!s.pamh)
		return run_command(&plan);
	pid = fork_plain(&plain);
	if (pid == 0)
		_exit(run_command(&plan));
	if (pid < 0) {
		report_child_failure("fork (PAM session)", NULL, errno);
		session_close(&s);
		return SETUP_FAILED;
	}
	keep_session(&s, pid, plan.fd);
}

/* The child's first steps: its own process group (a run as another user:
 * its own session), the terminal, then the command. */
CHILD_CODE static int run_child(void *arg)
{
	const struct child_plan *plan = arg;

	if (plan->session)
		return run_session_child(plan);
	if (setpgid(0, 0) < 0) {
		report_child_failure("setpgid", NULL, errno);
		return SETUP_FAILED;
	}
	take_terminal(plan->tty_fd);
	return run_command(plan);
}

/* Parent side */

/* The stack a vfork-like child runs on: CHILD_STACK_SIZE for its calls and
 * room for the argument vector exec_command may build there. Returns 0,
 * or -1 when the size overflows. */
static int child_stack_need(size_t argc, size_t *need)
{
	size_t words;

	if (__builtin_add_overflow(argc, (size_t)3, &words) ||
	    __builtin_mul_overflow(words, sizeof(char *), need) ||
	    __builtin_add_overflow(*need, (size_t)CHILD_STACK_SIZE, need))
		return -1;
	return 0;
}

/* The vfork child's stack, mapped on first use and kept: the parent sleeps
 * until the child execs or exits, so one stack serves every run. A run
 * with more arguments than it has room for gets a larger one in its
 * place. A guard page below it turns an overflow into a fault. Returns
 * the stack's lowest usable byte with *size set, or NULL. */
static char *child_stack(size_t need, size_t *size)
{
	static char *guard;
	static size_t usable;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t want;
	char *map;

	if (!guard || usable < need) {
		if (__builtin_add_overflow(need, page - 1, &want) ||
		    __builtin_add_overflow(want / page * page, page, &want))
			return NULL;
		map = mmap(NULL, want, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (map == MAP_FAILED)
			return NULL;
		if (mprotect(map, page, PROT_NONE) < 0) {
			munmap(map, want);
			return NULL;
		}
		if (guard)
			munmap(guard, usable + page);
		guard = map;
		usable = want - page;
	}
	*size = usable;
	return guard + page;
}

#if defined(__x86_64__) && !defined(__ILP32__)
/* clone3 with CLONE_VM on a stack of our own. The child comes back from the
 * syscall on that stack with every register but rax, rcx and r11 as the
 * parent had them, so FN and ARG wait in r8 and r9 (clone3 reads only rdi and
 * rsi). The child calls FN(ARG) and, if it returns, exits with its value
 * through the raw exit syscall: it has no caller's frame to return to. The
 * stack top is page-aligned, so the call keeps the ABI's 16-byte alignment.
 * Returns what the syscall returned in the parent: a pid or -errno. */
static long clone3_on_stack(struct clone3_args *args, size_t size, int (*fn)(void *), void *arg)
{
	register long rax __asm__("rax") = SYS_clone3;
	register struct clone3_args *rdi __asm__("rdi") = args;
	register size_t rsi __asm__("rsi") = size;
	register int (*r8)(void *) __asm__("r8") = fn;
	register void *r9 __asm__("r9") = arg;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"           /* parent (pid) or error (-errno) */
			 "xor %%ebp, %%ebp\n\t" /* child: no frame above this one */
			 "mov %%r9, %%rdi\n\t"
			 "call *%%r8\n\t"
			 "mov %%eax, %%edi\n\t" /* FN returned: exit with its value */
			 "mov %[nr_exit], %%eax\n\t"
			 "syscall\n\t"
			 "hlt\n"
			 "1:"
			 : "+r"(rax)
			 : "r"(rdi), "r"(rsi), "r"(r8), "r"(r9), [nr_exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	return rax;
}

/* The vfork-like child through clone3, which alone can also place it in a
 * cgroup. Returns the pid, -1 with errno set, or 0 when clone3 is unusable
 * and the caller may use clone(2) instead (never with --cgroup). */
static pid_t start_clone3_vfork_child(const struct clone3_args *base, struct child_plan *plan,
				      char *stack, size_t size)
{
	struct clone3_args args = *base;
	long ret;

	args.flags |= CLONE_VM | CLONE_VFORK;
	args.stack = (uintptr_t)stack;
	args.stack_size = size;
	ret = clone3_on_stack(&args, sizeof args, run_child, plan);
	if (ret < 0 && clone3_unusable((int)-ret) && !(args.flags & CLONE_INTO_CGROUP))
		return 0;
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (pid_t)ret;
}
#endif

/* The vfork-like child that needs no setns: clone3 where tfd has its own
 * trampoline for it (x86_64), else, and where clone3 is unusable, the C
 * library's clone(2) with CLONE_VM|CLONE_VFORK, as posix_spawn starts its
 * children on every architecture. clone(2) cannot take CLONE_INTO_CGROUP:
 * returns 0 when the caller must fork instead. */
static pid_t start_vfork_child(const struct clone3_args *args, struct child_plan *plan,
			       const char **failed)
{
	size_t need, size;
	char *stack = child_stack_need(plan->argc, &need) == 0 ? child_stack(need, &size) : NULL;
	pid_t pid = 0;

	if (!stack) {
		*failed = "mmap (child stack)";
		errno = ENOMEM;
		return -1;
	}
#if defined(__x86_64__) && !defined(__ILP32__)
	pid = start_clone3_vfork_child(args, plan, stack, size);
#endif
	if (pid != 0 || (args->flags & CLONE_INTO_CGROUP))
		return pid;
	pid = clone(run_child, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, plan);
	if (pid < 0)
		*failed = "clone";
	return pid;
}

/* A forked child of a run as another user enters --cgroup's cgroup itself
 * (writing 0 to cgroup.procs moves the writer), as CLONE_INTO_CGROUP
 * would have put it there: before anything of the run. */
static int enter_cgroup(int cgroup_fd)
{
	int fd = openat(cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0 || write(fd, "0", 1) != 1)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		report_child_failure("write", "cgroup.procs (--cgroup)", err);
	return err ? -1 : 0;
}

/* A child with fork semantics: the child continues here. A run as another
 * user calls NSS and PAM in it, so it is made by the C library's fork(),
 * whose handlers leave malloc, NSS and the dynamic loader usable in the
 * child whatever another thread held at that instant (libcurl's resolver
 * thread, while a --ping or --notify names a host). Every other forked
 * child only makes raw calls before its exec: clone3 (or clone). */
static pid_t start_forked_child(struct clone3_args *args, struct child_plan *plan)
{
	pid_t pid;

	if (!plan->session) {
		pid = fork_plain(args);
		if (pid == 0)
			_exit(run_child(plan));
		return pid;
	}
	pid = fork();
	if (pid == 0 && (args->flags & CLONE_INTO_CGROUP) && enter_cgroup((int)args->cgroup) != 0)
		_exit(SETUP_FAILED);
	if (pid == 0)
		_exit(run_child(plan));
	return pid;
}

static const char *clone_call_name(const struct clone3_args *args, const struct child_plan *plan)
{
	if (plan->session)
		return "fork";
	return (args->flags & CLONE_INTO_CGROUP) ? "clone3 (CLONE_INTO_CGROUP)" : "clone3";
}

/* Fills PLAN from the caller's arguments. */
static void make_plan(struct child_plan *plan, const struct spawn_target *target,
		      const struct spawn_io *io)
{
	while (plan->argv[plan->argc])
		plan->argc++;
	if (target && target->reset_known)
		plan->reset_mask = target->reset_mask;
	if (io) {
		memcpy(plan->fd, io->fd, sizeof plan->fd);
		plan->tty_fd = io->tty_fd;
		plan->report_fd = io->has_report ? io->report_fd : -1;
	}
	if (target && target->set_user)
		plan->user = target;
	if (target && target->session) {
		plan->session = target->session;
		plan->tty_fd = -1;
	}
	if (target && target->join_pidfd >= 0) {
		plan->join_pidfd = target->join_pidfd;
		plan->join_nstypes = target->join_nstypes;
		plan->join_root_fd = target->join_root_fd;
		plan->join_cwd_fd = target->join_cwd_fd;
	}
}

pid_t spawn_run(const struct spawn_target *target, const struct spawn_io *io, const char *path,
		char *const argv[], char *const envp[], const char **what)
{
	struct child_plan plan = { .path = path,
				   .argv = argv,
				   .envp = envp,
				   .join_pidfd = -1,
				   .join_root_fd = -1,
				   .join_cwd_fd = -1,
				   .reset_mask = ~UINT64_C(0),
				   .fd = { -1, -1, -1 },
				   .tty_fd = -1,
				   .report_fd = -1 };
	struct clone3_args args = { .exit_signal = SIGCHLD };
	const char *failed = NULL;
	sigset_t all, old;
	pid_t pid = 0;
	int err;

	make_plan(&plan, target, io);
	if (target && target->cgroup_fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)target->cgroup_fd;
	}
	/* No handler of tfd's may run in a child that shares its memory. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	/* Joining a process whose namespaces are all ours enters nothing
	 * (chroot and fchdir need no setns), so only a real setns needs the
	 * slower forked child; so does a run as another user, whose child
	 * calls NSS and PAM. */
	if (plan.join_nstypes == 0 && !plan.session)
		pid = start_vfork_child(&args, &plan, &failed);
	if (pid == 0)
		pid = start_forked_child(&args, &plan);
	/* A forked child may not have run yet, and tfd may signal the group
	 * at once (so may a vfork child under qemu-user, which forks for
	 * CLONE_VFORK); after the exec this fails harmlessly. A session's
	 * leader makes its group itself: setsid fails in a group leader. */
	if (pid > 0 && !plan.session)
		setpgid(pid, pid);
	err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		*what = failed ? failed : clone_call_name(&args, &plan);
		errno = err;
	}
	return pid;
}

struct spawn_target spawn_target_on_host(const struct spawn_target *runs)
{
	struct spawn_target t = { .cgroup_fd = -1, .join_pidfd = -1, .join_root_fd = -1 };

	if (runs) {
		t = *runs;
		t.cgroup_fd = -1;
		t.join_pidfd = -1;
		t.join_root_fd = -1;
	}
	return t;
}

void spawn_note_signals(struct spawn_target *target)
{
	struct kernel_sigaction old;

	target->reset_mask = 0;
	for (int sig = 1; sig < _NSIG && sig <= 64; sig++) {
		/* Through the kernel: the C library hides its own signals. */
		if (syscall(SYS_rt_sigaction, sig, NULL, &old, sizeof old.mask) == 0 &&
		    old.handler != SIG_DFL)
			target->reset_mask |= UINT64_C(1) << (sig - 1);
	}
	target->reset_known = true;
}

void spawn_close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}
