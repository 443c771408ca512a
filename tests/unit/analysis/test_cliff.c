/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "nvmond/analysis/cliff.h"

#define GB 1000000000.0

/* A series of @n 250 ms intervals at rate(i) bytes per second. */
static struct cliff_point *series(size_t n, double (*rate)(size_t i, void *), void *arg)
{
	struct cliff_point *v = calloc(n, sizeof(*v));
	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct cliff_point){.t_ms = (int64_t)(i + 1) * 250,
					    .bytes = (uint64_t)(rate(i, arg) / 4)};
	return v;
}

/* Two 980 PROs in RAID0: 10 GB/s until ≈221 GB, then ≈3.8 GB/s, with ±3 % noise. */
static double rate_980pro(size_t i, void *arg)
{
	static const double noise[] = {1.0, 0.97, 1.02, 0.99, 1.03, 0.98, 1.01};
	double written = *(double *)arg;
	double r = (written < 221 * GB ? 10 * GB : 3.8 * GB) * noise[i % 7];
	*(double *)arg = written + r / 4;
	return r;
}

Test(cliff, finds_the_980pro_write_cache_cliff)
{
	double written = 0;
	size_t n = 200; /* 50 s: 22 s fast, 28 s slow */
	struct cliff_point *v = series(n, rate_980pro, &written);
	struct cliff_event ev[CLIFF_MAX_EVENTS];
	size_t m = 0;

	cr_assert_eq(cliff_analyze(v, n, NULL, 0, NULL, ev, CLIFF_MAX_EVENTS, &m), 0);
	cr_assert_eq(m, 1, "events: %zu", m);
	cr_expect_eq(ev[0].kind, CLIFF_CLIFF);
	cr_expect_not(ev[0].recovered);
	cr_expect_eq(ev[0].cause, CLIFF_CAUSE_UNKNOWN);
	/* Within one interval (2.5 GB) of where the cache ran out. */
	cr_expect(ev[0].bytes_before > 219 * GB && ev[0].bytes_before < 224 * GB, "%.1f GB",
		  (double)ev[0].bytes_before / GB);
	cr_expect(ev[0].rate_before > 9.6 * GB && ev[0].rate_before < 10.4 * GB, "%.2f",
		  ev[0].rate_before / GB);
	cr_expect(ev[0].rate_after > 3.6 * GB && ev[0].rate_after < 4.0 * GB, "%.2f",
		  ev[0].rate_after / GB);
	cr_expect(cliff_sustained(v, n, NULL, NULL));
	/* Before the drop has held for five seconds it is not a cliff yet. */
	cr_expect_not(cliff_sustained(v, 88 + 12, NULL, NULL));
	free(v);
}

/* One 980 PRO 1TB: 5 GB/s until 113 GB, then 1.6 GB/s. */
static double rate_980pro_1tb(size_t i, void *arg)
{
	double written = *(double *)arg;
	double r = written < 113 * GB ? 5 * GB : 1.6 * GB;

	(void)i;
	*(double *)arg = written + r / 4;
	return r;
}

