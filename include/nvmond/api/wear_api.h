/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/core/mainq.h"
#include "nvmond/analysis/wear.h"

#define WEAR_DAILY_DAYS 30

/* What the wear endpoint needs; it must outlive the api. */
struct wear_source {
	struct mainq *mainq;   /* the rating is looked up on the main loop */
	const struct cfg *cfg; /* the running configuration (main loop only) */
};

/**
 * wear_report_for() - The wear report of @d from the store @s: its whole history
 * and its probe runs, with @rated_bytes from the configuration (0 = the built-in
 * table). @daily (@days entries) gets the bytes written per day when not NULL.
 * Return: 0, -ENODATA when the device has no sample yet, or negative errno.
 */
int wear_report_for(struct store *s, const struct fleet_device *d, uint64_t rated_bytes,
		    int64_t now_ms, struct wear_report *ret, u128 *daily, size_t days);

/** wear_endpoint() - GET /api/v1/devices/{id}/wear. */
struct api_endpoint wear_endpoint(const struct wear_source *src);
