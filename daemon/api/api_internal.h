/* SPDX-License-Identifier: MIT */
#pragma once
/* Inside the HTTP server (api.c, api_request.c, api_reply.c): the server, how answers are sent. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>

#include <jansson.h>
#include <microhttpd.h>

#include "nvmond/api/api.h"
#include "nvmond/api/api_conn_rule.h"
#include "nvmond/api/api_host.h"

/**
 * api_http_reply() - Send @body (stolen; NULL: out of memory) as JSON, with an
 * Allow header when @allow is set. @validate (a 200 to GET or HEAD): an entity
 * tag, no-cache, and 304 when the client holds the same answer; otherwise
 * no-store. Answers of API_GZIP_MIN bytes and more go gzipped to a client
 * that accepts it.
 */
enum MHD_Result api_http_reply(struct MHD_Connection *c, unsigned status, json_t *body,
			       const char *allow, bool validate);
/** api_http_error() - {"error": @msg} with @status. */
enum MHD_Result api_http_error(struct MHD_Connection *c, unsigned status, const char *msg);
/** api_http_405() - Method not allowed, Allow: GET, HEAD. */
enum MHD_Result api_http_405(struct MHD_Connection *c);
/** api_http_static() - The file at @url below @web_root (NULL: none served), or 404/405. */
enum MHD_Result api_http_static(const char *web_root, struct MHD_Connection *c, const char *url,
				bool read);
/*
 * The connections (api_conn.c, rules in api_conn_rule.h): an acceptor thread takes
 * each connection off the listening socket and refuses it (past
 * max_connections_per_ip), or hands it to the pool, or past max_connections to the
 * /healthz server; one entry per connection from its acceptance to MHD's "closed"
 * notification; a reaper thread cuts the late ones.
 */
struct api_conns;
struct api_conn;
struct api_conns_config {
	struct api_conn_limits limits;
	unsigned max_total;    /* ordinary connections */
	unsigned max_per_addr; /* from one address, either kind; 0: no limit */
	unsigned max_reserve;  /* past max_total, for /healthz */
};
/**
 * api_conn_take_fn - Serve the accepted connection @fd from @addr (MHD_add_connection()
 * to the pool, or to the /healthz server when @reserve). Return: 0, or negative errno
 * when it was not taken (then @fd is closed).
 */
typedef int (*api_conn_take_fn)(void *cls, int fd, const struct sockaddr *addr, socklen_t addr_len,
				bool reserve);
/** api_conns_new() - Start the reaper. Return: 0, or negative errno. */
int api_conns_new(const struct api_conns_config *cfg, struct api_conns **ret);
/**
 * api_conns_listen() - Start accepting on @listen_fd (non-blocking; still the caller's
 * to close), handing each connection taken to @take. Return: 0, or negative errno.
 */
int api_conns_listen(struct api_conns *d, int listen_fd, api_conn_take_fn take, void *cls);
/** api_conns_unlisten() - Stop accepting (before the servers stop). Accepts NULL. */
void api_conns_unlisten(struct api_conns *d);
/**
 * api_conns_free() - Stop accepting and the reaper, after MHD is stopped. Accepts NULL.
 * Return: NULL.
 */
struct api_conns *api_conns_free(struct api_conns *d);
/**
 * api_conns_link() - MHD starts serving the connection on @fd: its entry, made when it
 * was accepted. Return: the entry, NULL without memory.
 */
struct api_conn *api_conns_link(struct api_conns *d, int fd);
/** api_conns_enter() - @c (NULL: nothing) enters @phase now. */
void api_conns_enter(struct api_conns *d, struct api_conn *c, enum api_conn_phase phase);
/** api_conns_remove() - MHD closes @c's connection (NULL: nothing). */
void api_conns_remove(struct api_conns *d, struct api_conn *c);
/** api_conn_reserve() - Whether @c is a reserve connection (/healthz only). */
bool api_conn_reserve(const struct api_conn *c);
/** api_conn_close_after() - Close @c after the answer being made (its own thread). */
void api_conn_close_after(struct api_conn *c);
/** api_conn_closes() - Whether @c's answer says "Connection: close". */
bool api_conn_closes(const struct api_conn *c);
/** api_conn_of() - The entry of MHD's connection @c, or NULL. */
struct api_conn *api_conn_of(struct MHD_Connection *c);

/**
 * api_http_reply_ext() - An endpoint's answer @r (consumed); @validate as above; @head:
 * the request is HEAD (a streamed body then has no length to give: the answer has
 * neither Content-Length nor chunks, and the connection closes after it).
 */
enum MHD_Result api_http_reply_ext(struct MHD_Connection *c, struct api_reply *r, bool validate,
				   bool head);

struct api_tls;
#define API_TLS_MHD_OPTIONS 2
/**
 * api_tls_mhd_options() - The start options that make libmicrohttpd serve HTTPS
 * with @t's certificate and the protocol versions and ciphers of @priorities (a
 * GnuTLS priority string, which must outlive the server; it must then be started
 * with MHD_USE_TLS), and make @t the one served. Return: how many items were
 * written to @ret, or negative errno with @ret_err filled (libmicrohttpd built
 * without the callback; a second server; a bad priority string).
 */
int api_tls_mhd_options(struct api_tls *t, const char *priorities,
			struct MHD_OptionItem ret[API_TLS_MHD_OPTIONS], char ret_err[API_ERR_MAX]);

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

/*
 * The MHD callbacks of each server (api_request.c), @cls its struct api_server:
 * api_handle() answers a request, uri_seen() cuts a query of too many parameters,
 * request_done() ends a request, connection_notify() follows a connection from its
 * start to its close, api_unescape_cb() decodes %XX and '+'.
 */
enum MHD_Result api_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			   const char *version, const char *upload, size_t *upload_size,
			   void **req_cls);
void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c);
void request_done(void *cls, struct MHD_Connection *c, void **req_cls,
		  enum MHD_RequestTerminationCode toe);
void connection_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		       enum MHD_ConnectionNotificationCode code);
size_t api_unescape_cb(void *cls, struct MHD_Connection *c, char *s);
