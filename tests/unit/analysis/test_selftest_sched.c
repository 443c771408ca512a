/* SPDX-License-Identifier: MIT */
/* Calendar schedules of device self-tests: parsing, next occurrences, catch-up. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nvmond/analysis/selftest_sched.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/util/timefmt.h"

#define HOUR_MS 3600000LL
#define DAY_MS	(24 * HOUR_MS)

static int64_t at(const char *iso)
{
	int64_t t;

	cr_assert_eq(timefmt_parse(iso, &t), 0, "%s", iso);
	return t;
}

Test(selftest_sched, parses_the_issue_example)
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	char err[SELFTEST_SCHED_ERR];
	size_t n = 9;

	cr_assert_eq(selftest_sched_parse("", v, &n, err), 0);
	cr_expect_eq(n, 0);
	cr_assert_eq(selftest_sched_parse("weekly Sun 02:00 short, monthly 1 03:00 extended,"
					  " daily 03:30 SHORT, weekly sat 23:59 extended",
					  v, &n, err),
		     0, "%s", err);
	cr_assert_eq(n, 4);
	cr_expect_eq(v[0].weekday, 0);
	cr_expect_eq(v[0].monthday, 0);
	cr_expect_eq(v[0].minute, 120);
	cr_expect_eq(v[0].type, SELFTEST_SCHED_SHORT);
	cr_expect_eq(v[1].weekday, -1);
	cr_expect_eq(v[1].monthday, 1);
	cr_expect_eq(v[1].minute, 180);
	cr_expect_eq(v[1].type, SELFTEST_SCHED_EXTENDED);
	cr_expect_eq(v[2].weekday, -1);
	cr_expect_eq(v[2].monthday, 0);
	cr_expect_eq(v[2].minute, 210);
	cr_expect_eq(v[2].type, SELFTEST_SCHED_SHORT);
	cr_expect_eq(v[3].weekday, 6);
	cr_expect_eq(v[3].minute, 23 * 60 + 59);
	cr_expect_eq(v[3].type, SELFTEST_SCHED_EXTENDED);
	cr_assert_eq(selftest_sched_parse("monthly 28 00:00 short", v, &n, err), 0, "%s", err);
	cr_expect_eq(v[0].monthday, 28);
	cr_expect_eq(v[0].minute, 0);
	cr_expect_str_eq(selftest_sched_type_name(SELFTEST_SCHED_SHORT), "short");
	cr_expect_str_eq(selftest_sched_type_name(SELFTEST_SCHED_EXTENDED), "extended");
	cr_expect_eq(selftest_sched_type_code(SELFTEST_SCHED_SHORT), SELFTEST_CODE_SHORT);
	cr_expect_eq(selftest_sched_type_code(SELFTEST_SCHED_EXTENDED), SELFTEST_CODE_EXTENDED);
}

/* selftest_sched.h: "none", in any case, is no schedule, as "" is; it stands alone. */
Test(selftest_sched, none_is_no_schedule)
{
	static const char *const none[] = {"none", "NONE", " None ", "\tnone\n", "", "  "};
	static const char *const bad[] = {"none, daily 03:00 short", "daily 03:00 short, none",
					  "nonexistent", "no", "none none"};
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	char err[SELFTEST_SCHED_ERR];
	size_t n;

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		n = 9;
		cr_expect_eq(selftest_sched_parse(none[i], v, &n, err), 0, "'%s': %s", none[i],
			     err);
		cr_expect_eq(n, 0, "'%s'", none[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 9;
		cr_expect_eq(selftest_sched_parse(bad[i], v, &n, err), -EINVAL, "'%s'", bad[i]);
		cr_expect_eq(n, 9, "'%s'", bad[i]);
	}
}

Test(selftest_sched, rejects_naming_the_bad_part)
{
	static const struct {
		const char *s, *part;
	} bad[] = {
		{"weekly Xyz 02:00 short", "'Xyz'"},
		{"weekly Su 02:00 short", "'Su'"},
		{"monthly 0 03:00 extended", "'0'"},
		{"monthly 29 03:00 extended", "'29'"},
		{"monthly 1x 03:00 extended", "'1x'"},
		{"monthly -1 03:00 extended", "'-1'"},
		{"daily 24:00 short", "'24:00'"},
		{"daily 23:60 short", "'23:60'"},
		{"daily 3am short", "'3am'"},
		{"daily 03:00 long", "'long'"},
		{"daily 03:00 abort", "'abort'"},
		{"daily 03:00", "'daily 03:00'"},
		{"weekly 03:00 short", "'weekly 03:00 short'"},
		{"monthly 1 03:00 extended x", "'monthly 1 03:00 extended x'"},
		{"hourly 03:00 short", "'hourly 03:00 short'"},
		{"daily 03:00 short,", "empty schedule entry"},
		{"daily 03:00 short,, daily 04:00 short", "empty schedule entry"},
		{"daily 1:00 short, daily 2:00 short, daily 3:00 short, daily 4:00 short, daily "
		 "5:00 "
		 "short, daily 6:00 short, daily 7:00 short, daily 8:00 short, daily 9:00 short",
		 "more than 8"},
	};
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	char err[SELFTEST_SCHED_ERR];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_expect_eq(selftest_sched_parse(bad[i].s, v, &n, err), -EINVAL, "%s", bad[i].s);
		cr_expect(strstr(err, bad[i].part) != NULL, "%s: '%s' lacks %s", bad[i].s, err,
			  bad[i].part);
	}
	cr_expect_eq(n, 0, "a failed parse leaves *ret_n alone");
}

