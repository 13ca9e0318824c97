/* SPDX-License-Identifier: MIT */
#include "reboot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "buf.h"
#include "hash.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

/* A record holds one short line per tfd started in this boot: anything
 * larger is not one tfd wrote. */
#define RECORD_MAX ((size_t)1 << 20)

/* The key */

/* "WORD PATH\n", PATH made absolute with CWD. */
static void put_source(struct buf *b, const char *word, const char *path, const char *cwd)
{
	buf_put(b, word, strlen(word));
	buf_put(b, " ", 1);
	if (path[0] != '/' && cwd) {
		buf_put(b, cwd, strlen(cwd));
		buf_put(b, "/", 1);
	}
	buf_put(b, path, strlen(path));
	buf_put(b, "\n", 1);
}

void reboot_key(const struct reboot_instance *in, const char *cwd, char key[REBOOT_KEY_LEN])
{
	struct buf b = { 0 };

	if (in->system)
		buf_put(&b, "system-crontab\n", 15);
	for (size_t i = 0; i < in->npaths; i++)
		put_source(&b, "jobs", in->paths[i], cwd);
	if (in->user_crontabs)
		put_source(&b, "user-crontabs", in->user_crontabs, cwd);
	if (in->replica) {
		buf_put(&b, "replica ", 8);
		buf_put(&b, in->replica, strlen(in->replica));
		buf_put(&b, "\n", 1);
	}
	buf_put(&b, "", 1);
	/* Out of memory: the key of no source, still one key. */
	snprintf(key, REBOOT_KEY_LEN, "%016" PRIx64, hash_text(b.failed ? "" : b.s));
	buf_free(&b);
}

/* The record */

/* The length of the line at P (up to END), without its newline. */
static size_t line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return (size_t)((nl ? nl : end) - p);
}

/* The length of the key of the line at P (LEN bytes): up to its space. */
static size_t key_len(const char *p, size_t len)
{
	const char *space = memchr(p, ' ', len);

	return space ? (size_t)(space - p) : len;
}

/* Whether the line at P (LEN bytes) is "KEY BOOT"; a NULL KEY matches
 * any key. */
static bool line_is(const char *p, size_t len, const char *key, const char *boot)
{
	size_t k = key_len(p, len), b = strlen(boot);

	if (key && (k != strlen(key) || memcmp(p, key, k) != 0))
		return false;
	return len == k + 1 + b && memcmp(p + k + 1, boot, b) == 0;
}

bool reboot_seen(const char *text, size_t len, const char *key, const char *boot)
{
	const char *end = text + len;

	for (const char *p = text; p < end;) {
		size_t n = line_len(p, end);

		if (line_is(p, n, key, boot))
			return true;
		p += n + 1;
	}
	return false;
}

char *reboot_record_set(const char *text, size_t len, const char *key, const char *boot,
			size_t *outlen)
{
	const char *end = text + len;
	struct buf b = { 0 };

	for (const char *p = text; p < end;) {
		size_t n = line_len(p, end);

		/* Only this boot's lines of other keys stay. */
		if (line_is(p, n, NULL, boot) && !line_is(p, n, key, boot)) {
			buf_put(&b, p, n);
			buf_put(&b, "\n", 1);
		}
		p += n + 1;
	}
	buf_put(&b, key, strlen(key));
	buf_put(&b, " ", 1);
	buf_put(&b, boot, strlen(boot));
	buf_put(&b, "\n", 1);
	if (b.failed) {
		buf_free(&b);
		return NULL;
	}
	*outlen = b.len;
	return b.s;
}

/* Where */

/* Makes the directories of PATH above its base name that are missing,
 * mode 0700 but the last, which gets MODE. Returns 0 or -1 with errno. */
static int make_parents(const char *path, mode_t mode)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;

	if (len == 0 || len >= sizeof dir)
		return 0;
	memcpy(dir, path, len);
	dir[len] = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(dir, mode) != 0 && errno != EEXIST ? -1 : 0;
}

