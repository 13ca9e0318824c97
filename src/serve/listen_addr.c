/* SPDX-License-Identifier: MIT */
#include "listen_addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "ascii.h"

/* PORT: 1 to 65535, decimal digits only (no sign, no space, no 0x). */
static int parse_port(const char *text, const char *port, uint16_t *out, char *err, size_t errlen)
{
	unsigned long v = 0;

	if (!*port) {
		snprintf(err, errlen, "--listen '%s': no port: expected [ADDR:]PORT", text);
		return -1;
	}
	for (const char *p = port; *p; p++) {
		if (!is_digit(*p)) {
			snprintf(err, errlen,
				 "--listen '%s': invalid port '%s': expected a "
				 "number from 1 to 65535",
				 text, port);
			return -1;
		}
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 65535)
			break;
	}
	if (v == 0 || v > 65535) {
		snprintf(err, errlen,
			 "--listen '%s': port '%s' is out of range: expected "
			 "1 to 65535",
			 text, port);
		return -1;
	}
	*out = (uint16_t)v;
	return 0;
}

/* ADDR (N bytes) as a string in BUF; false when it cannot be an address. */
static bool copy_addr(char *buf, size_t cap, const char *addr, size_t n)
{
	if (n >= cap)
		return false;
	memcpy(buf, addr, n);
	buf[n] = '\0';
	return true;
}

/* "[IPV6]": the text between the brackets is an IPv6 address. */
static int parse_v6(const char *text, const char *addr, size_t n, struct listen_addr *a, char *err,
		    size_t errlen)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->sa;
	char buf[INET6_ADDRSTRLEN + 1];

	if (!copy_addr(buf, sizeof buf, addr, n) || inet_pton(AF_INET6, buf, &s6->sin6_addr) != 1) {
		snprintf(err, errlen, "--listen '%s': '%.*s' is not an IPv6 address", text,
			 (int)(n > 64 ? 64 : n), addr);
		return -1;
	}
	s6->sin6_family = AF_INET6;
	a->len = sizeof *s6;
	return 0;
}

static int parse_v4(const char *text, const char *addr, size_t n, struct listen_addr *a, char *err,
		    size_t errlen)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&a->sa;
	char buf[INET_ADDRSTRLEN + 1];

	if (!copy_addr(buf, sizeof buf, addr, n) || inet_pton(AF_INET, buf, &s4->sin_addr) != 1) {
		snprintf(err, errlen,
			 "--listen '%s': '%.*s' is not a numeric IPv4 address "
			 "(names are not looked up; an IPv6 address is written in brackets, "
			 "[::1]:PORT)",
			 text, (int)(n > 64 ? 64 : n), addr);
		return -1;
	}
	s4->sin_family = AF_INET;
	a->len = sizeof *s4;
	return 0;
}

/* No ADDR: IPv6's any address, which the opener makes dual-stack. */
static void set_any(struct listen_addr *a)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->sa;

	s6->sin6_family = AF_INET6;
	s6->sin6_addr = in6addr_any;
	a->len = sizeof *s6;
	a->any = true;
}

/* Splits TEXT into ADDR (ADDR, N; N 0 for none) and PORT. */
static int split(const char *text, const char **addr, size_t *n, const char **port, char *err,
		 size_t errlen)
{
	const char *colon;

	*addr = text;
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (!close || close[1] != ':') {
			snprintf(err, errlen, "--listen '%s': expected [IPV6]:PORT", text);
			return -1;
		}
		*addr = text + 1;
		*n = (size_t)(close - text - 1);
		*port = close + 2;
		return 0;
	}
	colon = strrchr(text, ':');
	if (colon && memchr(text, ':', (size_t)(colon - text))) {
		snprintf(err, errlen,
			 "--listen '%s': an IPv6 address is written in "
			 "brackets: [ADDR]:PORT",
			 text);
		return -1;
	}
	*n = colon ? (size_t)(colon - text) : 0;
	*port = colon ? colon + 1 : text;
	return 0;
}

int listen_addr_parse(const char *text, struct listen_addr *out, char *err, size_t errlen)
{
	const char *addr, *port;
	size_t n;

	*out = (struct listen_addr){ 0 };
	if (split(text, &addr, &n, &port, err, errlen) != 0 ||
	    parse_port(text, port, &out->port, err, errlen) != 0)
		return -1;
	if (text[0] == '[') {
		if (parse_v6(text, addr, n, out, err, errlen) != 0)
			return -1;
	} else if (n == 0) {
		set_any(out);
	} else if (parse_v4(text, addr, n, out, err, errlen) != 0) {
		return -1;
	}
	if (out->sa.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&out->sa)->sin6_port = htons(out->port);
	else
		((struct sockaddr_in *)&out->sa)->sin_port = htons(out->port);
	return 0;
}

void listen_addr_format(const struct listen_addr *a, char *out)
{
	char host[INET6_ADDRSTRLEN];

	if (a->sa.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&a->sa)->sin6_addr, host,
			  sizeof host);
		snprintf(out, LISTEN_ADDR_TEXT_MAX, "[%s]:%u", host, a->port);
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)&a->sa)->sin_addr, host,
			  sizeof host);
		snprintf(out, LISTEN_ADDR_TEXT_MAX, "%s:%u", host, a->port);
	}
}
