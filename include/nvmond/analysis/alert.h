/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/smart.h"
#include "nvmond/analysis/sensors.h"
#include "nvmond/analysis/throttle.h"

/*
 * The alert rules and their state machine. Pure: conditions come from samples
 * and open throttle events, decisions from the slot's state and an explicit
 * @now. The caller stores alerts and sends the notifications.
 */
enum alert_rule {
	ALERT_THROTTLING,	/* light or heavy throttling (T1/T2 counters) */
	ALERT_TEMP_WARNING,	/* composite at WCTEMP (- margin) */
	ALERT_TEMP_CRITICAL,	/* composite at CCTEMP (- margin) */
	ALERT_CRIT_TEMPERATURE, /* bit 1 (transient, not failed) not covered by a temperature alert */
	ALERT_CRIT_FAILED,	/* any other critical warning bit: the drive is failed */
	ALERT_SPARE,		/* available spare below its threshold */
	ALERT_USED_80,		/* percentage used ≥ 80 */
	ALERT_USED_90,
	ALERT_USED_100,
	ALERT_MEDIA_ERRORS, /* media errors increased */
	ALERT_OFFLINE,	    /* the device disappeared */
	/* Wear rules: evaluated from the history by the wear monitor (wear_mon.h) and
	 * fed through alert_svc_feed(); alert_conditions() leaves them unknown. */
	ALERT_TBW_80, /* bytes written reached 80 % of the rated endurance (TBW) */
	ALERT_TBW_90,
	ALERT_TBW_100,
	ALERT_WRITE_RATE, /* the last day wrote far more than the 30-day average */
	ALERT_IO_ERRORS,  /* a media / io entry in the error log (errclass.h) in the last 24 h */
	/* Facts rules: evaluated by alert_facts_conditions() after each scan (issue 11);
	 * alert_conditions() leaves them unknown. */
	ALERT_LINK_DEGRADED,	/* the PCIe link runs slower or narrower than the drive supports */
	ALERT_FIRMWARE_CHANGED, /* the running firmware revision changed (info, for a day) */
	/* a plausible sensor 1-8 at its limit, where the operator asked for sensor
	 * alerts (sensor_alerts, sensor_limit_N): see sensors.h */
	ALERT_SENSOR_TEMP,
	/* Self-test rules: evaluated by selftest_alert_conditions() (selftest_alert.h)
	 * when the self-test service reads a new result (issue 12). */
	ALERT_SELFTEST_FAILED,	/* the newest result of a type is a failure (critical) */
	ALERT_SELFTEST_ABORTED, /* a test was aborted by something else than nvmond (info) */
	/* Spec check (issue 13): fed by the probes when a repeated series ends
	 * (rated_alert_condition()). */
	ALERT_BELOW_RATED, /* the best of a repeated seq1m-q8 series under 80 % of the rating */
	/* Issue 15: a facts rule (alert_facts_conditions()), fed by the poller. */
	ALERT_UNRESPONSIVE, /* a command to the controller passed its deadline (critical) */
	/* Issue 27: fed by the risk monitor (risk_mon.h) when the verdict
	 * changes; severity by level (watch info, replace_soon warning, failed
	 * critical). */
	ALERT_RISK,
	_ALERT_RULE_MAX,
};

enum alert_severity {
	ALERT_SEV_INFO,
	ALERT_SEV_WARNING,
	ALERT_SEV_CRITICAL,
};

struct alert_cfg {
	bool rule_on[_ALERT_RULE_MAX];
	int64_t resolve_after_ms; /* a condition must stay absent this long to resolve */
	int64_t cooldown_ms;	  /* no new notification of a rule/device sooner than this */
};

/* What one rule says about one device now. */
struct alert_cond {
	bool known; /* false: no information (keep the state as it is) */
	bool active;
	enum alert_severity severity;
	/* What an active condition says. Nothing reads it otherwise, and
	 * alert_conditions() and alert_facts_conditions() leave it empty then. */
	char message[160];
};

/*
 * One sample's worth of input. @prev may be NULL (first sample). @throttle_open
 * tells which throttle events of the device are open after this sample.
 */
