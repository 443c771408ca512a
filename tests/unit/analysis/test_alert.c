/* SPDX-License-Identifier: MIT */
/*
 * The alert rules and state machine (pure), and their persistence in a real
 * SQLite file: what a restart must find again.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/errclass.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/util/utf8.h"

static struct alert_cfg all_on(void)
{
	struct alert_cfg c = {.resolve_after_ms = 30000, .cooldown_ms = 900000};
	for (int r = 0; r < _ALERT_RULE_MAX; r++)
		c.rule_on[r] = true;
	return c;
}

static void conds_for(const struct alert_cfg *c, const struct smart_log *cur,
		      const struct smart_log *prev, const bool open[_THROTTLE_KIND_MAX],
		      struct alert_cond ret[_ALERT_RULE_MAX])
{
	static const bool none[_THROTTLE_KIND_MAX];
	struct throttle_event ev[_THROTTLE_KIND_MAX] = {0};
	struct alert_input in = {.cur = cur,
				 .prev = prev,
				 .throttle_open = open ? open : none,
				 .throttle_ev = ev,
				 .wctemp_k = 343,
				 .cctemp_k = 353};
	alert_conditions(c, &in, ret);
}

static struct smart_log healthy(void)
{
	return (struct smart_log){.temperature_k = 313, .avail_spare = 100, .spare_thresh = 10};
}

Test(alert_rules, spare_zero_with_threshold_zero_never_fires)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct smart_log s = {.temperature_k = 323}; /* QEMU: spare 0, threshold 0 */

	conds_for(&c, &s, NULL, NULL, r);
	cr_assert(r[ALERT_SPARE].known);
	cr_assert_not(r[ALERT_SPARE].active);
	s.avail_spare = 9;
	s.spare_thresh = 10;
	conds_for(&c, &s, NULL, NULL, r);
	cr_assert(r[ALERT_SPARE].active);
	cr_assert_eq(r[ALERT_SPARE].severity, ALERT_SEV_CRITICAL);
	s.avail_spare = 10;
	conds_for(&c, &s, NULL, NULL, r);
	cr_assert_not(r[ALERT_SPARE].active, "at the threshold is not below it");
}

/*
 * alert.h: an active condition says what fires; an inactive one has an empty
 * message (nothing reads it, so the rules do not format one on every poll).
 */
Test(alert_rules, only_active_conditions_carry_a_message)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct smart_log prev = healthy(), cur = healthy();
	bool open[_THROTTLE_KIND_MAX] = {0};

	conds_for(&c, &cur, &prev, open, r);
	for (int k = 0; k < _ALERT_RULE_MAX; k++)
		if (r[k].known)
			cr_expect_str_empty(r[k].message, "%s inactive: \"%s\"", alert_rule_name(k),
					    r[k].message);
	cur.avail_spare = 5;
	cur.percent_used = 95;
	cur.media_errors = 2;
	open[THROTTLE_OVER_WCTEMP] = true;
	conds_for(&c, &cur, &prev, open, r);
	static const enum alert_rule firing[] = {ALERT_SPARE, ALERT_USED_80, ALERT_USED_90,
						 ALERT_MEDIA_ERRORS, ALERT_TEMP_WARNING};
	for (size_t k = 0; k < sizeof(firing) / sizeof(firing[0]); k++) {
		cr_expect(r[firing[k]].active, "%s active", alert_rule_name(firing[k]));
		cr_expect_str_not_empty(r[firing[k]].message, "%s says why",
					alert_rule_name(firing[k]));
	}
	cr_expect_str_eq(r[ALERT_SPARE].message, "available spare 5% is below its threshold 10%");
	cr_expect_str_empty(r[ALERT_USED_100].message, "95 %% used is not 100 %%");
}

Test(alert_rules, temperature_bit_is_transient_other_bits_mean_failed)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct smart_log s = healthy();

	s.critical_warning = SMART_CRIT_TEMPERATURE;
	conds_for(&c, &s, NULL, NULL, r);
	cr_assert(r[ALERT_CRIT_TEMPERATURE].active);
	cr_assert_not(r[ALERT_CRIT_FAILED].active, "a hot drive is not a failed drive");
	for (unsigned bit = 0; bit < 6; bit++) {
		if ((1u << bit) == SMART_CRIT_TEMPERATURE)
			continue;
		s.critical_warning = (uint8_t)(1u << bit);
		conds_for(&c, &s, NULL, NULL, r);
		cr_assert(r[ALERT_CRIT_FAILED].active, "bit %u", bit);
		cr_assert_eq(r[ALERT_CRIT_FAILED].severity, ALERT_SEV_CRITICAL);
		cr_assert_not(r[ALERT_CRIT_TEMPERATURE].active);
	}
	/* Passing WCTEMP sets the bit: the temperature alert covers it, unless that rule is off. */
	bool open[_THROTTLE_KIND_MAX] = {0};
	open[THROTTLE_OVER_WCTEMP] = true;
	s.critical_warning = SMART_CRIT_TEMPERATURE;
	conds_for(&c, &s, NULL, open, r);
	cr_assert(r[ALERT_TEMP_WARNING].active);
	cr_assert_not(r[ALERT_CRIT_TEMPERATURE].active, "one notification for one hot spell");
	c.rule_on[ALERT_TEMP_WARNING] = false;
	conds_for(&c, &s, NULL, open, r);
	cr_assert(r[ALERT_CRIT_TEMPERATURE].active);
	c.rule_on[ALERT_TEMP_WARNING] = true;

	s.critical_warning = SMART_CRIT_READ_ONLY;
	conds_for(&c, &s, NULL, NULL, r);
	cr_assert(strstr(r[ALERT_CRIT_FAILED].message, "read-only"), "%s",
		  r[ALERT_CRIT_FAILED].message);
}

