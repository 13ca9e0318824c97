/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "utf8.h"

struct reader {
	struct json_doc *d;
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, r->errlen, "offset %zu: ", r->pos);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->errlen)
		vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_blanks(struct reader *r)
{
	while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
				   r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
		r->pos++;
}

static long add_value(struct reader *r, enum json_type type)
{
	struct json_doc *d = r->d;

	if (array_reserve(&d->v, &d->cap, d->n + 1, sizeof *d->v, SIZE_MAX) != 0) {
		snprintf(r->err, r->errlen, "out of memory");
		return -1;
	}
	d->v[d->n] = (struct json_value){ .type = type, .start = r->pos };
	return (long)d->n++;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string: escapes checked, no control character, valid UTF-8. */
static int read_string(struct reader *r, long i)
{
	r->pos++;
	r->d->v[i].start = r->pos;
	while (r->pos < r->len) {
		unsigned char c = (unsigned char)r->s[r->pos];
		long k;

		if (c == '"') {
			r->d->v[i].len = r->pos - r->d->v[i].start;
			r->pos++;
			return 0;
		}
		if (c < 0x20)
			return fail(r, "control character in a string");
		if (c == '\\') {
			char e = r->pos + 1 < r->len ? r->s[r->pos + 1] : 0;

			if (e == 'u') {
				for (int h = 2; h < 6; h++)
					if (r->pos + (size_t)h >= r->len ||
					    !is_hex(r->s[r->pos + (size_t)h]))
						return fail(r, "bad \\u escape");
				r->pos += 6;
				continue;
			}
			if (!e || !strchr("\"\\/bfnrt", e))
				return fail(r, "bad escape");
			r->pos += 2;
			continue;
		}
		k = utf8_sequence((const unsigned char *)r->s + r->pos, r->len - r->pos);
		if (k < 0)
			return fail(r, "invalid UTF-8");
		r->pos += (size_t)k;
	}
	return fail(r, "unterminated string");
}

static int read_digits(struct reader *r)
{
	size_t start = r->pos;

	while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
		r->pos++;
	return r->pos > start ? 0 : fail(r, "expected a digit");
}

static int read_number(struct reader *r, long i)
{
	if (r->s[r->pos] == '-')
		r->pos++;
	if (r->pos < r->len && r->s[r->pos] == '0')
		r->pos++;
	else if (read_digits(r) != 0)
		return -1;
	if (r->pos < r->len && r->s[r->pos] == '.') {
		r->pos++;
		if (read_digits(r) != 0)
			return -1;
	}
	if (r->pos < r->len && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
		r->pos++;
		if (r->pos < r->len && (r->s[r->pos] == '+' || r->s[r->pos] == '-'))
			r->pos++;
		if (read_digits(r) != 0)
			return -1;
	}
	r->d->v[i].len = r->pos - r->d->v[i].start;
	return 0;
}

static int read_word(struct reader *r, long i, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0)
		return fail(r, "unexpected text");
	r->pos += n;
	r->d->v[i].len = n;
	return 0;
}

static int read_value(struct reader *r, int depth);

/* The members or elements up to CLOSE, each a value (a member: a string,
 * ':' and a value). */
static int read_container(struct reader *r, long i, char close, int depth)
{
	bool object = close == '}';

	r->pos++;
	skip_blanks(r);
	if (r->pos < r->len && r->s[r->pos] == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		skip_blanks(r);
		if (object) {
			if (r->pos >= r->len || r->s[r->pos] != '"')
				return fail(r, "expected a member name");
			if (read_value(r, depth + 1) != 0)
				return -1;
			skip_blanks(r);
			if (r->pos >= r->len || r->s[r->pos] != ':')
				return fail(r, "expected ':'");
			r->pos++;
		}
		if (read_value(r, depth + 1) != 0)
			return -1;
		r->d->v[i].count++;
		skip_blanks(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == close) {
			r->pos++;
			return 0;
		}
		return fail(r, "expected ',' or '%c'", close);
	}
}

