/* SPDX-License-Identifier: MIT */
/* Unit tests for listen_addr (--listen=[ADDR:]PORT): each accepted form
 * with the address and port it gives, and each refused one with the
 * reason its message names. */
#include "listen_addr.h"
#include "harness.h"
#include "tsv.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

/* TEXT parses, and listen_addr_format gives WANT back; ANY: no ADDR. */
static void accepts(const char *text, const char *want, bool any)
{
	struct listen_addr a;
	char err[256], shown[LISTEN_ADDR_TEXT_MAX];

	if (listen_addr_parse(text, &a, err, sizeof err) != 0) {
		check(0, "'%s' refused: %s", text, err);
		return;
	}
	listen_addr_format(&a, shown);
	check(strcmp(shown, want) == 0, "'%s' is %s, not %s", text, shown, want);
	check(a.any == any, "'%s': any %d", text, a.any);
	check(a.len == (a.sa.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						   : sizeof(struct sockaddr_in)),
	      "'%s': length %u", text, (unsigned)a.len);
}

/* TEXT is refused with a message that holds WHY. */
static void refuses(const char *text, const char *why)
{
	struct listen_addr a;
	char err[256] = "";

	check(listen_addr_parse(text, &a, err, sizeof err) != 0, "'%s' accepted", text);
	check(strstr(err, why) != NULL, "'%s': '%s' does not say '%s'", text, err, why);
	check(strncmp(err, "--listen '", 10) == 0, "'%s': '%s' does not name it", text, err);
}

static void test_accepted(void)
{
	accepts("9184", "[::]:9184", true);
	accepts(":9184", "[::]:9184", true);
	accepts("127.0.0.1:9184", "127.0.0.1:9184", false);
	accepts("0.0.0.0:1", "0.0.0.0:1", false);
	accepts("[::1]:65535", "[::1]:65535", false);
	accepts("[::]:80", "[::]:80", false);
	accepts("[fe80::1:2]:8080", "[fe80::1:2]:8080", false);
	accepts("[::ffff:127.0.0.1]:9184", "[::ffff:127.0.0.1]:9184", false);
}

static void test_port_in_network_order(void)
{
	struct listen_addr a;
	char err[256];

	check(listen_addr_parse("10.1.2.3:258", &a, err, sizeof err) == 0, "%s", err);
	check(((struct sockaddr_in *)&a.sa)->sin_port == htons(258), "IPv4 port");
	check(a.port == 258, "port %u", a.port);
	check(listen_addr_parse("[::1]:258", &a, err, sizeof err) == 0, "%s", err);
	check(((struct sockaddr_in6 *)&a.sa)->sin6_port == htons(258), "IPv6 port");
}

static void test_refused(void)
{
	refuses("", "no port");
	refuses(":", "no port");
	refuses("127.0.0.1:", "no port");
	refuses("0", "out of range");
	refuses("00000", "out of range");
	refuses("65536", "out of range");
	refuses("99999999999999999999", "out of range");
	refuses("-1", "invalid port");
	refuses("+80", "invalid port");
	refuses(" 80", "invalid port");
	refuses("80 ", "invalid port");
	refuses("0x50", "invalid port");
	refuses("http", "invalid port");
	refuses("localhost:80", "'localhost' is not a numeric IPv4 address");
	refuses("1.2.3:80", "not a numeric IPv4 address");
	refuses("1.2.3.256:80", "not a numeric IPv4 address");
	refuses("::1:80", "written in brackets");
	refuses("[::1]", "expected [IPV6]:PORT");
	refuses("[::1]80", "expected [IPV6]:PORT");
	refuses("[::1:80", "expected [IPV6]:PORT");
	refuses("[127.0.0.1]:80", "not an IPv6 address");
	refuses("[]:80", "not an IPv6 address");
	refuses("[fe80::1%lo]:80", "not an IPv6 address");
	refuses("[::1]:x", "invalid port");
}

int main(void)
{
	test_accepted();
	test_port_in_network_order();
	test_refused();
	return tally_finish(&tally, "listen_addr");
}
