/* SPDX-License-Identifier: MIT */
/* test_jobsfile: the jobs file parser (jobsfile.h) on every line kind, the
 * environment's positional rule, cron's '%' handling, tfd lines' quoting,
 * every error message, default names, and running out of memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jobsfile.h"
#include "shellword.h"

static int str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

/* clang-format off */
#define EXPECT_STR(got, want)                                               \
	check(str_eq((got), (want)), "%s: got '%s', want '%s'", #got,         \
	      or_null(got), or_null(want))

#define EXPECT_INT(got, want)                                               \
	check((long)(got) == (long)(want), "%s: got %ld, want %ld", #got,    \
	      (long)(got), (long)(want))
/* clang-format on */

/* Parses TEXT (its strlen) as the file "jobs"; NULL (and a failure) when
 * it does not parse. */
static struct jobs_file *parse_ok_at(const char *text, int line)
{
	struct jobs_file *f = NULL;
	char err[512];

	if (jobs_parse("jobs", text, strlen(text), &f, err, sizeof(err))) {
		tally_check(&tally, 0, __FILE__, line, "'%s' did not parse: %s", text, err);
		return NULL;
	}
	return f;
}

#define parse_ok(text) parse_ok_at((text), __LINE__)

/* Checks that TEXT (LEN bytes) is refused with the message WANT. */
static void expect_error_at(const char *text, size_t len, const char *want, int line)
{
	struct jobs_file *f = NULL;
	char err[512] = "";
	int rc = jobs_parse("jobs", text, len, &f, err, sizeof(err));

	tally_check(&tally, rc == -1 && strcmp(err, want) == 0, __FILE__, line,
		    "'%.*s': rc %d, got '%s', want '%s'", (int)len, text, rc, err, want);
	if (rc == 0)
		jobs_free(f);
}

/* clang-format off */
#define EXPECT_ERROR(text, want) \
	expect_error_at((text), strlen(text), (want), __LINE__)
/* clang-format on */

/* The environment as one string, "A=1 B=2", for comparisons. */
static const char *env_string(char **env)
{
	static char buf[1024];
	size_t o = 0;

	buf[0] = '\0';
	for (; *env && o < sizeof(buf); env++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? " " : "", *env);
	return buf;
}

/* The words as one string, "<a> <b c>". */
static const char *argv_string(const struct jobs_entry *e)
{
	static char buf[1024];
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < e->argc && o < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s<%s>", i ? " " : "", e->argv[i]);
	return buf;
}

/* Line kinds */

static void test_kinds(void)
{
	struct jobs_file *f = parse_ok("# a comment\n"
				       "\n"
				       "   \t# a comment after blanks\n"
				       "PATH=/usr/bin:/bin\n"
				       "*/5 *  *\t* *  poll-feeds --quiet\n"
				       "@daily backup.sh --full\n"
				       "  @reboot\twarm-cache.sh\n"
				       "--name report --calendar 'Mon..Fri 09:00' -- ./report.sh\n"
				       "   \n");

	if (!f)
		return;
	EXPECT_INT(f->n, 4);
	EXPECT_INT(f->entries[0].kind, JOBS_CRONTAB);
	EXPECT_INT(f->entries[0].line, 5);
	EXPECT_STR(f->entries[0].text, "*/5 *  *\t* *  poll-feeds --quiet");
	EXPECT_STR(f->entries[0].schedule, "*/5 * * * *");
	EXPECT_STR(f->entries[0].command, "poll-feeds --quiet");
	EXPECT_STR(f->entries[0].input, NULL);
	check(f->entries[0].argv == NULL, "crontab line has argv");
	EXPECT_STR(f->entries[0].shell, "/bin/sh");
	EXPECT_STR(f->entries[0].cron_tz, NULL);
	EXPECT_STR(env_string(f->entries[0].env), "PATH=/usr/bin:/bin");

	EXPECT_INT(f->entries[1].kind, JOBS_CRONTAB);
	EXPECT_STR(f->entries[1].schedule, "@daily");
	EXPECT_STR(f->entries[1].command, "backup.sh --full");

	EXPECT_INT(f->entries[2].kind, JOBS_REBOOT);
	EXPECT_INT(f->entries[2].line, 7);
	EXPECT_STR(f->entries[2].text, "  @reboot\twarm-cache.sh");
	EXPECT_STR(f->entries[2].schedule, NULL);
	EXPECT_STR(f->entries[2].command, "warm-cache.sh");

	EXPECT_INT(f->entries[3].kind, JOBS_TFD);
	EXPECT_INT(f->entries[3].line, 8);
	EXPECT_STR(argv_string(&f->entries[3]),
		   "<--name> <report> <--calendar> <Mon..Fri 09:00> <--> <./report.sh>");
	EXPECT_INT(f->entries[3].argc, 6);
	check(f->entries[3].argv[6] == NULL, "argv not NULL-terminated");
	EXPECT_STR(f->entries[3].command, NULL);
	EXPECT_STR(f->entries[3].schedule, NULL);
	jobs_free(f);
}

