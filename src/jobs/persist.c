/* SPDX-License-Identifier: MIT */
#include "persist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "report.h"
#include "timens.h"

/* The longest file persist_write makes: 10 digits of seconds (2262 is the
 * last year of int64 nanoseconds), '.', 9 of nanoseconds, '\n'. A longer file
 * is corrupt. */
#define STAMP_MAX 21
#define FRACTION_DIGITS 9

int persist_check_path(const char *path, char *err, size_t errlen)
{
	return atomic_check_target("--persist", path, err, errlen);
}

/* The K digits at TEXT as a number; -1 when it does not fit. */
static int decimal_value(const char *text, size_t k, int64_t *value)
{
	*value = 0;
	for (size_t i = 0; i < k; i++)
		if (__builtin_mul_overflow(*value, 10, value) ||
		    __builtin_add_overflow(*value, text[i] - '0', value))
			return -1;
	return 0;
}

/* Exactly "SECONDS.NNNNNNNNN\n", all LEN bytes of TEXT (NUL-terminated
 * after them), as persist_write writes it: no sign, blank or leading zero
 * (format_unix prints none), and nothing after the newline, not even a NUL. */
static int parse_stamp(const char *text, size_t len, int64_t *wall_ns)
{
	static const char digits[] = "0123456789";
	size_t whole = strspn(text, digits);
	const char *frac = text + whole + 1;
	int64_t sec, nsec;

	if (whole == 0 || (whole > 1 && text[0] == '0') || text[whole] != '.' ||
	    strspn(frac, digits) != FRACTION_DIGITS || frac[FRACTION_DIGITS] != '\n' ||
	    frac + FRACTION_DIGITS + 1 != text + len)
		return -1;
	if (decimal_value(text, whole, &sec) != 0 ||
	    decimal_value(frac, FRACTION_DIGITS, &nsec) != 0 ||
	    __builtin_mul_overflow(sec, NSEC_PER_SEC, wall_ns) ||
	    __builtin_add_overflow(*wall_ns, nsec, wall_ns))
		return -1;
	return 0;
}

/* Reads up to CAP bytes, to the end of the file. */
static ssize_t read_upto(int fd, char *buf, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* O_NONBLOCK: a FIFO put there after the check must not hang the open.
 * Returns the descriptor, or -1 with *missing set when there is no file and
 * err filled when there is one that cannot be read. */
static int open_stamp(const char *path, bool *missing, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	const char *why = NULL;

	*missing = fd < 0 && errno == ENOENT;
	if (fd < 0)
		why = strerror(errno);
	else if (fstat(fd, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	if (!why)
		return fd;
	if (!*missing)
		snprintf(err, errlen, "--persist '%s': %s", path, why);
	if (fd >= 0)
		close(fd);
	return -1;
}

int persist_read(const char *path, int64_t *wall_ns, char *err, size_t errlen)
{
	char buf[STAMP_MAX + 2];
	ssize_t n;
	bool missing;
	int fd = open_stamp(path, &missing, err, errlen);

	if (fd < 0)
		return missing ? 0 : -1;
	n = read_upto(fd, buf, STAMP_MAX + 1);
	if (n < 0)
		snprintf(err, errlen, "--persist '%s': read: %s", path, strerror(errno));
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	if (n > STAMP_MAX || parse_stamp(buf, (size_t)n, wall_ns) != 0) {
		snprintf(err, errlen,
			 "--persist '%s': corrupt: expected one line 'SECONDS.NANOSECONDS'", path);
		return -2;
	}
	return 1;
}

int persist_write(const char *path, int64_t wall_ns, char *err, size_t errlen)
{
	char line[48];
	size_t len = format_unix(line, wall_ns);

	line[len++] = '\n';
	return atomic_replace(path, line, len, err, errlen);
}
