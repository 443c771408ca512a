/* SPDX-License-Identifier: MIT */
/* The cache-recovery study: intervals, the burst and fill sizes, the verdict (docs/probes.md). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "nvmond/analysis/recovery.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

Test(recovery, intervals)
{
	/* "recovery_intervals = 5m,10m,…": growing idle times; ms, s, m, h, d; bare seconds. */
	static const struct {
		const char *s;
		int ok;
		size_t n;
		int64_t first, last;
	} t[] = {
		{RECOVERY_INTERVALS_DEFAULT, 1, 6, 300000, 5400000},
		{"2s,4s,8s", 1, 3, 2000, 8000},
		{" 30 , 1m ,1h", 1, 3, 30000, 3600000},
		{"5m", 1, 1, 300000, 300000},
		{"", 0, 0, 0, 0},
		{"5m,5m", 0, 0, 0, 0}, /* each after the one before */
		{"10m,5m", 0, 0, 0, 0},
		{"5x", 0, 0, 0, 0},
		{"0s", 0, 0, 0, 0},
		{"-5m", 0, 0, 0, 0},
		{"5m,,10m", 0, 0, 0, 0},
		{"200h", 0, 0, 0, 0}, /* a week at most */
		/* A duration as everywhere else in the configuration (docs/configuration.md,
		 * Syntax: ms, s, m, h or d). Issue 28 §2: "5m,1d" and "1s,7d" were refused. */
		{"5m,1d", 1, 2, 300000, 86400000},
		{"1s,7d", 1, 2, 1000, 7 * 86400000LL},
		{"1s,168h", 1, 2, 1000, 7 * 86400000LL},
		{"1500ms,2s", 1, 2, 1500, 2000},
		{"999ms", 0, 0, 0, 0}, /* 1s at least */
		{"8d", 0, 0, 0, 0},
		/* The largest documented interval (docs/configuration.md: "each 1s … 7d")
		 * in every unit, and the next step of each unit refused. */
		{"604800000ms", 1, 1, 7 * 86400000LL, 7 * 86400000LL},
		{"604800s", 1, 1, 7 * 86400000LL, 7 * 86400000LL},
		{"604800", 1, 1, 7 * 86400000LL, 7 * 86400000LL},
		{"10080m", 1, 1, 7 * 86400000LL, 7 * 86400000LL},
		{"1d,168h", 1, 2, 86400000LL, 7 * 86400000LL},
		{"604800001ms", 0, 0, 0, 0},
		{"604801s", 0, 0, 0, 0},
		{"604801", 0, 0, 0, 0},
		{"10081m", 0, 0, 0, 0},
		{"169h", 0, 0, 0, 0},
		{"1000ms", 1, 1, 1000, 1000}, /* and the smallest */
		{"1D", 0, 0, 0, 0},	      /* units are lower case, as elsewhere */
		{"5 m", 0, 0, 0, 0},
		{"99999999999999999999s", 0, 0, 0, 0},
		{"1s,2s,3s,4s,5s,6s,7s,8s,9s,10s,11s,12s,13s,14s,15s,16s,17s", 0, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int64_t v[RECOVERY_MAX_INTERVALS];
		size_t n = 0;
		char err[RECOVERY_ERR_MAX] = "";
		int r = recovery_intervals_parse(t[i].s, v, &n, err);
		cr_expect_eq(r == 0, t[i].ok, "%s: %d %s", t[i].s, r, err);
		if (!t[i].ok) {
			cr_expect_eq(r, -EINVAL, "%s", t[i].s);
			cr_expect_neq(err[0], '\0', "%s: says why", t[i].s);
			continue;
		}
		cr_expect_eq(n, t[i].n, "%s", t[i].s);
		cr_expect_eq(v[0], t[i].first, "%s", t[i].s);
		cr_expect_eq(v[n - 1], t[i].last, "%s", t[i].s);
	}
}

