/* SPDX-License-Identifier: MIT */
/* mhd: the few functions of libmicrohttpd (GNU's embedded HTTP server, the
 * library of systemd-journal-gatewayd) that --listen uses, found with
 * dlopen when --listen is given and not before, so a tfd without --listen
 * neither links nor maps it (nor the TLS libraries it pulls in). The types
 * and values below are libmicrohttpd 12's ABI, declared here so that
 * microhttpd.h is not needed to build tfd; tests/http/mhd_abi.c checks
 * them against microhttpd.h (tests/bats/63-http.bats). A build with
 * TFD_NO_HTTP (the static one) has no dlopen: mhd_load says so. */
#ifndef TFD_MHD_H
#define TFD_MHD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct MHD_Daemon;
struct MHD_Connection;
struct MHD_Response;

/* enum MHD_Result */
enum { MHD_SHIM_NO = 0, MHD_SHIM_YES = 1 };

/* enum MHD_FLAG: the daemon is driven from the caller's loop (no
 * MHD_USE_INTERNAL_POLLING_THREAD), through one epoll descriptor. */
#define MHD_SHIM_USE_EPOLL 512u

/* enum MHD_OPTION */
enum {
	MHD_SHIM_OPTION_END = 0,
	MHD_SHIM_OPTION_CONNECTION_LIMIT = 2,        /* unsigned int */
	MHD_SHIM_OPTION_CONNECTION_TIMEOUT = 3,      /* unsigned int, seconds */
	MHD_SHIM_OPTION_NOTIFY_COMPLETED = 4,        /* mhd_completed_fn, void * */
	MHD_SHIM_OPTION_PER_IP_CONNECTION_LIMIT = 5, /* unsigned int */
	MHD_SHIM_OPTION_LISTEN_SOCKET = 12,          /* int, bound and listening */
	MHD_SHIM_OPTION_NOTIFY_CONNECTION = 27,      /* mhd_notify_connection_fn, void * */
};

/* enum MHD_ConnectionNotificationCode, enum MHD_ConnectionInfoType */
enum { MHD_SHIM_CONNECTION_NOTIFY_STARTED = 0, MHD_SHIM_CONNECTION_NOTIFY_CLOSED = 1 };
enum { MHD_SHIM_CONNECTION_INFO_CONNECTION_FD = 6, MHD_SHIM_CONNECTION_INFO_SOCKET_CONTEXT = 7 };

/* enum MHD_DaemonInfoType, enum MHD_ValueKind, enum MHD_ResponseMemoryMode */
enum { MHD_SHIM_DAEMON_INFO_EPOLL_FD = 3, MHD_SHIM_DAEMON_INFO_CURRENT_CONNECTIONS = 4 };
enum { MHD_SHIM_HEADER_KIND = 1 };
enum { MHD_SHIM_RESPMEM_PERSISTENT = 0, MHD_SHIM_RESPMEM_MUST_FREE = 1 };

/* union MHD_DaemonInfo, of which the members read here (every member
 * starts at offset 0; the largest is a size_t). */
union mhd_daemon_info {
	size_t key_size;
	int epoll_fd;
	unsigned int num_connections;
};

/* union MHD_ConnectionInfo, of which the members read here (each at
 * offset 0). */
union mhd_connection_info {
	int connect_fd;
	void *socket_context;
};

/* MHD_NotifyConnectionCallback (a connection began or ended; its
 * socket_context is the caller's) and MHD_RequestCompletedCallback (a
 * request was answered, or its connection closed). The enums they take
 * have the ABI of an int. */
typedef void (*mhd_notify_connection_fn)(void *cls, struct MHD_Connection *connection,
					 void **socket_context, int code);
typedef void (*mhd_completed_fn)(void *cls, struct MHD_Connection *connection, void **con_cls,
				 int code);

/* MHD_ContentReaderCallback and MHD_ContentReaderFreeCallback: a body
 * made as it is sent. The reader returns the bytes put in BUF (at most
 * MAX), 0 for none yet (it is asked again at the next MHD_run, which
 * MHD_get_timeout then wants at once), MHD_SHIM_READER_END at the end,
 * MHD_SHIM_READER_ERROR to cut the connection. MHD_SHIM_SIZE_UNKNOWN: the length is not known before (the
 * body is sent chunked, or until the connection closes for HTTP/1.0). */
typedef ssize_t (*mhd_reader_fn)(void *cls, uint64_t pos, char *buf, size_t max);
typedef void (*mhd_reader_free_fn)(void *cls);
#define MHD_SHIM_READER_END ((ssize_t)-1)
#define MHD_SHIM_READER_ERROR ((ssize_t)-2)
#define MHD_SHIM_SIZE_UNKNOWN UINT64_MAX

/* MHD_AccessHandlerCallback */
typedef int (*mhd_access_fn)(void *cls, struct MHD_Connection *connection, const char *url,
			     const char *method, const char *version, const char *upload_data,
			     size_t *upload_data_size, void **con_cls);

struct mhd {
	void *handle;
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port, void *apc,
					   void *apc_cls, mhd_access_fn dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *daemon);
	const union mhd_daemon_info *(*get_daemon_info)(struct MHD_Daemon *daemon, int info_type,
							...);
	int (*get_timeout)(struct MHD_Daemon *daemon, unsigned long long *timeout);
	int (*run)(struct MHD_Daemon *daemon);
	const char *(*lookup_connection_value)(struct MHD_Connection *connection, int kind,
					       const char *key);
	const union mhd_connection_info *(*get_connection_info)(struct MHD_Connection *connection,
								int info_type, ...);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer, int mode);
	struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
							      mhd_reader_fn reader, void *cls,
							      mhd_reader_free_fn free_cls);
	int (*add_response_header)(struct MHD_Response *response, const char *header,
				   const char *content);
	int (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
			      struct MHD_Response *response);
	void (*destroy_response)(struct MHD_Response *response);
};

/* Loads libmicrohttpd.so.12 and resolves every function above. Returns 0,
 * or -1 with err saying why (not installed, a symbol missing, a build
 * without HTTP). */
int mhd_load(struct mhd *m, char *err, size_t errlen);

/* Forgets the functions (the library stays loaded until exit). */
void mhd_unload(struct mhd *m);

#endif
