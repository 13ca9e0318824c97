/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: --listen's [ADDR:]PORT. Any input parses or is
 * rejected without a sanitizer report and with a message; an accepted one
 * printed by listen_addr_format reparses to the same address and port. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "listen_addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512] = "", shown[LISTEN_ADDR_TEXT_MAX];
	struct listen_addr a, again;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (listen_addr_parse(text, &a, err, sizeof err) != 0) {
		if (!err[0])
			abort();
	} else {
		if (a.port == 0)
			abort();
		listen_addr_format(&a, shown);
		if (listen_addr_parse(shown, &again, err, sizeof err) != 0 || again.port != a.port ||
		    again.len != a.len || memcmp(&again.sa, &a.sa, a.len) != 0)
			abort();
	}
	free(text);
	return 0;
}