static int read_value(struct reader *r, int depth)
{
	long i;
	int rc;
	char c;

	if (depth > JSON_DEPTH_MAX)
		return fail(r, "nested deeper than %d", JSON_DEPTH_MAX);
	skip_blanks(r);
	if (r->pos >= r->len)
		return fail(r, "expected a value");
	c = r->s[r->pos];
	i = add_value(r, c == '{'               ? JSON_OBJECT
			 : c == '['             ? JSON_ARRAY
			 : c == '"'             ? JSON_STRING
			 : c == 't' || c == 'f' ? JSON_BOOL
			 : c == 'n'             ? JSON_NULL
						: JSON_NUMBER);
	if (i < 0)
		return -1;
	if (c == '{' || c == '[')
		rc = read_container(r, i, c == '{' ? '}' : ']', depth);
	else if (c == '"')
		rc = read_string(r, i);
	else if (c == 't')
		rc = read_word(r, i, "true");
	else if (c == 'f')
		rc = read_word(r, i, "false");
	else if (c == 'n')
		rc = read_word(r, i, "null");
	else if (c == '-' || (c >= '0' && c <= '9'))
		rc = read_number(r, i);
	else
		rc = fail(r, "unexpected '%c'", c);
	if (rc == 0 && (r->d->v[i].type == JSON_OBJECT || r->d->v[i].type == JSON_ARRAY))
		r->d->v[i].len = r->pos - r->d->v[i].start;
	r->d->v[i].next = r->d->n;
	return rc;
}

int json_parse(struct json_doc *d, const char *text, size_t len, char *err, size_t errlen)
{
	struct reader r;

	*d = (struct json_doc){ .text = text };
	r = (struct reader){ d, text, len, 0, err, errlen };
	if (read_value(&r, 0) != 0)
		return -1;
	skip_blanks(&r);
	if (r.pos != len)
		return fail(&r, "text after the value");
	return 0;
}

void json_free(struct json_doc *d)
{
	free(d->v);
	*d = (struct json_doc){ 0 };
}

size_t json_get(const struct json_doc *d, size_t obj, const char *key)
{
	size_t i;

	if (obj >= d->n || d->v[obj].type != JSON_OBJECT)
		return 0;
	i = obj + 1;
	for (size_t m = 0; m < d->v[obj].count; m++) {
		size_t value = d->v[i].next;

		if (json_equals(d, i, key))
			return value;
		i = d->v[value].next;
	}
	return 0;
}

static unsigned hex4(const char *p)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		char c = p[k];

		v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A \u escape at P (surrogate pairs joined; a lone one is U+FFFD). */
static unsigned unicode_escape(const char *p, const char *end, size_t *used)
{
	unsigned cp = hex4(p + 2);

	*used = 6;
	if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
		unsigned lo = hex4(p + 8);

		if (lo >= 0xdc00 && lo < 0xe000) {
			*used = 12;
			return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		}
	}
	return cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp;
}

char *json_string_n(const struct json_doc *d, size_t i, size_t *len)
{
	const struct json_value *v;
	const char *p, *end;
	size_t k = 0;
	char *out;

	if (i >= d->n || d->v[i].type != JSON_STRING)
		return NULL;
	v = &d->v[i];
	p = d->text + v->start;
	end = p + v->len;
	/* Unescaping never makes a string longer. */
	out = malloc(v->len + 1);
	if (!out)
		return NULL;
	while (p < end) {
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		size_t used;

		if (*p != '\\') {
			out[k++] = *p++;
		} else if (p[1] == 'u') {
			k += put_utf8(out + k, unicode_escape(p, end, &used));
			p += used;
		} else {
			out[k++] = to[strchr(from, p[1]) - from];
			p += 2;
		}
	}
	out[k] = '\0';
	*len = k;
	return out;
}

char *json_string(const struct json_doc *d, size_t i)
{
	size_t len;

	return json_string_n(d, i, &len);
}

bool json_equals(const struct json_doc *d, size_t i, const char *s)
{
	const char *raw;
	size_t n;
	char *t;

	if (i >= d->n || d->v[i].type != JSON_STRING)
		return false;
	/* Without escapes the text is the string: no copy (a key lookup
	 * compares every member name before it). */
	raw = d->text + d->v[i].start;
	n = d->v[i].len;
	if (!memchr(raw, '\\', n))
		return strlen(s) == n && memcmp(raw, s, n) == 0;
	t = json_string(d, i);
	bool eq = t && strcmp(t, s) == 0;

	free(t);
	return eq;
}

bool json_int(const struct json_doc *d, size_t i, int64_t *out)
{
	char buf[32], *end;
	long long v;

	if (i >= d->n || d->v[i].type != JSON_NUMBER || d->v[i].len >= sizeof buf)
		return false;
	memcpy(buf, d->text + d->v[i].start, d->v[i].len);
	buf[d->v[i].len] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

bool json_bool(const struct json_doc *d, size_t i, bool *out)
{
	if (i >= d->n || d->v[i].type != JSON_BOOL)
		return false;
	*out = d->text[d->v[i].start] == 't';
	return true;
}
