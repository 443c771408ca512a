/* SPDX-License-Identifier: MIT */
/*
 * A drive's health (analysis/health.c), the one rule the API, the dashboard,
 * `nvmond status` and /metrics show. Each case names its rule: the sentence of
 * docs/dashboard.md#health it holds the code to, or the NVMe Base 2.0 clause
 * (Figure 207: the SMART / Health Information log; Figure 275: Identify
 * Controller's WCTEMP and CCTEMP); the thresholds and the words
 * are those the dashboard's health() had (web/dashboard.js before issue 24's
 * follow-up), so nothing a user sees changed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/analysis/health.h"
#include "nvmond/decode/smart.h"

/* A case overrides a few fields of HEALTHY (later designators win, on purpose). */
#pragma GCC diagnostic ignored "-Woverride-init"

/* 45 °C, WCTEMP 70 °C, CCTEMP 80 °C, 7 % used, spare 100 % (threshold 10 %). */
#define HEALTHY                                                                                    \
	.online = true, .has_sample = true, .avail_spare = 100, .spare_thresh = 10,                \
	.percent_used = 7, .temp_k = 318, .wctemp_k = 343, .cctemp_k = 353

#define C(k) ((uint16_t)((k) + 273))

struct hcase {
	const char *rule;
	struct health_input in;
	struct health_alert alerts[3];
	size_t n_alerts;
	enum health_state want;
	const char *why; /* the reasons joined with "; " */
};

