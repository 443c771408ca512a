/* SPDX-License-Identifier: MIT */
/*
 * Answers as HTTP: the headers every answer gets, the entity tag and 304 of a
 * GET (api_encode.c decides), gzip for a client that takes it, static files
 * with their own tag, and streamed bodies. api.c routes; this file sends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/api/api.h"
#include "nvmond/api/api_encode.h"
#include "nvmond/api/api_route.h"
#include "nvmond/core/log.h"

#include "api_internal.h"

/* ---- responses ---------------------------------------------------------- */

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *resp)
{
	const union MHD_ConnectionInfo *ci;
	enum MHD_Result ret;

	/*
	 * Every answer nvmond makes may differ with Accept-Encoding (a 304, an error
	 * and a file too), so a cache keeps each form apart (RFC 9110 §12.5.5).
	 */
	if (resp &&
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding") != MHD_YES) {
		MHD_destroy_response(resp);
		return MHD_NO;
	}
	if (!resp)
		return MHD_NO; /* out of memory: MHD closes the connection */
	/*
	 * An answer after which the connection closes says so (a reserve connection, a
	 * request whose framing is not trusted): MHD then closes it.
	 */
	if (api_conn_closes(api_conn_of(c))) {
		if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close") != MHD_YES) {
			MHD_destroy_response(resp);
			return MHD_NO;
		}
		ret = MHD_queue_response(c, status, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	/*
	 * Tell keep-alive clients when an idle connection will be closed, so that
	 * they retire it first instead of reusing it as it closes (Node's agent,
	 * curl and browsers read the hint; without it a reuse can race the close
	 * and fail with "socket hang up").
	 */
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_TIMEOUT);
	if (ci && ci->connection_timeout > 0) {
		char hint[32];

		snprintf(hint, sizeof(hint), "timeout=%u", ci->connection_timeout);
		MHD_add_response_header(resp, "Keep-Alive", hint);
	}
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* The value of request header @name, or NULL. */
static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/*
 * Send @text (@len bytes, malloc()ed, stolen) as @type. A @validate answer (a
 * 200 to GET or HEAD) carries an entity tag and may be stored by the client
 * but checked again every time (no-cache); a client that already holds it
 * gets 304 and no body. Anything else is not stored (no-store). Answers of
 * API_GZIP_MIN bytes and more go gzipped to a client that accepts it: @pre_gz
 * (@pre_gz_len bytes, stolen; NULL: none) when the caller had it made already.
 */
static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, char *text, size_t len,
				 const char *type, const char *allow, bool validate, void *pre_gz,
				 size_t pre_gz_len)
{
	struct MHD_Response *resp;
	char etag[API_ETAG_MAX];
	bool gz = false;

	if (validate) {
		api_etag(text, len, etag); /* of the text: one tag for both encodings (Vary) */
		if (api_etag_matches(header(c, MHD_HTTP_HEADER_IF_NONE_MATCH), etag)) {
			free(text);
			text = NULL;
			len = 0;
			status = MHD_HTTP_NOT_MODIFIED;
		}
	}
	if (text && pre_gz && api_accepts_gzip(header(c, MHD_HTTP_HEADER_ACCEPT_ENCODING))) {
		free(text);
		text = pre_gz;
		len = pre_gz_len;
		pre_gz = NULL;
		gz = true;
	}
	free(pre_gz);
	if (text && !gz && len >= API_GZIP_MIN &&
	    api_accepts_gzip(header(c, MHD_HTTP_HEADER_ACCEPT_ENCODING))) {
		void *z;
		size_t zlen;
		if (api_gzip(text, len, &z, &zlen) == 0) {
			free(text);
			text = z;
			len = zlen;
			gz = true;
		}
	}
	resp = MHD_create_response_from_buffer(len, text ? text : (void *)"",
					       text ? MHD_RESPMEM_MUST_FREE
						    : MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		free(text);
		return MHD_NO;
	}
	if ((status != MHD_HTTP_NOT_MODIFIED &&
	     MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type) != MHD_YES) ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				    validate ? "no-cache" : "no-store") != MHD_YES ||
	    (validate && MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag) != MHD_YES) ||
	    (gz &&
	     MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip") != MHD_YES) ||
	    (allow && MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow) != MHD_YES)) {
		MHD_destroy_response(resp);
		return MHD_NO;
	}
	return queue(c, status, resp);
}

/*
 * Send @body (stolen) as JSON, with an Allow header when @allow is set. A NULL
 * @body means rendering ran out of memory. @validate: see send_text().
 */
enum MHD_Result api_http_reply(struct MHD_Connection *c, unsigned status, json_t *body,
			       const char *allow, bool validate)
{
	char *text = NULL;

	if (body)
		text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!text) {
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		text = strdup("{\"error\":\"out of memory\"}");
		if (!text)
			return MHD_NO;
		allow = NULL;
		validate = false;
	}
	return send_text(c, status, text, strlen(text), "application/json", allow,
			 validate && status == MHD_HTTP_OK, NULL, 0);
}

