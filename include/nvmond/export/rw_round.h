/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * When an export's round goes (docs/architecture.md#idle-wakeups): with the
 * poll round that ends nearest its tick, whose wakeup the daemon has anyway,
 * rather than at a time of its own. Its share of the main loop's work (the
 * live part's counters, its cursors) is then done in that wakeup, and an idle
 * daemon with an export wakes once per poll, not at the poll and again at the
 * export's tick. Pure.
 */
struct rw_round_window {
	int64_t from_ms; /* a poll's round ending from then on starts it */
	int64_t by_ms;	 /* without one, it goes by itself then */
};

/* A poll's answers come a little after its timer: a round waits this long at most for them. */
#define RW_ROUND_LATE_MAX_MS 1000

/**
 * rw_round_window() - The window of the round due at @tick_ms (monotonic) of
 * an export pushing every @interval_ms, polls every @poll_ms: it follows a poll
 * that ends up to a quarter interval before the tick, or half a poll interval,
 * whichever is less (so that an interval a multiple of the poll's keeps its
 * length); it waits for one up to a quarter interval after, and
 * RW_ROUND_LATE_MAX_MS at most (an interval that is not a multiple of the
 * poll's is then kept, give or take that).
 */
void rw_round_window(int64_t tick_ms, int64_t interval_ms, int64_t poll_ms,
		     struct rw_round_window *ret);

/**
 * rw_round_next() - The tick after the round due at @tick_ms that started at
 * @started_ms (monotonic): @interval_ms after the tick when the round went
 * early (with a poll before it), so that an interval that is not a multiple of
 * the poll's keeps its length on average (25 s with a 10 s poll: rounds 20 s
 * and 30 s apart, not every 20 s); after its start when it went late (a poll
 * after the tick, or none), so that the next round follows the same poll
 * again, and a round with no poll near moves on until one is.
 */
int64_t rw_round_next(int64_t tick_ms, int64_t started_ms, int64_t interval_ms);