static void test_empty_files(void)
{
	static const char *const files[] = { "", "\n", "# only\n\n  # comments", "A=1\n",
					     " \t \n\r\n" };

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		struct jobs_file *f = parse_ok(files[i]);

		if (f)
			EXPECT_INT(f->n, 0);
		jobs_free(f);
	}
}

static void test_nicknames(void)
{
	static const char *const names[] = { "@yearly", "@annually", "@monthly", "@weekly",
					     "@daily",  "@midnight", "@hourly" };
	char line[64];

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct jobs_file *f;

		snprintf(line, sizeof(line), "%s\tcmd x\n", names[i]);
		f = parse_ok(line);
		if (!f)
			continue;
		EXPECT_INT(f->entries[0].kind, JOBS_CRONTAB);
		EXPECT_STR(f->entries[0].schedule, names[i]);
		EXPECT_STR(f->entries[0].command, "cmd x");
		jobs_free(f);
	}
}

/* The fields' values are passed on unchecked, positionally as cronie
 * takes them: the lead's cron_parse names a bad one. */
static void test_fields_unchecked(void)
{
	struct jobs_file *f = parse_ok("99 x-y mon,JAN 1/0 * cmd\n0 0 30 2 * never\n");

	if (!f)
		return;
	EXPECT_STR(f->entries[0].schedule, "99 x-y mon,JAN 1/0 *");
	EXPECT_STR(f->entries[0].command, "cmd");
	EXPECT_STR(f->entries[1].schedule, "0 0 30 2 *");
	jobs_free(f);
	/* Names of months and weekdays, steps, ranges and lists are fields. */
	f = parse_ok("0 0 1-5/2 jan-mar,dec Mon-fri echo\n");
	if (f)
		EXPECT_STR(f->entries[0].schedule, "0 0 1-5/2 jan-mar,dec Mon-fri");
	jobs_free(f);
}

/* cronie's '-' before a crontab line (do not log the run) is taken and
 * dropped; the text keeps it. */
static void test_dont_log_mark(void)
{
	struct jobs_file *f = parse_ok("-*/5 * * * * a\n-@reboot b\n-0 1 * * * c\n");

	if (!f)
		return;
	EXPECT_INT(f->n, 3);
	EXPECT_STR(f->entries[0].schedule, "*/5 * * * *");
	EXPECT_STR(f->entries[0].text, "-*/5 * * * * a");
	EXPECT_INT(f->entries[1].kind, JOBS_REBOOT);
	EXPECT_STR(f->entries[1].command, "b");
	EXPECT_STR(f->entries[2].schedule, "0 1 * * *");
	jobs_free(f);
}

static void test_comments_and_hashes(void)
{
	struct jobs_file *f = parse_ok("\t # off\n"
				       "0 * * * * echo a # b\n"
				       "X=a#b # c\n"
				       "--name h#1 -- echo #x\n"
				       "@daily cmd\n");

	if (!f)
		return;
	EXPECT_INT(f->n, 3);
	EXPECT_STR(f->entries[0].command, "echo a # b");
	EXPECT_STR(argv_string(&f->entries[1]), "<--name> <h#1> <--> <echo> <#x>");
	EXPECT_STR(env_string(f->entries[2].env), "X=a#b # c");
	jobs_free(f);
}

/* Line ends */

static void test_line_ends(void)
{
	struct jobs_file *f = parse_ok("A=1\r\n"
				       "B = \"x y\" \r\n"
				       "\r\n"
				       "# c\r\n"
				       "* * * * * cmd %in\r\n"
				       "--delay 1s -- true\r\n"
				       "@hourly last");

	if (!f)
		return;
	EXPECT_INT(f->n, 3);
	EXPECT_STR(env_string(f->entries[0].env), "A=1 B=x y");
	EXPECT_STR(f->entries[0].text, "* * * * * cmd %in");
	EXPECT_STR(f->entries[0].command, "cmd ");
	EXPECT_STR(f->entries[0].input, "in\n");
	EXPECT_INT(f->entries[0].line, 5);
	EXPECT_STR(argv_string(&f->entries[1]), "<--delay> <1s> <--> <true>");
	EXPECT_INT(f->entries[2].line, 7);
	EXPECT_STR(f->entries[2].command, "last");
	EXPECT_STR(f->entries[2].text, "@hourly last");
	jobs_free(f);

	/* Only the '\r' just before the end goes. */
	f = parse_ok("@daily a\rb\r\r\n");
	if (f)
		EXPECT_STR(f->entries[0].command, "a\rb\r");
	jobs_free(f);
}

