/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/render.h"
#include "nvmond/util/timefmt.h"

#include "nvmond/api/api_route.h"

static struct sample *samples_new(size_t n)
{
	struct sample *v = calloc(n ? n : 1, sizeof(*v));

	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++) {
		v[i].device_id = 3;
		v[i].ts_ms = 1764469160000 + (int64_t)i * 1000;
		v[i].smart.temperature_k = (uint16_t)(300 + i % 50);
		v[i].smart.data_units_written = ((u128)1 << 64) * (i % 2) + i;
		v[i].smart.critical_warning = (uint8_t)(i % 64);
		v[i].smart.temp_sensor_k[1] = (uint16_t)(i % 3 ? 0 : 310);
	}
	return v;
}

/* The same body built as one jansson tree: what the stream must equal byte for byte. */
static char *expected_body(int64_t id, int64_t from, int64_t to, const struct sample *v, size_t n)
{
	char f[TIMEFMT_MAX], t[TIMEFMT_MAX];
	json_t *list = json_array();
	json_t *o;
	char *s;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, render_sample(&v[i]));
	o = json_pack("{s:I, s:s, s:s, s:o}", "device_id", (json_int_t)id, "from",
		      timefmt_rfc3339(from, f), "to", timefmt_rfc3339(to, t), "samples", list);
	cr_assert_not_null(o);
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static char *read_all(struct api_samples_stream *st, size_t chunk)
{
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	char *buf = malloc(chunk);
	ssize_t k;

	cr_assert(out && buf);
	while ((k = api_samples_stream_read(st, buf, chunk)) > 0) {
		cr_assert_leq((size_t)k, chunk);
		if (len + (size_t)k + 1 > cap) {
			cap = (len + (size_t)k + 1) * 2;
			out = realloc(out, cap);
			cr_assert_not_null(out);
		}
		memcpy(out + len, buf, (size_t)k);
		len += (size_t)k;
	}
	cr_assert_eq(k, 0, "read failed: %zd", k);
	cr_assert_eq(api_samples_stream_read(st, buf, chunk), 0, "end is sticky");
	out[len] = '\0';
	free(buf);
	return out;
}

Test(api_stream, equals_the_tree)
{
	static const size_t counts[] = {0, 1, 2, 3, 500};
	static const size_t chunks[] = {1, 7, 4096, 1 << 20};

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
			size_t n = counts[c];
			struct sample *v = samples_new(n);
			char *want = expected_body(3, 1000, 1764469160000 + 600000, v, n);
			struct api_samples_stream *st = NULL;
			json_t *parsed;
			char *got;

			cr_assert_eq(
				api_samples_stream_new(3, 1000, 1764469160000 + 600000, v, n, &st),
				0);
			got = read_all(st, chunks[k]);
			cr_expect_str_eq(got, want, "n=%zu chunk=%zu", n, chunks[k]);
			parsed = json_loads(got, 0, NULL);
			cr_expect_not_null(parsed, "n=%zu: not JSON", n);
			cr_expect_eq(json_array_size(json_object_get(parsed, "samples")), n);
			json_decref(parsed);
			free(got);
			free(want);
			api_samples_stream_free(st); /* frees v */
		}
	}
}

Test(api_stream, free_accepts_null)
{
	cr_expect_null(api_samples_stream_free(NULL));
}

/* The "database" of the paged test: @n samples, pages of them as the store gives them. */
struct pages {
	const struct sample *all;
	size_t n;
	size_t calls, most; /* pages read; the largest asked for */
};

static int page_fn(void *ctx, int64_t from_ms, size_t max, struct sample **ret, size_t *ret_n)
{
	struct pages *p = ctx;
	size_t i = 0, k = 0;
	struct sample *v;

	p->calls++;
	if (max > p->most)
		p->most = max;
	while (i < p->n && p->all[i].ts_ms < from_ms)
		i++;
	v = calloc(max ? max : 1, sizeof(*v));
	cr_assert_not_null(v);
	while (i + k < p->n && k < max) {
		v[k] = p->all[i + k];
		k++;
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

/*
 * api_route.h, api_samples_stream_more(): "read more ... a page at a time, until @limit
 * samples in all or a short page": the body equals the one tree of the first @limit
 * samples, whatever the first page and the limit, and no page is asked for more than
 * the stream's page (500).
 */
Test(api_stream, paged_equals_the_tree)
{
	static const struct {
		size_t n, first, limit;
	} cases[] = {
		{0, 0, 100},	      {1, 1, 100},	  {1000, 1000, 1000}, {1000, 1000, 100000},
		{2600, 1000, 100000}, {2600, 1000, 1500}, {2600, 1000, 2000}, {2500, 1000, 100000},
		{1500, 1000, 1500},   {3, 2, 3},	  {3, 2, 100},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = cases[c].n, first = cases[c].first, limit = cases[c].limit;
		size_t want_n = n < limit ? n : limit;
		struct sample *all = samples_new(n);
		struct sample *v = samples_new(first);
		struct pages p = {.all = all, .n = n};
		struct api_samples_stream *st = NULL;
		char *want = expected_body(3, 1000, 2000, all, want_n);
		char *got;

		memcpy(v, all, first * sizeof(*v));
		cr_assert_eq(api_samples_stream_new(3, 1000, 2000, v, first, &st), 0);
		api_samples_stream_more(st, page_fn, &p, limit);
		got = read_all(st, 4096);
		cr_expect_str_eq(got, want, "n=%zu first=%zu limit=%zu", n, first, limit);
		cr_expect_leq(p.most, 500, "n=%zu: a page of %zu", n, p.most);
		free(got);
		free(want);
		free(all);
		api_samples_stream_free(st);
	}
}