Test(selftest_sched, next_daily_weekly_monthly)
{
	struct selftest_sched daily = {.weekday = -1, .minute = 180};
	struct selftest_sched sunday = {.weekday = 0, .minute = 120};
	struct selftest_sched monday = {.weekday = 1, .minute = 120};
	struct selftest_sched first = {.weekday = -1, .monthday = 1, .minute = 180};
	struct selftest_sched d28 = {.weekday = -1, .monthday = 28, .minute = 0};
	int64_t t = at("2026-11-30T02:00:00Z"); /* a Monday */

	cr_expect_eq(selftest_sched_next(&daily, t, 0), at("2026-11-30T03:00:00Z"));
	/* Strictly after: a run at its due time does not schedule itself again. */
	cr_expect_eq(selftest_sched_next(&daily, at("2026-11-30T03:00:00Z"), 0),
		     at("2026-12-01T03:00:00Z"));
	cr_expect_eq(selftest_sched_next(&sunday, t, 0), at("2026-12-06T02:00:00Z"));
	cr_expect_eq(selftest_sched_next(&monday, t, 0), at("2026-12-07T02:00:00Z"));
	cr_expect_eq(selftest_sched_next(&monday, t - 1, 0), t);
	cr_expect_eq(selftest_sched_next(&first, t, 0), at("2026-12-01T03:00:00Z"));
	cr_expect_eq(selftest_sched_next(&first, at("2026-12-01T03:00:00Z"), 0),
		     at("2027-01-01T03:00:00Z"));
	cr_expect_eq(selftest_sched_next(&d28, at("2027-02-28T00:00:00Z"), 0),
		     at("2027-03-28T00:00:00Z"));
	cr_expect_eq(selftest_sched_next(&d28, at("2028-02-27T12:00:00Z"), 0),
		     at("2028-02-28T00:00:00Z"));
	/* Local time: 03:00 at UTC+2 is 01:00Z, 03:00 at UTC-5 is 08:00Z. */
	cr_expect_eq(selftest_sched_next(&daily, t, 7200), at("2026-12-01T01:00:00Z"));
	cr_expect_eq(selftest_sched_next(&daily, t, -5 * 3600), at("2026-11-30T08:00:00Z"));
	/* The 1st at 03:00 in UTC+5 is the 30th (or 31st) at 22:00Z. */
	cr_expect_eq(selftest_sched_next(&first, t, 5 * 3600), at("2026-11-30T22:00:00Z"));
	cr_expect_eq(selftest_sched_next(&first, at("2026-12-31T21:00:00Z"), 5 * 3600),
		     at("2026-12-31T22:00:00Z"));
	/* Sunday 02:00 in UTC+3 is Saturday 23:00Z. */
	cr_expect_eq(selftest_sched_next(&sunday, t, 3 * 3600), at("2026-12-05T23:00:00Z"));
	/* A box without a real-time clock boots at the epoch: in UTC-5 that is
	 * 1969-12-31 19:00 local, before 0, and 03:00 local is still 08:00Z. */
	cr_expect_eq(selftest_sched_next(&daily, 0, -5 * 3600), 8 * HOUR_MS);
	cr_expect_eq(selftest_sched_prev(&daily, 0, -5 * 3600), 8 * HOUR_MS - DAY_MS);
}

