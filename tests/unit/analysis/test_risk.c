/* SPDX-License-Identifier: MIT */
/*
 * The risk verdict's rules (docs/health.md), a table of cases each naming
 * its rule and source, and the confirmation that keeps one noisy read from
 * moving the verdict. Thresholds are checked on both sides of their edge.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/analysis/risk.h"

#define NOW  1764547200000LL /* 2025-12-01 00:00 UTC */
#define HOUR (3600 * 1000LL)
#define DAY  (24 * HOUR)

static struct risk_cfg all_on(void)
{
	struct risk_cfg c;
	char err[128];

	cr_assert_eq(risk_rules_parse("", &c, err, sizeof(err)), 0);
	return c;
}

/* A healthy drive: spare 100/10, 3 % used, two years of power-on time. */
static struct risk_input healthy(void)
{
	return (struct risk_input){
		.now_ms = NOW,
		.smart_known = true,
		.smart_ms = NOW,
		.avail_spare = 100,
		.spare_thresh = 10,
		.percent_used = 3,
		.power_on_hours = 17520,
		.history_ms = NOW,
		.media_known = true,
		.unc_known = true,
		.ocp_ms = NOW,
		.blocks_known = true,
	};
}

/* Evaluate @in twice (two reads, one ms apart) and return the verdict. */
static struct risk_verdict twice(const struct risk_cfg *c, struct risk_input in)
{
	struct risk_state st = {0};
	struct risk_cond conds[_RISK_RULE_MAX];
	struct risk_verdict v;

	for (int i = 0; i < 2; i++) {
		in.smart_ms = in.history_ms = in.ocp_ms = NOW + i;
		risk_conditions(c, &in, conds);
		risk_step(&st, conds, NOW + i, &v);
	}
	return v;
}

static bool fired(const struct risk_verdict *v, enum risk_rule r)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->r[i].rule == r)
			return true;
	return false;
}

/* Hourly spare points: @days of history ending now, falling @per_day points a day to @now. */
static size_t spare_line(struct risk_spare_point *v, double days, double per_day, double now)
{
	size_t n = (size_t)(days * 24) + 1;

	for (size_t i = 0; i < n; i++) {
		double age = days - (double)i / 24; /* days before now */
		double y = now + per_day * age;
		v[i] = (struct risk_spare_point){.ts_ms = NOW - (int64_t)(age * DAY),
						 .spare = (uint8_t)(y + 0.5)};
	}
	return n;
}

struct hcase {
	const char *rule; /* the rule and its source, as docs/health.md gives them */
	void (*edit)(struct risk_input *in);
	enum risk_rule fires; /* _RISK_RULE_MAX: none */
	enum risk_level level;
};

static void none(struct risk_input *in)
{
	(void)in;
}
static void crit_degraded(struct risk_input *in)
{
	in->critical_warning = 0x04;
}
static void crit_read_only(struct risk_input *in)
{
	in->critical_warning = 0x08;
}
static void crit_backup(struct risk_input *in)
{
	in->critical_warning = 0x10;
}
static void crit_pmr(struct risk_input *in)
{
	in->critical_warning = 0x20;
}
static void crit_temperature(struct risk_input *in)
{
	in->critical_warning = 0x02;
}
static void crit_spare(struct risk_input *in)
{
	in->critical_warning = 0x01;
	in->avail_spare = 8;
}
static void used_89(struct risk_input *in)
{
	in->percent_used = 89;
}
static void used_90(struct risk_input *in)
{
	in->percent_used = 90;
}
static void used_255(struct risk_input *in)
{
	in->percent_used = 255;
}
static void media_rose(struct risk_input *in)
{
	in->media_then = 4;
	in->media_now = 5;
}
static void media_same(struct risk_input *in)
{
	in->media_then = in->media_now = 5;
}
static void io_entry(struct risk_input *in)
{
	in->io_errors = 1;
}
static void unc_rose(struct risk_input *in)
{
	in->unc_then = 10;
	in->unc_now = 12;
}
static void young_2159(struct risk_input *in)
{
	media_rose(in);
	in->power_on_hours = 2159;
}
static void young_2160(struct risk_input *in)
{
	media_rose(in);
	in->power_on_hours = 2160;
}
static void young_no_errors(struct risk_input *in)
{
	in->power_on_hours = 10;
}
static void blocks_grew(struct risk_input *in)
{
	in->blocks_then = 12;
	in->blocks_now = 13;
}
static void blocks_same(struct risk_input *in)
{
	in->blocks_then = in->blocks_now = 13;
}
static void hw_event(struct risk_input *in)
{
	in->hw_errors = 1;
}
static void neighbour(struct risk_input *in)
{
	in->neighbours_bad = 1;
	in->neighbour = "nvme1 (S5GXNX0R000001)";
}
static void failed_and_watch(struct risk_input *in)
{
	crit_degraded(in);
	media_rose(in);
}

