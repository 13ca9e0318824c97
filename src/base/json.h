/* SPDX-License-Identifier: MIT */
/* json: a strict JSON reader (RFC 8259) for the control socket's
 * requests and tfdctl's answers. Pure: the text is cut into a flat array
 * of values, each pointing into the text; strings are unescaped only when
 * asked for. Nesting is limited (JSON_DEPTH_MAX) so that no input can
 * exhaust the stack. */
#ifndef TFD_JSON_H
#define TFD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_DEPTH_MAX 32

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

/* One value. An object's members follow it as key, value, key, value...;
 * an array's elements follow it; NEXT is the index just past a value and
 * everything inside it. */
struct json_value {
	enum json_type type;
	size_t start, len; /* the text of it (a string's without quotes) */
	size_t count;      /* members or elements */
	size_t next;
};

struct json_doc {
	const char *text;
	struct json_value *v;
	size_t n, cap;
};

/* Reads TEXT (LEN bytes: exactly one value, blanks around it). Returns 0,
 * or -1 with one line in err ("offset 12: expected ':'"; "out of memory").
 * json_free releases the values either way. */
int json_parse(struct json_doc *d, const char *text, size_t len, char *err, size_t errlen);
void json_free(struct json_doc *d);

/* The index of KEY's value in object OBJ, or 0 (index 0 is the whole
 * document, never a member's value). */
size_t json_get(const struct json_doc *d, size_t obj, const char *key);

/* The string at I unescaped into a new NUL-terminated string (NULL when
 * memory ran out, or I is no string). A \u0000 in it ends it early. */
char *json_string(const struct json_doc *d, size_t i);

/* The same, and its length in *LEN: a \u0000 in it is a NUL byte there,
 * for a reader that must see every byte (a run's output tail) or refuse
 * a string that holds one (a job's name). */
char *json_string_n(const struct json_doc *d, size_t i, size_t *len);

/* True when I is the string S exactly (unescaped). */
bool json_equals(const struct json_doc *d, size_t i, const char *s);

/* The number at I as an integer (false: not a number, or not an integer
 * in range). */
bool json_int(const struct json_doc *d, size_t i, int64_t *out);
bool json_bool(const struct json_doc *d, size_t i, bool *out);

#endif
