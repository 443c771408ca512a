/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/decode/smart.h"

/*
 * The temperature sensors 1-8 of the health log, judged the way the NVMe
 * specification defines the thresholds: WCTEMP and CCTEMP apply to the
 * Composite Temperature only (NVMe Base 2.0, Figure 275). A sensor is a
 * reading, not a verdict: some drives report values in them that are not die
 * temperatures (one shows Sensor 2 stuck at 355 K while its WCTEMP is 348 K).
 * So a sensor above WCTEMP is a note on the drive, it alerts only when the
 * operator asks (sensor_alerts, or a limit of its own), and never when it
 * looks implausible.
 *
 * Pure: the caller passes the readings, the thresholds, the configuration, an
 * explicit @now_ms and each sensor's small history, which it keeps (and may
 * persist) between samples. Temperatures are in Kelvin; 0 K = not reported.
 */

/* A sensor unchanged this long while the composite moved SENSORS_STUCK_DELTA_K
 * or more is stuck. */
#define SENSORS_STUCK_MS      (6LL * 3600 * 1000)
#define SENSORS_STUCK_DELTA_K 5
/* A sensor this far above CCTEMP while the composite is below WCTEMP is not a
 * temperature the drive could survive running at. */
#define SENSORS_BEYOND_CCTEMP_K 15

/* One sensor's history: zero-initialise it (no history yet). */
struct sensor_hist {
	uint16_t last_k;		 /* the value last seen; 0 = none */
	int64_t since_ms;		 /* when the sensor took that value */
	uint16_t comp_min_k, comp_max_k; /* the composite's range since then; 0 = none */
};

/* Where a sensor's alert limit comes from. */
enum sensor_limit_src {
	SENSOR_LIMIT_NONE,   /* the sensor may not alert */
	SENSOR_LIMIT_CONFIG, /* [device] sensor_limit_N */
	SENSOR_LIMIT_DRIVE,  /* the drive's over-temperature threshold (Get Features 04h) */
	SENSOR_LIMIT_WCTEMP, /* sensor_alerts = yes and nothing more specific */
};

/* What the operator and the drive say about sensor alerts. */
struct sensors_cfg {
	bool sensor_alerts;			    /* [device] sensor_alerts = yes */
	uint16_t config_limit_k[SMART_NUM_SENSORS]; /* sensor_limit_N; 0 = none */
	/* The drive's over-temperature threshold of each sensor (Get Features 04h,
	 * THSEL 0, TMPSEL N); 0 or FFFFh (the value of an unset threshold) = none.
	 * Used only when sensor_alerts is on. */
	uint16_t drive_limit_k[SMART_NUM_SENSORS];
};

/* One sample of a drive's temperatures. */
struct sensors_in {
	uint16_t composite_k;
	uint16_t sensor_k[SMART_NUM_SENSORS]; /* 0 = not reported */
	uint16_t wctemp_k, cctemp_k;	      /* Identify Controller; 0 = not reported */
};

enum sensor_implausible {
	SENSOR_PLAUSIBLE,
	SENSOR_STUCK,	      /* unchanged ≥ 6 h while the composite moved ≥ 5 °C */
	SENSOR_BEYOND_CCTEMP, /* ≥ CCTEMP + 15 °C while the composite is below WCTEMP */
};

/* The verdict on one sensor. */
struct sensor_verdict {
	bool reported;
	/* At or above WCTEMP while the composite is below it: shown, not an alert. */
	bool note;
	enum sensor_implausible implausible;
	bool may_alert; /* the configuration lets it alert and it is plausible */
	enum sensor_limit_src limit_src;
	uint16_t limit_k; /* the limit when a source gives one, else 0 */
	bool over_limit;  /* may_alert and at or above its limit */
};

struct sensors_verdict {
	/* The composite against the drive's thresholds (the spec's own use of them). */
	bool composite_over_wctemp, composite_over_cctemp;
	struct sensor_verdict sensor[SMART_NUM_SENSORS];
};

/**
 * sensors_judge() - Update each sensor's history with this sample and judge it.
 * @hist:  the drive's sensor histories, updated (a sensor that changed value or
 *         stopped reporting starts a new history)
 * @in:    this sample
 * @c:     the configuration and the drive's own thresholds
 * @now_ms: when the sample was read
 * @ret:   the verdicts
 *
 * Thresholds are inclusive: a value equal to WCTEMP or a limit is at it.
 * Implausible sensors never alert; the stuck rule needs the composite reported.
 */
void sensors_judge(struct sensor_hist hist[SMART_NUM_SENSORS], const struct sensors_in *in,
		   const struct sensors_cfg *c, int64_t now_ms, struct sensors_verdict *ret);

/** sensors_in_of() - The temperatures of a decoded health log and the drive's thresholds. */
struct sensors_in sensors_in_of(const struct smart_log *s, uint16_t wctemp_k, uint16_t cctemp_k);

/** sensor_implausible_name() - "plausible", "stuck", "beyond_cctemp". Return: static string. */
const char *sensor_implausible_name(enum sensor_implausible v);

/** sensor_limit_src_name() - "none", "config", "drive", "wctemp". Return: static string. */
const char *sensor_limit_src_name(enum sensor_limit_src s);
