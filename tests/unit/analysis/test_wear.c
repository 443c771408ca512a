/* SPDX-License-Identifier: MIT */
/* Wear projections on synthetic histories: steady, bursty, counters reset, rating unknown. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/dev/smart.h"
#include "nvmond/analysis/wear.h"
#include "nvmond/api/wear_render.h"

#define DAY	     (24 * 3600 * 1000LL)
#define HOUR	     (3600 * 1000LL)
#define NOW	     (1764460800000LL) /* 2025-11-30T00:00:00Z */
#define TB	     (1000ULL * 1000 * 1000 * 1000)
#define UNITS_PER_TB (TB / 512000)

static const struct wear_cfg dflt = {
	.unusual_factor = 5.0,
	.unusual_min_bytes = WEAR_UNUSUAL_MIN_BYTES,
};

/* Hourly points over @days ending at NOW, writing @per_day_units a day from @start_units. */
static struct wear_point *steady(int days, u128 start_units, u128 per_day_units, size_t *ret_n)
{
	size_t n = (size_t)days * 24 + 1;
	struct wear_point *v = calloc(n, sizeof(*v));

	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++) {
		v[i].ts_ms = NOW - (int64_t)(n - 1 - i) * HOUR;
		v[i].data_units_written = start_units + per_day_units * i / 24;
	}
	*ret_n = n;
	return v;
}

Test(wear, builtin_table_and_config_win)
{
	uint64_t b;
	const char *ref;

	cr_assert(wear_builtin_rating("Samsung SSD 950 PRO 512GB", &b, &ref));
	cr_assert_eq(b, 400 * TB);
	cr_assert(wear_builtin_rating("Samsung SSD 980 PRO 1TB", &b, &ref));
	cr_assert_eq(b, 600 * TB);
	cr_assert(strlen(ref) > 0);
	cr_assert_not(wear_builtin_rating("QEMU NVMe Ctrl", &b, &ref));
	cr_assert_not(wear_builtin_rating(NULL, &b, &ref));

	struct wear_point p = {.ts_ms = NOW, .data_units_written = 100 * UNITS_PER_TB};
	struct wear_cfg c = dflt;
	struct wear_report w;

	c.rated_bytes = 200 * TB;
	cr_assert_eq(wear_analyze(&p, 1, &c, "Samsung SSD 950 PRO 512GB", 0, NOW, &w), 0);
	cr_assert_eq(w.rating_source, WEAR_RATING_CONFIG);
	cr_assert_eq(w.rated_bytes, 200 * TB);
	cr_assert_float_eq(w.rated_fraction, 0.5, 1e-9);
	cr_assert_eq(wear_analyze(&p, 0, &c, "x", 0, NOW, &w), -EINVAL);
}

Test(wear, steady_writes_project_tbw)
{
	/* 950 PRO 512GB (400 TB): 100 TB written, 1 TB a day for 60 days → 300 days left. */
	size_t n;
	struct wear_point *v = steady(60, 40 * UNITS_PER_TB, UNITS_PER_TB, &n);
	struct wear_report w;

	cr_assert_eq(wear_analyze(v, n, &dflt, "Samsung SSD 950 PRO 512GB", 0, NOW, &w), 0);
	cr_assert_eq(w.rating_source, WEAR_RATING_BUILTIN);
	cr_assert(w.bytes_written == (u128)100 * TB, "written %f", (double)w.bytes_written);
	for (int k = 0; k < _WEAR_WINDOW_MAX; k++) {
		cr_assert(w.rate[k].known && w.rate[k].complete);
		cr_assert_float_eq(w.rate[k].bytes_per_day, 1e12, 1e8, "window %d: %f", k,
				   w.rate[k].bytes_per_day);
	}
	cr_assert_eq(w.basis, WEAR_30D);
	cr_assert_not(w.tbw_reached);
	cr_assert(llabs(w.tbw_date_ms - (NOW + 300 * DAY)) < HOUR, "tbw in %f days",
		  (double)(w.tbw_date_ms - NOW) / DAY);
	cr_assert_eq(w.alert_level, 0);
	cr_assert_not(w.unusual);
	free(v);
}

