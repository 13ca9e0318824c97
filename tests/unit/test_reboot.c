/* SPDX-License-Identifier: MIT */
/* Unit tests for reboot's pure parts: the key of a tfd's jobs (its
 * sources, made absolute, and an explicit --replica, hashed as tfd(1)
 * says: the hashes below were computed apart), whether a record has a
 * key's line of this boot, and the record rewritten with it: other keys
 * of this boot kept, lines of other boots and the key's old line gone. */
#include "harness.h"
#include "reboot.h"

#include <stdlib.h>
#include <string.h>

static void test_key(void)
{
	char *host[] = { "/etc/crontab", "cron.d" };
	char *one[] = { "jobs" };
	struct reboot_instance in = { host, 2, true, "/var/spool/cron/crontabs", NULL };
	char key[REBOOT_KEY_LEN], other[REBOOT_KEY_LEN];

	reboot_key(&in, "/etc", key);
	check(strcmp(key, "6ba1254cf3fa5023") == 0, "a host's cron: %s", key);
	in = (struct reboot_instance){ one, 1, false, NULL, "a" };
	reboot_key(&in, "/srv/x", key);
	check(strcmp(key, "bce345db9f57d178") == 0, "a replica's: %s", key);
	in.replica = "b";
	reboot_key(&in, "/srv/x", other);
	check(strcmp(key, other) != 0, "another replica, another key");
	in.replica = "a";
	reboot_key(&in, "/srv/y", other);
	check(strcmp(key, other) != 0, "another directory, another key");
}

static void test_seen(void)
{
	static const char record[] = "aaaa boot-1\nbbbb boot-2\n";

	check(reboot_seen(record, strlen(record), "aaaa", "boot-1"), "aaaa in boot-1");
	check(!reboot_seen(record, strlen(record), "aaaa", "boot-2"), "aaaa not in boot-2");
	check(!reboot_seen(record, strlen(record), "aaa", "boot-1"), "a key's prefix is not it");
	check(!reboot_seen(record, strlen(record), "cccc", "boot-1"), "cccc: none");
	check(!reboot_seen("", 0, "aaaa", "boot-1"), "an empty record");
	/* A last line without its newline (a record cut short) still counts. */
	check(reboot_seen("aaaa boot-1", 11, "aaaa", "boot-1"), "no final newline");
	check(!reboot_seen("aaaa boot-10\n", 13, "aaaa", "boot-1"), "a boot id's prefix is not it");
}

static void check_set(const char *text, const char *key, const char *boot, const char *want)
{
	size_t len = 0;
	char *got = reboot_record_set(text, strlen(text), key, boot, &len);

	check(got && len == strlen(want) && memcmp(got, want, len) == 0,
	      "set %s %s in '%s': '%.*s'", key, boot, text, got ? (int)len : 4, got ? got : "NULL");
	free(got);
}

static void test_set(void)
{
	check_set("", "aaaa", "b1", "aaaa b1\n");
	check_set("bbbb b1\naaaa b0\ncccc b0\n", "aaaa", "b1", "bbbb b1\naaaa b1\n");
	check_set("aaaa b1\nbbbb b1\n", "aaaa", "b1", "bbbb b1\naaaa b1\n");
	check_set("junk\n\nbbbb b1", "aaaa", "b1", "bbbb b1\naaaa b1\n");
}

int main(void)
{
	test_key();
	test_seen();
	test_set();
	return tally_finish(&tally, "reboot");
}
