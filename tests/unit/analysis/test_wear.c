/* SPDX-License-Identifier: MIT */
/* Wear projections on synthetic histories: steady, bursty, counters reset, rating unknown. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/decode/smart.h"
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
		/* The health rule's figure (fleet_health.c) from the latest sample alone. */
		cr_assert_eq(wear_alert_level_of(smart_bytes(p.data_units_written),
						 wear_rated_bytes(0, "Samsung SSD 950 PRO 512GB")),
			     t[i].level, "%" PRIu64 " TB: the latest sample's level", t[i].tb);
	}
	/* The configured rating wins over the table's; none known: 0. */
	cr_expect_eq(wear_rated_bytes(500 * TB, "Samsung SSD 950 PRO 512GB"), 500 * TB);
	cr_expect_eq(wear_rated_bytes(0, "Samsung SSD 950 PRO 512GB"), 400 * TB);
	cr_expect_eq(wear_rated_bytes(0, "ACME unknown"), 0);
	cr_expect_eq(wear_alert_level_of((u128)800 * TB, 0), 0, "rating unknown");
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
 * The built-in table, by the model strings the drives report (Identify MN, as
 * smartctl, nvme list and /dev/disk/by-id show them), each case naming the
 * data sheet its rating comes from. DWPD ratings: TBW = DWPD × capacity ×
 * 365 × warranty years.
 */
