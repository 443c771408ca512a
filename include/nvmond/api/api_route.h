/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The HTTP-independent half of the API, private to daemon/api/ and its tests:
 * URL decoding, routing among the endpoints, the samples query (pure), static
 * file resolution under the web root (file system only, no HTTP), and the
 * samples body rendered while it is sent.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nvmond/api/api.h"

#define API_SAMPLES_LIMIT_DEFAULT 10000
#define API_SAMPLES_LIMIT_MAX	  100000
#define API_SAMPLES_SPAN_DEFAULT  (3600 * 1000) /* ms: the last hour */
#define API_ALLOW		  "GET, HEAD"

/*
 * What a decoded %00 becomes. libmicrohttpd hands us C strings, so a real NUL
 * would silently cut "/index.html%00.png" to "/index.html"; a control byte
 * instead stays visible and every parser here refuses it.
 */
#define API_NUL_STANDIN '\x01'

struct api_samples_query {
	int64_t from_ms;
	int64_t to_ms;
	size_t limit;
};

/**
 * api_unescape() - Decode %HH escapes in place (the MHD unescape callback).
 * Malformed escapes stay as they are; %00 becomes API_NUL_STANDIN.
 * Return: the new length.
 */
size_t api_unescape(char *s);

#define API_ALLOW_MAX 128 /* "GET, HEAD, POST, DELETE" and more */

/**
 * api_route_find() - Route @method @url (decoded) among the endpoints @v.
 * HEAD goes where GET goes.
 * @ret_ep, @ret_id: the endpoint and the {id} of its pattern (0 without one)
 * @ret_err: the message for -EINVAL and -ENOENT
 * @ret_allow: for -EPERM, the methods the path has ("GET, HEAD, POST")
 * Return: 1 when an endpoint takes the request; 0 when none does and the path
 * is a static file's (outside /api/, /healthz and /metrics); -ENOENT when none
 * does and the path is not a file's (404); -EINVAL for an {id} that is not a
 * positive integer (400); -EPERM when the path has endpoints but not for
 * @method (405).
 */
int api_route_find(const struct api_endpoint *v, size_t n, const char *method, const char *url,
		   const struct api_endpoint **ret_ep, int64_t *ret_id, char ret_err[API_ERR_MAX],
		   char ret_allow[API_ALLOW_MAX]);

/**
 * api_pattern_match() - Match a decoded path against an endpoint pattern such as
 * "/api/v1/alerts/{id}/ack" ({id}: a positive decimal integer, at most one).
 * @ret_id: the {id}, 0 when the pattern has none
 * Return: 1 on a match, 0 when the path is not of this pattern, -EINVAL when it
 * is but {id} is not a positive integer (400, message in @ret_err).
 */
int api_pattern_match(const char *pattern, const char *path, int64_t *ret_id,
		      char ret_err[API_ERR_MAX]);

/** api_method_is_read() - Return: true for GET and HEAD, the only methods served. */
bool api_method_is_read(const char *method);

/**
 * api_samples_query_parse() - Parse from=, to=, limit= of a samples request
 * (with api_params_parse_query(), so with its messages).
 * @now_ms: the default "to"; "from" defaults to one hour before "to"
 * @ret_err: a message naming the offending parameter
 * Return: 0, or -EINVAL (400) for an unknown, repeated or bad parameter or from > to.
 */
int api_samples_query_parse(const struct api_query_param *v, size_t n, int64_t now_ms,
			    struct api_samples_query *ret, char ret_err[API_ERR_MAX]);

/**
 * api_static_relpath() - Lexically check a decoded URL path and turn it into a
 * path relative to the web root ("/" → "", "/a//b" → "a/b"). Refuses ".."
 * segments, control bytes (a decoded %00 included) and paths not starting with '/'.
 * @ret: at least strlen(url) + 1 bytes
 * Return: 0, or -ENOENT when refused.
 */
int api_static_relpath(const char *url, char *ret);

/**
 * api_static_open() - Open the file for @url under @root.
 * @root: realpath() of the web root
 * Only the dashboard's files (api_static_allowed()); "/" serves index.html, any other
 * directory and "file/" are not found. The path is opened with openat2(RESOLVE_BENEATH)
 * from @root (else resolved with realpath()), so no component of it, a symlink in the
 * middle included, may lead outside @root.
 * @ret_fd: an O_RDONLY descriptor of a regular file (caller closes)
 * @ret_size: its size
 * @ret_type: its Content-Type (static string)
 * Return: 0, -ENOENT when there is nothing to serve (404), other negative errno.
 */
int api_static_open(const char *root, const char *url, int *ret_fd, uint64_t *ret_size,
		    const char **ret_type);

/**
 * api_static_allowed() - Is @rel (as api_static_relpath() gives it; "" = the root) one
 * of the dashboard's files: the root's own or vendor/'s, not hidden, of a type a page
 * loads (html, htm, js, mjs, css, svg, png, ico, woff2)?
 */
bool api_static_allowed(const char *rel);

/**
 * api_static_path_inside() - Is the resolved @path @root itself or below it (the
 * realpath() fallback of api_static_open())? "/srv/web-private" is not below "/srv/web".
 */
bool api_static_path_inside(const char *root, const char *path);

/** api_content_type() - Content-Type by file name extension. Return: a static string. */
const char *api_content_type(const char *path);

/*
 * The body of a samples response, rendered while it is sent (api_stream.c):
 * {"device_id":…,"from":…,"to":…,"samples":[…]}.
 */
struct api_samples_stream;
struct sample;

/**
 * api_samples_stream_new() - Prepare the body for the @n samples @v, oldest first.
 * @v: malloc()ed; the stream takes it on success only (freed with the stream)
 * Return: 0, or -ENOMEM.
 */
int api_samples_stream_new(int64_t device_id, int64_t from_ms, int64_t to_ms, struct sample *v,
			   size_t n, struct api_samples_stream **ret);

/*
 * Reads the next page of samples: those with @from_ms <= ts (and up to the stream's
 * to_ms), oldest first, at most @max, into a malloc()ed *@ret (NULL when none).
 * Return: 0, or negative errno.
 */
typedef int (*api_samples_page_fn)(void *ctx, int64_t from_ms, size_t max, struct sample **ret,
				   size_t *ret_n);

/**
 * api_samples_stream_more() - When the samples given to api_samples_stream_new() are
 * sent, read more with @fn (after the last one sent), a page at a time, until @limit
 * samples in all or a short page: the body never holds more than a page in memory.
 * Without it the stream sends the samples it was given only.
 */
void api_samples_stream_more(struct api_samples_stream *st, api_samples_page_fn fn, void *ctx,
			     size_t limit);

/**
 * api_samples_stream_read() - Copy the next bytes of the body into @buf.
 * Return: bytes copied (> 0), 0 at the end, or -ENOMEM.
 */
ssize_t api_samples_stream_read(struct api_samples_stream *st, char *buf, size_t max);

/**
 * api_samples_stream_free() - Frees the samples too (not the ctx of
 * api_samples_stream_more(): the caller's). Accepts NULL. Return: NULL.
 */
struct api_samples_stream *api_samples_stream_free(struct api_samples_stream *st);
