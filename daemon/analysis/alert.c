/* SPDX-License-Identifier: MIT */
/*
 * Alert rules and their state machine: pure, fed conditions and an explicit time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/util/utf8.h"

static const char *const rule_names[_ALERT_RULE_MAX] = {
	[ALERT_THROTTLING] = "throttling",
	[ALERT_TEMP_WARNING] = "temperature_warning",
	[ALERT_TEMP_CRITICAL] = "temperature_critical",
	[ALERT_CRIT_TEMPERATURE] = "critical_warning_temperature",
	[ALERT_CRIT_FAILED] = "critical_warning_failed",
	[ALERT_SPARE] = "spare_low",
	[ALERT_USED_80] = "percent_used_80",
	[ALERT_USED_90] = "percent_used_90",
	[ALERT_USED_100] = "percent_used_100",
	[ALERT_MEDIA_ERRORS] = "media_errors",
	[ALERT_OFFLINE] = "offline",
	[ALERT_TBW_80] = "tbw_80",
	[ALERT_TBW_90] = "tbw_90",
	[ALERT_TBW_100] = "tbw_100",
	[ALERT_WRITE_RATE] = "write_rate",
	[ALERT_IO_ERRORS] = "io_errors",
	[ALERT_LINK_DEGRADED] = "link_degraded",
	[ALERT_FIRMWARE_CHANGED] = "firmware_changed",
	[ALERT_SENSOR_TEMP] = "sensor_temperature",
	[ALERT_SELFTEST_FAILED] = "selftest_failed",
	[ALERT_SELFTEST_ABORTED] = "selftest_aborted",
	[ALERT_BELOW_RATED] = "below_rated",
	[ALERT_UNRESPONSIVE] = "unresponsive",
	[ALERT_RISK] = "risk",
};

static const char *const severity_names[] = {
	[ALERT_SEV_INFO] = "info",
	[ALERT_SEV_WARNING] = "warning",
	[ALERT_SEV_CRITICAL] = "critical",
};

const char *alert_rule_name(enum alert_rule r)
{
	return (unsigned)r < _ALERT_RULE_MAX ? rule_names[r] : "unknown";
}

int alert_rule_from_name(const char *name)
{
	for (int r = 0; r < _ALERT_RULE_MAX; r++)
		if (strcmp(rule_names[r], name) == 0)
			return r;
	return -EINVAL;
}

const char *alert_severity_name(enum alert_severity s)
{
	return (unsigned)s <= ALERT_SEV_CRITICAL ? severity_names[s] : "unknown";
}

int alert_severity_from_name(const char *name)
{
	for (int s = 0; s <= ALERT_SEV_CRITICAL; s++)
		if (strcmp(severity_names[s], name) == 0)
			return s;
	return -EINVAL;
}

static void cond_set(struct alert_cond *c, bool active, enum alert_severity sev, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));

static void cond_set(struct alert_cond *c, bool active, enum alert_severity sev, const char *fmt,
		     ...)
{
	va_list ap;

	c->known = true;
	c->active = active;
	c->severity = sev;
	/* Nothing reads the message of a condition that is not active: most rules,
	 * most of the time, and every poll of every drive, so it is not written. */
	c->message[0] = '\0';
	if (!active)
		return;
	va_start(ap, fmt);
	utf8_vformat(c->message, sizeof(c->message), fmt, ap); /* cut at a character */
	va_end(ap);
}

static int celsius(uint16_t k)
{
	return (int)k - 273;
}

/*
 * A sensor alerts only when the operator asked (sensor_alerts, sensor_limit_N)
 * and it is plausible: sensors.c decided that (over_limit). The message names
 * the hottest sensor over its limit and how many are.
 */
static void sensor_cond(const struct alert_input *in, struct alert_cond *ret)
{
	const struct sensors_verdict *v = in->sensors;
	int worst = -1, n = 0;

	if (!v)
		return; /* not judged: unknown */
	for (int i = 0; i < SMART_NUM_SENSORS; i++) {
		if (!v->sensor[i].over_limit)
			continue;
		n++;
		if (worst < 0 || in->cur->temp_sensor_k[i] - v->sensor[i].limit_k >
					 in->cur->temp_sensor_k[worst] - v->sensor[worst].limit_k)
			worst = i;
	}
	if (worst < 0) {
		cond_set(ret, false, ALERT_SEV_WARNING, "no sensor over its limit");
		return;
	}
	const struct sensor_verdict *sv = &v->sensor[worst];
	cond_set(ret, true, ALERT_SEV_WARNING,
		 "sensor %d at %d °C reached its limit %d °C (%s)%s, composite %d °C", worst + 1,
		 celsius(in->cur->temp_sensor_k[worst]), celsius(sv->limit_k),
		 sensor_limit_src_name(sv->limit_src), n > 1 ? ", and other sensors" : "",
		 in->cur->temperature_k ? celsius(in->cur->temperature_k) : 0);
}

