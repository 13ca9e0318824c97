/* SPDX-License-Identifier: MIT */
/* Unit tests for mail (MAILTO's message): MAILTO, MAILFROM and SENDMAIL
 * read from a line's environment (unset and empty mean none); the body
 * kept up to MAIL_BODY_MAX whatever the sizes of the reads, the rest
 * counted; the message's headers as cron writes them, line ends in a
 * header value never starting a header of their own; the cut note. */
#include "harness.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_mail_job(void)
{
	char *unset[] = { "PATH=/bin", NULL };
	char *empty[] = { "MAILTO=", NULL };
	char *full[] = { "MAILTO=a@x, b", "MAILFROM=ops@y", "SENDMAIL=/opt/sm", NULL };
	char *defaults[] = { "MAILTOX=no", "MAILTO=a", "MAILFROM=", "SENDMAIL=", NULL };
	struct mail_job *m;
	bool none;

	check(!mail_job_new(NULL, "u", NULL, false, &none) && none, "no environment: no mail");
	check(!mail_job_new(unset, "u", NULL, false, &none) && none, "no MAILTO: no mail");
	check(!mail_job_new(empty, "u", NULL, false, &none) && none, "MAILTO=\"\": no mail");
	/* A file cron reads: no MAILTO mails the user; MAILTO="" still none. */
	check(!mail_job_new(empty, "u", NULL, true, &none) && none, "MAILTO=\"\" in cron's file");
	m = mail_job_new(unset, "carol", "x", true, &none);
	check(m && !none && strcmp(m->to, "carol") == 0 && strcmp(m->from, "carol") == 0,
	      "no MAILTO in cron's file: to the user");
	check(m && m->env && strcmp(m->env[0], "PATH=/bin") == 0 && !m->env[1],
	      "the file's variables kept for X-Cron-Env");
	mail_job_free(m);
	m = mail_job_new(NULL, "carol", "x", true, &none);
	check(m && strcmp(m->to, "carol") == 0 && m->env && !m->env[0],
	      "no environment in cron's file: to the user, no X-Cron-Env");
	mail_job_free(m);
	m = mail_job_new(full, "alice", "backup.sh", true, &none);
	check(m && strcmp(m->to, "a@x, b") == 0, "MAILTO set wins over the user");
	mail_job_free(m);
	m = mail_job_new(full, "alice", "backup.sh", false, &none);
	check(m && !none, "MAILTO set: a mail");
	if (m) {
		check(strcmp(m->to, "a@x, b") == 0, "to '%s'", m->to);
		check(strcmp(m->from, "ops@y") == 0, "from '%s'", m->from);
		check(strcmp(m->user, "alice") == 0, "user '%s'", m->user);
		check(strcmp(m->sendmail, "/opt/sm") == 0, "sendmail '%s'", m->sendmail);
		check(strcmp(m->command, "backup.sh") == 0, "command '%s'", m->command);
	}
	mail_job_free(m);
	m = mail_job_new(defaults, "bob", NULL, false, &none);
	check(m != NULL, "MAILTO=a: a mail, MAILTOX is another name");
	if (m) {
		check(strcmp(m->to, "a") == 0, "to '%s'", m->to);
		check(strcmp(m->from, "bob") == 0, "an empty MAILFROM is the user: '%s'", m->from);
		check(strcmp(m->sendmail, MAIL_SENDMAIL) == 0, "an empty SENDMAIL is the default");
		check(m->command == NULL, "a tfd line has no command");
	}
	mail_job_free(m);
}

/* Feeds TOTAL bytes of a repeating pattern in reads of CHUNK bytes. */
static void feed(struct mail_body *b, size_t total, size_t chunk)
{
	char *buf = malloc(chunk);

	for (size_t i = 0; i < chunk; i++)
		buf[i] = (char)('a' + i % 26);
	for (size_t done = 0; done < total; done += chunk)
		mail_body_add(b, buf, total - done < chunk ? total - done : chunk);
	free(buf);
}

static void test_body_cap(void)
{
	const size_t chunks[] = { 1, 7, 4096, 65536, MAIL_BODY_MAX, MAIL_BODY_MAX + 1 };
	const size_t totals[] = {
		0, 1, MAIL_BODY_MAX - 1, MAIL_BODY_MAX, MAIL_BODY_MAX + 1, 3 * MAIL_BODY_MAX + 5
	};

	for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
		for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
			struct mail_body b = { 0 };
			size_t want = totals[t] < MAIL_BODY_MAX ? totals[t] : MAIL_BODY_MAX;

			feed(&b, totals[t], chunks[c]);
			check(b.text.len == want && b.cut == totals[t] - want &&
				      b.text.cap <= MAIL_BODY_MAX,
			      "%zu bytes in reads of %zu: kept %zu cut %llu, want %zu", totals[t],
			      chunks[c], b.text.len, (unsigned long long)b.cut, want);
			check(mail_body_empty(&b) == (totals[t] == 0), "empty iff nothing read");
			mail_body_free(&b);
		}
}

