/* SPDX-License-Identifier: MIT */
/*
 * The alerts service: the edge between the poller, the pure detector and rule
 * engine (throttle.c, alert.c), the store and the sinks, on the main loop.
 * Its HTTP endpoints are in alert_http.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/api/api_route.h"
#include "nvmond/analysis/alert.h"
#include "nvmond/alert/alert_sink.h"
#include "nvmond/alert/alert_svc.h"
#include "nvmond/core/log.h"
#include "nvmond/core/loop.h"
#include "nvmond/monitor/fleet_health.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/store/store_errlog.h"
#include "nvmond/store/store.h"
#include "nvmond/analysis/throttle.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/util/utf8.h"
#include "alert_svc_internal.h"

static void configure(struct alert_svc *a, const struct cfg *c)
{
	const struct {
		enum alert_rule rule;
		int on;
	} rules[] = {
		{ALERT_THROTTLING, c->alert_throttling},
		{ALERT_TEMP_WARNING, c->alert_temperature},
		{ALERT_TEMP_CRITICAL, c->alert_temperature},
		{ALERT_CRIT_TEMPERATURE, c->alert_critical_warning},
		{ALERT_CRIT_FAILED, c->alert_critical_warning},
		{ALERT_SPARE, c->alert_spare},
		{ALERT_USED_80, c->alert_percent_used},
		{ALERT_USED_90, c->alert_percent_used},
		{ALERT_USED_100, c->alert_percent_used},
		{ALERT_MEDIA_ERRORS, c->alert_media_errors},
		{ALERT_OFFLINE, c->alert_offline},
		{ALERT_TBW_80, c->alert_wear},
		{ALERT_TBW_90, c->alert_wear},
		{ALERT_TBW_100, c->alert_wear},
		{ALERT_WRITE_RATE, c->alert_wear},
		{ALERT_IO_ERRORS, c->alert_io_errors},
		{ALERT_LINK_DEGRADED, c->alert_link_degraded},
		{ALERT_FIRMWARE_CHANGED, c->alert_firmware_changed},
		/* per drive it alerts only where asked: sensor_alerts, sensor_limit_N */
		{ALERT_SENSOR_TEMP, c->alert_temperature},
		/* fed by the self-test service (issue 12) */
		{ALERT_SELFTEST_FAILED, c->alert_selftest},
		{ALERT_SELFTEST_ABORTED, c->alert_selftest},
		/* fed by the probes at the end of a repeated series (issue 13) */
		{ALERT_BELOW_RATED, c->alert_below_rated},
		/* fed by the poller's facts: a device command past its deadline (issue 15) */
		{ALERT_UNRESPONSIVE, c->alert_unresponsive},
		/* fed by the risk monitor when the verdict changes (issue 27) */
		{ALERT_RISK, c->alert_risk},
	};
	a->cfg = *c;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		a->acfg.rule_on[rules[i].rule] = rules[i].on;
	a->acfg.resolve_after_ms = c->alert_resolve_after_ms;
	a->acfg.cooldown_ms = c->alert_cooldown_ms;
	/* A sample later than three poll intervals (at least 30 s) follows a gap. */
	int64_t gap = 3 * c->poll_interval_ms;
	a->tcfg = (struct throttle_cfg){
		.warning_margin_c = (int)c->alert_warning_margin_c,
		.critical_margin_c = (int)c->alert_critical_margin_c,
		.hysteresis_c = c->alert_hysteresis_c,
		.gap_ms = gap < 30000 ? 30000 : gap,
		/* Counters in seconds may skip a poll; those in minutes rise once a minute. */
		.settle_ms = 2 * c->poll_interval_ms < 10000 ? 10000 : 2 * c->poll_interval_ms,
		.settle_min_ms = 120000 + c->poll_interval_ms,
	};
}

