/* SPDX-License-Identifier: MIT */
/* Range planning and step-aligned merging of chart series. */
#include <criterion/criterion.h>
#include <jansson.h>
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

/*
 * series.h: a step beyond SERIES_TIME_MAX_MS is refused, so rounding a step up to
 * whole rollup buckets never overflows (issue 15: step=9223372036854775s gave a
 * negative step; the API's own bound on step is checked in test_api_server).
 */
Test(series, plan_refuses_a_step_it_cannot_round)
{
	struct series_query q;

	cr_assert_eq(series_plan(NOW - DAY, NOW, 0, INT64_MAX, NOW, keep_raw, keep_1m, &q),
		     -EINVAL);
	cr_assert_eq(
		series_plan(NOW - DAY, NOW, 0, 9223372036854775000LL, NOW, keep_raw, keep_1m, &q),
		-EINVAL);
	cr_assert_eq(
		series_plan(NOW - DAY, NOW, 0, SERIES_TIME_MAX_MS + 1, NOW, keep_raw, keep_1m, &q),
		-EINVAL);
	/* The largest step taken is rounded up to whole hours, still positive. */
	cr_assert_eq(series_plan(NOW - DAY, NOW, 0, SERIES_TIME_MAX_MS, NOW, keep_raw, keep_1m, &q),
		     0);
	cr_assert_eq(q.res_s, SERIES_RES_1H);
	cr_assert_geq(q.step_ms, SERIES_TIME_MAX_MS);
	cr_assert_eq(q.step_ms % (SERIES_RES_1H * S), 0);
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

	char *text;
	size_t len;
	cr_assert_eq(series_render(3,
				   &(struct series_query){
					   .from_ms = 0, .to_ms = HOUR, .step_ms = MIN, .res_s = 0},
				   out, n, &text, &len),
		     0);
	json_t *o = json_loads(text, 0, NULL);
	free(text);
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

/*
 * README Long history: "The daemon picks the coarsest resolution whose width is
 * not above the step (raw, 1 min, 1 h — and a coarser one when the range reaches
 * back beyond what the finer one keeps)"; "a step that would give more than
 * 10000 points" is refused.
 */
Test(series, plan_rule_boundaries)
{
	const struct {
		const char *rule;
		int64_t from, to;
		unsigned points;
		int64_t step;
		int r, res;
		int64_t step_out; /* 0: not checked */
	} t[] = {
		{"a 59 s step is finer than a minute: raw", NOW - HOUR, NOW, 0, 59 * S, 0,
		 SERIES_RES_RAW, 59 * S},
		{"a 60 s step is one 1-minute row per point", NOW - HOUR, NOW, 0, MIN, 0,
		 SERIES_RES_1M, MIN},
		{"a 59 min step reads 1-minute rows", NOW - DAY, NOW, 0, 59 * MIN, 0, SERIES_RES_1M,
		 59 * MIN},
		{"a 1 h step reads 1-hour rows", NOW - DAY, NOW, 0, HOUR, 0, SERIES_RES_1H, HOUR},
		{"a range starting exactly keep_raw ago still reads raw rows", NOW - keep_raw,
		 NOW - keep_raw + HOUR, 0, 10 * S, 0, SERIES_RES_RAW, 10 * S},
		{"a range starting before keep_raw reads 1-minute rows", NOW - keep_raw - 1,
		 NOW - keep_raw + HOUR, 0, 10 * S, 0, SERIES_RES_1M, MIN},
		{"a range starting exactly keep_1m ago still reads 1-minute rows", NOW - keep_1m,
		 NOW - keep_1m + DAY, 0, MIN, 0, SERIES_RES_1M, MIN},
		{"a range starting before keep_1m reads 1-hour rows", NOW - keep_1m - 1,
		 NOW - keep_1m + DAY, 0, MIN, 0, SERIES_RES_1H, HOUR},
		{"10000 points of 1 s are allowed", NOW - 9999 * S, NOW, 0, S, 0, SERIES_RES_RAW,
		 S},
		{"10001 points of 1 s are refused", NOW - 10000 * S, NOW, 0, S, -EINVAL, 0, 0},
		{"a point is at least 1 s wide: 1000 points over 500 s are 1 s each", NOW - 500 * S,
		 NOW, 1000, 0, 0, SERIES_RES_RAW, S},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct series_query q = {.res_s = -1};
		int r = series_plan(t[i].from, t[i].to, t[i].points, t[i].step, NOW, keep_raw,
				    keep_1m, &q);

		cr_expect_eq(r, t[i].r, "%s: %d", t[i].rule, r);
		if (r < 0 || t[i].r < 0)
			continue;
		cr_expect_eq(q.res_s, t[i].res, "%s: resolution %d", t[i].rule, q.res_s);
		cr_expect_eq(q.step_ms, t[i].step_out, "%s: step %lld", t[i].rule,
			     (long long)q.step_ms);
	}
}

static struct series_row at_temp(int64_t ts, uint16_t k, uint8_t cw)
{
	struct sample s = {.ts_ms = ts};
	struct series_row r;

	s.smart.temperature_k = k;
	s.smart.critical_warning = cw;
	series_row_from_sample(&s, &r);
	return r;
}

/*
 * README Long history: a bucket holds "min/avg/max of the composite temperature
 * [...] the OR of the critical warning bits"; sensors reporting 0 K are not
 * reported (README Events) and take no part.
 */
Test(series, bucket_rules)
{
	const struct {
		const char *rule;
		struct series_row rows[3];
		uint16_t min_k, max_k;
		double avg_k;
		uint8_t cw;
	} t[] = {
		{"a bucket whose first row has no temperature: min from the reported rows",
		 {at_temp(1 * S, 0, 0), at_temp(2 * S, 310, 0), at_temp(3 * S, 320, 0)},
		 310,
		 320,
		 315,
		 0},
		{"the critical warning bits are ORed, a later clear row does not clear them",
		 {at_temp(1 * S, 310, SMART_CRIT_TEMPERATURE),
		  at_temp(2 * S, 310, SMART_CRIT_SPARE), at_temp(3 * S, 310, 0)},
		 310,
		 310,
		 310,
		 SMART_CRIT_TEMPERATURE | SMART_CRIT_SPARE},
		{"the average weighs every sample alike: (300 + 300 + 330) / 3",
		 {at_temp(1 * S, 300, 0), at_temp(2 * S, 300, 0), at_temp(3 * S, 330, 0)},
		 300,
		 330,
		 310,
		 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct series_row *out;
		size_t n;

		cr_assert_eq(series_rebucket(t[i].rows, 3, MIN, &out, &n), 0);
		cr_assert_eq(n, 1, "%s", t[i].rule);
		cr_expect_eq(out[0].temp_min_k, t[i].min_k, "%s: min %u", t[i].rule,
			     out[0].temp_min_k);
		cr_expect_eq(out[0].temp_max_k, t[i].max_k, "%s: max %u", t[i].rule,
			     out[0].temp_max_k);
		cr_expect_float_eq(out[0].temp_avg_k, t[i].avg_k, 1e-9, "%s: avg %f", t[i].rule,
				   out[0].temp_avg_k);
		cr_expect_eq(out[0].critical_warning, t[i].cw, "%s: bits %#x", t[i].rule,
			     out[0].critical_warning);
		free(out);
	}
}
