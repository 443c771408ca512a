/* SPDX-License-Identifier: MIT */
/*
 * The body of a remote-write request, checked against the Remote-Write 1.0
 * specification (prometheus.io/docs/specs/remote_write_spec): decoded field by
 * field with the message's own descriptor, and byte for byte for a one-sample
 * request whose protobuf encoding is worked out by hand below.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "nvmond/export/rw_encode.h"
#include "remote.pb-c.h"

/* The body decoded: snappy's block format, then the WriteRequest. */
static Prometheus__WriteRequest *decode(const uint8_t *body, size_t len, size_t *ret_raw)
{
	size_t raw_len = 0;

	/* "The block format MUST be used": it starts with the uncompressed length as a
	 * varint, where the framing format starts with its stream identifier 0xff. */
	cr_assert_neq(body[0], 0xff);
	cr_assert_eq(snappy_uncompressed_length((const char *)body, len, &raw_len), SNAPPY_OK);
	char *raw = malloc(raw_len ? raw_len : 1);
	cr_assert_eq(snappy_uncompress((const char *)body, len, raw, &raw_len), SNAPPY_OK);
	Prometheus__WriteRequest *w =
		prometheus__write_request__unpack(NULL, raw_len, (const uint8_t *)raw);
	cr_assert_not_null(w, "not a WriteRequest");
	free(raw);
	if (ret_raw)
		*ret_raw = raw_len;
	return w;
}

static void expect_labels(const Prometheus__TimeSeries *t, const char *const *want)
{
	size_t n = 0;

	while (want[2 * n])
		n++;
	cr_assert_eq(t->n_labels, n, "labels: %zu, want %zu", t->n_labels, n);
	for (size_t i = 0; i < n; i++) {
		cr_expect_str_eq(t->labels[i]->name, want[2 * i]);
		cr_expect_str_eq(t->labels[i]->value, want[2 * i + 1]);
	}
}

Test(rw_encode, write_request_field_by_field)
{
	struct rw_batch *b = rw_batch_new();
	/* The series' own labels first, the external ones after, in any order. */
	const struct rw_label temp[] = {
		{"__name__", "nvmond_temperature_celsius"},
		{"sensor", "composite"},
		{"device", "nvme0"},
		{"serial", "S2GM"},
		{"label", ""}, /* "MUST NOT contain any empty label names or values" */
		{"job", "nvmond"},
		{"instance", "db7"},
		{"host", "db7"},
		{"Site", "fra1"},	    /* upper case sorts before "__name__" */
		{"device", "not this one"}, /* an external label never overrides the series' */
	};
	const struct rw_label up[] = {
		{"job", "nvmond"}, {"__name__", "nvmond_device_up"}, {"device", "nvme0"}};
	const struct rw_label nameless[] = {{"device", "nvme0"}};
	size_t t, u, x;

	cr_assert_not_null(b);
	cr_assert_eq(rw_batch_series(b, temp, 10, 3, &t), 0);
	cr_assert_eq(rw_batch_series(b, up, 3, 1, &u), 0);
	/* "SHOULD contain a __name__ label": nvmond never sends a series without one. */
	cr_expect_eq(rw_batch_series(b, nameless, 1, 1, &x), -EINVAL);
	cr_assert_eq(rw_batch_sample(b, t, 1700000000000, 67), 0);
	cr_assert_eq(rw_batch_sample(b, t, 1700000001000, 68.5), 0);
	/* "samples ... MUST be sent in timestamp order" per series: older is refused. */
	cr_expect_eq(rw_batch_sample(b, t, 1700000000500, 1), -ERANGE);
	cr_expect_eq(rw_batch_sample(b, t, 1700000001000, 1), -ERANGE, "not later: refused");
	cr_assert_eq(rw_batch_sample(b, u, 1700000001500, rw_stale_nan()), 0);
	cr_expect_eq(rw_batch_sample(b, u, 1700000002000, 1), -ERANGE, "past its reserve");
	cr_expect_eq(rw_batch_sample_count(b), 3);

	uint8_t *body;
	size_t len, raw_len, raw2;
	cr_assert_eq(rw_batch_encode(b, &body, &len, &raw_len), 0);
	Prometheus__WriteRequest *w = decode(body, len, &raw2);
	cr_expect_eq(raw2, raw_len);
	cr_assert_eq(w->n_timeseries, 2);
	/* "Label names MUST be sorted in lexicographical order", each once. */
	const char *const want_temp[] = {
		"Site",	    "fra1",	 "__name__", "nvmond_temperature_celsius",
		"device",   "nvme0",	 "host",     "db7",
		"instance", "db7",	 "job",	     "nvmond",
		"sensor",   "composite", "serial",   "S2GM",
		NULL};
	expect_labels(w->timeseries[0], want_temp);
	cr_assert_eq(w->timeseries[0]->n_samples, 2);
	cr_expect_eq(w->timeseries[0]->samples[0]->timestamp, 1700000000000);
	cr_expect_eq(w->timeseries[0]->samples[0]->value, 67);
	cr_expect_eq(w->timeseries[0]->samples[1]->timestamp, 1700000001000);
	cr_expect_eq(w->timeseries[0]->samples[1]->value, 68.5);
	const char *const want_up[] = {"__name__", "nvmond_device_up", "device", "nvme0",
				       "job",	   "nvmond",	       NULL};
	expect_labels(w->timeseries[1], want_up);
	cr_assert_eq(w->timeseries[1]->n_samples, 1);
	/* A staleness marker keeps its exact NaN payload on the wire. */
	cr_expect(rw_is_stale_nan(w->timeseries[1]->samples[0]->value));
	cr_expect(!rw_is_stale_nan(NAN));
	prometheus__write_request__free_unpacked(w, NULL);
	free(body);

	/* A reset batch is empty; a series without samples is left out. */
	rw_batch_reset(b);
	cr_assert_eq(rw_batch_series(b, up, 3, 1, &u), 0);
	cr_assert_eq(rw_batch_encode(b, &body, &len, NULL), 0);
	w = decode(body, len, NULL);
	cr_expect_eq(w->n_timeseries, 0);
	prometheus__write_request__free_unpacked(w, NULL);
	free(body);
	rw_batch_free(b);
}

