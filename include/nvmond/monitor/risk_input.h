/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/risk.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/store/store.h"

/*
 * The risk rules' inputs (analysis/risk.h) for one drive: its latest
 * sample and logs from the fleet, its windows of history from the store. The
 * risk monitor gathers them on the main loop; `nvmond status` with its
 * read-only handle.
 */

/* Hourly spare points the fit may take (30 days and some). */
#define RISK_SPARE_POINTS_MAX (RISK_SPARE_FIT_DAYS * 24 + 48)

struct risk_gathered {
	struct risk_input in;
	struct risk_spare_point spare[RISK_SPARE_POINTS_MAX];
	char neighbour[96];
};

/* Where each window starts at @now (pure). */
struct risk_windows {
	int64_t errors_from, spare_from, blocks_from, hw_from;
};

/** risk_windows() - The windows of the rules at @now_ms. */
struct risk_windows risk_windows(int64_t now_ms);

/**
 * risk_gather() - Everything the rules look at for drive @d at @now_ms:
 * the smart fields of its latest sample (when it came from the health log),
 * its C0h counters, and from @s the spare's hourly rollups, the media/io
 * error log entries, the health log's media errors and the C0h counters at
 * the start of each window, the hardware error events. @neighbours other
 * drives of the host are replace_soon or failed, @neighbour one of them.
 * Return: 0, or negative errno of a store read (the input is then not usable).
 */
int risk_gather(struct store *s, const struct fleet_device *d, unsigned neighbours,
		const char *neighbour, int64_t now_ms, struct risk_gathered *ret);

/**
 * risk_refresh_now() - Update the parts of @g that change with every read
 * (the health log, the C0h counters, the neighbours) from @d, keeping the
 * history's windows as gathered. The input points into @g.
 */
void risk_refresh_now(struct risk_gathered *g, const struct fleet_device *d, unsigned neighbours,
		      const char *neighbour, int64_t now_ms);
