/* SPDX-License-Identifier: MIT */
/*
 * Error log entries in a real SQLite file: one row per device and error count
 * (a count read again is the same row), the read position, ranges newest
 * first, counts per class, the newest alerting entry, and 64-bit fields past
 * int64 kept exact.
 */
#include "store_fixture.h"

#include <errno.h>
#include "nvmond/store/store_errlog.h"

TestSuite(store_errlog, .init = store_fixture_setup, .fini = store_fixture_teardown);

static struct errlog_row row(uint64_t count, uint16_t sqid, uint8_t sct, uint8_t sc,
			     int64_t seen_ms, bool before)
{
	struct errlog_row r = {
		.e = {.error_count = count,
		      .sqid = sqid,
		      .cid = (uint16_t)count,
		      .sct = sct,
		      .sc = sc,
		      .dnr = true,
		      .lba = 4096,
		      .nsid = 1,
		      .param_err_loc = ERRLOG_NA16},
		.before_watch = before,
		.seen_ms = seen_ms,
	};
	uint8_t raw[ERRLOG_ENTRY_SIZE];

	/* The status field as a controller reports it. */
	errlog_encode_entry(&r.e, raw);
	errlog_decode_entry(raw, &r.e);
	r.cls = errclass_of(&r.e);
	return r;
}

Test(store_errlog, state_starts_unknown_and_follows_each_read)
{
	struct errlog_state st;

	cr_expect_eq(store_errlog_state_get(s, dev_a, &st), -ENOENT, "never read");
	struct errlog_state w = {.read_count = 14, .read_ms = 1000, .lost = 2};
	cr_assert_eq(store_errors_add(s, dev_a, NULL, 0, &w), 0, "%s", store_strerror(s));
	cr_assert_eq(store_errlog_state_get(s, dev_a, &st), 0);
	cr_expect_eq(st.read_count, 14);
	cr_expect_eq(st.read_ms, 1000);
	cr_expect_eq(st.lost, 2);
	w = (struct errlog_state){.read_count = UINT64_MAX, .read_ms = 2000};
	cr_assert_eq(store_errors_add(s, dev_a, NULL, 0, &w), 0);
	cr_assert_eq(store_errlog_state_get(s, dev_a, &st), 0);
	cr_expect_eq(st.read_count, UINT64_MAX, "a count past int64 stays exact");
	cr_expect_eq(store_errlog_state_get(s, dev_b, &st), -ENOENT, "per device");
}

Test(store_errlog, one_row_per_error_count_and_device)
{
	struct errlog_row v[] = {
		row(1, 0, 1, 0x09, 1000, true),	 /* Invalid Log Page: benign, old */
		row(2, 0, 0, 0x02, 1000, true),	 /* Invalid Field: benign, old */
		row(3, 1, 2, 0x81, 5000, false), /* Unrecovered Read Error: media */
	};
	struct errlog_state st = {.read_count = 3, .read_ms = 5000};
	struct errlog_row *got = NULL;
	size_t n = 0;

	cr_assert_eq(store_errors_add(s, dev_a, v, 3, &st), 0, "%s", store_strerror(s));
	/* The same counts again (a later poll, a restart): nothing new. */
	struct errlog_row again = row(3, 1, 0, 0x04, 9000, false);
	cr_assert_eq(store_errors_add(s, dev_a, &again, 1, &st), 0);
	/* The same count on another drive is another row. */
	cr_assert_eq(store_errors_add(s, dev_b, &again, 1, &st), 0);

	cr_assert_eq(store_errors_range(s, dev_a, INT64_MIN, INT64_MAX, 100, &got, &n), 0);
	cr_assert_eq(n, 3);
	cr_expect_eq(got[0].e.error_count, 3, "newest first");
	cr_expect_eq(got[0].cls, ERRCLASS_MEDIA);
	cr_expect_eq(got[0].e.sct, 2);
	cr_expect_eq(got[0].e.sc, 0x81, "the first read's entry stays");
	cr_expect_eq(got[0].seen_ms, 5000);
	cr_expect(got[0].e.dnr);
	cr_expect_eq(got[0].e.status_raw, v[2].e.status_raw);
	cr_expect_eq(got[0].e.lba, 4096);
	cr_expect_eq(got[0].e.nsid, 1);
	cr_expect_eq(got[0].e.param_err_loc, ERRLOG_NA16);
	cr_expect_not(got[0].before_watch);
	cr_expect_eq(got[1].e.error_count, 2);
	cr_expect_eq(got[2].e.error_count, 1);
	cr_expect_eq(got[2].cls, ERRCLASS_BENIGN);
	cr_expect(got[2].before_watch);
	free(got);

	cr_assert_eq(store_errors_range(s, dev_a, 2000, 6000, 100, &got, &n), 0);
	cr_expect_eq(n, 1, "range by the time read");
	free(got);
	cr_assert_eq(store_errors_range(s, dev_a, INT64_MIN, INT64_MAX, 2, &got, &n), 0);
	cr_expect_eq(n, 2, "limit");
	cr_expect_eq(got[1].e.error_count, 2, "the limit keeps the newest");
	free(got);

	uint64_t c[_ERRCLASS_MAX];
	cr_assert_eq(store_errors_count(s, dev_a, INT64_MIN, INT64_MAX, c), 0);
	cr_expect_eq(c[ERRCLASS_BENIGN], 2);
	cr_expect_eq(c[ERRCLASS_MEDIA], 1);
	cr_expect_eq(c[ERRCLASS_IO], 0);
	cr_expect_eq(c[ERRCLASS_OTHER], 0);
	cr_assert_eq(store_errors_count(s, dev_a, 0, 2000, c), 0);
	cr_expect_eq(c[ERRCLASS_BENIGN], 2);
	cr_expect_eq(c[ERRCLASS_MEDIA], 0);
	cr_assert_eq(store_errors_count(s, dev_b, INT64_MIN, INT64_MAX, c), 0);
	cr_expect_eq(c[ERRCLASS_IO], 1, "Data Transfer Error on an I/O queue");
}