Test(selftest_sched, prev_is_at_or_before)
{
	struct selftest_sched daily = {.weekday = -1, .minute = 180};
	struct selftest_sched sunday = {.weekday = 0, .minute = 120};
	struct selftest_sched first = {.weekday = -1, .monthday = 1, .minute = 180};

	cr_expect_eq(selftest_sched_prev(&daily, at("2026-11-30T03:00:00Z"), 0),
		     at("2026-11-30T03:00:00Z"));
	cr_expect_eq(selftest_sched_prev(&daily, at("2026-11-30T02:59:59Z"), 0),
		     at("2026-11-29T03:00:00Z"));
	cr_expect_eq(selftest_sched_prev(&sunday, at("2026-12-05T12:00:00Z"), 0),
		     at("2026-11-29T02:00:00Z"));
	cr_expect_eq(selftest_sched_prev(&first, at("2026-12-01T03:00:00Z"), 0),
		     at("2026-12-01T03:00:00Z"));
	cr_expect_eq(selftest_sched_prev(&first, at("2026-12-01T02:00:00Z"), 0),
		     at("2026-11-01T03:00:00Z"));
	cr_expect_eq(selftest_sched_prev(&first, at("2027-01-01T02:00:00Z"), 0),
		     at("2026-12-01T03:00:00Z"));
	cr_expect_eq(selftest_sched_prev(&first, at("2026-12-15T00:00:00Z"), 0),
		     at("2026-12-01T03:00:00Z"));
	/* In UTC+1 the 1st at 03:00 is 02:00Z. */
	cr_expect_eq(selftest_sched_prev(&first, at("2026-12-01T02:30:00Z"), 3600),
		     at("2026-12-01T02:00:00Z"));
}

/* The issue's schedule, parsed. */
static size_t issue_schedule(struct selftest_sched v[SELFTEST_SCHED_MAX])
{
	char err[SELFTEST_SCHED_ERR];
	size_t n = 0;

	cr_assert_eq(selftest_sched_parse("weekly Sun 02:00 short, monthly 1 03:00 extended", v, &n,
					  err),
		     0, "%s", err);
	return n;
}

Test(selftest_sched, catchup_after_downtime_once_per_type)
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	size_t n = issue_schedule(v);
	bool run[SELFTEST_SCHED_TYPES];
	int64_t missed[SELFTEST_SCHED_TYPES];

	/* Down from Sat 2026-11-14 to Wed 2026-12-02: two Sundays and the 1st of
	 * December missed; one short (the latest, Sun 29th) and one extended. */
	int64_t last[SELFTEST_SCHED_TYPES] = {at("2026-11-08T02:00:00Z"),
					      at("2026-11-01T03:00:00Z")};
	int64_t now = at("2026-12-02T09:00:00Z");
	selftest_sched_catchup(v, n, last, now, 0, run, missed);
	cr_expect(run[SELFTEST_SCHED_SHORT]);
	cr_expect_eq(missed[SELFTEST_SCHED_SHORT], at("2026-11-29T02:00:00Z"));
	cr_expect(run[SELFTEST_SCHED_EXTENDED]);
	cr_expect_eq(missed[SELFTEST_SCHED_EXTENDED], at("2026-12-01T03:00:00Z"));

	/* Down only over the Sunday: the short one, not the extended one. */
	int64_t last2[SELFTEST_SCHED_TYPES] = {at("2026-11-22T02:00:05Z"),
					       at("2026-11-01T03:00:10Z")};
	selftest_sched_catchup(v, n, last2, at("2026-11-30T08:00:00Z"), 0, run, missed);
	cr_expect(run[SELFTEST_SCHED_SHORT]);
	cr_expect_eq(missed[SELFTEST_SCHED_SHORT], at("2026-11-29T02:00:00Z"));
	cr_expect_not(run[SELFTEST_SCHED_EXTENDED]);
	cr_expect_eq(missed[SELFTEST_SCHED_EXTENDED], 0);

	/* A skip counts as a run: a test skipped at its time is not caught up. */
	int64_t skipped[SELFTEST_SCHED_TYPES] = {at("2026-11-29T02:00:00Z"),
						 at("2026-12-01T03:00:00Z")};
	selftest_sched_catchup(v, n, skipped, now, 0, run, missed);
	cr_expect_not(run[SELFTEST_SCHED_SHORT]);
	cr_expect_not(run[SELFTEST_SCHED_EXTENDED]);

	/* The zone counts: Sunday 02:00 in UTC+3 was Saturday 23:00Z. */
	int64_t last3[SELFTEST_SCHED_TYPES] = {at("2026-11-28T23:00:00Z"),
					       at("2026-12-01T00:00:00Z")};
	selftest_sched_catchup(v, n, last3, at("2026-11-29T01:00:00Z"), 3 * 3600, run, missed);
	cr_expect_not(run[SELFTEST_SCHED_SHORT]);
	selftest_sched_catchup(v, n, last3, at("2026-11-29T01:00:00Z"), 0, run, missed);
	cr_expect_not(run[SELFTEST_SCHED_SHORT], "not yet due in UTC");
}

