/* SPDX-License-Identifier: MIT */
#include "notify_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hash.h"
#include "timens.h"

const char *const notify_kind_name[NOTIFY_KINDS] = { "ping", "notify" };

/* The length of URL's "http://" or "https://", or 0 for any other. */
static size_t scheme_len(const char *url)
{
	if (strncasecmp(url, "http://", 7) == 0)
		return 7;
	if (strncasecmp(url, "https://", 8) == 0)
		return 8;
	return 0;
}

void notify_url_shown(const char *url, char *out, size_t len)
{
	size_t scheme = scheme_len(url);
	const char *host = url + scheme, *end, *at;

	if (len == 0)
		return;
	if (!scheme) {
		/* Not a URL tfd takes: only its first characters, so that a
		 * key pasted in its place is not shown whole. */
		snprintf(out, len, "%.8s%s", url, strlen(url) > 8 ? "…" : "");
		return;
	}
	end = host + strcspn(host, "/?#");
	/* USER:PASSWORD@ is the credentials' place: left out. */
	at = memchr(host, '@', (size_t)(end - host));
	while (at) {
		host = at + 1;
		at = memchr(host, '@', (size_t)(end - host));
	}
	snprintf(out, len, "%.*s%.*s%s", (int)scheme, url, (int)(end - host), host,
		 *end ? "/…" : "");
}

/* Whether URL is one tfd sends to: http:// or https://, a host, and no
 * space or control character (which a shell's quoting mistake leaves). */
static bool url_ok(const char *url)
{
	size_t scheme = scheme_len(url);
	const char *host = url + scheme;

	if (!scheme || strcspn(host, "/?#") == 0 || host[0] == '@')
		return false;
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

static int bad_url(const char *option, const char *url, char *err, size_t errlen)
{
	char shown[256];

	if (!*url) {
		snprintf(err, errlen, "--%s: an empty URL", option);
		return 2;
	}
	notify_url_shown(url, shown, sizeof shown);
	snprintf(err, errlen,
		 "--%s '%s': not an http:// or https:// URL with a host "
		 "(and no space)",
		 option, shown);
	return 2;
}

int notify_target_build(const char *ping, const char *notify, const char *notify_on,
			struct notify_target *t, char *err, size_t errlen)
{
	*t = (struct notify_target){ 0 };
	if (ping && !url_ok(ping))
		return bad_url("ping", ping, err, errlen);
	if (notify && !url_ok(notify))
		return bad_url("notify", notify, err, errlen);
	if (notify_on && strcmp(notify_on, "always") == 0) {
		t->notify_always = true;
	} else if (notify_on && strcmp(notify_on, "failure") != 0) {
		snprintf(err, errlen, "--notify-on '%s': must be failure or always", notify_on);
		return 2;
	}
	if ((ping && !(t->ping = strdup(ping))) || (notify && !(t->notify = strdup(notify)))) {
		notify_target_free(t);
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	return 0;
}

void notify_target_free(struct notify_target *t)
{
	free(t->ping);
	free(t->notify);
	*t = (struct notify_target){ 0 };
}

char *notify_ping_url(const char *base, const char *suffix, const char *rid)
{
	size_t path = strcspn(base, "?#"), query_len = 0;
	const char *query = NULL;
	char *out;
	size_t len;

	if (base[path] == '?') {
		query = base + path + 1;
		query_len = strcspn(query, "#");
	}
	/* "https://hc-ping.com/KEY/" and ".../KEY" ping the same check. */
	while (path > 0 && base[path - 1] == '/')
		path--;
	len = path + (suffix ? strlen(suffix) + 1 : 0) + query_len + strlen(rid) + 8;
	out = malloc(len);
	if (!out)
		return NULL;
	snprintf(out, len, "%.*s%s%s?%.*s%srid=%s", (int)path, base, suffix ? "/" : "",
		 suffix ? suffix : "", (int)query_len, query ? query : "", query_len ? "&" : "",
		 rid);
	return out;
}

void notify_run_id(const uint8_t key[16], const char *job, uint64_t seq, char *out)
{
	uint64_t h[2];
	uint8_t b[16];

	/* Two FNV-1a hashes of the key, the name and the number, each
	 * begun from another half of the key: 128 bits of which a UUID
	 * keeps 122. */
	for (int i = 0; i < 2; i++) {
		uint64_t x = hash_bytes(HASH_START, key + 8 * i, 8);

		x = hash_bytes(x, job ? job : "", job ? strlen(job) + 1 : 1);
		x = hash_bytes(x, &seq, sizeof seq);
		h[i] = hash_bytes(x, key, 16);
	}
	memcpy(b, h, sizeof b);
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122's variant */
	snprintf(out, NOTIFY_RID_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
}

int64_t notify_retry_delay(unsigned tries)
{
	static const int64_t waits[] = { 1 * NSEC_PER_SEC, 5 * NSEC_PER_SEC, 25 * NSEC_PER_SEC };

	if (tries == 0 || tries > sizeof waits / sizeof waits[0])
		return -1;
	return waits[tries - 1];
}
