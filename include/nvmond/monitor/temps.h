/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "nvmond/analysis/sensors.h"
#include "nvmond/core/cfg.h"
#include "nvmond/monitor/fleet.h"

/*
 * The temperature sensors 1-8 judged on each sample, between the
 * configuration, the drive and the pure judge (analysis/sensors.h). The
 * poller keeps each drive's sensor history on the main loop and puts the
 * verdict into the fleet, where the API, `status`, /metrics and the alerts
 * read it; `nvmond status` judges one sample with an empty history.
 */

/* One drive as the judge needs it. */
struct temps_drive {
	const char *model, *serial;    /* for its [device] section */
	uint16_t wctemp_k, cctemp_k;   /* Identify Controller; 0 = not reported */
	const uint16_t *drive_limit_k; /* [SMART_NUM_SENSORS]: Get Features 04h; NULL = none */
};

/**
 * temps_cfg_for() - What the configuration says about @d's sensors:
 * sensor_alerts ([device], else [alerts]), sensor_limit_N in K, and the drive's
 * own thresholds.
 */
void temps_cfg_for(const struct cfg *c, const struct temps_drive *d, struct sensors_cfg *ret);

/**
 * temps_judge() - Judge the sensors of @s (read at @now_ms) for @d, updating
 * the drive's @hist (zero-initialised at first; kept by the caller).
 */
void temps_judge(const struct cfg *c, const struct temps_drive *d,
		 struct sensor_hist hist[SMART_NUM_SENSORS], const struct smart_log *s,
		 int64_t now_ms, struct fleet_temps *ret);

/** temps_reported() - The sensors @s reports: bit N-1 for sensor N. */
uint8_t temps_reported(const struct smart_log *s);