Test(selftest_sched, no_double_run_across_a_restart)
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	size_t n = issue_schedule(v);
	bool run[SELFTEST_SCHED_TYPES];
	int64_t missed[SELFTEST_SCHED_TYPES];
	int64_t last[SELFTEST_SCHED_TYPES] = {at("2026-11-22T02:00:00Z"),
					      at("2026-11-01T03:00:00Z")};
	int64_t start = at("2026-12-02T09:00:00Z");

	selftest_sched_catchup(v, n, last, start, 0, run, missed);
	cr_assert(run[SELFTEST_SCHED_SHORT]);
	cr_assert(run[SELFTEST_SCHED_EXTENDED]);
	/* Both ran at the start (their starts recorded); the daemon restarts an
	 * hour later, and again days later before the next Sunday: nothing. */
	last[SELFTEST_SCHED_SHORT] = start;
	last[SELFTEST_SCHED_EXTENDED] = start + 60000;
	for (int64_t later = start + HOUR_MS; later < at("2026-12-06T02:00:00Z");
	     later += 13 * HOUR_MS) {
		selftest_sched_catchup(v, n, last, later, 0, run, missed);
		cr_expect_not(run[SELFTEST_SCHED_SHORT]);
		cr_expect_not(run[SELFTEST_SCHED_EXTENDED]);
	}
	/* A test run on time (started at its due time) is not run again either. */
	last[SELFTEST_SCHED_SHORT] = at("2026-12-06T02:00:00Z");
	selftest_sched_catchup(v, n, last, at("2026-12-06T02:00:00Z") + 5 * 60000, 0, run, missed);
	cr_expect_not(run[SELFTEST_SCHED_SHORT]);
	/* Past the next Sunday, down over it: the short one once more. */
	last[SELFTEST_SCHED_SHORT] = start;
	selftest_sched_catchup(v, n, last, at("2026-12-07T00:00:00Z"), 0, run, missed);
	cr_expect(run[SELFTEST_SCHED_SHORT]);
	cr_expect_not(run[SELFTEST_SCHED_EXTENDED]);
}

Test(selftest_sched, never_run_is_not_caught_up)
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	size_t n = issue_schedule(v);
	bool run[SELFTEST_SCHED_TYPES] = {true, true};
	int64_t missed[SELFTEST_SCHED_TYPES] = {1, 1};
	int64_t last[SELFTEST_SCHED_TYPES] = {SELFTEST_SCHED_NEVER, SELFTEST_SCHED_NEVER};

	selftest_sched_catchup(v, n, last, at("2026-12-02T09:00:00Z"), 0, run, missed);
	cr_expect_not(run[SELFTEST_SCHED_SHORT]);
	cr_expect_not(run[SELFTEST_SCHED_EXTENDED]);
	cr_expect_eq(missed[SELFTEST_SCHED_SHORT], 0);
	/* A type with no schedule entry is never caught up. */
	int64_t old[SELFTEST_SCHED_TYPES] = {0, 0};
	selftest_sched_catchup(v, 1, old, at("2026-12-02T09:00:00Z"), 0, run, missed);
	cr_expect(run[SELFTEST_SCHED_SHORT]);
	cr_expect_not(run[SELFTEST_SCHED_EXTENDED]);
}

