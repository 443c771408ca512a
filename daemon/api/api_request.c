/* SPDX-License-Identifier: MIT */
/*
 * The HTTP server's requests: the read-only store handles of the pool, the
 * token, the request's body and parameters, and the MHD callbacks that take a
 * request to its endpoint (api_route.c) or to the static files. api.c runs the
 * servers these callbacks serve.
 */
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "nvmond/api/api.h"
#include "nvmond/core/log.h"
#include "nvmond/api/render.h"
#include "nvmond/store/store.h"
#include "nvmond/util/timefmt.h"

#include "nvmond/api/api_frame.h"
#include "nvmond/api/api_host.h"
#include "nvmond/api/api_params.h"
#include "nvmond/api/api_route.h"
#include "nvmond/api/api_tls.h"

#include "api_internal.h"

/* ---- read-only store handles ------------------------------------------- */

/* A handle for this thread alone until it is given back. */
static int pool_take(struct api *a, struct store **ret, char ret_err[STORE_ERR_MAX])
{
	struct store *s = NULL;

	pthread_mutex_lock(&a->lock);
	if (a->n_idle > 0)
		s = a->idle[--a->n_idle];
	pthread_mutex_unlock(&a->lock);
	if (s) {
		*ret = s;
		return 0;
	}
	return store_open_readonly(a->db_path, ret, ret_err);
}

/* Keep @s for the next request, or close it when @broken or the pool is full. */
static void pool_give(struct api *a, struct store *s, bool broken)
{
	if (!broken) {
		pthread_mutex_lock(&a->lock);
		if (a->n_idle < a->cap_idle) {
			a->idle[a->n_idle++] = s;
			s = NULL;
		}
		pthread_mutex_unlock(&a->lock);
	}
	store_close(s);
}

int api_store_take(struct api *a, struct store **ret, char *ret_err)
{
	return pool_take(a, ret, ret_err);
}

void api_store_give(struct api *a, struct store *s, bool broken)
{
	pool_give(a, s, broken);
}

/* ---- endpoints ---------------------------------------------------------- */

struct params {
	struct api_query_param v[API_PARAMS_MAX];
	size_t n;
	bool overflow;
};

static enum MHD_Result param_collect(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	(void)kind;
	struct params *p = cls;

	if (p->n == API_PARAMS_MAX) {
		p->overflow = true;
		return MHD_NO;
	}
	p->v[p->n++] = (struct api_query_param){.key = key, .value = value};
	return MHD_YES;
}

/* What we keep about one request between MHD's calls. */
struct req_ctx {
	bool started;		       /* the headers were weighed (the first call) */
	bool many_params;	       /* more than API_PARAMS_MAX: MHD was kept from them */
	const struct api_endpoint *ep; /* the endpoint that takes it; NULL: a static file */
	int64_t id;
	char *body;
	size_t body_len;
	bool too_big;
};

/*
 * Constant-time: the token must not leak through timing. The scheme is
 * case-insensitive and followed by one or more spaces (RFC 7235 section 2.1).
 */
static bool token_ok(const char *token, struct MHD_Connection *c)
{
	const char *h =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	unsigned char diff = 0;

	if (!token || !h || strncasecmp(h, "Bearer ", 7) != 0)
		return false;
	h += 7;
	while (*h == ' ')
		h++;
	size_t n = strlen(token), m = strlen(h);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)token[i] ^ (unsigned char)(i < m ? h[i] : 0);
	return diff == 0 && n == m;
}

/*
 * Whether the request may reach @ep: /healthz always; /metrics with its own
 * token when one is set (or the API token), else as any read; a mutating
 * endpoint with the token; a read with the token when auth = all.
 */
static bool auth_ok(const struct api *a, const struct api_endpoint *ep, struct MHD_Connection *c)
{
	if (ep->flags & API_EP_OPEN)
		return true;
	if ((ep->flags & API_EP_METRICS) && a->metrics_token)
		return token_ok(a->metrics_token, c) || token_ok(a->token, c);
	if ((ep->flags & API_EP_AUTH) || a->auth == API_AUTH_ALL)
		return token_ok(a->token, c);
	return true;
}

/* An endpoint that does not read its body takes none, or JSON it ignores ({}). */
static bool body_empty_or_json(const struct req_ctx *rc)
{
	json_t *j;

	if (rc->body_len == 0)
		return true;
	j = json_loadb(rc->body, rc->body_len, JSON_DECODE_ANY, NULL);
	json_decref(j);
	return j != NULL;
}

