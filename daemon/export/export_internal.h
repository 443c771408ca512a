/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Shared by the export files only (export_*.c): an export's settings as checked
 * at load, and one request to the engine. Nothing outside daemon/export includes it.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/export/rw_answer.h"
#include "nvmond/export/rw_encode.h"

#define EXPORT_ERR_MAX 512
/* External labels: job, instance, host and the host's labels. */
#define EXPORT_EXT_MAX (3 + CFG_LABELS_MAX)

/* The settings of one [export "NAME"] of type remote_write; secrets read already. */
struct export_conf {
	char name[CFG_SINK_NAME_MAX];
	char url[CFG_SINK_VAL_MAX];
	char url_public[CFG_SINK_VAL_MAX]; /* scheme://host[:port]/path: for logs and the API */
	int64_t interval_ms;
	int64_t poll_ms; /* [daemon] poll_interval: a round follows a poll (rw_round.h) */
	int64_t timeout_ms;
	char bearer[CFG_SINK_VAL_MAX];	       /* from bearer_token_file; "" = none */
	char basic_user[CFG_SINK_VAL_MAX];     /* "" = no basic auth */
	char basic_password[CFG_SINK_VAL_MAX]; /* from basic_auth_password_file */
	char tls_ca_file[CFG_SINK_VAL_MAX];    /* "" = the system's CAs */
	/* The labels every series of this export carries (rw_label points into ext_v). */
	struct cfg_label ext_v[EXPORT_EXT_MAX];
	size_t n_ext;
};

/**
 * export_confs_load() - The [export "NAME"] sections of @c, checked: FILE:LINE of
 * the key at fault in @err. Secrets are read here.
 * @ret: an array of *@ret_n (NULL when none); free() it (export_conf_wipe() first)
 * Return: 0, or -EINVAL / -ENOMEM.
 */
int export_confs_load(const struct cfg *c, struct export_conf **ret, size_t *ret_n, char *err,
		      size_t errsize);

/** export_conf_wipe() - Zero the secrets of @c (before it is freed or replaced). */
void export_conf_wipe(struct export_conf *c);

/* One request to the engine, as it went. */
struct export_reply {
	long status;	      /* 0: no HTTP answer */
	char retry_after[64]; /* the header's value; "" = none */
	char body[1024];      /* the start of the body */
	size_t body_len;
	char curl_error[256]; /* when status is 0 */
};

/**
 * export_http_post() - POST @body (@len bytes, snappy) to @c's url with the
 * remote-write headers and @c's authentication, TLS CA and timeout, on @handle
 * (a CURL *, kept between requests: the connection is reused). Stops early when
 * *@stop becomes true. Never logs; the answer goes to @ret.
 * Return: 0 when an answer (any status) came, -EIO when none did (@ret->curl_error),
 * -ECANCELED when stopped.
 */
int export_http_post(void *handle, const struct export_conf *c, const uint8_t *body, size_t len,
		     atomic_bool *stop, struct export_reply *ret);

/** export_http_new() - A CURL handle for export_http_post(). Return: NULL on ENOMEM. */
void *export_http_new(void);

/** export_http_free() - Accepts NULL. */
void export_http_free(void *handle);
