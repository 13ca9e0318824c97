/* SPDX-License-Identifier: MIT */
/* Checks src/run/curl.h's declarations of libcurl's values and types
 * against curl/curl.h: compiled, not run (tests/bats/37-notify.bats),
 * where libcurl's -dev package is installed. */
#include <stddef.h>
#include <curl/curl.h>

#include "curl.h"

#define SAME_VALUE(a, b) _Static_assert((long)(a) == (long)(b), #a)

SAME_VALUE(CURLOPT_WRITEDATA, CURL_SHIM_OPT_WRITEDATA);
SAME_VALUE(CURLOPT_URL, CURL_SHIM_OPT_URL);
SAME_VALUE(CURLOPT_WRITEFUNCTION, CURL_SHIM_OPT_WRITEFUNCTION);
SAME_VALUE(CURLOPT_POSTFIELDS, CURL_SHIM_OPT_POSTFIELDS);
SAME_VALUE(CURLOPT_USERAGENT, CURL_SHIM_OPT_USERAGENT);
SAME_VALUE(CURLOPT_HTTPHEADER, CURL_SHIM_OPT_HTTPHEADER);
SAME_VALUE(CURLOPT_FOLLOWLOCATION, CURL_SHIM_OPT_FOLLOWLOCATION);
SAME_VALUE(CURLOPT_POSTFIELDSIZE, CURL_SHIM_OPT_POSTFIELDSIZE);
SAME_VALUE(CURLOPT_MAXREDIRS, CURL_SHIM_OPT_MAXREDIRS);
SAME_VALUE(CURLOPT_NOSIGNAL, CURL_SHIM_OPT_NOSIGNAL);
SAME_VALUE(CURLOPT_PRIVATE, CURL_SHIM_OPT_PRIVATE);
SAME_VALUE(CURLOPT_TIMEOUT_MS, CURL_SHIM_OPT_TIMEOUT_MS);
SAME_VALUE(CURLOPT_CONNECTTIMEOUT_MS, CURL_SHIM_OPT_CONNECTTIMEOUT_MS);
SAME_VALUE(CURLOPT_OPENSOCKETFUNCTION, CURL_SHIM_OPT_OPENSOCKETFUNCTION);
SAME_VALUE(CURLOPT_PROTOCOLS_STR, CURL_SHIM_OPT_PROTOCOLS_STR);
SAME_VALUE(CURLOPT_REDIR_PROTOCOLS_STR, CURL_SHIM_OPT_REDIR_PROTOCOLS_STR);
SAME_VALUE(CURLINFO_RESPONSE_CODE, CURL_SHIM_INFO_RESPONSE_CODE);
SAME_VALUE(CURLINFO_PRIVATE, CURL_SHIM_INFO_PRIVATE);
SAME_VALUE(CURLMOPT_SOCKETFUNCTION, CURL_SHIM_MOPT_SOCKETFUNCTION);
SAME_VALUE(CURLMOPT_SOCKETDATA, CURL_SHIM_MOPT_SOCKETDATA);
SAME_VALUE(CURLMOPT_TIMERFUNCTION, CURL_SHIM_MOPT_TIMERFUNCTION);
SAME_VALUE(CURLMOPT_TIMERDATA, CURL_SHIM_MOPT_TIMERDATA);
SAME_VALUE(CURL_POLL_IN, CURL_SHIM_POLL_IN);
SAME_VALUE(CURL_POLL_OUT, CURL_SHIM_POLL_OUT);
SAME_VALUE(CURL_POLL_REMOVE, CURL_SHIM_POLL_REMOVE);
SAME_VALUE(CURL_CSELECT_IN, CURL_SHIM_CSELECT_IN);
SAME_VALUE(CURL_CSELECT_OUT, CURL_SHIM_CSELECT_OUT);
SAME_VALUE(CURL_CSELECT_ERR, CURL_SHIM_CSELECT_ERR);
SAME_VALUE(CURL_SOCKET_TIMEOUT, CURL_SHIM_SOCKET_TIMEOUT);
SAME_VALUE(CURLMSG_DONE, CURL_SHIM_MSG_DONE);
SAME_VALUE(CURL_GLOBAL_ALL, CURL_SHIM_GLOBAL_ALL);

/* The structs read and filled here, field by field. */
_Static_assert(sizeof(curl_socket_t) == sizeof(int), "curl_socket_t");
_Static_assert(sizeof(CURLMSG) == sizeof(int) && sizeof(CURLcode) == sizeof(int), "enums");
_Static_assert(sizeof(struct CURLMsg) == sizeof(struct curl_msg), "CURLMsg");
_Static_assert(offsetof(struct CURLMsg, easy_handle) == offsetof(struct curl_msg, easy_handle),
	       "CURLMsg.easy_handle");
_Static_assert(offsetof(struct CURLMsg, data) == offsetof(struct curl_msg, data), "CURLMsg.data");
_Static_assert(sizeof(struct curl_sockaddr) == sizeof(struct curl_shim_sockaddr), "curl_sockaddr");
_Static_assert(offsetof(struct curl_sockaddr, addrlen) ==
		       offsetof(struct curl_shim_sockaddr, addrlen),
	       "curl_sockaddr.addrlen");
_Static_assert(offsetof(struct curl_sockaddr, addr) == offsetof(struct curl_shim_sockaddr, addr),
	       "curl_sockaddr.addr");
