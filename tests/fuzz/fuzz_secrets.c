/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: fleet_secrets. The input is a connection string, the
 * two characters \n (tests/fuzz/secrets.tsv's seeds are one line each),
 * and a message of libpq's. The URI check and the collection of
 * candidates never crash; the scrubbed message is a C string that fits,
 * and no candidate of four letters or digits or more is left in it (the
 * marks that replace a fragment hold neither, so such a candidate in the
 * output would be one of the message's own runs, left unmarked). */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_secrets.h"

static bool alnum_only(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512], out[600];
	struct fleet_secrets s = { 0 };
	char *msg;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	msg = strstr(text, "\\n");
	if (msg) {
		*msg = '\0';
		msg += 2;
	} else {
		msg = text;
	}
	(void)fleet_uri_check(text, err, sizeof err);
	if (fleet_secrets_collect(&s, text, NULL, "/nonexistent") == 0) {
		fleet_secrets_scrub(&s, msg, out, sizeof out);
		if (strlen(out) >= sizeof out)
			abort();
		for (size_t i = 0; i < s.n; i++)
			if (strlen(s.v[i]) >= FLEET_SECRET_FRAGMENT && alnum_only(s.v[i]) &&
			    strstr(out, s.v[i]))
				abort();
	}
	fleet_secrets_free(&s);
	free(text);
	return 0;
}
