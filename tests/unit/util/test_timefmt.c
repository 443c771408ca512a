/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>

#include "nvmond/util/timefmt.h"

Test(timefmt, parses_rfc3339_and_ms)
{
	const struct {
		const char *in;
		int64_t ms;
	} cases[] = {
		{"1970-01-01T00:00:00Z", 0},
		{"2026-11-30T02:19:20Z", 1796005160000},
		{"2026-11-30T02:19:20.123Z", 1796005160123},
		{"2026-11-30T02:19:20.1Z", 1796005160100},
		{"2026-11-30T02:19:20.123456789Z", 1796005160123},
		{"2026-11-30T03:19:20+01:00", 1796005160000},
		{"2026-11-29T21:19:20-05:00", 1796005160000},
		{"2024-02-29T00:00:00z", 1709164800000},
		{"2026-11-30 02:19:20Z", 1796005160000},
		{"1796005160000", 1796005160000},
		/* Gregorian leap years: every 400th century year is one. */
		{"2000-02-29T00:00:00Z", 951782400000},
		/* RFC 3339 5.7: second 60 is a leap second, folded into the next second. */
		{"2016-12-31T23:59:60Z", 1483228800000},
		{"0", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ms = -1;
		cr_expect_eq(timefmt_parse(cases[i].in, &ms), 0, "%s", cases[i].in);
		cr_expect_eq(ms, cases[i].ms, "%s: %lld", cases[i].in, (long long)ms);
	}
}

Test(timefmt, rejects_bad_times)
{
	const char *bad[] = {
		"",
		"now",
		"2026-11-30",
		"2026-11-30T02:19:20", /* no zone */
		"2026-13-01T00:00:00Z",
		"2026-02-29T00:00:00Z",
		"2026-11-31T00:00:00Z",
		"2100-02-29T00:00:00Z", /* Gregorian: a century year not divisible by 400 */
		"2026-04-31T00:00:00Z", /* April has 30 days */
		"2026-11-30T24:00:00Z",
		"2026-11-30T02:60:00Z",
		"2026-11-30T02:19:20.Z",
		"2026-11-30T02:19:20+0100",
		"2026-11-30T02:19:20Zjunk",
		"12x",
		"1e3",
		"99999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ms = 42;
		cr_expect_eq(timefmt_parse(bad[i], &ms), -EINVAL, "'%s'", bad[i]);
		cr_expect_eq(ms, 42);
	}
}

Test(timefmt, formats_utc_with_ms)
{
	char buf[TIMEFMT_MAX];

	cr_expect_str_eq(timefmt_rfc3339(0, buf), "1970-01-01T00:00:00.000Z");
	cr_expect_str_eq(timefmt_rfc3339(1796005160123, buf), "2026-11-30T02:19:20.123Z");
	cr_expect_str_eq(timefmt_rfc3339(-1, buf), "1969-12-31T23:59:59.999Z");
	int64_t back;
	cr_assert_eq(timefmt_parse(timefmt_rfc3339(1709164800007, buf), &back), 0);
	cr_expect_eq(back, 1709164800007);
}

/*
 * timefmt.h: times are the years 0000 to 9999 (what RFC 3339 writes), refused
 * outside with -ERANGE in timefmt_parse(), the one place times are parsed
 * (issue 15: samples?from=-9223372036854775808 overflowed in the formatting,
 * events?to=-9223372036854775000 in the default from = to - 7 d, and
 * samples?to=253402300800000 was written as year 0000).
 */
Test(timefmt, refuses_times_outside_years_0000_to_9999)
{
	const struct {
		const char *in;
		int r;
		int64_t ms;
	} cases[] = {
		{"-62167219200000", 0, TIMEFMT_MIN_MS},
		{"0000-01-01T00:00:00Z", 0, TIMEFMT_MIN_MS},
		{"253402300799999", 0, TIMEFMT_MAX_MS},
		{"9999-12-31T23:59:59.999Z", 0, TIMEFMT_MAX_MS},
		{"-62167219200001", -ERANGE, 0},
		{"253402300800000", -ERANGE, 0},
		{"-9223372036854775808", -ERANGE, 0},
		{"-9223372036854775000", -ERANGE, 0},
		{"9223372036854775807", -ERANGE, 0},
		/* An offset moves a written year out of the range. */
		{"0000-01-01T00:00:00+00:01", -ERANGE, 0},
		{"9999-12-31T23:59:59-00:01", -ERANGE, 0},
		{"0000-01-01T00:00:00-00:01", 0, TIMEFMT_MIN_MS + 60000},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ms = 42;
		cr_expect_eq(timefmt_parse(cases[i].in, &ms), cases[i].r, "%s", cases[i].in);
		cr_expect_eq(ms, cases[i].r ? 42 : cases[i].ms, "%s: %lld", cases[i].in,
			     (long long)ms);
	}
}

/* Formatting is defined for every int64: outside the range, the nearest bound. */
Test(timefmt, formats_any_int64_within_the_range)
{
	char buf[TIMEFMT_MAX];

	cr_expect_str_eq(timefmt_rfc3339(TIMEFMT_MIN_MS, buf), "0000-01-01T00:00:00.000Z");
	cr_expect_str_eq(timefmt_rfc3339(TIMEFMT_MAX_MS, buf), "9999-12-31T23:59:59.999Z");
	cr_expect_str_eq(timefmt_rfc3339(INT64_MIN, buf), "0000-01-01T00:00:00.000Z");
	cr_expect_str_eq(timefmt_rfc3339(INT64_MAX, buf), "9999-12-31T23:59:59.999Z");
	cr_expect_str_eq(timefmt_rfc3339(TIMEFMT_MAX_MS + 1, buf), "9999-12-31T23:59:59.999Z");
	cr_expect_str_eq(timefmt_rfc3339(TIMEFMT_MIN_MS - 1, buf), "0000-01-01T00:00:00.000Z");
}
