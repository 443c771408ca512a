/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Shared by the fleet page's service (fleetview_svc.c: settings, the thread, the
 * endpoint) and its requests to the engine (fleetview_engine.c). Nothing outside
 * daemon/fleetview includes this.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <curl/curl.h>

#include "nvmond/core/cfg.h"
#include "nvmond/fleetview/fleetview_conf.h"
#include "nvmond/fleetview/fleetview.h"
#include "nvmond/fleetview/fleetview_svc.h"

#define TOKEN_MAX 4096

struct settings {
	char url[sizeof(((struct fleet_conf *)0)->query_url)];	      /* without a trailing '/' */
	char display[sizeof(((struct fleet_conf *)0)->query_url)];    /* without user:password@ */
	char token[TOKEN_MAX];					      /* "" = none */
	char user[sizeof(((struct fleet_conf *)0)->basic_auth_user)]; /* basic auth; "" = none */
	char password[TOKEN_MAX];
	char ca_file[CFG_PATH_MAX];
	char org_id[sizeof(((struct fleet_conf *)0)->org_id)];
	int64_t timeout_ms, interval_ms, stale_after_ms, forget_after_ms;
};

/* A rendered "hosts" array and its deflated form, shared by the requests that send it. */
struct blob {
	atomic_int refs;
	struct fv_deflated z;
	size_t len;
	char text[];
};

struct fleetview_svc {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the thread waits on it */
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
	struct settings set;
	uint64_t set_gen; /* bumped by every reconfigure */
	/* The last good view, of settings view_gen. */
	struct fv_view view;
	bool have_view;
	uint64_t view_gen;
	struct blob *hosts;
	int64_t updated_ms, updated_mono, query_ms, engine_ms;
	/* The last refresh's failure ("" = it worked), of settings error_gen. */
	char error[FLEETVIEW_ERR_MAX];
	uint64_t error_gen;
	int64_t error_since_ms;
	int64_t last_request_mono, last_attempt_mono;
	bool want;	 /* a request asked for a refresh */
	bool refreshing; /* the thread is taking a view */
};

struct body {
	char *p;
	size_t len, cap;
	bool too_big;
};

/* The transfers of a refresh: every part, the hosts known, the hosts gone. */
enum {
	X_KNOWN = FV_PARTS,
	X_GONE,
	X_MAX,
};

/* One request to the engine: a POST of a form to a path under query_url. */
struct xfer {
	CURL *easy; /* kept from refresh to refresh: its connection stays open */
	char *form;
	struct body body;
	char url[sizeof(((struct settings *)0)->url) + 32];
	char cerr[CURL_ERROR_SIZE];
	CURLcode done;
	bool running;
};

/* The engine, its deadline and the handles for one refresh (the thread keeps them). */
struct call {
	struct fleetview_svc *svc;
	const struct settings *set;
	CURLM *multi;
	struct xfer x[X_MAX];
	struct curl_slist *headers;
	int64_t deadline_mono;
	int64_t engine_ms; /* time spent waiting for answers */
};

/** fleetview_errf() - A message into @err (FLEETVIEW_ERR_MAX bytes), cut to fit. */
void fleetview_errf(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * fleetview_refresh() - Ask the engine for every part of the view and merge the
 * answers, on @k's handles, before @k's deadline; @prev the last good view (NULL: none).
 * Return: 0 with @ret filled, or negative errno with @err (FLEETVIEW_ERR_MAX) filled.
 */
int fleetview_refresh(struct call *k, const struct fv_view *prev, struct fv_view *ret, char *err);

/** fleetview_call_free() - The handles of @k (its transfers, the multi handle, the headers). */
void fleetview_call_free(struct call *k);