void alert_conditions(const struct alert_cfg *c, const struct alert_input *in,
		      struct alert_cond ret[_ALERT_RULE_MAX])
{
	const struct smart_log *s = in->cur;
	const bool *open = in->throttle_open;
	const struct throttle_event *ev = in->throttle_ev;
	/* WCTEMP and CCTEMP are thresholds of the composite (NVMe Base 2.0). */
	uint16_t comp = s->temperature_k;
	uint16_t hot = smart_hottest_k(s);
	uint8_t failed_bits = s->critical_warning & (uint8_t)~SMART_CRIT_TEMPERATURE;

	memset(ret, 0, sizeof(*ret) * _ALERT_RULE_MAX);

	if (open[THROTTLE_HEAVY])
		cond_set(&ret[ALERT_THROTTLING], true, ALERT_SEV_CRITICAL,
			 "heavy thermal throttling (T2), %u transitions, %llu s so far, peak %d °C",
			 ev[THROTTLE_HEAVY].transitions,
			 (unsigned long long)ev[THROTTLE_HEAVY].duration_s,
			 celsius(ev[THROTTLE_HEAVY].peak_k));
	else if (open[THROTTLE_LIGHT])
		cond_set(&ret[ALERT_THROTTLING], true, ALERT_SEV_WARNING,
			 "light thermal throttling (T1), %u transitions, %llu s so far, peak %d °C",
			 ev[THROTTLE_LIGHT].transitions,
			 (unsigned long long)ev[THROTTLE_LIGHT].duration_s,
			 celsius(ev[THROTTLE_LIGHT].peak_k));
	else
		cond_set(&ret[ALERT_THROTTLING], false, ALERT_SEV_WARNING, "not throttling");

	/* The thresholds and hysteresis are the detector's: follow its events. */
	cond_set(&ret[ALERT_TEMP_WARNING], open[THROTTLE_OVER_WCTEMP], ALERT_SEV_WARNING,
		 "temperature %d °C reached %d °C (WCTEMP %d °C - margin %d)",
		 comp ? celsius(comp) : 0, celsius(in->wctemp_k) - in->warning_margin_c,
		 celsius(in->wctemp_k), in->warning_margin_c);
	cond_set(&ret[ALERT_TEMP_CRITICAL], open[THROTTLE_OVER_CCTEMP], ALERT_SEV_CRITICAL,
		 "temperature %d °C reached %d °C (CCTEMP %d °C - margin %d)",
		 comp ? celsius(comp) : 0, celsius(in->cctemp_k) - in->critical_margin_c,
		 celsius(in->cctemp_k), in->critical_margin_c);
	/*
	 * Drives set the temperature bit when they pass WCTEMP: while a temperature
	 * alert already covers that, the bit adds no second notification.
	 */
	bool covered = c->rule_on[ALERT_TEMP_WARNING] &&
		       (open[THROTTLE_OVER_WCTEMP] || open[THROTTLE_OVER_CCTEMP]);
	cond_set(&ret[ALERT_CRIT_TEMPERATURE],
		 (s->critical_warning & SMART_CRIT_TEMPERATURE) && !covered, ALERT_SEV_WARNING,
		 "critical warning: temperature outside the thresholds (bit 1), %d °C",
		 hot ? celsius(hot) : 0);
	cond_set(&ret[ALERT_CRIT_FAILED], failed_bits != 0, ALERT_SEV_CRITICAL,
		 "critical warning 0x%02x: drive failed%s%s%s%s%s", s->critical_warning,
		 failed_bits & SMART_CRIT_SPARE ? ", spare below threshold" : "",
		 failed_bits & SMART_CRIT_DEGRADED ? ", reliability degraded" : "",
		 failed_bits & SMART_CRIT_READ_ONLY ? ", media read-only" : "",
		 failed_bits & SMART_CRIT_VOLATILE ? ", volatile backup failed" : "",
		 failed_bits & SMART_CRIT_PMR_RO ? ", PMR read-only" : "");
	/* Strictly below: a controller that reports 0 and 0 (QEMU) has no spare rule. */
	cond_set(&ret[ALERT_SPARE], s->avail_spare < s->spare_thresh, ALERT_SEV_CRITICAL,
		 "available spare %u%% is below its threshold %u%%", s->avail_spare,
		 s->spare_thresh);
	static const struct {
		enum alert_rule rule;
		unsigned pct;
		enum alert_severity sev;
	} used[] = {
		{ALERT_USED_80, 80, ALERT_SEV_INFO},
		{ALERT_USED_90, 90, ALERT_SEV_WARNING},
		{ALERT_USED_100, 100, ALERT_SEV_CRITICAL},
	};
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		cond_set(&ret[used[i].rule], s->percent_used >= used[i].pct, used[i].sev,
			 "percentage used %u%% reached %u%% of the rated endurance",
			 s->percent_used, used[i].pct);
	if (in->prev && s->media_errors > in->prev->media_errors) {
		char buf[U128_DEC_MAX];
		cond_set(&ret[ALERT_MEDIA_ERRORS], true, ALERT_SEV_CRITICAL,
			 "media errors increased by %s",
			 u128_to_dec(s->media_errors - in->prev->media_errors, buf));
	} else if (in->prev) {
		cond_set(&ret[ALERT_MEDIA_ERRORS], false, ALERT_SEV_CRITICAL,
			 "no new media errors");
	}

