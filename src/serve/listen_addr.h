/* SPDX-License-Identifier: MIT */
/* listen_addr: --listen=[ADDR:]PORT read into a socket address. Pure: no
 * name is looked up (ADDR is a numeric IPv4 address or an IPv6 address in
 * brackets, as URLs write it), nothing is opened. */
#ifndef TFD_LISTEN_ADDR_H
#define TFD_LISTEN_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct listen_addr {
	struct sockaddr_storage sa; /* AF_INET or AF_INET6, port set */
	socklen_t len;
	bool any; /* no ADDR: every address, IPv6 and IPv4 */
	uint16_t port;
};

/* Reads TEXT: "PORT", ":PORT", "A.B.C.D:PORT" or "[IPV6]:PORT", PORT a
 * decimal number from 1 to 65535. Without ADDR the address is IPv6's any
 * (::), which the opener makes dual-stack. Returns 0, or -1 with one line
 * in err naming the bad text and why. */
int listen_addr_parse(const char *text, struct listen_addr *out, char *err, size_t errlen);

/* ADDR:PORT as a URL's authority ("127.0.0.1:9184", "[::1]:9184",
 * "[::]:9184"), at most LISTEN_ADDR_TEXT_MAX bytes with the NUL. */
#define LISTEN_ADDR_TEXT_MAX 56
void listen_addr_format(const struct listen_addr *a, char *out);

#endif
