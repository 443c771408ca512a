/* SPDX-License-Identifier: MIT */
/*
 * When the poller reads and stores a drive's other logs (issue 27 §1: "read
 * no more often than needed"): C0h rows on change or hourly, the Persistent
 * Event Log looked at when the health log moved, watching without a gap, and
 * events that came while nvmond was not watching shown late.
 */
#include <criterion/criterion.h>

#include "nvmond/monitor/logplan.h"

#define T0   1764547200000LL
#define HOUR (3600 * 1000LL)

Test(logplan, ocp_rows_on_change_or_hourly)
{
	struct ocp_log a = {.phys_written_bytes = 1000, .uncorrectable_reads = 2}, b = a;

	cr_expect(logplan_ocp_store(NULL, 0, &a, T0), "the first read makes a row");
	b.phys_written_bytes += 5000;
	b.phys_read_bytes += 5000;
	cr_expect_not(logplan_ocp_store(&a, T0, &b, T0 + 10000),
		      "the media counters alone wait for the hour");
	cr_expect_not(logplan_ocp_store(&a, T0, &b, T0 + HOUR - 1));
	cr_expect(logplan_ocp_store(&a, T0, &b, T0 + HOUR), "an hour since the last row");
	b.uncorrectable_reads++;
	cr_expect(logplan_ocp_store(&a, T0, &b, T0 + 10000), "an uncorrectable read: at once");
	b = a;
	b.bad_user_blocks++;
	cr_expect(logplan_ocp_store(&a, T0, &b, T0 + 10000), "a bad block: at once");
	b = a;
	b.throttle_status = 1;
	cr_expect(logplan_ocp_store(&a, T0, &b, T0 + 10000), "throttling: at once");
	b = a;
	b.capacitor_health = 90;
	cr_expect(logplan_ocp_store(&a, T0, &b, T0 + 10000));
	cr_expect(logplan_ocp_store(&a, T0, &a, T0 - 1), "the clock went back: a row");
}

Test(logplan, pel_looked_at_when_the_health_log_moves)
{
	struct smart_log a = {.power_cycles = 10, .warning_temp_time = 3}, b = a;

	cr_expect(logplan_pel_trigger(NULL, &a), "the first read of a run");
	cr_expect_not(logplan_pel_trigger(&a, &b), "nothing moved");
	b.data_units_written += 100;
	b.temperature_k = 330;
	cr_expect_not(logplan_pel_trigger(&a, &b), "writes and temperature are no events");
	b = a;
	b.power_cycles++;
	cr_expect(logplan_pel_trigger(&a, &b), "a power cycle: a power-on event");
	b = a;
	b.unsafe_shutdowns++;
	cr_expect(logplan_pel_trigger(&a, &b));
	b = a;
	b.warning_temp_time++;
	cr_expect(logplan_pel_trigger(&a, &b), "time over WCTEMP: a thermal excursion");
	b = a;
	b.critical_temp_time++;
	cr_expect(logplan_pel_trigger(&a, &b));
	b = a;
	b.thm_temp2_trans_count++;
	cr_expect(logplan_pel_trigger(&a, &b));
	b = a;
	b.critical_warning = 0x04;
	cr_expect(logplan_pel_trigger(&a, &b), "a new critical warning bit");
	a.critical_warning = 0x04;
	b.critical_warning = 0;
	cr_expect_not(logplan_pel_trigger(&a, &b), "a bit going away records nothing new");
	b = a;
	b.media_errors++;
	cr_expect(logplan_pel_trigger(&a, &b));
}

Test(logplan, watching_and_late)
{
	int64_t gap = logplan_gap_ms(10000);

	cr_expect_eq(gap, 30000, "three polls, at least 30 s");
	cr_expect_eq(logplan_gap_ms(60000), 180000);
	cr_expect_eq(logplan_watch_since(0, 0, T0, gap), T0, "the first poll");
	cr_expect_eq(logplan_watch_since(T0, T0 + 10000, T0 + 20000, gap), T0, "no gap");
	cr_expect_eq(logplan_watch_since(T0, T0 + 10000, T0 + 10000 + gap, gap), T0,
		     "a gap of exactly the limit");
	cr_expect_eq(logplan_watch_since(T0, T0 + 10000, T0 + 10001 + gap, gap), T0 + 10001 + gap,
		     "past it: watching starts again");

	cr_expect(logplan_pel_late(false, T0 + HOUR, T0, true), "the drive's clock counted from a "
								"reset: when is unknown");
	cr_expect_not(logplan_pel_late(true, T0 + 1, T0, false), "while watching");
	cr_expect(logplan_pel_late(true, T0 - 1, T0, false), "before watching, no poll around it");
	cr_expect_not(logplan_pel_late(true, T0 - 1, T0, true),
		      "before this run, but the history has polls around it");
}
