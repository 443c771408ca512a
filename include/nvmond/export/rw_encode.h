/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A Prometheus Remote-Write 1.0 request body (issue 24 §2): a protobuf
 * WriteRequest (libprotobuf-c, from remote.proto), snappy block format
 * (libsnappy). Pure: no clock, no I/O.
 *
 * A batch holds the series of one request: each series' labels (normalized as
 * the specification wants them: sorted by name, each name once, no empty name or
 * value) and its samples, which the caller adds in time order.
 */
struct rw_label {
	const char *name, *value; /* the caller's strings, or rw_batch_strdup()'s */
};

struct rw_sample {
	int64_t ts_ms;
	double value;
};

struct rw_batch;

/* A Prometheus staleness marker: the NaN with this bit pattern (value.StaleNaN). */
#define RW_STALE_NAN_BITS 0x7ff0000000000002ULL

/** rw_stale_nan() - The staleness marker as a double. */
double rw_stale_nan(void);

/** rw_is_stale_nan() - Whether @v is the staleness marker (bit for bit). */
bool rw_is_stale_nan(double v);

/**
 * rw_labels_normalize() - Sort @v by name (bytewise), drop the ones with an
 * empty name or value, and keep the first of each name (so a caller lists a
 * series' own labels before the external ones, which then never override
 * them, as Prometheus does with external_labels). Stable.
 * Return: how many remain at the front of @v.
 */
size_t rw_labels_normalize(struct rw_label *v, size_t n);

/** rw_batch_new() - Return: an empty batch, or NULL on ENOMEM. */
struct rw_batch *rw_batch_new(void);

/** rw_batch_free() - Accepts NULL. Return: NULL. */
struct rw_batch *rw_batch_free(struct rw_batch *b);

/** rw_batch_reset() - Empty @b for the next request, keeping its memory. */
void rw_batch_reset(struct rw_batch *b);

/**
 * rw_batch_strdup() - A copy of @len bytes of @s that lives until the batch is
 * reset or freed. Return: the copy, or NULL on ENOMEM.
 */
const char *rw_batch_strdup(struct rw_batch *b, const char *s, size_t len);

/**
 * rw_batch_series() - Add a series with the @n labels @labels (copied, then
 * normalized; the strings must live as long as the batch) and room for
 * @reserve samples. Return: 0 with its index in *ret_idx, -EINVAL (no
 * __name__ left), or -ENOMEM.
 */
int rw_batch_series(struct rw_batch *b, const struct rw_label *labels, size_t n, size_t reserve,
		    size_t *ret_idx);

/**
 * rw_batch_sample() - Append a sample to series @idx: it must be later than the
 * series' last one (the specification: in timestamp order per series).
 * Return: 0, -ERANGE (not later, or no room left of its reserve) or -EINVAL.
 */
int rw_batch_sample(struct rw_batch *b, size_t idx, int64_t ts_ms, double value);

/** rw_batch_series_count() / rw_batch_sample_count() - What @b holds. */
size_t rw_batch_series_count(const struct rw_batch *b);
size_t rw_batch_sample_count(const struct rw_batch *b);

/**
 * rw_batch_encode() - The WriteRequest of @b, protobuf-encoded and then
 * compressed with snappy's block format: the body of the POST. Series without
 * a sample are left out.
 * @ret: malloc()ed; free() it
 * @ret_raw_len: the protobuf size before compression (may be NULL)
 * Return: 0, or -ENOMEM / -EIO (snappy failed).
 */
int rw_batch_encode(const struct rw_batch *b, uint8_t **ret, size_t *ret_len, size_t *ret_raw_len);