static void test_long_lines(void)
{
	size_t n = JOBS_LINE_MAX + 1;
	char *text = malloc(n + 16), want[128];
	struct jobs_file *f = NULL;

	if (!text)
		return;
	/* "@daily x...x": exactly the longest line there may be. */
	memcpy(text, "@daily ", 7);
	memset(text + 7, 'x', JOBS_LINE_MAX - 7);
	memcpy(text + JOBS_LINE_MAX, "\r\n", 3);
	f = parse_ok(text);
	if (f)
		EXPECT_INT(strlen(f->entries[0].command), JOBS_LINE_MAX - 7);
	jobs_free(f);
	text[JOBS_LINE_MAX] = 'x';
	snprintf(want, sizeof(want), "jobs:1: line too long: %zu bytes, at most %d", n,
		 JOBS_LINE_MAX);
	expect_error_at(text, n, want, __LINE__);
	free(text);
}

static void test_nul_bytes(void)
{
	static const char text[] = "A=1\n@daily ab\0c\n";
	static const char comment[] = "# x\0\n";

	expect_error_at(text, sizeof(text) - 1, "jobs:2: NUL byte at column 10", __LINE__);
	expect_error_at(comment, sizeof(comment) - 1, "jobs:1: NUL byte at column 4", __LINE__);
}

/* Environment lines */

static void test_env_positional(void)
{
	struct jobs_file *f = parse_ok("@daily a\n"
				       "A=1\n"
				       "B=2\n"
				       "@daily b\n"
				       "@daily c\n"
				       "A=3\n"
				       "C=4\n"
				       "@daily d\n");

	if (!f)
		return;
	EXPECT_STR(env_string(f->entries[0].env), "");
	EXPECT_STR(env_string(f->entries[1].env), "A=1 B=2");
	/* No environment line between: one array. */
	check(f->entries[1].env == f->entries[2].env, "b and c do not share env");
	/* A later A replaces the first in place: first-seen order. */
	EXPECT_STR(env_string(f->entries[3].env), "A=3 B=2 C=4");
	/* What b saw is not changed by the lines below it. */
	EXPECT_STR(env_string(f->entries[2].env), "A=1 B=2");
	jobs_free(f);
}

static void test_env_quotes(void)
{
	struct jobs_file *f = parse_ok("A = b c  \n"
				       "B='  x  '\n"
				       "C=\"it's\"  \n"
				       "D=\"\"\n"
				       "'E F'=1\n"
				       "\"G\" = 'h'\n"
				       "H=a\"b\"c\n"
				       "I=x=y\n"
				       "  J\t=\t\"tab\"\n"
				       "K='a\"b'\n"
				       "L=$HOME/bin %x\n"
				       "@daily cmd\n");

	if (!f)
		return;
	EXPECT_STR(env_string(f->entries[0].env),
		   "A=b c B=  x   C=it's D= E F=1 G=h H=a\"b\"c I=x=y J=tab "
		   "K=a\"b L=$HOME/bin %x");
	jobs_free(f);
}

static void test_env_errors(void)
{
	EXPECT_ERROR("A=\n", "jobs:1: bad environment line 'A=': no value (an empty "
			     "one is written NAME=\"\")");
	EXPECT_ERROR("@daily x\nA =  \t\n", "jobs:2: bad environment line 'A =  \t': "
					    "no value (an empty one is written NAME=\"\")");
	EXPECT_ERROR("A=\"x\n", "jobs:1: bad environment line 'A=\"x': unterminated "
				"\" quote");
	EXPECT_ERROR("A='x\n", "jobs:1: bad environment line 'A='x': unterminated "
			       "' quote");
	EXPECT_ERROR("A=\"x\" y\n", "jobs:1: bad environment line 'A=\"x\" y': text "
				    "after the closing quote");
	EXPECT_ERROR("'A=1'\n", "jobs:1: bad environment line ''A=1'': '=' in the "
				"quoted name");
	EXPECT_ERROR("'A\n", "jobs:1: bad environment line ''A': unterminated quote "
			     "in the name");
	EXPECT_ERROR("\"A\"x=1\n", "jobs:1: bad environment line '\"A\"x=1': text "
				   "after the quoted name");
	EXPECT_ERROR("=1\n", "jobs:1: bad environment line '=1': empty variable name");
	EXPECT_ERROR("''=1\n", "jobs:1: bad environment line '''=1': empty variable "
			       "name");
	EXPECT_ERROR("SHELL=''\n", "jobs:1: bad environment line 'SHELL=''': SHELL "
				   "is empty");
	/* A crontab-looking first word before '=' is an environment line too,
	 * as in cronie. */
	EXPECT_ERROR("0=\n", "jobs:1: bad environment line '0=': no value (an empty "
			     "one is written NAME=\"\")");
}

static void test_shell_and_cron_tz(void)
{
	struct jobs_file *f = parse_ok("@daily a\n"
				       "SHELL=/bin/bash\n"
				       "CRON_TZ=Europe/Berlin\n"
				       "--interval 1s -- true\n"
				       "SHELL = \"/bin/dash\"\n"
				       "CRON_TZ=''\n"
				       "@daily b\n");

	if (!f)
		return;
	EXPECT_STR(f->entries[0].shell, "/bin/sh");
	EXPECT_STR(f->entries[0].cron_tz, NULL);
	EXPECT_STR(f->entries[1].shell, "/bin/bash");
	EXPECT_STR(f->entries[1].cron_tz, "Europe/Berlin");
	EXPECT_STR(env_string(f->entries[1].env), "SHELL=/bin/bash CRON_TZ=Europe/Berlin");
	EXPECT_STR(f->entries[2].shell, "/bin/dash");
	EXPECT_STR(f->entries[2].cron_tz, "");
	jobs_free(f);
}