Test(alert_rules, percentage_used_steps)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct smart_log s = healthy();
	static const struct {
		uint8_t used;
		bool a80, a90, a100;
	} t[] = {{79, 0, 0, 0}, {80, 1, 0, 0},	{89, 1, 0, 0},
		 {90, 1, 1, 0}, {100, 1, 1, 1}, {255, 1, 1, 1}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s.percent_used = t[i].used;
		conds_for(&c, &s, NULL, NULL, r);
		cr_assert_eq(r[ALERT_USED_80].active, t[i].a80, "%u%%", t[i].used);
		cr_assert_eq(r[ALERT_USED_90].active, t[i].a90, "%u%%", t[i].used);
		cr_assert_eq(r[ALERT_USED_100].active, t[i].a100, "%u%%", t[i].used);
	}
}

Test(alert_rules, media_errors_increase_needs_a_previous_sample)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct smart_log prev = healthy(), cur = healthy();

	prev.media_errors = 3;
	cur.media_errors = 3;
	conds_for(&c, &cur, NULL, NULL, r);
	cr_assert_not(r[ALERT_MEDIA_ERRORS].known, "nothing to compare with");
	conds_for(&c, &cur, &prev, NULL, r);
	cr_assert(r[ALERT_MEDIA_ERRORS].known);
	cr_assert_not(r[ALERT_MEDIA_ERRORS].active);
	cur.media_errors = (u128)1 << 100; /* 128-bit, exact */
	conds_for(&c, &cur, &prev, NULL, r);
	cr_assert(r[ALERT_MEDIA_ERRORS].active);
}

Test(alert_rules, throttling_level_follows_the_open_events)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct smart_log s = healthy();
	bool open[_THROTTLE_KIND_MAX] = {0};

	open[THROTTLE_LIGHT] = true;
	conds_for(&c, &s, NULL, open, r);
	cr_assert(r[ALERT_THROTTLING].active);
	cr_assert_eq(r[ALERT_THROTTLING].severity, ALERT_SEV_WARNING);
	open[THROTTLE_HEAVY] = true;
	conds_for(&c, &s, NULL, open, r);
	cr_assert_eq(r[ALERT_THROTTLING].severity, ALERT_SEV_CRITICAL);
	open[THROTTLE_OVER_WCTEMP] = true;
	conds_for(&c, &s, NULL, open, r);
	cr_assert(r[ALERT_TEMP_WARNING].active);
	cr_assert_not(r[ALERT_TEMP_CRITICAL].active);

	c.rule_on[ALERT_THROTTLING] = false;
	conds_for(&c, &s, NULL, open, r);
	cr_assert(r[ALERT_THROTTLING].known, "a disabled rule resolves what it raised");
	cr_assert_not(r[ALERT_THROTTLING].active);
}

static struct alert_cond cond(bool active, enum alert_severity sev)
{
	return (struct alert_cond){.known = true, .active = active, .severity = sev};
}

#define MIN 60000LL

Test(alert_step, one_notification_per_episode_and_one_resolved)
{
	struct alert_cfg c = all_on();
	struct alert_slot slot = {0};
	struct alert_cond on = cond(true, ALERT_SEV_WARNING), off = cond(false, ALERT_SEV_WARNING);
	struct alert_decision d;
	int fires = 0, resolves = 0;

	/* On for 5 minutes, polled every 10 s, with a one-poll dip in the middle. */
	for (int64_t t = 0; t <= 5 * MIN; t += 10000) {
		d = alert_step(&slot, &c, t == 2 * MIN ? &off : &on, t);
		fires += d.action == ALERT_ACT_FIRE && d.notify;
		cr_assert_neq(d.action, ALERT_ACT_RESOLVE, "a 10 s dip is inside resolve_after");
	}
	for (int64_t t = 5 * MIN + 10000; t <= 7 * MIN; t += 10000) {
		d = alert_step(&slot, &c, &off, t);
		resolves += d.action == ALERT_ACT_RESOLVE && d.notify;
		if (d.action == ALERT_ACT_RESOLVE)
			cr_assert_geq(t - (5 * MIN + 10000), c.resolve_after_ms);
	}
	cr_assert_eq(fires, 1);
	cr_assert_eq(resolves, 1);
	cr_assert_not(slot.firing);
	/* Unknown (e.g. device offline) changes nothing. */
	struct alert_cond unknown = {0};
	d = alert_step(&slot, &c, &unknown, 8 * MIN);
	cr_assert_eq(d.action, ALERT_ACT_NONE);
}

Test(alert_step, cooldown_records_but_does_not_notify)
{
	struct alert_cfg c = all_on();
	struct alert_slot slot = {0};
	struct alert_cond on = cond(true, ALERT_SEV_WARNING), off = cond(false, ALERT_SEV_WARNING);
	struct alert_decision d;

	d = alert_step(&slot, &c, &on, 0);
	cr_assert(d.action == ALERT_ACT_FIRE && d.notify);
	alert_step(&slot, &c, &off, MIN);
	d = alert_step(&slot, &c, &off, 2 * MIN);
	cr_assert(d.action == ALERT_ACT_RESOLVE && d.notify);
	/* Back within the 15-minute cooldown: recorded, silent, and so is its end. */
	d = alert_step(&slot, &c, &on, 5 * MIN);
	cr_assert_eq(d.action, ALERT_ACT_FIRE);
	cr_assert_not(d.notify);
	alert_step(&slot, &c, &off, 6 * MIN);
	d = alert_step(&slot, &c, &off, 7 * MIN);
	cr_assert_eq(d.action, ALERT_ACT_RESOLVE);
	cr_assert_not(d.notify);
	/* After the cooldown: notified again. */
	d = alert_step(&slot, &c, &on, 20 * MIN);
	cr_assert(d.action == ALERT_ACT_FIRE && d.notify);
}

