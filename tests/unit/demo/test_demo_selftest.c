/* SPDX-License-Identifier: MIT */
/*
 * The demo drives' self-tests (demo.h, demo_selftest.c) through the backend as
 * the self-test service uses it, at explicit times. Rules: demo.h (a short
 * test takes DEV_DEMO_ST_SHORT_MIN minutes, an extended one EDSTT; the drives'
 * own tests; the 950 PRO's failed segment once a year; demo2 without
 * self-test), dev.h (the errors of dev_selftest_start()), and the Device
 * Self-test command's processing (NVMe Base 2.1, Figure 173): a start while a
 * test runs is refused (Device Self-test in Progress), an abort ends the test
 * with result 1h, an abort while none runs changes nothing; log 06h holds the
 * newest 20 results, newest first.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"

#define MIN	 60000LL
#define HOUR	 (60 * MIN)
#define DAY	 (24 * HOUR)
#define QUIET	 1796126400000LL /* Tue 2026-12-01 12:00Z: no test of the drives' own runs */
#define SUN_0200 1795917600000LL /* Sun 2026-11-29 02:00Z: their weekly short test */
#define N_DRIVES 8

static struct dev_backend *b;

static void setup(void)
{
	cr_assert_eq(dev_demo_open_n(N_DRIVES, &b), 0);
}

static void teardown(void)
{
	b = dev_backend_free(b);
}

TestSuite(demo_selftest, .init = setup, .fini = teardown);

static struct selftest_log log_at(const char *name, int64_t ms)
{
	uint8_t page[SELFTEST_LOG_SIZE];
	struct selftest_log l;

	cr_assert_eq(dev_read_selftest(b, name, NULL, ms, page), 0, "%s", name);
	cr_assert_eq(selftest_decode(page, sizeof(page), &l), 0);
	return l;
}

static uint64_t poh_at(const char *name, int64_t ms)
{
	uint8_t page[SMART_LOG_SIZE];
	struct smart_log s;

	cr_assert_eq(dev_read_smart(b, name, NULL, ms, page), 0);
	smart_decode(page, &s);
	return (uint64_t)s.power_on_hours;
}

static int start(const char *name, int64_t ms, uint8_t stc)
{
	return dev_selftest_start(b, name, NULL, ms, DEV_SELFTEST_NSID_ALL, stc);
}

/* Every field of a result (the log's layout keeps them all). */
static bool same(const struct selftest_result *a, const struct selftest_result *c)
{
	struct selftest_key ka, kc;

	selftest_key_of(a, &ka);
	selftest_key_of(c, &kc);
	return selftest_key_eq(&ka, &kc) && a->valid == c->valid && a->vendor == c->vendor;
}

