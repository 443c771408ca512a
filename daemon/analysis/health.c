/* SPDX-License-Identifier: MIT */
/*
 * A drive's health (health.h): the rule the dashboard's cards showed, now the
 * one rule the API, `nvmond status` and /metrics share. Pure.
 */
#include <stdarg.h>
#include <stdio.h>

#include "nvmond/analysis/health.h"
#include "nvmond/decode/smart.h"

/* The critical-warning bits in bit order, with the words the dashboard shows. */
static const struct {
	uint8_t bit;
	enum health_state level;
	const char *why;
} crit_bits[] = {
	{SMART_CRIT_SPARE, HEALTH_CRITICAL, "spare below threshold"},
	/* Drives set it when they pass WCTEMP: transient, not a failed drive. */
	{SMART_CRIT_TEMPERATURE, HEALTH_WARNING, "temperature warning bit"},
	{SMART_CRIT_DEGRADED, HEALTH_CRITICAL, "reliability degraded"},
	{SMART_CRIT_READ_ONLY, HEALTH_CRITICAL, "read-only"},
	{SMART_CRIT_VOLATILE, HEALTH_CRITICAL, "volatile backup failed"},
	{SMART_CRIT_PMR_RO, HEALTH_CRITICAL, "PMR read-only"},
};

static const char why_unresponsive[] =
	"unresponsive: a command got no answer within device_timeout";

/* Raise @v to @level (HEALTH_OK, _WARNING or _CRITICAL) and add a reason. */
__attribute__((format(printf, 3, 4))) static void
bump(struct health_verdict *v, enum health_state level, const char *fmt, ...)
{
	va_list ap;

	if (level > v->state)
		v->state = level;
	if (v->n_why >= HEALTH_WHY_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(v->why[v->n_why++], HEALTH_WHY_LEN, fmt, ap);
	va_end(ap);
}

static enum health_state alert_level(enum alert_severity s)
{
	switch (s) {
	case ALERT_SEV_CRITICAL:
		return HEALTH_CRITICAL;
	case ALERT_SEV_WARNING:
		return HEALTH_WARNING;
	case ALERT_SEV_INFO:
		break;
	}
	return HEALTH_OK; /* a reason, never a state */
}

void health_judge(const struct health_input *in, struct health_verdict *ret)
{
	*ret = (struct health_verdict){.state = HEALTH_OK};
	if (!in->online) {
		ret->state = HEALTH_OFFLINE;
		snprintf(ret->why[ret->n_why++], HEALTH_WHY_LEN, "not seen now");
		return;
	}
	if (in->unresponsive)
		bump(ret, HEALTH_CRITICAL, "%s", why_unresponsive);
	if (!in->has_sample) {
		if (!in->unresponsive) {
			ret->state = HEALTH_UNKNOWN;
			snprintf(ret->why[ret->n_why++], HEALTH_WHY_LEN, "no sample yet");
		}
		return;
	}
	for (size_t i = 0; i < sizeof(crit_bits) / sizeof(crit_bits[0]); i++)
		if (in->critical_warning & crit_bits[i].bit)
			bump(ret, crit_bits[i].level, "%s", crit_bits[i].why);
	/* The drive's bit 0 says the same when it is set: one reason, not two. */
	if (in->avail_spare < in->spare_thresh && !(in->critical_warning & SMART_CRIT_SPARE))
		bump(ret, HEALTH_CRITICAL, "spare below threshold");
	if (in->percent_used >= HEALTH_USED_CRITICAL)
		bump(ret, HEALTH_CRITICAL, "rated life used up");
	else if (in->percent_used >= HEALTH_USED_WARNING)
		bump(ret, HEALTH_WARNING, "%u %% used", (unsigned)in->percent_used);
	/* A threshold of 0 is not reported; a temperature of 0 K (not reported) is below any. */
	if (in->cctemp_k && in->temp_k >= in->cctemp_k)
		bump(ret, HEALTH_CRITICAL, "at CCTEMP");
	else if (in->wctemp_k && in->temp_k >= in->wctemp_k)
		bump(ret, HEALTH_WARNING, "at WCTEMP");
	if (in->tbw_level >= HEALTH_TBW_CRITICAL)
		bump(ret, HEALTH_CRITICAL, "rated TBW reached");
	else if (in->tbw_level >= HEALTH_TBW_WARNING)
		bump(ret, HEALTH_WARNING, "%d %% of rated TBW", in->tbw_level);
	for (size_t i = 0; i < in->n_alerts; i++) {
		const struct health_alert *a = &in->alerts[i];
		const char *why = a->message && a->message[0] ? a->message : a->rule;

		bump(ret, alert_level(a->severity), "%s", why ? why : "");
	}
}

const char *health_state_name(enum health_state s)
{
	static const char *const names[_HEALTH_STATE_MAX] = {
		[HEALTH_OK] = "ok",
		[HEALTH_WARNING] = "warning",
		[HEALTH_CRITICAL] = "critical",
		[HEALTH_OFFLINE] = "offline",
		[HEALTH_UNKNOWN] = "unknown",
	};

	return (unsigned)s < _HEALTH_STATE_MAX ? names[s] : "unknown";
}
