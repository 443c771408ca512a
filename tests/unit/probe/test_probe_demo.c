/* SPDX-License-Identifier: MIT */
/*
 * The demo drives' run-to-run variation (probe_demo.c): "no two runs of a real
 * drive measure the same, yet the same run replays the same", within 0.98 … 1.05
 * of the model, so that the 950 PRO's best of 3 lands near the 2,598 MB/s
 * read against its 2,500 rated.
 */
#include <criterion/criterion.h>

#include "nvmond/probe/probe_run.h"

#define GB 1e9

/* MB/s of a 1 MiB QD8 sequential phase of @op on demo drive @index at @start. */
static double run_mbps(int index, enum probe_op op, int64_t start)
{
	struct probe_sim_state st = {0};
	struct probe_job j = {.op = op,
			      .block_size = 1 << 20,
			      .depth = 8,
			      .length = 1ull << 30,
			      .duration_ms = 2000,
			      .interval_ms = 250};
	struct probe_result res;
	uint64_t b = 0;

	cr_assert_eq(probe_demo_run(index, &st, &j, start, false, NULL, NULL, &res), 0);
	for (size_t i = 0; i < res.n_series; i++)
		b += op == PROBE_OP_READ ? res.series[i].rd_bytes : res.series[i].wr_bytes;
	double mbps = (double)b / ((double)res.elapsed_ns / 1e9) / 1e6;
	probe_result_clear(&res);
	return mbps;
}

Test(probe_demo, runs_vary_by_start_and_replay_the_same)
{
	/* demo0 throttles in part of every five minutes (rates at 55 %): the rate
	 * checks below start on whole hours from t0, where it is cool. */
	int64_t t0 = 1764547200000LL; /* 2025-12-01T00:00Z */
	double lo = 1e12, hi = 0, best3 = 0;

	for (int k = 0; k < 40; k++) {
		double f = probe_demo_run_factor(0, t0 + k * 60000LL, false);
		cr_expect(f >= 0.98 && f < 1.05, "factor %f", f);
		lo = f < lo ? f : lo;
		hi = f > hi ? f : hi;
		cr_expect_eq(f, probe_demo_run_factor(0, t0 + k * 60000LL, false));
	}
	/* The runs vary by a few percent, both ways. */
	cr_expect(hi - lo > 0.04, "%f … %f", lo, hi);
	cr_expect_neq(probe_demo_run_factor(0, t0, false), probe_demo_run_factor(0, t0, true));
	cr_expect_neq(probe_demo_run_factor(0, t0, false), probe_demo_run_factor(1, t0, false));

	/* The measured rates follow: the same start measures the same, another start
	 * otherwise, each within the factor's range of the 950 PRO's 2.5 GB/s model
	 * (±2 % wobble per interval, averaged over the phase). */
	for (int k = 0; k < 3; k++) {
		int64_t start = t0 + k * 3600000LL;
		double a = run_mbps(0, PROBE_OP_READ, start),
		       f = probe_demo_run_factor(0, start, false);
		cr_expect_eq(a, run_mbps(0, PROBE_OP_READ, start));
		cr_expect(a > 2500 * f * 0.97 && a < 2500 * f * 1.03, "%.1f MB/s, factor %f", a, f);
		best3 = a > best3 ? a : best3;
	}
	cr_expect_neq(run_mbps(0, PROBE_OP_READ, t0), run_mbps(0, PROBE_OP_READ, t0 + 3600000LL));
	cr_expect(best3 > 2450 && best3 < 2700, "best of 3: %.1f MB/s", best3);
}

