/* SPDX-License-Identifier: MIT */
/* Unit tests for json (the strict reader of the control socket's requests
 * and tfdctl's answers) and jsonw (the growing writer): what RFC 8259
 * accepts and refuses, members found by key past nested values, escapes
 * and surrogate pairs unescaped, the nesting limit; the writer's commas,
 * escapes and growth, and a round trip through both. */
#include "json.h"
#include "jsonw.h"
#include "harness.h"
#include "tsv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parses(const char *text)
{
	struct json_doc d;
	char err[256];
	int rc = json_parse(&d, text, strlen(text), err, sizeof err);

	json_free(&d);
	return rc == 0;
}

static void test_accepts_and_refuses(void)
{
	static const char *const good[] = {
		"{}",
		"[]",
		" {\"a\" : [1, -2.5e3, true, false, null, \"x\"]} ",
		"\"\"",
		"0",
		"-0.0E+1",
		"{\"a\":{\"b\":{\"c\":[[]]}}}",
		"\"\\u00e9\\ud83d\\ude00\\n\\\"\"",
		"\"caf\xc3\xa9\"",
	};
	static const char *const bad[] = {
		"",          " ",     "{",        "[1,]",         "{\"a\":1,}", "{a:1}",
		"{\"a\" 1}", "01",    "1.",       ".5",           "-",          "1e",
		"tru",       "nul",   "\"abc",    "\"a\tb\"",     "\"\\x\"",    "\"\\u12g4\"",
		"{} {}",     "[1 2]", "\"\xff\"", "\"\xc0\xaf\"", "'a'",        "+1",
		"NaN",
	};

	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		check(parses(good[i]), "refused: %s", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		check(!parses(bad[i]), "accepted: %s", bad[i]);
}

static void test_depth(void)
{
	char deep[2 * (JSON_DEPTH_MAX + 2) + 1];
	size_t n = JSON_DEPTH_MAX + 2;

	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	check(!parses(deep), "nesting past the limit accepted");
	memset(deep, '[', JSON_DEPTH_MAX);
	memset(deep + JSON_DEPTH_MAX, ']', JSON_DEPTH_MAX);
	deep[2 * JSON_DEPTH_MAX] = '\0';
	check(parses(deep), "nesting at the limit refused");
}

static void test_members(void)
{
	const char *text = "{\"skip\":{\"job\":\"inner\",\"x\":[1,{\"job\":2}]},"
			   "\"job\":\"back\\u0075p\",\"wait\":true,\"n\":-42,\"big\":1e3}";
	struct json_doc d;
	char err[256], *s;
	bool b = false;
	int64_t n = 0;

	check(json_parse(&d, text, strlen(text), err, sizeof err) == 0, "parse: %s", err);
	s = json_string(&d, json_get(&d, 0, "job"));
	check(s && strcmp(s, "backup") == 0, "job: %s", s ? s : "(null)");
	free(s);
	check(json_equals(&d, json_get(&d, 0, "job"), "backup"), "equals");
	check(json_bool(&d, json_get(&d, 0, "wait"), &b) && b, "wait");
	check(json_int(&d, json_get(&d, 0, "n"), &n) && n == -42, "n");
	check(!json_int(&d, json_get(&d, 0, "big"), &n), "1e3 taken as an integer");
	check(json_get(&d, 0, "none") == 0, "a missing key found");
	check(json_get(&d, json_get(&d, 0, "wait"), "job") == 0, "a key of a boolean");
	check(d.v[json_get(&d, 0, "skip")].count == 2, "members of skip");
	json_free(&d);
}

static void test_unescape(void)
{
	const char *text = "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\udc00\"";
	struct json_doc d;
	char err[256], *s;

	check(json_parse(&d, text, strlen(text), err, sizeof err) == 0, "parse: %s", err);
	s = json_string(&d, 0);
	check(s && strcmp(s, "a\"b\\c/d\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd") == 0,
	      "unescaped: %s", s ? s : "(null)");
	free(s);
	json_free(&d);
}

/* A \u0000 is a byte of the string: json_string stops at it, json_string_n
 * says the length past it (a name holding one is refused, a tail shown
 * whole). */
static void test_nul(void)
{
	const char *text = "\"a\\u0000b\"";
	struct json_doc d;
	char err[256], *s;
	size_t len = 0;

	check(json_parse(&d, text, strlen(text), err, sizeof err) == 0, "parse: %s", err);
	s = json_string_n(&d, 0, &len);
	check(s && len == 3 && memcmp(s, "a\0b", 4) == 0, "a NUL inside: %zu", len);
	check(s && strlen(s) == 1, "a C string ends at it");
	free(s);
	json_free(&d);
}

static void test_writer(void)
{
	struct jsonw w = { 0 };

	jsonw_object(&w);
	jsonw_key(&w, "ok");
	jsonw_bool(&w, true);
	jsonw_key(&w, "list");
	jsonw_array(&w);
	jsonw_u64(&w, 1);
	jsonw_i64(&w, -2);
	jsonw_object(&w);
	jsonw_end_object(&w);
	jsonw_array(&w);
	jsonw_end_array(&w);
	jsonw_null(&w);
	jsonw_end_array(&w);
	jsonw_key(&w, "s");
	jsonw_text(&w, "q\"\\\n\x01\x7f\xff", 7);
	jsonw_key(&w, "t");
	jsonw_seconds(&w, 1500000000);
	jsonw_key(&w, "at");
	jsonw_time(&w, INT64_C(1796292001000123456));
	jsonw_end_object(&w);
	check(!w.failed && strcmp(w.text, "{\"ok\":true,\"list\":[1,-2,{},[],null],"
					  "\"s\":\"q\\\"\\\\\\n\\u0001\\u007f\xef\xbf\xbd\","
					  "\"t\":1.5,\"at\":\"2026-12-03T10:00:01.000123Z\"}") == 0,
	      "written: %s", w.text);
	jsonw_reset(&w);
	check(w.len == 0 && w.text[0] == '\0', "reset");
	/* Backspace and form feed as the events write them (jsonesc.h). */
	jsonw_text(&w, "\b\f", 2);
	check(!w.failed && strcmp(w.text, "\"\\b\\f\"") == 0, "\\b, \\f: %s", w.text);
	jsonw_free(&w);
}

/* A large document written, read back, every element found. */
static void test_round_trip(void)
{
	struct jsonw w = { 0 };
	struct json_doc d;
	char err[256], name[32];
	size_t jobs, k = 0;
	bool all = true;

	jsonw_object(&w);
	jsonw_key(&w, "jobs");
	jsonw_array(&w);
	for (int i = 0; i < 20000; i++) {
		snprintf(name, sizeof name, "job-%d", i);
		jsonw_object(&w);
		jsonw_key(&w, "job");
		jsonw_string(&w, name);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	check(!w.failed, "writer failed");
	check(json_parse(&d, w.text, w.len, err, sizeof err) == 0, "parse: %s", err);
	jobs = json_get(&d, 0, "jobs");
	for (size_t i = jobs + 1; jobs && i < d.v[jobs].next; i = d.v[i].next, k++) {
		snprintf(name, sizeof name, "job-%zu", k);
		all = all && json_equals(&d, json_get(&d, i, "job"), name);
	}
	check(all && k == 20000, "%zu jobs read back", k);
	json_free(&d);
	jsonw_free(&w);
}

int main(void)
{
	test_accepts_and_refuses();
	test_depth();
	test_members();
	test_unescape();
	test_nul();
	test_writer();
	test_round_trip();
	return tally_finish(&tally, "json");
}
