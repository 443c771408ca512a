/* SPDX-License-Identifier: MIT */
/*
 * When an export's round goes (rw_round.h): with the poll that ends nearest
 * its tick, from a quarter interval before it (half a poll interval at most),
 * waiting for one a quarter interval after it (RW_ROUND_LATE_MAX_MS at most).
 */
#include <criterion/criterion.h>

#include "nvmond/export/rw_round.h"

static struct rw_round_window win(int64_t tick, int64_t interval, int64_t poll)
{
	struct rw_round_window w;

	rw_round_window(tick, interval, poll, &w);
	return w;
}

/* rw_round.h: an interval equal to the poll's: a quarter of it either side (2 s of 8 s). */
Test(rw_round, an_interval_of_one_poll_takes_a_quarter_either_side)
{
	struct rw_round_window w = win(100000, 800, 800);

	cr_expect_eq(w.from_ms, 100000 - 200);
	cr_expect_eq(w.by_ms, 100000 + 200);
}

/* rw_round.h: early by half a poll interval at most, so that the poll before the one
 * nearest the tick never starts it (a 60 s interval, a 2 s poll: 1 s early). */
Test(rw_round, early_by_half_a_poll_at_most)
{
	struct rw_round_window w = win(100000, 60000, 2000);

	cr_expect_eq(w.from_ms, 100000 - 1000);
}

/* rw_round.h: late by RW_ROUND_LATE_MAX_MS at most, whatever the interval (1 h). */
Test(rw_round, late_by_the_cap_at_most)
{
	struct rw_round_window w = win(10000000, 3600000, 3600000);

	cr_expect_eq(w.by_ms, 10000000 + RW_ROUND_LATE_MAX_MS);
	cr_expect_eq(w.from_ms, 10000000 - 900000);
}

/* rw_round.h: below the cap, a quarter interval late (a 2 s interval: 500 ms). */
Test(rw_round, late_by_a_quarter_below_the_cap)
{
	struct rw_round_window w = win(5000, 2000, 10000);

	cr_expect_eq(w.by_ms, 5000 + 500);
	cr_expect_eq(w.from_ms, 5000 - 500);
}

/* The bounds themselves: exactly half a poll, exactly the cap (4 s interval: 1000 ms late). */
Test(rw_round, the_bounds_themselves)
{
	struct rw_round_window w = win(50000, 4000, 2000);

	cr_expect_eq(w.from_ms, 50000 - 1000);
	cr_expect_eq(w.by_ms, 50000 + 1000);
}

/* rw_round.h: a quarter interval between half a poll and a whole one (6 s, a 2 s poll):
 * still half a poll early at most (1000 ms, not 1500). */
Test(rw_round, early_by_half_a_poll_even_below_a_whole_poll)
{
	struct rw_round_window w = win(100000, 6000, 2000);

	cr_expect_eq(w.from_ms, 100000 - 1000);
}

/* rw_round.h: a quarter interval just over the cap (8 s: 2000 ms): late by the cap. */
Test(rw_round, late_by_the_cap_just_over_it)
{
	struct rw_round_window w = win(100000, 8000, 8000);

	cr_expect_eq(w.by_ms, 100000 + RW_ROUND_LATE_MAX_MS);
	cr_expect_eq(w.from_ms, 100000 - 2000);
}