static enum MHD_Result handle_ext(struct api *a, struct MHD_Connection *c, const char *url,
				  const char *method, struct req_ctx *rc)
{
	const struct api_endpoint *ep = rc->ep;
	struct api_reply r = {0};
	struct params p = {.n = 0};
	char serr[STORE_ERR_MAX], err[API_ERR_MAX];
	struct store *s = NULL;
	int e;

	if (rc->too_big)
		return api_http_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "request body too large");
	if (!(ep->flags & API_EP_BODY) && !api_method_is_read(method) && !body_empty_or_json(rc))
		return api_http_error(c, MHD_HTTP_BAD_REQUEST,
				      "the request body must be empty or JSON");
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, param_collect, &p);
	if (p.overflow)
		return api_http_error(c, MHD_HTTP_BAD_REQUEST, "too many query parameters");
	/* An endpoint without a query: every parameter is unknown, said as everywhere. */
	if (!(ep->flags & API_EP_QUERY) && api_params_parse_query(p.v, p.n, NULL, 0, err) < 0)
		return api_http_error(c, MHD_HTTP_BAD_REQUEST, err);
	if (ep->flags & API_EP_STORE) {
		e = pool_take(a, &s, serr);
		if (e < 0) {
			log_warn("api: cannot open %s read-only: %s", a->db_path, serr);
			return api_http_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					      "database unavailable");
		}
	}
	struct api_request req = {
		.method = method,
		.path = url,
		.id = rc->id,
		.params = p.v,
		.n_params = p.n,
		.body = rc->body ? rc->body : "",
		.body_len = rc->body_len,
		.store = s,
		.api = a,
		.fleet = a->fleet,
		.now_ms = timefmt_now_ms(),
	};
	ep->fn(ep->ctx, &req, &r);
	if (s)
		pool_give(a, s, (r.status ? r.status : 200) >= 500);
	if (!r.json && !r.text && !r.stream_read)
		r.json = json_object(); /* a handler that says nothing answers {} */
	return api_http_reply_ext(c, &r, api_method_is_read(method), !strcmp(method, "HEAD"));
}

static enum MHD_Result frame_field(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	(void)kind;
	api_frame_field(cls, key, value);
	return MHD_YES;
}

/* An answer after which the connection closes: the request's framing is not to be trusted. */
static enum MHD_Result error_close(struct MHD_Connection *c, unsigned status, const char *msg)
{
	api_conn_close_after(api_conn_of(c));
	return api_http_error(c, status, msg);
}

/*
 * The headers are in, none of the body is read: weigh them. Order: the framing and
 * the fields that must come once (400, 411, 501: RFC 9112), the Host (400, 421), the
 * query's size (400), the route (404, 405), a reserve connection's one endpoint
 * (503), the bearer token (401). Sets @ret_answered when an answer is queued (the
 * rest of the request is then discarded and the connection closed by MHD).
 */
static enum MHD_Result request_start(struct api *a, struct MHD_Connection *c, const char *url,
				     const char *method, const char *version, struct req_ctx *rc,
				     bool *ret_answered)
{
	struct api_conn *conn = api_conn_of(c);
	char err[API_ERR_MAX], allow[API_ALLOW_MAX];
	bool read = api_method_is_read(method);
	struct api_frame f;
	const char *msg;
	unsigned status;
	int r;

	*ret_answered = true;
	api_frame_init(&f);
	MHD_get_connection_values(c, MHD_HEADER_KIND, frame_field, &f);
	status = api_frame_check(&f, strcmp(version, MHD_HTTP_VERSION_1_0) != 0, &msg);
	if (status)
		return error_close(c, status, msg);
	switch (api_host_check(&a->hosts, f.host)) {
	case API_HOST_OK:
		break;
	case API_HOST_BAD:
		return error_close(c, MHD_HTTP_BAD_REQUEST, "the Host header is not a host");
	case API_HOST_UNKNOWN:
		return api_http_error(c, MHD_HTTP_MISDIRECTED_REQUEST,
				      "this server does not answer to the name in Host: add it to "
				      "[http] allowed_hosts");
	}
	if (rc->many_params)
		return api_http_error(c, MHD_HTTP_BAD_REQUEST, "too many query parameters");
	r = api_route_find(a->endpoints, a->n_endpoints, method, url, &rc->ep, &rc->id, err, allow);
	if (r == -EINVAL)
		return api_http_error(c, MHD_HTTP_BAD_REQUEST, err);
	if (r == -ENOENT)
		return api_http_error(c, MHD_HTTP_NOT_FOUND, err);
	if (r == -EPERM)
		return api_http_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				      json_pack("{s:s}", "error", "method not allowed"), allow,
				      false);
	if (api_conn_reserve(conn) &&
	    !(rc->ep && (rc->ep->flags & API_EP_HEALTH) && read && f.length == 0))
		return error_close(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "every connection is taken: only /healthz is answered now");
	if (r == 0 && !read)
		return api_http_static(a->web_root, c, url, false); /* 405 for a file, else 404 */
	/* Before any of the body is read: a stranger's upload is not buffered. */
	if (rc->ep && !auth_ok(a, rc->ep, c))
		return api_http_error(c, MHD_HTTP_UNAUTHORIZED,
				      a->token || (rc->ep->flags & API_EP_METRICS)
					      ? "missing or wrong bearer token"
					      : "this endpoint needs a token: set [http] token");
	*ret_answered = false;
	return MHD_YES;
}

