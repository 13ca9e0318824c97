/* SPDX-License-Identifier: MIT */
/* target: where runs start, checked once at start-up: --cgroup DIR (a
 * writable cgroup v2 directory, and a kernel whose clone3 places a child
 * in it) and --join PID (a pidfd, the namespaces that differ from ours, and
 * the process's root and working directory). Bad values are reported here,
 * with the exit status to use, so that spawn_run never meets them. */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clone3.h"

/* Kernel constants that older headers may lack. */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static int fail(int *status, int code, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(int *status, int code, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	*status = code;
	return -1;
}

/* Running out of descriptors or memory is tfd's trouble, not a bad value. */
static int status_for_errno(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOMEM || e == EIO ? 1 : 2;
}

/* --cgroup */

/* Asks the kernel whether clone3 takes CLONE_INTO_CGROUP, without creating
 * a process: descriptor INT_MAX can never be open, so a kernel that knows
 * the flag fails with EBADF when it looks the cgroup up; an older one
 * rejects the larger struct (E2BIG) or the flag (EINVAL), and a seccomp
 * profile refuses the call (EPERM). Returns what is missing, or NULL. */
static const char *clone_into_cgroup_missing(void)
{
	struct clone3_args args = {
		.flags = CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = INT_MAX,
	};
	long pid = syscall(SYS_clone3, &args, sizeof args);

	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid((pid_t)pid, NULL, 0);
		return NULL;
	}
	if (errno == ENOSYS)
		return "clone3 is not available (Linux 5.3 or later)";
	if (errno == EPERM)
		return "clone3 is not permitted here (a seccomp profile?), and only clone3 starts a run in a cgroup";
	if (errno == E2BIG || errno == EINVAL)
		return "CLONE_INTO_CGROUP is not supported (Linux 5.7 or later)";
	return NULL;
}

int spawn_open_cgroup(struct spawn_target *target, const char *dir, int *status, char *err,
		      size_t errlen)
{
	struct statfs fs;
	const char *missing;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return fail(status, 2, err, errlen, "--cgroup '%s': no such directory",
				    dir);
		if (e == ENOTDIR)
			return fail(status, 2, err, errlen, "--cgroup '%s': not a directory", dir);
		if (e == EACCES)
			return fail(status, 2, err, errlen, "--cgroup '%s': permission denied",
				    dir);
		return fail(status, status_for_errno(e), err, errlen, "--cgroup '%s': %s", dir,
			    strerror(e));
	}
	if (fstatfs(fd, &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		return fail(status, 2, err, errlen, "--cgroup '%s': not a cgroup v2 directory",
			    dir);
	}
	if (faccessat(fd, "cgroup.procs", W_OK, AT_EACCESS) < 0) {
		close(fd);
		return fail(status, 2, err, errlen, "--cgroup '%s': permission denied", dir);
	}
	missing = clone_into_cgroup_missing();
	if (missing) {
		close(fd);
		return fail(status, 1, err, errlen, "--cgroup '%s': %s", dir, missing);
	}
	target->cgroup_fd = fd;
	return 0;
}

/* --join */

/* A positive decimal number and nothing else: no sign, no blanks. */
static int parse_pid(const char *text, pid_t *pid)
{
	int value = 0;

	if (*text == '\0')
		return -1;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (__builtin_mul_overflow(value, 10, &value) ||
		    __builtin_add_overflow(value, *p - '0', &value))
			return -1;
	}
	if (value <= 0)
		return -1;
	*pid = value;
	return 0;
}

static const struct {
	const char *name;
	int type;
} namespace_kinds[] = {
	{ "user", CLONE_NEWUSER },     { "mnt", CLONE_NEWNS },    { "uts", CLONE_NEWUTS },
	{ "ipc", CLONE_NEWIPC },       { "net", CLONE_NEWNET },   { "pid", CLONE_NEWPID },
	{ "cgroup", CLONE_NEWCGROUP }, { "time", CLONE_NEWTIME },
};

/* Sets *nstypes to the namespace kinds in which PID differs from us; kinds
 * the kernel lacks are skipped. Returns 0 or an errno value. */
