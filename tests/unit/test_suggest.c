/* SPDX-License-Identifier: MIT */
/* Unit tests for suggest: the nearest name to a mistyped one, or none. */
#include <string.h>

#include "harness.h"
#include "suggest.h"

static const char *const options[] = {
	"interval", "delay", "at", "count", "calendar", "cron", "dry-run", "json",
	"quiet", "verbose", "timeout", "retry", "retry-delay", "jobs", "on-stop", NULL, "for",
};

#define N (sizeof options / sizeof options[0])

static void expect(const char *word, const char *want, int line)
{
	const char *got = suggest_nearest(word, options, N);

	tally_check(&tally, got == want || (got && want && strcmp(got, want) == 0), __FILE__,
		    line, "'%s': got '%s', want '%s'", word, got ? got : "(none)",
		    want ? want : "(none)");
}

int main(void)
{
	expect("intreval", "interval", __LINE__);   /* two letters swapped */
	expect("interval", "interval", __LINE__);
	expect("INTERVAL", "interval", __LINE__);   /* case */
	expect("inteval", "interval", __LINE__);    /* one dropped */
	expect("intervall", "interval", __LINE__);  /* one added */
	expect("jsno", "json", __LINE__);
	expect("jsn", "json", __LINE__);
	expect("js", NULL, __LINE__);              /* too short for a guess */
	expect("dry", "dry-run", __LINE__);        /* the one name it begins */
	expect("retr", "retry", __LINE__);         /* nearest wins over a prefix */
	expect("ret", NULL, __LINE__);            /* two edits, and two names begin so */
	expect("timout", "timeout", __LINE__);
	expect("onstop", "on-stop", __LINE__);
	expect("xyzzy", NULL, __LINE__);
	expect("", NULL, __LINE__);
	expect("calender", "calendar", __LINE__);
	expect("cro", "cron", __LINE__);
	expect("fr", "for", __LINE__);
	expect("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL,
	       __LINE__);
	return tally_finish(&tally, "suggest");
}
