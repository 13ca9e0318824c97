/* SPDX-License-Identifier: MIT */
/* pam: the few functions of libpam (Linux-PAM) that a run as another user
 * needs to open a session of service "cron", as cron(8) opens one: found
 * with dlopen by the first job that runs as another user, so a tfd without
 * such a job neither links nor maps libpam. The types and constants below
 * are Linux-PAM's fixed ABI, declared here so that building tfd needs no
 * PAM headers; tests/pam/pam_abi.c checks them against <security/pam_appl.h>
 * (tests/bats/59-host-cron.bats). A build that cannot dlopen (the static
 * one, TFD_NO_FLEET) runs such jobs without PAM. */
#ifndef TFD_PAM_H
#define TFD_PAM_H

#include <stdbool.h>

typedef struct pam_handle pam_handle_t;

/* struct pam_message, pam_response, pam_conv */
struct tfd_pam_message {
	int msg_style;
	const char *msg;
};

struct tfd_pam_response {
	char *resp;
	int resp_retcode;
};

struct tfd_pam_conv {
	int (*conv)(int num_msg, const struct tfd_pam_message **msg, struct tfd_pam_response **resp,
		    void *appdata_ptr);
	void *appdata_ptr;
};

enum {
	TFD_PAM_SUCCESS = 0,
	TFD_PAM_BUF_ERR = 5,
	TFD_PAM_CONV_ERR = 19,
	TFD_PAM_TTY = 3,       /* pam_set_item's item */
	TFD_PAM_ERROR_MSG = 3, /* msg_style */
	TFD_PAM_TEXT_INFO = 4,
	TFD_PAM_SILENT = 0x8000,
	TFD_PAM_ESTABLISH_CRED = 0x0002,
	TFD_PAM_DELETE_CRED = 0x0004,
};

struct pam_library {
	void *handle;
	int (*start)(const char *service, const char *user, const struct tfd_pam_conv *conv,
		     pam_handle_t **pamh);
	int (*end)(pam_handle_t *pamh, int status);
	int (*set_item)(pam_handle_t *pamh, int type, const void *item);
	int (*acct_mgmt)(pam_handle_t *pamh, int flags);
	int (*setcred)(pam_handle_t *pamh, int flags);
	int (*open_session)(pam_handle_t *pamh, int flags);
	int (*close_session)(pam_handle_t *pamh, int flags);
	char **(*getenvlist)(pam_handle_t *pamh);
	const char *(*strerror)(pam_handle_t *pamh, int errnum);
};

/* The process's libpam, kept by its owner (tfd's main, for the whole run)
 * and handed to every job through its context; zeroed is not tried yet. */
struct pam_loader {
	struct pam_library lib;
	bool tried; /* the first call was made: LIB is the answer */
};

/* LOADER's libpam, loaded by the first call and kept: NULL when it is not
 * installed (or lacks a function above), or tfd cannot dlopen. Call it in
 * tfd itself, when a job that runs as another user is set up, so that
 * every run's child finds it mapped. The first call that finds no libpam
 * says so in one warning on stderr. */
const struct pam_library *pam_load(struct pam_loader *loader);

#endif
