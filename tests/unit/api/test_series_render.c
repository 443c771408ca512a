/* SPDX-License-Identifier: MIT */
/*
 * series_render() writes the JSON of GET …/series itself; the document is the
 * one the jansson rendering it replaced printed, byte for byte. That rendering is
 * kept here as the reference.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/render.h"
#include "nvmond/api/series_render.h"
#include "nvmond/util/timefmt.h"

/* ---- the reference: the jansson rendering, as it was ------------------- */

static json_t *celsius(double kelvin, uint32_t reported)
{
	if (!reported)
		return json_null();
	return json_integer((json_int_t)lround(kelvin - 273.0));
}

static json_t *reference(int64_t device_id, const struct series_query *q,
			 const struct series_row *v, size_t n)
{
	json_t *o, *t, *tmin, *tavg, *tmax, *sensors, *cw, *spare, *used, *wr, *rd, *media, *c1,
		*c2, *s1, *s2, *cnt;
	char from[TIMEFMT_MAX], to[TIMEFMT_MAX];

	o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:i, s:I}", "device_id", (json_int_t)device_id,
		      "from", timefmt_rfc3339(q->from_ms, from), "to",
		      timefmt_rfc3339(q->to_ms, to), "from_ms", (json_int_t)q->from_ms, "to_ms",
		      (json_int_t)q->to_ms, "resolution_s", q->res_s, "step_s",
		      (json_int_t)(q->step_ms / 1000));
	cr_assert_not_null(o);
	t = json_array(), tmin = json_array(), tavg = json_array(), tmax = json_array();
	cw = json_array(), spare = json_array(), used = json_array(), wr = json_array();
	rd = json_array(), media = json_array(), c1 = json_array(), c2 = json_array();
	s1 = json_array(), s2 = json_array(), cnt = json_array(), sensors = json_array();
	json_object_set_new(o, "points", json_integer((json_int_t)n));
	json_object_set_new(o, "t", t);
	json_object_set_new(o, "n", cnt);
	json_object_set_new(o, "temp_c",
			    json_pack("{s:o, s:o, s:o}", "min", tmin, "avg", tavg, "max", tmax));
	json_object_set_new(o, "sensors", sensors);
	json_object_set_new(o, "critical_warning", cw);
	json_object_set_new(o, "avail_spare", spare);
	json_object_set_new(o, "percent_used", used);
	json_object_set_new(o, "data_written_bytes", wr);
	json_object_set_new(o, "data_read_bytes", rd);
	json_object_set_new(o, "media_errors", media);
	json_object_set_new(o, "thm_temp1_trans_count", c1);
	json_object_set_new(o, "thm_temp2_trans_count", c2);
	json_object_set_new(o, "thm_temp1_total_time", s1);
	json_object_set_new(o, "thm_temp2_total_time", s2);
	for (size_t i = 0; i < n; i++) {
		const struct series_row *x = &v[i];

		json_array_append_new(t, json_integer(x->ts_ms / 1000));
		json_array_append_new(cnt, json_integer(x->n));
		json_array_append_new(tmin, celsius(x->temp_min_k, x->temp_n));
		json_array_append_new(tavg, celsius(x->temp_avg_k, x->temp_n));
		json_array_append_new(tmax, celsius(x->temp_max_k, x->temp_n));
		json_array_append_new(cw, json_integer(x->critical_warning));
		json_array_append_new(spare, json_integer(x->avail_spare));
		json_array_append_new(used, json_integer(x->percent_used));
		json_array_append_new(wr, render_u128(smart_bytes(x->data_units_written)));
		json_array_append_new(rd, render_u128(smart_bytes(x->data_units_read)));
		json_array_append_new(media, render_u128(x->media_errors));
		json_array_append_new(c1, json_integer(x->thm_count[0]));
		json_array_append_new(c2, json_integer(x->thm_count[1]));
		json_array_append_new(s1, json_integer(x->thm_time[0]));
		json_array_append_new(s2, json_integer(x->thm_time[1]));
	}
	for (size_t k = 0; k < SMART_NUM_SENSORS; k++) {
		json_t *mn, *av, *mx;
		bool reported = false;

		for (size_t i = 0; i < n && !reported; i++)
			reported = v[i].s_n[k] > 0;
		if (!reported)
			continue;
		mn = json_array(), av = json_array(), mx = json_array();
		json_array_append_new(sensors,
				      json_pack("{s:i, s:o, s:o, s:o}", "sensor", (int)k + 1, "min",
						mn, "avg", av, "max", mx));
		for (size_t i = 0; i < n; i++) {
			json_array_append_new(mn, celsius(v[i].s_min_k[k], v[i].s_n[k]));
			json_array_append_new(av, celsius(v[i].s_avg_k[k], v[i].s_n[k]));
			json_array_append_new(mx, celsius(v[i].s_max_k[k], v[i].s_n[k]));
		}
	}
	return o;
}

/* ---- random rows ---------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A counter: small, around 2^63 (as bytes or as units), or at the top of 128 bits. */
static u128 counter(void)
{
	switch (next() % 6) {
	case 0:
		return next() % 1000;
	case 1:
		return next() >> (next() % 64);
	case 2: /* units whose bytes (× 512,000) cross INT64_MAX */
		return (u128)INT64_MAX / BYTES_PER_UNIT - 2 + next() % 5;
	case 3:
		return (u128)INT64_MAX - 2 + next() % 5;
	case 4:
		return ((u128)next() << 64) | next();
	default:
		return U128_MAX - next() % 3;
	}
}

