/* SPDX-License-Identifier: MIT */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
/*
 * What an answer's bytes travel as: gzip when the client accepts it, and an
 * entity tag so that a client holding the same answer gets 304 Not Modified
 * instead of the bytes again. No HTTP server here: header values in, decisions
 * and bytes out (zlib for the compression).
 */

/* Answers shorter than this go as they are: gzip would barely save a packet. */
#define API_GZIP_MIN 1024
/* W/"" + 8 hex digits of the length + "-" + 16 of the hashes + NUL */
#define API_ETAG_MAX 32

/**
 * api_accepts_gzip() - Whether an Accept-Encoding header value allows gzip
 * (RFC 9110 §12.5.3): "gzip" or "x-gzip" with a weight above 0, or "*" above 0
 * when gzip is not listed itself. NULL (no header) or "": no.
 */
bool api_accepts_gzip(const char *accept_encoding);

/**
 * api_etag() - A weak entity tag for the answer @body (@len bytes): the length
 * and two independent checksums of the bytes, so equal bytes give equal tags
 * and any change gives a different one. Weak (W/): the gzip and the plain form
 * of one answer share it (RFC 9110 §8.8.3).
 */
void api_etag(const void *body, size_t len, char ret[API_ETAG_MAX]);

/**
 * api_etag_matches() - Whether an If-None-Match header value names @etag
 * (RFC 9110 §13.1.2): "*", or a comma-separated list of entity tags one of
 * which equals @etag by the weak comparison (W/ ignored on both sides).
 * A malformed list matches nothing (the full answer is sent).
 */
bool api_etag_matches(const char *if_none_match, const char *etag);

/**
 * api_gzip() - @in (@len bytes) as a gzip member (RFC 1952).
 * Return: 0 with *@ret (malloc()ed) and *@ret_len, or -ENOMEM / -EIO.
 */
int api_gzip(const void *in, size_t len, void **ret, size_t *ret_len);

/*
 * A body compressed as it is produced (a streamed answer, whose length is not
 * known before it is sent): the bytes another reader gives, out as one gzip
 * member (RFC 1952) a buffer at a time.
 */
struct api_gzip_stream;

/** api_gzip_src_fn - Copy up to @max bytes into @buf: how many (> 0), 0 at the end, or -errno. */
typedef ssize_t (*api_gzip_src_fn)(void *cls, char *buf, size_t max);

/**
 * api_gzip_stream_new() - Compress what @src (with @cls, not owned) gives.
 * Return: 0 with *@ret, or -ENOMEM.
 */
int api_gzip_stream_new(api_gzip_src_fn src, void *cls, struct api_gzip_stream **ret);

/**
 * api_gzip_stream_read() - The next compressed bytes, into @buf (@max > 0 bytes):
 * the source is read until some come out or it ends.
 * Return: how many (> 0), 0 once the member's trailer is out, or a negative errno
 * (the source's, or -EIO).
 */
ssize_t api_gzip_stream_read(struct api_gzip_stream *g, char *buf, size_t max);

/** api_gzip_stream_free() - Release @g (NULL: nothing); the source is not freed. */
void api_gzip_stream_free(struct api_gzip_stream *g);
