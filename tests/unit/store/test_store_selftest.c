/* SPDX-License-Identifier: MIT */
/*
 * Self-test results and actions in a real SQLite file (store_selftest.h):
 * results in the order they ran and read newest first, the newest of each
 * test code, actions by kind, when the schedule last started or skipped a
 * test, 64-bit fields past int64 kept exact, and "not started by nvmond"
 * stored as NULL.
 */
#include "store_fixture.h"

#include <errno.h>
#include <string.h>
#include <sqlite3.h>
#include "nvmond/store/store_selftest.h"

TestSuite(store_selftest, .init = store_fixture_setup, .fini = store_fixture_teardown);

/* What the database holds, read past the store: the first column of @sql's first row. */
static void raw_text(const char *sql, char *buf, size_t size)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	snprintf(buf, size, "%s",
		 sqlite3_column_type(st, 0) == SQLITE_NULL
			 ? "NULL"
			 : (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static struct store_selftest_row result(int64_t dev, uint8_t code, uint8_t res, uint64_t poh,
					int64_t seen_ms, const char *origin)
{
	struct store_selftest_row v = {
		.id = 999, /* ignored */
		.device_id = dev,
		.seen_ms = seen_ms,
		.r = {.code = code, .result = res, .poh = poh, .nsid = 0xffffffff},
	};

	snprintf(v.origin, sizeof(v.origin), "%s", origin);
	return v;
}

static int add_action(int64_t dev, int64_t ts_ms, enum store_selftest_action_kind kind,
		      uint8_t code, const char *origin, const char *reason)
{
	struct store_selftest_action a = {
		.id = 999,
		.device_id = dev,
		.ts_ms = ts_ms,
		.kind = kind,
		.code = code,
		.nsid = 0xffffffff,
	};

	snprintf(a.origin, sizeof(a.origin), "%s", origin);
	snprintf(a.reason, sizeof(a.reason), "%s", reason);
	return store_selftest_action_add(s, &a);
}

/* The header: results are added oldest first, in one transaction, and read newest first. */
Test(store_selftest, results_in_the_order_they_ran_newest_first)
{
	struct store_selftest_row v[] = {
		result(dev_a, SELFTEST_CODE_SHORT, SELFTEST_RES_NO_ERROR, 100, 5000, "schedule"),
		result(dev_a, SELFTEST_CODE_EXTENDED, SELFTEST_RES_ABORTED_CMD, 101, 5000, "api"),
		/* Read in the same poll: the same seen_ms, the order is the insert order. */
		result(dev_a, SELFTEST_CODE_SHORT, SELFTEST_RES_NO_ERROR, 102, 5000, ""),
	};
	struct store_selftest_row one = result(dev_b, SELFTEST_CODE_SHORT, 0, 7, 6000, "cli");
	struct store_selftest_row got, *list = NULL;
	size_t n = 9;

	cr_expect_eq(store_selftest_newest(s, dev_a, &got), -ENOENT, "none stored yet");
	cr_assert_eq(store_selftest_list(s, dev_a, 50, &list, &n), 0);
	cr_expect_null(list);
	cr_expect_eq(n, 0);
	cr_assert_eq(store_selftest_add(s, NULL, 0), 0, "nothing to add");

	cr_assert_eq(store_selftest_add(s, v, 3), 0, "%s", store_strerror(s));
	cr_assert_eq(store_selftest_add(s, &one, 1), 0, "%s", store_strerror(s));

	cr_assert_eq(store_selftest_newest(s, dev_a, &got), 0, "%s", store_strerror(s));
	cr_expect_eq(got.r.poh, 102, "the newest is the last added");
	cr_expect_eq(got.device_id, dev_a);
	cr_expect_neq(got.id, 999, "ids are the database's");
	cr_assert_eq(store_selftest_list(s, dev_a, 50, &list, &n), 0, "%s", store_strerror(s));
	cr_assert_eq(n, 3);
	cr_expect_eq(list[0].r.poh, 102);
	cr_expect_eq(list[1].r.poh, 101);
	cr_expect_eq(list[2].r.poh, 100);
	cr_expect_gt(list[0].id, list[1].id);
	cr_expect_gt(list[1].id, list[2].id);
	cr_expect_eq(list[1].r.code, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(list[1].r.result, SELFTEST_RES_ABORTED_CMD);
	cr_expect_str_eq(list[1].origin, "api");
	cr_expect_str_eq(list[2].origin, "schedule");
	cr_expect_eq(list[2].seen_ms, 5000);
	cr_expect_eq(list[2].r.nsid, 0xffffffff);
	free(list);

	cr_assert_eq(store_selftest_list(s, dev_a, 2, &list, &n), 0);
	cr_expect_eq(n, 2, "limit");
	cr_expect_eq(list[0].r.poh, 102);
	free(list);

	cr_assert_eq(store_selftest_list(s, dev_b, 50, &list, &n), 0);
	cr_assert_eq(n, 1, "per device");
	cr_expect_eq(list[0].r.poh, 7);
	free(list);
}

/* The header: store_selftest_add() is all or nothing. */
Test(store_selftest, add_is_all_or_nothing)
{
	struct store_selftest_row v[] = {
		result(dev_a, SELFTEST_CODE_SHORT, 0, 100, 5000, ""),
		result(dev_a + dev_b + 100, SELFTEST_CODE_SHORT, 0, 101, 5000, ""), /* no device */
	};
	struct store_selftest_row got;

	cr_expect_lt(store_selftest_add(s, v, 2), 0, "a result of no device is refused");
	cr_expect_eq(store_selftest_newest(s, dev_a, &got), -ENOENT, "and nothing was stored");
}

/* The header: the newest result whose test code is @code. */
Test(store_selftest, last_of_each_code)
{
	struct store_selftest_row v[] = {
		result(dev_a, SELFTEST_CODE_SHORT, SELFTEST_RES_NO_ERROR, 10, 1000, "schedule"),
		result(dev_a, SELFTEST_CODE_EXTENDED, SELFTEST_RES_SEGMENT_FAILED, 20, 2000, ""),
		result(dev_a, SELFTEST_CODE_SHORT, SELFTEST_RES_FATAL, 30, 3000, "api"),
		result(dev_b, SELFTEST_CODE_EXTENDED, SELFTEST_RES_NO_ERROR, 40, 4000, ""),
	};
	struct store_selftest_row got;

	v[1].r.segment = 3;
	cr_assert_eq(store_selftest_add(s, v, 4), 0, "%s", store_strerror(s));
	cr_assert_eq(store_selftest_last_of(s, dev_a, SELFTEST_CODE_SHORT, &got), 0, "%s",
		     store_strerror(s));
	cr_expect_eq(got.r.poh, 30);
	cr_expect_eq(got.r.result, SELFTEST_RES_FATAL);
	cr_assert_eq(store_selftest_last_of(s, dev_a, SELFTEST_CODE_EXTENDED, &got), 0);
	cr_expect_eq(got.r.poh, 20, "not dev_b's newer one");
	cr_expect_eq(got.r.result, SELFTEST_RES_SEGMENT_FAILED);
	cr_expect_eq(got.r.segment, 3);
	cr_expect_eq(store_selftest_last_of(s, dev_a, SELFTEST_CODE_VENDOR, &got), -ENOENT);
	cr_expect_eq(store_selftest_last_of(s, dev_b, SELFTEST_CODE_SHORT, &got), -ENOENT);
}

/* store.md: 64-bit fields are INTEGER while they fit in int64, decimal TEXT beyond; exact. */
Test(store_selftest, sixty_four_bit_fields_round_trip)
{
	static const uint64_t lbas[] = {
		0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX - 1, UINT64_MAX};
	struct store_selftest_row v[sizeof(lbas) / sizeof(lbas[0])], *list = NULL;
	size_t n = sizeof(lbas) / sizeof(lbas[0]), got_n = 0;
	char raw[64];

	for (size_t i = 0; i < n; i++) {
		v[i] = result(dev_a, SELFTEST_CODE_EXTENDED, SELFTEST_RES_SEGMENT_FAILED, i,
			      1000 + (int64_t)i, "");
		v[i].r = (struct selftest_result){
			.code = SELFTEST_CODE_EXTENDED,
			.result = SELFTEST_RES_SEGMENT_FAILED,
			.segment = 255,
			.valid = SELFTEST_VALID_NSID | SELFTEST_VALID_FLBA | SELFTEST_VALID_SCT |
				 SELFTEST_VALID_SC,
			.poh = UINT64_MAX - i,
			.nsid = 0xfffffffe,
			.lba = lbas[i],
			.sct = 7,
			.sc = 0xff,
			.vendor = 0xffff,
		};
	}
	cr_assert_eq(store_selftest_add(s, v, n), 0, "%s", store_strerror(s));
	cr_assert_eq(store_selftest_list(s, dev_a, 50, &list, &got_n), 0, "%s", store_strerror(s));
	cr_assert_eq(got_n, n);
	for (size_t i = 0; i < n; i++) {
		const struct selftest_result *w = &v[n - 1 - i].r, *g = &list[i].r;
		cr_expect_eq(g->lba, w->lba, "lba %llu read back as %llu",
			     (unsigned long long)w->lba, (unsigned long long)g->lba);
		cr_expect_eq(g->poh, w->poh);
		cr_expect_eq(g->code, w->code);
		cr_expect_eq(g->result, w->result);
		cr_expect_eq(g->segment, 255);
		cr_expect_eq(g->valid, 0xf);
		cr_expect_eq(g->nsid, 0xfffffffe);
		cr_expect_eq(g->sct, 7);
		cr_expect_eq(g->sc, 0xff);
		cr_expect_eq(g->vendor, 0xffff);
	}
	free(list);
	raw_text("SELECT typeof(lba) || ' ' || lba FROM selftest_results ORDER BY id DESC LIMIT 1",
		 raw, sizeof(raw));
	cr_expect_str_eq(raw, "text 18446744073709551615", "beyond int64: decimal TEXT");
	raw_text("SELECT typeof(lba) || ' ' || lba FROM selftest_results WHERE lba = 1", raw,
		 sizeof(raw));
	cr_expect_str_eq(raw, "integer 1", "within int64: INTEGER");
}

/* The header: origin "" (not started by nvmond) is NULL in the database, "" read back. */
Test(store_selftest, origin_empty_is_null)
{
	struct store_selftest_row v[] = {
		result(dev_a, SELFTEST_CODE_SHORT, 0, 1, 1000, ""),
		result(dev_a, SELFTEST_CODE_SHORT, 0, 2, 2000, "catch-up"),
	};
	struct store_selftest_row got;
	char raw[64];

	cr_assert_eq(store_selftest_add(s, v, 2), 0, "%s", store_strerror(s));
	raw_text("SELECT origin FROM selftest_results WHERE poh = 1", raw, sizeof(raw));
	cr_expect_str_eq(raw, "NULL");
	raw_text("SELECT origin FROM selftest_results WHERE poh = 2", raw, sizeof(raw));
	cr_expect_str_eq(raw, "catch-up");
	v[0].r.poh = 3;
	cr_assert_eq(store_selftest_add(s, v, 1), 0);
	cr_assert_eq(store_selftest_newest(s, dev_a, &got), 0, "%s", store_strerror(s));
	cr_expect_eq(got.r.poh, 3);
	cr_expect_str_eq(got.origin, "");
}

/* The header: actions newest first, every kind (@kind < 0) or one. */
Test(store_selftest, actions_by_kind_newest_first)
{
	struct store_selftest_action *a = NULL;
	size_t n = 9;

	cr_assert_eq(store_selftest_actions(s, dev_a, -1, 20, &a, &n), 0);
	cr_expect_null(a);
	cr_expect_eq(n, 0);
	cr_assert_eq(add_action(dev_a, 1000, STORE_SELFTEST_START, SELFTEST_CODE_SHORT, "api", ""),
		     0, "%s", store_strerror(s));
	cr_assert_eq(add_action(dev_a, 2000, STORE_SELFTEST_SKIP, SELFTEST_CODE_EXTENDED,
				"schedule", "a probe is running on this drive"),
		     0);
	cr_assert_eq(add_action(dev_a, 3000, STORE_SELFTEST_ABORT, SELFTEST_CODE_ABORT, "cli", ""),
		     0);
	cr_assert_eq(add_action(dev_a, 4000, STORE_SELFTEST_SKIP, SELFTEST_CODE_SHORT, "catch-up",
				"the drive is asleep"),
		     0);
	cr_assert_eq(add_action(dev_b, 5000, STORE_SELFTEST_START, SELFTEST_CODE_SHORT, "demo", ""),
		     0);

	cr_assert_eq(store_selftest_actions(s, dev_a, -1, 20, &a, &n), 0, "%s", store_strerror(s));
	cr_assert_eq(n, 4);
	cr_expect_eq(a[0].ts_ms, 4000);
	cr_expect_eq(a[1].ts_ms, 3000);
	cr_expect_eq(a[2].ts_ms, 2000);
	cr_expect_eq(a[3].ts_ms, 1000);
	cr_expect_eq(a[1].kind, STORE_SELFTEST_ABORT);
	cr_expect_eq(a[1].code, SELFTEST_CODE_ABORT);
	cr_expect_str_eq(a[1].origin, "cli");
	cr_expect_str_eq(a[1].reason, "");
	cr_expect_eq(a[3].kind, STORE_SELFTEST_START);
	cr_expect_eq(a[3].nsid, 0xffffffff);
	cr_expect_eq(a[3].device_id, dev_a);
	cr_expect_neq(a[3].id, 999);
	free(a);

	cr_assert_eq(store_selftest_actions(s, dev_a, STORE_SELFTEST_SKIP, 20, &a, &n), 0);
	cr_assert_eq(n, 2, "skips only");
	cr_expect_eq(a[0].kind, STORE_SELFTEST_SKIP);
	cr_expect_str_eq(a[0].reason, "the drive is asleep");
	cr_expect_str_eq(a[0].origin, "catch-up");
	cr_expect_str_eq(a[1].reason, "a probe is running on this drive");
	cr_expect_eq(a[1].code, SELFTEST_CODE_EXTENDED);
	free(a);

	cr_assert_eq(store_selftest_actions(s, dev_a, STORE_SELFTEST_START, 20, &a, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_eq(a[0].ts_ms, 1000);
	free(a);

	cr_assert_eq(store_selftest_actions(s, dev_a, -1, 1, &a, &n), 0);
	cr_expect_eq(n, 1, "limit");
	free(a);

	cr_assert_eq(store_selftest_actions(s, dev_b, -1, 20, &a, &n), 0);
	cr_assert_eq(n, 1, "per device");
	cr_expect_str_eq(a[0].origin, "demo");
	free(a);

	cr_expect_eq(store_selftest_actions(s, dev_a, STORE_SELFTEST_SKIP + 1, 20, &a, &n),
		     -EINVAL);
	cr_expect_eq(add_action(dev_a, 1, (enum store_selftest_action_kind)7, 1, "api", ""),
		     -EINVAL);
}

/* The header: only starts and skips of origin "schedule" or "catch-up" count, per code. */
Test(store_selftest, last_scheduled_counts_the_schedules_starts_and_skips)
{
	int64_t ms = 0;

	cr_expect_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), -ENOENT,
		     "never");
	cr_expect_eq(ms, 0, "*ret_ms untouched");
	/* None of these counts: the operator's start, the schedule's abort. */
	cr_assert_eq(add_action(dev_a, 9000, STORE_SELFTEST_START, SELFTEST_CODE_SHORT, "api", ""),
		     0);
	cr_assert_eq(add_action(dev_a, 9100, STORE_SELFTEST_START, SELFTEST_CODE_SHORT, "cli", ""),
		     0);
	cr_assert_eq(
		add_action(dev_a, 9200, STORE_SELFTEST_ABORT, SELFTEST_CODE_SHORT, "schedule", ""),
		0);
	cr_expect_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), -ENOENT,
		     "the operator's tests and aborts do not count");

	cr_assert_eq(
		add_action(dev_a, 1000, STORE_SELFTEST_START, SELFTEST_CODE_SHORT, "schedule", ""),
		0);
	cr_assert_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), 0, "%s",
		     store_strerror(s));
	cr_expect_eq(ms, 1000);
	cr_assert_eq(add_action(dev_a, 2000, STORE_SELFTEST_SKIP, SELFTEST_CODE_SHORT, "schedule",
				"the drive is busy"),
		     0);
	cr_assert_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), 0);
	cr_expect_eq(ms, 2000, "a skip counts");
	cr_assert_eq(
		add_action(dev_a, 3000, STORE_SELFTEST_START, SELFTEST_CODE_SHORT, "catch-up", ""),
		0);
	cr_assert_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), 0);
	cr_expect_eq(ms, 3000, "a catch-up counts");
	/* Added later, yet earlier: the newest time wins, not the last row. */
	cr_assert_eq(add_action(dev_a, 1500, STORE_SELFTEST_SKIP, SELFTEST_CODE_SHORT, "catch-up",
				"another self-test is running"),
		     0);
	cr_assert_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), 0);
	cr_expect_eq(ms, 3000);

	cr_expect_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_EXTENDED, &ms), -ENOENT,
		     "per code");
	cr_expect_eq(store_selftest_last_scheduled(s, dev_b, SELFTEST_CODE_SHORT, &ms), -ENOENT,
		     "per device");
	cr_assert_eq(add_action(dev_a, 5000, STORE_SELFTEST_START, SELFTEST_CODE_EXTENDED,
				"schedule", ""),
		     0);
	cr_assert_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_EXTENDED, &ms), 0);
	cr_expect_eq(ms, 5000);
	cr_assert_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), 0);
	cr_expect_eq(ms, 3000, "the extended test's start is not the short one's");
}

/* The schema comes from the migrations: a reopened file has the rows and version 8. */
Test(store_selftest, rows_survive_a_reopen)
{
	struct store_selftest_row v = result(dev_a, SELFTEST_CODE_SHORT, 0, 42, 1000, "schedule");
	struct store_selftest_row got;
	char err[STORE_ERR_MAX], raw[16];
	int64_t ms;

	cr_assert_eq(store_selftest_add(s, &v, 1), 0);
	cr_assert_eq(
		add_action(dev_a, 1000, STORE_SELFTEST_START, SELFTEST_CODE_SHORT, "schedule", ""),
		0);
	s = store_close(s);
	cr_assert_eq(store_open(db_path, &s, err), 0, "%s", err);
	raw_text("PRAGMA user_version", raw, sizeof(raw));
	cr_expect_geq(atoi(raw), 8);
	cr_assert_eq(store_selftest_newest(s, dev_a, &got), 0);
	cr_expect_eq(got.r.poh, 42);
	cr_assert_eq(store_selftest_last_scheduled(s, dev_a, SELFTEST_CODE_SHORT, &ms), 0);
	cr_expect_eq(ms, 1000);
}
