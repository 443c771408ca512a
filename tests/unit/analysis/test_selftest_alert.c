/* SPDX-License-Identifier: MIT */
/*
 * The self-test alert rules (selftest_alert.h): selftest_failed for fatal and
 * segment failures (issue 12: "selftest_failed (critical) for fatal / segment
 * failures, naming the failing segment and LBA when given"), selftest_aborted
 * (info) "only when the abort did not come from nvmond or the operator".
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/analysis/selftest_alert.h"

#define HOUR_MS 3600000LL

static struct alert_cfg all_on(void)
{
	struct alert_cfg c = {0};

	c.rule_on[ALERT_SELFTEST_FAILED] = c.rule_on[ALERT_SELFTEST_ABORTED] = true;
	return c;
}

static struct selftest_result res(uint8_t code, uint8_t result)
{
	return (struct selftest_result){.code = code, .result = result, .poh = 1000};
}

/* NVMe Base 2.0 Figure 259, Self-test Result: which codes are failures, which aborts. */
Test(selftest_alert, result_classes_follow_the_spec_table)
{
	static const struct {
		uint8_t result;
		bool failed, aborted;
		const char *rule;
	} t[] = {
		{SELFTEST_RES_NO_ERROR, false, false, "0h: completed without error"},
		{SELFTEST_RES_ABORTED_CMD, false, true,
		 "1h: aborted by a Device Self-test command"},
		{SELFTEST_RES_ABORTED_RESET, false, true,
		 "2h: aborted by a controller level reset"},
		{SELFTEST_RES_ABORTED_NS_REMOVED, false, true,
		 "3h: aborted by a namespace removal"},
		{SELFTEST_RES_ABORTED_FORMAT, false, true, "4h: aborted by a Format NVM command"},
		{SELFTEST_RES_FATAL, true, false, "5h: a fatal error or unknown test error"},
		{SELFTEST_RES_UNKNOWN_SEGMENT, true, false,
		 "6h: completed with a failed segment, "
		 "the segment unknown"},
		{SELFTEST_RES_SEGMENT_FAILED, true, false,
		 "7h: completed with one or more failed "
		 "segments"},
		{SELFTEST_RES_ABORTED_UNKNOWN, false, true, "8h: aborted for an unknown reason"},
		{SELFTEST_RES_ABORTED_SANITIZE, false, true, "9h: aborted by a sanitize operation"},
		{0xa, false, false, "Ah-Eh: reserved"},
		{SELFTEST_RES_UNUSED, false, false, "Fh: the entry holds no result"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct selftest_result r = res(SELFTEST_CODE_SHORT, t[i].result);
		cr_expect_eq(selftest_result_failed(&r), t[i].failed, "%s: failed", t[i].rule);
		cr_expect_eq(selftest_result_aborted(&r), t[i].aborted, "%s: aborted", t[i].rule);
	}
}

Test(selftest_alert, a_failed_segment_is_critical_and_named_with_its_lba)
{
	struct alert_cfg c = all_on();
	struct alert_cond out[_ALERT_RULE_MAX];
	struct selftest_result ext = res(SELFTEST_CODE_EXTENDED, SELFTEST_RES_SEGMENT_FAILED);

	ext.segment = 3;
	ext.valid =
		SELFTEST_VALID_NSID | SELFTEST_VALID_FLBA | SELFTEST_VALID_SCT | SELFTEST_VALID_SC;
	ext.nsid = 1;
	ext.lba = 123456;
	ext.sct = 2;
	ext.sc = 0x81;
	struct selftest_alert_input in = {.last = {NULL, &ext}, .newest = &ext, .now_ms = HOUR_MS};
	selftest_alert_conditions(&c, &in, out);
	cr_assert(out[ALERT_SELFTEST_FAILED].known && out[ALERT_SELFTEST_FAILED].active);
	cr_expect_eq(out[ALERT_SELFTEST_FAILED].severity, ALERT_SEV_CRITICAL);
	cr_expect_str_eq(out[ALERT_SELFTEST_FAILED].message,
			 "extended self-test failed: segment 3 failed, first failing LBA 123456 "
			 "in namespace 1: Unrecovered Read Error");
	cr_expect(out[ALERT_SELFTEST_ABORTED].known && !out[ALERT_SELFTEST_ABORTED].active,
		  "a failure is no abort");
	for (int r = 0; r < ALERT_SELFTEST_FAILED; r++)
		cr_expect_not(out[r].known, "rule %s left unknown", alert_rule_name(r));
}

Test(selftest_alert, fields_without_their_valid_flag_are_not_named)
{
	struct selftest_result r = res(SELFTEST_CODE_SHORT, SELFTEST_RES_SEGMENT_FAILED);
	char buf[128];

	r.segment = 2;
	r.lba = 99; /* FLBA not valid: not named */
	r.nsid = 5; /* NSID not valid */
	cr_expect_str_eq(selftest_result_describe(&r, buf, sizeof(buf)), "segment 2 failed");
	r.valid = SELFTEST_VALID_NSID; /* the namespace without an LBA */
	cr_expect_str_eq(selftest_result_describe(&r, buf, sizeof(buf)),
			 "segment 2 failed in namespace 5");
	r = res(SELFTEST_CODE_SHORT, SELFTEST_RES_FATAL);
	cr_expect_str_eq(selftest_result_describe(&r, buf, sizeof(buf)),
			 selftest_result_name(SELFTEST_RES_FATAL));
	r.valid = SELFTEST_VALID_SCT; /* SCT without SC: no status named */
	cr_expect_str_eq(selftest_result_describe(&r, buf, sizeof(buf)),
			 selftest_result_name(SELFTEST_RES_FATAL));
	char tiny[8];
	r = res(SELFTEST_CODE_SHORT, SELFTEST_RES_SEGMENT_FAILED);
	r.segment = 7;
	cr_expect_str_eq(selftest_result_describe(&r, tiny, sizeof(tiny)), "segment",
			 "truncated, terminated");
}

/* Per type: a passing short test does not clear a failed extended one. */
Test(selftest_alert, failure_lasts_until_a_passing_test_of_its_type)
{
	static const struct {
		int short_res, ext_res; /* -1: none of that type */
		bool active;
		const char *msg, *rule;
	} t[] = {
		{-1, -1, false, "", "no result: nothing failed"},
		{SELFTEST_RES_NO_ERROR, SELFTEST_RES_NO_ERROR, false, "", "both passed"},
		{SELFTEST_RES_NO_ERROR, SELFTEST_RES_FATAL, true,
		 "extended self-test failed: fatal error or unknown test error",
		 "a later passing short test does not clear a failed extended one"},
		{SELFTEST_RES_UNKNOWN_SEGMENT, SELFTEST_RES_NO_ERROR, true,
		 "short self-test failed: completed with a failed segment, which is not known",
		 "6h on the short test"},
		{SELFTEST_RES_FATAL, SELFTEST_RES_SEGMENT_FAILED, true,
		 "extended self-test failed: segment 0 failed",
		 "both failed: the extended test names it"},
		{SELFTEST_RES_ABORTED_RESET, SELFTEST_RES_NO_ERROR, false, "",
		 "an abort is not a failure"},
	};
	struct alert_cfg c = all_on();

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct selftest_result s = res(SELFTEST_CODE_SHORT, (uint8_t)t[i].short_res);
		struct selftest_result e = res(SELFTEST_CODE_EXTENDED, (uint8_t)t[i].ext_res);
		struct alert_cond out[_ALERT_RULE_MAX];
		struct selftest_alert_input in = {
			.last = {t[i].short_res < 0 ? NULL : &s, t[i].ext_res < 0 ? NULL : &e},
			.now_ms = HOUR_MS,
		};
		selftest_alert_conditions(&c, &in, out);
		cr_expect(out[ALERT_SELFTEST_FAILED].known, "%s", t[i].rule);
		cr_expect_eq(out[ALERT_SELFTEST_FAILED].active, t[i].active, "%s", t[i].rule);
		if (t[i].active)
			cr_expect_str_eq(out[ALERT_SELFTEST_FAILED].message, t[i].msg, "%s",
					 t[i].rule);
	}
}