static const struct {
	const char *model;
	uint64_t tbw; /* TB */
	unsigned years, dwpd;
	const char *sheet;
} table_cases[] = {
	{"Samsung SSD 950 PRO 512GB", 400, 5, 0, "Samsung 950 PRO data sheet"},
	{"Samsung SSD 970 EVO Plus 1TB", 600, 5, 0, "Samsung 970 EVO Plus data sheet"},
	{"Samsung SSD 970 EVO Plus 2TB", 1200, 5, 0, "Samsung 970 EVO Plus data sheet"},
	{"Samsung SSD 980 500GB", 300, 5, 0, "Samsung 980 data sheet"},
	{"Samsung SSD 980 1TB", 600, 5, 0, "Samsung 980 data sheet"},
	{"Samsung SSD 980 PRO 2TB", 1200, 5, 0, "Samsung 980 PRO data sheet"},
	{"Samsung SSD 990 PRO 2TB", 1200, 5, 0, "Samsung 990 PRO data sheet"},
	{"Samsung SSD 990 PRO 4TB", 2400, 5, 0, "Samsung 990 PRO data sheet"},
	{"Samsung SSD 990 EVO 1TB", 600, 5, 0, "Samsung 990 EVO data sheet"},
	{"Samsung SSD 990 EVO 2TB", 1200, 5, 0, "Samsung 990 EVO data sheet"},
	/* PM9A3 U.2 3.84 TB: 1 × 3840 GB × 1825 days = 7008 TB */
	{"SAMSUNG MZQL23T8HCLS-00A07", 7008, 5, 1, "Samsung PM9A3 data sheet"},
	{"SAMSUNG MZQL2960HCJR-00A07", 1752, 5, 1, "Samsung PM9A3 data sheet"},
	{"SAMSUNG MZ1L21T9HCLS-00A07", 3504, 5, 1, "Samsung PM9A3 data sheet"},
	{"WD_BLACK SN850X 1000GB", 600, 5, 0, "WD_BLACK SN850X NVMe SSD product brief"},
	{"WD_BLACK SN850X 2000GB", 1200, 5, 0, "WD_BLACK SN850X NVMe SSD product brief"},
	{"WD_BLACK SN850X 4000GB", 2400, 5, 0, "WD_BLACK SN850X NVMe SSD product brief"},
	{"WDS100T2X0E-00BCA0", 600, 5, 0, "WD_BLACK SN850X NVMe SSD product brief"},
	{"WDS200T2X0E-00BCA0", 1200, 5, 0, "WD_BLACK SN850X NVMe SSD product brief"},
	{"WD_BLACK SN850 2TB", 1200, 5, 0, "WD_BLACK SN850 NVMe SSD product brief"},
	{"WDS100T1X0E-00AFY0", 600, 5, 0, "WD_BLACK SN850 NVMe SSD product brief"},
	{"WD_BLACK SN770 1TB", 600, 5, 0, "WD_BLACK SN770 NVMe SSD product brief"},
	{"WD_BLACK SN770 250GB", 200, 5, 0, "WD_BLACK SN770 NVMe SSD product brief"},
	{"WDS100T3X0E-00B3N0", 600, 5, 0, "WD_BLACK SN770 NVMe SSD product brief"},
	{"WD Blue SN570 1TB", 600, 5, 0, "WD Blue SN570 NVMe SSD product brief"},
	{"WD Blue SN570 2TB", 900, 5, 0, "WD Blue SN570 NVMe SSD product brief"},
	{"WD Blue SN580 500GB", 300, 5, 0, "WD Blue SN580 NVMe SSD product brief"},
	{"WD Blue SN580 2TB", 900, 5, 0, "WD Blue SN580 NVMe SSD product brief"},
	{"CT1000P3SSD8", 220, 5, 0, "Crucial P3 SSD product flyer"},
	{"CT4000P3SSD8", 800, 5, 0, "Crucial P3 SSD product flyer"},
	{"CT1000P3PSSD8", 220, 5, 0, "Crucial P3 Plus SSD product flyer"},
	{"CT4000P3PSSD8", 800, 5, 0, "Crucial P3 Plus SSD product flyer"},
	{"CT500P5PSSD8", 300, 5, 0, "Crucial P5 Plus SSD product flyer"},
	{"CT1000T500SSD8", 600, 5, 0, "Crucial T500 SSD product flyer"},
	{"CT2000T500SSD8", 1200, 5, 0, "Crucial T500 SSD product flyer"},
	{"CT1000T700SSD3", 600, 5, 0, "Crucial T700 SSD product flyer"},
	{"CT4000T700SSD5", 2400, 5, 0, "Crucial T700 SSD product flyer"},
	/* 7450 PRO 960 GB: 1 × 960 × 1825 = 1752 TB; MAX 800 GB: 3 × 800 × 1825 = 4380 TB */
	{"Micron_7450_MTFDKBA960TFR", 1752, 5, 1, "Micron 7450 SSD product brief"},
	{"Micron_7450_MTFDKCC3T8TFR", 7008, 5, 1, "Micron 7450 SSD product brief"},
	{"Micron_7450_MTFDKCC7T6TFR", 14016, 5, 1, "Micron 7450 SSD product brief"},
	{"Micron_7450_MTFDKBA480TFR", 876, 5, 1, "Micron 7450 SSD product brief"},
	{"Micron_7450_MTFDKBA800TFS", 4380, 5, 3, "Micron 7450 SSD product brief"},
	{"Micron_7400_MTFDKBG960TDZ", 1752, 5, 1, "Micron 7400 SSD product brief"},
	{"MICRON_7400_MTFDKBA1T9TDQ", 3504, 5, 1, "Micron 7400 SSD product brief"},
	{"Micron_7400_MTFDKBA800TFC", 4380, 5, 3, "Micron 7400 SSD product brief"},
	{"KINGSTON SKC3000S1024G", 800, 5, 0, "Kingston KC3000 data sheet"},
	{"KINGSTON SKC3000D2048G", 1600, 5, 0, "Kingston KC3000 data sheet"},
	{"KINGSTON SNV2S250G", 80, 3, 0, "Kingston NV2 data sheet"},
	{"KINGSTON SNV2S1000G", 320, 3, 0, "Kingston NV2 data sheet"},
	{"KINGSTON SNV2S2000G", 640, 3, 0, "Kingston NV2 data sheet"},
	{"KINGSTON SFYRS1000G", 1000, 5, 0, "Kingston FURY Renegade SSD data sheet"},
	{"KINGSTON SFYRD4000G", 4000, 5, 0, "Kingston FURY Renegade SSD data sheet"},
	{"SHPP41-1000GM", 750, 5, 0, "SK hynix Platinum P41 data sheet"},
	{"SHPP41-2000GM", 1200, 5, 0, "SK hynix Platinum P41 data sheet"},
	{"SHGP31-500GM", 500, 5, 0, "SK hynix Gold P31 data sheet"},
	{"SHGP31-1000GM-2", 750, 5, 0, "SK hynix Gold P31 data sheet"},
	{"SOLIDIGM SSDPFKNU010TZ", 400, 5, 0, "Solidigm P41 Plus product brief"},
	{"SOLIDIGM SSDPFKNU020TZ", 800, 5, 0, "Solidigm P41 Plus product brief"},
	{"SOLIDIGM SSDPFKKW512H7", 400, 5, 0, "Solidigm P44 Pro product brief"},
	{"SOLIDIGM SSDPFKKW010X7", 750, 5, 0, "Solidigm P44 Pro product brief"},
	/* D7-P5520 3.84 TB: 1 × 3840 × 1825 = 7008 TB, sold under either name */
	{"SOLIDIGM SSDPF2KX019T1M", 3504, 5, 1, "Solidigm D7-P5520 product brief"},
	{"INTEL SSDPF2KX038T1", 7008, 5, 1, "Solidigm D7-P5520 product brief"},
	{"INTEL SSDPEKNU010TZ", 370, 5, 0, "Intel SSD 670p product brief"},
	{"INTEL SSDPEKNU020TZ", 740, 5, 0, "Intel SSD 670p product brief"},
	{"Seagate FireCuda 530 ZP2000GM30013", 2550, 5, 0, "Seagate FireCuda 530 SSD data sheet"},
	{"Seagate FireCuda 530 ZP4000GM30013", 5100, 5, 0, "Seagate FireCuda 530 SSD data sheet"},
	{"Seagate FireCuda 530 ZP2000GM30023", 2550, 5, 0, "Seagate FireCuda 530 SSD data sheet"},
};

