/* SPDX-License-Identifier: MIT */
/*
 * probe_plan_prepare_step(): the write budget read from a real database, by
 * its two windows. probe_safety.h: struct probe_budget is "bytes the probes
 * may write per UTC day / per 30 days"; store_probe_written_since() sums what
 * runs started since a moment were charged. The plan must ask for the last
 * 24 h and the last 30 days: a 4-day month would let probes write 7.5 times
 * the monthly budget, and only probe_gate() (given the sums) was tested.
 *
 * The drive is "destructive = yes" without a probe_dir (its raw namespace is
 * written): no probe file, no demo, only the budget decides.
 */
#include "../store/store_fixture.h"

#include <errno.h>
#include <string.h>

#include "nvmond/core/cfg.h"
#include "nvmond/probe/probe.h"
#include "nvmond/store/store_probe.h"

#include "../../../daemon/probe/probe_plan_internal.h"

#define NOW_MS	1796000000000LL
#define DAY_MS	86400000LL
#define GB	1000000000ULL
#define MIB	(1ULL << 20)
#define MONTH_B (200 * GB)
#define DAY_B	(100 * GB)

TestSuite(probe_plan, .init = store_fixture_setup, .fini = store_fixture_teardown);

static void cfg_for(struct cfg *c)
{
	char err[CFG_ERR_MAX];

	cfg_defaults(c);
	cr_assert_eq(cfg_set(c, "device \"A1\"", "destructive", "yes", err), 0, "%s", err);
	cr_assert_eq(cfg_set(c, "device \"A1\"", "probe_budget_day", "100GB", err), 0, "%s", err);
	cr_assert_eq(cfg_set(c, "device \"A1\"", "probe_budget_month", "200GB", err), 0, "%s", err);
}

/* A finished run on dev_a started @age_ms before NOW_MS and charged @bytes. */
static void charged(int64_t age_ms, uint64_t bytes)
{
	struct probe_run_row r = {.device_id = dev_a,
				  .preset = "seq1m-q8",
				  .trigger = "api",
				  .state = "done",
				  .started_ms = NOW_MS - age_ms,
				  .ended_ms = NOW_MS - age_ms + 1000,
				  .bytes_charged = bytes};
	int64_t id;

	cr_assert_eq(store_probe_run_insert(s, &r, &id), 0, "%s", store_strerror(s));
}

/* Plan seq1m-q8 (a read and a write phase) on dev_a at NOW_MS. */
static int plan(struct probe_plan *p, char reason[PROBE_REASON_MAX])
{
	struct cfg c;
	struct device_row row = {
		.id = dev_a, .model = "ACME NVMe 2TB", .serial = "A1", .wctemp_k = 343};
	struct gate_facts g = {0};
	struct probe_run_row run;

	cfg_for(&c);
	reason[0] = '\0';
	return probe_plan_prepare_step(&c, s, &row, PROBE_SEQ1M_Q8, "api", -1, &g, NULL, NOW_MS, p,
				       &run, reason);
}

/* Nothing written: go, and the run may write its one write phase (probe_file_size, 1 GiB). */
Test(probe_plan, unused_budget_allows_the_write_phase)
{
	struct probe_plan p;
	char reason[PROBE_REASON_MAX];

	cr_assert_eq(plan(&p, reason), 0, "%s", reason);
	cr_expect_eq(p.allowed_write, 1ULL << 30);
}

/* "per 30 days": a run 29 days ago that used the month leaves nothing. */
Test(probe_plan, month_window_counts_a_run_29_days_ago)
{
	struct probe_plan p;
	char reason[PROBE_REASON_MAX];

	charged(29 * DAY_MS, MONTH_B);
	cr_assert_eq(plan(&p, reason), -EDQUOT, "29 days ago is in the 30-day window");
	cr_expect(strstr(reason, "in 30 days"), "%s", reason);
}

/* The window's edges: a run exactly 30 days ago counts (started_ms >= since), 1 ms older not. */
Test(probe_plan, month_window_is_30_days_to_the_millisecond)
{
	struct probe_plan p;
	char reason[PROBE_REASON_MAX];

	charged(30 * DAY_MS + 1, MONTH_B);
	cr_assert_eq(plan(&p, reason), 0, "30 days and 1 ms ago is out of the window: %s", reason);
	charged(30 * DAY_MS, MONTH_B);
	cr_assert_eq(plan(&p, reason), -EDQUOT, "30 days ago to the ms is in the window");
}

/* What is left of the month limits the run: 200 GB - 199.5 GB, in whole MiB. */
Test(probe_plan, month_left_limits_the_write)
{
	struct probe_plan p;
	char reason[PROBE_REASON_MAX];

	charged(20 * DAY_MS, 99 * GB);
	charged(10 * DAY_MS, 100 * GB + GB / 2);
	cr_assert_eq(plan(&p, reason), 0, "%s", reason);
	cr_expect_eq(p.allowed_write, (GB / 2) / MIB * MIB, "%llu",
		     (unsigned long long)p.allowed_write);
}

/* "per UTC day" is the last 24 h here: a run 23 h ago that used the day leaves nothing today. */
Test(probe_plan, day_window_counts_the_last_24_hours)
{
	struct probe_plan p;
	char reason[PROBE_REASON_MAX];

	charged(DAY_MS - 3600000, DAY_B);
	cr_assert_eq(plan(&p, reason), -EDQUOT);
	cr_expect(strstr(reason, "today"), "%s", reason);
}

/* A day-old run counts for the month only: 100 GB of the month's 200 are left. */
Test(probe_plan, day_window_ends_after_24_hours)
{
	struct probe_plan p;
	char reason[PROBE_REASON_MAX];

	charged(DAY_MS + 1, DAY_B);
	cr_assert_eq(plan(&p, reason), 0, "%s", reason);
	cr_expect_eq(p.allowed_write, 1ULL << 30);
	charged(DAY_MS + 2, MONTH_B - DAY_B - GB / 4); /* the month: 0.25 GB left */
	cr_assert_eq(plan(&p, reason), 0, "%s", reason);
	cr_expect_eq(p.allowed_write, (GB / 4) / MIB * MIB);
}
