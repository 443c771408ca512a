/* SPDX-License-Identifier: MIT */
/*
 * The risk rules' inputs gathered from a real SQLite file (issue 27 §3):
 * each window starts where docs/health.md says (errors and hardware events 90
 * days, bad blocks 30, the spare fit 30), entries from before nvmond watched
 * the drive never count, and the C0h counters "then" are the first read
 * inside each window.
 */
#include "../store/store_fixture.h"

#include <errno.h>
#include "nvmond/decode/pel.h"
#include "nvmond/monitor/risk_input.h"
#include "nvmond/store/store_drive.h"
#include "nvmond/store/store_errlog.h"

TestSuite(risk_input, .init = store_fixture_setup, .fini = store_fixture_teardown);

#define NOW 1796296320000LL
#define DAY (24 * 3600 * 1000LL)

Test(risk_input, windows)
{
	struct risk_windows w = risk_windows(NOW);

	cr_expect_eq(w.errors_from, NOW - 90 * DAY, "errors: 90 days");
	cr_expect_eq(w.hw_from, NOW - 90 * DAY, "hardware error events: 90 days");
	cr_expect_eq(w.blocks_from, NOW - 30 * DAY, "bad blocks: 30 days");
	cr_expect_eq(w.spare_from, NOW - 30 * DAY, "the spare fit: 30 days");
}

static void ocp_row(int64_t ts, uint64_t unc, uint64_t blocks)
{
	struct store_ocp_row r = {.device_id = dev_a, .ts_ms = ts};

	r.l.uncorrectable_reads = unc;
	r.l.bad_user_blocks = blocks;
	r.l.bad_system_blocks = 1;
	cr_assert_eq(store_ocp_insert(s, &r), 0);
}

static struct errlog_row entry(uint64_t count, uint8_t sc, int64_t seen, bool before)
{
	struct errlog_row r = {.e = {.error_count = count, .sqid = 1, .sct = 2, .sc = sc},
			       .cls = ERRCLASS_MEDIA,
			       .before_watch = before,
			       .seen_ms = seen};
	return r;
}

Test(risk_input, windows_of_the_history)
{
	struct fleet_device d = {.row = {.id = dev_a}, .has_sample = true};
	struct risk_gathered g;

	d.last = (struct sample){.device_id = dev_a, .ts_ms = NOW};
	d.last.smart.media_errors = 9;
	d.last.smart.avail_spare = 99;
	d.drive.ocp = (struct fleet_ocp){.present = true, .have = true, .read_ms = NOW};
	d.drive.ocp.log.uncorrectable_reads = 7;
	d.drive.ocp.log.bad_user_blocks = 14;
	d.drive.ocp.log.bad_system_blocks = 1;
	/* C0h rows: 100 days ago (outside every window), 60 days ago (inside the
	 * errors' window only), 20 days ago (inside both). */
	ocp_row(NOW - 100 * DAY, 1, 10);
	ocp_row(NOW - 60 * DAY, 4, 12);
	ocp_row(NOW - 20 * DAY, 6, 13);
	/* Error log entries: one media entry 10 days ago, one 100 days ago, one
	 * that was there before nvmond watched (5 days ago as read). */
	struct errlog_row e[3] = {entry(1, 0x81, NOW - 100 * DAY, false),
				  entry(2, 0x81, NOW - 10 * DAY, false),
				  entry(3, 0x81, NOW - 5 * DAY, true)};
	struct errlog_state st = {.read_count = 3, .read_ms = NOW};
	cr_assert_eq(store_errors_add(s, dev_a, e, 3, &st), 0, "%s", store_strerror(s));
	/* Samples: media errors 5 at 91 days, 7 at 89 days. */
	struct sample sm[2] = {{.device_id = dev_a, .ts_ms = NOW - 91 * DAY},
			       {.device_id = dev_a, .ts_ms = NOW - 89 * DAY}};
	sm[0].smart.media_errors = 5;
	sm[1].smart.media_errors = 7;
	cr_assert_eq(store_samples_insert(s, sm, 2), 0);
	/* Hardware error events 95 and 30 days ago. */
	struct store_pel_row pe[2] = {{.fingerprint = 1,
				       .type = PEL_HW_ERROR,
				       .ts_ms = NOW - 95 * DAY,
				       .kind = "hardware_error",
				       .summary = "x",
				       .detail = "{}"},
				      {.fingerprint = 2,
				       .type = PEL_HW_ERROR,
				       .ts_ms = NOW - 30 * DAY,
				       .kind = "hardware_error",
				       .summary = "x",
				       .detail = "{}"}};
	cr_assert_eq(store_pel_add(s, dev_a, pe, 2, NULL), 0);

	cr_assert_eq(risk_gather(s, &d, 1, "nvme1 (B2)", NOW, &g), 0, "%s", store_strerror(s));
	cr_expect(g.in.unc_known);
	cr_expect_eq(g.in.unc_then, 4, "the first C0h read inside 90 days");
	cr_expect_eq(g.in.unc_now, 7);
	cr_expect(g.in.blocks_known);
	cr_expect_eq(g.in.blocks_then, 14, "the first C0h read inside 30 days (13 + 1)");
	cr_expect_eq(g.in.blocks_now, 15);
	cr_expect_eq(g.in.io_errors, 1,
		     "one media entry inside 90 days, the earlier one not counted");
	cr_expect(g.in.media_known);
	cr_expect(g.in.media_then == 7, "the first sample inside 90 days");
	cr_expect(g.in.media_now == 9);
	cr_expect_eq(g.in.hw_errors, 1, "one hardware error inside 90 days");
	cr_expect_eq(g.in.neighbours_bad, 1);
	cr_expect_str_eq(g.in.neighbour, "nvme1 (B2)");
	cr_expect(g.in.smart_known);
	cr_expect_eq(g.in.smart_ms, NOW);

	/* Refreshed with a newer read: the windows stay as gathered. */
	d.last.smart.media_errors = 10;
	d.last.ts_ms = NOW + 10000;
	risk_refresh_now(&g, &d, 0, NULL, NOW + 10000);
	cr_expect(g.in.media_now == 10);
	cr_expect(g.in.media_then == 7);
	cr_expect_eq(g.in.neighbours_bad, 0);
	cr_expect_eq(g.in.history_ms, NOW);
}

Test(risk_input, drive_without_c0h)
{
	struct fleet_device d = {.row = {.id = dev_b}, .has_sample = true};
	struct risk_gathered g;

	d.last = (struct sample){.device_id = dev_b, .ts_ms = NOW};
	cr_assert_eq(risk_gather(s, &d, 0, NULL, NOW, &g), 0);
	cr_expect_not(g.in.unc_known, "no OCP log: its rules stay unknown");
	cr_expect_not(g.in.blocks_known);
	cr_expect_not(g.in.media_known, "no history in the window");
	d.last.source = SAMPLE_SOURCE_HWMON;
	cr_assert_eq(risk_gather(s, &d, 0, NULL, NOW, &g), 0);
	cr_expect_not(g.in.smart_known, "an hwmon sample knows no counters");
}
