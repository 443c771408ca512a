/* SPDX-License-Identifier: MIT */
/*
 * The health rule's inputs from the fleet (monitor/fleet_health.c): what a drive's
 * row, facts, latest sample, configured rating and firing alerts give
 * analysis/health.c, and the firing alerts of a drive from the store's list
 * (docs/dashboard.md#health).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/fleet_health.h"

#define TB	     (1000ULL * 1000 * 1000 * 1000)
#define UNITS_PER_TB (TB / 512000)

/* A 950 PRO (built-in rating 400 TB) at 45 °C, 7 % used, 40 TB written. */
static struct fleet_device drive(void)
{
	struct fleet_device d = {0};

	d.row = (struct device_row){.id = 4, .online = 1, .wctemp_k = 343, .cctemp_k = 353};
	strcpy(d.row.model, "Samsung SSD 950 PRO 512GB");
	d.has_sample = true;
	d.last.source = SAMPLE_SOURCE_SMART;
	d.last.smart = (struct smart_log){.temperature_k = 318,
					  .avail_spare = 100,
					  .spare_thresh = 10,
					  .percent_used = 7,
					  .data_units_written = 40 * UNITS_PER_TB};
	return d;
}

static char *why(const struct health_verdict *v, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < v->n_why && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "; " : "", v->why[i]);
	return buf;
}

static struct health_verdict judge(const struct fleet_device *d)
{
	struct health_verdict v;

	fleet_health(d, &v);
	return v;
}

Test(fleet_health, inputs)
{
	struct fleet_device d = drive();
	struct health_verdict v;
	char buf[1024];

	v = judge(&d);
	cr_expect_eq(v.state, HEALTH_OK, "%s", why(&v, buf, sizeof(buf)));

	/* The health log's fields: bits, spare, Percentage Used, the composite. */
	d.last.smart.critical_warning = SMART_CRIT_TEMPERATURE;
	d.last.smart.avail_spare = 9;
	d.last.smart.percent_used = 81;
	d.last.smart.temperature_k = 343;
	v = judge(&d);
	cr_expect_str_eq(why(&v, buf, sizeof(buf)),
			 "temperature warning bit; spare below threshold; 81 % used; at WCTEMP");
	d = drive();
	d.last.smart.temperature_k = 353;
	cr_expect_str_eq(why((v = judge(&d), &v), buf, sizeof(buf)), "at CCTEMP",
			 "CCTEMP from the row");

	/* The rated endurance: the built-in table's, or the configured one, which wins. */
	d = drive();
	d.last.smart.data_units_written = 320 * UNITS_PER_TB;
	v = judge(&d);
	cr_expect_str_eq(why(&v, buf, sizeof(buf)), "80 % of rated TBW", "400 TB built in");
	d.rated_bytes_cfg = 320 * TB;
	v = judge(&d);
	cr_expect_str_eq(why(&v, buf, sizeof(buf)), "rated TBW reached", "rated_tbw = 320TB");
	strcpy(d.row.model, "ACME unknown");
	d.rated_bytes_cfg = 0;
	v = judge(&d);
	cr_expect_eq(v.state, HEALTH_OK, "rating unknown: %s", why(&v, buf, sizeof(buf)));

	/* A hwmon sample (no privileges) gives the temperature only. */
	d = drive();
	d.last.source = SAMPLE_SOURCE_HWMON;
	d.last.smart.critical_warning = SMART_CRIT_READ_ONLY;
	d.last.smart.percent_used = 100;
	d.last.smart.avail_spare = 0;
	d.last.smart.data_units_written = 500 * UNITS_PER_TB;
	d.last.smart.temperature_k = 344;
	v = judge(&d);
	cr_expect_str_eq(why(&v, buf, sizeof(buf)), "at WCTEMP", "hwmon sample");

	/* Offline (the row), unresponsive (the facts), no sample. */
	d = drive();
	d.facts.unresponsive = true;
	cr_expect_eq(judge(&d).state, HEALTH_CRITICAL);
	d.row.online = 0;
	cr_expect_eq(judge(&d).state, HEALTH_OFFLINE);
	d = drive();
	d.has_sample = false;
	cr_expect_eq(judge(&d).state, HEALTH_UNKNOWN);
}