static const struct hcase cases[] = {
	{"healthy: nothing fires", none, _RISK_RULE_MAX, RISK_OK},
	{"critical_warning: bit 2 reliability degraded is failed (Base 2.0 Fig. 207)",
	 crit_degraded, RISK_CRITICAL_WARNING, RISK_FAILED},
	{"critical_warning: bit 3 read-only is failed", crit_read_only, RISK_CRITICAL_WARNING,
	 RISK_FAILED},
	{"critical_warning: bit 4 volatile backup failed is failed", crit_backup,
	 RISK_CRITICAL_WARNING, RISK_FAILED},
	{"critical_warning: bit 5 PMR read-only is failed", crit_pmr, RISK_CRITICAL_WARNING,
	 RISK_FAILED},
	{"critical_warning: bit 1 (temperature) is transient, no verdict", crit_temperature,
	 _RISK_RULE_MAX, RISK_OK},
	{"spare_below_threshold: bit 0 is replace_soon (Base 2.0 Fig. 207)", crit_spare,
	 RISK_SPARE_BELOW, RISK_REPLACE_SOON},
	{"percent_used: 89 is below the threshold", used_89, _RISK_RULE_MAX, RISK_OK},
	{"percent_used: 90 is replace_soon (Base 2.0 Fig. 207; issue 27)", used_90,
	 RISK_PERCENT_USED, RISK_REPLACE_SOON},
	{"percent_used: 255 (saturated) is replace_soon", used_255, RISK_PERCENT_USED,
	 RISK_REPLACE_SOON},
	{"recent_errors: media errors rose is watch (Schroeder et al., FAST'16)", media_rose,
	 RISK_RECENT_ERRORS, RISK_WATCH},
	{"recent_errors: the same media errors as 90 days ago is nothing", media_same,
	 _RISK_RULE_MAX, RISK_OK},
	{"recent_errors: an error log entry of class media or io is watch", io_entry,
	 RISK_RECENT_ERRORS, RISK_WATCH},
	{"recent_errors: OCP uncorrectable reads rose is watch", unc_rose, RISK_RECENT_ERRORS,
	 RISK_WATCH},
	{"young_drive_errors: errors at 2,159 power-on hours are watch with a second reason "
	 "(Meza et al., SIGMETRICS'15), not replace_soon: one error is no failing drive "
	 "(docs/health.md)",
	 young_2159, RISK_YOUNG_ERRORS, RISK_WATCH},
	{"young_drive_errors: at 2,160 hours the drive is no longer young", young_2160,
	 RISK_RECENT_ERRORS, RISK_WATCH},
	{"young_drive_errors: a young drive without errors is ok", young_no_errors, _RISK_RULE_MAX,
	 RISK_OK},
	{"bad_block_growth: one more bad block than 30 days ago is watch (OCP 2.0 C0h; "
	 "FAST'16)",
	 blocks_grew, RISK_BAD_BLOCKS, RISK_WATCH},
	{"bad_block_growth: as many as 30 days ago is nothing", blocks_same, _RISK_RULE_MAX,
	 RISK_OK},
	{"hardware_error_event: a PEL hardware error is watch (Base 2.0 §5.16.1.14)", hw_event,
	 RISK_HW_ERROR, RISK_WATCH},
	{"neighbour_failed: another drive of the host is bad: watch (Han et al., FAST'21)",
	 neighbour, RISK_NEIGHBOUR, RISK_WATCH},
	{"the verdict is the highest level of the rules that fire", failed_and_watch,
	 RISK_CRITICAL_WARNING, RISK_FAILED},
};

Test(risk, rule_table)
{
	struct risk_cfg c = all_on();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct risk_input in = healthy();
		cases[i].edit(&in);
		struct risk_verdict v = twice(&c, in);
		cr_expect_eq(v.level, cases[i].level, "%s: level %s", cases[i].rule,
			     risk_level_name(v.level));
		if (cases[i].fires < _RISK_RULE_MAX)
			cr_expect(fired(&v, cases[i].fires), "%s: the rule is a reason",
				  cases[i].rule);
		else
			cr_expect_eq(v.n, 0, "%s: no reason", cases[i].rule);
		for (size_t k = 0; k < v.n; k++)
			cr_expect(v.r[k].reason[0], "%s: every reason in words", cases[i].rule);
	}
}