enum MHD_Result api_http_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
	return api_http_reply(c, status, json_pack("{s:s}", "error", msg), NULL, false);
}

enum MHD_Result api_http_405(struct MHD_Connection *c)
{
	return api_http_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			      json_pack("{s:s}", "error", "method not allowed; use GET or HEAD"),
			      API_ALLOW, false);
}

/* ---- static files ------------------------------------------------------- */

/* Files up to this size go gzipped (the dashboard's largest is ~32 KB); larger ones as they are. */
#define STATIC_GZIP_MAX (4u << 20)

/*
 * The dashboard's files come with a Content-Security-Policy: the page runs only
 * its own scripts and styles (no inline code, no eval), talks only to this
 * daemon, and is framed by no other site. A script injected through a drive's
 * string (a model, a label) would therefore not run even if it reached the page.
 */
#define STATIC_CSP                                                                                 \
	"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "          \
	"connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "         \
	"form-action 'self'"

/* The @size bytes of the file @fd (still the caller's), gzipped: a response, or NULL. */
static struct MHD_Response *static_gzipped(int fd, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t off = 0;
	void *z;
	size_t zlen;

	if (!buf)
		return NULL;
	while (off < size) {
		ssize_t n = pread(fd, buf + off, size - off, (off_t)off);

		if (n <= 0) { /* an error, or the file shrank under us */
			free(buf);
			return NULL;
		}
		off += (size_t)n;
	}
	if (api_gzip(buf, size, &z, &zlen) < 0) {
		free(buf);
		return NULL;
	}
	free(buf);
	struct MHD_Response *resp = MHD_create_response_from_buffer(zlen, z, MHD_RESPMEM_MUST_FREE);
	if (!resp)
		free(z);
	return resp;
}

enum MHD_Result api_http_static(const char *web_root, struct MHD_Connection *c, const char *url,
				bool read)
{
	struct MHD_Response *resp;
	const char *type;
	uint64_t size;
	int fd, r;

	if (!web_root)
		return api_http_error(c, MHD_HTTP_NOT_FOUND, "not found");
	r = api_static_open(web_root, url, &fd, &size, &type);
	if (r == -ENOENT)
		return api_http_error(c, MHD_HTTP_NOT_FOUND, "not found");
	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r, "api: serving %s", url);
		return api_http_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read file");
	}
	if (!read) {
		close(fd);
		return api_http_405(c);
	}
	/*
	 * The file's identity as its entity tag (inode, size, modification time
	 * to the nanosecond): the browser keeps the file and asks each time
	 * (no-cache); an unchanged file is a 304 without its bytes, a changed one
	 * (an upgrade) is sent at once.
	 */
	struct stat st;
	char etag[80];
	unsigned status = MHD_HTTP_OK;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return api_http_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read file");
	}
	snprintf(etag, sizeof(etag), "\"%jx-%jx-%jx.%lx\"", (uintmax_t)st.st_ino,
		 (uintmax_t)st.st_size, (uintmax_t)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	bool gz = false;
	if (api_etag_matches(header(c, MHD_HTTP_HEADER_IF_NONE_MATCH), etag)) {
		close(fd);
		status = MHD_HTTP_NOT_MODIFIED;
		resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else {
		resp = NULL;
		if (size >= API_GZIP_MIN && size <= STATIC_GZIP_MAX &&
		    api_accepts_gzip(header(c, MHD_HTTP_HEADER_ACCEPT_ENCODING)))
			resp = static_gzipped(fd, (size_t)size); /* NULL: sent as it is */
		if (resp) {
			close(fd);
			gz = true;
			/*
			 * The tag stays the file's, made weak as the gzip form is not the
			 * file's bytes (RFC 9110 §8.8.1); If-None-Match compares weakly.
			 */
			memmove(etag + 2, etag, strlen(etag) + 1);
			memcpy(etag, "W/", 2);
		} else {
			resp = MHD_create_response_from_fd64(size, fd);
			if (!resp)
				close(fd);
		}
	}
	if (!resp)
		return MHD_NO;
	if ((status == MHD_HTTP_OK &&
	     MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type) != MHD_YES) ||
	    (gz &&
	     MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip") != MHD_YES) ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache") != MHD_YES ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag) != MHD_YES ||
	    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff") != MHD_YES ||
	    MHD_add_response_header(resp, "Content-Security-Policy", STATIC_CSP) != MHD_YES ||
	    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer") != MHD_YES) {
		MHD_destroy_response(resp);
		return MHD_NO;
	}
	return queue(c, status, resp);
}

/* Drop whatever body @r holds. */
static void reply_clear(struct api_reply *r)
{
	json_decref(r->json);
	free(r->text);
	free(r->text_gzip);
	if (r->stream_free)
		r->stream_free(r->stream);
	*r = (struct api_reply){0};
}

