/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "nvmond/monitor/fleet.h"

/*
 * The HTTP server (libmicrohttpd + jansson). It runs in its own threads so a
 * slow client never delays polling; it reads devices from the fleet and samples
 * through its own read-only store handles.
 */
struct api;
struct store;

#define API_ERR_MAX	256
#define API_BODY_MAX	65536 /* request bodies beyond this get 413 */
#define API_PARAMS_MAX	16
#define API_THREADS_MAX 64 /* api_config.threads, at most */
/*
 * Connections kept past max_connections for /healthz alone (one request each,
 * closed after it, API_RESERVE_MS at most): whatever holds the others, the
 * health check is answered.
 */
#define API_RESERVE_CONNECTIONS 16
#define API_RESERVE_MS		2000

/*
 * Every route is an endpoint: the feature modules (and api_devices.c for the
 * devices, their samples and /healthz) hand tables of struct api_endpoint to
 * api_start(). Before any of them sees a request, the server refuses one framed
 * ambiguously or with a Host it does not answer to (api_frame.h, api_host.h:
 * docs/api.md#conventions). It matches the path against each pattern
 * ("/api/v1/devices/{id}/events": {id} is a positive integer, anything else
 * there is a 400), answers 405 with Allow when only the method differs and 404
 * for any other path under /api/ (and /healthz, /metrics), checks the bearer
 * token (API_EP_AUTH; every endpoint but API_EP_OPEN with API_AUTH_ALL; the
 * metrics token for API_EP_METRICS), reads a request body up to API_BODY_MAX, and calls the
 * handler on an HTTP thread. Any other path is a static file of the web root.
 * A handler reads its query with api_params_parse() (api_params.h) and says so
 * with API_EP_QUERY; for any other endpoint every query parameter is a 400. One
 * that reads its body says so with API_EP_BODY; any other takes an empty or JSON
 * body only (400).
 * Handlers must be reentrant; state owned by the main loop is reached through
 * mainq_call() (nvmond/core/mainq.h).
 */
struct api_query_param {
	const char *key;
	const char *value; /* NULL for "?key" without '=' */
};

struct api_request {
	const char *method;
	const char *path;		      /* decoded */
	int64_t id;			      /* the {id} of the pattern; 0 when it has none */
	const struct api_query_param *params; /* read with api_params_parse() */
	size_t n_params;
	const char *body; /* NUL-terminated; "" when none */
	size_t body_len;
	struct store *store; /* read-only handle for this request (API_EP_STORE), else NULL */
	struct api *api;     /* for a stream that reads later: api_store_take() */
	struct fleet *fleet;
	int64_t now_ms;
};

/*
 * A body produced while it is sent (chunked, its length unknown): read() copies
 * up to @max bytes into @buf and returns how many (> 0), 0 at the end, or a
 * negative errno (the connection is then cut); free() releases @cls, and is
 * called exactly once, also when the body is never sent (HEAD, a failure).
 */
typedef ssize_t (*api_stream_read_fn)(void *cls, char *buf, size_t max);
typedef void (*api_stream_free_fn)(void *cls);

struct api_reply {
	unsigned status; /* 0 = 200 */
	json_t *json;	 /* body, stolen; or */
	char *text;	 /* a malloc()ed non-JSON body, freed by the server; or */
	size_t text_len;
	api_stream_read_fn stream_read; /* a streamed body: see above */
	api_stream_free_fn stream_free;
	void *stream;
	const char *content_type; /* for text (default text/plain) and a stream
				     (default application/json); JSON is application/json */
};

typedef void (*api_handler_fn)(void *ctx, const struct api_request *req, struct api_reply *ret);

