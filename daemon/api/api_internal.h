/* SPDX-License-Identifier: MIT */
#pragma once
/* Inside the HTTP server (api.c, api_reply.c): how answers are sent. */
#include <stdbool.h>

#include <jansson.h>
#include <microhttpd.h>

#include "nvmond/api/api.h"

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
 * The request deadline (api_deadline.c): a connection's request line and headers must
 * be in within a timeout of its opening or of the previous answer, else a reaper thread
 * shuts its socket down. One entry per connection, from MHD's "started" notification
 * to its "closed" one; serving (from the headers to the answer's end) has no deadline.
 */
struct api_deadlines;
struct api_conn;
/** api_deadlines_new() - Start the reaper. Return: 0, or negative errno. */
int api_deadlines_new(int64_t timeout_ms, struct api_deadlines **ret);
/** api_deadlines_free() - Stop the reaper, after MHD is stopped. Accepts NULL. */
struct api_deadlines *api_deadlines_free(struct api_deadlines *d);
/** api_deadlines_add() - A new connection on @fd. Return: its entry, NULL without memory. */
struct api_conn *api_deadlines_add(struct api_deadlines *d, int fd);
/** api_deadlines_serving() - The headers are in (@serving), or the answer is sent. */
void api_deadlines_serving(struct api_deadlines *d, struct api_conn *c, bool serving);
/** api_deadlines_remove() - MHD closes @c's connection (NULL: nothing). */
void api_deadlines_remove(struct api_deadlines *d, struct api_conn *c);

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