Test(wear, alert_levels)
{
	struct wear_point p = {.ts_ms = NOW};
	struct wear_report w;
	const struct {
		uint64_t tb;
		int level;
		bool reached;
	} t[] = {{319, 0, false},  {320, 80, false}, {360, 90, false},
		 {399, 90, false}, {400, 100, true}, {700, 100, true}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		p.data_units_written = (u128)t[i].tb * UNITS_PER_TB;
		cr_assert_eq(wear_analyze(&p, 1, &dflt, "Samsung SSD 950 PRO 512GB", 0, NOW, &w),
			     0);
		cr_assert_eq(w.alert_level, t[i].level, "%" PRIu64 " TB: level %d", t[i].tb,
			     w.alert_level);
		cr_assert_eq(w.tbw_reached, t[i].reached);
		if (t[i].reached)
			cr_assert_eq(w.tbw_date_ms, 0);
	}
}

Test(wear, bursty_day_is_unusual)
{
	/* 30 days at 50 GB a day, then a benchmark day writing 3 TB. */
	size_t n;
	struct wear_point *v = steady(30, 0, 50 * UNITS_PER_TB / 1000, &n);
	struct wear_report w;
	u128 daily[3];

	for (size_t i = n - 24; i < n; i++)
		v[i].data_units_written += 3 * UNITS_PER_TB * (i - (n - 25)) / 24;
	cr_assert_eq(wear_analyze(v, n, &dflt, "Samsung SSD 950 PRO 512GB", 0, NOW, &w), 0);
	cr_assert(w.unusual);
	cr_assert(w.rate[WEAR_1D].bytes_per_day > 3e12);
	cr_assert(w.avg_30d_bytes_per_day < 0.2e12);
	/* The projection follows the 30-day rate, not the burst. */
	cr_assert_eq(w.basis, WEAR_30D);

	/* UTC days [NOW-2d, NOW-1d), [NOW-1d, NOW), [NOW, …): the burst is 23 of its 24 hours
	 * in the middle one. */
	wear_daily(v, n, NOW, 3, daily);
	cr_assert(daily[1] > (u128)2800 * 1000000000ULL, "the burst day");
	cr_assert(daily[0] < (u128)TB / 10);
	cr_assert(daily[2] < (u128)TB / 5);

	/* The same day with no history to compare: not unusual. */
	cr_assert_eq(wear_analyze(v + n - 25, 25, &dflt, "x", 0, NOW, &w), 0);
	cr_assert_not(w.unusual);
	free(v);
}

Test(wear, counter_reset_counts_from_zero)
{
	struct wear_point v[] = {
		{.ts_ms = NOW - 2 * DAY, .data_units_written = 1000000},
		{.ts_ms = NOW - DAY, .data_units_written = 3000000},
		{.ts_ms = NOW - 12 * HOUR, .data_units_written = 500000}, /* reset */
		{.ts_ms = NOW, .data_units_written = 1500000},
	};
	struct wear_report w;

	cr_assert_eq(wear_analyze(v, 4, &dflt, "x", 0, NOW, &w), 0);
	cr_assert_eq(w.counter_resets, 1);
	/* Last day: 500000 after the reset + 1000000 = 1.5M units, never negative. */
	cr_assert(w.rate[WEAR_1D].bytes == smart_bytes(1500000));
	/* Two days: 2M + 0.5M + 1M. */
	cr_assert(w.rate[WEAR_7D].bytes == smart_bytes(3500000));
	cr_assert(w.bytes_written == smart_bytes(1500000));
}

Test(wear, rating_unknown)
{
	size_t n;
	struct wear_point *v = steady(10, 0, UNITS_PER_TB, &n);
	struct wear_report w;

	cr_assert_eq(wear_analyze(v, n, &dflt, "QEMU NVMe Ctrl", 0, NOW, &w), 0);
	cr_assert_eq(w.rating_source, WEAR_RATING_UNKNOWN);
	cr_assert_eq(w.rated_bytes, 0);
	cr_assert_eq(w.tbw_date_ms, 0);
	cr_assert_eq(w.alert_level, 0);
	cr_assert_not(w.tbw_reached);
	/* Rates are still known; 10 days: the 30-day window is not complete. */
	cr_assert(w.rate[WEAR_30D].known && !w.rate[WEAR_30D].complete);
	cr_assert(w.rate[WEAR_1D].complete);
	free(v);
}

