/* SPDX-License-Identifier: MIT */
/* Unit tests for capture (--tag-output's line cutter): lines whole and in
 * order however the bytes are split across reads, empty lines kept, lines
 * over 64 KiB in pieces of exactly 64 KiB (a line of exactly 64 KiB, or a
 * multiple of it, is no more pieces than it must be: no empty line after
 * it), a last line without newline given at the end, NUL bytes kept; and a
 * random comparison against a reference cutter that sees the whole stream. */
#include "capture.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX CAPTURE_LINE_MAX

/* What came out: every line's bytes, each followed by one record mark
 * (a byte that no test input holds, so lines are told apart exactly). */
#define MARK '\x01'

struct sink {
	char *text;
	size_t len, cap;
	size_t lines;
	size_t longest;
};

static void sink_put(struct sink *s, const char *data, size_t len)
{
	if (s->len + len + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 1024;

		while (cap < s->len + len + 1)
			cap *= 2;
		s->text = realloc(s->text, cap);
		if (!s->text) {
			fprintf(stderr, "test_capture: out of memory\n");
			exit(1);
		}
		s->cap = cap;
	}
	memcpy(s->text + s->len, data, len);
	s->len += len;
}

static void on_line(void *arg, const char *line, size_t len)
{
	struct sink *s = arg;

	sink_put(s, line, len);
	sink_put(s, &(char){ MARK }, 1);
	s->lines++;
	if (len > s->longest)
		s->longest = len;
}

static void sink_free(struct sink *s)
{
	free(s->text);
	*s = (struct sink){ 0 };
}

/* Feeds DATA in chunks of CHUNK bytes (0: all at once), then finishes. */
static void cut(struct sink *out, const char *data, size_t len, size_t chunk)
{
	struct capture c = { 0 };
	int failed = 0;

	for (size_t off = 0; off < len;) {
		size_t n = chunk && chunk < len - off ? chunk : len - off;

		failed |= capture_feed(&c, data + off, n, on_line, out) != 0;
		off += n;
	}
	check(!failed, "a feed of chunks of %zu failed", chunk);
	capture_finish(&c, on_line, out);
	capture_free(&c);
}

/* The reference: the whole stream split at newlines; each line of more
 * than MAX bytes in pieces of MAX, the rest last; an empty line is one
 * empty line; after the last newline, nothing unless bytes are left. */
static void reference(struct sink *out, const char *data, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		size_t n;

		if (i < len && data[i] != '\n')
			continue;
		n = i - start;
		if (i == len && n == 0)
			break;
		if (n == 0)
			on_line(out, data + start, 0);
		for (size_t p = 0; p < n; p += MAX)
			on_line(out, data + start + p, n - p < MAX ? n - p : MAX);
		start = i + 1;
	}
}

/* Cuts DATA with several chunk sizes and compares with the reference. */
static void check_against_reference(const char *what, const char *data, size_t len)
{
	static const size_t chunks[] = { 0, 1, 7, 4096, MAX - 1, MAX, MAX + 1, 3 * MAX };
	struct sink want = { 0 };

	reference(&want, data, len);
	for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
		struct sink got = { 0 };

		/* Byte at a time over megabytes is slow and proves nothing new. */
		if (chunks[k] == 1 && len > 4 * MAX)
			continue;
		cut(&got, data, len, chunks[k]);
		check(got.lines == want.lines && got.len == want.len &&
			      (got.len == 0 || memcmp(got.text, want.text, got.len) == 0),
		      "%s, chunks of %zu: %zu lines of %zu bytes, want %zu of %zu", what, chunks[k],
		      got.lines, got.len, want.lines, want.len);
		sink_free(&got);
	}
	sink_free(&want);
}

/* Cuts TEXT (a C string) fed at once and byte by byte, and compares the
 * lines with WANT, lines separated by '|'. */
static void check_lines(const char *text, const char *want)
{
	size_t chunks[] = { 0, 1, 2 };

	for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
		struct sink got = { 0 };

		cut(&got, text, strlen(text), chunks[k]);
		for (size_t i = 0; i < got.len; i++)
			if (got.text[i] == MARK)
				got.text[i] = '|';
		sink_put(&got, "", 1);
		got.text[got.len - 1] = '\0';
		check(strcmp(got.text, want) == 0, "'%s' in chunks of %zu: '%s', want '%s'", text,
		      chunks[k], got.text, want);
		sink_free(&got);
	}
}

static void test_lines(void)
{
	check_lines("", "");
	check_lines("a\n", "a|");
	check_lines("a\nbc\n", "a|bc|");
	check_lines("\n", "|");
	check_lines("\n\n\n", "|||");
	check_lines("a\n\nb\n", "a||b|");
	/* A last line without newline comes out at the end, once. */
	check_lines("a\nlast", "a|last|");
	check_lines("last", "last|");
	check_lines("a\r\n", "a\r|");
}

static void test_nul_bytes(void)
{
	static const char data[] = { 'a', '\0', 'b', '\n', '\0', '\n' };
	struct sink got = { 0 };

	cut(&got, data, sizeof data, 1);
	check(got.lines == 2 && got.len == 6 && memcmp(got.text, "a\0b\x01\0\x01", 6) == 0,
	      "NUL bytes: %zu lines, %zu bytes", got.lines, got.len);
	sink_free(&got);
}

/* N bytes of 'x' (no newline), then TAIL. */
static char *long_line(size_t n, const char *tail, size_t *len)
{
	size_t t = strlen(tail);
	char *s = malloc(n + t);

	if (!s)
		exit(1);
	memset(s, 'x', n);
	memcpy(s + n, tail, t);
	*len = n + t;
	return s;
}