/*
 * The protobuf encoding (protobuf.dev/programming-guides/encoding) of
 * WriteRequest{timeseries: [{labels: [{name: "__name__", value: "up"}],
 * samples: [{value: 1.0, timestamp: 1000}]}]}, by hand:
 *   0a 1e              field 1 (timeseries), length-delimited, 30 bytes
 *     0a 0e            field 1 (labels), 14 bytes
 *       0a 08 "__name__"  12 02 "up"
 *     12 0c            field 2 (samples), 12 bytes
 *       09 00 00 00 00 00 00 f0 3f   field 1 (value), fixed64: 1.0
 *       10 e8 07                     field 2 (timestamp), varint: 1000
 */
Test(rw_encode, bytes_as_the_encoding_guide_makes_them)
{
	static const uint8_t want[] = {0x0a, 0x1e, 0x0a, 0x0e, 0x0a, 0x08, '_',	 '_',
				       'n',  'a',  'm',	 'e',  '_',  '_',  0x12, 0x02,
				       'u',  'p',  0x12, 0x0c, 0x09, 0x00, 0x00, 0x00,
				       0x00, 0x00, 0x00, 0xf0, 0x3f, 0x10, 0xe8, 0x07};
	const struct rw_label l[] = {{"__name__", "up"}};
	struct rw_batch *b = rw_batch_new();
	uint8_t *body;
	size_t len, raw_len, idx;

	cr_assert_eq(rw_batch_series(b, l, 1, 1, &idx), 0);
	cr_assert_eq(rw_batch_sample(b, idx, 1000, 1.0), 0);
	cr_assert_eq(rw_batch_encode(b, &body, &len, &raw_len), 0);
	cr_assert_eq(raw_len, sizeof(want));
	char raw[64];
	size_t n = sizeof(raw);
	cr_assert_eq(snappy_uncompress((const char *)body, len, raw, &n), SNAPPY_OK);
	cr_assert_eq(n, sizeof(want));
	cr_expect_eq(memcmp(raw, want, sizeof(want)), 0);
	/* The block format's preamble: the uncompressed length, a varint (32 = 0x20). */
	cr_expect_eq(body[0], 0x20);
	free(body);
	rw_batch_free(b);
}

/* "MUST NOT contain repeated label names", sorted, no empty names or values. */
Test(rw_encode, labels_normalized)
{
	struct rw_label v[] = {{"b", "1"}, {"a", "2"}, {"", "x"},
			       {"b", "3"}, {"c", ""},  {"A", "4"}};
	size_t n = rw_labels_normalize(v, 6);

	cr_assert_eq(n, 3);
	cr_expect_str_eq(v[0].name, "A");
	cr_expect_str_eq(v[1].name, "a");
	cr_expect_str_eq(v[2].name, "b");
	cr_expect_str_eq(v[2].value, "1", "the first given wins");
}
