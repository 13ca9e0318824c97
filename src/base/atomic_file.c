/* SPDX-License-Identifier: MIT */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A temporary is ".tfd." and TEMP_RANDOM letters or digits: hidden, never
 * ending in ".prom" (node_exporter reads only those), and with 62^12, about
 * 2^71, names to guess. */
#define TEMP_PREFIX ".tfd."
#define TEMP_RANDOM 12
#define TEMP_TRIES 16

/* PATH as the directory to open and the name in it. */
struct target {
	char dir[PATH_MAX];
	const char *base;
};

static int split_target(const char *path, struct target *t)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen;

	if (!slash) {
		strcpy(t->dir, ".");
		t->base = path;
		return 0;
	}
	dirlen = slash == path ? 1 : (size_t)(slash - path);
	if (dirlen >= sizeof t->dir)
		return -1;
	memcpy(t->dir, path, dirlen);
	t->dir[dirlen] = '\0';
	t->base = slash + 1;
	return 0;
}

/* Checks */

static int check_directory(const char *option, const char *path, const struct target *t, char *err,
			   size_t errlen)
{
	struct stat st;

	if (stat(t->dir, &st) != 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "%s '%s': no such directory '%s'", option, path,
				 t->dir);
		else
			snprintf(err, errlen, "%s '%s': directory '%s': %s", option, path, t->dir,
				 strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s '%s': '%s' is not a directory", option, path, t->dir);
		return -1;
	}
	return 0;
}

const char *not_regular_why(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory, not a file";
	if (S_ISFIFO(mode))
		return "a FIFO, not a regular file";
	if (S_ISSOCK(mode))
		return "a socket, not a regular file";
	if (!S_ISREG(mode))
		return "a device, not a regular file";
	return NULL;
}

int atomic_check_target(const char *option, const char *path, char *err, size_t errlen)
{
	struct target t;
	struct stat st;
	const char *why;

	if (!*path) {
		snprintf(err, errlen, "%s '': an empty file name", option);
		return -1;
	}
	if (split_target(path, &t) != 0) {
		snprintf(err, errlen, "%s '%s': %s", option, path, strerror(ENAMETOOLONG));
		return -1;
	}
	if (check_directory(option, path, &t, err, errlen) != 0)
		return -1;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s '%s': %s", option, path, strerror(errno));
		return -1;
	}
	/* stat() follows a symlink: a link to a FIFO would hang a reader as
	 * the FIFO itself does. */
	why = !*t.base ? "a directory, not a file" : not_regular_why(st.st_mode);
	if (why) {
		snprintf(err, errlen, "%s '%s': %s", option, path, why);
		return -1;
	}
	return 0;
}

/* Replacing */

/* The random part of a temporary's name. getrandom() is asked not to
 * block (early at boot it could); without it the name is only unusual, and
 * O_EXCL|O_NOFOLLOW still keep tfd off anything planted there. */
static void random_name(char *out)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char bytes[TEMP_RANDOM];
	struct timespec ts;

	if (getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != (ssize_t)sizeof bytes) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
			     ((uint64_t)getpid() << 48);
		for (size_t i = 0; i < sizeof bytes; i++) {
			x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
			bytes[i] = (unsigned char)(x >> 56);
		}
	}
	memcpy(out, TEMP_PREFIX, sizeof TEMP_PREFIX - 1);
	out += sizeof TEMP_PREFIX - 1;
	for (size_t i = 0; i < sizeof bytes; i++)
		out[i] = alphabet[bytes[i] % (sizeof alphabet - 1)];
	out[TEMP_RANDOM] = '\0';
}

/* Creates a new temporary in DIRFD; its name goes to NAME. */
static int create_temp(int dirfd, char *name)
{
	int fd = -1;

	for (int k = 0; k < TEMP_TRIES && fd < 0; k++) {
		random_name(name);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes, syncs and closes the temporary FD; returns the failed call or
 * NULL. The descriptor is closed either way. */
static const char *fill_temp(int fd, const void *data, size_t len)
{
	const char *call = NULL;
	int saved;

	if (write_all(fd, data, len) != 0)
		call = "write";
	else if (fsync(fd) != 0)
		call = "fsync";
	saved = errno;
	if (close(fd) != 0 && !call) {
		call = "close";
		saved = errno;
	}
	errno = saved;
	return call;
}

/* The temporary TEMP in DIRFD, open as FD, gets DATA and becomes T's base
 * name. Returns the failed call, or NULL. A file system that cannot sync a
 * directory (EINVAL) has nothing more to do after the rename. */
static const char *put_in_place(int dirfd, const char *temp, int fd, const struct target *t,
				const void *data, size_t len)
{
	const char *call = fill_temp(fd, data, len);

	if (!call && renameat(dirfd, temp, dirfd, t->base) != 0)
		call = "rename";
	if (call) {
		int saved = errno;

		unlinkat(dirfd, temp, 0);
		errno = saved;
		return call;
	}
	if (fsync(dirfd) != 0 && errno != EINVAL)
		return "fsync";
	return NULL;
}

int atomic_replace(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	char temp[sizeof TEMP_PREFIX + TEMP_RANDOM];
	struct target t;
	const char *call = "open";
	int dirfd, fd, saved;

	if (split_target(path, &t) != 0) {
		snprintf(err, errlen, "open '%s': %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	/* The directory is opened once and everything is done relative to it,
	 * so the temporary and the rename land in the same directory even if
	 * a name on the way is swapped meanwhile. */
	dirfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		goto fail;
	fd = create_temp(dirfd, temp);
	if (fd >= 0)
		call = put_in_place(dirfd, temp, fd, &t, data, len);
	saved = errno;
	close(dirfd);
	errno = saved;
	if (!call)
		return 0;
fail:
	snprintf(err, errlen, "%s '%s': %s", call, path, strerror(errno));
	return -1;
}