static uint16_t kelvin(void)
{
	return (uint16_t)(next() % 8 == 0 ? next() % 65536 : 200 + next() % 200);
}

/* Averages on and around .5, where rounding decides. */
static double avg_kelvin(void)
{
	static const double frac[] = {0.0, 0.25, 0.5, 0.49999999, 0.5000001, 0.75};

	return (double)kelvin() + frac[next() % 6];
}

static void random_row(struct series_row *x, unsigned sensors)
{
	*x = (struct series_row){
		.ts_ms = (int64_t)(next() % (4102444800000ull)) - (next() % 4 == 0 ? 86400000 : 0),
		.n = (uint32_t)(next() % 4 == 0 ? next() : next() % 400),
		.temp_min_k = kelvin(),
		.temp_max_k = kelvin(),
		.temp_avg_k = avg_kelvin(),
		.temp_n = next() % 5 == 0 ? 0 : (uint32_t)(1 + next() % 360),
		.critical_warning = (uint8_t)next(),
		.avail_spare = (uint8_t)next(),
		.percent_used = (uint8_t)next(),
		.data_units_read = counter(),
		.data_units_written = counter(),
		.media_errors = counter(),
		.thm_count = {(uint32_t)next(), (uint32_t)(next() % 10)},
		.thm_time = {(uint32_t)next(), (uint32_t)(next() % 100)},
	};
	for (unsigned k = 0; k < SMART_NUM_SENSORS; k++) {
		x->s_min_k[k] = kelvin();
		x->s_max_k[k] = kelvin();
		x->s_avg_k[k] = avg_kelvin();
		if ((sensors & (1u << k)) && next() % 3)
			x->s_n[k] = (uint32_t)(1 + next() % 360);
	}
}

static void expect_same(int64_t id, const struct series_query *q, const struct series_row *v,
			size_t n)
{
	json_t *ref = reference(id, q, v, n);
	char *want = json_dumps(ref, JSON_COMPACT), *got = NULL;
	size_t len = 0;

	cr_assert_not_null(want);
	cr_assert_eq(series_render(id, q, v, n, &got, &len), 0);
	cr_assert_eq(strlen(got), len, "the length given is the text's");
	cr_assert_str_eq(got, want, "%zu rows", n);
	free(want);
	free(got);
	json_decref(ref);
}

/*
 * docs/api.md GET …/series: "temperatures in whole °C like the rest of the API,
 * null when not reported", "sensors ... only sensors that report", counters beyond
 * 2^63 as decimal strings: the same document as the jansson rendering, byte for
 * byte, for random rows.
 */
Test(series_render, same_bytes_as_jansson)
{
	struct series_row *v = calloc(300, sizeof(*v));

	cr_assert_not_null(v);
	for (int round = 0; round < 400; round++) {
		size_t n = round < 5 ? (size_t)round : (size_t)(next() % 300);
		unsigned sensors = (unsigned)(round % 4 == 0 ? 0 : next() % 256);
		struct series_query q = {
			.from_ms = (int64_t)(next() % 4102444800000ull),
			.to_ms = (int64_t)(next() % 4102444800000ull),
			.step_ms = (int64_t)(1 + next() % (3650 * 86400000ull)),
			.res_s = (int[]){SERIES_RES_RAW, SERIES_RES_1M, SERIES_RES_1H}[next() % 3],
		};

		for (size_t i = 0; i < n; i++)
			random_row(&v[i], sensors);
		expect_same((int64_t)(next() % 100000), &q, v, n);
	}
	free(v);
}

/* The ends of every integer field, and an empty range. */
Test(series_render, extremes)
{
	struct series_row v[3] = {0};
	struct series_query q = {.from_ms = 0, .to_ms = 0, .step_ms = 999, .res_s = 0};

	expect_same(0, &q, NULL, 0);
	expect_same(INT64_MIN, &q, v, 1);
	q = (struct series_query){.from_ms = SERIES_TIME_MAX_MS,
				  .to_ms = SERIES_TIME_MAX_MS,
				  .step_ms = INT64_MAX,
				  .res_s = SERIES_RES_1H};
	v[0] = (struct series_row){.ts_ms = INT64_MAX,
				   .n = UINT32_MAX,
				   .temp_n = 1,
				   .temp_min_k = 0,
				   .temp_max_k = UINT16_MAX,
				   .temp_avg_k = 272.5,
				   .critical_warning = UINT8_MAX,
				   .avail_spare = UINT8_MAX,
				   .percent_used = UINT8_MAX,
				   .data_units_read = U128_MAX,
				   .data_units_written = (u128)INT64_MAX / BYTES_PER_UNIT + 1,
				   .media_errors = (u128)INT64_MAX + 1,
				   .thm_count = {UINT32_MAX, UINT32_MAX},
				   .thm_time = {UINT32_MAX, UINT32_MAX}};
	v[1] = (struct series_row){.ts_ms = INT64_MIN,
				   .temp_n = 2,
				   .temp_avg_k = 273.5,
				   .media_errors = (u128)INT64_MAX,
				   .data_units_read = (u128)INT64_MAX / BYTES_PER_UNIT};
	v[1].s_n[SMART_NUM_SENSORS - 1] = 1;
	v[1].s_avg_k[SMART_NUM_SENSORS - 1] = 0.0;
	v[2].ts_ms = -1001;
	expect_same(INT64_MAX, &q, v, 3);
}
