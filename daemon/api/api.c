/* SPDX-License-Identifier: MIT */
/*
 * The HTTP server: libmicrohttpd servers of one thread each, in threads of their
 * own, so a slow client never delays the main loop; the connections are accepted,
 * limited and timed in api_conn.c. Devices come from the fleet (a consistent copy under its
 * mutex); samples come from read-only store handles kept in a small pool, each
 * used by one thread at a time. Every route is an endpoint (api.h); routing lives
 * in api_route.c, query parsing in api_params.c, static file resolution in
 * api_static.c, sending answers (tags, 304, gzip, files, streams) in
 * api_reply.c; this file takes requests and runs the server.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

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

#define API_CONNECTION_LIMIT 256 /* when the config says nothing */
#define API_LISTEN_BACKLOG   512 /* a burst of clients waits here for the acceptor */
/* Per connection: the request line and headers must fit (else 414 or 431), MHD's own default. */
#define API_CONNECTION_MEMORY (32 * 1024)

/*
 * One libmicrohttpd server of one thread. The pool is [http] threads of them, and the
 * acceptor gives a new connection to one not running a handler (api_conn_rule_pick()):
 * MHD's own pool gives connections added from outside to its threads in turn, and a
 * quarter of them waited behind a self-test start on a hung drive. The reserve has
 * one more of its own.
 */
struct api_server {
	struct api *api;
	struct MHD_Daemon *mhd;
	atomic_uint busy;  /* handlers running on its thread */
	atomic_uint conns; /* connections handed to it and not closed yet */
};

struct api {
	struct api_server *pool; /* ordinary connections */
	unsigned n_pool;
	struct api_server health; /* the reserve, /healthz only */
	int listen_fd;
	uint16_t port;
	char *db_path;
	char *web_root; /* realpath(), NULL when no static files are served */
	struct fleet *fleet;
	struct api_endpoint *endpoints; /* copied from the config */
	size_t n_endpoints;
	char *token; /* NULL: none configured */
	enum api_auth auth;
	char *metrics_token;	 /* NULL: /metrics follows auth */
	struct api_tls *tls;	 /* borrowed; NULL: plain HTTP */
	struct api_conns *conns; /* limits and deadlines of the connections */
	struct api_hosts hosts;	 /* the names Host may give */

	pthread_mutex_t lock; /* guards the idle handles below */
	struct store **idle;
	size_t n_idle, cap_idle;
};

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
static enum MHD_Result api_handle(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
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
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
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

static void request_done(void *cls, struct MHD_Connection *c, void **req_cls,
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

static void connection_notify(void *cls, struct MHD_Connection *c, void **socket_context,
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

static size_t api_unescape_cb(void *cls, struct MHD_Connection *c, char *s)
{
	(void)c;
	(void)cls;
	return api_unescape(s);
}

/* ---- start / stop ------------------------------------------------------- */

/*
 * Bind the listening socket ourselves: errors keep their errno, any host form
 * getaddrinfo() knows works, and port 0 is easy to read back.
 */
static int listen_open(const char *host, uint16_t port, int *ret_fd, uint16_t *ret_port,
		       char ret_err[API_ERR_MAX])
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	struct addrinfo *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char service[8];
	int fd = -1, r, g;

	if (host && !host[0])
		host = NULL;
	snprintf(service, sizeof(service), "%u", (unsigned)port);
	g = getaddrinfo(host, service, &hints, &res);
	if (g != 0) {
		snprintf(ret_err, API_ERR_MAX, "cannot resolve listen address '%s': %s",
			 host ? host : "*", gai_strerror(g));
		return -EADDRNOTAVAIL;
	}

	r = -EADDRNOTAVAIL;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		const int one = 1;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0) {
			r = -errno;
			continue;
		}
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6) {
			/* "::" serves IPv4 too; a specific IPv6 address only itself. */
			const struct sockaddr_in6 *s6 = (const void *)ai->ai_addr;
			int v6only = !IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr);

			(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
		}
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, API_LISTEN_BACKLOG) == 0) {
			r = 0;
			break;
		}
		r = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (r < 0) {
		snprintf(ret_err, API_ERR_MAX, "cannot listen on %s:%u: %s", host ? host : "*",
			 (unsigned)port, strerror(-r));
		return r;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		r = -errno;
		close(fd);
		snprintf(ret_err, API_ERR_MAX, "getsockname: %s", strerror(-r));
		return r;
	}
	*ret_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						   : ((struct sockaddr_in *)&ss)->sin_port);
	*ret_fd = fd;
	return 0;
}

