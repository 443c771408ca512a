/* SPDX-License-Identifier: MIT */
/*
 * The HTTP server: libmicrohttpd servers of one thread each, in threads of their
 * own, so a slow client never delays the main loop; the connections are accepted,
 * limited and timed in api_conn.c. Devices come from the fleet (a consistent copy under its
 * mutex); samples come from read-only store handles kept in a small pool, each
 * used by one thread at a time. Every route is an endpoint (api.h); routing lives
 * in api_route.c, query parsing in api_params.c, static file resolution in
 * api_static.c, sending answers (tags, 304, gzip, files, streams) in
 * api_reply.c, taking requests in api_request.c; this file runs the servers.
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