static size_t newlines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A line of N bytes and TAIL: PIECES lines, the longest MAX, every byte
 * kept, and as the reference cuts it. */
static void check_long(size_t n, const char *tail, size_t pieces)
{
	size_t len;
	char *s = long_line(n, tail, &len);
	struct sink got = { 0 };
	char what[64];

	cut(&got, s, len, 0);
	check(got.lines == pieces, "%zu bytes + '%s': %zu lines, want %zu", n, tail, got.lines,
	      pieces);
	check(got.longest <= MAX, "%zu bytes: a piece of %zu", n, got.longest);
	/* Every byte but the newlines, and one mark a line. */
	check(got.len == len - newlines(tail) + got.lines, "%zu bytes + '%s': %zu bytes out", n,
	      tail, got.len);
	snprintf(what, sizeof what, "%zu bytes + '%s'", n, tail[0] == '\n' ? "\\n" : tail);
	check_against_reference(what, s, len);
	sink_free(&got);
	free(s);
}

static void test_long_lines(void)
{
	/* 200 KiB: three pieces of 64 KiB and 8 KiB. */
	check_long(200 * 1024, "\n", 4);
	check_long(200 * 1024, "", 4);
	check_long(MAX - 1, "\n", 1);
	/* Exactly 64 KiB, or twice: no empty line after the last piece. */
	check_long(MAX, "\n", 1);
	check_long(MAX, "", 1);
	check_long(2 * MAX, "\n", 2);
	check_long(MAX + 1, "\n", 2);
	check_long(MAX, "\nnext\n", 2);
	check_long(MAX, "y\n", 2);
}

/* The piece sizes of the 200 KiB line, and its newline fed alone after a
 * full 64 KiB (the read boundary falls between the line and its end). */
static void test_piece_sizes(void)
{
	struct capture c = { 0 };
	struct sink got = { 0 };
	size_t len;
	char *s = long_line(MAX, "", &len);

	check(capture_feed(&c, s, len, on_line, &got) == 0, "feed 64 KiB");
	check(got.lines == 0, "a full 64 KiB waits for the next byte: %zu lines", got.lines);
	check(capture_feed(&c, "\n", 1, on_line, &got) == 0, "feed the newline");
	check(got.lines == 1 && got.len == MAX + 1, "64 KiB then its newline: %zu lines, %zu bytes",
	      got.lines, got.len);
	check(capture_feed(&c, s, len, on_line, &got) == 0 &&
		      capture_feed(&c, "z", 1, on_line, &got) == 0,
	      "feed 64 KiB and one byte");
	check(got.lines == 2 && got.longest == MAX, "64 KiB and more: the piece is out (%zu lines)",
	      got.lines);
	capture_finish(&c, on_line, &got);
	check(got.lines == 3 && got.len == 2 * (MAX + 1) + 2 && got.text[got.len - 2] == 'z',
	      "the rest at the end: %zu lines, %zu bytes", got.lines, got.len);
	capture_finish(&c, on_line, &got);
	check(got.lines == 3, "a second finish gives nothing: %zu lines", got.lines);
	/* The same capture serves a new stream after finish. */
	check(capture_feed(&c, "again\n", 6, on_line, &got) == 0 && got.lines == 4,
	      "reuse after finish: %zu lines", got.lines);
	capture_free(&c);
	check(c.line.s == NULL && c.line.len == 0 && c.line.cap == 0, "capture_free empties it");
	sink_free(&got);
	free(s);
}

/* Random streams of lines whose lengths sit around the piece size and far
 * from it, some with a newline, some not, cut in random chunks. */
static void test_random(void)
{
	static const size_t lens[] = { 0, 1, 2, 100, MAX - 1, MAX, MAX + 1, 2 * MAX, 2 * MAX + 5 };
	unsigned seed = 12;

	srand(seed);
	for (int round = 0; round < 60; round++) {
		size_t cap = 8 * MAX, len = 0, nlines = (size_t)(rand() % 8);
		char *s = malloc(cap), what[48];

		if (!s)
			exit(1);
		for (size_t i = 0; i < nlines; i++) {
			size_t n = lens[rand() % (int)(sizeof lens / sizeof *lens)];

			if (rand() % 3 == 0)
				n = (size_t)rand() % 300;
			if (len + n + 1 > cap)
				break;
			for (size_t k = 0; k < n; k++)
				s[len + k] = (char)('a' + (len + k) % 26);
			len += n;
			if (i + 1 < nlines || rand() % 2)
				s[len++] = '\n';
		}
		snprintf(what, sizeof what, "random stream %d (%zu bytes)", round, len);
		check_against_reference(what, s, len);
		{
			/* And in chunks of random sizes. */
			struct capture c = { 0 };
			struct sink got = { 0 }, want = { 0 };

			for (size_t off = 0; off < len;) {
				size_t n = 1 + (size_t)rand() % (2 * MAX);

				if (n > len - off)
					n = len - off;
				capture_feed(&c, s + off, n, on_line, &got);
				off += n;
			}
			capture_finish(&c, on_line, &got);
			capture_free(&c);
			reference(&want, s, len);
			check(got.len == want.len &&
				      (got.len == 0 || memcmp(got.text, want.text, got.len) == 0),
			      "%s in random chunks: %zu lines, want %zu", what, got.lines,
			      want.lines);
			sink_free(&got);
			sink_free(&want);
		}
		free(s);
	}
}

int main(void)
{
	test_lines();
	test_nul_bytes();
	test_long_lines();
	test_piece_sizes();
	test_random();
	return tally_finish(&tally, "capture");
}