static void test_mailto(void)
{
	struct jobs_file *f = parse_ok("@daily a\nMAILTO=\"\"\nMAILTO=root\n@daily b\n");

	if (!f)
		return;
	EXPECT_STR(env_string(f->entries[0].env), "");
	EXPECT_STR(env_string(f->entries[1].env), "MAILTO=root");
	jobs_free(f);
}

/* '%' and standard input, as cronie's do_command */

static void test_percent(void)
{
	static const struct {
		const char *command, *want_command, *want_input;
	} cases[] = {
		{ "cat", "cat", NULL },
		{ "date +\\%s", "date +%s", NULL },
		{ "cat %", "cat ", "" },
		{ "cat%a%b", "cat", "a\nb\n" },
		{ "cat %a%", "cat ", "a\n" },
		{ "cat %%", "cat ", "\n" },
		{ "cat %a\\%b", "cat ", "a%b\n" },
		{ "cat %\\%", "cat ", "%\n" },
		{ "cat %x\\y", "cat ", "x\\y\n" },
		/* In the command a backslash escapes a backslash... */
		{ "echo \\\\%in", "echo \\\\", "in\n" },
		{ "echo \\x \\%", "echo \\x %", NULL },
		/* ...in the input it does not. */
		{ "cat %a\\\\%b", "cat ", "a\\%b\n" },
		{ "cat %a\\", "cat ", "a\\\n" },
		{ "cat %\\", "cat ", "\\" },
	};
	char line[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct jobs_file *f;

		snprintf(line, sizeof(line), "@daily %s\n", cases[i].command);
		f = parse_ok(line);
		if (!f)
			continue;
		EXPECT_STR(f->entries[0].command, cases[i].want_command);
		EXPECT_STR(f->entries[0].input, cases[i].want_input);
		jobs_free(f);
	}
	/* @reboot lines take it too. */
	struct jobs_file *f = parse_ok("@reboot tee /tmp/x%hello%world\n");
	if (f) {
		EXPECT_STR(f->entries[0].command, "tee /tmp/x");
		EXPECT_STR(f->entries[0].input, "hello\nworld\n");
	}
	jobs_free(f);
}

/* Crontab errors */

static void test_crontab_errors(void)
{
	EXPECT_ERROR("* * * *  cmd\n", "jobs:1: bad crontab line '* * * *  cmd': 4 time "
				       "fields before 'cmd', expected 5 or an @nickname");
	EXPECT_ERROR("0 2 * backup.sh\n",
		     "jobs:1: bad crontab line '0 2 * backup.sh': "
		     "3 time fields before 'backup.sh', expected 5 or an @nickname");
	EXPECT_ERROR("* jan mon /x\n", "jobs:1: bad crontab line '* jan mon /x': 3 time "
				       "fields before '/x', expected 5 or an @nickname");
	/* A word among the fields that no field is made of is a command that
	 * came early (a field left out), named, whatever follows it. */
	EXPECT_ERROR("*/5 * * * echo a b\n",
		     "jobs:1: bad crontab line '*/5 * * * echo a "
		     "b': 4 time fields before 'echo', expected 5 or an @nickname");
	EXPECT_ERROR("0 2 * * backup.sh --full\n",
		     "jobs:1: bad crontab line '0 2 * * "
		     "backup.sh --full': 4 time fields before 'backup.sh', expected 5 or an "
		     "@nickname");
	EXPECT_ERROR("0 2 * * /usr/bin/ls -l\n",
		     "jobs:1: bad crontab line '0 2 * * "
		     "/usr/bin/ls -l': 4 time fields before '/usr/bin/ls', expected 5 or an "
		     "@nickname");
	EXPECT_ERROR("0 * * php x.php\n", "jobs:1: bad crontab line '0 * * php x.php': 3 "
					  "time fields before 'php', expected 5 or an @nickname");
	EXPECT_ERROR("A=1\n\n1 * * * *   \n", "jobs:3: bad crontab line '1 * * * *   ': "
					      "no command after the 5 time fields");
	EXPECT_ERROR("*/5 *\n", "jobs:1: bad crontab line '*/5 *': 2 time fields and "
				"no command, expected 5 or an @nickname, then a command");
	EXPECT_ERROR("5\n", "jobs:1: bad crontab line '5': 1 time field and no "
			    "command, expected 5 or an @nickname, then a command");
	EXPECT_ERROR("* * * * * * cmd\n", "jobs:1: bad crontab line '* * * * * * cmd': "
					  "the command begins with '*' (6 time fields?)");
	EXPECT_ERROR("@daily *x\n", "jobs:1: bad crontab line '@daily *x': the command "
				    "begins with '*' (6 time fields?)");
	EXPECT_ERROR("@daily\n", "jobs:1: bad crontab line '@daily': no command after "
				 "@daily");
	EXPECT_ERROR("@reboot  \t\n", "jobs:1: bad crontab line '@reboot  \t': no "
				      "command after @reboot");
	EXPECT_ERROR("@Daily x\n", "jobs:1: bad crontab line '@Daily x': unknown "
				   "nickname '@Daily', expected @yearly, @annually, @monthly, "
				   "@weekly, @daily, @midnight, @hourly or @reboot");
	EXPECT_ERROR("@ x\n", "jobs:1: bad crontab line '@ x': unknown nickname '@', "
			      "expected @yearly, @annually, @monthly, @weekly, @daily, "
			      "@midnight, @hourly or @reboot");
	EXPECT_ERROR("@daily %stdin only\n", "jobs:1: bad crontab line '@daily %stdin "
					     "only': no command before '%'");
	EXPECT_ERROR("echo hi\n", "jobs:1: bad line 'echo hi': not NAME=VALUE, a crontab "
				  "line (5 time fields or an @nickname, then a command) or a tfd "
				  "line (options, beginning with '-')");
	/* Long and unprintable text is cut and escaped in the message. */
	EXPECT_ERROR("\x01 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
		     "jobs:1: bad line '\\x01 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': not NAME=VALUE, a crontab "
		     "line (5 time fields or an @nickname, then a command) or a tfd "
		     "line (options, beginning with '-')");
}

