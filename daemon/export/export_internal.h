/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Shared by the export files only (export_*.c): an export's settings as checked
 * at load, and one request to the engine. Nothing outside daemon/export includes it.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/export/rw_answer.h"
#include "nvmond/export/rw_encode.h"
#include "nvmond/export/rw_text.h"
#include "nvmond/metrics/metrics.h"

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

/*
 * One export's thread and the service (export_svc.c runs them, export_stored.c
 * sends the stored part): a drive's cursor, what the thread and the main loop share
 * under the lock, and the thread's own state.
 */
struct xdev {
	int64_t id;
	char name[64], model[48], serial[32]; /* as /metrics writes them (clean) */
	int64_t sent_ms;		      /* the cursor */
	bool dirty;			      /* moved, not yet recorded */
};

struct exporter {
	struct export_svc *svc;
	char name[CFG_SINK_NAME_MAX];
	pthread_t thread;
	bool started;
	atomic_bool stop;
	pthread_mutex_t lock; /* below, up to the thread's own state */
	pthread_cond_t cond;
	struct export_conf next; /* a reload's settings */
	bool changed;
	struct metrics_export st;
	char last_error[RW_MESSAGE_MAX];
	char url_public[CFG_SINK_VAL_MAX];
	int64_t interval_ms;
	bool catching_up;
	/* Between the thread and the main loop's export_svc_round(), under lock. */
	int64_t round_from_mono; /* waiting: a poll's round ending from then on starts it; 0: not */
	bool kicked;		 /* a poll's round started it */
	struct metrics_gathered *gathered; /* the live part's share, taken in that poll's wakeup */
	struct export_cursor *pending;	   /* cursors that moved, not recorded yet */
	size_t n_pending, cap_pending;
	/* The thread's own. */
	struct export_conf conf;
	struct store *ro;
	void *http;
	struct rw_batch *batch;
	struct rw_keys live_prev;
	int64_t live_last_ts;
	int64_t created_ms;
	bool ready; /* created_ms and the cursors are read */
	struct xdev *devs;
	size_t n_devs;
	unsigned failures;	 /* in a row */
	int64_t not_before_mono; /* the backoff */
	int64_t drop_logged_mono;
	uint64_t drops_unlogged;
	char drop_logged[RW_MESSAGE_MAX]; /* the last refusal logged */
};

struct export_svc {
	struct mainq *mainq;
	struct store *writer; /* main loop only */
	struct fleet *fleet;
	struct metrics_source *metrics;
	char db_path[CFG_PATH_MAX];
	pthread_mutex_t lock; /* the lists */
	struct exporter **v;
	size_t n;
	struct exporter **retired; /* stopped by a reload, joined at free */
	size_t n_retired;
	struct api_endpoint endpoints[1];
};

/**
 * export_send_batch() - Send what @x->batch holds, once, after the backoff (unless
 * that ends past @deadline: then RW_RETRY without a request); @what names it in logs.
 * Return: what to do next (rw_answer.h).
 */
enum rw_action export_send_batch(struct exporter *x, int64_t deadline, const char *what);
/** export_pending_put() - Under @x->lock: @id's cursor at @sent_ms among the pending ones. Return: 0 or -ENOMEM. */
int export_pending_put(struct exporter *x, int64_t id, int64_t sent_ms);
/** export_refresh_devices() - The drives the store knows, with their cursors (kept for the ones known already). Return: 0 or negative errno. */
int export_refresh_devices(struct exporter *x);
/** export_refresh_backlog() - The backlog and lag, for /metrics and the API. */
void export_refresh_backlog(struct exporter *x);
/**
 * export_catch_up_once() - One batch of stored samples from the cursors on, sent.
 * Return: true when it went (accepted or refused for good) and there may be more;
 * false when there is nothing left to send or it must wait (failing engine, stop).
 */
bool export_catch_up_once(struct exporter *x, int64_t deadline);