Test(alert_step, escalation_notifies_unless_acknowledged)
{
	struct alert_cfg c = all_on();
	struct alert_slot slot = {0};
	struct alert_cond warn = cond(true, ALERT_SEV_WARNING),
			  crit = cond(true, ALERT_SEV_CRITICAL);
	struct alert_decision d;

	alert_step(&slot, &c, &warn, 0);
	d = alert_step(&slot, &c, &crit, 10000);
	cr_assert(d.action == ALERT_ACT_ESCALATE && d.notify);
	d = alert_step(&slot, &c, &crit, 20000);
	cr_assert_eq(d.action, ALERT_ACT_NONE, "once");
	d = alert_step(&slot, &c, &warn, 30000);
	cr_assert_eq(d.action, ALERT_ACT_NONE, "no de-escalation noise");

	struct alert_slot acked = {0};
	alert_step(&acked, &c, &warn, 0);
	acked.acked = true;
	d = alert_step(&acked, &c, &crit, 10000);
	cr_assert_eq(d.action, ALERT_ACT_ESCALATE);
	cr_assert_not(d.notify);
}

Test(alert_names, round_trip)
{
	for (int r = 0; r < _ALERT_RULE_MAX; r++)
		cr_assert_eq(alert_rule_from_name(alert_rule_name(r)), r);
	for (int s = 0; s <= ALERT_SEV_CRITICAL; s++)
		cr_assert_eq(alert_severity_from_name(alert_severity_name(s)), s);
	cr_assert_eq(alert_rule_from_name("x"), -EINVAL);
}

/* ---- persistence --------------------------------------------------------- */

static char dir[] = "/tmp/nvmond-test-alert-XXXXXX";
static char db[256];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/a.db", dir);
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

static struct store *open_db(void)
{
	char err[STORE_ERR_MAX];
	struct store *s;
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	return s;
}

static int64_t add_device(struct store *s)
{
	struct device_row d = {.wctemp_k = 343,
			       .cctemp_k = 353,
			       .first_seen_ms = 1,
			       .last_seen_ms = 1,
			       .online = 1};
	int64_t id;
	snprintf(d.key, sizeof(d.key), "M/S1");
	snprintf(d.model, sizeof(d.model), "M");
	snprintf(d.serial, sizeof(d.serial), "S1");
	snprintf(d.name, sizeof(d.name), "nvme0");
	snprintf(d.namespaces, sizeof(d.namespaces), "[]");
	cr_assert_eq(store_device_upsert(s, &d, &id), 0);
	return id;
}

Test(store_alert, events_survive_a_reopen_and_ranges_overlap, .init = setup, .fini = teardown)
{
	struct store *s = open_db();
	int64_t dev = add_device(s), id1, id2;
	struct throttle_event a = {.kind = THROTTLE_LIGHT,
				   .start_ms = 1000,
				   .end_ms = 5000,
				   .last_rise_ms = 5000,
				   .duration_s = 4,
				   .transitions = 2,
				   .peak_k = 345,
				   .late = true};
	struct throttle_event b = {.kind = THROTTLE_HEAVY,
				   .start_ms = 10000,
				   .last_rise_ms = 12000,
				   .duration_s = 2,
				   .peak_k = 350,
				   .counter_reset = true};

	cr_assert_eq(store_event_insert(s, dev, &a, &id1), 0);
	cr_assert_eq(store_event_insert(s, dev, &b, &id2), 0);
	b.id = id2;
	b.duration_s = 7;
	cr_assert_eq(store_event_update(s, &b), 0);
	struct throttle_event ghost = {.id = 999};
	cr_assert_eq(store_event_update(s, &ghost), -ENOENT);
	s = store_close(s);

	s = open_db();
	struct throttle_event *v;
	size_t n;
	cr_assert_eq(store_events_open(s, dev, &v, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].id, id2);
	cr_assert_eq(v[0].kind, THROTTLE_HEAVY);
	cr_assert_eq(v[0].end_ms, 0);
	cr_assert_eq(v[0].duration_s, 7);
	cr_assert(v[0].counter_reset);
	free(v);
	/* [4000, 9000] overlaps a (ends at 5000) but not b (starts at 10000). */
	cr_assert_eq(store_events_range(s, dev, 4000, 9000, 100, &v, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].id, id1);
	cr_assert(v[0].late);
	cr_assert_eq(v[0].peak_k, 345);
	free(v);
	/* An open event overlaps everything after its start. */
	cr_assert_eq(store_events_range(s, dev, 1000000, 2000000, 100, &v, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].id, id2);
	free(v);
	store_close(s);
}