Test(store_errlog, newest_alerting_entry_leaves_out_old_ones)
{
	struct errlog_row v[] = {
		row(1, 1, 2, 0x81, 1000, true),	 /* media, but there before nvmond */
		row(2, 0, 0, 0x02, 2000, false), /* benign */
	};
	struct errlog_state st = {.read_count = 2, .read_ms = 2000};
	struct errlog_row got;

	cr_assert_eq(store_errors_add(s, dev_a, v, 2, &st), 0);
	cr_expect_eq(store_errors_last_alerting(s, dev_a, &got), -ENOENT);
	struct errlog_row io[] = {row(3, 2, 0, 0x04, 3000, false), row(4, 2, 2, 0x80, 4000, false)};
	cr_assert_eq(store_errors_add(s, dev_a, io, 2, &st), 0);
	cr_assert_eq(store_errors_last_alerting(s, dev_a, &got), 0);
	cr_expect_eq(got.e.error_count, 4);
	cr_expect_eq(got.cls, ERRCLASS_MEDIA, "Write Fault");
	cr_expect_eq(got.seen_ms, 4000);
}

Test(store_errlog, sixty_four_bit_fields_stay_exact)
{
	struct errlog_row r = row(UINT64_MAX - 1, 1, 2, 0x81, 1000, false);
	struct errlog_state st = {.read_count = UINT64_MAX - 1, .read_ms = 1000};
	struct errlog_row *got = NULL;
	size_t n = 0;

	r.e.lba = UINT64_MAX; /* "not applicable" on some drives */
	r.e.cmd_specific = (uint64_t)INT64_MAX + 5;
	cr_assert_eq(store_errors_add(s, dev_a, &r, 1, &st), 0, "%s", store_strerror(s));
	cr_assert_eq(store_errors_add(s, dev_a, &r, 1, &st), 0, "and once more: still one row");
	cr_assert_eq(store_errors_range(s, dev_a, INT64_MIN, INT64_MAX, 10, &got, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_eq(got[0].e.error_count, UINT64_MAX - 1);
	cr_expect_eq(got[0].e.lba, UINT64_MAX);
	cr_expect_eq(got[0].e.cmd_specific, (uint64_t)INT64_MAX + 5);
	free(got);
}

Test(store_errlog, a_failed_add_records_nothing)
{
	struct errlog_row r = row(1, 1, 2, 0x81, 1000, false);
	struct errlog_state st = {.read_count = 1, .read_ms = 1000}, got;

	/* No such device: the foreign key refuses the entry, and the state with it. */
	cr_expect_lt(store_errors_add(s, 999, &r, 1, &st), 0);
	cr_expect_eq(store_errlog_state_get(s, 999, &got), -ENOENT);
}
