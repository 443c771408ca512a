/* SPDX-License-Identifier: MIT */
/*
 * The body of a Prometheus Remote-Write 1.0 request: the WriteRequest message
 * of remote.proto through libprotobuf-c, then snappy's block format
 * (snappy_compress(), not the framed stream: "the request body MUST be
 * compressed using Google's Snappy ... The block format MUST be used").
 * What the specification asks of a series' labels is done here once, for
 * every caller: sorted by name, names unique, no empty name or value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "nvmond/export/rw_encode.h"
#include "remote.pb-c.h"

#define STR_BLOCK 65536

struct str_block {
	struct str_block *next;
	size_t used, cap;
	char data[];
};

struct rw_slot {
	size_t label_off, n_labels;
	size_t sample_off, n_samples, reserve;
};

struct rw_batch {
	struct rw_slot *series;
	size_t n_series, cap_series;
	struct rw_label *labels;
	size_t n_labels, cap_labels;
	struct rw_sample *samples; /* each series' reserve, one after another */
	size_t n_reserved, cap_samples;
	size_t n_filled; /* samples added */
	struct str_block *blocks;
};

double rw_stale_nan(void)
{
	uint64_t bits = RW_STALE_NAN_BITS;
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

bool rw_is_stale_nan(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits == RW_STALE_NAN_BITS;
}

size_t rw_labels_normalize(struct rw_label *v, size_t n)
{
	size_t k = 0;

	/* Insertion sort: stable, and a series has a few dozen labels at most. */
	for (size_t i = 1; i < n; i++) {
		struct rw_label x = v[i];
		size_t j = i;
		while (j > 0 && strcmp(v[j - 1].name, x.name) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	for (size_t i = 0; i < n; i++) {
		if (!v[i].name[0] || !v[i].value[0])
			continue;
		if (k > 0 && strcmp(v[k - 1].name, v[i].name) == 0)
			continue; /* the first one given wins */
		v[k++] = v[i];
	}
	return k;
}

struct rw_batch *rw_batch_new(void)
{
	return calloc(1, sizeof(struct rw_batch));
}

static void blocks_free(struct str_block *b)
{
	while (b) {
		struct str_block *next = b->next;
		free(b);
		b = next;
	}
}

struct rw_batch *rw_batch_free(struct rw_batch *b)
{
	if (!b)
		return NULL;
	free(b->series);
	free(b->labels);
	free(b->samples);
	blocks_free(b->blocks);
	free(b);
	return NULL;
}

void rw_batch_reset(struct rw_batch *b)
{
	b->n_series = b->n_labels = b->n_reserved = b->n_filled = 0;
	if (b->blocks) {
		blocks_free(b->blocks->next);
		b->blocks->next = NULL;
		b->blocks->used = 0;
	}
}

const char *rw_batch_strdup(struct rw_batch *b, const char *s, size_t len)
{
	struct str_block *blk = b->blocks;

	if (!blk || blk->cap - blk->used < len + 1) {
		size_t cap = len + 1 > STR_BLOCK ? len + 1 : STR_BLOCK;
		struct str_block *nb = malloc(sizeof(*nb) + cap);
		if (!nb)
			return NULL;
		nb->used = 0;
		nb->cap = cap;
		/* Keep the newest block first: it is the one with room. */
		nb->next = blk;
		b->blocks = nb;
		blk = nb;
	}
	char *d = blk->data + blk->used;
	memcpy(d, s, len);
	d[len] = '\0';
	blk->used += len + 1;
	return d;
}

/* Room for @more elements of @size in *@v (*@cap of them now). */
static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

int rw_batch_series(struct rw_batch *b, const struct rw_label *labels, size_t n, size_t reserve,
		    size_t *ret_idx)
{
	bool named = false;

	if (grow((void **)&b->series, &b->cap_series, b->n_series + 1, sizeof(*b->series)) < 0 ||
	    grow((void **)&b->labels, &b->cap_labels, b->n_labels + n, sizeof(*b->labels)) < 0 ||
	    grow((void **)&b->samples, &b->cap_samples, b->n_reserved + reserve,
		 sizeof(*b->samples)) < 0)
		return -ENOMEM;
	struct rw_label *v = b->labels + b->n_labels;
	memcpy(v, labels, n * sizeof(*v));
	size_t k = rw_labels_normalize(v, n);
	for (size_t i = 0; i < k; i++)
		named |= strcmp(v[i].name, "__name__") == 0;
	if (!named)
		return -EINVAL;
	b->series[b->n_series] = (struct rw_slot){.label_off = b->n_labels,
						  .n_labels = k,
						  .sample_off = b->n_reserved,
						  .reserve = reserve};
	b->n_labels += k;
	b->n_reserved += reserve;
	*ret_idx = b->n_series++;
	return 0;
}

int rw_batch_sample(struct rw_batch *b, size_t idx, int64_t ts_ms, double value)
{
	if (idx >= b->n_series)
		return -EINVAL;
	struct rw_slot *s = &b->series[idx];
	if (s->n_samples == s->reserve)
		return -ERANGE;
	if (s->n_samples && b->samples[s->sample_off + s->n_samples - 1].ts_ms >= ts_ms)
		return -ERANGE;
	b->samples[s->sample_off + s->n_samples++] = (struct rw_sample){ts_ms, value};
	b->n_filled++;
	return 0;
}

size_t rw_batch_series_count(const struct rw_batch *b)
{
	return b->n_series;
}

size_t rw_batch_sample_count(const struct rw_batch *b)
{
	return b->n_filled;
}

int rw_batch_encode(const struct rw_batch *b, uint8_t **ret, size_t *ret_len, size_t *ret_raw_len)
{
	Prometheus__WriteRequest req = PROMETHEUS__WRITE_REQUEST__INIT;
	Prometheus__TimeSeries *ts = NULL, **tsp = NULL;
	Prometheus__Label *lab = NULL, **labp = NULL;
	Prometheus__Sample *smp = NULL, **smpp = NULL;
	uint8_t *raw = NULL, *out = NULL;
	size_t n = 0, nl = 0, ns = 0;
	int r = -ENOMEM;

	ts = calloc(b->n_series ? b->n_series : 1, sizeof(*ts));
	tsp = calloc(b->n_series ? b->n_series : 1, sizeof(*tsp));
	lab = calloc(b->n_labels ? b->n_labels : 1, sizeof(*lab));
	labp = calloc(b->n_labels ? b->n_labels : 1, sizeof(*labp));
	smp = calloc(b->n_filled ? b->n_filled : 1, sizeof(*smp));
	smpp = calloc(b->n_filled ? b->n_filled : 1, sizeof(*smpp));
	if (!ts || !tsp || !lab || !labp || !smp || !smpp)
		goto out;
	for (size_t i = 0; i < b->n_series; i++) {
		const struct rw_slot *s = &b->series[i];

		if (!s->n_samples)
			continue;
		Prometheus__TimeSeries *t = &ts[n];
		prometheus__time_series__init(t);
		t->labels = &labp[nl];
		t->n_labels = s->n_labels;
		for (size_t k = 0; k < s->n_labels; k++) {
			prometheus__label__init(&lab[nl]);
			/* protobuf-c takes char *; it never writes through them when packing. */
			lab[nl].name = (char *)b->labels[s->label_off + k].name;
			lab[nl].value = (char *)b->labels[s->label_off + k].value;
			labp[nl] = &lab[nl];
			nl++;
		}
		t->samples = &smpp[ns];
		t->n_samples = s->n_samples;
		for (size_t k = 0; k < s->n_samples; k++) {
			prometheus__sample__init(&smp[ns]);
			smp[ns].timestamp = b->samples[s->sample_off + k].ts_ms;
			smp[ns].value = b->samples[s->sample_off + k].value;
			smpp[ns] = &smp[ns];
			ns++;
		}
		tsp[n++] = t;
	}
	req.timeseries = tsp;
	req.n_timeseries = n;
	size_t raw_len = prometheus__write_request__get_packed_size(&req);
	raw = malloc(raw_len ? raw_len : 1);
	if (!raw)
		goto out;
	if (prometheus__write_request__pack(&req, raw) != raw_len) {
		r = -EIO;
		goto out;
	}
	size_t out_len = snappy_max_compressed_length(raw_len);
	out = malloc(out_len ? out_len : 1);
	if (!out)
		goto out;
	if (snappy_compress((const char *)raw, raw_len, (char *)out, &out_len) != SNAPPY_OK) {
		r = -EIO;
		goto out;
	}
	*ret = out;
	out = NULL;
	*ret_len = out_len;
	if (ret_raw_len)
		*ret_raw_len = raw_len;
	r = 0;
out:
	free(out);
	free(raw);
	free(ts);
	free(tsp);
	free(lab);
	free(labp);
	free(smp);
	free(smpp);
	return r;
}
