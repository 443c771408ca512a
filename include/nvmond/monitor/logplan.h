/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/decode/ocp.h"
#include "nvmond/decode/smart.h"

/*
 * When the poller reads and stores what a drive knows beyond its health log
 * (issue 27): pure decisions on the last reads and an explicit @now, so that
 * "read no more often than needed" is table-tested.
 */

/* C0h rows are stored at least this often while they come, changed or not. */
#define LOGPLAN_OCP_STORE_EVERY_MS (3600 * 1000LL)

/**
 * logplan_ocp_store() - Whether a C0h read @cur at @now_ms makes a row, the
 * last stored being @prev at @prev_ms (@prev NULL: none yet): any field but
 * the two physical media counters changed, or an hour passed.
 */
bool logplan_ocp_store(const struct ocp_log *prev, int64_t prev_ms, const struct ocp_log *cur,
		       int64_t now_ms);

/**
 * logplan_pel_trigger() - Whether the health log moved in a way the
 * Persistent Event Log records (a power cycle, an unsafe shutdown, time over
 * a temperature threshold, a thermal management transition, a critical
 * warning bit, a media error): then its events are looked at in this poll
 * rather than at its interval. @prev NULL (the first read of a run): true.
 */
bool logplan_pel_trigger(const struct smart_log *prev, const struct smart_log *cur);

/**
 * logplan_watch_since() - When nvmond started watching a drive without a gap:
 * @since as it was, unless the last poll (@last_ms, 0 = none) is more than
 * @gap_ms before @now_ms, then @now_ms.
 */
int64_t logplan_watch_since(int64_t since, int64_t last_ms, int64_t now_ms, int64_t gap_ms);

/**
 * logplan_pel_late() - Whether an event is shown late: its time is unknown
 * (the drive's clock counted from a reset), or it is older than @watch_since
 * and nvmond's history has no poll of the drive around it (@watched: the
 * store's answer, store_watched_at()).
 */
bool logplan_pel_late(bool time_known, int64_t ts_ms, int64_t watch_since, bool watched);

/** logplan_gap_ms() - A gap in polling: three poll intervals, at least 30 s (as the alerts'). */
int64_t logplan_gap_ms(int64_t poll_interval_ms);