Test(wear, percent_used_slope)
{
	/* 2 % → 3 % at day 10, 4 % at day 30, 5 % at day 50: 1 % per 20 days. */
	size_t n;
	struct wear_point *v = steady(60, 0, 1000, &n);
	struct wear_report w;

	for (size_t i = 0; i < n; i++) {
		int64_t day = (v[i].ts_ms - (NOW - 60 * DAY)) / DAY;
		v[i].percent_used = day < 10 ? 2 : day < 30 ? 3 : day < 50 ? 4 : 5;
	}
	cr_assert_eq(wear_analyze(v, n, &dflt, "x", 0, NOW, &w), 0);
	cr_assert_float_eq(w.used_per_day, 0.05, 1e-3, "slope %f", w.used_per_day);
	/* From the last step (day 50 = NOW - 10 d): 95 points at 0.05 a day = 1900 days. */
	cr_assert(llabs(w.used_date_ms - (NOW - 10 * DAY + 1900 * DAY)) < 2 * DAY);

	/* One step alone gives no slope. */
	for (size_t i = 0; i < n; i++)
		v[i].percent_used = i < n / 2 ? 2 : 3;
	cr_assert_eq(wear_analyze(v, n, &dflt, "x", 0, NOW, &w), 0);
	cr_assert_eq(w.used_date_ms, 0);

	/* Reached. */
	v[n - 1].percent_used = 100;
	cr_assert_eq(wear_analyze(v, n, &dflt, "x", 0, NOW, &w), 0);
	cr_assert(w.used_reached);
	cr_assert_eq(w.used_date_ms, 0);
	free(v);
}

Test(wear, probe_writes_apart_and_short_history)
{
	struct wear_point v[] = {
		{.ts_ms = NOW - 5 * 60000, .data_units_written = 1000},
		{.ts_ms = NOW, .data_units_written = 2000},
	};
	struct wear_report w;

	cr_assert_eq(
		wear_analyze(v, 2, &dflt, "Samsung SSD 980 PRO 1TB", smart_bytes(300), NOW, &w), 0);
	cr_assert(w.host_bytes == smart_bytes(1700));
	cr_assert(w.probe_bytes == smart_bytes(300));
	/* Five minutes are too few for a rate: no projection. */
	cr_assert_not(w.rate[WEAR_1D].known);
	cr_assert_not(w.projectable);
	cr_assert_eq(w.tbw_date_ms, 0);

	json_t *o = wear_render(7, &w, NULL, 0, NOW);
	cr_assert_not_null(o);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "rating"), "source")),
			 "builtin");
	cr_assert(json_is_null(json_object_get(o, "tbw_date")));
	json_decref(o);
}

Test(wear, alert_conditions)
{
	struct wear_point p = {.ts_ms = NOW, .data_units_written = 360 * UNITS_PER_TB};
	struct alert_cond c[_ALERT_RULE_MAX];
	struct wear_report w;

	/* 950 PRO 512GB: 360 of 400 TB = 90 %. */
	cr_assert_eq(wear_analyze(&p, 1, &dflt, "Samsung SSD 950 PRO 512GB", 0, NOW, &w), 0);
	wear_alert_conditions(&w, c);
	cr_assert(c[ALERT_TBW_80].known && c[ALERT_TBW_80].active);
	cr_assert_eq(c[ALERT_TBW_80].severity, ALERT_SEV_INFO);
	cr_assert(c[ALERT_TBW_90].known && c[ALERT_TBW_90].active);
	cr_assert_eq(c[ALERT_TBW_90].severity, ALERT_SEV_WARNING);
	cr_assert(c[ALERT_TBW_100].known && !c[ALERT_TBW_100].active);
	cr_assert(strstr(c[ALERT_TBW_90].message, "360.0 TB written") != NULL, "%s",
		  c[ALERT_TBW_90].message);
	/* One point: no baseline, the write-rate rule knows nothing; sample rules untouched. */
	cr_assert_not(c[ALERT_WRITE_RATE].known);
	cr_assert_not(c[ALERT_THROTTLING].known);
	cr_assert_not(c[ALERT_USED_80].known);

	/* Rating unknown: the TBW rules know nothing either. */
	cr_assert_eq(wear_analyze(&p, 1, &dflt, "QEMU NVMe Ctrl", 0, NOW, &w), 0);
	wear_alert_conditions(&w, c);
	cr_assert_not(c[ALERT_TBW_80].known);

	/* A burst day over a 30-day baseline: write_rate fires; a calm day resolves it. */
	size_t n;
	struct wear_point *v = steady(30, 0, 50 * UNITS_PER_TB / 1000, &n);
	cr_assert_eq(wear_analyze(v, n, &dflt, "x", 0, NOW, &w), 0);
	wear_alert_conditions(&w, c);
	cr_assert(c[ALERT_WRITE_RATE].known && !c[ALERT_WRITE_RATE].active);
	for (size_t i = n - 24; i < n; i++)
		v[i].data_units_written += 3 * UNITS_PER_TB * (i - (n - 25)) / 24;
	cr_assert_eq(wear_analyze(v, n, &dflt, "x", 0, NOW, &w), 0);
	wear_alert_conditions(&w, c);
	cr_assert(c[ALERT_WRITE_RATE].known && c[ALERT_WRITE_RATE].active);
	cr_assert_eq(c[ALERT_WRITE_RATE].severity, ALERT_SEV_WARNING);
	free(v);
}