Test(store_alert, restart_state_latest_per_rule_with_last_notification, .init = setup,
     .fini = teardown)
{
	struct store *s = open_db();
	int64_t dev = add_device(s), id;
	struct alert_row a = {.device_id = dev,
			      .rule = ALERT_THROTTLING,
			      .severity = ALERT_SEV_WARNING,
			      .firing = false,
			      .started_ms = 1000,
			      .updated_ms = 2000,
			      .resolved_ms = 2000,
			      .notified_ms = 2000};

	snprintf(a.message, sizeof(a.message), "first");
	cr_assert_eq(store_alert_insert(s, &a, &id), 0);
	/* A second, silent episode (inside the cooldown), still firing. */
	a.firing = true;
	a.resolved_ms = 0;
	a.notified_ms = 0;
	a.started_ms = 3000;
	snprintf(a.message, sizeof(a.message), "second");
	cr_assert_eq(store_alert_insert(s, &a, &id), 0);
	a.rule = ALERT_OFFLINE;
	a.notified_ms = 3000;
	int64_t off_id;
	cr_assert_eq(store_alert_insert(s, &a, &off_id), 0);
	cr_assert_eq(store_alert_ack(s, off_id, 4000), 0);
	cr_assert_eq(store_alert_ack(s, off_id, 5000), 0, "acking twice keeps the first time");
	cr_assert_eq(store_alert_ack(s, 12345, 5000), -ENOENT);
	s = store_close(s);

	s = open_db();
	struct alert_row *v;
	size_t n;
	cr_assert_eq(store_alerts_latest(s, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(v[0].id, id);
	cr_assert_str_eq(v[0].message, "second");
	cr_assert(v[0].firing);
	cr_assert_eq(v[0].notified_ms, 0);
	cr_assert_eq(v[0].last_notified_ms, 2000, "the cooldown runs from the first episode");
	cr_assert_eq(v[1].rule, ALERT_OFFLINE);
	cr_assert_eq(v[1].acked_ms, 4000);
	free(v);

	cr_assert_eq(store_alerts_list(s, true, 0, &v, &n), 0);
	cr_assert_eq(n, 2, "two firing");
	free(v);
	cr_assert_eq(store_alerts_list(s, false, 2, &v, &n), 0);
	cr_assert_eq(n, 2, "limit");
	cr_assert_eq(v[0].id, off_id, "newest first");
	free(v);

	struct alert_row g;
	cr_assert_eq(store_alert_get(s, id, &g), 0);
	g.firing = false;
	g.resolved_ms = 9000;
	cr_assert_eq(store_alert_update(s, &g), 0);
	cr_assert_eq(store_alerts_list(s, true, 0, &v, &n), 0);
	cr_assert_eq(n, 1);
	free(v);
	cr_assert_eq(store_alert_get(s, 777, &g), -ENOENT);
	store_close(s);
}

/* The README's Alerts table, one condition per case. */
Test(alert_rules, readme_alert_table)
{
	enum { NO_PREV = -1 };
	const struct {
		const char *rule;
		int prev_media, cur_media; /* NO_PREV: no previous sample */
		uint8_t cw;
		unsigned open; /* bit per throttle kind */
		enum alert_rule r;
		bool active;
		enum alert_severity sev;
	} t[] = {
		{"media_errors: the count rose since the previous sample", 3, 4, 0, 0,
		 ALERT_MEDIA_ERRORS, true, ALERT_SEV_CRITICAL},
		{"media_errors: a count that went down (a reset) did not rise", 5, 0, 0, 0,
		 ALERT_MEDIA_ERRORS, false, ALERT_SEV_CRITICAL},
		{"temperature_critical: an over_cctemp event is open; critical", NO_PREV, 0, 0,
		 1u << THROTTLE_OVER_CCTEMP, ALERT_TEMP_CRITICAL, true, ALERT_SEV_CRITICAL},
		{"temperature_warning: an over_wctemp event is open; warning", NO_PREV, 0, 0,
		 1u << THROTTLE_OVER_WCTEMP, ALERT_TEMP_WARNING, true, ALERT_SEV_WARNING},
		{"critical_warning_temperature: covered by an open over_cctemp too (one hot spell, "
		 "one notification)",
		 NO_PREV, 0, SMART_CRIT_TEMPERATURE, 1u << THROTTLE_OVER_CCTEMP,
		 ALERT_CRIT_TEMPERATURE, false, ALERT_SEV_WARNING},
		{"critical_warning_temperature: the bit alone, no temperature event open", NO_PREV,
		 0, SMART_CRIT_TEMPERATURE, 0, ALERT_CRIT_TEMPERATURE, true, ALERT_SEV_WARNING},
		{"throttling: critical while heavy", NO_PREV, 0, 0,
		 1u << THROTTLE_LIGHT | 1u << THROTTLE_HEAVY, ALERT_THROTTLING, true,
		 ALERT_SEV_CRITICAL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_cfg c = all_on();
		struct alert_cond r[_ALERT_RULE_MAX];
		struct smart_log prev = healthy(), cur = healthy();
		bool open[_THROTTLE_KIND_MAX] = {0};

		for (int k = 0; k < _THROTTLE_KIND_MAX; k++)
			open[k] = t[i].open & 1u << k;
		prev.media_errors = t[i].prev_media < 0 ? 0 : (u128)t[i].prev_media;
		cur.media_errors = (u128)t[i].cur_media;
		cur.critical_warning = t[i].cw;
		conds_for(&c, &cur, t[i].prev_media == NO_PREV ? NULL : &prev, open, r);
		cr_expect(r[t[i].r].known, "%s: known", t[i].rule);
		cr_expect_eq(r[t[i].r].active, t[i].active, "%s: active", t[i].rule);
		if (t[i].active)
			cr_expect_eq(r[t[i].r].severity, t[i].sev, "%s: severity %d", t[i].rule,
				     r[t[i].r].severity);
	}
}

/*
 * Temperatures judged as the spec defines them, through the detector, the
 * sensor judge and the rules, as the daemon runs them on each sample. Rules:
 * NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature,
 * so temperature_warning / _critical follow the composite only; a sensor over
 * WCTEMP alerts (sensor_temperature) only when the operator asked
 * (sensor_alerts, sensor_limit_N) and never when it is implausible.
 */
Test(alert_rules, temperatures_judged_by_the_spec)
{
	const struct {
		const char *rule;
		uint16_t wc, cc;	    /* K */
		uint16_t comp[4], sens2[4]; /* K, one per sample, an hour apart (0: stop) */
		bool sensor_alerts;
		uint16_t config_k, drive_k; /* sensor 2's limits; 0 = none */
		bool temp_warning, sensor_temp;
	} t[] = {
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: the "
		 "stuck-sensor drive (Sensor 2 at 81.8 °C, WCTEMP 74.8 °C, composite 33.9 °C) "
		 "raises no alert by default",
		 348,
		 353,
		 {307, 307},
		 {355, 355},
		 false,
		 0,
		 0xffff,
		 false,
		 false},
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: the "
		 "same "
		 "drive over 6 h with the composite moving: still no alert, the sensor is stuck",
		 348,
		 353,
		 {305, 312, 309, 307},
		 {355, 355, 355, 355},
		 false,
		 0,
		 0xffff,
		 false,
		 false},
		{"sensor_alerts = yes: a plausible sensor over WCTEMP (its limit, FFFFh is none) "
		 "fires sensor_temperature, not temperature_warning",
		 348,
		 353,
		 {307, 307},
		 {355, 355},
		 true,
		 0,
		 0xffff,
		 false,
		 true},
		{"sensor_alerts = yes: a stuck sensor (unchanged 6 h, composite moved 7 °C) is "
		 "implausible and never alerts",
		 348,
		 353,
		 {305, 312, 0, 307},
		 {355, 355, 355, 355},
		 true,
		 0,
		 0xffff,
		 false,
		 false},
		{"sensor_limit_2 = 85 °C alerts without sensor_alerts, at 85 °C (inclusive)",
		 343,
		 373,
		 {310, 310},
		 {357, 358},
		 false,
		 358,
		 0,
		 false,
		 true},
		{"sensor_limit_2 = 85 °C: 84 °C is below it, no alert (WCTEMP does not count)",
		 343,
		 373,
		 {310, 310},
		 {357, 357},
		 false,
		 358,
		 0,
		 false,
		 false},
		{"sensor_alerts = yes: the drive's own threshold (Get Features 04h) is the limit, "
		 "not WCTEMP: 360 K is below 363 K",
		 343,
		 373,
		 {310, 310},
		 {360, 360},
		 true,
		 0,
		 363,
		 false,
		 false},
		{"a sensor beyond CCTEMP + 15 °C while the composite is below WCTEMP is "
		 "implausible: "
		 "no alert even with a limit",
		 343,
		 353,
		 {310},
		 {368},
		 true,
		 350,
		 0,
		 false,
		 false},
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: the "
		 "composite at WCTEMP fires temperature_warning; the cooler sensor does not alert",
		 343,
		 373,
		 {343},
		 {330},
		 true,
		 0,
		 0,
		 true,
		 false},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_cfg c = all_on();
		struct alert_cond r[_ALERT_RULE_MAX];
		struct throttle_state th = {0};
		struct throttle_cfg tc = {.wctemp_k = t[i].wc,
					  .cctemp_k = t[i].cc,
					  .hysteresis_c = 2,
					  .gap_ms = 30000,
					  .settle_ms = 20000,
					  .settle_min_ms = 130000};
		struct sensor_hist hist[SMART_NUM_SENSORS] = {0};
		struct sensors_cfg sc = {.sensor_alerts = t[i].sensor_alerts};
		struct sensors_verdict v;
		struct smart_log s = healthy();

		sc.config_limit_k[1] = t[i].config_k;
		sc.drive_limit_k[1] = t[i].drive_k;
		for (int k = 0; k < 4 && t[i].sens2[k]; k++) {
			struct throttle_update up[THROTTLE_MAX_UPDATES];
			int64_t now = 1764460800000LL + k * 2 * 3600 * 1000LL;

			s.temperature_k = t[i].comp[k];
			s.temp_sensor_k[1] = t[i].sens2[k];
			(void)throttle_feed(&th, &tc, &s, now, up);
			struct sensors_in sin = sensors_in_of(&s, t[i].wc, t[i].cc);
			sensors_judge(hist, &sin, &sc, now, &v);
		}
		struct alert_input in = {.cur = &s,
					 .throttle_open = th.open,
					 .throttle_ev = th.ev,
					 .wctemp_k = t[i].wc,
					 .cctemp_k = t[i].cc,
					 .sensors = &v};
		alert_conditions(&c, &in, r);
		cr_expect(r[ALERT_SENSOR_TEMP].known, "%s: known", t[i].rule);
		cr_expect_eq(r[ALERT_TEMP_WARNING].active, t[i].temp_warning,
			     "%s: temperature_warning", t[i].rule);
		cr_expect_not(r[ALERT_TEMP_CRITICAL].active, "%s: temperature_critical", t[i].rule);
		cr_expect_eq(r[ALERT_SENSOR_TEMP].active, t[i].sensor_temp,
			     "%s: sensor_temperature (%s)", t[i].rule,
			     r[ALERT_SENSOR_TEMP].message);
		if (t[i].sensor_temp)
			cr_expect_eq(r[ALERT_SENSOR_TEMP].severity, ALERT_SEV_WARNING, "%s",
				     t[i].rule);
	}
}

