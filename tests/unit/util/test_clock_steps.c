/* SPDX-License-Identifier: MIT */
/*
 * The samples' clock under wall-clock steps (timefmt.h, timefmt_steady_ms): "the
 * wall clock as long as it is not behind the last time given; after a step back,
 * the last time plus the monotonic time since, until the wall clock catches up; a
 * step forward is taken as it comes". And durations never negative
 * (timefmt_span_ms). Issue 15 §6: a step back of 1 h and forward of 1 day.
 */
#include <criterion/criterion.h>

#include "nvmond/util/timefmt.h"

#define H (3600 * 1000LL)
#define D (24 * H)

/* One poll every second: wall clock and monotonic clock as given, the time expected. */
struct step {
	int64_t wall, mono, want;
};

static void run(const struct step *v, size_t n)
{
	struct timefmt_steady st = {0};
	int64_t prev = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t t = timefmt_steady_ms(&st, v[i].wall, v[i].mono);
		cr_assert_eq(t, v[i].want, "poll %zu: wall %lld mono %lld: got %lld, want %lld", i,
			     (long long)v[i].wall, (long long)v[i].mono, (long long)t,
			     (long long)v[i].want);
		cr_assert_geq(t, prev, "poll %zu went backwards", i);
		prev = t;
	}
}

Test(clock_steps, steady_wall_clock_is_taken_as_is)
{
	const int64_t T = 1800000000000LL;
	const struct step v[] = {
		{T, 10, T}, {T + 1000, 1010, T + 1000}, {T + 2000, 2010, T + 2000}};
	run(v, sizeof(v) / sizeof(v[0]));
}

/* At mono m after a step back of an hour at mono 2000, the wall clock shows T + m - H. */
Test(clock_steps, step_back_one_hour_slews_at_half_speed_until_caught_up)
{
	const int64_t T = 1800000000000LL;
	const struct step v[] = {
		{T, 0, T},
		{T + 1000, 1000, T + 1000},
		{T + 2000 - H, 2000, T + 1500}, /* stepped back: half of the 1 s since */
		{T + 3000 - H, 3000, T + 2000},
		{T + H - H, H, T + 2000 + (H - 3000) / 2}, /* an hour on: still behind */
		{T + H / 2, H + H / 2, T + 2000 + (H + H / 2 - 3000) / 2},
		/* Polled 2 h after the step, the wall clock is past the last time given. */
		{T + 2 * H - H, 2 * H, T + H},
		{T + 2 * H + 1000 - H, 2 * H + 1000, T + H + 1000},
	};
	run(v, sizeof(v) / sizeof(v[0]));
}

Test(clock_steps, step_forward_one_day_is_taken_once_then_steady)
{
	const int64_t T = 1800000000000LL;
	const struct step v[] = {
		{T, 0, T},
		{T + 1000 + D, 1000, T + 1000 + D}, /* a gap of a day in the series, no more */
		{T + 2000 + D, 2000, T + 2000 + D},
	};
	run(v, sizeof(v) / sizeof(v[0]));
}

Test(clock_steps, monotonic_time_never_counts_backwards)
{
	struct timefmt_steady st = {.last_ms = 5000, .last_mono_ms = 100};

	/* A bogus earlier monotonic reading: hold the last time rather than go back. */
	cr_assert_eq(timefmt_steady_ms(&st, 1000, 50), 5000);
}

Test(clock_steps, spans_are_never_negative)
{
	cr_assert_eq(timefmt_span_ms(1000, 4000), 3000);
	cr_assert_eq(timefmt_span_ms(4000, 1000), 0, "a step back: 0, not -3 s");
	cr_assert_eq(timefmt_span_ms(1000, 1000), 0);
}
