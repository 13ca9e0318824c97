/* SPDX-License-Identifier: MIT */
#include "showtext.h"

#include <string.h>

#include "utf8.h"

/* At P, with N > 0 bytes left: the length of the next unit (one byte, or
 * one UTF-8 sequence, or an invalid sequence's maximal part), and in
 * *ESCAPE whether it is shown escaped. */
static size_t next_unit(const unsigned char *p, size_t n, bool lines, bool *escape)
{
	long k;

	if (*p < 0x80) {
		*escape = *p < 0x20 || *p == 0x7f;
		if (lines && (*p == '\n' || *p == '\t'))
			*escape = false;
		return 1;
	}
	k = utf8_sequence(p, n);
	/* U+0080..U+009F, the C1 controls (CSI is U+009B): some terminals
	 * act on them as on their ESC forms. */
	*escape = k < 0 || (k == 2 && p[0] == 0xc2 && p[1] < 0xa0);
	return (size_t)(k < 0 ? -k : k);
}

static int put_hex(struct buf *out, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		char e[4] = { '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };

		if (buf_put(out, e, sizeof e) != 0)
			return -1;
	}
	return 0;
}

int show_escaped(struct buf *out, const char *s, size_t n, bool lines)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		bool escape;
		size_t k = next_unit(p + i, n - i, lines, &escape);
		int rc;

		if (escape)
			rc = put_hex(out, p + i, k);
		else if (p[i] == '\\' && !lines)
			rc = buf_put(out, "\\\\", 2);
		else
			rc = buf_put(out, p + i, k);
		if (rc != 0)
			return -1;
		i += k;
	}
	return 0;
}

/* A byte that no shell treats specially anywhere in a word ('=' aside:
 * see plain_word). */
static bool plain_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("@%+=:,./-_", c));
}

/* S is shown as it is: plain bytes only, and an '=' only after a leading
 * '-' (an option's "--name=value"): "A=1" first on a line would be an
 * assignment, not a command. */
static bool plain_word(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!plain_byte((unsigned char)s[i]) || (s[i] == '=' && s[0] != '-'))
			return false;
	return n > 0;
}

/* Whether show_escaped would escape a byte of S. */
static bool needs_escape(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		bool escape;

		i += next_unit(p + i, n - i, false, &escape);
		if (escape)
			return true;
	}
	return false;
}

/* S quoted: OPEN, the runs between its quotes (with ESCAPED, escaped as
 * show_escaped escapes a name), each quote as QUOTE, and a closing quote.
 * '...' writes a quote as '\'' (the quotes closed, one escaped, opened
 * again); $'...' as \'. */
static int put_quoted(struct buf *out, const char *s, size_t n, const char *open, const char *quote,
		      bool escaped)
{
	size_t from = 0;

	if (buf_put(out, open, strlen(open)) != 0)
		return -1;
	for (size_t i = 0; i <= n; i++) {
		int rc;

		if (i < n && s[i] != '\'')
			continue;
		rc = escaped ? show_escaped(out, s + from, i - from, false)
			     : buf_put(out, s + from, i - from);
		if (rc != 0 || (i < n && buf_put(out, quote, strlen(quote)) != 0))
			return -1;
		from = i + 1;
	}
	return buf_put(out, "'", 1);
}

int show_shell_word(struct buf *out, const char *s, size_t n)
{
	if (plain_word(s, n))
		return buf_put(out, s, n);
	if (needs_escape(s, n))
		return put_quoted(out, s, n, "$'", "\\'", true);
	return put_quoted(out, s, n, "'", "'\\''", false);
}