/* tfd lines */

static void test_tfd_quoting(void)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "--a  b\tc", "<--a> <b> <c>" },
		{ "--exec 'echo \"hi\" $HOME; ls'", "<--exec> <echo \"hi\" $HOME; ls>" },
		{ "--exec \"say \\\"hi\\\" \\$x \\\\ \\n\"", "<--exec> <say \"hi\" $x \\ \\n>" },
		{ "--x a\\ b \\'q\\' \\\\", "<--x> <a b> <'q'> <\\>" },
		{ "--x a'b'\"c\"d", "<--x> <abcd>" },
		{ "--format '' --x \"\"", "<--format> <> <--x> <>" },
		{ "--x 'it'\\''s'", "<--x> <it's>" },
		{ "--x 'a\\b'", "<--x> <a\\b>" },
		{ "--x *.txt ~/y {a,b} [c] ?", "<--x> <*.txt> <~/y> <{a,b}> <[c]> <?>" },
		{ "--x \"a;b|c&d<e>f(g)`h`\"", "<--x> <a;b|c&d<e>f(g)`h`>" },
		{ "-n3 --name=x", "<-n3> <--name=x>" },
	};
	char line[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct jobs_file *f;

		snprintf(line, sizeof(line), "  %s  \n", cases[i].line);
		f = parse_ok(line);
		if (!f)
			continue;
		EXPECT_INT(f->entries[0].kind, JOBS_TFD);
		EXPECT_STR(argv_string(&f->entries[0]), cases[i].want);
		jobs_free(f);
	}
}

static void test_tfd_errors(void)
{
	EXPECT_ERROR("@daily x\n--exec 'echo hi\n", "jobs:2: bad tfd line '--exec 'echo "
						    "hi': unterminated ' quote");
	EXPECT_ERROR("--exec \"echo \\\"hi\n", "jobs:1: bad tfd line '--exec \"echo "
					       "\\\"hi': unterminated \" quote");
	EXPECT_ERROR("--x a\\\n", "jobs:1: bad tfd line '--x a\\': backslash at the end "
				  "of the line");
	EXPECT_ERROR("--interval 1s -- echo a; echo b\n",
		     "jobs:1: bad tfd line "
		     "'--interval 1s -- echo a; echo b': unquoted ';' (the words of a "
		     "tfd line are not run by a shell: quote it, or use --exec)");
	EXPECT_ERROR("-- echo $HOME\n",
		     "jobs:1: bad tfd line '-- echo $HOME': unquoted "
		     "'$' (the words of a tfd line are not run by a shell: quote it, "
		     "or use --exec)");
	EXPECT_ERROR("-- a >out\n", "jobs:1: bad tfd line '-- a >out': unquoted '>' (the "
				    "words of a tfd line are not run by a shell: quote it, or use "
				    "--exec)");
}

/* Default names */

/* A job's default name, and the command word a load looks up (whole,
 * after assignments, unquoted; none where the shell would expand it or
 * something else comes first). */
