/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/health.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/store/store_alert.h"

/*
 * A drive's health (analysis/health.h) from what the fleet holds of it: the one
 * place its inputs are gathered, for the API (so the dashboard), `nvmond status`
 * and /metrics alike.
 */

/**
 * fleet_health() - Judge @d: online and unresponsive from its row and facts, the
 * latest sample's health log (a hwmon sample gives the temperature only), WCTEMP
 * and CCTEMP from Identify, the share of its rated endurance written
 * (wear_alert_level_of() of the latest sample against the configured rating, else
 * the built-in table's) and its firing alerts.
 */
void fleet_health(const struct fleet_device *d, struct health_verdict *ret);

/**
 * fleet_alerts_from_rows() - The alerts of @device_id among @v (the store's
 * firing alerts, store_alerts_list(), newest first) into @ret, in that order;
 * more than FLEET_ALERTS_MAX: the newest.
 */
void fleet_alerts_from_rows(const struct alert_row *v, size_t n, int64_t device_id,
			    struct fleet_alerts *ret);
