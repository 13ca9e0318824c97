/* SPDX-License-Identifier: MIT */
/* Unit tests for showtext (what tfdctl puts on a terminal): control
 * characters, C1 controls and bytes that are not UTF-8 escaped, a name's
 * backslash doubled, an output tail's lines kept; and a command's words
 * quoted as a shell reads them back. */
#include "harness.h"
#include "showtext.h"

#include <stdlib.h>
#include <string.h>

static void expect_escaped(const char *s, size_t n, bool lines, const char *want)
{
	struct buf b = { 0 };

	check(show_escaped(&b, s, n, lines) == 0, "show_escaped failed");
	check(b.len == strlen(want) && memcmp(b.s, want, b.len) == 0, "escaped: '%.*s', not '%s'",
	      (int)b.len, b.s ? b.s : "", want);
	buf_free(&b);
}

#define ESCAPED(s, lines, want) expect_escaped((s), sizeof(s) - 1, (lines), (want))

static void test_escaped(void)
{
	ESCAPED("plain name", false, "plain name");
	ESCAPED("\x1b[2Jx", false, "\\x1b[2Jx");
	ESCAPED("a\nb\tc", false, "a\\x0ab\\x09c");
	ESCAPED("a\nb\tc", true, "a\nb\tc");
	ESCAPED("a\rb", true, "a\\x0db");
	ESCAPED("del\x7f", false, "del\\x7f");
	ESCAPED("nul\0end", true, "nul\\x00end");
	ESCAPED("back\\slash", false, "back\\\\slash");
	ESCAPED("back\\slash", true, "back\\slash");
	/* CSI as a C1 control (U+009B) is escaped; U+00A0 is not. */
	ESCAPED("\xc2\x9b"
		"2J",
		false, "\\xc2\\x9b2J");
	ESCAPED("\xc2\xa0", false, "\xc2\xa0");
	ESCAPED("caf\xc3\xa9", false, "caf\xc3\xa9");
	ESCAPED("bad\xff", false, "bad\\xff");
	ESCAPED("cut\xe2\x82", false, "cut\\xe2\\x82");
}

static void expect_word(const char *s, size_t n, const char *want)
{
	struct buf b = { 0 };

	check(show_shell_word(&b, s, n) == 0, "show_shell_word failed");
	check(b.len == strlen(want) && memcmp(b.s, want, b.len) == 0, "word: '%.*s', not '%s'",
	      (int)b.len, b.s ? b.s : "", want);
	buf_free(&b);
}

#define WORD(s, want) expect_word((s), sizeof(s) - 1, (want))

static void test_shell_word(void)
{
	WORD("/usr/bin/backup", "/usr/bin/backup");
	WORD("--to=/srv", "--to=/srv");
	WORD("A=1", "'A=1'");
	WORD("", "''");
	WORD("two words", "'two words'");
	WORD("echo out-$TFD_SEQ; exit 0", "'echo out-$TFD_SEQ; exit 0'");
	WORD("it's", "'it'\\''s'");
	WORD("$(touch x)", "'$(touch x)'");
	WORD("*", "'*'");
	WORD("~", "'~'");
	WORD("a\x1b[2J", "$'a\\x1b[2J'");
	WORD("it's\n", "$'it\\'s\\x0a'");
	WORD("back\\\x01", "$'back\\\\\\x01'");
}

int main(void)
{
	test_escaped();
	test_shell_word();
	return tally_finish(&tally, "showtext");
}