Test(demo_selftest, start_progress_finish_abort_busy)
{
	struct selftest_log before = log_at("demo0", QUIET), l;

	cr_expect_eq(before.current, SELFTEST_CODE_NONE, "nothing runs on a Tuesday noon");
	cr_assert_eq(start("demo0", QUIET, SELFTEST_CODE_SHORT), 0);
	l = log_at("demo0", QUIET + MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_SHORT);
	cr_expect_eq(l.percent, 50, "a short test takes 2 minutes");
	cr_expect_eq(start("demo0", QUIET + MIN, SELFTEST_CODE_SHORT), -EBUSY, "one at a time");
	cr_expect_eq(start("demo0", QUIET + MIN, SELFTEST_CODE_EXTENDED), -EBUSY);
	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		cr_expect(same(&l.r[i], &before.r[i]), "no result while it runs (%zu)", i);

	l = log_at("demo0", QUIET + 2 * MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_NONE, "done after 2 minutes");
	cr_expect_eq(l.r[0].code, SELFTEST_CODE_SHORT);
	cr_expect_eq(l.r[0].result, SELFTEST_RES_NO_ERROR);
	cr_expect_eq(l.r[0].valid, 0);
	cr_expect_eq(l.r[0].poh, poh_at("demo0", QUIET + 2 * MIN), "the power-on hours at its end");
	cr_expect(same(&l.r[1], &before.r[0]), "the newest before it comes second");

	/* An extended test takes EDSTT, 10 minutes on the 950 PRO; aborted after 6. */
	int64_t t = QUIET + 10 * MIN;
	cr_assert_eq(start("demo0", t, SELFTEST_CODE_EXTENDED), 0);
	l = log_at("demo0", t + 5 * MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(l.percent, 50);
	cr_expect_eq(log_at("demo0", t + 10 * MIN - 1).percent, 99, "never 100 while it runs");
	cr_assert_eq(start("demo0", t + 6 * MIN, SELFTEST_CODE_ABORT), 0);
	l = log_at("demo0", t + 6 * MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_NONE);
	cr_expect_eq(l.r[0].code, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(l.r[0].result, SELFTEST_RES_ABORTED_CMD,
		     "1h: aborted by a Device Self-test command");
	cr_expect_eq(l.r[0].poh, poh_at("demo0", t + 6 * MIN));
	cr_expect_eq(l.r[1].code, SELFTEST_CODE_SHORT, "then the short test");
	struct selftest_log later = log_at("demo0", t + 30 * MIN);
	cr_expect(same(&later.r[0], &l.r[0]), "no pass where the aborted test would have ended");

	/* An abort while none runs: completes, the log is not modified. */
	cr_expect_eq(start("demo0", t + 31 * MIN, SELFTEST_CODE_ABORT), 0);
	l = log_at("demo0", t + 31 * MIN);
	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		cr_expect(same(&l.r[i], &later.r[i]), "unchanged (%zu)", i);

	/* One that runs to its end. */
	t = QUIET + HOUR;
	cr_assert_eq(start("demo0", t, SELFTEST_CODE_EXTENDED), 0);
	cr_expect_eq(log_at("demo0", t + 10 * MIN - 1).current, SELFTEST_CODE_EXTENDED);
	l = log_at("demo0", t + 10 * MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_NONE);
	cr_expect_eq(l.r[0].code, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(l.r[0].result, SELFTEST_RES_NO_ERROR);
	cr_expect_eq(l.r[1].result, SELFTEST_RES_ABORTED_CMD);
	cr_expect_eq(l.r[2].code, SELFTEST_CODE_SHORT);

	/* The power-on hours are those at the end, not at the start. */
	t = QUIET + 2 * HOUR - MIN;
	cr_assert_eq(start("demo0", t, SELFTEST_CODE_SHORT), 0);
	l = log_at("demo0", t + 2 * MIN);
	cr_expect_eq(l.r[0].poh, poh_at("demo0", t + 2 * MIN));
	cr_expect_eq(l.r[0].poh, poh_at("demo0", t) + 1, "it ran across the hour");

	/* The other drive was told nothing. */
	struct selftest_log other = log_at("demo1", t + 10 * MIN), quiet = log_at("demo1", QUIET);
	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		cr_expect(same(&other.r[i], &quiet.r[i]), "demo1 unchanged (%zu)", i);
}

Test(demo_selftest, the_drives_own_tests_run_and_give_way)
{
	struct selftest_log l = log_at("demo0", SUN_0200 + MIN);

	cr_expect_eq(l.current, SELFTEST_CODE_SHORT, "the weekly short test, Sunday 02:00 UTC");
	cr_expect_eq(l.percent, 50);
	cr_expect_eq(start("demo0", SUN_0200 + MIN, SELFTEST_CODE_EXTENDED), -EBUSY,
		     "a start finds the drive's own test in progress");
	l = log_at("demo0", SUN_0200 + 2 * MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_NONE);
	cr_expect_eq(l.r[0].code, SELFTEST_CODE_SHORT);
	cr_expect_eq(l.r[0].result, SELFTEST_RES_NO_ERROR);
	cr_expect_eq(l.r[0].poh, poh_at("demo0", SUN_0200 + 2 * MIN));

	/* Aborted, it ends with 1h and never passes. */
	cr_assert_eq(start("demo0", SUN_0200 + MIN, SELFTEST_CODE_ABORT), 0);
	l = log_at("demo0", SUN_0200 + 5 * MIN);
	cr_expect_eq(l.r[0].code, SELFTEST_CODE_SHORT);
	cr_expect_eq(l.r[0].result, SELFTEST_RES_ABORTED_CMD);
	cr_expect_eq(l.r[0].poh, poh_at("demo0", SUN_0200 + MIN));
	cr_expect_eq(l.r[1].poh, poh_at("demo0", SUN_0200 - 7 * DAY + 2 * MIN),
		     "then the Sunday before's");

	/* A test it was told to run first (12 minutes on the 980 PRO): its own short
	 * test of 02:00 finds it in progress and is not in the log. */
	cr_assert_eq(start("demo1", SUN_0200 - 5 * MIN, SELFTEST_CODE_EXTENDED), 0);
	l = log_at("demo1", SUN_0200 + MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(l.percent, 50);
	l = log_at("demo1", SUN_0200 + 30 * MIN);
	cr_expect_eq(l.r[0].code, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(l.r[0].poh, poh_at("demo1", SUN_0200 + 7 * MIN));
	cr_expect_eq(l.r[1].code, SELFTEST_CODE_SHORT);
	cr_expect_eq(l.r[1].poh, poh_at("demo1", SUN_0200 - 7 * DAY + 2 * MIN));
}

/*
 * dev_demo_selftest_handover(): from then on the daemon runs the drive's
 * schedule, so the drive starts none of its own tests; those before stay.
 */
Test(demo_selftest, handover_leaves_the_schedule_to_the_daemon)
{
	struct selftest_log l;

	cr_assert_eq(dev_demo_selftest_handover(b, "demo0", SUN_0200 - HOUR), 0);
	l = log_at("demo0", SUN_0200 + MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_NONE, "Sunday's short test is the daemon's to start");
	cr_expect_eq(l.r[0].poh, poh_at("demo0", SUN_0200 - 7 * DAY + 2 * MIN),
		     "the Sunday before's is still there");
	cr_expect_eq(start("demo0", SUN_0200 + MIN, SELFTEST_CODE_SHORT), 0,
		     "the daemon's start finds nothing running");
	l = log_at("demo1", SUN_0200 + MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_SHORT, "demo1 was not handed over");
	cr_expect_eq(dev_demo_selftest_handover(b, "demo99", SUN_0200), -ENODEV);
}

/*
 * With nothing sent, the log is the newest 20 of demo_selftest_history(),
 * newest first, through the wire format; the key of the history's newest is
 * the log's newest, so a backfill of the history leaves nothing new to store.
 */
Test(demo_selftest, log_is_the_newest_20_of_the_history)
{
	static const int64_t nows[] = {QUIET, QUIET + 37 * DAY + 5 * HOUR, SUN_0200 + 3 * MIN,
				       SUN_0200 + MIN};
	static struct demo_selftest h[400];
	size_t monthly_only = 0, none = 0;

	for (size_t i = 0; i < N_DRIVES; i++) {
		struct dev_demo_drive d;
		char name[16];

		cr_assert_eq(dev_demo_drive(i, &d), 0);
		if (d.no_selftest)
			continue;
		snprintf(name, sizeof(name), "demo%zu", i);
		for (size_t k = 0; k < sizeof(nows) / sizeof(nows[0]); k++) {
			size_t n = demo_selftest_history(&d, nows[k] - 3 * DEV_DEMO_ST_PERIOD_MS,
							 nows[k], h, 400);
			struct selftest_log l = log_at(name, nows[k]);
			cr_assert_lt(n, 400);
			for (size_t j = 0; j < SELFTEST_RESULTS; j++) {
				if (j < n)
					cr_expect(same(&l.r[j], &h[n - 1 - j].r), "%s %zu", name,
						  j);
				else
					cr_expect_eq(l.r[j].result, SELFTEST_RES_UNUSED);
				if (j && j < n)
					cr_expect_geq(l.r[j - 1].poh, l.r[j].poh, "newest first");
			}
			if (n) {
				struct selftest_key newest;
				size_t idx[SELFTEST_RESULTS];
				selftest_key_of(&h[n - 1].r, &newest);
				cr_expect_eq(selftest_new_results(&newest, 1, &l, idx), 0);
			}
		}
		monthly_only +=
			d.st_schedule && strcmp(d.st_schedule, "monthly 15 04:00 extended") == 0;
		none += d.st_schedule && !d.st_schedule[0];
	}
	cr_expect_gt(monthly_only, 0, "a drive with only a monthly extended test is covered");
	cr_expect_gt(none, 0, "and one that never ran a test");
}

/* At most 20 results: 25 short tests one after the other leave the newest 20. */
Test(demo_selftest, log_keeps_the_newest_20)
{
	for (int k = 0; k < 25; k++)
		cr_assert_eq(start("demo1", QUIET + k * 3 * MIN, SELFTEST_CODE_SHORT), 0, "%d", k);
	struct selftest_log l = log_at("demo1", QUIET + 25 * 3 * MIN);
	for (int j = 0; j < SELFTEST_RESULTS; j++) {
		cr_expect_eq(l.r[j].code, SELFTEST_CODE_SHORT);
		cr_expect_eq(l.r[j].poh, poh_at("demo1", QUIET + (24 - j) * 3 * MIN + 2 * MIN),
			     "newest first (%d)", j);
	}
}

/*
 * The 950 PRO's failed test: in any year (from, to] of its history exactly
 * once, across leap years; one test aborted by a reset a year too; every other
 * result passes; no other drive fails.
 */
Test(demo_selftest, the_950_pro_fails_a_segment_once_a_year)
{
	static struct demo_selftest h[200];
	struct dev_demo_drive d;
	struct demo_selftest fail = {0};

	cr_assert_eq(dev_demo_drive(0, &d), 0);
	/* 2025-07-02 … 2029-07-02, in steps that visit every hour of the day. */
	for (int64_t now = 1751414400000LL; now < 1877644800000LL;
	     now += 3 * DAY + 7 * HOUR + 13 * MIN) {
		size_t n = demo_selftest_history(&d, now - DEV_DEMO_ST_PERIOD_MS, now, h, 200);
		size_t failed = 0, reset = 0, shorts = 0, extended = 0;

		cr_assert_lt(n, 200);
		for (size_t i = 0; i < n; i++) {
			cr_assert_gt(h[i].ended_ms, now - DEV_DEMO_ST_PERIOD_MS);
			cr_assert_leq(h[i].ended_ms, now);
			if (i)
				cr_assert_geq(h[i].ended_ms, h[i - 1].ended_ms, "oldest first");
			if (h[i].r.result == SELFTEST_RES_SEGMENT_FAILED) {
				failed++;
				fail = h[i];
			} else if (h[i].r.result == SELFTEST_RES_ABORTED_RESET) {
				reset++;
			} else {
				cr_assert_eq(h[i].r.result, SELFTEST_RES_NO_ERROR);
				shorts += h[i].r.code == SELFTEST_CODE_SHORT;
				extended += h[i].r.code == SELFTEST_CODE_EXTENDED;
			}
		}
		cr_assert_eq(failed, 1, "one failure in the year to %lld", (long long)now);
		cr_assert_eq(reset, 1, "one reset in the year to %lld", (long long)now);
		cr_assert(shorts == 52 || shorts == 53, "weekly: %zu", shorts);
		/* 11 when the year runs from just after a first of the month to just
		 * before the next year's, across a 29 February */
		cr_assert(extended >= 11 && extended <= 13, "monthly: %zu to %lld", extended,
			  (long long)now);
	}
	/* What the failure says (Figure 259): segment, and the diagnostic fields. */
	cr_expect_eq(fail.r.code, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(fail.r.segment, 3);
	cr_expect_eq(fail.r.valid, SELFTEST_VALID_NSID | SELFTEST_VALID_FLBA | SELFTEST_VALID_SCT |
					   SELFTEST_VALID_SC);
	cr_expect_eq(fail.r.nsid, 1);
	cr_expect_eq(fail.r.lba, DEV_DEMO_MEDIA_LBA, "where its media errors were");
	cr_expect_eq(fail.r.sct, 0x2, "media and data integrity errors");
	cr_expect_eq(fail.r.sc, 0x81, "Unrecovered Read Error");
	cr_expect_eq(fail.ended_ms - fail.started_ms, 6 * MIN, "60 % of its EDSTT");
	/* A test belongs to the window its end falls in. */
	cr_expect_eq(demo_selftest_history(&d, fail.ended_ms - 1, fail.ended_ms, h, 200), 1);
	cr_expect_eq(h[0].r.result, SELFTEST_RES_SEGMENT_FAILED);
	size_t after = demo_selftest_history(&d, fail.ended_ms, fail.ended_ms + 30 * DAY, h, 200);
	for (size_t i = 0; i < after; i++)
		cr_expect_neq(h[i].r.result, SELFTEST_RES_SEGMENT_FAILED, "not in the next window");
	/* The live log shows it, and it runs like any test before it fails. */
	struct selftest_log l = log_at("demo0", fail.started_ms + 3 * MIN);
	cr_expect_eq(l.current, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(l.percent, 30);
	l = log_at("demo0", fail.ended_ms);
	cr_expect(same(&l.r[0], &fail.r));

	for (size_t i = 1; i < N_DRIVES; i++) {
		cr_assert_eq(dev_demo_drive(i, &d), 0);
		size_t n = demo_selftest_history(&d, QUIET - DEV_DEMO_ST_PERIOD_MS, QUIET, h, 200);
		for (size_t j = 0; j < n; j++)
			cr_expect_eq(h[j].r.result, SELFTEST_RES_NO_ERROR, "demo%zu passes", i);
	}
	/* Nothing before the drives' epoch. */
	cr_assert_eq(dev_demo_drive(0, &d), 0);
	cr_expect_eq(demo_selftest_history(&d, 0, DEV_DEMO_EPOCH_MS, h, 200), 0);
}

/* demo2 has no Device Self-test: Identify says so, the command and log are refused. */
Test(demo_selftest, demo2_has_no_self_test)
{
	struct dev_info *v;
	struct dev_demo_drive d;
	uint8_t page[SELFTEST_LOG_SIZE];
	size_t n;

	cr_assert_eq(dev_scan(b, QUIET, &v, &n), 0);
	cr_assert_eq(n, N_DRIVES);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(dev_demo_drive(i, &d), 0);
		cr_expect_eq(dev_selftest_supported(&v[i].id), i != 2, "OACS bit 4 of demo%zu", i);
		cr_expect_eq(v[i].id.edstt, d.edstt_min, "EDSTT is what an extended test takes");
		cr_expect_eq(v[i].id.edstt > 0, i != 2);
	}
	cr_expect_eq(v[0].id.edstt, 10);
	cr_expect_eq(v[1].id.edstt, 12);
	free(v);
	cr_expect_eq(start("demo2", QUIET, SELFTEST_CODE_SHORT), -EOPNOTSUPP);
	cr_expect_eq(start("demo2", QUIET, SELFTEST_CODE_ABORT), -EOPNOTSUPP);
	cr_expect_eq(dev_read_selftest(b, "demo2", NULL, QUIET, page), -EOPNOTSUPP);
	cr_assert_eq(dev_demo_drive(2, &d), 0);
	static struct demo_selftest h[8];
	cr_expect_eq(demo_selftest_history(&d, DEV_DEMO_EPOCH_MS, QUIET, h, 8), 0);
}

Test(demo_selftest, identity_code_and_namespace_checked)
{
	struct dev_ident who = {.model = "Samsung SSD 980 PRO 1TB", .serial = "DEMO980PRO00002"};
	uint8_t page[SELFTEST_LOG_SIZE];

	cr_expect_eq(dev_selftest_start(b, "demo0", &who, QUIET, DEV_SELFTEST_NSID_ALL,
					SELFTEST_CODE_SHORT),
		     -ESTALE, "another drive under the name: nothing sent");
	cr_expect_eq(dev_read_selftest(b, "demo0", &who, QUIET, page), -ESTALE);
	cr_expect_eq(log_at("demo0", QUIET + MIN).current, SELFTEST_CODE_NONE);
	cr_expect_eq(dev_selftest_start(b, "demo1", &who, QUIET, DEV_SELFTEST_NSID_ALL,
					SELFTEST_CODE_SHORT),
		     0);
	cr_expect_eq(dev_read_selftest(b, "demo1", &who, QUIET, page), 0);
	cr_expect_eq(start("nvme0", QUIET, SELFTEST_CODE_SHORT), -ENODEV);
	cr_expect_eq(start("demo8", QUIET, SELFTEST_CODE_SHORT), -ENODEV, "past the last drive");
	cr_expect_eq(dev_read_selftest(b, "demo01", NULL, QUIET, page), -ENODEV);
	cr_expect_eq(start("demo0", QUIET, 0x3), -EINVAL, "only 1h, 2h and Fh are sent");
	cr_expect_eq(start("demo0", QUIET, SELFTEST_CODE_VENDOR), -EINVAL);
	cr_expect_eq(dev_selftest_start(b, "demo0", NULL, QUIET, 2, SELFTEST_CODE_SHORT), -EIO,
		     "Invalid Namespace or Format: the drives have namespace 1 only");
	cr_expect_eq(dev_selftest_start(b, "demo0", NULL, QUIET, 1, SELFTEST_CODE_SHORT), 0);
	cr_expect_eq(start("demo0", QUIET + MIN, SELFTEST_CODE_ABORT), 0);
	cr_expect_eq(dev_selftest_start(b, "demo0", NULL, QUIET + 2 * MIN, 0, SELFTEST_CODE_SHORT),
		     0, "NSID 0: the controller only");
}

static void *start_short(void *arg)
{
	*(int *)arg = start("demo0", QUIET, SELFTEST_CODE_SHORT);
	return NULL;
}

/* Starts from several threads at once: exactly one test runs. */
Test(demo_selftest, concurrent_starts_run_one_test)
{
	pthread_t th[8];
	int r[8];

	for (int i = 0; i < 8; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, start_short, &r[i]), 0);
	int started = 0, busy = 0;
	for (int i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		started += r[i] == 0;
		busy += r[i] == -EBUSY;
	}
	cr_expect_eq(started, 1);
	cr_expect_eq(busy, 7);
}