/* The default place, by who tfd is and what its environment says; NULL
 * when there is none. *MODE is its directory's. */
static const char *default_place(char *buf, size_t len, mode_t *mode)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR"), *home = getenv("HOME");
	int n;

	*mode = 0700;
	if (geteuid() == 0) {
		*mode = 0755;
		n = snprintf(buf, len, "/run/tfd/reboot");
	} else if (runtime && *runtime) {
		n = snprintf(buf, len, "%s/tfd/reboot", runtime);
	} else if (home && *home) {
		n = snprintf(buf, len, "%s/.local/state/tfd/reboot", home);
	} else {
		return NULL;
	}
	return n >= 0 && (size_t)n < len ? buf : NULL;
}

int reboot_record_path(char *buf, size_t len, char *err, size_t errlen)
{
	const char *given = getenv("TFD_REBOOT_FILE");
	mode_t mode;

	if (given && *given) {
		if (strlen(given) >= len) {
			snprintf(err, errlen, "TFD_REBOOT_FILE: %s", strerror(ENAMETOOLONG));
			return -1;
		}
		memcpy(buf, given, strlen(given) + 1);
		return 0;
	}
	if (!default_place(buf, len, &mode)) {
		snprintf(err, errlen,
			 "no place for the record: XDG_RUNTIME_DIR and HOME are "
			 "not set, or too long");
		return -1;
	}
	if (make_parents(buf, mode) != 0) {
		snprintf(err, errlen, "mkdir for '%s': %s", buf, strerror(errno));
		return -1;
	}
	return 0;
}

/* Reading and writing */

/* This boot's id, without its newline, into BOOT (at least 64 bytes). */
static int read_boot_id(char *boot, size_t len, char *err, size_t errlen)
{
	int fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, boot, len - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(err, errlen, "%s: %s", BOOT_ID_PATH, n < 0 ? strerror(errno) : "empty");
		return -1;
	}
	boot[n] = '\0';
	boot[strcspn(boot, "\n")] = '\0';
	return 0;
}

/* PATH opened and locked, once the lock is on the file PATH names now: a
 * tfd that waited for the lock while another replaced the file (a rename
 * over it) opens the new one. Returns the descriptor, or -1 with errno. */
static int open_locked(const char *path)
{
	for (;;) {
		struct stat held, named;
		int fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);

		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX) != 0 || fstat(fd, &held) != 0) {
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
		if (!S_ISREG(held.st_mode)) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		if (stat(path, &named) == 0 && named.st_ino == held.st_ino &&
		    named.st_dev == held.st_dev)
			return fd;
		close(fd);
	}
}

static int read_record(int fd, struct buf *text)
{
	for (;;) {
		ssize_t n;

		if (buf_reserve(text, 4096, RECORD_MAX) != 0) {
			errno = text->len >= RECORD_MAX ? EFBIG : ENOMEM;
			return -1;
		}
		n = read(fd, text->s + text->len, text->cap - text->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		text->len += (size_t)n;
	}
}

int reboot_first_start(const char *path, const char *key, char *err, size_t errlen)
{
	struct buf text = { 0 };
	char boot[64], *record;
	size_t len;
	int fd, rc;

	if (read_boot_id(boot, sizeof boot, err, errlen) != 0)
		return -1;
	if ((fd = open_locked(path)) < 0 || read_record(fd, &text) != 0) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		buf_free(&text);
		return -1;
	}
	if (reboot_seen(text.s ? text.s : "", text.len, key, boot)) {
		rc = 0;
	} else if (!(record = reboot_record_set(text.s ? text.s : "", text.len, key, boot, &len))) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else {
		rc = atomic_replace(path, record, len, err, errlen) == 0 ? 1 : -1;
		free(record);
	}
	/* Closing lets the next tfd in, to the file just put in place. */
	close(fd);
	buf_free(&text);
	return rc;
}