/* Without a sensor verdict the rule knows nothing; turned off, it resolves. */
Test(alert_rules, sensor_rule_unknown_without_a_verdict_off_with_the_rule)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct smart_log s = healthy();
	struct sensors_verdict v = {0};

	conds_for(&c, &s, NULL, NULL, r);
	cr_assert_not(r[ALERT_SENSOR_TEMP].known);
	s.temp_sensor_k[3] = 360;
	v.sensor[3] = (struct sensor_verdict){.reported = true,
					      .may_alert = true,
					      .limit_src = SENSOR_LIMIT_CONFIG,
					      .limit_k = 350,
					      .over_limit = true};
	static const bool none[_THROTTLE_KIND_MAX];
	static const struct throttle_event ev[_THROTTLE_KIND_MAX];
	struct alert_input in = {
		.cur = &s, .throttle_open = none, .throttle_ev = ev, .sensors = &v};
	alert_conditions(&c, &in, r);
	cr_assert(r[ALERT_SENSOR_TEMP].active);
	cr_assert(strstr(r[ALERT_SENSOR_TEMP].message, "sensor 4 at 87 °C"), "%s",
		  r[ALERT_SENSOR_TEMP].message);
	c.rule_on[ALERT_SENSOR_TEMP] = false;
	alert_conditions(&c, &in, r);
	cr_assert(r[ALERT_SENSOR_TEMP].known);
	cr_assert_not(r[ALERT_SENSOR_TEMP].active);
}