static void test_default_names(void)
{
	static const struct {
		const char *command, *want, *word;
	} cases[] = {
		{ "backup.sh --full", "backup.sh", "backup.sh" },
		{ "/usr/bin/curl -fsS http://x/", "curl", "/usr/bin/curl" },
		{ "  FOO=1 BAR='a b' cmd x", "cmd", "cmd" },
		{ "'/opt/my tool/run it' x", "run it", "/opt/my tool/run it" },
		{ "\"./a\"b", "ab", "./ab" },
		{ "dir/sub/ x", "sub", "dir/sub/" },
		{ "make>log", "make", "make" },
		{ "true;false", "true", "true" },
		{ "cd / && run-parts x", "cd", "cd" },
		{ "FOO=1", "job", NULL },
		{ "", "job", NULL },
		{ "   ", "job", NULL },
		{ "/", "job", "/" },
		{ "'unterminated x", "unterminated x", NULL },
		{ "(cd /tmp && make)", "job", NULL },
		{ ">/dev/null cmd", "job", NULL },
		{ "$HOME/bin/x", "job", NULL },
		{ "A=$(x) cmd", "job", NULL },
		{ "~/bin/x", "x", NULL },
		{ "/opt/*/x", "x", NULL },
		{ "{a,b}", "{a,b}", NULL },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		size_t n = jobs_default_name(cases[i].command, buf, sizeof(buf));
		bool found;

		EXPECT_STR(buf, cases[i].want);
		EXPECT_INT(n, strlen(cases[i].want));
		found = shell_command_word(cases[i].command, buf, sizeof(buf));
		check(found == (cases[i].word != NULL), "'%s': a word found %d", cases[i].command,
		      found);
		if (found && cases[i].word)
			EXPECT_STR(buf, cases[i].word);
	}
	/* A word too long for the buffer is no word to judge. */
	check(!shell_command_word("abcdefgh", buf, 4), "a cut word taken");
	check(shell_command_word("abc", buf, 5) && strcmp(buf, "abc") == 0, "a word that fits");
	EXPECT_INT(jobs_default_name("abcdefgh", buf, 4), 3);
	EXPECT_STR(buf, "abc");
	EXPECT_INT(jobs_default_name("", buf, 3), 2);
	EXPECT_STR(buf, "jo");
	EXPECT_INT(jobs_default_name("abc", buf, 0), 0);
	EXPECT_INT(jobs_word_name("/opt/my tool/run it", buf, sizeof(buf)), 6);
	EXPECT_STR(buf, "run it");
	EXPECT_INT(jobs_word_name("./x'y", buf, sizeof(buf)), 3);
	EXPECT_STR(buf, "x'y");
	jobs_word_name("//", buf, sizeof(buf));
	EXPECT_STR(buf, "job");
}

/* Out of memory */

/* An allocator that fails from the (LIMIT+1)th request on, and counts the
 * blocks it still has out. */
struct failing {
	int calls, limit, live;
};

static void *failing_realloc(void *ctx, void *ptr, size_t size)
{
	struct failing *a = ctx;
	void *p;

	if (a->calls++ >= a->limit)
		return NULL;
	p = realloc(ptr, size);
	if (p && !ptr)
		a->live++;
	return p;
}

static void failing_free(void *ctx, void *ptr)
{
	struct failing *a = ctx;

	a->live -= ptr != NULL;
	free(ptr);
}

/* Memory failing at each call in turn: "out of memory", nothing kept;
 * with FLAGS (JOBS_LENIENT: the bad lines of TEXT are listed, and their
 * list's memory fails too). */
static void out_of_memory_with(unsigned flags, const char *text, size_t n, size_t nbad)
{
	struct failing a = { 0 };
	struct jobs_alloc alloc = { failing_realloc, failing_free, &a };
	struct jobs_file *f = NULL;
	char err[256];
	int limit, rc = -1;

	for (limit = 0; limit < 1000 && rc != 0; limit++) {
		a = (struct failing){ .limit = limit };
		rc = jobs_parse_with(&alloc, flags, "jobs", text, strlen(text), &f, err,
				     sizeof(err));
		if (rc != 0) {
			EXPECT_STR(err, "out of memory");
			EXPECT_INT(a.live, 0);
		}
	}
	check(rc == 0 && limit > 3, "never parsed, or too few allocations (%d)", limit);
	if (rc == 0) {
		EXPECT_INT(f->n, n);
		EXPECT_INT(f->nbad, nbad);
		jobs_free(f);
		EXPECT_INT(a.live, 0);
	}
}

static void test_out_of_memory(void)
{
	out_of_memory_with(0, "A=1\nB=2\n@daily a %x\n--delay 1s -- b\nA=3\n* * * * * c\n", 3, 0);
	out_of_memory_with(JOBS_LENIENT,
			   "A=1\n61 * * * * x\n@daily a %x\nnonsense\n"
			   "*/5 * * * echo a b\n* * * * * c\n",
			   3, 2);
	out_of_memory_with(JOBS_LENIENT | JOBS_USER,
			   "A=1\n61 * * * * x\n@daily a\n"
			   "-e=x\n--delay 1s -- b\n* * * * * c\n",
			   3, 2);
}

/* A system crontab (JOBS_SYSTEM): the user field, as /etc/crontab and
 * /etc/cron.d write it. */
static struct jobs_file *parse_system_at(const char *text, int line)
{
	struct jobs_file *f = NULL;
	char err[512];

	if (jobs_parse_as("crontab", text, strlen(text), JOBS_SYSTEM, &f, err, sizeof(err))) {
		tally_check(&tally, 0, __FILE__, line, "'%s' did not parse: %s", text, err);
		return NULL;
	}
	return f;
}

