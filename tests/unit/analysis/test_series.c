/* SPDX-License-Identifier: MIT */
/* Range planning and step-aligned merging of chart series. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "nvmond/analysis/series.h"
#include "nvmond/api/series_render.h"

#define S    1000LL
#define MIN  (60 * S)
#define HOUR (60 * MIN)
#define DAY  (24 * HOUR)
#define NOW  (1764460800000LL)

static const int64_t keep_raw = 7 * DAY, keep_1m = 90 * DAY;

Test(series, plan_picks_coarsest_resolution)
{
	const struct {
		int64_t span;
		unsigned points;
		int res;
	} t[] = {
		{HOUR, 1000, SERIES_RES_RAW},	   {DAY, 1000, SERIES_RES_1M},
		{DAY, 2000, SERIES_RES_RAW},	   {7 * DAY, 2000, SERIES_RES_1M},
		{30 * DAY, 2000, SERIES_RES_1M},   {365 * DAY, 2000, SERIES_RES_1H},
		{365 * DAY, 10000, SERIES_RES_1H}, /* raw/1m not kept that far back */
		{8 * DAY, 10000, SERIES_RES_1M},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct series_query q;

		cr_assert_eq(series_plan(NOW - t[i].span, NOW, t[i].points, 0, NOW, keep_raw,
					 keep_1m, &q),
			     0);
		cr_assert_eq(q.res_s, t[i].res, "case %zu: res %d", i, q.res_s);
		/* At most @points aligned buckets over [from, to]. */
		int64_t buckets = NOW / q.step_ms - (NOW - t[i].span) / q.step_ms + 1;
		cr_assert_leq(buckets, t[i].points, "case %zu: %lld buckets", i,
			      (long long)buckets);
		if (q.res_s)
			cr_assert_eq(q.step_ms % (q.res_s * S), 0);
	}
}

Test(series, plan_refuses)
{
	struct series_query q;

	cr_assert_eq(series_plan(NOW, NOW - 1, 0, 0, NOW, keep_raw, keep_1m, &q), -EINVAL);
	/* No overflow at the edges. */
	cr_assert_eq(series_plan(INT64_MIN, NOW, 0, 0, NOW, keep_raw, keep_1m, &q), -EINVAL);
	cr_assert_eq(series_plan(0, INT64_MAX, 0, 0, NOW, keep_raw, keep_1m, &q), -EINVAL);
	cr_assert_eq(series_plan(-1, NOW, 0, 0, NOW, keep_raw, keep_1m, &q), -EINVAL);
	cr_assert_eq(
		series_plan(NOW - DAY, NOW, SERIES_POINTS_MAX + 1, 0, NOW, keep_raw, keep_1m, &q),
		-EINVAL);
	/* A 1 s step over a year would be 31 M points. */
	cr_assert_eq(series_plan(NOW - 365 * DAY, NOW, 0, S, NOW, keep_raw, keep_1m, &q), -EINVAL);
	cr_assert_eq(series_plan(NOW - HOUR, NOW, 0, 10 * S, NOW, keep_raw, keep_1m, &q), 0);
	cr_assert_eq(q.step_ms, 10 * S);
	cr_assert_eq(q.res_s, SERIES_RES_RAW);
}

static struct series_row raw(int64_t ts, uint16_t k, uint64_t written)
{
	struct sample s = {.ts_ms = ts};

	s.smart.temperature_k = k;
	s.smart.temp_sensor_k[1] = k ? k + 5 : 0;
	s.smart.data_units_written = written;
	s.smart.critical_warning = ts % 2 ? SMART_CRIT_TEMPERATURE : 0;
	struct series_row r;
	series_row_from_sample(&s, &r);
	return r;
}

Test(series, rebucket_min_avg_max_last)
{
	struct series_row v[] = {
		raw(10 * S, 310, 1), raw(20 * S, 320, 2),      raw(30 * S, 0, 3), /* not reported */
		raw(61 * S, 300, 4), raw(119 * S + 1, 330, 5),
	};
	struct series_row *out;
	size_t n;

	cr_assert_eq(series_rebucket(v, 5, MIN, &out, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[0].ts_ms, 0);
	cr_assert_eq(out[0].n, 3);
	cr_assert_eq(out[0].temp_n, 2);
	cr_assert_eq(out[0].temp_min_k, 310);
	cr_assert_eq(out[0].temp_max_k, 320);
	cr_assert_float_eq(out[0].temp_avg_k, 315.0, 1e-9);
	cr_assert_eq(out[0].s_max_k[1], 325);
	cr_assert(out[0].data_units_written == 3, "last counter");
	cr_assert_eq(out[0].last_ts_ms, 30 * S);
	cr_assert_eq(out[1].ts_ms, MIN);
	cr_assert_eq(out[1].critical_warning, SMART_CRIT_TEMPERATURE, "OR over the bucket");
	cr_assert_float_eq(out[1].temp_avg_k, 315.0, 1e-9);

	/* Merging merged rows weights by samples. */
	struct series_row *two;
	size_t m;
	cr_assert_eq(series_rebucket(out, n, HOUR, &two, &m), 0);
	cr_assert_eq(m, 1);
	cr_assert_float_eq(two[0].temp_avg_k, (310 + 320 + 300 + 330) / 4.0, 1e-9);
	cr_assert_eq(two[0].n, 5);

	json_t *o = series_render(
		3, &(struct series_query){.from_ms = 0, .to_ms = HOUR, .step_ms = MIN, .res_s = 0},
		out, n);
	cr_assert_not_null(o);
	cr_assert_eq(json_array_size(json_object_get(o, "t")), 2);
	cr_assert_eq(json_array_size(json_object_get(o, "sensors")), 1, "only reported sensors");
	cr_assert_eq(json_integer_value(json_array_get(
			     json_object_get(json_object_get(o, "temp_c"), "max"), 0)),
		     320 - 273);
	cr_assert_eq(json_integer_value(json_array_get(
			     json_object_get(json_object_get(o, "temp_c"), "avg"), 0)),
		     315 - 273);
	json_decref(o);
	free(two);
	free(out);
	cr_assert_eq(series_rebucket(NULL, 0, MIN, &out, &n), 0);
	cr_assert_eq(n, 0);
}