Test(recovery, burst_size)
{
	/* "10 % of the measured cache size, at least 1 GiB, never more than the probe area/budget" */
	static const struct {
		uint64_t cache, area, budget, want;
	} t[] = {
		{24000000000ull, 64 * GiB, 100 * GiB, 2400000000ull / MiB * MiB}, /* a tenth */
		{8000000000ull, 64 * GiB, 100 * GiB, GiB},	      /* at least 1 GiB */
		{8000000000ull, 512 * MiB, 100 * GiB, 512 * MiB},     /* the area */
		{24000000000ull, 64 * GiB, 700 * MiB + 5, 700 * MiB}, /* the budget */
		{24000000000ull, 64 * GiB, MiB - 1, 0},		      /* nothing fits */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(recovery_burst_bytes(t[i].cache, t[i].area, t[i].budget), t[i].want,
			     "case %zu", i);
}

Test(recovery, fill_size)
{
	/* The fill writes the cache and a quarter more, within its limit, or not at all. */
	cr_expect_eq(recovery_fill_bytes(8 * GiB, 64 * GiB), 10 * GiB);
	cr_expect_eq(recovery_fill_bytes(8 * GiB, 9 * GiB + 3), 9 * GiB);
	cr_expect_eq(recovery_fill_bytes(8 * GiB, 8 * GiB), 0);
	cr_expect_eq(recovery_fill_bytes(8 * GiB, GiB), 0);
}

Test(recovery, reference_rate)
{
	/* docs/probes.md: the fill's own cliff is the reference when the fill wrote
	 * at least half the measured cache before it (it began on an empty cache);
	 * a fill that meets its cliff early began on a cache not yet refilled, and
	 * the measurement's rate stands. */
	static const struct {
		uint64_t cache, fill_before;
		double measured, fill_rate, want;
	} t[] = {
		{8 * GiB, 8 * GiB, 1500e6, 1400e6, 1400e6},   /* a full fill: fresher */
		{8 * GiB, 4 * GiB, 1500e6, 1400e6, 1400e6},   /* exactly half: still */
		{8 * GiB, 4 * GiB - 1, 1500e6, 42e6, 1500e6}, /* just under: the measurement */
		{300 * MiB, 100 * MiB, 159e6, 42e6, 159e6},   /* the VM's throttle right after */
		{8 * GiB, 0, 1500e6, 0, 1500e6},	      /* no cliff of its own */
		{8 * GiB, 8 * GiB, 1500e6, 0, 1500e6},	      /* no rate */
		{0, 0, 0, 0, 0},			      /* nothing measured */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(recovery_pre_rate(t[i].cache, t[i].measured, t[i].fill_before,
					       t[i].fill_rate),
			     t[i].want, "case %zu", i);
}

Test(recovery, verdict)
{
	/* "stopping when a burst runs at >= 95 % of the pre-cliff rate: cache recovered
	 * after N min idle, or not within 90 min" */
	const double pre = 5e9;
	struct recovery_point grow[] = {
		{300000, 1.6e9},   {600000, 2.5e9}, {1200000, 4.0e9},
		{2400000, 4.75e9}, {3600000, 5e9},
	};
	struct recovery_point never[] = {{300000, 1.6e9}, {5400000, 4.7e9}};
	struct recovery_verdict v;

	recovery_judge(grow, 5, pre, &v);
	cr_expect(v.known && v.recovered);
	cr_expect_eq(v.point, 3, "exactly 95 %% counts, and the first such burst decides");
	cr_expect_eq(v.idle_ms, 2400000);
	cr_expect_float_eq(v.best_pct, 100.0, 1e-9);

	recovery_judge(never, 2, pre, &v);
	cr_expect(v.known && !v.recovered, "94 %% is not recovered");
	cr_expect_eq(v.point, 1);
	cr_expect_eq(v.idle_ms, 5400000, "not within the last burst's idle time");
	cr_expect_float_eq(v.best_pct, 94.0, 1e-9);

	recovery_judge(grow, 0, pre, &v);
	cr_expect_not(v.known, "no burst: no verdict");
	recovery_judge(grow, 5, 0, &v);
	cr_expect_not(v.known, "no pre-cliff rate: no verdict");
}