/* The message for M's mail of BODY (NUL-terminated, so strstr works). */
static char *compose(const struct mail_job *m, const char *job, const struct mail_body *b)
{
	char *msg = NULL;
	size_t len = 0;

	check(mail_compose(m, "host1", job, b, &msg, &len) == 0, "compose");
	check(msg && strlen(msg) == len, "length %zu", len);
	return msg;
}

static void test_compose(void)
{
	struct mail_job m = { .to = "a@x, b",
			      .from = "ops@y",
			      .user = "alice",
			      .sendmail = "/x",
			      .command = "backup.sh --full" };
	struct mail_body b = { 0 };
	char *msg;

	mail_body_add(&b, "line 1\nline 2\n", 14);
	msg = compose(&m, "backup", &b);
	check(msg && strcmp(msg, "From: \"(Cron Daemon)\" <ops@y>\n"
				 "To: a@x, b\n"
				 "Subject: Cron <alice@host1> backup.sh --full\n"
				 "MIME-Version: 1.0\n"
				 "Content-Type: text/plain; charset=UTF-8\n"
				 "Content-Transfer-Encoding: 8bit\n"
				 "Auto-Submitted: auto-generated\n"
				 "Precedence: bulk\n"
				 "X-Tfd-Job: backup\n"
				 "\n"
				 "line 1\nline 2\n") == 0,
	      "the whole message:\n%s", msg ? msg : "");
	free(msg);
	/* A tfd line: the Subject names the job. */
	m.command = NULL;
	msg = compose(&m, "report", &b);
	check(msg && strstr(msg, "\nSubject: Cron <alice@host1> report\n"), "tfd line: %s", msg);
	free(msg);
	/* The file's variables, one X-Cron-Env header each, in its order,
	 * after the other headers; a line end in a value is a space. */
	{
		char *env[] = { "MAILTO=a@x, b", "PATH=/usr/bin:/bin", "X=1\nBcc: evil", NULL };

		m.env = env;
		msg = compose(&m, "report", &b);
		check(msg && strstr(msg, "X-Tfd-Job: report\n"
					 "X-Cron-Env: <MAILTO=a@x, b>\n"
					 "X-Cron-Env: <PATH=/usr/bin:/bin>\n"
					 "X-Cron-Env: <X=1 Bcc: evil>\n"
					 "\nline 1\n"),
		      "X-Cron-Env: %s", msg);
		free(msg);
		m.env = NULL;
	}
	mail_body_free(&b);
}

static void test_header_injection(void)
{
	struct mail_job m = { .to = "a\nBcc: evil",
			      .from = "f\r\nX: y",
			      .user = "u",
			      .sendmail = "/x",
			      .command = "echo a\nBcc: evil2" };
	struct mail_body b = { 0 };
	char *msg;

	mail_body_add(&b, "Bcc: in the body\n", 17);
	msg = compose(&m, "j", &b);
	if (!msg)
		return;
	/* The headers alone: the body may say what it likes. */
	*strstr(msg, "\n\n") = '\0';
	check(!strstr(msg, "\nBcc:") && !strstr(msg, "\nX: y"), "no header of a value's own: %s",
	      msg);
	check(strstr(msg, "\nTo: a Bcc: evil\n") && strstr(msg, "<f  X: y>") &&
		      strstr(msg, "> echo a Bcc: evil2"),
	      "line ends as spaces: %s", msg);
	free(msg);
	mail_body_free(&b);
}

static void test_cut_note(void)
{
	struct mail_job m = { .to = "t", .from = "f", .user = "u", .sendmail = "/x" };
	struct mail_body b = { 0 };
	char note[128], want[256];
	char *msg;

	feed(&b, MAIL_BODY_MAX + 1000, 4096);
	mail_cut_note(&b, note, sizeof note);
	/* clang-format off */
	check(strcmp(note, "[tfd: 1000 more bytes of output were cut: a mail holds the first 262144]") == 0,
	      "note '%s'", note);
	/* clang-format on */
	msg = compose(&m, "j", &b);
	/* The kept part ends mid-line: a newline comes before the note. */
	snprintf(want, sizeof want, "\n%s\n", note);
	check(msg && strlen(msg) > strlen(want) &&
		      strcmp(msg + strlen(msg) - strlen(want), want) == 0 &&
		      msg[strlen(msg) - strlen(want) - 1] != '\n',
	      "the message ends with the note");
	free(msg);
	mail_body_free(&b);
	/* Nothing kept after the headers: the note alone. */
	b.cut = 5;
	msg = compose(&m, "j", &b);
	check(msg && strstr(msg,
			    "\n\n[tfd: 5 more bytes of output were cut: a mail holds the first 0]\n"),
	      "a body of only the note: %s", msg);
	free(msg);
}

int main(void)
{
	test_mail_job();
	test_body_cap();
	test_compose();
	test_header_injection();
	test_cut_note();
	return tally_finish(&tally, "mail");
}
