/* SPDX-License-Identifier: MIT */
#include "jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonesc.h"
#include "report.h"

void jsonw_reset(struct jsonw *w)
{
	w->len = 0;
	w->failed = false;
	w->depth = 0;
	w->first[0] = true;
	w->after_key = false;
	if (w->text)
		w->text[0] = '\0';
}

void jsonw_free(struct jsonw *w)
{
	free(w->text);
	*w = (struct jsonw){ 0 };
}

/* Room for N more bytes and the NUL; doubling, overflow-checked. */
static bool reserve(struct jsonw *w, size_t n)
{
	size_t need;

	if (w->failed)
		return false;
	/* The text is a byte array grown by the project's one grower; its
	 * fields stay the writer's own, read by the answers' senders. */
	if (__builtin_add_overflow(w->len, n + 1, &need) ||
	    array_reserve(&w->text, &w->cap, need, 1, SIZE_MAX) != 0) {
		w->failed = true;
		return false;
	}
	return true;
}

void jsonw_raw(struct jsonw *w, const char *s, size_t n)
{
	if (!reserve(w, n))
		return;
	memcpy(w->text + w->len, s, n);
	w->len += n;
	w->text[w->len] = '\0';
}

static void raw_str(struct jsonw *w, const char *s)
{
	jsonw_raw(w, s, strlen(s));
}

/* The comma before a value or a key that is not its container's first. */
static void before_value(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->len == 0 && w->depth == 0)
		return;
	if (!w->first[w->depth])
		raw_str(w, ",");
	w->first[w->depth] = false;
}

static void open_container(struct jsonw *w, const char *c)
{
	before_value(w);
	raw_str(w, c);
	if (w->depth + 1 < JSONW_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

static void close_container(struct jsonw *w, const char *c)
{
	raw_str(w, c);
	if (w->depth > 0)
		w->depth--;
	w->first[w->depth] = false;
}

void jsonw_object(struct jsonw *w)
{
	open_container(w, "{");
}

void jsonw_end_object(struct jsonw *w)
{
	close_container(w, "}");
}

void jsonw_array(struct jsonw *w)
{
	open_container(w, "[");
}

void jsonw_end_array(struct jsonw *w)
{
	close_container(w, "]");
}

/* A byte that stands for itself in a JSON string. */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/* S as a JSON string, runs of plain bytes copied at once (a list of ten
 * thousand jobs is megabytes of names and times). */
static void quoted(struct jsonw *w, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	raw_str(w, "\"");
	for (size_t i = 0; i < n;) {
		size_t run = i, len;
		char esc[6];
		const char *piece;

		while (run < n && plain(p[run]))
			run++;
		if (run > i) {
			jsonw_raw(w, s + i, run - i);
			i = run;
			continue;
		}
		i += json_text_piece(s + i, n - i, esc, &piece, &len);
		jsonw_raw(w, piece, len);
	}
	raw_str(w, "\"");
}

void jsonw_key(struct jsonw *w, const char *key)
{
	before_value(w);
	quoted(w, key, strlen(key));
	raw_str(w, ":");
	w->after_key = true;
}

void jsonw_text(struct jsonw *w, const char *s, size_t n)
{
	before_value(w);
	quoted(w, s, n);
}

void jsonw_string(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw_null(w);
		return;
	}
	jsonw_text(w, s, strlen(s));
}

static void scalar(struct jsonw *w, const char *text)
{
	before_value(w);
	raw_str(w, text);
}

void jsonw_u64(struct jsonw *w, uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof tmp, "%" PRIu64, v);
	scalar(w, tmp);
}

void jsonw_i64(struct jsonw *w, int64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof tmp, "%" PRId64, v);
	scalar(w, tmp);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	scalar(w, v ? "true" : "false");
}

void jsonw_null(struct jsonw *w)
{
	scalar(w, "null");
}

void jsonw_seconds(struct jsonw *w, int64_t ns)
{
	char tmp[40];

	tmp[format_seconds(tmp, ns)] = '\0';
	scalar(w, tmp);
}

void jsonw_time(struct jsonw *w, int64_t wall_ns)
{
	char tmp[48];
	size_t n = format_rfc3339(tmp + 1, wall_ns);

	tmp[0] = '"';
	tmp[n + 1] = '"';
	tmp[n + 2] = '\0';
	scalar(w, tmp);
}
