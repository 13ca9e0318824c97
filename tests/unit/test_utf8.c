/* SPDX-License-Identifier: MIT */
/* Unit tests for utf8 (the one validator of report.c and metrics.c): every
 * lead byte against a continuation byte, the second byte's bounds of
 * E0/ED/F0/F4, sequences cut by the end of the text, and the maximal
 * invalid prefixes that become one U+FFFD each. */
#include "harness.h"
#include "utf8.h"

#include <string.h>

static void expect(const char *s, size_t n, long want, const char *what)
{
	long got = utf8_sequence((const unsigned char *)s, n);

	check(got == want, "%s: %ld, not %ld", what, got, want);
}

#define EXPECT(s, want, what) expect((s), sizeof(s) - 1, (want), (what))

/* Every lead byte followed by three 0x90s: a continuation byte that ED
 * and F0 accept second, E0 (A0..BF) and F4 (80..8F) do not. */
static void test_lead_bytes(void)
{
	for (int c = 0; c < 256; c++) {
		unsigned char s[4] = { (unsigned char)c, 0x90, 0x90, 0x90 };
		long want;

		if (c < 0x80)
			want = 1;
		else if (c < 0xc2 || c > 0xf4)
			want = -1;
		else if (c < 0xe0)
			want = 2;
		else if (c < 0xf0)
			want = c == 0xe0 ? -1 : 3; /* E0 needs A0..BF next */
		else
			want = c == 0xf4 ? -1 : 4; /* F4 needs 80..8F next */
		check(utf8_sequence(s, 4) == want, "lead 0x%02x: %ld, not %ld", c,
		      utf8_sequence(s, 4), want);
	}
}

static void test_bounds(void)
{
	EXPECT("\xc3\xa9", 2, "e acute");
	EXPECT("\xe2\x82\xac", 3, "euro sign");
	EXPECT("\xf0\x9f\x98\x80", 4, "emoji");
	EXPECT("\xef\xbf\xbf", 3, "U+FFFF");
	EXPECT("\xf4\x8f\xbf\xbf", 4, "U+10FFFF, the last code point");
	EXPECT("\xed\x9f\xbf", 3, "U+D7FF, below the surrogates");
	EXPECT("\xee\x80\x80", 3, "U+E000, above the surrogates");
	EXPECT("\xe0\xa0\x80", 3, "U+0800, the shortest 3-byte form");
	EXPECT("\xf0\x90\x80\x80", 4, "U+10000, the shortest 4-byte form");
	EXPECT("\xc0\xaf", -1, "overlong 2-byte '/'");
	EXPECT("\xc1\xbf", -1, "overlong 2-byte");
	EXPECT("\xe0\x9f\xbf", -1, "overlong 3-byte");
	EXPECT("\xf0\x8f\xbf\xbf", -1, "overlong 4-byte");
	EXPECT("\xed\xa0\x80", -1, "a surrogate");
	EXPECT("\xf4\x90\x80\x80", -1, "past U+10FFFF");
	EXPECT("\xf5\x80\x80\x80", -1, "lead byte F5");
	EXPECT("\x80", -1, "a stray continuation byte");
	EXPECT("\xff", -1, "0xff");
}

/* An invalid sequence's maximal prefix: as far as the bytes could still
 * have begun a valid one. */
static void test_maximal_prefix(void)
{
	EXPECT("\xe2\x82z", -2, "a 3-byte sequence cut by a letter");
	EXPECT("\xf0\x9f\x98z", -3, "a 4-byte sequence cut by a letter");
	EXPECT("\xc3z", -1, "a 2-byte sequence cut by a letter");
	expect("\xf0\x9f\x98\x80", 3, -3, "a 4-byte sequence cut by the end");
	expect("\xe2\x82\xac", 1, -1, "a lone lead byte at the end");
	expect("\xe2\x82\xac", 2, -2, "two of three bytes at the end");
	/* A NUL ends the text for C strings but is a byte here like any. */
	expect("a\0b", 3, 1, "plain ASCII");
	expect("\0", 1, 1, "NUL");
}

/* A name that is not UTF-8, as a JSON request carries it: each maximal
 * invalid part one U+FFFD, the rest byte for byte. */
static void test_shown_as(void)
{
	static const char shown[] = "a" UTF8_REPLACEMENT "b";

	/* clang-format off */
	check(utf8_shown_as("a\xff" "b", 3, shown, sizeof shown - 1), "one bad byte");
	check(utf8_shown_as("a\xe2\x82" "b", 4, shown, sizeof shown - 1),
	      "a cut sequence is one U+FFFD");
	check(!utf8_shown_as("a\xff\xff" "b", 4, shown, sizeof shown - 1),
	      "two bad bytes are two U+FFFD");
	/* clang-format on */
	check(utf8_shown_as("a\xc3\xa9", 3, "a\xc3\xa9", 3), "valid text is itself");
	check(!utf8_shown_as("a\xc3\xa9", 3, "a\xc3\xa9x", 4), "a longer text is not it");
	check(!utf8_shown_as("ab", 2, "a", 1), "a shorter text is not it");
	check(utf8_shown_as("", 0, "", 0), "empty");
	check(!utf8_shown_as("a\0b", 3, "a", 1), "a NUL is a byte, not an end");
}

int main(void)
{
	test_lead_bytes();
	test_bounds();
	test_maximal_prefix();
	test_shown_as();
	return tally_finish(&tally, "utf8");
}
