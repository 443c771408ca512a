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

/* rw_round.h rw_round_next(): a round that went early keeps the tick's schedule (a 25 s
 * interval, a 10 s poll: due at 25 s, went with the poll at 20 s, the next one is due at
 * 50 s, not 45 s, where it would go with the poll at 40 s: every 20 s). */
Test(rw_round, an_early_round_keeps_the_schedule)
{
	cr_expect_eq(rw_round_next(25000, 20000, 25000), 50000);
}

/* rw_round_next(): a round that went late (a poll just after its tick, or none) counts
 * from its start, so that it follows that poll next time too. */
Test(rw_round, a_late_round_counts_from_its_start)
{
	cr_expect_eq(rw_round_next(25000, 25300, 25000), 50300);
	cr_expect_eq(rw_round_next(25000, 25000, 25000), 50000);
}

/* Rounds 25 s apart on average with polls every 10 s ending 50 ms after their timer:
 * each round goes with the first poll to end in its window (a poll's end at or after
 * from_ms starts it; none by by_ms: it goes then). */
Test(rw_round, an_interval_not_a_multiple_of_the_polls_is_kept_on_average)
{
	int64_t tick = 0, first = -1, last = 0;
	int n = 0;

	for (int r = 0; r < 40; r++) {
		struct rw_round_window w;
		int64_t at;

		rw_round_window(tick, 25000, 10000, &w);
		at = w.by_ms;
		for (int64_t p = 50; p < 2000000; p += 10000)
			if (p >= w.from_ms) {
				if (p <= w.by_ms)
					at = p;
				break;
			}
		if (first < 0)
			first = at;
		last = at;
		n++;
		tick = rw_round_next(tick, at, 25000);
	}
	/* 39 intervals: 975 s, give or take one poll's offset. */
	cr_expect_geq(last - first, 975000 - 10000, "%lld ms for 39 intervals",
		      (long long)(last - first));
	cr_expect_leq(last - first, 975000 + 10000, "%lld ms for 39 intervals",
		      (long long)(last - first));
}