Test(cliff, finds_the_single_drive_cliff)
{
	double written = 0;
	struct cliff_point *v = series(160, rate_980pro_1tb, &written);
	struct cliff_event ev[4];
	size_t m = 0;

	cr_assert_eq(cliff_analyze(v, 160, NULL, 0, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 1);
	cr_expect_eq(ev[0].kind, CLIFF_CLIFF);
	cr_expect(ev[0].bytes_before >= 112 * GB && ev[0].bytes_before <= 115 * GB, "%.1f",
		  (double)ev[0].bytes_before / GB);
	free(v);
}

/* 950 PRO: 1.5 GB/s, a throttle dip to 0.5 GB/s from 10 s to 16 s, then back. */
static double rate_dip(size_t i, void *arg)
{
	(void)arg;
	return i >= 40 && i < 64 ? 0.5 * GB : 1.5 * GB;
}

static struct cliff_thermal th_at(int64_t t_ms, uint32_t t1, uint32_t t2)
{
	return (struct cliff_thermal){.t_ms = t_ms, .temp_k = 340, .t1_count = t1, .t2_count = t2};
}

Test(cliff, tells_a_recovering_dip_and_ties_it_to_throttling)
{
	struct cliff_point *v = series(120, rate_dip, NULL);
	struct cliff_thermal th[30];
	struct cliff_event ev[4];
	size_t m = 0;

	/* SMART every second; TMT1 count goes 7 → 8 at t = 10 s. */
	for (size_t i = 0; i < 30; i++)
		th[i] = th_at((int64_t)i * 1000, i >= 10 ? 8 : 7, 2);
	cr_assert_eq(cliff_analyze(v, 120, th, 30, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 1);
	cr_expect_eq(ev[0].kind, CLIFF_DIP);
	cr_expect(ev[0].recovered);
	cr_expect_eq(ev[0].cause, CLIFF_CAUSE_THROTTLING);
	cr_expect_eq(ev[0].start, 40);
	cr_expect_eq(ev[0].end, 64);
	cr_expect_eq(ev[0].start_ms, 10000);
	cr_expect(ev[0].rate_during > 0.49 * GB && ev[0].rate_during < 0.51 * GB);
	cr_expect(ev[0].rate_after > 1.4 * GB);
	cr_expect_not(cliff_sustained(v, 120, NULL, NULL));

	/* The same dip with counters that never move: cause unknown. */
	for (size_t i = 0; i < 30; i++)
		th[i] = th_at((int64_t)i * 1000, 7, 2);
	cr_assert_eq(cliff_analyze(v, 120, th, 30, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 1);
	cr_expect_eq(ev[0].cause, CLIFF_CAUSE_UNKNOWN);

	/* A rise in warning-temperature time also counts; one long before does not. */
	for (size_t i = 0; i < 30; i++) {
		th[i] = th_at((int64_t)i * 1000, 7, 2);
		th[i].warning_temp_time_min = i >= 13 ? 5 : 4;
	}
	cr_assert_eq(cliff_analyze(v, 120, th, 30, NULL, ev, 4, &m), 0);
	cr_expect_eq(ev[0].cause, CLIFF_CAUSE_THROTTLING);
	for (size_t i = 0; i < 30; i++)
		th[i] = th_at((int64_t)i * 1000, i >= 3 ? 8 : 7, 2);
	cr_assert_eq(cliff_analyze(v, 120, th, 30, NULL, ev, 4, &m), 0);
	cr_expect_eq(ev[0].cause, CLIFF_CAUSE_UNKNOWN);
	free(v);
}

/* Noise and one slow interval are not events. */
static double rate_noisy(size_t i, void *arg)
{
	(void)arg;
	if (i == 30)
		return 0.3 * GB;
	return (i % 2 ? 1.9 : 2.1) * GB;
}

Test(cliff, ignores_noise_and_single_slow_intervals)
{
	struct cliff_point *v = series(100, rate_noisy, NULL);
	struct cliff_event ev[4];
	size_t m = 9;

	cr_assert_eq(cliff_analyze(v, 100, NULL, 0, NULL, ev, 4, &m), 0);
	cr_expect_eq(m, 0);
	free(v);
}

/* A dip, then a cliff, in one run. */
static double rate_both(size_t i, void *arg)
{
	(void)arg;
	if (i >= 20 && i < 30)
		return 1 * GB;
	if (i >= 80)
		return 0.8 * GB;
	return 3 * GB;
}

Test(cliff, dip_then_cliff)
{
	struct cliff_point *v = series(140, rate_both, NULL);
	struct cliff_event ev[4];
	size_t m = 0;

	cr_assert_eq(cliff_analyze(v, 140, NULL, 0, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 2);
	cr_expect_eq(ev[0].kind, CLIFF_DIP);
	cr_expect_eq(ev[1].kind, CLIFF_CLIFF);
	cr_expect_eq(ev[1].bytes_before, (uint64_t)(70 * 0.75 * GB + 10 * 0.25 * GB));
	free(v);
}

Test(cliff, rejects_times_that_do_not_increase)
{
	struct cliff_point v[3] = {{250, 1}, {250, 1}, {500, 1}};
	struct cliff_event ev[1];
	size_t m;

	cr_expect_eq(cliff_analyze(v, 3, NULL, 0, NULL, ev, 1, &m), -EINVAL);
}

enum thermal_field { TH_T1_COUNT, TH_T2_COUNT, TH_T1_TIME, TH_T2_TIME, TH_WARN_MIN };

/* SMART every second for @n s; @field rises by one at @rise_s. */
static void thermal_trace(struct cliff_thermal *th, size_t n, enum thermal_field field,
			  int64_t rise_s)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = (int64_t)i >= rise_s ? 11 : 10;

		th[i] = (struct cliff_thermal){.t_ms = (int64_t)i * 1000, .temp_k = 340};
		switch (field) {
		case TH_T1_COUNT:
			th[i].t1_count = v;
			break;
		case TH_T2_COUNT:
			th[i].t2_count = v;
			break;
		case TH_T1_TIME:
			th[i].t1_time_s = v;
			break;
		case TH_T2_TIME:
			th[i].t2_time_s = v;
			break;
		case TH_WARN_MIN:
			th[i].warning_temp_time_min = v;
			break;
		}
	}
}

/*
 * README Analysis: "A dip (or the start of a cliff) during which the drive's
 * thermal-management counters (TMT1/TMT2 transitions or time) or its
 * warning-temperature time rose is labelled throttling." Each counter alone.
 */
Test(cliff, each_thermal_counter_alone_labels_a_dip)
{
	const struct {
		const char *rule;
		enum thermal_field field;
	} t[] = {
		{"TMT1 transitions rose", TH_T1_COUNT},
		{"TMT2 transitions rose (heavy throttling, no time counted yet)", TH_T2_COUNT},
		{"TMT1 time rose", TH_T1_TIME},
		{"TMT2 time rose (no new transition: already throttling)", TH_T2_TIME},
		{"warning-temperature time rose", TH_WARN_MIN},
	};
	struct cliff_point *v = series(120, rate_dip, NULL);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cliff_thermal th[30];
		struct cliff_event ev[4];
		size_t m = 0;

		thermal_trace(th, 30, t[i].field, 12); /* the dip lasts from 10 s to 16 s */
		cr_assert_eq(cliff_analyze(v, 120, th, 30, NULL, ev, 4, &m), 0);
		cr_assert_eq(m, 1, "%s", t[i].rule);
		cr_expect_eq(ev[0].cause, CLIFF_CAUSE_THROTTLING, "%s", t[i].rule);
	}
	free(v);
}

/*
 * A cliff is labelled by the counters around its start ("or the start of a
 * cliff"): throttling that begins long after the write cache ran out is a
 * consequence of the slow writes, not their cause.
 */
Test(cliff, cliff_cause_looks_at_its_start_only)
{
	const struct {
		const char *rule;
		int64_t rise_s;
		enum cliff_cause cause;
	} t[] = {
		{"TMT1 rose within the slack of the start (22.75 s)", 23, CLIFF_CAUSE_THROTTLING},
		{"TMT1 rose 12 s into the cliff: not its cause", 35, CLIFF_CAUSE_UNKNOWN},
	};
	double written = 0;
	struct cliff_point *v = series(160, rate_980pro_1tb, &written);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cliff_thermal th[41];
		struct cliff_event ev[4];
		size_t m = 0;

		thermal_trace(th, 41, TH_T1_COUNT, t[i].rise_s);
		cr_assert_eq(cliff_analyze(v, 160, th, 41, NULL, ev, 4, &m), 0);
		cr_assert_eq(m, 1, "%s", t[i].rule);
		cr_assert_eq(ev[0].kind, CLIFF_CLIFF);
		cr_expect_eq(ev[0].start_ms, 22750);
		cr_expect_eq(ev[0].cause, t[i].cause, "%s", t[i].rule);
	}
	free(v);
}

