/* SPDX-License-Identifier: MIT */
/* When an export's round goes (rw_round.h). Pure. */
#include "nvmond/export/rw_round.h"

void rw_round_window(int64_t tick_ms, int64_t interval_ms, int64_t poll_ms,
		     struct rw_round_window *ret)
{
	int64_t early = interval_ms / 4, late = interval_ms / 4;

	if (early > poll_ms / 2)
		early = poll_ms / 2;
	if (late > RW_ROUND_LATE_MAX_MS)
		late = RW_ROUND_LATE_MAX_MS;
	ret->from_ms = tick_ms - early;
	ret->by_ms = tick_ms + late;
}

int64_t rw_round_next(int64_t tick_ms, int64_t started_ms, int64_t interval_ms)
{
	return (started_ms > tick_ms ? started_ms : tick_ms) + interval_ms;
}