/*
 * MHD calls this once when the headers are in, again for every piece of body,
 * and once more at the end. Requests are answered at the end (a response queued
 * earlier makes MHD close the connection, losing keep-alive); a body is kept
 * only for endpoints and discarded otherwise. A request no endpoint takes is
 * refused at once unless it may read a static file.
 */
enum MHD_Result api_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			   const char *version, const char *upload_data, size_t *upload_data_size,
			   void **req_cls)
{
	struct api_server *srv = cls;
	struct api *a = srv->api;
	struct req_ctx *rc = *req_cls;
	struct api_conn *conn = api_conn_of(c);
	enum MHD_Result ret;
	bool answered;

	if (!rc) {
		rc = calloc(1, sizeof(*rc)); /* the URI callback had no memory */
		if (!rc)
			return MHD_NO;
		*req_cls = rc;
	}
	if (!rc->started) {
		rc->started = true;
		ret = request_start(a, c, url, method, version, rc, &answered);
		/* The headers are in: the body has its own deadline, an answer none. */
		api_conns_enter(a->conns, conn, answered ? API_CONN_ANSWER : API_CONN_BODY);
		return ret;
	}
	if (*upload_data_size) {
		if (rc->ep && !rc->too_big) {
			size_t n = *upload_data_size;
			if (rc->body_len + n > API_BODY_MAX) {
				rc->too_big = true;
			} else {
				char *b = realloc(rc->body, rc->body_len + n + 1);
				if (!b)
					return MHD_NO;
				memcpy(b + rc->body_len, upload_data, n);
				rc->body = b;
				rc->body_len += n;
				b[rc->body_len] = '\0';
			}
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* The request is in: the handler runs, then the client must take its answer. */
	api_conns_enter(a->conns, conn, API_CONN_ANSWER);
	if (!rc->ep)
		return api_http_static(a->web_root, c, url, api_method_is_read(method));
	atomic_fetch_add(&srv->busy, 1); /* new connections go elsewhere meanwhile */
	ret = handle_ext(a, c, url, method, rc);
	atomic_fetch_sub(&srv->busy, 1);
	return ret;
}

/*
 * MHD calls this with a request's target before it parses the query into records
 * of its own, about 56 bytes each of the connection's 32 KiB: 600 parameters ran
 * out of it, and 0.9.75 then queued a 431 that its request-line state overwrote,
 * so the request hung until the timeout (issue 23). Past API_PARAMS_MAX the query
 * is cut here, in MHD's buffer that @uri points into (parsed after this call), and
 * the request is answered 400 at once. Return: the request's context (*req_cls).
 */
void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	(void)c;
	struct req_ctx *rc = calloc(1, sizeof(*rc));
	char *query = strchr(uri, '?');
	size_t n = 0;

	if (!rc)
		return NULL;
	if (query && query[1]) {
		n = 1;
		for (const char *p = query; *p; p++)
			n += *p == '&';
	}
	if (n > API_PARAMS_MAX) {
		query[1] = '\0';
		rc->many_params = true;
	}
	return rc;
}

void request_done(void *cls, struct MHD_Connection *c, void **req_cls,
		  enum MHD_RequestTerminationCode toe)
{
	(void)toe;
	struct api_server *srv = cls;
	struct api *a = srv->api;
	struct req_ctx *rc = *req_cls;

	/* Answered: the next request has its own deadline from now. */
	api_conns_enter(a->conns, api_conn_of(c), API_CONN_REQUEST);
	if (!rc)
		return;
	free(rc->body);
	free(rc);
	*req_cls = NULL;
}

void connection_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		       enum MHD_ConnectionNotificationCode code)
{
	struct api_server *srv = cls;
	struct api *a = srv->api;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		*socket_context = ci ? api_conns_link(a->conns, ci->connect_fd) : NULL;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		api_conns_remove(a->conns, *socket_context);
		*socket_context = NULL;
		atomic_fetch_sub(&srv->conns, 1);
	}
}

size_t api_unescape_cb(void *cls, struct MHD_Connection *c, char *s)
{
	(void)c;
	(void)cls;
	return api_unescape(s);
}
