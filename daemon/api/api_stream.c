/* SPDX-License-Identifier: MIT */
/*
 * The body of /samples, produced while it is sent. Up to 100,000 samples as one
 * jansson tree take over half a gigabyte; streamed they cost their structs plus
 * one small buffer, and read a page at a time (api_samples_stream_more()) only one
 * page of structs: 50 slow clients used to pin 100,000 structs each. Every byte still comes from jansson: the envelope is dumped
 * with an empty "samples" array (its last member), and each sample, dumped on
 * its own, is spliced between that array's brackets with commas.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "nvmond/api/render.h"
#include "nvmond/util/timefmt.h"

#include "nvmond/api/api_route.h"

#define STREAM_REFILL 16384 /* bytes rendered ahead, at least */
#define STREAM_PAGE   500   /* samples read at a time after the first page */

struct api_samples_stream {
	char *prefix; /* '{"device_id":…,"samples":[' … */
	size_t prefix_len;
	struct sample *v;
	size_t n, next;		  /* samples, next to render */
	size_t sent;		  /* rendered so far, over all pages */
	api_samples_page_fn more; /* NULL: v is all there is */
	void *more_ctx;
	size_t more_left; /* samples still allowed, after v */
	bool more_done;	  /* a short page came: nothing after v */
	bool done;	  /* closing "]}" queued */
	char *buf;	  /* rendered, not yet read */
	size_t len, off, cap;
};

static const char stream_suffix[] = "]}";

static int buf_append(struct api_samples_stream *st, const char *p, size_t n)
{
	if (st->len + n > st->cap) {
		size_t cap = st->cap ? st->cap : STREAM_REFILL * 2;
		char *nb;

		while (cap < st->len + n)
			cap *= 2;
		nb = realloc(st->buf, cap);
		if (!nb)
			return -ENOMEM;
		st->buf = nb;
		st->cap = cap;
	}
	memcpy(st->buf + st->len, p, n);
	st->len += n;
	return 0;
}

static int dump_cb(const char *p, size_t n, void *data)
{
	return buf_append(data, p, n) < 0 ? -1 : 0;
}

int api_samples_stream_new(int64_t device_id, int64_t from_ms, int64_t to_ms, struct sample *v,
			   size_t n, struct api_samples_stream **ret)
{
	const size_t suffix_len = strlen(stream_suffix);
	char from[TIMEFMT_MAX], to[TIMEFMT_MAX];
	struct api_samples_stream *st;
	json_t *envelope;
	char *text;
	size_t len;

	envelope = json_pack("{s:I, s:s, s:s, s:[]}", "device_id", (json_int_t)device_id, "from",
			     timefmt_rfc3339(from_ms, from), "to", timefmt_rfc3339(to_ms, to),
			     "samples");
	text = envelope ? json_dumps(envelope, JSON_COMPACT) : NULL;
	json_decref(envelope);
	if (!text)
		return -ENOMEM;
	/* Compact, insertion-ordered: the dump ends in the empty array, "[]}". */
	len = strlen(text);
	if (len < suffix_len + 1 || strcmp(text + len - suffix_len, stream_suffix) != 0 ||
	    text[len - suffix_len - 1] != '[') {
		free(text);
		return -EPROTO;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		free(text);
		return -ENOMEM;
	}
	st->prefix = text;
	st->prefix_len = len - suffix_len;
	st->v = v;
	st->n = n;
	if (buf_append(st, st->prefix, st->prefix_len) < 0) {
		api_samples_stream_free(st);
		return -ENOMEM;
	}
	*ret = st;
	return 0;
}

void api_samples_stream_more(struct api_samples_stream *st, api_samples_page_fn fn, void *ctx,
			     size_t limit)
{
	st->more = fn;
	st->more_ctx = ctx;
	st->more_left = limit > st->n ? limit - st->n : 0;
	st->more_done = st->n == 0 || st->more_left == 0;
}

/* The page after the samples rendered so far; the old one is let go. */
static int stream_next_page(struct api_samples_stream *st)
{
	int64_t from = st->v[st->n - 1].ts_ms + 1;
	size_t want = st->more_left < STREAM_PAGE ? st->more_left : STREAM_PAGE;
	struct sample *v = NULL;
	size_t n = 0;
	int r;

	r = st->more(st->more_ctx, from, want, &v, &n);
	if (r < 0)
		return r;
	free(st->v);
	st->v = v;
	st->n = n;
	st->next = 0;
	st->more_left -= n;
	st->more_done = n < want || st->more_left == 0;
	return 0;
}

/* Render samples (and at last the suffix) until STREAM_REFILL bytes wait. */
static int stream_refill(struct api_samples_stream *st)
{
	st->len = st->off = 0;
	while (st->len < STREAM_REFILL) {
		json_t *o;
		int r;

		if (st->next == st->n) {
			if (!st->more || st->more_done)
				break;
			r = stream_next_page(st);
			if (r < 0)
				return r;
			if (st->n == 0)
				break;
		}
		o = render_sample(&st->v[st->next]);

		if (!o)
			return -ENOMEM;
		r = st->sent > 0 ? buf_append(st, ",", 1) : 0;
		if (r == 0 && json_dump_callback(o, dump_cb, st, JSON_COMPACT) < 0)
			r = -ENOMEM;
		json_decref(o);
		if (r < 0)
			return r;
		st->next++;
		st->sent++;
	}
	if (st->next == st->n && (!st->more || st->more_done) && !st->done &&
	    st->len < STREAM_REFILL) {
		if (buf_append(st, stream_suffix, strlen(stream_suffix)) < 0)
			return -ENOMEM;
		st->done = true;
	}
	return 0;
}

ssize_t api_samples_stream_read(struct api_samples_stream *st, char *buf, size_t max)
{
	size_t k;

	if (st->off == st->len) {
		int r = stream_refill(st);

		if (r < 0)
			return r;
	}
	k = st->len - st->off;
	if (k > max)
		k = max;
	memcpy(buf, st->buf + st->off, k);
	st->off += k;
	return (ssize_t)k;
}

struct api_samples_stream *api_samples_stream_free(struct api_samples_stream *st)
{
	if (!st)
		return NULL;
	free(st->prefix);
	free(st->buf);
	free(st->v);
	free(st);
	return NULL;
}