static int differing_namespaces(pid_t pid, int *nstypes)
{
	char path[64];
	struct stat ours, theirs;

	*nstypes = 0;
	for (size_t i = 0; i < sizeof namespace_kinds / sizeof namespace_kinds[0]; i++) {
		snprintf(path, sizeof path, "/proc/self/ns/%s", namespace_kinds[i].name);
		if (stat(path, &ours) < 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, namespace_kinds[i].name);
		if (stat(path, &theirs) < 0)
			return errno;
		if (ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
			*nstypes |= namespace_kinds[i].type;
	}
	return 0;
}

/* Opens PID's root and working directory (O_PATH: nothing is read through
 * them, only fchdir). *root_fd is -1 when the root is the very directory
 * that is ours and no mount namespace is entered: then there is nothing to
 * chroot to, and an unprivileged tfd joining its user's own process needs
 * no CAP_SYS_CHROOT. Returns 0 or an errno value. */
static int open_join_directories(pid_t pid, int nstypes, int *root_fd, int *cwd_fd)
{
	char path[64];
	struct stat theirs, ours;
	int e;

	snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
	*root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*root_fd < 0)
		return errno;
	snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
	*cwd_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*cwd_fd < 0) {
		e = errno;
		close(*root_fd);
		return e;
	}
	if (!(nstypes & CLONE_NEWNS) && fstat(*root_fd, &theirs) == 0 && stat("/", &ours) == 0 &&
	    theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino) {
		close(*root_fd);
		*root_fd = -1;
	}
	return 0;
}

static int join_error(int e, const char *pid_text, int *status, char *err, size_t errlen)
{
	if (e == ESRCH || e == ENOENT)
		return fail(status, 2, err, errlen, "--join '%s': no such process", pid_text);
	if (e == EPERM || e == EACCES)
		return fail(status, 2, err, errlen, "--join '%s': permission denied", pid_text);
	return fail(status, status_for_errno(e), err, errlen, "--join '%s': %s", pid_text,
		    strerror(e));
}

/* The pidfd is taken once, here: every run enters the namespaces of the
 * process it names, and if that process dies its PID may be reused, but the
 * pidfd never refers to the newcomer (setns then fails with ESRCH, and tfd
 * notices the death on the pidfd itself). pidfd_open descriptors are always
 * close-on-exec. */
int spawn_open_join(struct spawn_target *target, const char *pid_text, int *status, char *err,
		    size_t errlen)
{
	struct stat self_ns;
	pid_t pid;
	int pidfd, nstypes, e, root_fd = -1, cwd_fd = -1;

	if (parse_pid(pid_text, &pid) < 0)
		return fail(status, 2, err, errlen, "--join '%s': not a process ID", pid_text);
	if (stat("/proc/self/ns/mnt", &self_ns) < 0)
		return fail(status, 1, err, errlen, "--join '%s': /proc/self/ns: %s", pid_text,
			    strerror(errno));
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0U);
	if (pidfd < 0) {
		e = errno;
		if (e == ENOSYS)
			return fail(status, 1, err, errlen,
				    "--join '%s': pidfd_open is not available (Linux 5.3 or later)",
				    pid_text);
		return join_error(e, pid_text, status, err, errlen);
	}
	e = differing_namespaces(pid, &nstypes);
	if (e == 0)
		e = open_join_directories(pid, nstypes, &root_fd, &cwd_fd);
	/* What /proc showed belongs to the pidfd's process only if that is
	 * still alive now: then the PID cannot have been reused meanwhile. */
	if (e == 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0U) < 0 && errno == ESRCH)
		e = ESRCH;
	if (e) {
		if (cwd_fd >= 0) {
			close(cwd_fd);
			if (root_fd >= 0)
				close(root_fd);
		}
		close(pidfd);
		return join_error(e, pid_text, status, err, errlen);
	}
	target->join_pidfd = pidfd;
	target->join_nstypes = nstypes;
	target->join_root_fd = root_fd;
	target->join_cwd_fd = cwd_fd;
	return 0;
}

void spawn_target_close(struct spawn_target *target)
{
	if (target->cgroup_fd >= 0)
		close(target->cgroup_fd);
	if (target->join_pidfd >= 0) {
		close(target->join_pidfd);
		close(target->join_cwd_fd);
		if (target->join_root_fd >= 0)
			close(target->join_root_fd);
	}
	target->cgroup_fd = -1;
	target->join_pidfd = -1;
	target->join_nstypes = 0;
	target->join_root_fd = -1;
	target->join_cwd_fd = -1;
}