/* young_drive_errors has the level of recent_errors: only whether it fires tells its edge. */
Test(risk, young_drive_edge)
{
	struct risk_cfg c = all_on();
	struct risk_input in = healthy();
	young_2159(&in);
	struct risk_verdict v = twice(&c, in);
	cr_expect(fired(&v, RISK_YOUNG_ERRORS), "young at 2,159 power-on hours");
	in = healthy();
	young_2160(&in);
	v = twice(&c, in);
	cr_expect(!fired(&v, RISK_YOUNG_ERRORS), "no longer young at 2,160");
	cr_expect(fired(&v, RISK_RECENT_ERRORS), "the errors still count at 2,160");
}

Test(risk, spare_projection_edges)
{
	struct risk_cfg c = all_on();
	struct risk_spare_point pts[30 * 24 + 2];
	struct risk_input in;
	struct risk_verdict v;

	/* 30 days falling 0.5 points a day to 50 %, threshold 10: 80 days left. */
	in = healthy();
	in.avail_spare = 50;
	in.n_spare = spare_line(pts, 30, 0.5, 50);
	in.spare = pts;
	v = twice(&c, in);
	cr_expect(fired(&v, RISK_SPARE_PROJECTION), "80 days left: within 90 (spare_projection)");
	cr_expect_eq(v.level, RISK_REPLACE_SOON);
	cr_expect(strstr(v.r[0].reason, "in about 12 weeks"), "%s", v.r[0].reason);
	/* 0.4 a day: 100 days left, outside the horizon. */
	in.n_spare = spare_line(pts, 30, 0.4, 50);
	v = twice(&c, in);
	cr_expect_not(fired(&v, RISK_SPARE_PROJECTION), "100 days left: not yet");
	/* 88 days left vs 92: the edge of the 90-day horizon. */
	in.n_spare = spare_line(pts, 30, 40.0 / 88, 50);
	v = twice(&c, in);
	cr_expect(fired(&v, RISK_SPARE_PROJECTION), "88 days left");
	in.n_spare = spare_line(pts, 30, 40.0 / 92, 50);
	v = twice(&c, in);
	cr_expect_not(fired(&v, RISK_SPARE_PROJECTION), "92 days left");
	/* Steep, but only 6.9 days of history: too little to fit. */
	in.n_spare = spare_line(pts, 6.9, 3, 50);
	v = twice(&c, in);
	cr_expect_not(fired(&v, RISK_SPARE_PROJECTION), "6.9 days of history");
	in.n_spare = spare_line(pts, 7.01, 3, 50);
	v = twice(&c, in);
	cr_expect(fired(&v, RISK_SPARE_PROJECTION), "7 days of history");
	/* Enough days but 23 points (a drive polled rarely, or gaps). */
	struct risk_spare_point sparse[24];
	for (int i = 0; i < 24; i++)
		sparse[i] = (struct risk_spare_point){.ts_ms = NOW - (23 - i) * 8 * HOUR,
						      .spare = (uint8_t)(60 - i)};
	in.spare = sparse;
	in.avail_spare = 37;
	in.n_spare = 23;
	v = twice(&c, in);
	cr_expect_not(fired(&v, RISK_SPARE_PROJECTION), "23 points");
	in.n_spare = 24;
	v = twice(&c, in);
	cr_expect(fired(&v, RISK_SPARE_PROJECTION), "24 points");
	/* At or below the threshold, spare_below_threshold (bit 0) speaks. */
	in.avail_spare = 10;
	v = twice(&c, in);
	cr_expect_not(fired(&v, RISK_SPARE_PROJECTION));
	/* A flat line never reaches it. */
	in = healthy();
	in.n_spare = spare_line(pts, 30, 0, 100);
	in.spare = pts;
	v = twice(&c, in);
	cr_expect_not(fired(&v, RISK_SPARE_PROJECTION));
}