/* README Analysis: a cliff "lasts to the end of the run": it ends with the last interval. */
Test(cliff, cliff_ends_with_the_run)
{
	double written = 0;
	struct cliff_point *v = series(160, rate_980pro_1tb, &written);
	struct cliff_event ev[4];
	size_t m = 0;

	cr_assert_eq(cliff_analyze(v, 160, NULL, 0, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 1);
	cr_expect_eq(ev[0].end, 160, "end index %zu", ev[0].end);
	cr_expect_eq(ev[0].end_ms, 40000, "end %lld ms", (long long)ev[0].end_ms);
	cr_expect(!ev[0].recovered);
	free(v);
}

/* 2 GB/s, down to 0.5 GB/s at 10 s, back only to 78 % of the rate before at 15 s. */
static double rate_partial_recovery(size_t i, void *arg)
{
	(void)arg;
	return i < 40 ? 2 * GB : i < 60 ? 0.5 * GB : 1.56 * GB;
}

/*
 * README Analysis: "a dip is a drop that recovers above 85 %"; back to 78 %
 * (above the 70 % that starts an event) the drive is still down: a cliff.
 */
Test(cliff, recovery_needs_85_percent_not_70)
{
	struct cliff_point *v = series(120, rate_partial_recovery, NULL);
	struct cliff_event ev[4];
	size_t m = 0;

	cr_assert_eq(cliff_analyze(v, 120, NULL, 0, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 1, "events: %zu", m);
	cr_expect_eq(ev[0].kind, CLIFF_CLIFF, "78 %% of the rate before is no recovery");
	cr_expect_eq(ev[0].start, 40);
	free(v);
}

/* Four intervals at 2 GB/s and four at 2.2 GB/s, a dip to 0.5 GB/s, then 2.1 GB/s. */
static double rate_two_levels(size_t i, void *arg)
{
	(void)arg;
	return i < 4 ? 2 * GB : i < 8 ? 2.2 * GB : i < 28 ? 0.5 * GB : 2.1 * GB;
}

/*
 * cliff.h: "The level an event drops from is the median of the smoothed rate
 * over the last eight normal intervals" — of eight values, the mean of the
 * middle two: (2.0 + 2.2) / 2.
 */
Test(cliff, rate_before_is_the_median_of_eight)
{
	struct cliff_point *v = series(60, rate_two_levels, NULL);
	struct cliff_event ev[4];
	size_t m = 0;

	cr_assert_eq(cliff_analyze(v, 60, NULL, 0, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 1);
	cr_expect_eq(ev[0].start, 8);
	cr_expect(ev[0].rate_before > 2.099 * GB && ev[0].rate_before < 2.101 * GB,
		  "rate before %.4f GB/s", ev[0].rate_before / GB);
	free(v);
}

/* 100 ms intervals at 2 GB/s with one slow stretch of @arg intervals at 10 s. */
static double rate_short_dip(size_t i, void *arg)
{
	size_t len = *(size_t *)arg;

	return i >= 100 && i < 100 + len ? 0.5 * GB : 2 * GB;
}

/* cliff.h: events shorter than min_event_ms (500 ms) are noise. */
Test(cliff, dips_shorter_than_half_a_second_are_noise)
{
	const struct {
		const char *rule;
		size_t len;
		size_t events;
	} t[] = {
		{"300 ms slow: shorter than min_event_ms, noise", 3, 0},
		{"400 ms slow: still noise", 4, 0},
		{"500 ms slow: an event", 5, 1},
		{"800 ms slow: an event", 8, 1},
	};

	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		struct cliff_point v[200];
		struct cliff_event ev[4];
		size_t m = 9, len = t[k].len;

		for (size_t i = 0; i < 200; i++)
			v[i] = (struct cliff_point){
				.t_ms = (int64_t)(i + 1) * 100,
				.bytes = (uint64_t)(rate_short_dip(i, &len) / 10)};
		cr_assert_eq(cliff_analyze(v, 200, NULL, 0, NULL, ev, 4, &m), 0);
		cr_expect_eq(m, t[k].events, "%s: %zu events", t[k].rule, m);
	}
}

/*
 * 1 GB/s, a dip to 0.3 GB/s, back up at 2 GB/s for two intervals, then a
 * second drop to 1.2 GB/s for 2 s and 2 GB/s again.
 */
static double rate_dip_then_higher(size_t i, void *arg)
{
	(void)arg;
	return i < 12 ? 1 * GB : i < 20 ? 0.3 * GB : i < 22 ? 2 * GB : i < 30 ? 1.2 * GB : 2 * GB;
}

/*
 * cliff.c: after a dip, "Restart the level here: the drive may settle
 * elsewhere." The second drop is measured from the level the drive came back
 * to (2 GB/s: 1.2 is below 0.7 × 2), not from the one before the first dip
 * (1 GB/s: 1.2 would be no drop at all), even two intervals after the dip.
 */
Test(cliff, level_restarts_where_the_drive_came_back_after_a_dip)
{
	struct cliff_point *v = series(60, rate_dip_then_higher, NULL);
	struct cliff_event ev[4];
	size_t m = 0;

	cr_assert_eq(cliff_analyze(v, 60, NULL, 0, NULL, ev, 4, &m), 0);
	cr_assert_eq(m, 2, "events: %zu", m);
	cr_expect_eq(ev[0].kind, CLIFF_DIP);
	cr_expect_eq(ev[0].start, 12);
	cr_expect(ev[0].rate_before > 0.999 * GB && ev[0].rate_before < 1.001 * GB,
		  "first level %.4f GB/s", ev[0].rate_before / GB);
	cr_expect_eq(ev[1].kind, CLIFF_DIP);
	cr_expect_eq(ev[1].start, 22);
	cr_expect(ev[1].rate_before > 1.999 * GB && ev[1].rate_before < 2.001 * GB,
		  "level after the dip %.4f GB/s", ev[1].rate_before / GB);
	cr_expect_eq(ev[1].end_ms, 30 * 250);
	free(v);
}