Test(selftest_alert, aborts_alert_only_when_not_from_nvmond_and_for_a_day)
{
	static const struct {
		uint8_t result;
		bool by_nvmond;
		int64_t age_ms;
		bool active;
		const char *rule;
	} t[] = {
		{SELFTEST_RES_ABORTED_CMD, false, 0, true, "an abort by another tool (nvme-cli)"},
		{SELFTEST_RES_ABORTED_CMD, true, 0, false,
		 "nvmond's own abort (schedule, API, CLI)"},
		{SELFTEST_RES_ABORTED_RESET, false, HOUR_MS, true, "a controller reset"},
		{SELFTEST_RES_ABORTED_SANITIZE, false, 23 * HOUR_MS, true, "a sanitize, 23 h ago"},
		{SELFTEST_RES_ABORTED_FORMAT, false, 24 * HOUR_MS, false,
		 "a day after it was seen: resolved"},
		{SELFTEST_RES_NO_ERROR, false, 0, false, "no abort"},
		{SELFTEST_RES_SEGMENT_FAILED, false, 0, false, "a failure is selftest_failed's"},
	};
	struct alert_cfg c = all_on();

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct selftest_result n = res(SELFTEST_CODE_SHORT, t[i].result);
		struct alert_cond out[_ALERT_RULE_MAX];
		struct selftest_alert_input in = {
			.newest = &n,
			.newest_seen_ms = 100 * HOUR_MS,
			.newest_aborted_by_nvmond = t[i].by_nvmond,
			.now_ms = 100 * HOUR_MS + t[i].age_ms,
		};
		selftest_alert_conditions(&c, &in, out);
		cr_expect(out[ALERT_SELFTEST_ABORTED].known, "%s", t[i].rule);
		cr_expect_eq(out[ALERT_SELFTEST_ABORTED].active, t[i].active, "%s", t[i].rule);
		if (t[i].active) {
			cr_expect_eq(out[ALERT_SELFTEST_ABORTED].severity, ALERT_SEV_INFO, "%s",
				     t[i].rule);
			cr_expect(strstr(out[ALERT_SELFTEST_ABORTED].message, "not by nvmond"),
				  "%s", t[i].rule);
		}
	}
}

Test(selftest_alert, disabled_rules_are_known_and_inactive)
{
	struct alert_cfg c = {0}; /* [alerts] selftest = no */
	struct alert_cond out[_ALERT_RULE_MAX];
	struct selftest_result f = res(SELFTEST_CODE_SHORT, SELFTEST_RES_FATAL);
	struct selftest_result a = res(SELFTEST_CODE_SHORT, SELFTEST_RES_ABORTED_RESET);
	struct selftest_alert_input in = {.last = {&f, NULL}, .newest = &a, .now_ms = 1};

	selftest_alert_conditions(&c, &in, out);
	cr_expect(out[ALERT_SELFTEST_FAILED].known && !out[ALERT_SELFTEST_FAILED].active);
	cr_expect(out[ALERT_SELFTEST_ABORTED].known && !out[ALERT_SELFTEST_ABORTED].active);
	cr_expect_str_eq(alert_rule_name(ALERT_SELFTEST_FAILED), "selftest_failed");
	cr_expect_eq(alert_rule_from_name("selftest_aborted"), ALERT_SELFTEST_ABORTED);
}