	/*
	 * Only entries of the data path (media, io) count, never benign ones nor
	 * the count of entries itself: a drive whose log fills with refused admin
	 * commands is healthy. The alert holds for a day after the newest one, so
	 * a burst of bad reads is one alert, and ends (after resolve_after) when a
	 * day passed without another.
	 */
	bool io_recent = in->io_error_ms && in->now_ms - in->io_error_ms < ALERT_IO_ERRORS_HOLD_MS;
	if (io_recent)
		cond_set(&ret[ALERT_IO_ERRORS], true, ALERT_SEV_CRITICAL, "error log %s",
			 in->io_error_desc ? in->io_error_desc : "entry of class media or io");
	else
		cond_set(&ret[ALERT_IO_ERRORS], false, ALERT_SEV_CRITICAL,
			 "no media or io error log entry in 24 h");
	sensor_cond(in, &ret[ALERT_SENSOR_TEMP]);

	for (int r = 0; r < _ALERT_RULE_MAX; r++)
		if (!c->rule_on[r]) {
			ret[r].known = r != ALERT_OFFLINE;
			ret[r].active = false;
		}
}

void alert_facts_conditions(const struct alert_cfg *c, const struct alert_facts_input *in,
			    struct alert_cond ret[_ALERT_RULE_MAX])
{
	memset(ret, 0, sizeof(*ret) * _ALERT_RULE_MAX);
	if (in->link_known)
		cond_set(&ret[ALERT_LINK_DEGRADED], in->link_degraded, ALERT_SEV_WARNING,
			 "%s: the link runs below what the drive supports, which caps its "
			 "throughput",
			 in->link);
	bool recent = in->firmware_changed_ms &&
		      in->now_ms - in->firmware_changed_ms < ALERT_FIRMWARE_SHOW_MS;
	cond_set(&ret[ALERT_FIRMWARE_CHANGED], recent, ALERT_SEV_INFO,
		 "firmware changed from %.20s to %.20s", in->firmware_prev ? in->firmware_prev : "",
		 in->firmware ? in->firmware : "");
	cond_set(&ret[ALERT_UNRESPONSIVE], in->unresponsive, ALERT_SEV_CRITICAL,
		 "the controller has not answered an admin command within %lld ms: nothing "
		 "more is sent to it until that command returns",
		 (long long)in->timeout_ms);
	static const enum alert_rule facts_rules[] = {ALERT_LINK_DEGRADED, ALERT_FIRMWARE_CHANGED,
						      ALERT_UNRESPONSIVE};
	for (size_t i = 0; i < sizeof(facts_rules) / sizeof(facts_rules[0]); i++)
		if (!c->rule_on[facts_rules[i]]) {
			ret[facts_rules[i]].known = true;
			ret[facts_rules[i]].active = false;
		}
}

struct alert_decision alert_step(struct alert_slot *slot, const struct alert_cfg *c,
				 const struct alert_cond *cond, int64_t now_ms)
{
	struct alert_decision d = {ALERT_ACT_NONE, false};

	if (!cond->known)
		return d;
	if (!slot->firing) {
		if (!cond->active)
			return d;
		bool cooled = !slot->last_notified_ms ||
			      now_ms - slot->last_notified_ms >= c->cooldown_ms;
		*slot = (struct alert_slot){
			.firing = true,
			.severity = cond->severity,
			.since_ms = now_ms,
			.notified = cooled,
			.last_notified_ms = cooled ? now_ms : slot->last_notified_ms,
		};
		d.action = ALERT_ACT_FIRE;
		d.notify = cooled;
		return d;
	}
	if (cond->active) {
		slot->clear_since_ms = 0;
		if (cond->severity > slot->severity) {
			slot->severity = cond->severity;
			d.action = ALERT_ACT_ESCALATE;
			d.notify = !slot->acked;
			if (d.notify) {
				slot->notified = true;
				slot->last_notified_ms = now_ms;
			}
		}
		return d;
	}
	if (!slot->clear_since_ms)
		slot->clear_since_ms = now_ms;
	if (now_ms - slot->clear_since_ms < c->resolve_after_ms)
		return d;
	d.action = ALERT_ACT_RESOLVE;
	d.notify = slot->notified;
	slot->firing = false;
	slot->clear_since_ms = 0;
	slot->acked = false;
	if (d.notify)
		slot->last_notified_ms = now_ms;
	return d;
}