static void expect_system_error_at(const char *text, const char *want, int line)
{
	struct jobs_file *f = NULL;
	char err[512] = "";
	int rc = jobs_parse_as("crontab", text, strlen(text), JOBS_SYSTEM, &f, err, sizeof(err));

	tally_check(&tally, rc == -1 && strcmp(err, want) == 0, __FILE__, line,
		    "'%s': rc %d, got '%s', want '%s'", text, rc, err, want);
	if (rc == 0)
		jobs_free(f);
}

static void test_system_user_field(void)
{
	/* Debian's /etc/crontab, and e2scrub_all's /etc/cron.d file. */
	struct jobs_file *f =
		parse_system_at("SHELL=/bin/sh\n"
				"17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly\n"
				"30 3 * * 0 root test -e /run/systemd/system || SERVICE_MODE=1 "
				"/usr/lib/x86_64-linux-gnu/e2fsprogs/e2scrub_all_cron\n"
				"@reboot   nobody  echo up%in\n"
				"@daily\tuser-1 backup.sh\n"
				"--name t --user nobody -- /bin/true\n",
				__LINE__);

	if (!f)
		return;
	EXPECT_INT(f->n, 5);
	EXPECT_STR(f->entries[0].schedule, "17 * * * *");
	EXPECT_STR(f->entries[0].user, "root");
	EXPECT_STR(f->entries[0].command, "cd / && run-parts --report /etc/cron.hourly");
	EXPECT_STR(f->entries[1].user, "root");
	EXPECT_STR(f->entries[1].schedule, "30 3 * * 0");
	EXPECT_INT(f->entries[2].kind, JOBS_REBOOT);
	EXPECT_STR(f->entries[2].user, "nobody");
	EXPECT_STR(f->entries[2].command, "echo up");
	EXPECT_STR(f->entries[2].input, "in\n");
	EXPECT_STR(f->entries[3].schedule, "@daily");
	EXPECT_STR(f->entries[3].user, "user-1");
	EXPECT_STR(f->entries[3].command, "backup.sh");
	/* A tfd line names its user with --user: no field. */
	EXPECT_INT(f->entries[4].kind, JOBS_TFD);
	EXPECT_STR(f->entries[4].user, NULL);
	jobs_free(f);

	/* The same line in a user's crontab has no user field: the first word
	 * is the command's. */
	f = parse_ok("17 * * * * root cd /\n");
	if (f) {
		EXPECT_STR(f->entries[0].user, NULL);
		EXPECT_STR(f->entries[0].command, "root cd /");
		jobs_free(f);
	}
}

#define EXPECT_SYSTEM_ERROR(text, want) expect_system_error_at((text), (want), __LINE__)

static void test_system_user_errors(void)
{
	EXPECT_SYSTEM_ERROR("0 4 * * * root\n",
			    "crontab:1: bad crontab line "
			    "'0 4 * * * root': no command after the user 'root' (a system "
			    "crontab's line is the time fields, a user, then a command)");
	EXPECT_SYSTEM_ERROR("@daily   nobody  \n",
			    "crontab:1: bad crontab line "
			    "'@daily   nobody  ': no command after the user 'nobody' (a system "
			    "crontab's line is the time fields, a user, then a command)");
	EXPECT_SYSTEM_ERROR("@reboot\n", "crontab:1: bad crontab line '@reboot': "
					 "no command after @reboot");
	EXPECT_SYSTEM_ERROR("0 4 * * *\n", "crontab:1: bad crontab line '0 4 * * *': "
					   "no command after the 5 time fields");
	EXPECT_SYSTEM_ERROR("A=1\n* * * * * * root cmd\n",
			    "crontab:2: bad crontab line "
			    "'* * * * * * root cmd': the user field begins with '*' "
			    "(6 time fields?)");
	/* cron looks the user field up by name alone: a group, a uid. */
	EXPECT_SYSTEM_ERROR("0 4 * * * alice:root cmd\n",
			    "crontab:1: bad crontab line "
			    "'0 4 * * * alice:root cmd': the user field 'alice:root' holds a "
			    "':' (a system crontab's user field is a user's name alone, no "
			    "group; cron runs no such line)");
	EXPECT_SYSTEM_ERROR("@daily 0 cmd\n",
			    "crontab:1: bad crontab line '@daily 0 cmd': "
			    "the user field '0' is a number (a system crontab's user field is "
			    "a user's name, not a uid; cron runs no such line)");
	EXPECT_SYSTEM_ERROR("*/5 * * * root echo a\n",
			    "crontab:1: bad crontab line "
			    "'*/5 * * * root echo a': 4 time fields before 'root', expected 5 "
			    "or an @nickname");
}

/* JOBS_LENIENT, a host's cron: a bad line is passed over and listed, the
 * rest parses; a bad environment line sets nothing. */