/*
 * README Alerts: "A rule that fires again on the same drive within cooldown of
 * its last notification is recorded but not notified" — the last notification
 * may be the resolved one at the end of a long episode, not its start.
 */
Test(alert_step, cooldown_counts_from_the_last_notification)
{
	struct alert_cfg c = all_on(); /* cooldown 15 min, resolve_after 30 s */
	struct alert_slot slot = {0};
	struct alert_cond on = cond(true, ALERT_SEV_WARNING), off = cond(false, ALERT_SEV_WARNING);
	struct alert_decision d;

	d = alert_step(&slot, &c, &on, 0);
	cr_assert(d.action == ALERT_ACT_FIRE && d.notify);
	alert_step(&slot, &c, &on, 20 * MIN); /* a 20-minute episode */
	alert_step(&slot, &c, &off, 20 * MIN + 10000);
	d = alert_step(&slot, &c, &off, 20 * MIN + 40000);
	cr_assert(d.action == ALERT_ACT_RESOLVE && d.notify, "resolved and notified");
	/* Two minutes after the resolved notification, 22 after the episode began. */
	d = alert_step(&slot, &c, &on, 22 * MIN + 40000);
	cr_assert_eq(d.action, ALERT_ACT_FIRE);
	cr_expect_not(d.notify, "within the cooldown of the resolved notification");
}

/* README Alerts: it resolves "after its condition has been absent for resolve_after". */
Test(alert_step, resolves_exactly_after_resolve_after)
{
	const struct {
		const char *rule;
		int64_t absent_ms;
		bool resolved;
	} t[] = {
		{"absent 29.999 s of a 30 s resolve_after: still firing", 29999, false},
		{"absent exactly 30 s: resolved", 30000, true},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_cfg c = all_on();
		struct alert_slot slot = {0};
		struct alert_cond on = cond(true, ALERT_SEV_WARNING),
				  off = cond(false, ALERT_SEV_WARNING);
		struct alert_decision d;

		alert_step(&slot, &c, &on, 0);
		alert_step(&slot, &c, &off, 10000);
		d = alert_step(&slot, &c, &off, 10000 + t[i].absent_ms);
		cr_expect_eq(d.action == ALERT_ACT_RESOLVE, t[i].resolved, "%s", t[i].rule);
	}
}

/*
 * io_errors (issue 11): fires on a media / io entry of the error log, holds
 * for 24 h after the newest one (then resolves after resolve_after), and never
 * looks at the count of entries: benign entries and entries from before nvmond
 * watched the drive never reach it (the caller passes io_error_ms 0).
 */
Test(alert_rules, io_errors_table)
{
	const int64_t now = 1796005160000LL, H = 3600 * 1000LL;
	const struct {
		const char *rule;
		int64_t io_error_ms;   /* 0 = none */
		int prev_err, cur_err; /* num_err_log_entries */
		bool on, active;
	} t[] = {
		{"no media or io entry: inactive, and known (resolves what it raised)", 0, 3, 3,
		 true, false},
		{"the count of entries rose but no entry was media or io (benign ones)", 0, 3, 40,
		 true, false},
		{"a media entry read just now: active", now, 3, 4, true, true},
		{"read 23 h 59 min ago: still active", now - 24 * H + 60000, 4, 4, true, true},
		{"read exactly 24 h ago: over", now - 24 * H, 4, 4, true, false},
		{"the rule turned off: inactive", now, 3, 4, false, false},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_cfg c = all_on();
		struct alert_cond r[_ALERT_RULE_MAX];
		struct smart_log prev = healthy(), cur = healthy();
		static const bool none[_THROTTLE_KIND_MAX];
		struct throttle_event ev[_THROTTLE_KIND_MAX] = {0};

		c.rule_on[ALERT_IO_ERRORS] = t[i].on;
		prev.num_err_log_entries = (u128)t[i].prev_err;
		cur.num_err_log_entries = (u128)t[i].cur_err;
		struct alert_input in = {
			.cur = &cur,
			.prev = &prev,
			.throttle_open = none,
			.throttle_ev = ev,
			.wctemp_k = 343,
			.cctemp_k = 353,
			.io_error_ms = t[i].io_error_ms,
			.io_error_desc = "entry 4: Unrecovered Read Error (SCT 2h, SC 81h) on I/O "
					 "queue 1, CID 4, NSID 1, LBA 4096",
			.now_ms = now,
		};
		alert_conditions(&c, &in, r);
		cr_expect(r[ALERT_IO_ERRORS].known, "%s: known", t[i].rule);
		cr_expect_eq(r[ALERT_IO_ERRORS].active, t[i].active, "%s: active", t[i].rule);
		cr_expect_eq(r[ALERT_IO_ERRORS].severity, ALERT_SEV_CRITICAL, "%s: critical",
			     t[i].rule);
		if (t[i].active)
			cr_expect(strstr(r[ALERT_IO_ERRORS].message, "Unrecovered Read Error"),
				  "%s: the message names the entry: %s", t[i].rule,
				  r[ALERT_IO_ERRORS].message);
		cr_expect_not(r[ALERT_MEDIA_ERRORS].active,
			      "%s: media_errors follows its own counter", t[i].rule);
	}
	cr_expect_str_eq(alert_rule_name(ALERT_IO_ERRORS), "io_errors");
	cr_expect_str_eq(alert_rule_name(ALERT_IO_ERRORS), ERRCLASS_ALERT_NAME);
}