Test(fleet_health, alerts)
{
	struct fleet_device d = drive();
	const struct alert_row rows[] = {
		/* the store's firing alerts, newest first, of every drive */
		{.id = 30,
		 .device_id = 4,
		 .rule = ALERT_FIRMWARE_CHANGED,
		 .severity = ALERT_SEV_INFO,
		 .firing = true,
		 .message = "firmware changed from A to B"},
		{.id = 29,
		 .device_id = 5,
		 .rule = ALERT_MEDIA_ERRORS,
		 .severity = ALERT_SEV_CRITICAL,
		 .firing = true,
		 .message = "another drive's"},
		{.id = 28,
		 .device_id = 4,
		 .rule = ALERT_WRITE_RATE,
		 .severity = ALERT_SEV_WARNING,
		 .firing = true,
		 .message = ""},
		{.id = 27,
		 .device_id = 4,
		 .rule = ALERT_SPARE,
		 .severity = ALERT_SEV_CRITICAL,
		 .firing = false,
		 .message = "resolved"},
	};
	struct health_verdict v;
	char buf[1024];

	fleet_alerts_from_rows(rows, 4, 4, &d.alerts);
	cr_assert_eq(d.alerts.n, 2, "this drive's firing ones");
	cr_expect_eq(d.alerts.v[0].id, 30);
	cr_expect_eq(d.alerts.v[1].id, 28);
	v = judge(&d);
	cr_expect_eq(v.state, HEALTH_WARNING);
	cr_expect_str_eq(why(&v, buf, sizeof(buf)), "firmware changed from A to B; write_rate",
			 "newest first; a message-less alert by its rule's name");
}

/* The fleet's generation moves when a drive's alerts or rating change, only then
 * (GET /api/v1/devices is served from a memo of one generation). */
Test(fleet_health, generation)
{
	struct fleet *f = fleet_new();
	struct fleet_device d = drive(), got;
	struct fleet_alerts fa = {.n = 1, .v = {{.id = 3, .rule = ALERT_THROTTLING}}};

	cr_assert_not_null(f);
	/* The alerts service copies the fleet at start, before the first scan: maybe empty. */
	struct fleet_device *none = NULL;
	size_t n_none = 1;
	cr_assert_eq(fleet_snapshot(f, &none, &n_none), 0);
	cr_expect_eq(n_none, 0);
	free(none);
	cr_assert_eq(fleet_put_device(f, &d.row), 0);
	uint64_t g = fleet_generation(f);
	cr_expect_eq(fleet_put_alerts(f, 4, &fa), 0);
	cr_expect_gt(fleet_generation(f), g);
	g = fleet_generation(f);
	cr_expect_eq(fleet_put_alerts(f, 4, &fa), 0);
	cr_expect_eq(fleet_generation(f), g, "the same alerts");
	strcpy(fa.v[0].message, "escalated");
	cr_expect_eq(fleet_put_alerts(f, 4, &fa), 0);
	cr_expect_gt(fleet_generation(f), g, "a new message");
	g = fleet_generation(f);
	cr_expect_eq(fleet_put_rated(f, 4, 600 * TB), 0);
	cr_expect_gt(fleet_generation(f), g);
	g = fleet_generation(f);
	cr_expect_eq(fleet_put_rated(f, 4, 600 * TB), 0);
	cr_expect_eq(fleet_generation(f), g);
	cr_expect_eq(fleet_put_alerts(f, 99, &fa), -ENOENT);
	cr_expect_eq(fleet_put_rated(f, 99, 1), -ENOENT);
	/* A self-test state of no drive changes nothing; a drive's does. */
	struct fleet_selftest st = {.log_read = true, .running = 1, .percent = 40};
	cr_expect_eq(fleet_put_selftest(f, 99, &st), -ENOENT);
	cr_expect_eq(fleet_generation(f), g, "no drive 99: nothing changed");
	cr_expect_eq(fleet_put_selftest(f, 4, &st), 0);
	cr_expect_gt(fleet_generation(f), g);
	cr_assert_eq(fleet_get(f, 4, &got), 0);
	cr_expect_eq(got.rated_bytes_cfg, 600 * TB);
	cr_expect_str_eq(got.alerts.v[0].message, "escalated");
	fleet_free(f);
}