void api_reply_error(struct api_reply *ret, unsigned status, const char *fmt, ...)
{
	char msg[API_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	reply_clear(ret);
	*ret = (struct api_reply){.status = status, .json = json_pack("{s:s}", "error", msg)};
}

void api_reply_stream(struct api_reply *ret, api_stream_read_fn read_fn, api_stream_free_fn free_fn,
		      void *cls, const char *content_type)
{
	unsigned status = ret->status;

	reply_clear(ret);
	*ret = (struct api_reply){.status = status,
				  .stream_read = read_fn,
				  .stream_free = free_fn,
				  .stream = cls,
				  .content_type = content_type};
}

/* A stream in gzip form (a client that takes it): the endpoint's stream beneath. */
struct gz_stream {
	struct api_gzip_stream *g;
	api_stream_free_fn free;
	void *cls;
};

static ssize_t gz_stream_read(void *cls, char *buf, size_t max)
{
	return api_gzip_stream_read(((struct gz_stream *)cls)->g, buf, max);
}

static void gz_stream_free(void *cls)
{
	struct gz_stream *s = cls;

	api_gzip_stream_free(s->g);
	if (s->free)
		s->free(s->cls);
	free(s);
}

/* Make @r's stream its gzip form. Return: 0, or -ENOMEM with @r as it was. */
static int stream_gzip(struct api_reply *r)
{
	struct gz_stream *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	*s = (struct gz_stream){.free = r->stream_free, .cls = r->stream};
	if (api_gzip_stream_new(r->stream_read, r->stream, &s->g) < 0) {
		free(s);
		return -ENOMEM;
	}
	r->stream_read = gz_stream_read;
	r->stream_free = gz_stream_free;
	r->stream = s;
	return 0;
}

struct stream_ctx {
	api_stream_read_fn read;
	api_stream_free_fn free;
	void *cls;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct stream_ctx *s = cls;
	ssize_t n = s->read(s->cls, buf, max);

	if (n < 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void stream_free(void *cls)
{
	struct stream_ctx *s = cls;

	if (s->free)
		s->free(s->cls);
	free(s);
}

/*
 * A streamed body: chunked, since its length is known only once it is sent. To HEAD,
 * libmicrohttpd 0.9.75 still sends the last chunk (0 CRLF CRLF) after the headers,
 * which the client takes for the start of the next answer on the connection (issue
 * 23: 13 of 20 HEAD-then-GET pairs broken). So a HEAD's stream is not chunked: no
 * Content-Length (its value is not known, and 0 would be false, RFC 9110 §8.6),
 * no chunks, and the connection closes after it.
 */
static struct MHD_Response *response_stream(struct api_reply *r, bool head)
{
	struct stream_ctx *s = malloc(sizeof(*s));
	struct MHD_Response *resp;

	if (!s) {
		reply_clear(r);
		return NULL;
	}
	*s = (struct stream_ctx){.read = r->stream_read, .free = r->stream_free, .cls = r->stream};
	*r = (struct api_reply){0}; /* the response owns the stream now */
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, stream_read, s,
						 stream_free);
	if (!resp) {
		stream_free(s);
		return NULL;
	}
	if (head && MHD_set_response_options(resp, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END) !=
			    MHD_YES) {
		MHD_destroy_response(resp);
		return NULL;
	}
	return resp;
}

/* @validate: a 200 to GET or HEAD (send_text()); a stream has no entity tag. */
enum MHD_Result api_http_reply_ext(struct MHD_Connection *c, struct api_reply *r, bool validate,
				   bool head)
{
	unsigned status = r->status ? r->status : MHD_HTTP_OK;
	const char *type = r->content_type;
	struct MHD_Response *resp;

	validate = validate && status == MHD_HTTP_OK;
	if (r->text) {
		char *text = r->text;
		void *gz = r->text_gzip;
		r->text = NULL;
		r->text_gzip = NULL;
		return send_text(c, status, text, r->text_len, type ? type : "text/plain", NULL,
				 validate, gz, r->text_gzip_len);
	}
	free(r->text_gzip); /* without its text: nothing to send it for */
	r->text_gzip = NULL;
	/* A stream goes gzipped whatever its length, which is not known before it is sent. */
	bool gz = r->stream_read && api_accepts_gzip(header(c, MHD_HTTP_HEADER_ACCEPT_ENCODING)) &&
		  stream_gzip(r) == 0;

	if (!r->stream_read)
		return api_http_reply(c, status, r->json, NULL, validate);
	resp = response_stream(r, head);
	if (!resp)
		return MHD_NO;
	if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				    type ? type : "application/json") != MHD_YES ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store") != MHD_YES ||
	    (gz &&
	     MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip") != MHD_YES)) {
		MHD_destroy_response(resp);
		return MHD_NO;
	}
	return queue(c, status, resp);
}
