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
