/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/dev.h"
#include "nvmond/store/store_rollup.h"

struct store;

#define DEMO_BACKFILL_SEED 0x6e766d6f6e64ULL /* "nvmond" */

struct demo_backfill_stats {
	size_t drives, samples, events, alerts, runs, errors, selftests;
	size_t logs; /* issue 27: C0h and power rows */
};

/**
 * demo_backfill() - A year of history for every drive of the demo backend @b
 * (demo_year.h), when the database holds no sample yet: devices, samples,
 * throttle events, resolved alerts, probe runs, error log entries (with where
 * the log was read), firmware and link history, self-test results go in through the store's own
 * functions, then store_rollup_step() builds the rollups (and prunes what
 * is older than @rc keeps) as the rollup timer would. Run it on the main
 * thread before polling starts.
 * @ret: what was stored (all zero when the database already had samples)
 * Return: 0, or negative errno (store_strerror() of @s may tell more).
 */
int demo_backfill(struct store *s, struct dev_backend *b, const struct store_rollup_cfg *rc,
		  int64_t now_ms, struct demo_backfill_stats *ret);
