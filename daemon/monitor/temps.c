/* SPDX-License-Identifier: MIT */
/*
 * The sensors 1-8 of each sample judged with the drive's configuration and its
 * own thresholds. See temps.h.
 */
#include <string.h>

#include "nvmond/monitor/temps.h"

void temps_cfg_for(const struct cfg *c, const struct temps_drive *d, struct sensors_cfg *ret)
{
	struct cfg_device cd;

	cfg_device_for(c, d->model, d->serial, &cd);
	*ret = (struct sensors_cfg){.sensor_alerts = cd.sensor_alerts};
	for (int i = 0; i < SMART_NUM_SENSORS; i++) {
		/* °C as the operator writes it; drives report whole Kelvin (K - 273). */
		ret->config_limit_k[i] =
			cd.sensor_limit_c[i] ? (uint16_t)(cd.sensor_limit_c[i] + 273) : 0;
		ret->drive_limit_k[i] = d->drive_limit_k ? d->drive_limit_k[i] : 0;
	}
}

void temps_judge(const struct cfg *c, const struct temps_drive *d,
		 struct sensor_hist hist[SMART_NUM_SENSORS], const struct smart_log *s,
		 int64_t now_ms, struct fleet_temps *ret)
{
	struct sensors_cfg sc;
	struct sensors_in in = sensors_in_of(s, d->wctemp_k, d->cctemp_k);

	temps_cfg_for(c, d, &sc);
	*ret = (struct fleet_temps){.judged = true};
	if (d->drive_limit_k)
		memcpy(ret->drive_limit_k, d->drive_limit_k, sizeof(ret->drive_limit_k));
	sensors_judge(hist, &in, &sc, now_ms, &ret->v);
}

uint8_t temps_reported(const struct smart_log *s)
{
	uint8_t m = 0;

	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		if (s->temp_sensor_k[i])
			m |= (uint8_t)(1u << i);
	return m;
}