static struct adev *adev_get(struct alert_svc *a, int64_t id)
{
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].id == id)
			return &a->devs[i];
	struct adev *v = realloc(a->devs, (a->n_devs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	a->devs = v;
	v[a->n_devs] = (struct adev){.id = id};
	return &v[a->n_devs++];
}

/* Alerts that were firing (and when each rule last notified) survive a restart. */
static int load_alerts(struct alert_svc *a)
{
	struct alert_row *v = NULL;
	size_t n = 0;
	int r = store_alerts_latest(a->store, &v, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct adev *d = adev_get(a, v[i].device_id);
		if (!d) {
			free(v);
			return -ENOMEM;
		}
		d->slots[v[i].rule] = (struct alert_slot){
			.firing = v[i].firing,
			.alert_id = v[i].firing ? v[i].id : 0,
			.severity = v[i].severity,
			.since_ms = v[i].started_ms,
			.notified = v[i].notified_ms != 0,
			.acked = v[i].acked_ms != 0,
			.last_notified_ms = v[i].last_notified_ms,
		};
	}
	free(v);
	return 0;
}

/*
 * The alerts firing now as the store lists them (what GET /api/v1/alerts shows)
 * into the fleet, where the health rule reads them (fleet_health.h): of device
 * @only, or of every drive the fleet knows when @only is negative.
 */
static void alerts_to_fleet(struct alert_svc *a, int64_t only)
{
	struct fleet_device *devs = NULL;
	struct alert_row *v = NULL;
	struct fleet_alerts fa;
	size_t n = 0, n_devs = 0;
	int r = store_alerts_list(a->store, true, 0, &v, &n);

	if (r == 0 && only < 0)
		r = fleet_snapshot(a->fleet, &devs, &n_devs);
	if (r < 0) {
		log_warn("alerts: cannot read the alerts firing for the drives' health: %s",
			 r == -ENOMEM ? strerror(ENOMEM) : store_strerror(a->store));
		free(v);
		return;
	}
	for (size_t i = 0; i < (only < 0 ? n_devs : 1); i++) {
		int64_t id = only < 0 ? devs[i].row.id : only;

		fleet_alerts_from_rows(v, n, id, &fa);
		(void)fleet_put_alerts(a->fleet, id, &fa);
	}
	free(devs);
	free(v);
}

/*
 * The alerts of @d still firing from before a restart, already notified: the
 * sinks that send firing alerts again (Alertmanager) keep doing so; no sink
 * gets them as new notifications.
 */
static void seed_sinks(struct alert_svc *a, const struct device_row *dev, struct adev *d,
		       int64_t now_ms)
{
	for (int rule = 0; rule < _ALERT_RULE_MAX; rule++) {
		const struct alert_slot *slot = &d->slots[rule];
		struct alert_row row;
		struct alert_note n;

		if (!slot->firing || !slot->notified ||
		    store_alert_get(a->store, slot->alert_id, &row) < 0)
			continue;
		alert_svc_note_fill(&n, &a->cfg, dev, alert_rule_name(rule),
				    alert_severity_name(slot->severity), "firing", row.message,
				    slot->since_ms, now_ms);
		n.alert_id = slot->alert_id;
		alert_sinks_seed(a->sinks, &n);
	}
}

/* Open events and the newest stored sample: what happened while we were down shows. */
static void adev_load(struct alert_svc *a, struct adev *d, const struct sample *s)
{
	struct throttle_event *ev = NULL;
	struct sample last;
	size_t n = 0;

	d->loaded = true;
	if (store_events_open(a->store, d->id, &ev, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			(void)throttle_restore(&d->th, &ev[i]);
		free(ev);
	} else {
		log_warn("alerts: cannot read the open events of device %" PRId64, d->id);
	}
	struct errlog_row er;
	if (store_errors_last_alerting(a->store, d->id, &er) == 0 && er.seen_ms > d->io_error_ms) {
		d->io_error_ms = er.seen_ms;
		errclass_describe(&er.e, d->io_error_desc, sizeof(d->io_error_desc));
	}
	if (store_sample_latest(a->store, d->id, &last) == 0 && last.ts_ms < s->ts_ms) {
		d->th.have_prev = true;
		d->th.prev_ts_ms = last.ts_ms;
		d->th.prev = last.smart;
		d->have_prev = true;
		d->prev = last.smart;
	}
}

void alert_svc_note_fill(struct alert_note *n, const struct cfg *c, const struct device_row *dev,
			 const char *rule, const char *severity, const char *state,
			 const char *message, int64_t started_ms, int64_t now_ms)
{
	*n = (struct alert_note){
		.device_id = dev ? dev->id : 0, .started_ms = started_ms, .ts_ms = now_ms};
	/*
	 * Valid UTF-8, cut at a character: the JSON sinks, the outbox and the API
	 * refuse anything else. A drive's strings and an older database's message
	 * may not be.
	 */
	if (dev) {
		struct cfg_device cd;

		utf8_copy(n->device, sizeof(n->device), dev->name);
		utf8_copy(n->model, sizeof(n->model), dev->model);
		utf8_copy(n->serial, sizeof(n->serial), dev->serial);
		/* The configuration's text is valid UTF-8 already (cfg checks it). */
		cfg_device_for(c, dev->model, dev->serial, &cd);
		memcpy(n->label, cd.label, sizeof(n->label));
		memcpy(n->location, cd.location, sizeof(n->location));
	}
	memcpy(n->host, c->host_name, sizeof(n->host));
	utf8_copy(n->rule, sizeof(n->rule), rule);
	utf8_copy(n->severity, sizeof(n->severity), severity);
	utf8_copy(n->state, sizeof(n->state), state);
	utf8_copy(n->message, sizeof(n->message), message);
}

/* The journal always; the sinks through their queues. */
static void notify(struct alert_svc *a, const struct alert_note *n,
		   const struct alert_outbox_kept *kept)
{
	char drive[384];

	log_event(strcmp(n->state, "resolved") == 0 ? LOG_LVL_INFO : LOG_LVL_WARNING, n->device,
		  n->serial, "alert", "alert %" PRId64 " %s: %s %s on %s: %s", n->alert_id,
		  n->state, n->severity, n->rule, alert_note_drive(n, drive, sizeof(drive)),
		  n->message);
	alert_outbox_send(a, n, kept);
}

static void apply_decision(struct alert_svc *a, const struct device_row *dev, struct adev *d,
			   enum alert_rule rule, const struct alert_cond *cond,
			   const struct alert_decision *dec, int64_t now_ms)
{
	struct alert_slot *slot = &d->slots[rule];
	struct alert_row row = {0};
	const char *state = NULL;
	int r = 0;

	if (dec->action == ALERT_ACT_NONE)
		return;
	/* The alert row and its notification (the outbox) land together or not at all. */
	bool txn = store_begin(a->store) == 0;
	if (dec->action == ALERT_ACT_FIRE) {
		row = (struct alert_row){
			.device_id = d->id,
			.rule = rule,
			.severity = cond->severity,
			.firing = true,
			.started_ms = now_ms,
			.updated_ms = now_ms,
			.notified_ms = dec->notify ? now_ms : 0,
		};
		snprintf(row.message, sizeof(row.message), "%s", cond->message);
		r = store_alert_insert(a->store, &row, &row.id);
		slot->alert_id = r < 0 ? 0 : row.id;
		state = "firing";
	} else if (slot->alert_id || dec->action == ALERT_ACT_RESOLVE) {
		int64_t id = slot->alert_id;
		if (dec->action == ALERT_ACT_RESOLVE)
			slot->alert_id = 0;
		if (id && (r = store_alert_get(a->store, id, &row)) == 0) {
			row.updated_ms = now_ms;
			row.severity = slot->severity;
			if (dec->action == ALERT_ACT_RESOLVE) {
				row.firing = false;
				row.resolved_ms = now_ms;
				if (d->last_active[rule][0])
					memcpy(row.message, d->last_active[rule],
					       sizeof(row.message));
			} else {
				snprintf(row.message, sizeof(row.message), "%s", cond->message);
			}
			if (dec->notify)
				row.notified_ms = now_ms;
			r = store_alert_update(a->store, &row);
		}
		state = dec->action == ALERT_ACT_RESOLVE ? "resolved" : "escalated";
		row.id = id;
	}
	if (r < 0)
		log_errno(LOG_LVL_WARNING, -r, "alerts: cannot store the %s alert of %s",
			  alert_rule_name(rule), dev->key);
	if (!state || !dec->notify) {
		if (txn)
			(void)store_end(a->store, r);
		if (state)
			log_info("alert %s on %s %s inside the cooldown: not notified",
				 alert_rule_name(rule), dev->name, state);
		return;
	}
	struct alert_note n;
	alert_svc_note_fill(
		&n, &a->cfg, dev, alert_rule_name(rule), alert_severity_name(slot->severity), state,
		dec->action == ALERT_ACT_RESOLVE ? "condition ended" : cond->message,
		dec->action == ALERT_ACT_FIRE ? now_ms
					      : (row.started_ms ? row.started_ms : slot->since_ms),
		now_ms);
	if (dec->action == ALERT_ACT_RESOLVE) {
		n.resolved_ms = now_ms;
		const char *last = row.message[0] ? row.message : alert_rule_name(rule);
		utf8_format(n.message, sizeof(n.message), "resolved after %llds; last: %.*s",
			    (long long)(timefmt_span_ms(n.started_ms, now_ms) / 1000),
			    (int)utf8_cut(last, 100), last);
	}
	n.alert_id = row.id;
	struct alert_outbox_kept kept = {0};
	int k = r == 0 ? alert_outbox_keep(a, &n, &kept) : 0;
	if (txn) {
		/* A note that could not be kept does not hold back its alert row. */
		int e = store_end(a->store, r);
		if (e < 0 && r == 0 && dec->action == ALERT_ACT_FIRE)
			slot->alert_id = 0; /* its row did not land */
		if (k == 0)
			k = e;
	}
	if (k < 0) {
		kept.n = 0; /* not kept: sent all the same, as before the outbox */
		log_warn("alerts: cannot keep the %s notification of %s for a restart: %s",
			 alert_rule_name(rule), dev->key, store_strerror(a->store));
	}
	notify(a, &n, &kept);
}

static void run_rules(struct alert_svc *a, const struct device_row *dev, struct adev *d,
		      const struct alert_cond conds[_ALERT_RULE_MAX], int64_t now_ms)
{
	bool changed = false;

	for (int rule = 0; rule < _ALERT_RULE_MAX; rule++) {
		struct alert_decision dec =
			alert_step(&d->slots[rule], &a->acfg, &conds[rule], now_ms);
		apply_decision(a, dev, d, rule, &conds[rule], &dec, now_ms);
		changed |= dec.action != ALERT_ACT_NONE;
		if (conds[rule].known && conds[rule].active)
			memcpy(d->last_active[rule], conds[rule].message,
			       sizeof(d->last_active[rule]));
	}
	if (changed)
		alerts_to_fleet(a, dev->id);
}

static void store_event(struct alert_svc *a, const struct device_row *dev, struct adev *d,
			const struct throttle_update *u)
{
	struct throttle_event *ev = &d->th.ev[u->ev.kind];
	int64_t id = u->ev.id;
	int r;

	if (id == 0) {
		r = store_event_insert(a->store, d->id, &u->ev, &id);
		if (r == 0 && d->th.open[u->ev.kind])
			ev->id = id; /* the detector carries it from now on */
	} else {
		r = store_event_update(a->store, &u->ev);
	}
	if (r < 0)
		log_errno(LOG_LVL_WARNING, -r, "alerts: cannot store a %s event of %s",
			  throttle_kind_name(u->ev.kind), dev->key);
	if (u->change == THROTTLE_UPDATED)
		return;
	char start[TIMEFMT_MAX];
	log_event(LOG_LVL_INFO, dev->name, dev->serial, "throttle",
		  "throttle event %" PRId64 " on %s: %s %s (since %s, %" PRIu64
		  " s%s%s, peak %d °C)",
		  id, dev->name, throttle_kind_name(u->ev.kind),
		  u->change == THROTTLE_OPENED ? "started" : "ended",
		  timefmt_rfc3339(u->ev.start_ms, start), u->ev.duration_s,
		  u->ev.late ? ", observed late" : "", u->ev.counter_reset ? ", counter reset" : "",
		  u->ev.peak_k ? (int)u->ev.peak_k - 273 : 0);
}

/* Every drive's state to the sinks that publish them: a copy, so a slow broker never delays polling. */
static void states_hand_over(struct alert_svc *a)
{
	struct mqtt_drive_state *v = calloc(a->n_devs ? a->n_devs : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return; /* the next poll tries again */
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].have_state)
			v[n++] = a->devs[i].state;
	alert_sinks_states(a->sinks, v, n);
	free(v);
}

static int64_t on_states_due(struct loop *l, void *userdata)
{
	struct alert_svc *a = userdata;

	(void)l;
	a->states_timer = 0;
	states_hand_over(a);
	return -1;
}

/*
 * The drive's state after @s; the states of all drives are handed over once
 * the poll that took @s is done (one snapshot per poll, not one per drive). A
 * temperatures-only sample keeps the last full state (its counters are not
 * known); before any, the drive is announced without values.
 */
static void publish_states(struct alert_svc *a, const struct device_row *dev, struct adev *d,
			   const struct sample *s)
{
	bool hwmon = s->source == SAMPLE_SOURCE_HWMON;
	/* As the throttling rule: a thermal management episode (T1 or T2), not a hot spell. */
	bool throttling = d->th.open[THROTTLE_LIGHT] || d->th.open[THROTTLE_HEAVY];
	if (!hwmon || !d->have_state || !d->state.has_sample)
		mqtt_drive_state_from(dev, hwmon ? NULL : &s->smart, throttling, &d->state);
	d->have_state = true;
	if (a->states_timer > 0)
		return;
	int64_t id = a->loop ? loop_add_timer(a->loop, 0, on_states_due, a) : -1;
	if (id > 0)
		a->states_timer = id;
	else
		states_hand_over(a);
}

static void on_sample(void *ctx, const struct device_row *dev, const struct sample *s)
{
	struct alert_svc *a = ctx;
	struct throttle_update up[THROTTLE_MAX_UPDATES];
	struct alert_cond conds[_ALERT_RULE_MAX];
	struct adev *d = adev_get(a, dev->id);

	if (!d) {
		log_error("alerts: out of memory");
		return;
	}
	if (s->source == SAMPLE_SOURCE_HWMON) {
		/*
		 * Temperatures only: the counters the rules and the throttle
		 * detector need are unknown, so every rule keeps its state; the
		 * device is there, though.
		 */
		memset(conds, 0, sizeof(conds));
		conds[ALERT_OFFLINE] =
			(struct alert_cond){.known = true, .severity = ALERT_SEV_CRITICAL};
		run_rules(a, dev, d, conds, s->ts_ms);
		publish_states(a, dev, d, s);
		return;
	}
	if (!d->loaded) {
		adev_load(a, d, s);
		seed_sinks(a, dev, d, s->ts_ms);
	}

	struct cfg_device cd;
	cfg_device_for(&a->cfg, dev->model, dev->serial, &cd);
	struct throttle_cfg tc = a->tcfg;
	tc.wctemp_k = dev->wctemp_k;
	tc.cctemp_k = dev->cctemp_k;
	tc.warning_margin_c = (int)cd.alert_warning_margin_c;
	tc.critical_margin_c = (int)cd.alert_critical_margin_c;
	size_t n = throttle_feed(&d->th, &tc, &s->smart, s->ts_ms, up);
	for (size_t i = 0; i < n; i++)
		store_event(a, dev, d, &up[i]);

	/* The poller judged the sensors of this sample into the fleet before telling us. */
	struct fleet_device fd;
	bool judged = fleet_get(a->fleet, dev->id, &fd) == 0 && fd.temps.judged &&
		      fd.last.ts_ms == s->ts_ms;
	struct alert_input in = {
		.sensors = judged ? &fd.temps.v : NULL,
		.cur = &s->smart,
		.prev = d->have_prev ? &d->prev : NULL,
		.throttle_open = d->th.open,
		.throttle_ev = d->th.ev,
		.wctemp_k = dev->wctemp_k,
		.cctemp_k = dev->cctemp_k,
		.warning_margin_c = tc.warning_margin_c,
		.critical_margin_c = tc.critical_margin_c,
		.io_error_ms = d->io_error_ms,
		.io_error_desc = d->io_error_desc,
		.now_ms = s->ts_ms,
	};
	alert_conditions(&a->acfg, &in, conds);
	/* A sample means the device is there. */
	conds[ALERT_OFFLINE] = (struct alert_cond){.known = true, .severity = ALERT_SEV_CRITICAL};
	run_rules(a, dev, d, conds, s->ts_ms);
	d->have_prev = true;
	d->prev = s->smart;
	publish_states(a, dev, d, s);
}

static void on_online(void *ctx, const struct device_row *dev, bool online, int64_t now_ms)
{
	struct alert_svc *a = ctx;
	struct alert_cond conds[_ALERT_RULE_MAX] = {0};
	struct adev *d = adev_get(a, dev->id);

	if (!d) {
		log_error("alerts: out of memory");
		return;
	}
	if (!online) {
		/* Nothing is known about a device that is gone: its episodes end here. */
		struct throttle_update up[THROTTLE_MAX_UPDATES];
		size_t n = throttle_close_all(&d->th, up);
		for (size_t i = 0; i < n; i++)
			store_event(a, dev, d, &up[i]);
	}
	conds[ALERT_OFFLINE] = (struct alert_cond){
		.known = true,
		.active = !online && a->acfg.rule_on[ALERT_OFFLINE],
		.severity = ALERT_SEV_CRITICAL,
	};
	snprintf(conds[ALERT_OFFLINE].message, sizeof(conds[ALERT_OFFLINE].message),
		 "device %s (serial %s) disappeared", dev->name, dev->serial);
	run_rules(a, dev, d, conds, now_ms);
}

/* New error log entries, before the sample that showed them: remember the newest
 * media / io one; the sample's rules then fire io_errors. */
static void on_errors(void *ctx, const struct device_row *dev, const struct errlog_row *v, size_t n)
{
	struct alert_svc *a = ctx;
	struct adev *d = adev_get(a, dev->id);

	if (!d) {
		log_error("alerts: out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].before_watch || !errclass_alerts(v[i].cls) ||
		    v[i].seen_ms < d->io_error_ms)
			continue;
		d->io_error_ms = v[i].seen_ms;
		errclass_describe(&v[i].e, d->io_error_desc, sizeof(d->io_error_desc));
	}
}

static void on_facts(void *ctx, const struct device_row *dev, const struct fleet_facts *f,
		     int64_t now_ms)
{
	struct alert_svc *a = ctx;
	struct alert_cond conds[_ALERT_RULE_MAX];
	char link[NVME_PCIE_LINK_STR_MAX];
	struct adev *d = adev_get(a, dev->id);

	if (!d) {
		log_error("alerts: out of memory");
		return;
	}
	nvme_pcie_link_format(&f->link, link, sizeof(link));
	struct alert_facts_input in = {
		.link_known = nvme_pcie_link_known(&f->link),
		.link_degraded = nvme_pcie_link_degraded(&f->link),
		.link = link,
		.firmware_changed_ms = f->firmware_changed_ms,
		.firmware_prev = f->firmware_prev,
		.firmware = f->firmware,
		.unresponsive = f->unresponsive,
		.timeout_ms = a->cfg.device_timeout_ms,
		.now_ms = now_ms,
	};
	alert_facts_conditions(&a->acfg, &in, conds);
	run_rules(a, dev, d, conds, now_ms);
}

/* ---- life cycle ---------------------------------------------------------- */

int alert_svc_new(const struct cfg *c, struct store *s, struct fleet *f, struct mainq *q,
		  struct alert_svc **ret, char ret_err[256])
{
	struct alert_svc *a = calloc(1, sizeof(*a));
	int r;

	if (!a) {
		snprintf(ret_err, 256, "out of memory");
		return -ENOMEM;
	}
	a->store = s;
	a->fleet = f;
	a->mainq = q;
	/* Configuration mistakes show at start, not at the first alert. */
	configure(a, c);
	r = alert_sinks_new(c, &a->sinks, ret_err, 256);
	if (r < 0)
		goto fail;
	r = load_alerts(a);
	if (r < 0) {
		snprintf(ret_err, 256, "cannot load the alert state: %s", strerror(-r));
		goto fail;
	}
	alerts_to_fleet(a, -1); /* the drives the poller loaded: firing since before */
	r = alert_outbox_start(a, timefmt_now_ms());
	if (r < 0) {
		snprintf(ret_err, 256, "cannot start the notification outbox: %s", strerror(-r));
		goto fail;
	}
	alert_svc_endpoints_init(a);
	*ret = a;
	return 0;
fail:
	alert_svc_free(a);
	return r;
}

int alert_svc_feed(struct alert_svc *a, const struct device_row *dev,
		   const struct alert_cond conds[_ALERT_RULE_MAX], int64_t now_ms)
{
	struct adev *d = adev_get(a, dev->id);

	if (!d)
		return -ENOMEM;
	if (!d->loaded)
		return -EAGAIN; /* its firing alerts are loaded with its first sample */
	/* A rule turned off is resolved by the sample path; it says nothing here. */
	struct alert_cond c[_ALERT_RULE_MAX];
	for (int r = 0; r < _ALERT_RULE_MAX; r++)
		c[r] = a->acfg.rule_on[r] ? conds[r] : (struct alert_cond){.known = false};
	run_rules(a, dev, d, c, now_ms);
	return 0;
}

int alert_svc_attach(struct alert_svc *a, struct poller *p, struct loop *l)
{
	struct poller_listener pl = {.on_sample = on_sample,
				     .on_online = on_online,
				     .on_errors = on_errors,
				     .on_facts = on_facts,
				     .ctx = a};

	a->loop = l;
	return poller_add_listener(p, &pl);
}

const struct api_endpoint *alert_svc_endpoints(struct alert_svc *a, size_t *ret_n)
{
	*ret_n = ALERT_SVC_N_ENDPOINTS;
	return a->endpoints;
}

int alert_svc_reconfigure(struct alert_svc *a, const struct cfg *c, char ret_err[256])
{
	configure(a, c);
	return alert_sinks_reconfigure(a->sinks, c, ret_err, 256);
}

struct alert_svc *alert_svc_free(struct alert_svc *a)
{
	if (!a)
		return NULL;
	if (a->states_timer > 0)
		loop_cancel_timer(a->loop, a->states_timer);
	alert_outbox_stop(a);
	free(a->devs);
	free(a);
	return NULL;
}

size_t alert_svc_sink_stats(struct alert_svc *a, struct alert_sink_stats ret[ALERT_SINKS_MAX])
{
	if (!a->sinks)
		return 0;
	return alert_sinks_stats(a->sinks, ret);
}

void alert_svc_stop_sinks(struct alert_svc *a)
{
	if (a)
		alert_outbox_stop(a);
}
