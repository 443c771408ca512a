/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A request's header fields, weighed before any of its body is read (RFC 9112):
 * how its body is framed (§6: Content-Length, Transfer-Encoding), its Host field
 * (§3.2) and a field that must not come twice (Authorization). An ambiguous frame
 * is how a second request is smuggled inside the first: such a request is
 * answered with an error and its connection closed, never read on. Fed one field
 * at a time, duplicates and all, in the order received; no HTTP server here.
 */
#include <stdbool.h>
#include <stdint.h>

struct api_frame {
	unsigned n_host, n_auth, n_length; /* Host, Authorization, Content-Length fields */
	const char *host;		   /* the first Host value (borrowed), NULL: none */
	uint64_t length;		   /* the first Content-Length */
	bool length_seen;		   /* … there was one */
	bool length_bad;		   /* a Content-Length not a number, or two that differ */
	bool te;			   /* a Transfer-Encoding field came */
	bool te_last_chunked;		   /* … its last coding is chunked */
	bool te_chunked_early;		   /* … chunked came before another coding */
	bool te_other;			   /* … a coding other than chunked came */
};

/** api_frame_init() - No field seen yet. */
void api_frame_init(struct api_frame *f);

/** api_frame_field() - One header field, @name (any case) and @value (kept when Host). */
void api_frame_field(struct api_frame *f, const char *name, const char *value);

/**
 * api_frame_check() - The verdict on the fields fed, for a request of HTTP/1.1 (or
 * later, @http11) or HTTP/1.0: 0 when its body may be read; else the status to
 * answer, with @ret_msg, before closing the connection:
 * - 400: more than one Host field, or none in HTTP/1.1 (RFC 9112 §3.2); more than
 *   one Authorization field; Transfer-Encoding with Content-Length (§6.3 ¶3);
 *   Content-Length fields that disagree or are not numbers (§6.3 ¶5);
 *   Transfer-Encoding in HTTP/1.0 (§6.1); a last transfer coding that is not
 *   chunked, or chunked applied before another one (§6.3 ¶4, §6.1);
 * - 501: a transfer coding other than chunked before it (not implemented, §6.1);
 * - 411: chunked alone: nvmond takes request bodies with Content-Length only
 *   (RFC 9110 §15.5.12), so no chunk is ever parsed.
 * Return: 0 or the status.
 */
unsigned api_frame_check(const struct api_frame *f, bool http11, const char **ret_msg);
