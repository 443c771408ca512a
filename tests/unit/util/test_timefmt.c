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