/*
 * HTTPS when the server has a certificate (api_tls.c): the flag and the options
 * to add to MHD_start_daemon(); @ret_opts always ends with MHD_OPTION_END.
 */
static int tls_options(struct api *a, const char *priorities, unsigned *ret_flags,
		       struct MHD_OptionItem ret_opts[API_TLS_MHD_OPTIONS + 1],
		       char ret_err[API_ERR_MAX])
{
	int n = 0;

	*ret_flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	if (a->tls) {
		n = api_tls_mhd_options(
			a->tls, priorities && priorities[0] ? priorities : API_TLS_PRIORITIES,
			ret_opts, ret_err);
		if (n < 0)
			return n;
		*ret_flags |= MHD_USE_TLS;
	}
	ret_opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	return 0;
}

/*
 * Fixed malloc thresholds for the whole process (issue 14 §1: RSS under load). glibc
 * raises its mmap threshold to the largest block freed so far, and its trim threshold
 * to twice that: a year of hourly rows read at once (4.5 MB, by the wear report on the
 * main loop or a series cache fill) lifted them so that the arenas kept up to 9 MB
 * each of what they had freed. Fixed, blocks of 1 MiB and more are mapped and given
 * back when freed, and an arena keeps at most 1 MiB free at its top: an answer's
 * buffers (about 0.7 MB for a year at 2,000 points) stay there for the next request,
 * without faulting their pages in again. Both are set, since a threshold raised before
 * this call would stay. Measured in tests/bench/README.md (series-bench.sh).
 */
static void malloc_tune(void)
{
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 20);
}

/* api_conn_take_fn: the acceptor hands a connection to a server of its kind. */
static int conn_take(void *cls, int fd, const struct sockaddr *addr, socklen_t addr_len,
		     bool reserve)
{
	struct api *a = cls;
	struct api_server *srv = &a->health;
	int r = 0;

	if (!reserve) {
		struct api_conn_server v[API_THREADS_MAX];

		for (unsigned i = 0; i < a->n_pool; i++)
			v[i] = (struct api_conn_server){.busy = atomic_load(&a->pool[i].busy),
							.conns = atomic_load(&a->pool[i].conns)};
		srv = &a->pool[api_conn_rule_pick(v, a->n_pool)];
	}
	atomic_fetch_add(&srv->conns, 1);
	if (MHD_add_connection(srv->mhd, fd, addr, addr_len) != MHD_YES) {
		r = errno ? -errno : -EIO;
		atomic_fetch_sub(&srv->conns, 1);
	}
	return r;
}

/* One server of one thread, serving connections handed to it (MHD_add_connection()). */
static struct MHD_Daemon *server_start(struct api_server *srv, unsigned flags,
				       struct MHD_OptionItem *tls_opts, unsigned timeout_s,
				       unsigned limit)
{
	return MHD_start_daemon(
		flags | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC, 0, NULL, NULL, api_handle, srv,
		MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
		MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)API_CONNECTION_MEMORY, MHD_OPTION_UNESCAPE_CALLBACK, api_unescape_cb, NULL,
		MHD_OPTION_URI_LOG_CALLBACK, uri_seen, NULL, MHD_OPTION_NOTIFY_COMPLETED,
		request_done, srv, MHD_OPTION_NOTIFY_CONNECTION, connection_notify, srv,
		MHD_OPTION_END);
}

static int64_t ms_or(int64_t ms, int64_t dflt)
{
	return ms > 0 ? ms : dflt;
}

