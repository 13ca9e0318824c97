#include "persist.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "timens.h"

/* The file holds one line, "SECONDS.NANOSECONDS\n", as %u prints it. */
static int parse_stamp(const char *text, int64_t *wall_ns)
{
	char *end;
	long long sec, nsec;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	sec = strtoll(text, &end, 10);
	if (errno || *end != '.' || end[1] < '0' || end[1] > '9' ||
	    strspn(end + 1, "0123456789") != 9)
		return -1;
	nsec = strtoll(end + 1, &end, 10);
	if (strcmp(end, "\n") != 0 && *end != '\0')
		return -1;
	if (__builtin_mul_overflow(sec, NSEC_PER_SEC, wall_ns) ||
	    __builtin_add_overflow(*wall_ns, nsec, wall_ns))
		return -1;
	return 0;
}

int persist_read(const char *path, int64_t *wall_ns, char *err, size_t errlen)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		snprintf(err, errlen, "--persist '%s': %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof buf - 1);
	if (n < 0) {
		snprintf(err, errlen, "--persist '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	if (parse_stamp(buf, wall_ns) != 0) {
		snprintf(err, errlen,
			 "--persist '%s': corrupt: expected one line 'SECONDS.NANOSECONDS'",
			 path);
		return -2;
	}
	return 1;
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

int persist_write(const char *path, int64_t wall_ns, char *err, size_t errlen)
{
	char tmp[4096], line[48];
	size_t len = format_unix(line, wall_ns);
	const char *call = "open";
	int fd, saved;

	line[len++] = '\n';
	if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp) {
		snprintf(err, errlen, "--persist '%s': path too long", path);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	call = "write";
	if (write_all(fd, line, len) != 0)
		goto fail_close;
	call = "fsync";
	if (fsync(fd) != 0)
		goto fail_close;
	call = "close";
	if (close(fd) != 0)
		goto fail_unlink;
	call = "rename";
	if (rename(tmp, path) != 0)
		goto fail_unlink;
	return 0;
fail_close:
	saved = errno;
	close(fd);
	errno = saved;
fail_unlink:
	saved = errno;
	unlink(tmp);
	errno = saved;
fail:
	snprintf(err, errlen, "--persist '%s': %s: %s", path, call, strerror(errno));
	return -1;
}