Test(wear, builtin_table_by_reported_model)
{
	for (size_t i = 0; i < sizeof(table_cases) / sizeof(table_cases[0]); i++) {
		struct wear_rating r;

		cr_assert(wear_builtin_lookup(table_cases[i].model, &r), "%s: unknown",
			  table_cases[i].model);
		cr_expect_eq(wear_builtin_matches(table_cases[i].model), 1, "%s: %zu entries match",
			     table_cases[i].model, wear_builtin_matches(table_cases[i].model));
		cr_expect_eq(r.rated_bytes, table_cases[i].tbw * TB, "%s: %" PRIu64 " TB",
			     table_cases[i].model, r.rated_bytes / TB);
		cr_expect_eq(r.warranty_years, table_cases[i].years, "%s", table_cases[i].model);
		cr_expect_eq(r.dwpd, table_cases[i].dwpd, "%s", table_cases[i].model);
		cr_expect(strstr(r.ref, table_cases[i].sheet) != NULL, "%s: %s",
			  table_cases[i].model, r.ref);
	}
}

Test(wear, builtin_table_unknown_stays_unknown)
{
	/* Neighbours of known models that are other products, or no product. */
	static const char *const unknown[] = {
		"QEMU NVMe Ctrl",
		"",
		"Samsung SSD 990 EVO Plus 1TB", /* not the 990 EVO */
		"Samsung SSD 980 PRO 1TB ",	/* not cleaned: not what idctl_decode() gives */
		"Samsung SSD 970 EVO 1TB",	/* the 970 EVO, not the Plus */
		"WD_BLACK SN850X 8000GB",
		"WD_BLACK SN7100 2TB",
		"WD PC SN740 SDDQMQD-512G-1201",
		"CT500P2SSD8",
		"KINGSTON SNV3S1000G",
		"KINGSTON SFYR2S1TO", /* FURY Renegade G5 */
		"SOLIDIGM SSDPFINW512GZL",
		"INTEL SSDPF2KX038TZ", /* D7-P5510 */
		"SAMSUNG MZVLB1T0HBLR-000H1",
		"Micron_7450_MTFD",
	};
	struct wear_rating r;

	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		cr_expect_not(wear_builtin_lookup(unknown[i], &r), "'%s' matched: %s", unknown[i],
			      r.ref);
		cr_expect_eq(wear_builtin_matches(unknown[i]), 0, "'%s'", unknown[i]);
	}
	cr_expect_not(wear_builtin_lookup(NULL, &r));
}

