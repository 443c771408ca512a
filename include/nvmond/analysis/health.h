/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/alert.h"

/*
 * A drive's health: ok, warning, critical, offline or unknown, with its reasons
 * in words. One rule for every place that shows it (docs/dashboard.md#health):
 * the API's "health" of each drive (so the dashboard's cards, table, drive page
 * and "problems first"), `nvmond status` and /metrics' nvmond_device_health.
 * Pure: the caller gathers the inputs (monitor/fleet_health.h from the fleet).
 */
enum health_state {
	HEALTH_OK,
	HEALTH_WARNING,
	HEALTH_CRITICAL,
	HEALTH_OFFLINE,
	HEALTH_UNKNOWN, /* no sample of the drive yet */
	_HEALTH_STATE_MAX,
};

/* Percentage Used (the drive's own estimate of its life used) that warns / is critical. */
#define HEALTH_USED_WARNING  80
#define HEALTH_USED_CRITICAL 100
/* Share of the rated endurance written (wear_alert_level(), percent) that warns / is critical. */
#define HEALTH_TBW_WARNING  80
#define HEALTH_TBW_CRITICAL 100

/* An alert firing on the drive. */
struct health_alert {
	enum alert_severity severity;
	const char *rule;    /* its name: the reason when the message is empty */
	const char *message; /* what it says (may be empty) */
};

struct health_input {
	bool online;	   /* false: the drive is offline (not seen now) */
	bool unresponsive; /* a command to it passed [daemon] device_timeout */
	bool has_sample;   /* nvmond has a sample of it (the fields below) */
	/* The latest sample's health log (a hwmon sample: all 0 but temp_k). */
	uint8_t critical_warning; /* bits, smart.h's SMART_CRIT_* */
	uint8_t avail_spare;	  /* percent */
	uint8_t spare_thresh;	  /* percent */
	uint8_t percent_used;	  /* percent, may pass 100 */
	uint16_t temp_k;	  /* the composite temperature; 0 = not reported */
	/* The drive's thresholds of the composite (Identify); 0 = not reported. */
	uint16_t wctemp_k, cctemp_k;
	/* Percent of the rated endurance written, as wear_alert_level() gives it:
	 * 0, 80, 90 or 100 (0 also when the rating is unknown). */
	int tbw_level;
	/* The alerts firing on this drive, newest first (as GET /api/v1/alerts lists them). */
	const struct health_alert *alerts;
	size_t n_alerts;
};

/* Reasons kept: the drive's own (unresponsive, six bits, spare, used, temperature,
 * TBW) and one per alert rule; alerts beyond count but give no reason. */
#define HEALTH_WHY_MAX (11 + _ALERT_RULE_MAX)
#define HEALTH_WHY_LEN 160

struct health_verdict {
	enum health_state state;
	size_t n_why;
	char why[HEALTH_WHY_MAX][HEALTH_WHY_LEN]; /* in the order the rule checks them */
};

/**
 * health_judge() - The health of the drive @in describes (docs/dashboard.md#health):
 * offline when it is offline ("not seen now"), whatever fires; else critical
 * when it is unresponsive; else unknown without a sample ("no sample yet");
 * else the worst of: each critical-warning bit (temperature a warning, any other
 * critical), available spare below its threshold (critical), Percentage Used
 * ≥ 100 (critical) or ≥ 80 (warning), the composite temperature at CCTEMP
 * (critical) or at WCTEMP (warning), the rated endurance written ≥ 100 %
 * (critical) or ≥ 80 % (warning), each firing alert by its severity (an info
 * alert gives its reason, never the state); ok when none applies.
 */
void health_judge(const struct health_input *in, struct health_verdict *ret);

/** health_state_name() - "ok", "warning", "critical", "offline", "unknown". Return: static. */
const char *health_state_name(enum health_state s);
