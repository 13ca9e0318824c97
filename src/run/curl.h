/* SPDX-License-Identifier: MIT */
/* curl: the few functions of libcurl (Debian's libcurl4) that --ping and
 * --notify use, found with dlopen when a job has one of them and not
 * before, so a tfd without them neither links nor maps libcurl (nor the
 * TLS libraries it pulls in). The types and values below are libcurl 4's
 * ABI, declared here so that curl/curl.h (libcurl's -dev package) is not
 * needed to build tfd; tests/http/curl_abi.c checks them against curl.h.
 * A build with TFD_NO_HTTP (the static one) has no dlopen: curl_load says
 * so. */
#ifndef TFD_CURL_H
#define TFD_CURL_H

#include <stddef.h>
#include <sys/socket.h>

typedef void curl_easy;  /* CURL */
typedef void curl_multi; /* CURLM */
struct curl_slist;

/* CURLoption: a type's base plus the option's number. */
enum {
	CURL_SHIM_OPT_WRITEDATA = 10001,
	CURL_SHIM_OPT_URL = 10002,
	CURL_SHIM_OPT_WRITEFUNCTION = 20011,
	CURL_SHIM_OPT_POSTFIELDS = 10015,
	CURL_SHIM_OPT_USERAGENT = 10018,
	CURL_SHIM_OPT_HTTPHEADER = 10023,
	CURL_SHIM_OPT_FOLLOWLOCATION = 52,
	CURL_SHIM_OPT_POSTFIELDSIZE = 60, /* long */
	CURL_SHIM_OPT_MAXREDIRS = 68,
	CURL_SHIM_OPT_NOSIGNAL = 99,
	CURL_SHIM_OPT_PRIVATE = 10103,
	CURL_SHIM_OPT_TIMEOUT_MS = 155,
	CURL_SHIM_OPT_CONNECTTIMEOUT_MS = 156,
	CURL_SHIM_OPT_OPENSOCKETFUNCTION = 20163,
	CURL_SHIM_OPT_PROTOCOLS_STR = 10318, /* libcurl 7.85 and later */
	CURL_SHIM_OPT_REDIR_PROTOCOLS_STR = 10319,
};

/* CURLINFO */
enum { CURL_SHIM_INFO_RESPONSE_CODE = 0x200002, CURL_SHIM_INFO_PRIVATE = 0x100015 };

/* CURLMoption */
enum {
	CURL_SHIM_MOPT_SOCKETFUNCTION = 20001,
	CURL_SHIM_MOPT_SOCKETDATA = 10002,
	CURL_SHIM_MOPT_TIMERFUNCTION = 20004,
	CURL_SHIM_MOPT_TIMERDATA = 10005,
};

/* CURL_POLL_*, CURL_CSELECT_*, CURL_SOCKET_TIMEOUT, CURLMSG_DONE,
 * CURL_GLOBAL_ALL */
enum { CURL_SHIM_POLL_IN = 1, CURL_SHIM_POLL_OUT = 2, CURL_SHIM_POLL_REMOVE = 4 };
enum { CURL_SHIM_CSELECT_IN = 1, CURL_SHIM_CSELECT_OUT = 2, CURL_SHIM_CSELECT_ERR = 4 };
#define CURL_SHIM_SOCKET_TIMEOUT (-1)
enum { CURL_SHIM_MSG_DONE = 1 };
#define CURL_SHIM_GLOBAL_ALL 3L

/* struct CURLMsg (the enums in it have an int's ABI). */
struct curl_msg {
	int msg;
	curl_easy *easy_handle;
	union {
		void *whatever;
		int result;
	} data;
};

/* struct curl_sockaddr, given to the open-socket callback. */
struct curl_shim_sockaddr {
	int family, socktype, protocol;
	unsigned int addrlen;
	struct sockaddr addr;
};

/* curl_socket_callback, curl_multi_timer_callback,
 * curl_opensocket_callback, curl_write_callback */
typedef int (*curl_socket_fn)(curl_easy *easy, int fd, int what, void *userp, void *socketp);
typedef int (*curl_timer_fn)(curl_multi *multi, long timeout_ms, void *userp);
typedef int (*curl_opensocket_fn)(void *clientp, int purpose, struct curl_shim_sockaddr *address);
typedef size_t (*curl_write_fn)(char *ptr, size_t size, size_t nmemb, void *userdata);

struct curl {
	void *handle;
	int (*global_init)(long flags);
	curl_easy *(*easy_init)(void);
	int (*easy_setopt)(curl_easy *easy, int option, ...);
	int (*easy_getinfo)(curl_easy *easy, int info, ...);
	void (*easy_cleanup)(curl_easy *easy);
	const char *(*easy_strerror)(int code);
	curl_multi *(*multi_init)(void);
	int (*multi_setopt)(curl_multi *multi, int option, ...);
	int (*multi_add_handle)(curl_multi *multi, curl_easy *easy);
	int (*multi_remove_handle)(curl_multi *multi, curl_easy *easy);
	int (*multi_socket_action)(curl_multi *multi, int fd, int ev_bitmask, int *running);
	struct curl_msg *(*multi_info_read)(curl_multi *multi, int *msgs_in_queue);
	int (*multi_cleanup)(curl_multi *multi);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
	void (*slist_free_all)(struct curl_slist *list);
};

/* Loads libcurl.so.4, resolves every function above and initializes the
 * library. Returns 0, or -1 with err saying why (not installed, a symbol
 * missing, a build without HTTP). */
int curl_load(struct curl *c, char *err, size_t errlen);

#endif