struct alert_input {
	const struct smart_log *cur;
	const struct smart_log *prev;
	const bool *throttle_open;		  /* [_THROTTLE_KIND_MAX] */
	const struct throttle_event *throttle_ev; /* [_THROTTLE_KIND_MAX] */
	uint16_t wctemp_k, cctemp_k;
	int warning_margin_c, critical_margin_c; /* as configured: for the messages */
	/*
	 * The error log: when nvmond read the newest entry of class media or io
	 * (0 = none since it watched the drive; entries from before never count),
	 * that entry described (errclass_describe()), and the time of the sample.
	 */
	int64_t io_error_ms;
	const char *io_error_desc;
	int64_t now_ms;
	/* The sensors 1-8 judged on this sample (sensors_judge()); NULL = not judged,
	 * the sensor rule stays unknown. */
	const struct sensors_verdict *sensors;
};

/* io_errors stays active this long after the newest media / io entry was read. */
#define ALERT_IO_ERRORS_HOLD_MS (24 * 3600 * 1000LL)

/**
 * alert_conditions() - Evaluate every sample-based rule (all but ALERT_OFFLINE,
 * which is left unknown). Disabled rules are reported as known and inactive, so
 * turning a rule off resolves what it had raised.
 */
void alert_conditions(const struct alert_cfg *c, const struct alert_input *in,
		      struct alert_cond ret[_ALERT_RULE_MAX]);

/* How long a firmware_changed alert stays firing after the change was seen. */
#define ALERT_FIRMWARE_SHOW_MS (24 * 3600 * 1000LL)

/* What the poller knows of a drive besides its samples; text made by the caller. */
struct alert_facts_input {
	bool link_known;		      /* something of the PCIe link is known */
	bool link_degraded;		      /* it runs below what the drive supports */
	const char *link;		      /* "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)" */
	int64_t firmware_changed_ms;	      /* the last change nvmond saw; 0 none */
	const char *firmware_prev, *firmware; /* from, to */
	bool unresponsive;		      /* a command is stuck past its deadline */
	int64_t timeout_ms;		      /* that deadline ([daemon] device_timeout) */
	int64_t now_ms;
};

/**
 * alert_facts_conditions() - Evaluate the facts rules (link_degraded,
 * firmware_changed, unresponsive); every other rule is left unknown.
 * link_degraded is unknown while nothing of the link is known;
 * firmware_changed is active for ALERT_FIRMWARE_SHOW_MS after a change;
 * unresponsive is active while a command is stuck. Disabled rules are known
 * and inactive.
 */
void alert_facts_conditions(const struct alert_cfg *c, const struct alert_facts_input *in,
			    struct alert_cond ret[_ALERT_RULE_MAX]);

/* The state of one rule on one device. */
struct alert_slot {
	bool firing;
	int64_t alert_id; /* the caller's (store) id while firing */
	enum alert_severity severity;
	int64_t since_ms;	/* firing since */
	int64_t clear_since_ms; /* condition absent since; 0 while present */
	bool notified;		/* this episode's firing notification went out */
	bool acked;
	int64_t last_notified_ms; /* last notification of this rule/device, 0 = never */
};

enum alert_action {
	ALERT_ACT_NONE,
	ALERT_ACT_FIRE,	    /* a new episode: create an alert */
	ALERT_ACT_ESCALATE, /* same episode, higher severity */
	ALERT_ACT_RESOLVE,  /* the episode ended */
};

struct alert_decision {
	enum alert_action action;
	bool notify; /* send it (false inside the cooldown, or for a silent episode) */
};

/**
 * alert_step() - Advance @slot by one observation @cond at @now.
 * A condition that appears fires at once; it resolves only after being absent
 * for resolve_after (hysteresis in time). A new episode inside the cooldown after
 * the last notification is recorded but not notified, and neither is its end.
 * Return: the decision (also when nothing happens: ALERT_ACT_NONE).
 */
struct alert_decision alert_step(struct alert_slot *slot, const struct alert_cfg *c,
				 const struct alert_cond *cond, int64_t now_ms);

/** alert_rule_name() - "throttling", "temperature_warning", … Return: a static name. */
const char *alert_rule_name(enum alert_rule r);

/** alert_rule_from_name() - Return: the rule, or -EINVAL. */
int alert_rule_from_name(const char *name);

/** alert_severity_name() - "info", "warning", "critical". Return: a static name. */
const char *alert_severity_name(enum alert_severity s);

/** alert_severity_from_name() - Return: the severity, or -EINVAL. */
int alert_severity_from_name(const char *name);
