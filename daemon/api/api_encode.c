/* SPDX-License-Identifier: MIT */
/* Content coding and entity tags of API answers. See api_encode.h. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "nvmond/api/api_encode.h"

/* Level 1: a 1-year series (168 KB) in about a millisecond, at a ratio close to 6's. */
#define GZIP_LEVEL 1

static const char *skip_ows(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * The weight of one list member's parameters (";q=0.5"): 1 without one, 0 for
 * "q=0", "q=0.", "q=0.000"; anything else is above 0 (RFC 9110 §12.4.2 allows
 * at most three decimals; a malformed weight counts as not 0).
 */
static bool weight_positive(const char *p, const char *end)
{
	while (p < end) {
		p = skip_ows(p);
		if (*p == ';') {
			p = skip_ows(p + 1);
			if (p + 1 < end && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
				const char *v = p + 2;
				if (v < end && *v == '0') {
					v++;
					if (v < end && *v == '.')
						v++;
					while (v < end && *v == '0')
						v++;
					v = skip_ows(v);
					if (v >= end || *v == ';')
						return false;
				}
				return true;
			}
		}
		while (p < end && *p != ';')
			p++;
	}
	return true;
}

bool api_accepts_gzip(const char *h)
{
	int gzip = -1, star = -1; /* -1: not listed; 0: refused; 1: accepted */

	if (!h)
		return false;
	for (const char *p = h; *p;) {
		const char *end = strchr(p, ','), *tok, *tend;
		if (!end)
			end = p + strlen(p);
		tok = skip_ows(p);
		tend = tok;
		while (tend < end && *tend != ';' && *tend != ' ' && *tend != '\t')
			tend++;
		size_t n = (size_t)(tend - tok);
		bool pos = weight_positive(tend, end);
		if ((n == 4 && !strncasecmp(tok, "gzip", 4)) ||
		    (n == 6 && !strncasecmp(tok, "x-gzip", 6)))
			gzip = gzip == 1 || pos;
		else if (n == 1 && *tok == '*')
			star = pos;
		p = *end ? end + 1 : end;
	}
	return gzip >= 0 ? gzip == 1 : star == 1;
}

void api_etag(const void *body, size_t len, char ret[API_ETAG_MAX])
{
	uLong crc = crc32(0L, Z_NULL, 0), adl = adler32(0L, Z_NULL, 0);
	const unsigned char *b = body;

	/* zlib takes uInt lengths: feed it in pieces. */
	for (size_t off = 0; off < len;) {
		uInt n = len - off > 1u << 30 ? 1u << 30 : (uInt)(len - off);
		crc = crc32(crc, b + off, n);
		adl = adler32(adl, b + off, n);
		off += n;
	}
	snprintf(ret, API_ETAG_MAX, "W/\"%zx-%08lx%08lx\"", len, crc & 0xffffffffUL,
		 adl & 0xffffffffUL);
}

/* One entity tag at *@pp (OWS before it): its opaque part, W/ dropped. */
static bool next_tag(const char **pp, const char **ret, size_t *ret_len)
{
	const char *p = skip_ows(*pp), *q;

	if (p[0] == 'W' && p[1] == '/')
		p += 2;
	if (*p != '"')
		return false;
	q = strchr(p + 1, '"');
	if (!q)
		return false;
	*ret = p + 1;
	*ret_len = (size_t)(q - p - 1);
	p = skip_ows(q + 1);
	if (*p == ',')
		p++;
	else if (*p)
		return false;
	*pp = p;
	return true;
}

bool api_etag_matches(const char *h, const char *etag)
{
	const char *mine, *t;
	size_t mine_len, n;

	if (!h || !etag)
		return false;
	if (skip_ows(h)[0] == '*' && !*skip_ows(skip_ows(h) + 1))
		return true;
	const char *e = etag;
	if (!next_tag(&e, &mine, &mine_len))
		return false;
	for (const char *p = h; *skip_ows(p);) {
		if (!next_tag(&p, &t, &n))
			return false;
		if (n == mine_len && !memcmp(t, mine, n))
			return true;
	}
	return false;
}

int api_gzip(const void *in, size_t len, void **ret, size_t *ret_len)
{
	z_stream z = {0};
	unsigned char *out;
	size_t cap;
	int r;

	*ret = NULL;
	*ret_len = 0;
	if (len > UINT32_MAX / 2)
		return -EIO; /* zlib's counts are 32-bit; no answer is that big */
	if (deflateInit2(&z, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)len);
	out = malloc(cap ? cap : 1);
	if (!out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(out);
		return -EIO;
	}
	*ret = out;
	*ret_len = cap - z.avail_out;
	return 0;
}

/* Source bytes read at a time: /samples renders 16 KiB ahead. */
#define GZIP_STREAM_IN 16384

struct api_gzip_stream {
	z_stream z;
	api_gzip_src_fn src;
	void *cls;
	bool src_done; /* the source said 0: Z_FINISH from now on */
	bool done;     /* the trailer is out */
	unsigned char in[GZIP_STREAM_IN];
};

int api_gzip_stream_new(api_gzip_src_fn src, void *cls, struct api_gzip_stream **ret)
{
	struct api_gzip_stream *g = calloc(1, sizeof(*g));

	*ret = NULL;
	if (!g)
		return -ENOMEM;
	/*
	 * A stream's deflate state lives as long as its client reads: a window of 8 KiB
	 * and memLevel 6 hold 64 KiB (the defaults 256 KiB), for ~19 % more bytes on a
	 * /samples answer (51,346 bytes: 4,925 gzipped against 4,153).
	 */
	if (deflateInit2(&g->z, GZIP_LEVEL, Z_DEFLATED, 13 + 16, 6, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	g->src = src;
	g->cls = cls;
	*ret = g;
	return 0;
}

ssize_t api_gzip_stream_read(struct api_gzip_stream *g, char *buf, size_t max)
{
	if (g->done)
		return 0;
	if (max > UINT32_MAX)
		max = UINT32_MAX;
	g->z.next_out = (Bytef *)buf;
	g->z.avail_out = (uInt)max;
	for (;;) {
		int r;

		if (g->z.avail_in == 0 && !g->src_done) {
			ssize_t n = g->src(g->cls, (char *)g->in, sizeof(g->in));

			if (n < 0)
				return n;
			if (n == 0)
				g->src_done = true;
			g->z.next_in = g->in;
			g->z.avail_in = (uInt)n;
		}
		r = deflate(&g->z, g->src_done ? Z_FINISH : Z_NO_FLUSH);
		if (r == Z_STREAM_END)
			g->done = true;
		else if (r != Z_OK && r != Z_BUF_ERROR)
			return -EIO;
		/* Out when something came, or at the end; else the source is read again. */
		if (g->z.avail_out < max || g->done)
			return (ssize_t)(max - g->z.avail_out);
		if (g->src_done && r == Z_BUF_ERROR)
			return -EIO; /* no progress with the whole buffer free: cannot happen */
	}
}

void api_gzip_stream_free(struct api_gzip_stream *g)
{
	if (!g)
		return;
	deflateEnd(&g->z);
	free(g);
}