/*
 * Steady hourly history over @days at @per_day_units a day, and a last day
 * (the last 24 hours) writing @last_day_units instead.
 */
static struct wear_point *with_last_day(int days, u128 per_day_units, u128 last_day_units,
					size_t *ret_n)
{
	struct wear_point *v = steady(days, 0, per_day_units, ret_n);
	size_t n = *ret_n;
	u128 base = v[n - 25].data_units_written;

	for (size_t i = n - 24; i < n; i++)
		v[i].data_units_written = base + last_day_units * (i - (n - 25)) / 24;
	return v;
}

#define GB_UNITS(x) ((u128)(x)*1000000000ULL / 512000)

/* README Wear: "unusual_write_rate.active: the last full day wrote more than 5× the
 * 30-day daily average (and at least 10 GB); needs a week of history." */
Test(wear, unusual_write_rate_rules)
{
	const struct {
		const char *rule;
		int days;
		double factor; /* 0: unset */
		u128 per_day, last_day;
		bool unusual;
	} t[] = {
		{"50x the average but only 5 GB: under the 10 GB floor", 30, 5, GB_UNITS(0.1),
		 GB_UNITS(5), false},
		{"120x the average and 12 GB: over the floor", 30, 5, GB_UNITS(0.1), GB_UNITS(12),
		 true},
		{"a burst over six days of history: a baseline needs a week", 6, 5, GB_UNITS(1),
		 GB_UNITS(100), false},
		{"the same burst over eight days of history", 8, 5, GB_UNITS(1), GB_UNITS(100),
		 true},
		{"factor unset (0) is the default 5x: 3x is not unusual", 30, 0, GB_UNITS(20),
		 GB_UNITS(60), false},
		{"factor unset (0) is the default 5x: 8x is", 30, 0, GB_UNITS(20), GB_UNITS(160),
		 true},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wear_cfg c = dflt;
		struct wear_report w;
		size_t n;
		struct wear_point *v = with_last_day(t[i].days, t[i].per_day, t[i].last_day, &n);

		c.unusual_factor = t[i].factor;
		cr_assert_eq(wear_analyze(v, n, &c, "x", 0, NOW, &w), 0);
		cr_expect_eq(w.unusual, t[i].unusual, "%s", t[i].rule);
		cr_expect_float_eq(w.unusual_factor, t[i].factor > 0 ? t[i].factor : 5.0, 1e-9,
				   "%s: factor applied", t[i].rule);
		free(v);
	}
}

/* README Wear: "known needs at least 10 minutes of history, complete 90 % of the window." */
Test(wear, rate_known_and_complete)
{
	const struct {
		const char *rule;
		int64_t span_ms;
		bool known, complete;
	} t[] = {
		{"9 minutes: too short to be known", 9 * 60000, false, false},
		{"10 minutes: known", 10 * 60000, true, false},
		{"12 hours: half the day is not complete", 12 * HOUR, true, false},
		{"21 hours 36 minutes: 90 % of the day is complete", DAY * 9 / 10, true, true},
		{"21 hours 35 minutes: just under 90 %", DAY * 9 / 10 - 60000, true, false},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wear_point v[] = {
			{.ts_ms = NOW - t[i].span_ms, .data_units_written = 1000},
			{.ts_ms = NOW, .data_units_written = 2000},
		};
		struct wear_report w;

		cr_assert_eq(wear_analyze(v, 2, &dflt, "x", 0, NOW, &w), 0);
		cr_expect_eq(w.rate[WEAR_1D].known, t[i].known, "%s: known", t[i].rule);
		cr_expect_eq(w.rate[WEAR_1D].complete, t[i].complete, "%s: complete", t[i].rule);
	}
}