enum api_endpoint_flags {
	API_EP_AUTH = 1 << 0,	 /* needs "Authorization: Bearer <token>": else 401 */
	API_EP_STORE = 1 << 1,	 /* give the handler a read-only store handle */
	API_EP_QUERY = 1 << 2,	 /* reads its query (api_params_parse()); else any is a 400 */
	API_EP_OPEN = 1 << 3,	 /* never needs a token, whatever api_config.auth says (/healthz) */
	API_EP_METRICS = 1 << 4, /* takes api_config.metrics_token (or the token) when set */
	API_EP_HEALTH = 1 << 5,	 /* also answered on a reserve connection (/healthz) */
	API_EP_BODY = 1 << 6,	 /* reads its body; else a POST's body must be empty or JSON */
};

struct api_endpoint {
	const char *method;  /* "GET" (HEAD comes with it), "POST", "DELETE", … */
	const char *pattern; /* "/api/v1/alerts/{id}/ack" */
	unsigned flags;
	api_handler_fn fn;
	void *ctx;
};

/** api_reply_error() - Fill @ret with {"error": msg} and @status, dropping any body. */
void api_reply_error(struct api_reply *ret, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * api_reply_stream() - Make @ret a streamed body (see api_stream_read_fn), taking
 * @cls: from now on it is released with @free_fn whatever happens.
 */
void api_reply_stream(struct api_reply *ret, api_stream_read_fn read_fn, api_stream_free_fn free_fn,
		      void *cls, const char *content_type);

/* Which requests need the bearer token ([http] auth). */
enum api_auth {
	API_AUTH_MUTATIONS, /* API_EP_AUTH endpoints only */
	API_AUTH_ALL,	    /* every endpoint but API_EP_OPEN (static files stay open) */
};

struct api_tls;

struct api_config {
	const char *host;	    /* address to bind, e.g. "127.0.0.1", "::" */
	uint16_t port;		    /* 0 = pick a free port (tests), see api_port() */
	const char *db_path;	    /* database file for read-only handles */
	const char *web_root;	    /* directory of static files */
	unsigned threads;	    /* worker threads, 1 … API_THREADS_MAX */
	int64_t timeout_ms;	    /* idle connection timeout */
	int64_t request_timeout_ms; /* request line and headers within this; 0 = 30 s */
	int64_t body_timeout_ms;    /* the body within this of the headers; 0 = 10 s */
	int64_t send_timeout_ms;    /* the client takes some of an answer this often; 0 = 10 s */
	unsigned max_connections;   /* open at once; 0 = 256 */
	unsigned max_connections_per_ip;      /* open at once from one address; 0 = no limit */
	struct fleet *fleet;		      /* borrowed; outlives the api */
	const struct api_endpoint *endpoints; /* every route but static files; copied */
	size_t n_endpoints;
	const char *token; /* bearer token for API_EP_AUTH endpoints; NULL/"" = none set */
	enum api_auth auth;
	const char *metrics_token;  /* for API_EP_METRICS; NULL/"" = like any other read */
	struct api_tls *tls;	    /* borrowed, outlives the api: serve HTTPS; NULL = HTTP */
	const char *tls_priorities; /* GnuTLS priority string; NULL/"" = API_TLS_PRIORITIES */
	const char *allowed_hosts;  /* more names for Host (api_host.h); NULL/"" = none */
};

/**
 * api_store_take() - A read-only store handle for this thread alone until it is given
 * back, for a streamed body that reads as it is sent (the request's own handle goes
 * back to the pool when the handler returns).
 * Return: 0, or negative errno with @ret_err filled (STORE_ERR_MAX bytes).
 */
int api_store_take(struct api *a, struct store **ret, char *ret_err);

/** api_store_give() - Give @s back; @broken: it failed, close it. */
void api_store_give(struct api *a, struct store *s, bool broken);

/**
 * api_start() - Bind and start serving.
 * Return: 0, or negative errno with @ret_err filled.
 */
int api_start(const struct api_config *c, struct api **ret, char ret_err[API_ERR_MAX]);

/** api_port() - The bound port. */
uint16_t api_port(const struct api *a);

/** api_stop() - Stop serving and free. Accepts NULL. Return: NULL. */
struct api *api_stop(struct api *a);
