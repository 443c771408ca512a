/* SPDX-License-Identifier: MIT */
/*
 * The health rule's inputs from the fleet (fleet_health.h): the rule itself is
 * analysis/health.c.
 */
#include <stdio.h>

#include "nvmond/analysis/wear.h"
#include "nvmond/decode/smart.h"
#include "nvmond/monitor/fleet_health.h"

void fleet_health(const struct fleet_device *d, struct health_verdict *ret)
{
	const struct smart_log *s = &d->last.smart;
	bool smart = d->has_sample && d->last.source == SAMPLE_SOURCE_SMART;
	struct health_alert al[FLEET_ALERTS_MAX];
	size_t n = d->alerts.n < FLEET_ALERTS_MAX ? d->alerts.n : FLEET_ALERTS_MAX;

	for (size_t i = 0; i < n; i++)
		al[i] = (struct health_alert){.severity = d->alerts.v[i].severity,
					      .rule = alert_rule_name(d->alerts.v[i].rule),
					      .message = d->alerts.v[i].message};
	struct health_input in = {
		.online = d->row.online,
		.unresponsive = d->facts.unresponsive,
		.has_sample = d->has_sample,
		.temp_k = d->has_sample ? s->temperature_k : 0,
		.wctemp_k = d->row.wctemp_k,
		.cctemp_k = d->row.cctemp_k,
		.alerts = al,
		.n_alerts = n,
	};
	if (smart) {
		in.critical_warning = s->critical_warning;
		in.avail_spare = s->avail_spare;
		in.spare_thresh = s->spare_thresh;
		in.percent_used = s->percent_used;
		in.tbw_level =
			wear_alert_level_of(smart_bytes(s->data_units_written),
					    wear_rated_bytes(d->rated_bytes_cfg, d->row.model));
	}
	health_judge(&in, ret);
}

void fleet_alerts_from_rows(const struct alert_row *v, size_t n, int64_t device_id,
			    struct fleet_alerts *ret)
{
	ret->n = 0;
	for (size_t i = 0; i < n && ret->n < FLEET_ALERTS_MAX; i++) {
		struct fleet_alert *a = &ret->v[ret->n];

		if (v[i].device_id != device_id || !v[i].firing)
			continue;
		*a = (struct fleet_alert){
			.id = v[i].id, .rule = v[i].rule, .severity = v[i].severity};
		snprintf(a->message, sizeof(a->message), "%s", v[i].message);
		ret->n++;
	}
}
