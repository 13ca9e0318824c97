/* SPDX-License-Identifier: MIT */
/* Checks src/serve/mhd.h's declarations of libmicrohttpd's values and types
 * against microhttpd.h: compiled, not run (tests/bats/63-http.bats), where
 * libmicrohttpd-dev is installed. */
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "mhd.h"

#define SAME_VALUE(a, b) _Static_assert((long)(a) == (long)(b), #a)

SAME_VALUE(MHD_NO, MHD_SHIM_NO);
SAME_VALUE(MHD_YES, MHD_SHIM_YES);
SAME_VALUE(MHD_USE_EPOLL, MHD_SHIM_USE_EPOLL);
SAME_VALUE(MHD_OPTION_END, MHD_SHIM_OPTION_END);
SAME_VALUE(MHD_OPTION_CONNECTION_LIMIT, MHD_SHIM_OPTION_CONNECTION_LIMIT);
SAME_VALUE(MHD_OPTION_CONNECTION_TIMEOUT, MHD_SHIM_OPTION_CONNECTION_TIMEOUT);
SAME_VALUE(MHD_OPTION_LISTEN_SOCKET, MHD_SHIM_OPTION_LISTEN_SOCKET);
SAME_VALUE(MHD_OPTION_NOTIFY_COMPLETED, MHD_SHIM_OPTION_NOTIFY_COMPLETED);
SAME_VALUE(MHD_OPTION_PER_IP_CONNECTION_LIMIT, MHD_SHIM_OPTION_PER_IP_CONNECTION_LIMIT);
SAME_VALUE(MHD_OPTION_NOTIFY_CONNECTION, MHD_SHIM_OPTION_NOTIFY_CONNECTION);
SAME_VALUE(MHD_CONNECTION_NOTIFY_STARTED, MHD_SHIM_CONNECTION_NOTIFY_STARTED);
SAME_VALUE(MHD_CONNECTION_NOTIFY_CLOSED, MHD_SHIM_CONNECTION_NOTIFY_CLOSED);
SAME_VALUE(MHD_CONNECTION_INFO_CONNECTION_FD, MHD_SHIM_CONNECTION_INFO_CONNECTION_FD);
SAME_VALUE(MHD_CONNECTION_INFO_SOCKET_CONTEXT, MHD_SHIM_CONNECTION_INFO_SOCKET_CONTEXT);
SAME_VALUE(MHD_DAEMON_INFO_EPOLL_FD, MHD_SHIM_DAEMON_INFO_EPOLL_FD);
SAME_VALUE(MHD_DAEMON_INFO_CURRENT_CONNECTIONS, MHD_SHIM_DAEMON_INFO_CURRENT_CONNECTIONS);
SAME_VALUE(MHD_HEADER_KIND, MHD_SHIM_HEADER_KIND);
SAME_VALUE(MHD_RESPMEM_PERSISTENT, MHD_SHIM_RESPMEM_PERSISTENT);
SAME_VALUE(MHD_RESPMEM_MUST_FREE, MHD_SHIM_RESPMEM_MUST_FREE);
SAME_VALUE(MHD_CONTENT_READER_END_OF_STREAM, MHD_SHIM_READER_END);
SAME_VALUE(MHD_CONTENT_READER_END_WITH_ERROR, MHD_SHIM_READER_ERROR);
_Static_assert(MHD_SIZE_UNKNOWN == MHD_SHIM_SIZE_UNKNOWN, "MHD_SIZE_UNKNOWN");

/* The options' arguments, passed through "...": an MHD_socket is an int. */
_Static_assert(sizeof(MHD_socket) == sizeof(int), "MHD_socket");
_Static_assert(sizeof(MHD_UNSIGNED_LONG_LONG) == sizeof(unsigned long long), "timeout");

/* The union's members read here, where libmicrohttpd writes them. */
_Static_assert(offsetof(union MHD_DaemonInfo, epoll_fd) ==
	       offsetof(union mhd_daemon_info, epoll_fd), "epoll_fd");
_Static_assert(offsetof(union MHD_DaemonInfo, num_connections) ==
	       offsetof(union mhd_daemon_info, num_connections), "num_connections");
_Static_assert(sizeof(((union MHD_DaemonInfo *)0)->num_connections) ==
	       sizeof(((union mhd_daemon_info *)0)->num_connections), "num_connections size");
_Static_assert(offsetof(union MHD_ConnectionInfo, connect_fd) ==
	       offsetof(union mhd_connection_info, connect_fd), "connect_fd");
_Static_assert(offsetof(union MHD_ConnectionInfo, socket_context) ==
	       offsetof(union mhd_connection_info, socket_context), "socket_context");
_Static_assert(sizeof(enum MHD_ConnectionNotificationCode) == sizeof(int), "notify code");
_Static_assert(sizeof(enum MHD_RequestTerminationCode) == sizeof(int), "termination code");

/* The slots whose types name no enum must take libmicrohttpd's functions
 * as they are (with -Werror, a mismatch fails the build); the others
 * return or take an enum, which has the ABI of an int. */
int main(void)
{
	struct mhd m = { 0 };

	m.stop_daemon = MHD_stop_daemon;
	m.destroy_response = MHD_destroy_response;
	m.create_response_from_callback = MHD_create_response_from_callback;
	return m.handle == NULL ? 0 : 1;
}
