/* SPDX-License-Identifier: MIT */
/*
 * The sensors judged with the configuration and the drive's own thresholds
 * (monitor/temps.c): which settings reach the pure judge, in which units.
 * Rules: NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite
 * Temperature, so a sensor over WCTEMP is a note unless the operator asks for
 * sensor alerts ([device] / [alerts] sensor_alerts, sensor_limit_N in °C).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/monitor/temps.h"

#define T0 1764460800000LL

static struct cfg cfg_with(const char *section, const char *key, const char *value)
{
	char err[CFG_ERR_MAX];
	struct cfg c;

	cfg_defaults(&c);
	if (section)
		cr_assert_eq(cfg_set(&c, section, key, value, err), 0, "%s", err);
	return c;
}

/* The stuck-sensor drive: WCTEMP 74.8 °C (348 K), Sensor 2 at 81.8 °C (355 K). */
static const struct smart_log stuck = {.temperature_k = 307, .temp_sensor_k = {0, 355}};

Test(temps, table)
{
	static const uint16_t ffff[SMART_NUM_SENSORS] = {0xffff, 0xffff};
	static const uint16_t s2_360[SMART_NUM_SENSORS] = {0, 360};
	const struct {
		const char *rule;
		const char *section, *key, *value;
		const uint16_t *drive_limit_k;
		bool note, may_alert, over;
		enum sensor_limit_src src;
		uint16_t limit_k;
	} t[] = {
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: by "
		 "default the stuck 81.8 °C sensor is a note, it may not alert",
		 NULL, NULL, NULL, ffff, true, false, false, SENSOR_LIMIT_NONE, 0},
		{"[device \"CT1\"] sensor_alerts = yes: FFFFh is no threshold, WCTEMP is the limit",
		 "device \"CT1\"", "sensor_alerts", "yes", ffff, true, true, true,
		 SENSOR_LIMIT_WCTEMP, 348},
		{"[alerts] sensor_alerts = yes is every drive's default", "alerts", "sensor_alerts",
		 "yes", NULL, true, true, true, SENSOR_LIMIT_WCTEMP, 348},
		{"sensor_alerts = yes: the drive's own threshold (Get Features 04h) wins over "
		 "WCTEMP",
		 "alerts", "sensor_alerts", "yes", s2_360, true, true, false, SENSOR_LIMIT_DRIVE,
		 360},
		{"the drive's threshold alone does not make a sensor alert", NULL, NULL, NULL,
		 s2_360, true, false, false, SENSOR_LIMIT_NONE, 0},
		{"sensor_limit_2 = 82 (°C, + 273 K as the drive reports) alerts without "
		 "sensor_alerts: 355 K is at it",
		 "device \"S1\"", "sensor_limit_2", "82", ffff, true, true, true,
		 SENSOR_LIMIT_CONFIG, 355},
		{"sensor_limit_2 = 83: 355 K is below it", "device \"S1\"", "sensor_limit_2", "83",
		 ffff, true, true, false, SENSOR_LIMIT_CONFIG, 356},
		{"sensor_limit_1 is another sensor's limit", "device \"S1\"", "sensor_limit_1",
		 "50", ffff, true, false, false, SENSOR_LIMIT_NONE, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cfg c = cfg_with(t[i].section, t[i].key, t[i].value);
		struct temps_drive d = {.model = "CT1",
					.serial = "S1",
					.wctemp_k = 348,
					.cctemp_k = 353,
					.drive_limit_k = t[i].drive_limit_k};
		struct sensor_hist hist[SMART_NUM_SENSORS] = {0};
		struct fleet_temps ft;

		temps_judge(&c, &d, hist, &stuck, T0, &ft);
		const struct sensor_verdict *v = &ft.v.sensor[1];
		cr_expect(ft.judged, "%s", t[i].rule);
		cr_expect_eq(v->note, t[i].note, "%s: note", t[i].rule);
		cr_expect_eq(v->may_alert, t[i].may_alert, "%s: may_alert", t[i].rule);
		cr_expect_eq(v->over_limit, t[i].over, "%s: over_limit", t[i].rule);
		cr_expect_eq(v->limit_src, t[i].src, "%s: limit from %s", t[i].rule,
			     sensor_limit_src_name(v->limit_src));
		cr_expect_eq(v->limit_k, t[i].limit_k, "%s: limit %u", t[i].rule, v->limit_k);
		cr_expect_eq(ft.drive_limit_k[1], t[i].drive_limit_k ? t[i].drive_limit_k[1] : 0,
			     "%s: the drive's threshold kept for the API", t[i].rule);
		cr_expect_not(ft.v.sensor[0].reported, "%s: sensor 1 not reported", t[i].rule);
	}
}

/* The poller keeps the history: 6 h of the same 355 K while the composite moves. */
Test(temps, history_makes_a_stuck_sensor_implausible)
{
	struct cfg c = cfg_with("alerts", "sensor_alerts", "yes");
	struct temps_drive d = {.model = "CT1", .serial = "S1", .wctemp_k = 348, .cctemp_k = 353};
	struct sensor_hist hist[SMART_NUM_SENSORS] = {0};
	struct smart_log s = stuck;
	struct fleet_temps ft;

	temps_judge(&c, &d, hist, &s, T0, &ft);
	cr_assert(ft.v.sensor[1].over_limit, "plausible at first: it alerts as asked");
	s.temperature_k = 313;
	temps_judge(&c, &d, hist, &s, T0 + 3 * 3600 * 1000LL, &ft);
	s.temperature_k = 307;
	temps_judge(&c, &d, hist, &s, T0 + 6 * 3600 * 1000LL, &ft);
	cr_assert_eq(ft.v.sensor[1].implausible, SENSOR_STUCK);
	cr_assert_not(ft.v.sensor[1].over_limit, "an implausible sensor never alerts");
}

Test(temps, reported_mask)
{
	struct smart_log s = {.temp_sensor_k = {300, 0, 0, 0, 0, 0, 0, 310}};

	cr_assert_eq(temps_reported(&s), 0x81);
	cr_assert_eq(temps_reported(&(struct smart_log){0}), 0);
}