Test(wear, config_wins_over_dwpd_and_report_fields)
{
	struct wear_point p = {.ts_ms = NOW, .data_units_written = 700 * UNITS_PER_TB};
	struct wear_cfg c = dflt;
	struct wear_report w;
	json_t *o, *rating;

	/* Built in: 7450 PRO 3.84 TB, 1 DWPD over 5 years = 7008 TB. */
	cr_assert_eq(wear_analyze(&p, 1, &c, "Micron_7450_MTFDKCC3T8TFR", 0, NOW, &w), 0);
	cr_assert_eq(w.rating_source, WEAR_RATING_BUILTIN);
	cr_assert_eq(w.rated_bytes, 7008 * TB);
	cr_assert_eq(w.warranty_years, 5);
	cr_assert_eq(w.dwpd, 1);
	o = wear_render(1, &w, NULL, 0, NOW);
	rating = json_object_get(o, "rating");
	cr_assert_eq(json_integer_value(json_object_get(rating, "warranty_years")), 5);
	cr_assert_eq(json_integer_value(json_object_get(rating, "dwpd")), 1);
	json_decref(o);

	/* A TBW-rated drive: the warranty, no DWPD. */
	cr_assert_eq(wear_analyze(&p, 1, &c, "KINGSTON SNV2S1000G", 0, NOW, &w), 0);
	cr_assert_eq(w.warranty_years, 3);
	o = wear_render(1, &w, NULL, 0, NOW);
	rating = json_object_get(o, "rating");
	cr_assert_eq(json_integer_value(json_object_get(rating, "warranty_years")), 3);
	cr_assert(json_is_null(json_object_get(rating, "dwpd")));
	json_decref(o);

	/* Configured: the operator's number, and nothing of the data sheet beside it. */
	c.rated_bytes = 3500 * TB;
	cr_assert_eq(wear_analyze(&p, 1, &c, "Micron_7450_MTFDKCC3T8TFR", 0, NOW, &w), 0);
	cr_assert_eq(w.rating_source, WEAR_RATING_CONFIG);
	cr_assert_eq(w.rated_bytes, 3500 * TB);
	cr_assert_float_eq(w.rated_fraction, 0.2, 1e-9);
	cr_assert_eq(w.warranty_years, 0);
	cr_assert_eq(w.dwpd, 0);

	/* Unknown: both null. */
	cr_assert_eq(wear_analyze(&p, 1, &dflt, "QEMU NVMe Ctrl", 0, NOW, &w), 0);
	o = wear_render(1, &w, NULL, 0, NOW);
	rating = json_object_get(o, "rating");
	cr_assert(json_is_null(json_object_get(rating, "warranty_years")));
	cr_assert(json_is_null(json_object_get(rating, "dwpd")));
	cr_assert(json_is_null(json_object_get(rating, "rated_bytes")));
	json_decref(o);
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

/*
 * wear.h, host_bytes: "bytes_written - probe_bytes". A drive whose counter was
 * reset (wear.h: "A counter that goes backwards … restarts from zero") can show
 * fewer bytes than nvmond's probes wrote before the reset: the host wrote none
 * of them, never 2^128 less some.
 */
Test(wear, host_bytes_clamp_at_zero_when_probes_wrote_more_than_the_counter_shows)
{
	struct wear_point v[] = {
		{.ts_ms = NOW - DAY, .data_units_written = 5000},
		{.ts_ms = NOW, .data_units_written = 2000}, /* reset */
	};
	struct wear_report w;

	cr_assert_eq(wear_analyze(v, 2, &dflt, "x", smart_bytes(3000), NOW, &w), 0);
	cr_assert(w.bytes_written == smart_bytes(2000));
	cr_assert(w.host_bytes == 0, "host bytes %.0f", (double)w.host_bytes);
	/* Equal: none left for the host either. */
	cr_assert_eq(wear_analyze(v, 2, &dflt, "x", smart_bytes(2000), NOW, &w), 0);
	cr_assert(w.host_bytes == 0);
	cr_assert_eq(wear_analyze(v, 2, &dflt, "x", smart_bytes(1999), NOW, &w), 0);
	cr_assert(w.host_bytes == smart_bytes(1));
}

/*
 * used_slope(): "Percentage used per day from the drive's own steps: the time
 * between the first and the last increase since the last reset." A drive whose
 * percentage_used fell (replaced, or reset) counts only its steps after the fall.
 */
Test(wear, used_slope_starts_again_after_percentage_used_falls)
{
	struct wear_point v[] = {
		{.ts_ms = NOW - 12 * DAY, .percent_used = 10},
		{.ts_ms = NOW - 11 * DAY, .percent_used = 11},
		{.ts_ms = NOW - 10 * DAY, .percent_used = 12},
		{.ts_ms = NOW - 9 * DAY, .percent_used = 0}, /* fell: start over */
		{.ts_ms = NOW - 8 * DAY, .percent_used = 0},
		{.ts_ms = NOW - 7 * DAY, .percent_used = 1},
		{.ts_ms = NOW - 5 * DAY, .percent_used = 1},
		{.ts_ms = NOW - 3 * DAY, .percent_used = 2},
		{.ts_ms = NOW, .percent_used = 2},
	};
	struct wear_report w;

	cr_assert_eq(wear_analyze(v, sizeof(v) / sizeof(v[0]), &dflt, "x", 0, NOW, &w), 0);
	/* 1 % → 2 % from NOW - 7 d to NOW - 3 d: 0.25 a day, from the steps after the fall. */
	cr_assert_float_eq(w.used_per_day, 0.25, 1e-9, "slope %f", w.used_per_day);
	/* 98 points at 0.25 a day from the last step: 392 days after NOW - 3 d. */
	cr_assert_eq(w.used_date_ms, NOW - 3 * DAY + 392 * DAY);
}
