/* SPDX-License-Identifier: MIT */
/*
 * A drive's health (analysis/health.c), the one rule the API, the dashboard,
 * `nvmond status` and /metrics show. Each case names the sentence of
 * docs/dashboard.md#health it holds the code to; the thresholds and the words
 * are those the dashboard's health() had (web/dashboard.js before issue 24's
 * follow-up), so nothing a user sees changed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/analysis/health.h"
#include "nvmond/dev/smart.h"

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
	{"ok otherwise: nothing applies", {HEALTHY}, {{0}}, 0, HEALTH_OK, ""},
	/* offline, unresponsive, unknown */
	{"offline when the drive is offline (not seen now), whatever fires",
	 {HEALTHY, .online = false, .unresponsive = true, .percent_used = 100},
	 {{ALERT_SEV_CRITICAL, "offline", "device nvme0 (serial S1) disappeared"}},
	 1,
	 HEALTH_OFFLINE,
	 "not seen now"},
	{"critical while the controller is unresponsive (a command stuck past device_timeout)",
	 {HEALTHY, .unresponsive = true},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "unresponsive: a command got no answer within device_timeout"},
	{"critical while the controller is unresponsive, also before its first sample",
	 {HEALTHY, .unresponsive = true, .has_sample = false},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "unresponsive: a command got no answer within device_timeout"},
	{"unknown before nvmond has a sample of the drive (alerts wait for one too)",
	 {HEALTHY, .has_sample = false},
	 {{ALERT_SEV_WARNING, "link_degraded", "PCIe 8.0 GT/s x2"}},
	 1,
	 HEALTH_UNKNOWN,
	 "no sample yet"},
	/* critical-warning bits */
	{"the temperature bit (1) warns: drives set it when they pass WCTEMP",
	 {HEALTHY, .critical_warning = SMART_CRIT_TEMPERATURE},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "temperature warning bit"},
	{"any other critical-warning bit is critical: spare (bit 0)",
	 {HEALTHY, .critical_warning = SMART_CRIT_SPARE},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "spare below threshold"},
	{"any other critical-warning bit is critical: reliability degraded (bit 2)",
	 {HEALTHY, .critical_warning = SMART_CRIT_DEGRADED},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "reliability degraded"},
	{"any other critical-warning bit is critical: read-only (bit 3)",
	 {HEALTHY, .critical_warning = SMART_CRIT_READ_ONLY},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "read-only"},
	{"any other critical-warning bit is critical: volatile backup failed (bit 4)",
	 {HEALTHY, .critical_warning = SMART_CRIT_VOLATILE},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "volatile backup failed"},
	{"any other critical-warning bit is critical: PMR read-only (bit 5)",
	 {HEALTHY, .critical_warning = SMART_CRIT_PMR_RO},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "PMR read-only"},
	{"each bit gives its reason, in bit order; the worst wins",
	 {HEALTHY, .critical_warning = SMART_CRIT_TEMPERATURE | SMART_CRIT_READ_ONLY},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "temperature warning bit; read-only"},
	{"bits 6 and 7 are reserved (NVMe Base 2.0 Figure 207): no reason, no state",
	 {HEALTHY, .critical_warning = 0xc0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	/* spare */
	{"available spare below its threshold is critical",
	 {HEALTHY, .avail_spare = 9},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "spare below threshold"},
	{"available spare at its threshold is not below it",
	 {HEALTHY, .avail_spare = 10},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"a controller reporting spare 0 and threshold 0 (QEMU) is not below it",
	 {HEALTHY, .avail_spare = 0, .spare_thresh = 0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	/* Percentage Used */
	{"Percentage Used under 80 is fine",
	 {HEALTHY, .percent_used = 79},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"Percentage Used ≥ 80 warns, with the figure",
	 {HEALTHY, .percent_used = 80},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "80 % used"},
	{"Percentage Used ≥ 80 warns up to 99",
	 {HEALTHY, .percent_used = 99},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "99 % used"},
	{"Percentage Used ≥ 100 is critical: the rated life is used up",
	 {HEALTHY, .percent_used = 100},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "rated life used up"},
	{"Percentage Used may pass 100 (NVMe Base 2.0 Figure 207): still critical",
	 {HEALTHY, .percent_used = 255},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "rated life used up"},
	/* temperature */
	{"the composite below WCTEMP is fine", {HEALTHY, .temp_k = C(69)}, {{0}}, 0, HEALTH_OK, ""},
	{"the composite at WCTEMP warns",
	 {HEALTHY, .temp_k = C(70)},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "at WCTEMP"},
	{"the composite at CCTEMP is critical (and says CCTEMP only)",
	 {HEALTHY, .temp_k = C(80)},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "at CCTEMP"},
	{"the composite between WCTEMP and CCTEMP warns",
	 {HEALTHY, .temp_k = C(79)},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "at WCTEMP"},
	{"a temperature not reported (0 K) is judged against nothing",
	 {HEALTHY, .temp_k = 0, .wctemp_k = 1, .cctemp_k = 1},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"a drive without WCTEMP and CCTEMP (0 = not reported) is never at them",
	 {HEALTHY, .temp_k = C(95), .wctemp_k = 0, .cctemp_k = 0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"a drive with WCTEMP only warns at it",
	 {HEALTHY, .temp_k = C(95), .cctemp_k = 0},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "at WCTEMP"},
	/* rated endurance */
	{"under 80 % of the rated TBW written is fine",
	 {HEALTHY, .tbw_level = 0},
	 {{0}},
	 0,
	 HEALTH_OK,
	 ""},
	{"80 % of the rated TBW written warns",
	 {HEALTHY, .tbw_level = 80},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "80 % of rated TBW"},
	{"90 % of the rated TBW written warns",
	 {HEALTHY, .tbw_level = 90},
	 {{0}},
	 0,
	 HEALTH_WARNING,
	 "90 % of rated TBW"},
	{"the rated TBW written is critical",
	 {HEALTHY, .tbw_level = 100},
	 {{0}},
	 0,
	 HEALTH_CRITICAL,
	 "rated TBW reached"},
	/* alerts */
	{"a firing warning alert warns, with its message",
	 {HEALTHY},
	 {{ALERT_SEV_WARNING, "throttling", "light thermal throttling (T1)"}},
	 1,
	 HEALTH_WARNING,
	 "light thermal throttling (T1)"},
	{"a firing critical alert is critical",
	 {HEALTHY},
	 {{ALERT_SEV_CRITICAL, "media_errors", "media errors rose to 3"}},
	 1,
	 HEALTH_CRITICAL,
	 "media errors rose to 3"},
	{"an info alert gives its reason but never changes the state",
	 {HEALTHY},
	 {{ALERT_SEV_INFO, "firmware_changed", "firmware changed from A to B"}},
	 1,
	 HEALTH_OK,
	 "firmware changed from A to B"},
	{"an alert without a message is named by its rule",
	 {HEALTHY},
	 {{ALERT_SEV_WARNING, "write_rate", ""}},
	 1,
	 HEALTH_WARNING,
	 "write_rate"},
	{"the worst applies: a warning after a critical keeps it critical",
	 {HEALTHY},
	 {{ALERT_SEV_CRITICAL, "io_errors", "entry 5"}, {ALERT_SEV_WARNING, "throttling", "T1"}},
	 2,
	 HEALTH_CRITICAL,
	 "entry 5; T1"},
	/* order */
	{"the reasons in the rule's order: unresponsive, bits, spare, used, temperature, TBW, "
	 "alerts newest first",
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