/* A burst of media entries is one alert: fires at the first, holds while more
 * come, and ends resolve_after after the hold (24 h after the newest). */
Test(alert_step, io_errors_burst_is_one_alert)
{
	const int64_t t0 = 1796005160000LL, H = 3600 * 1000LL;
	struct alert_cfg c = all_on(); /* resolve_after 30 s */
	struct alert_slot slot = {0};
	struct smart_log s = healthy();
	static const bool none[_THROTTLE_KIND_MAX];
	struct throttle_event ev[_THROTTLE_KIND_MAX] = {0};
	struct alert_cond r[_ALERT_RULE_MAX];
	struct alert_input in = {.cur = &s, .throttle_open = none, .throttle_ev = ev};
	int fires = 0, resolves = 0;
	int64_t resolved_at = 0;

	/* Media entries read at t0, t0 + 1 h and t0 + 2 h; polls every 10 min for 3 days. */
	for (int64_t t = t0; t < t0 + 72 * H; t += 10 * 60000) {
		in.now_ms = t;
		in.io_error_ms = t >= t0 + 2 * H ? t0 + 2 * H : t >= t0 + H ? t0 + H : t0;
		alert_conditions(&c, &in, r);
		struct alert_decision d = alert_step(&slot, &c, &r[ALERT_IO_ERRORS], t);
		fires += d.action == ALERT_ACT_FIRE;
		if (d.action == ALERT_ACT_RESOLVE) {
			resolves++;
			resolved_at = t;
		}
	}
	cr_expect_eq(fires, 1, "one alert for the burst");
	cr_expect_eq(resolves, 1);
	cr_expect_geq(resolved_at, t0 + 26 * H, "held 24 h after the newest entry");
	cr_expect_leq(resolved_at, t0 + 26 * H + 20 * 60000, "then resolved: %lld",
		      (long long)(resolved_at - t0));
}

/* Issue 11: the facts rules, link_degraded and firmware_changed. */
Test(alert_rules, facts_rules_table)
{
	const int64_t now = 1764460800000LL, day = 24 * 3600 * 1000LL;
	const struct {
		const char *what;
		bool link_known, link_degraded;
		int64_t changed_ago_ms; /* -1: no change seen */
		bool rules_on;
		enum alert_rule r;
		bool known, active;
		enum alert_severity sev;
	} t[] = {
		{"link_degraded: a Gen4 x4 drive at Gen3 x2 is a warning", true, true, -1, true,
		 ALERT_LINK_DEGRADED, true, true, ALERT_SEV_WARNING},
		{"link_degraded: a link at its maximum", true, false, -1, true, ALERT_LINK_DEGRADED,
		 true, false, ALERT_SEV_WARNING},
		{"link_degraded: nothing of the link known keeps the state", false, false, -1, true,
		 ALERT_LINK_DEGRADED, false, false, ALERT_SEV_WARNING},
		{"link_degraded: turned off resolves", true, true, -1, false, ALERT_LINK_DEGRADED,
		 true, false, ALERT_SEV_WARNING},
		{"firmware_changed: just seen is info", true, false, 0, true,
		 ALERT_FIRMWARE_CHANGED, true, true, ALERT_SEV_INFO},
		{"firmware_changed: still firing a minute before a day", true, false, day - 60000,
		 true, ALERT_FIRMWARE_CHANGED, true, true, ALERT_SEV_INFO},
		{"firmware_changed: over after a day", true, false, day, true,
		 ALERT_FIRMWARE_CHANGED, true, false, ALERT_SEV_INFO},
		{"firmware_changed: never changed (the baseline is no change)", true, false, -1,
		 true, ALERT_FIRMWARE_CHANGED, true, false, ALERT_SEV_INFO},
		{"firmware_changed: turned off resolves", true, false, 0, false,
		 ALERT_FIRMWARE_CHANGED, true, false, ALERT_SEV_INFO},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_cfg c = all_on();
		struct alert_cond r[_ALERT_RULE_MAX];
		struct alert_facts_input in = {
			.link_known = t[i].link_known,
			.link_degraded = t[i].link_degraded,
			.link = "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)",
			.firmware_changed_ms =
				t[i].changed_ago_ms < 0 ? 0 : now - t[i].changed_ago_ms,
			.firmware_prev = "5B2QGXA7",
			.firmware = "5B2QGXA8",
			.now_ms = now,
		};

		c.rule_on[ALERT_LINK_DEGRADED] = c.rule_on[ALERT_FIRMWARE_CHANGED] = t[i].rules_on;
		alert_facts_conditions(&c, &in, r);
		cr_expect_eq(r[t[i].r].known, t[i].known, "%s: known", t[i].what);
		cr_expect_eq(r[t[i].r].active, t[i].active, "%s: active", t[i].what);
		if (t[i].active)
			cr_expect_eq(r[t[i].r].severity, t[i].sev, "%s: severity", t[i].what);
		/* every other rule keeps its state */
		for (int k = 0; k < ALERT_LINK_DEGRADED; k++)
			cr_expect_not(r[k].known, "%s: rule %s left unknown", t[i].what,
				      alert_rule_name(k));
	}
}

