/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/monitor/devrow.h"
#include "nvmond/dev/dev.h"

#define T0 1796005160000LL /* 2026-11-30T02:19:20Z */

static struct dev_backend *b;

static void setup(void)
{
	cr_assert_eq(dev_demo_open(&b), 0);
}

static void teardown(void)
{
	b = dev_backend_free(b);
}

static struct smart_log read_at(const char *name, int64_t ms)
{
	uint8_t page[SMART_LOG_SIZE];
	struct smart_log s;

	cr_assert_eq(dev_read_smart(b, name, NULL, ms, page), 0);
	smart_decode(page, &s);
	return s;
}

TestSuite(demo, .init = setup, .fini = teardown);

Test(demo, two_drives_with_identity)
{
	struct dev_info *v;
	size_t n;

	cr_assert_eq(dev_scan(b, T0, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(v[0].id.model, "Samsung SSD 950 PRO 512GB");
	cr_expect_eq(v[0].id.wctemp_k, 343);
	cr_expect_str_neq(v[0].id.serial, v[1].id.serial);
	cr_expect_eq(v[1].n_ns, 1);
	char key[DEV_KEY_MAX];
	cr_expect_str_eq(dev_key(&v[1].id, key, sizeof(key)),
			 "Samsung SSD 980 PRO 1TB/DEMO980PRO00002");
	uint8_t page[SMART_LOG_SIZE];
	cr_expect_eq(dev_read_smart(b, "nvme0", NULL, T0, page), -ENODEV);
	/* A name read for another drive than the one that answers there. */
	struct dev_ident who = {.model = v[1].id.model, .serial = v[1].id.serial};
	cr_expect_eq(dev_read_smart(b, "demo1", &who, T0, page), 0);
	cr_expect_eq(dev_read_smart(b, "demo0", &who, T0, page), -ESTALE);
	who.model = "Samsung SSD 950 PRO 512GB";
	cr_expect_eq(dev_read_smart(b, "demo1", &who, T0, page), -ESTALE);
	free(v);
}

/* Over two hours at 1 s steps nothing that counts may go backwards. */
Test(demo, counters_never_decrease)
{
	const char *names[] = {"demo0", "demo1"};

	for (int d = 0; d < 2; d++) {
		struct smart_log prev = read_at(names[d], T0);
		for (int64_t ms = T0 + 1000; ms <= T0 + 7200 * 1000; ms += 1000) {
			struct smart_log s = read_at(names[d], ms);
			cr_assert(s.data_units_written >= prev.data_units_written);
			cr_assert(s.data_units_read >= prev.data_units_read);
			cr_assert(s.power_on_hours >= prev.power_on_hours);
			cr_assert_geq(s.thm_temp1_trans_count, prev.thm_temp1_trans_count);
			cr_assert_geq(s.thm_temp2_trans_count, prev.thm_temp2_trans_count);
			cr_assert_geq(s.thm_temp1_total_time, prev.thm_temp1_total_time);
			cr_assert_geq(s.thm_temp2_total_time, prev.thm_temp2_total_time);
			cr_assert_geq(s.warning_temp_time, prev.warning_temp_time);
			prev = s;
		}
	}
}

Test(demo, same_moment_same_page)
{
	uint8_t a[SMART_LOG_SIZE], c[SMART_LOG_SIZE];

	cr_assert_eq(dev_read_smart(b, "demo0", NULL, T0 + 12345, a), 0);
	cr_assert_eq(dev_read_smart(b, "demo0", NULL, T0 + 12345, c), 0);
	cr_expect_arr_eq(a, c, SMART_LOG_SIZE, "a pure function of time: restarts continue");
}

/* The hot drive throttles lightly every 5 minutes and heavily every third time. */
Test(demo, hot_drive_throttles_on_schedule)
{
	struct smart_log first = read_at("demo0", T0), last = read_at("demo0", T0 + 3600 * 1000);
	uint32_t t1 = last.thm_temp1_trans_count - first.thm_temp1_trans_count;
	uint32_t t2 = last.thm_temp2_trans_count - first.thm_temp2_trans_count;

	cr_expect(t1 >= 11 && t1 <= 13, "T1 transitions in an hour: %u", t1);
	cr_expect(t2 >= 3 && t2 <= 5, "T2 transitions in an hour: %u", t2);
	cr_expect_gt(last.thm_temp1_total_time, first.thm_temp1_total_time);
	cr_expect_gt(last.warning_temp_time, first.warning_temp_time);

	int hot = 0, warned = 0;
	for (int64_t ms = T0; ms < T0 + 600 * 1000; ms += 1000) {
		struct smart_log s = read_at("demo0", ms);
		if (s.temperature_k >= 343)
			hot++;
		if (s.critical_warning & SMART_CRIT_TEMPERATURE)
			warned++;
		cr_assert_lt(s.temperature_k, 353, "never reaches CCTEMP");
	}
	cr_expect_gt(hot, 0, "reaches WCTEMP within 10 minutes");
	cr_expect(abs(hot - warned) <= 20, "the warning bit follows WCTEMP (%d vs %d)", hot,
		  warned);
}

Test(demo, cool_drive_never_throttles)
{
	struct smart_log first = read_at("demo1", T0), last = read_at("demo1", T0 + 86400 * 1000LL);

	cr_expect_eq(last.thm_temp1_trans_count, 0);
	cr_expect_eq(last.thm_temp2_trans_count, 0);
	cr_expect_eq(last.warning_temp_time, first.warning_temp_time);
	cr_expect(last.data_units_written > first.data_units_written, "but it writes");
	cr_expect_eq(last.avail_spare, 100);
	cr_expect_eq(last.spare_thresh, 10);
}

/* The write rate dips but never stops: any 3 s window shows writes on both drives. */
Test(demo, writes_never_stall)
{
	const char *names[] = {"demo0", "demo1"};

	for (int d = 0; d < 2; d++)
		for (int64_t ms = T0; ms < T0 + 900 * 1000; ms += 1000) {
			struct smart_log s0 = read_at(names[d], ms),
					 s3 = read_at(names[d], ms + 3000);
			cr_assert(s3.data_units_written > s0.data_units_written,
				  "%s stalls at +%lld s", names[d], (long long)(ms - T0) / 1000);
		}
}

/* The hot drive's error log holds what its num_err_log_entries counts, newest
 * first: admin commands the controller refused (benign, on the admin queue) and
 * the two Unrecovered Read Errors of its demo year (on an I/O queue, at
 * neighbouring LBAs), which its media_errors counts too; the cool one has none. */
Test(demo, error_log_agrees_with_the_count)
{
	uint8_t page[64 * ERRLOG_ENTRY_SIZE];
	struct errlog_entry e[64];
	struct smart_log s = read_at("demo0", T0);
	size_t media = 0;

	cr_assert_eq(s.num_err_log_entries, 63, "14 before the year, 47 in bursts, 2 media");
	cr_expect_eq(s.media_errors, 2);
	cr_expect_eq(read_at("demo0", T0 + 86400000).num_err_log_entries, 63, "and no more");
	cr_assert_eq(dev_read_errlog(b, "demo0", NULL, T0, 64, false, page), 0);
	size_t n = errlog_decode(page, sizeof(page), e, 64);
	cr_assert_eq(n, 64);
	for (size_t i = 0; i < 63; i++) {
		cr_expect_eq(e[i].error_count, 63 - i, "newest first");
		cr_expect_not_null(errlog_status_name(e[i].sct, e[i].sc));
		if (e[i].sct == ERRLOG_SCT_MEDIA) {
			cr_expect_eq(e[i].sc, 0x81, "Unrecovered Read Error");
			cr_expect_eq(e[i].sqid, 2, "an I/O queue");
			cr_expect_eq(e[i].nsid, 1);
			if (media++)
				cr_expect_eq(e[i].lba + 8, e[i - 1].lba, "the next block");
			continue;
		}
		cr_expect_eq(e[i].sqid, 0, "admin queue");
		cr_expect(e[i].sct == ERRLOG_SCT_GENERIC ? e[i].sc == 0x02 : e[i].sc == 0x09);
	}
	cr_expect_eq(media, 2, "two media entries");
	cr_expect_eq(e[63].error_count, 0, "then empty entries");
	cr_expect_eq(dev_read_errlog(b, "demo1", NULL, T0, 1, false, page), 0);
	cr_expect_eq(errlog_decode(page, ERRLOG_ENTRY_SIZE, e, 1), 1);
	cr_expect_eq(e[0].error_count, 0, "the cool drive logged no error");
	cr_expect_eq(read_at("demo1", T0).media_errors, 0);
	cr_expect_eq(dev_read_errlog(b, "demo0", NULL, T0, 0, false, page), -EINVAL);
	cr_expect_eq(dev_read_errlog(b, "nvme0", NULL, T0, 1, false, page), -ENODEV);
}

/* The cool 980 PRO shows a Sensor 2 stuck above its WCTEMP (355 K) while its
 * composite stays far below; the drives answer Get Features 04h per sensor. */
Test(demo, stuck_sensor_above_wctemp_and_sensor_thresholds)
{
	uint16_t k[SMART_NUM_SENSORS];

	for (int64_t t = 0; t < 7200; t += 97) {
		struct smart_log s = read_at("demo1", T0 + t * 1000);
		cr_assert_eq(s.temp_sensor_k[1], 357, "stuck at 83.85 °C");
		cr_assert_lt(s.temperature_k, 355 - 30, "composite well below WCTEMP");
	}
	cr_assert_eq(dev_read_sensor_limits(b, "demo1", NULL, 0x3, k), 0);
	cr_expect_eq(k[0], 0xffff);
	cr_expect_eq(k[1], 0xffff);
	cr_assert_eq(dev_read_sensor_limits(b, "demo0", NULL, 0x1, k), 0);
	cr_expect_eq(k[0], 353, "sensor 1's own threshold: 80 °C");
	cr_expect_eq(k[1], 0, "not asked");
	struct dev_ident who = {.model = "", .serial = "DEMO980PRO00002"};
	cr_expect_eq(dev_read_sensor_limits(b, "demo0", &who, 0x1, k), -ESTALE);
	cr_expect_eq(dev_read_sensor_limits(b, "nvme9", NULL, 0x1, k), -ENODEV);
}

/*
 * Rule (demo.h, issue 26): only the demo library reads its drives' names; the
 * probe engine finds a drive by serial as a real controller is found in sysfs,
 * and that lookup names the controller the scan names.
 */
Test(demo, lookups_agree_with_the_scan)
{
	struct dev_backend *all;
	struct dev_info *v = NULL;
	size_t n = 0;

	cr_assert_eq(dev_demo_open_n(DEV_DEMO_MAX, &all), 0);
	cr_assert_eq(dev_scan(all, T0, &v, &n), 0);
	cr_assert_eq(n, DEV_DEMO_MAX);
	for (size_t i = 0; i < n; i++) {
		char name[DEV_NAME_MAX], path[DEV_NAME_MAX + 8];
		size_t at = SIZE_MAX, back = SIZE_MAX;

		cr_assert_eq(dev_demo_find(v[i].id.serial, &at, name, path), 0, "%s",
			     v[i].id.serial);
		cr_expect_eq(at, i, "serial %s is drive %zu, not %zu", v[i].id.serial, i, at);
		cr_expect_str_eq(name, v[i].name);
		cr_expect_str_eq(path, v[i].path);
		cr_expect_eq(dev_demo_index(v[i].name, &back), 0);
		cr_expect_eq(back, i);
		struct device_row row;
		devrow_from_scan(all, &v[i], T0, &row);
		cr_expect(row.simulated,
			  "the demo backend's drives are simulated (DEV_CAP_SIMULATED)");
	}
	free(v);
	dev_backend_free(all);

	char name[DEV_NAME_MAX], path[DEV_NAME_MAX + 8];
	size_t i = 7;
	cr_expect_eq(dev_demo_find("S3ESNX0K123456", &i, name, path), -ENODEV);
	cr_expect_eq(dev_demo_find(NULL, &i, name, path), -ENODEV);
	cr_expect_eq(i, 7, "nothing written for no drive");
	cr_expect_eq(dev_demo_index("nvme0", &i), -ENODEV);
	cr_expect_eq(dev_demo_index("demo64", &i), -ENODEV, "past DEV_DEMO_MAX");
	cr_expect_eq(dev_demo_index("demo01", &i), -ENODEV, "the scan never names a drive so");
	cr_expect_eq(dev_demo_index("demo1x", &i), -ENODEV);
	cr_expect_eq(dev_demo_index("demo", &i), -ENODEV);
}

/* Rule (demo.h st_schedule): the schedule a drive runs on its own, for the self-test service. */
Test(demo, own_selftest_schedule)
{
	struct dev_demo_drive d;

	cr_assert_eq(dev_demo_drive(0, &d), 0);
	cr_assert_not_null(d.st_schedule);
	cr_expect_eq(dev_demo_selftest_schedule("demo0"), d.st_schedule);
	cr_expect_null(dev_demo_selftest_schedule("nvme0"));
	cr_expect_null(dev_demo_selftest_schedule("demo99"));
	for (size_t i = 0; i < DEV_DEMO_MAX && dev_demo_drive(i, &d) == 0; i++) {
		char name[16];
		snprintf(name, sizeof(name), "demo%zu", i);
		cr_expect_eq(dev_demo_selftest_schedule(name), d.st_schedule, "%s", name);
	}
}
