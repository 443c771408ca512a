/* SPDX-License-Identifier: MIT */
#include "nvmond/analysis/sensors.h"

/* An over-temperature threshold the drive reports for a sensor, or 0: FFFFh is
 * what an unset threshold reads (the maximum), 0 is no answer. */
static uint16_t drive_limit(uint16_t k)
{
	return k == 0xffff ? 0 : k;
}

/* Fold this sample into one sensor's history. */
static void hist_update(struct sensor_hist *h, uint16_t sensor_k, uint16_t composite_k,
			int64_t now_ms)
{
	if (sensor_k == 0) {
		*h = (struct sensor_hist){0};
		return;
	}
	if (h->last_k != sensor_k) {
		*h = (struct sensor_hist){
			.last_k = sensor_k,
			.since_ms = now_ms,
			.comp_min_k = composite_k,
			.comp_max_k = composite_k,
		};
		return;
	}
	if (composite_k == 0)
		return;
	if (h->comp_min_k == 0 || composite_k < h->comp_min_k)
		h->comp_min_k = composite_k;
	if (composite_k > h->comp_max_k)
		h->comp_max_k = composite_k;
}

static enum sensor_implausible implausible(const struct sensor_hist *h, uint16_t sensor_k,
					   const struct sensors_in *in, int64_t now_ms)
{
	if (h->last_k == sensor_k && h->comp_min_k != 0 &&
	    now_ms - h->since_ms >= SENSORS_STUCK_MS &&
	    h->comp_max_k - h->comp_min_k >= SENSORS_STUCK_DELTA_K)
		return SENSOR_STUCK;
	if (in->cctemp_k != 0 && in->wctemp_k != 0 && in->composite_k != 0 &&
	    in->composite_k < in->wctemp_k && sensor_k >= in->cctemp_k + SENSORS_BEYOND_CCTEMP_K)
		return SENSOR_BEYOND_CCTEMP;
	return SENSOR_PLAUSIBLE;
}

static void limit_of(const struct sensors_cfg *c, int i, uint16_t wctemp_k,
		     enum sensor_limit_src *ret_src, uint16_t *ret_k)
{
	if (c->config_limit_k[i] != 0) {
		*ret_src = SENSOR_LIMIT_CONFIG;
		*ret_k = c->config_limit_k[i];
	} else if (c->sensor_alerts && drive_limit(c->drive_limit_k[i]) != 0) {
		*ret_src = SENSOR_LIMIT_DRIVE;
		*ret_k = drive_limit(c->drive_limit_k[i]);
	} else if (c->sensor_alerts && wctemp_k != 0) {
		*ret_src = SENSOR_LIMIT_WCTEMP;
		*ret_k = wctemp_k;
	} else {
		*ret_src = SENSOR_LIMIT_NONE;
		*ret_k = 0;
	}
}

void sensors_judge(struct sensor_hist hist[SMART_NUM_SENSORS], const struct sensors_in *in,
		   const struct sensors_cfg *c, int64_t now_ms, struct sensors_verdict *ret)
{
	bool comp = in->composite_k != 0;

	*ret = (struct sensors_verdict){
		.composite_over_wctemp =
			comp && in->wctemp_k != 0 && in->composite_k >= in->wctemp_k,
		.composite_over_cctemp =
			comp && in->cctemp_k != 0 && in->composite_k >= in->cctemp_k,
	};
	for (int i = 0; i < SMART_NUM_SENSORS; i++) {
		struct sensor_verdict *v = &ret->sensor[i];
		uint16_t t = in->sensor_k[i];

		hist_update(&hist[i], t, in->composite_k, now_ms);
		if (t == 0)
			continue;
		v->reported = true;
		v->note = comp && in->wctemp_k != 0 && t >= in->wctemp_k &&
			  in->composite_k < in->wctemp_k;
		v->implausible = implausible(&hist[i], t, in, now_ms);
		limit_of(c, i, in->wctemp_k, &v->limit_src, &v->limit_k);
		v->may_alert =
			v->limit_src != SENSOR_LIMIT_NONE && v->implausible == SENSOR_PLAUSIBLE;
		v->over_limit = v->may_alert && t >= v->limit_k;
	}
}

struct sensors_in sensors_in_of(const struct smart_log *s, uint16_t wctemp_k, uint16_t cctemp_k)
{
	struct sensors_in in = {
		.composite_k = s->temperature_k,
		.wctemp_k = wctemp_k,
		.cctemp_k = cctemp_k,
	};

	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		in.sensor_k[i] = s->temp_sensor_k[i];
	return in;
}

const char *sensor_implausible_name(enum sensor_implausible v)
{
	switch (v) {
	case SENSOR_PLAUSIBLE:
		return "plausible";
	case SENSOR_STUCK:
		return "stuck";
	case SENSOR_BEYOND_CCTEMP:
		return "beyond_cctemp";
	}
	return "unknown";
}

const char *sensor_limit_src_name(enum sensor_limit_src s)
{
	switch (s) {
	case SENSOR_LIMIT_NONE:
		return "none";
	case SENSOR_LIMIT_CONFIG:
		return "config";
	case SENSOR_LIMIT_DRIVE:
		return "drive";
	case SENSOR_LIMIT_WCTEMP:
		return "wctemp";
	}
	return "unknown";
}