Test(alert_rules, facts_messages_and_sample_rules_leave_them_unknown)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	struct alert_facts_input in = {
		.link_known = true,
		.link_degraded = true,
		.link = "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)",
		.firmware_changed_ms = 1000,
		.firmware_prev = "1.0",
		.firmware = "2.0",
		.now_ms = 2000,
	};
	struct smart_log cur = healthy();
	bool open[_THROTTLE_KIND_MAX] = {0};

	alert_facts_conditions(&c, &in, r);
	cr_expect_str_eq(r[ALERT_LINK_DEGRADED].message,
			 "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4): the link runs below what the drive "
			 "supports, which caps its throughput");
	cr_expect_str_eq(r[ALERT_FIRMWARE_CHANGED].message, "firmware changed from 1.0 to 2.0");
	conds_for(&c, &cur, NULL, open, r);
	cr_expect_not(r[ALERT_LINK_DEGRADED].known, "samples say nothing of the link");
	cr_expect_not(r[ALERT_FIRMWARE_CHANGED].known);
	cr_expect_str_eq(alert_rule_name(ALERT_LINK_DEGRADED), "link_degraded");
	cr_expect_eq(alert_rule_from_name("firmware_changed"), ALERT_FIRMWARE_CHANGED);
}

/*
 * A condition's message is valid UTF-8, cut at a character (issue 23 §7: the
 * API and the JSON sinks refuse anything else): a link text from sysfs with a
 * multi-byte character over the 159-byte cut, and one with a byte that is not
 * UTF-8 (U+FFFD).
 */
Test(alert_rules, messages_are_valid_utf8_cut_at_a_character)
{
	struct alert_cfg c = all_on();
	struct alert_cond r[_ALERT_RULE_MAX];
	char link[200];
	int over_cut = 0;

	for (size_t pad = 80; pad < 100; pad++) {
		memset(link, 'x', pad);
		snprintf(link + pad, sizeof(link) - pad, "\xE2\x80\xA6 x4");
		struct alert_facts_input in = {
			.link_known = true, .link_degraded = true, .link = link, .now_ms = 1};
		alert_facts_conditions(&c, &in, r);
		const char *m = r[ALERT_LINK_DEGRADED].message;
		cr_expect(utf8_valid(m, strlen(m)), "pad %zu: %s", pad, m);
		over_cut += strlen(m) < 159; /* the ellipsis did not fit whole */
	}
	cr_expect_gt(over_cut, 0, "the cut never fell inside the ellipsis");
	struct alert_facts_input bad = {
		.link_known = true, .link_degraded = true, .link = "PCIe \xFF x2", .now_ms = 1};
	alert_facts_conditions(&c, &bad, r);
	cr_expect(!strncmp(r[ALERT_LINK_DEGRADED].message, "PCIe " UTF8_REPLACEMENT " x2:", 11),
		  "%s", r[ALERT_LINK_DEGRADED].message);
}

/* alerts.md: "unresponsive (critical): a command to the controller passed
 * [daemon] device_timeout and has not returned; resolves once it returns";
 * [alerts] unresponsive = no resolves it. */
Test(alert_rules, unresponsive_follows_the_stuck_command)
{
	static const struct {
		const char *what;
		bool unresponsive, rule_on;
		bool known, active;
	} t[] = {
		{"a command stuck past its deadline fires", true, true, true, true},
		{"the command returned: resolves", false, true, true, false},
		{"turned off resolves", true, false, true, false},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_cfg c = all_on();
		struct alert_cond r[_ALERT_RULE_MAX];
		struct alert_facts_input in = {
			.unresponsive = t[i].unresponsive, .timeout_ms = 5000, .now_ms = 1000};

		c.rule_on[ALERT_UNRESPONSIVE] = t[i].rule_on;
		alert_facts_conditions(&c, &in, r);
		cr_expect_eq(r[ALERT_UNRESPONSIVE].known, t[i].known, "%s: known", t[i].what);
		cr_expect_eq(r[ALERT_UNRESPONSIVE].active, t[i].active, "%s: active", t[i].what);
		if (t[i].active) {
			cr_expect_eq(r[ALERT_UNRESPONSIVE].severity, ALERT_SEV_CRITICAL, "%s",
				     t[i].what);
			cr_expect(strstr(r[ALERT_UNRESPONSIVE].message, "within 5000 ms"), "%s",
				  t[i].what);
		}
		cr_expect_not(r[ALERT_OFFLINE].known, "%s: offline left to the poller", t[i].what);
	}
	cr_expect_eq(alert_rule_from_name("unresponsive"), ALERT_UNRESPONSIVE);
}