static void test_lenient(void)
{
	const char *text = "A=1\n61 * * * * x\nnonsense\nB=\n0 1 * * echo a\n"
			   "SHELL=\"\"\nA=2\n\x01 bad\n@daily y\n";
	const char *user = "-e=x\nA=1\n--name x -- /bin/true\n@daily z\n";
	struct jobs_file *f = NULL;
	char err[512] = "";

	if (jobs_parse_as("cron.d/x", text, strlen(text), JOBS_LENIENT, &f, err, sizeof err) != 0) {
		check(0, "a lenient parse failed: %s", err);
		return;
	}
	EXPECT_INT(f->n, 2);
	EXPECT_STR(f->entries[0].schedule, "61 * * * *");
	EXPECT_STR(env_string(f->entries[0].env), "A=1");
	EXPECT_STR(f->entries[1].command, "y");
	EXPECT_STR(env_string(f->entries[1].env), "A=2");
	EXPECT_STR(f->entries[1].shell, "/bin/sh");
	EXPECT_INT(f->nbad, 5);
	if (f->nbad == 5) {
		EXPECT_INT(f->bad[0].line, 3);
		EXPECT_STR(f->bad[0].why,
			   "cron.d/x:3: bad line 'nonsense': not NAME=VALUE, a "
			   "crontab line (5 time fields or an @nickname, then a command) or a "
			   "tfd line (options, beginning with '-')");
		EXPECT_INT(f->bad[1].line, 4);
		EXPECT_INT(f->bad[2].line, 5);
		EXPECT_STR(f->bad[2].why, "cron.d/x:5: bad crontab line '0 1 * * echo a': 4 "
					  "time fields before 'echo', expected 5 or an @nickname");
		EXPECT_INT(f->bad[3].line, 6);
		EXPECT_INT(f->bad[4].line, 8);
	}
	jobs_free(f);
	f = NULL;
	/* A user's crontab: the variable crontab(1) takes with a '-' name, and
	 * a tfd line, are that line alone. */
	if (jobs_parse_as("spool/alice", user, strlen(user), JOBS_USER | JOBS_LENIENT, &f, err,
			  sizeof err) != 0) {
		check(0, "a lenient user's crontab failed: %s", err);
		return;
	}
	EXPECT_INT(f->n, 1);
	EXPECT_STR(f->entries[0].command, "z");
	EXPECT_STR(env_string(f->entries[0].env), "A=1");
	EXPECT_INT(f->nbad, 2);
	if (f->nbad == 2)
		EXPECT_STR(f->bad[0].why,
			   "spool/alice:1: bad environment line '-e=x': a "
			   "variable's name may not begin with '-' (tfd reads such a line as a "
			   "tfd line, which a user's crontab cannot hold)");
	jobs_free(f);
	/* Without JOBS_LENIENT the first bad line refuses the file. */
	f = NULL;
	/* clang-format off */
	check(jobs_parse_as("spool/alice", user, strlen(user), JOBS_USER, &f, err,
			    sizeof err) == -1 && f == NULL, "a strict parse passed a bad line");
	/* clang-format on */
}

/* A user's crontab (JOBS_USER): crontab lines without a user field, and
 * no tfd line, whose options are the host's to give. */
static void test_user_crontab(void)
{
	const char *text = "MAILTO=\"\"\n0 4 * * * root backup.sh\n@reboot warm.sh\n";
	const char *tfd = "0 4 * * * a.sh\n--name x --user root --delay 0 -- /bin/true\n";
	struct jobs_file *f = NULL;
	char err[512] = "";

	if (jobs_parse_as("alice", text, strlen(text), JOBS_USER, &f, err, sizeof(err)) != 0) {
		check(0, "a user's crontab did not parse: %s", err);
		return;
	}
	EXPECT_INT(f->n, 2);
	/* "root" is the command's first word, not a user. */
	EXPECT_STR(f->entries[0].command, "root backup.sh");
	check(f->entries[0].user == NULL, "a user field in a user's crontab");
	jobs_free(f);
	f = NULL;
	check(jobs_parse_as("alice", tfd, strlen(tfd), JOBS_USER, &f, err, sizeof(err)) == -1,
	      "a tfd line taken in a user's crontab");
	check(strncmp(err, "alice:2: bad line '--name x --user root", 39) == 0 &&
		      strstr(err, "a user's crontab takes crontab lines only"),
	      "err: %s", err);
	if (f)
		jobs_free(f);
}

int main(void)
{
	test_kinds();
	test_empty_files();
	test_nicknames();
	test_fields_unchecked();
	test_dont_log_mark();
	test_comments_and_hashes();
	test_line_ends();
	test_long_lines();
	test_nul_bytes();
	test_env_positional();
	test_env_quotes();
	test_env_errors();
	test_shell_and_cron_tz();
	test_mailto();
	test_percent();
	test_crontab_errors();
	test_tfd_quoting();
	test_tfd_errors();
	test_default_names();
	test_out_of_memory();
	test_system_user_field();
	test_system_user_errors();
	test_user_crontab();
	test_lenient();
	return tally_finish(&tally, "test_jobsfile");
}