/* MB/s of a 1 MiB QD8 write of @bytes on demo drive @index at @start; its end in @ret_end. */
static double write_mbps(int index, struct probe_sim_state *st, uint64_t bytes, int64_t start,
			 double *ret_first_s, int64_t *ret_end)
{
	struct probe_job j = {.op = PROBE_OP_WRITE,
			      .block_size = 1 << 20,
			      .depth = 8,
			      .length = 1ull << 36,
			      .max_bytes = bytes,
			      .interval_ms = 250};
	struct probe_result res;
	uint64_t b = 0, first = 0;

	cr_assert_eq(probe_demo_run(index, st, &j, start, false, NULL, NULL, &res), 0);
	for (size_t i = 0; i < res.n_series; i++) {
		b += res.series[i].wr_bytes;
		if (i < 4)
			first += res.series[i].wr_bytes;
	}
	if (ret_first_s)
		*ret_first_s = (double)first / 1e6;
	*ret_end = start + res.elapsed_ns / 1000000;
	double mbps = (double)b / ((double)res.elapsed_ns / 1e9) / 1e6;
	probe_result_clear(&res);
	return mbps;
}

Test(probe_demo, cache_recovers_after_40_to_60_idle_minutes)
{
	/* The seed (issue 13): after a cliff, a 980 PRO's bursts of a tenth of its
	 * cache at 5, 10, 20 min idle run slower, the full rate comes back after
	 * 40 … 60 idle minutes. Rates are compared without each run's own factor. */
	int64_t t0 = 1764547200000LL, end, at;
	struct probe_sim_state st = {0};
	double pre, cache = 24e9;
	static const int mins[] = {5, 10, 20, 40, 60};
	double pct[5];

	write_mbps(1, &st, (uint64_t)(cache * 1.25), t0, &pre, &end);
	pre /= probe_demo_run_factor(1, t0, true);
	cr_assert(st.folding, "the fill overflowed the cache");
	for (size_t i = 0; i < 5; i++) {
		at = end + mins[i] * 60000LL;
		int64_t e;
		double r = write_mbps(1, &st, (uint64_t)(cache / 10), at, NULL, &e);
		pct[i] = r / probe_demo_run_factor(1, at, true) / pre * 100;
	}
	for (size_t i = 0; i < 4; i++)
		cr_expect(pct[i] < 95, "after %d min: %.1f %%", mins[i], pct[i]);
	cr_expect(pct[0] < pct[2] && pct[2] < pct[3], "%.1f %.1f %.1f", pct[0], pct[2], pct[3]);
	cr_expect(pct[4] >= 98, "after 60 min: %.1f %%", pct[4]);
	cr_expect(!st.folding || st.cache_used < cache / 5);
}

/* Bytes read by a sequential QD8 phase of 10 s (100 ms intervals) at transfer size @bs. */
static uint64_t read_bytes_at(uint32_t bs, int64_t start)
{
	struct probe_sim_state st = {0};
	struct probe_job j = {.op = PROBE_OP_READ,
			      .block_size = bs,
			      .depth = 8,
			      .length = 1ull << 30,
			      .duration_ms = 10000,
			      .interval_ms = 100};
	struct probe_result res;

	cr_assert_eq(probe_demo_run(1, &st, &j, start, false, NULL, NULL, &res), 0);
	uint64_t b = res.rd.bytes;
	cr_expect_eq(b % bs, 0, "whole transfers");
	probe_result_clear(&res);
	return b;
}

/*
 * probe_demo.c: an interval moves whole transfers, and "the part of one left
 * over goes with the next interval": at 1 MiB and at 64 MiB (both at the
 * drive's sequential rate) a phase moves the same within one transfer. Cut
 * off instead, a 64 MiB phase would lose about half a transfer per interval
 * (100 intervals: some 3 GB of 35).
 */
Test(probe_demo, leftover_of_a_transfer_carries_to_the_next_interval)
{
	const int64_t start = 1764547200000LL; /* cool: see above */
	uint64_t small = read_bytes_at(1u << 20, start), large = read_bytes_at(64u << 20, start);

	cr_assert_gt(small, 0);
	cr_expect_leq(small > large ? small - large : large - small, 64u << 20,
		      "1 MiB: %llu bytes, 64 MiB: %llu bytes", (unsigned long long)small,
		      (unsigned long long)large);
}