Test(selftest_sched, catchup_takes_the_latest_of_a_types_entries)
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	char err[SELFTEST_SCHED_ERR];
	size_t n = 0;
	bool run[SELFTEST_SCHED_TYPES];
	int64_t missed[SELFTEST_SCHED_TYPES];

	cr_assert_eq(selftest_sched_parse("daily 03:00 short, weekly Mon 01:00 short", v, &n, err),
		     0, "%s", err);
	int64_t last[SELFTEST_SCHED_TYPES] = {at("2026-11-20T03:00:00Z"), SELFTEST_SCHED_NEVER};
	/* Mon 30th 02:00: the weekly one (01:00 today) is later than yesterday's daily. */
	selftest_sched_catchup(v, n, last, at("2026-11-30T02:00:00Z"), 0, run, missed);
	cr_expect(run[SELFTEST_SCHED_SHORT]);
	cr_expect_eq(missed[SELFTEST_SCHED_SHORT], at("2026-11-30T01:00:00Z"));
	/* 04:00: the daily one is. */
	selftest_sched_catchup(v, n, last, at("2026-11-30T04:00:00Z"), 0, run, missed);
	cr_expect_eq(missed[SELFTEST_SCHED_SHORT], at("2026-11-30T03:00:00Z"));
	/* In reverse order of entries, the same. */
	struct selftest_sched rev[2] = {v[1], v[0]};
	selftest_sched_catchup(rev, 2, last, at("2026-11-30T02:00:00Z"), 0, run, missed);
	cr_expect_eq(missed[SELFTEST_SCHED_SHORT], at("2026-11-30T01:00:00Z"));
	selftest_sched_catchup(rev, 2, last, at("2026-11-30T04:00:00Z"), 0, run, missed);
	cr_expect_eq(missed[SELFTEST_SCHED_SHORT], at("2026-11-30T03:00:00Z"));
}

/*
 * The scheduler's check (README: "a scheduled test runs at the minute given"):
 * each occurrence in (from, to] is due once, however late the check runs, and
 * nothing is due when the clock went back.
 */
Test(selftest_sched, due_in_the_window_since_the_last_check)
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	char err[SELFTEST_SCHED_ERR];
	bool due[SELFTEST_SCHED_TYPES];
	size_t n;
	static const struct {
		const char *from, *to;
		bool s, e;
		const char *rule;
	} t[] = {
		{"2026-11-29T01:59:00Z", "2026-11-29T02:00:00Z", true, false,
		 "the check at 02:00 sees Sunday's 02:00 short test"},
		{"2026-11-29T02:00:00Z", "2026-11-29T02:01:00Z", false, false,
		 "the next check does not see it again: the window starts after it"},
		{"2026-11-29T01:00:00Z", "2026-11-29T05:00:00Z", true, false,
		 "a late check (a suspended host) still sees it once"},
		{"2026-11-30T23:59:30Z", "2026-12-01T03:00:00Z", false, true,
		 "the 1st at 03:00: the extended test"},
		{"2026-11-29T02:01:00Z", "2026-11-29T01:59:00Z", false, false,
		 "the clock went back: nothing"},
		{"2026-11-28T02:00:00Z", "2026-11-28T02:00:00Z", false, false, "an empty window"},
	};

	cr_assert_eq(selftest_sched_parse("weekly Sun 02:00 short, monthly 1 03:00 extended", v, &n,
					  err),
		     0, "%s", err);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		selftest_sched_due(v, n, at(t[i].from), at(t[i].to), 0, due);
		cr_expect_eq(due[SELFTEST_SCHED_SHORT], t[i].s, "%s: short", t[i].rule);
		cr_expect_eq(due[SELFTEST_SCHED_EXTENDED], t[i].e, "%s: extended", t[i].rule);
	}
	/* Local time: 02:00 at UTC+2 is 00:00Z. */
	selftest_sched_due(v, n, at("2026-11-28T23:59:00Z"), at("2026-11-29T00:00:00Z"), 7200, due);
	cr_expect(due[SELFTEST_SCHED_SHORT], "02:00 local at UTC+2");
}