static const struct hcase cases[] = {
	{"dashboard.md#health: ok otherwise", {HEALTHY}, {{0}}, 0, HEALTH_OK, ""},
	/* offline, unresponsive, unknown */
	{"dashboard.md#health: offline when the drive is offline (not seen now), whatever fires",
	 {HEALTHY, .online = false, .unresponsive = true, .percent_used = 100},
	 {{ALERT_SEV_CRITICAL, "offline", "device nvme0 (serial S1) disappeared"}},
	 1,
	 HEALTH_OFFLINE,
	 "not seen now"},
	{"dashboard.md#health: critical while the controller is unresponsive (a command stuck past "
	 "[daemon] device_timeout)",
	 {HEALTHY, .unresponsive = true},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "unresponsive: a command got no answer within device_timeout"},
	{"dashboard.md#health: critical while the controller is unresponsive, also before its "
	 "first sample",
	 {HEALTHY, .unresponsive = true, .has_sample = false},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "unresponsive: a command got no answer within device_timeout"},
	{"dashboard.md#health: unknown before nvmond has a sample of the drive (no sample yet)",
	 {HEALTHY, .has_sample = false},
	 {{ALERT_SEV_WARNING, "link_degraded", "PCIe 8.0 GT/s x2"}},
	 1,
	 HEALTH_UNKNOWN,
	 "no sample yet"},
	/* critical-warning bits */
	{"dashboard.md#health: the temperature bit (1) warns (drives set it when they pass WCTEMP)",
	 {HEALTHY, .critical_warning = SMART_CRIT_TEMPERATURE},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "temperature warning bit"},
	{"dashboard.md#health: any other is critical (spare below threshold); "
	 "NVMe Base 2.0 Figure 207, Critical Warning bit 0",
	 {HEALTHY, .critical_warning = SMART_CRIT_SPARE},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "spare below threshold"},
	{"dashboard.md#health: any other is critical (reliability degraded); "
	 "NVMe Base 2.0 Figure 207, Critical Warning bit 2",
	 {HEALTHY, .critical_warning = SMART_CRIT_DEGRADED},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "reliability degraded"},
	{"dashboard.md#health: any other is critical (read-only); "
	 "NVMe Base 2.0 Figure 207, Critical Warning bit 3",
	 {HEALTHY, .critical_warning = SMART_CRIT_READ_ONLY},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "read-only"},
	{"dashboard.md#health: any other is critical (volatile backup failed); "
	 "NVMe Base 2.0 Figure 207, Critical Warning bit 4",
	 {HEALTHY, .critical_warning = SMART_CRIT_VOLATILE},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "volatile backup failed"},
	{"dashboard.md#health: any other is critical (PMR read-only); "
	 "NVMe Base 2.0 Figure 207, Critical Warning bit 5",
	 {HEALTHY, .critical_warning = SMART_CRIT_PMR_RO},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "PMR read-only"},
	{"dashboard.md#health: else the worst of these, each adding its reason in this order",
	 {HEALTHY, .critical_warning = SMART_CRIT_TEMPERATURE | SMART_CRIT_READ_ONLY},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "temperature warning bit; read-only"},
	{"NVMe Base 2.0 Figure 207, Critical Warning bits 7:6 are reserved: no reason, no state",
	 {HEALTHY, .critical_warning = 0xc0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	/* spare */
	{"dashboard.md#health: available spare strictly below its threshold: critical",
	 {HEALTHY, .avail_spare = 9},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "spare below threshold"},
	{"NVMe Base 2.0 Figure 207, Available Spare Threshold: an event when the spare "
	 "\"falls below\" it; at it is not below",
	 {HEALTHY, .avail_spare = 10},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"dashboard.md#health: available spare strictly below its threshold: critical, one reason "
	 "when bit 0 says so too",
	 {HEALTHY, .critical_warning = SMART_CRIT_SPARE, .avail_spare = 5},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "spare below threshold"},
	{"dashboard.md#health: available spare strictly below its threshold: 0 and 0 (QEMU) is not",
	 {HEALTHY, .avail_spare = 0, .spare_thresh = 0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	/* Percentage Used */
	{"dashboard.md#health: Percentage Used ≥ 80: a warning (79 is under it: ok)",
	 {HEALTHY, .percent_used = 79},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"dashboard.md#health: Percentage Used ≥ 80: a warning (*80 % used*)",
	 {HEALTHY, .percent_used = 80},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "80 % used"},
	{"dashboard.md#health: Percentage Used ≥ 100: critical; ≥ 80: a warning (99)",
	 {HEALTHY, .percent_used = 99},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "99 % used"},
	{"dashboard.md#health: Percentage Used ≥ 100: critical (*rated life used up*)",
	 {HEALTHY, .percent_used = 100},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "rated life used up"},
	{"NVMe Base 2.0 Figure 207, Percentage Used: \"allowed to exceed 100\", 255 for "
	 "more than 254: still ≥ 100, critical",
	 {HEALTHY, .percent_used = 255},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "rated life used up"},
	/* temperature */
	{"dashboard.md#health: else at WCTEMP: a warning (1 °C below it: ok)",
	 {HEALTHY, .temp_k = C(69)},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"dashboard.md#health: else at WCTEMP: a warning (*at WCTEMP*); "
	 "NVMe Base 2.0 Figure 275, WCTEMP: the minimum Composite Temperature of an overheating "
	 "condition",
	 {HEALTHY, .temp_k = C(70)},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "at WCTEMP"},
	{"dashboard.md#health: the composite temperature at CCTEMP: critical (*at CCTEMP*), "
	 "else at WCTEMP (one reason); NVMe Base 2.0 Figure 275, CCTEMP: the minimum of a critical "
	 "overheating condition",
	 {HEALTHY, .temp_k = C(80)},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "at CCTEMP"},
	{"dashboard.md#health: at CCTEMP: critical; else at WCTEMP: a warning (1 °C below CCTEMP)",
	 {HEALTHY, .temp_k = C(79)},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "at WCTEMP"},
	{"NVMe Base 2.0 Figure 207, Composite Temperature 0 K is no reading (smart_kelvin_to_c()): "
	 "never at a threshold",
	 {HEALTHY, .temp_k = 0, .wctemp_k = 1, .cctemp_k = 1},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"NVMe Base 2.0 Figure 275, WCTEMP, CCTEMP: 0h = no threshold reported: never at them",
	 {HEALTHY, .temp_k = C(95), .wctemp_k = 0, .cctemp_k = 0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"NVMe Base 2.0 Figure 275, CCTEMP 0h (not reported), WCTEMP reported: at WCTEMP, a "
	 "warning",
	 {HEALTHY, .temp_k = C(95), .cctemp_k = 0},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "at WCTEMP"},
	/* rated endurance */
	{"dashboard.md#health: the rated endurance written: 80 % or 90 %: a warning "
	 "(under 80 %: ok)",
	 {HEALTHY, .tbw_level = 0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"dashboard.md#health: the rated endurance written: 80 %: a warning",
	 {HEALTHY, .tbw_level = 80},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "80 % of rated TBW"},
	{"dashboard.md#health: the rated endurance written: 90 %: a warning (*90 % of rated TBW*)",
	 {HEALTHY, .tbw_level = 90},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "90 % of rated TBW"},
	{"dashboard.md#health: the rated endurance written: 100 %: critical (*rated TBW reached*)",
	 {HEALTHY, .tbw_level = 100},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "rated TBW reached"},
	/* alerts */
	{"dashboard.md#health: each alert firing on the drive, with its message: a warning one "
	 "warns",
	 {HEALTHY},
	 {{ALERT_SEV_WARNING, "throttling", "light thermal throttling (T1)"}},
	 1,
	 HEALTH_WARNING,
	 "light thermal throttling (T1)"},
	{"dashboard.md#health: a critical alert is critical",
	 {HEALTHY},
	 {{ALERT_SEV_CRITICAL, "media_errors", "media errors rose to 3"}},
	 1,
	 HEALTH_CRITICAL,
	 "media errors rose to 3"},
	{"dashboard.md#health: an info alert gives its reason but never changes the state",
	 {HEALTHY},
	 {{ALERT_SEV_INFO, "firmware_changed", "firmware changed from A to B"}},
	 1,
	 HEALTH_OK,
	 "firmware changed from A to B"},
	{"dashboard.md#health: each alert firing on the drive, with its message (its rule's name "
	 "when it has none)",
	 {HEALTHY},
	 {{ALERT_SEV_WARNING, "write_rate", ""}},
	 1,
	 HEALTH_WARNING,
	 "write_rate"},
	{"dashboard.md#health: else the worst of these: a warning after a critical keeps it "
	 "critical",
	 {HEALTHY},
	 {{ALERT_SEV_CRITICAL, "io_errors", "entry 5"}, {ALERT_SEV_WARNING, "throttling", "T1"}},
	 2,
	 HEALTH_CRITICAL,
	 "entry 5; T1"},
	/* order */
	{"dashboard.md#health: each adding its reason in this order (unresponsive, bits, spare, "
	 "used, temperature, TBW, alerts newest first)",
	 {HEALTHY, .unresponsive = true, .critical_warning = SMART_CRIT_TEMPERATURE,
	  .avail_spare = 5, .percent_used = 85, .temp_k = C(72), .tbw_level = 90},
	 {{ALERT_SEV_INFO, "percent_used_80", "percentage used 85% reached 80%"},
	  {ALERT_SEV_WARNING, "temperature_warning", "temperature 72 °C reached 70 °C"}},
	 2,
	 HEALTH_CRITICAL,
	 "unresponsive: a command got no answer within device_timeout; temperature warning bit; "
	 "spare below threshold; 85 % used; at WCTEMP; 90 % of rated TBW; percentage used 85% "
	 "reached 80%; temperature 72 °C reached 70 °C"},
};

static void joined(const struct health_verdict *v, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < v->n_why && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "; " : "", v->why[i]);
}

Test(health, table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hcase *c = &cases[i];
		struct health_input in = c->in;
		struct health_verdict v;
		char why[2048];

		in.alerts = c->alerts;
		in.n_alerts = c->n_alerts;
		health_judge(&in, &v);
		joined(&v, why, sizeof(why));
		cr_expect_eq(v.state, c->want, "%s: %s, want %s (%s)", c->rule,
			     health_state_name(v.state), health_state_name(c->want), why);
		cr_expect_str_eq(why, c->why, "%s: reasons", c->rule);
	}
}

/* The StateSet's and the API's words (docs/metrics.md, docs/api.md). */
Test(health, state_names)
{
	cr_expect_str_eq(health_state_name(HEALTH_OK), "ok");
	cr_expect_str_eq(health_state_name(HEALTH_WARNING), "warning");
	cr_expect_str_eq(health_state_name(HEALTH_CRITICAL), "critical");
	cr_expect_str_eq(health_state_name(HEALTH_OFFLINE), "offline");
	cr_expect_str_eq(health_state_name(HEALTH_UNKNOWN), "unknown");
	cr_expect_str_eq(health_state_name(_HEALTH_STATE_MAX), "unknown");
}

/* More alerts than reasons kept: each still counts, the list stops at HEALTH_WHY_MAX. */
Test(health, many_alerts)
{
	struct health_alert al[HEALTH_WHY_MAX + 5];
	struct health_input in = {HEALTHY, .alerts = al, .n_alerts = HEALTH_WHY_MAX + 5};
	struct health_verdict v;

	for (size_t i = 0; i < HEALTH_WHY_MAX + 5; i++)
		al[i] = (struct health_alert){ALERT_SEV_INFO, "firmware_changed", "info"};
	al[HEALTH_WHY_MAX + 4].severity = ALERT_SEV_CRITICAL;
	health_judge(&in, &v);
	cr_expect_eq(v.state, HEALTH_CRITICAL);
	cr_expect_eq(v.n_why, HEALTH_WHY_MAX);
}
