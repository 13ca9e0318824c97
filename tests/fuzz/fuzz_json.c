/* libFuzzer harness: the control socket's JSON reader. Whatever it
 * accepts, every value's extent lies within the text, every member is
 * found again by its key and every string unescapes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc d;
	char err[256];

	if (json_parse(&d, (const char *)data, size, err, sizeof err) == 0) {
		for (size_t i = 0; i < d.n; i++) {
			if (d.v[i].start + d.v[i].len > size || d.v[i].next <= i || d.v[i].next > d.n)
				abort();
			if (d.v[i].type == JSON_STRING) {
				char *s = json_string(&d, i);

				if (!s)
					abort();
				free(s);
			}
			if (d.v[i].type == JSON_OBJECT && d.v[i].count > 0) {
				char *key = json_string(&d, i + 1);

				/* The first member is the first found by its key. */
				if (key && strlen(key) == d.v[i + 1].len && json_get(&d, i, key) != d.v[i + 1].next)
					abort();
				free(key);
			}
		}
	}
	json_free(&d);
	return 0;
}