Test(risk, one_noisy_read_moves_nothing)
{
	struct risk_cfg c = all_on();
	struct risk_state st = {0};
	struct risk_cond conds[_RISK_RULE_MAX];
	struct risk_verdict v;
	struct risk_input in = healthy();

	/* One read with the degraded bit, then clean: the verdict stays ok. */
	in.critical_warning = 0x04;
	in.smart_ms = NOW;
	risk_conditions(&c, &in, conds);
	risk_step(&st, conds, NOW, &v);
	cr_expect_eq(v.level, RISK_OK, "one read is not enough");
	/* The same read evaluated again (no new health log) is still one read. */
	risk_conditions(&c, &in, conds);
	risk_step(&st, conds, NOW + 10, &v);
	cr_expect_eq(v.level, RISK_OK, "the same read twice is one read");
	in.critical_warning = 0;
	in.smart_ms = NOW + 1;
	risk_conditions(&c, &in, conds);
	risk_step(&st, conds, NOW + 1, &v);
	cr_expect_eq(v.level, RISK_OK);
	/* Two reads in a row: failed, since the second. */
	in.critical_warning = 0x04;
	for (int i = 2; i < 4; i++) {
		in.smart_ms = NOW + i;
		risk_conditions(&c, &in, conds);
		bool changed = risk_step(&st, conds, NOW + i, &v);
		cr_expect_eq(changed, i == 3);
	}
	cr_expect_eq(v.level, RISK_FAILED);
	cr_expect_eq(v.since_ms, NOW + 3);
	/* One clean read does not bring it down either; two do. */
	in.critical_warning = 0;
	in.smart_ms = NOW + 4;
	risk_conditions(&c, &in, conds);
	risk_step(&st, conds, NOW + 4, &v);
	cr_expect_eq(v.level, RISK_FAILED, "one clean read");
	cr_expect(strstr(v.r[0].reason, "reliability degraded"), "the reason kept: %s",
		  v.r[0].reason);
	in.smart_ms = NOW + 5;
	risk_conditions(&c, &in, conds);
	cr_expect(risk_step(&st, conds, NOW + 5, &v));
	cr_expect_eq(v.level, RISK_OK);
}

Test(risk, rules_turned_off)
{
	struct risk_cfg c;
	char err[128];
	struct risk_input in = healthy();

	cr_assert_eq(risk_rules_parse(" percent_used ,neighbour_failed,", &c, err, sizeof(err)), 0);
	cr_expect_not(c.rule_on[RISK_PERCENT_USED]);
	cr_expect_not(c.rule_on[RISK_NEIGHBOUR]);
	cr_expect(c.rule_on[RISK_RECENT_ERRORS]);
	used_90(&in);
	struct risk_verdict v = twice(&c, in);
	cr_expect_eq(v.level, RISK_OK, "percent_used is off");
	cr_expect_eq(v.off, (1u << RISK_PERCENT_USED) | (1u << RISK_NEIGHBOUR),
		     "the verdict says which rules are off (the API's enabled)");
	cr_expect_eq(risk_rules_parse("percent_used, bogus", &c, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "[risk] disable: no rule 'bogus' (docs/health.md)");

	/* Turned off while it counts: the verdict drops at once. */
	struct risk_cfg on = all_on(), off;
	struct risk_state st = {0};
	struct risk_cond conds[_RISK_RULE_MAX];
	for (int i = 0; i < 2; i++) {
		in.smart_ms = NOW + i;
		risk_conditions(&on, &in, conds);
		risk_step(&st, conds, NOW + i, &v);
	}
	cr_assert_eq(v.level, RISK_REPLACE_SOON);
	cr_assert_eq(risk_rules_parse("percent_used", &off, err, sizeof(err)), 0);
	risk_conditions(&off, &in, conds);
	risk_step(&st, conds, NOW + 2, &v);
	cr_expect_eq(v.level, RISK_OK);
}

Test(risk, restart_goes_on)
{
	struct risk_cfg c = all_on();
	struct risk_state st;
	struct risk_cond conds[_RISK_RULE_MAX];
	struct risk_verdict seed = {.known = true,
				    .level = RISK_WATCH,
				    .since_ms = NOW - DAY,
				    .n = 1},
			    v;
	struct risk_input in = healthy();

	seed.r[0] = (struct risk_reason){.rule = RISK_RECENT_ERRORS,
					 .level = RISK_WATCH,
					 .reason = "in the last 90 days: 1 media error"};
	risk_state_seed(&st, &seed);
	media_rose(&in);
	risk_conditions(&c, &in, conds);
	cr_expect_not(risk_step(&st, conds, NOW, &v), "the stored verdict goes on");
	cr_expect_eq(v.level, RISK_WATCH);
	cr_expect_eq(v.since_ms, NOW - DAY);
}

Test(risk, names)
{
	for (int r = 0; r < _RISK_RULE_MAX; r++) {
		const struct risk_rule_info *i = risk_rule_info(r);
		cr_expect_eq(risk_rule_from_name(i->name), r);
		cr_expect(i->threshold[0] && i->needs[0] && i->source[0], "%s documented", i->name);
		cr_expect_gt(i->level, RISK_OK);
	}
	cr_expect_eq(risk_rule_from_name("nope"), -EINVAL);
	cr_expect_str_eq(risk_level_name(RISK_REPLACE_SOON), "replace_soon");
	cr_expect_eq(risk_level_from_name("failed"), RISK_FAILED);
	cr_expect_eq(risk_level_from_name("dead"), -EINVAL);
}