/*
 * The names Host may give (api_host.h; IP addresses are always taken): localhost,
 * this machine's name, the listen address when it is a name, and [http]
 * allowed_hosts. No resolver is asked: a name's other forms (the FQDN) are added
 * by hand.
 */
static int hosts_build(const struct api_config *c, struct api_hosts *h, char ret_err[API_ERR_MAX])
{
	char name[256], err[200];
	int r;

	(void)api_hosts_add(h, "localhost", strlen("localhost"));
	if (gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		(void)api_hosts_add(h, name, strlen(name)); /* an odd name is just not added */
	}
	if (c->host && c->host[0])
		(void)api_hosts_add(h, c->host, strlen(c->host)); /* an IPv6 address is not */
	r = api_hosts_parse(h, c->allowed_hosts ? c->allowed_hosts : "", err, sizeof(err));
	if (r < 0) {
		snprintf(ret_err, API_ERR_MAX, "[http] allowed_hosts: %s", err);
		return r;
	}
	return 0;
}

/* What @a keeps of @c: endpoints, tokens, the pool of @threads servers, the web root. */
static int api_take_config(struct api *a, const struct api_config *c, unsigned threads,
			   char ret_err[API_ERR_MAX])
{
	int r;

	if (c->n_endpoints) {
		a->endpoints = calloc(c->n_endpoints, sizeof(*a->endpoints));
		if (!a->endpoints) {
			snprintf(ret_err, API_ERR_MAX, "out of memory");
			return -ENOMEM;
		}
		memcpy(a->endpoints, c->endpoints, c->n_endpoints * sizeof(*a->endpoints));
		a->n_endpoints = c->n_endpoints;
	}
	if ((c->token && c->token[0] && !(a->token = strdup(c->token))) ||
	    (c->metrics_token && c->metrics_token[0] &&
	     !(a->metrics_token = strdup(c->metrics_token)))) {
		snprintf(ret_err, API_ERR_MAX, "out of memory");
		return -ENOMEM;
	}
	a->auth = c->auth;
	a->tls = c->tls;
	a->cap_idle = threads;
	a->idle = calloc(threads, sizeof(*a->idle));
	a->db_path = strdup(c->db_path);
	a->pool = calloc(threads, sizeof(*a->pool));
	if (!a->idle || !a->db_path || !a->pool) {
		snprintf(ret_err, API_ERR_MAX, "out of memory");
		return -ENOMEM;
	}
	a->n_pool = threads;
	for (unsigned i = 0; i < threads; i++)
		a->pool[i].api = a;
	if (c->web_root && c->web_root[0]) {
		a->web_root = realpath(c->web_root, NULL);
		if (!a->web_root) {
			r = -errno;
			snprintf(ret_err, API_ERR_MAX, "web_root %s: %s", c->web_root,
				 strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The pool's servers and the reserve's own (see api_start()). */
static int servers_start(struct api *a, unsigned flags, struct MHD_OptionItem *tls_opts,
			 unsigned timeout_s, unsigned limit, unsigned threads,
			 char ret_err[API_ERR_MAX])
{
	bool started = true;
	for (unsigned i = 0; i < a->n_pool && started; i++) {
		a->pool[i].mhd =
			server_start(&a->pool[i], flags, tls_opts, timeout_s, 2 * limit + threads);
		started = a->pool[i].mhd != NULL;
	}
	if (started)
		a->health.mhd = server_start(&a->health, flags, tls_opts, timeout_s,
					     2 * API_RESERVE_CONNECTIONS);
	if (!started || !a->health.mhd) {
		snprintf(ret_err, API_ERR_MAX, "cannot start the HTTP server on port %u",
			 (unsigned)a->port);
		return -EIO;
	}
	return 0;
}

int api_start(const struct api_config *c, struct api **ret, char ret_err[API_ERR_MAX])
{
	unsigned threads = c->threads ? c->threads : 1;
	struct MHD_OptionItem tls_opts[API_TLS_MHD_OPTIONS + 1];
	unsigned limit = c->max_connections ? c->max_connections : API_CONNECTION_LIMIT;
	unsigned timeout_s, flags;
	struct api *a;
	int fd = -1, r;

	if (threads > API_THREADS_MAX)
		threads = API_THREADS_MAX;

	if (!c->fleet || !c->db_path) {
		snprintf(ret_err, API_ERR_MAX, "api: fleet and database are required");
		return -EINVAL;
	}
	malloc_tune();
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(ret_err, API_ERR_MAX, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&a->lock, NULL);
	a->listen_fd = -1;
	a->health.api = a;
	a->fleet = c->fleet;
	r = api_take_config(a, c, threads, ret_err);
	if (r < 0)
		goto fail;

	r = hosts_build(c, &a->hosts, ret_err);
	if (r < 0)
		goto fail;
	if (limit < threads)
		limit = threads;
	r = listen_open(c->host, c->port, &fd, &a->port, ret_err);
	if (r < 0)
		goto fail;
	a->listen_fd = fd; /* closed by api_stop() */
	const struct api_conns_config cc = {
		.limits =
			{
				.request_ms = ms_or(c->request_timeout_ms, 30000),
				.body_ms = ms_or(c->body_timeout_ms, 10000),
				.send_ms = ms_or(c->send_timeout_ms, 10000),
				.reserve_ms = API_RESERVE_MS,
			},
		.max_total = limit,
		.max_per_addr = c->max_connections_per_ip,
		.max_reserve = API_RESERVE_CONNECTIONS,
	};
	r = api_conns_new(&cc, &a->conns);
	if (r < 0) {
		snprintf(ret_err, API_ERR_MAX, "cannot start the connection reaper: %s",
			 strerror(-r));
		goto fail;
	}

	r = tls_options(a, c->tls_priorities, &flags, tls_opts, ret_err);
	if (r < 0)
		goto fail;
	/*
	 * MHD counts whole seconds; round up so a short timeout never becomes "none". An
	 * idle keep-alive connection waits for a request: the request deadline closes it
	 * too, so the idle timeout (and the Keep-Alive hint) is the smaller of the two.
	 */
	int64_t idle_ms = c->timeout_ms;
	if (c->request_timeout_ms > 0 && (idle_ms <= 0 || c->request_timeout_ms < idle_ms))
		idle_ms = c->request_timeout_ms;
	timeout_s = idle_ms > 0 ? (unsigned)((idle_ms + 999) / 1000) : 0;
	/*
	 * epoll, not select(): no FD_SETSIZE ceiling. The acceptor (api_conn.c) takes the
	 * connections and enforces the limits: MHD's own are only bounds of its
	 * bookkeeping, twice ours, since it still counts a connection closing. The pool
	 * serves the ordinary connections; a server of its own the reserve, which it
	 * answers without waiting behind a costly handler of the pool.
	 */
	r = servers_start(a, flags, tls_opts, timeout_s, limit, threads, ret_err);
	if (r < 0)
		goto fail;
	r = api_conns_listen(a->conns, fd, conn_take, a);
	if (r < 0) {
		snprintf(ret_err, API_ERR_MAX, "cannot start accepting connections: %s",
			 strerror(-r));
		goto fail;
	}
	*ret = a;
	return 0;
fail:
	api_stop(a);
	return r;
}

uint16_t api_port(const struct api *a)
{
	return a->port;
}

struct api *api_stop(struct api *a)
{
	if (!a)
		return NULL;
	api_conns_unlisten(a->conns); /* no connection is handed over any more */
	for (unsigned i = 0; i < a->n_pool; i++)
		if (a->pool[i].mhd)
			MHD_stop_daemon(
				a->pool[i].mhd); /* joins its thread, closes its connections */
	if (a->health.mhd)
		MHD_stop_daemon(a->health.mhd);
	a->conns = api_conns_free(a->conns); /* every connection closed */
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	for (size_t i = 0; i < a->n_idle; i++)
		store_close(a->idle[i]);
	pthread_mutex_destroy(&a->lock);
	free(a->idle);
	free(a->pool);
	free(a->endpoints);
	free(a->token);
	free(a->metrics_token);
	free(a->web_root);
	free(a->db_path);
	free(a);
	return NULL;
}
