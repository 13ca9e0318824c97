/* SPDX-License-Identifier: MIT */
/* reboot: whether this start of tfd runs the @reboot lines. cron runs them
 * when it starts for the first time since the machine booted, and keeps
 * /run/crond.reboot to know ("Skipping @reboot jobs -- not system
 * startup"); tfd keeps the boot's id (/proc/sys/kernel/random/boot_id)
 * in a record file, one line per set of jobs, so that a restart or an
 * upgrade in the same boot runs none of them again, and one tfd's start
 * (a tfd@NAME unit, a user's tfd) never stands for another's. tfd as PID
 * 1 always runs them: a container's start is its boot, while the host's
 * boot id stays. */
#ifndef TFD_REBOOT_H
#define TFD_REBOOT_H

#include <stdbool.h>
#include <stddef.h>

/* 16 hex digits and a NUL. */
#define REBOOT_KEY_LEN 17

/* What makes one tfd apart from another on a machine: its sources of
 * jobs and, given explicitly, its --replica (two replicas of a fleet on
 * one machine each run the @reboot lines). */
struct reboot_instance {
	char *const *paths; /* every --jobs PATH */
	size_t npaths;
	bool system;               /* --system-crontab */
	const char *user_crontabs; /* --user-crontabs DIR, or NULL */
	const char *replica;       /* --replica, or NULL */
};

/* The key of an instance: the FNV-1a hash (64 bits), as 16 hex digits, of
 * these lines: "system-crontab" for --system-crontab, "jobs PATH" for
 * each --jobs PATH and "user-crontabs DIR" (each made absolute with CWD,
 * not resolved), "replica NAME". */
void reboot_key(const struct reboot_instance *in, const char *cwd, char key[REBOOT_KEY_LEN]);

/* The record's text (LEN bytes): whether it has KEY's line with BOOT
 * ("KEY BOOT\n"). Pure. */
bool reboot_seen(const char *text, size_t len, const char *key, const char *boot);

/* The record's text with KEY's line set to BOOT, the lines of other
 * boots dropped (their tfds' next start is a first start anyway, so the
 * file never holds more than this boot's), into a new string of *OUTLEN
 * bytes; NULL when memory ran out. Pure. */
char *reboot_record_set(const char *text, size_t len, const char *key, const char *boot,
			size_t *outlen);

/* Where the record is: $TFD_REBOOT_FILE when set (tests, or an instance
 * kept apart), else /run/tfd/reboot for root, else
 * $XDG_RUNTIME_DIR/tfd/reboot, else (no XDG_RUNTIME_DIR: cron, su, a
 * container's user) $HOME/.local/state/tfd/reboot: the boot id in it makes
 * a file that outlives the boot harmless. The directory is made when
 * missing (but $TFD_REBOOT_FILE's). Returns 0, or -1 with one line in
 * err. */
int reboot_record_path(char *buf, size_t len, char *err, size_t errlen);

/* Whether KEY's jobs start for the first time in this boot, read from the
 * record at PATH and written there (atomic_file.h) under a lock on it,
 * so that two tfds starting at once each keep their line. Returns 1
 * (first: run the @reboot lines), 0 (started before in this boot: run
 * none), or -1 with one line in err (the record could not be read or
 * written: the caller runs them, as before there was a record). */
int reboot_first_start(const char *path, const char *key, char *err, size_t errlen);

#endif
