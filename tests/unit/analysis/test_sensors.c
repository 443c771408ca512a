/* SPDX-License-Identifier: MIT */
/*
 * The temperature sensors judged by the spec and the rules, as a
 * table: each case names its rule, the samples fed in order and the verdict on
 * one sensor after the last of them. Temperatures in Kelvin as drives report
 * them.
 *
 * Rules (NVMe Base 2.0, Figure 275: WCTEMP and CCTEMP are thresholds of the
 * Composite Temperature; issue 11, section 1):
 *  R1 WCTEMP/CCTEMP judge the composite only; a threshold is reached at equality.
 *  R2 a sensor at/above WCTEMP while the composite is below it is a note;
 *  R3 it alerts only with sensor_alerts = yes (limit: the drive's own
 *     threshold, else WCTEMP) or with a sensor_limit_N (which wins);
 *  R4 stuck: unchanged ≥ 6 h while the composite moved ≥ 5 °C → implausible;
 *  R5 ≥ CCTEMP + 15 °C while the composite is below WCTEMP → implausible;
 *  R6 an implausible sensor never alerts;
 *  R7 0 K is "not reported": no verdict, and the history starts again.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/analysis/sensors.h"

#define H  3600LL /* seconds */
#define NO SENSOR_LIMIT_NONE

/* Crucial CT1000E100SSD8 (lm-sensors issue 574): WCTEMP 74.8 °C, CCTEMP
 * 79.8 °C, Sensor 2 stuck at 81.8 °C, the composite at 33.9 °C, and the
 * sensor's over-temperature threshold FFFFh (hwmon: "high = +65261.8°C"). */
#define CRU_WC	348
#define CRU_CC	353
#define CRU_S2	355
#define CRU_CMP 307

struct smp {
	int64_t t_s;
	uint16_t comp_k;
	uint16_t sens_k; /* the sensor under test */
};

struct expect {
	bool reported, note;
	enum sensor_implausible impl;
	bool may_alert;
	enum sensor_limit_src src;
	uint16_t limit_k;
	bool over;
	bool comp_wc, comp_cc;
};

struct tcase {
	const char *rule;
	int sensor; /* 0-based index of the sensor under test */
	uint16_t wctemp_k, cctemp_k;
	bool sensor_alerts;
	uint16_t config_limit_k, drive_limit_k; /* for the sensor under test */
	struct smp s[6];
	int n;
	struct expect e;
};

static const struct tcase cases[] = {
	{"R2+R3 real drive: Sensor 2 at 355 K over WCTEMP 348 K, composite cool: a note, no alert "
	 "by default",
	 1,
	 CRU_WC,
	 CRU_CC,
	 false,
	 0,
	 0xffff,
	 {{0, CRU_CMP, CRU_S2}},
	 1,
	 {true, true, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R4 real drive: Sensor 2 unchanged 6 h while the composite went 305→312 K: implausible",
	 1,
	 CRU_WC,
	 CRU_CC,
	 false,
	 0,
	 0xffff,
	 {{0, 305, CRU_S2}, {2 * H, 312, CRU_S2}, {4 * H, 309, CRU_S2}, {6 * H, 307, CRU_S2}},
	 4,
	 {true, true, SENSOR_STUCK, false, NO, 0, false, false, false}},
	{"R3 real drive with sensor_alerts = yes before 6 h: FFFFh is no threshold, so the limit "
	 "is "
	 "WCTEMP, and 355 K is over it",
	 1,
	 CRU_WC,
	 CRU_CC,
	 true,
	 0,
	 0xffff,
	 {{0, 305, CRU_S2}, {5 * H, 312, CRU_S2}},
	 2,
	 {true, true, SENSOR_PLAUSIBLE, true, SENSOR_LIMIT_WCTEMP, CRU_WC, true, false, false}},
	{"R6 real drive with sensor_alerts = yes after 6 h stuck: implausible, never alerts",
	 1,
	 CRU_WC,
	 CRU_CC,
	 true,
	 0,
	 0xffff,
	 {{0, 305, CRU_S2}, {3 * H, 312, CRU_S2}, {6 * H, 306, CRU_S2}},
	 3,
	 {true, true, SENSOR_STUCK, false, SENSOR_LIMIT_WCTEMP, CRU_WC, false, false, false}},
	{"R5 not met on the real drive: 355 K < CCTEMP 353 + 15 K, and R4 not before 6 h",
	 1,
	 CRU_WC,
	 CRU_CC,
	 false,
	 0,
	 0,
	 {{0, 305, CRU_S2}, {6 * H - 1, 312, CRU_S2}},
	 2,
	 {true, true, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R4 composite moved only 4 °C in 6 h: the sensor may just sit in a quiet spot",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 310, 320}, {3 * H, 314, 320}, {6 * H, 311, 320}},
	 3,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R4 composite moved exactly 5 °C in exactly 6 h: stuck (both bounds inclusive)",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 310, 320}, {6 * H, 315, 320}},
	 2,
	 {true, false, SENSOR_STUCK, false, NO, 0, false, false, false}},
	{"R4 a sensor that moves by 1 K starts its history again: not stuck",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 305, 320}, {5 * H, 312, 321}, {7 * H, 305, 321}},
	 3,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R4 + R7 a sensor not reported for one sample starts its history again",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 305, 320}, {3 * H, 312, 0}, {4 * H, 305, 320}, {7 * H, 312, 320}},
	 4,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R4 the composite's range counts from when the sensor took its value",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 300, 330}, {1 * H, 305, 320}, {7 * H, 309, 320}},
	 3,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R5 CCTEMP + 15 K while the composite is below WCTEMP: implausible",
	 2,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 310, 368}},
	 1,
	 {true, true, SENSOR_BEYOND_CCTEMP, false, NO, 0, false, false, false}},
	{"R5 + R6 beyond CCTEMP with a sensor_limit_N: implausible still never alerts",
	 2,
	 343,
	 353,
	 false,
	 358,
	 0,
	 {{0, 310, 380}},
	 1,
	 {true, true, SENSOR_BEYOND_CCTEMP, false, SENSOR_LIMIT_CONFIG, 358, false, false, false}},
	{"R5 CCTEMP + 14 K: plausible (a hot spot, noted)",
	 2,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 310, 367}},
	 1,
	 {true, true, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R5 needs the composite below WCTEMP: a hot drive may have a hotter sensor",
	 2,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 343, 380}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, true, false}},
	{"R2 a sensor exactly at WCTEMP is noted (thresholds are inclusive)",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 320, 343}},
	 1,
	 {true, true, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R2 one below WCTEMP: no note",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 320, 342}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R1 + R2 the composite at WCTEMP alerts itself: no sensor note",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 343, 345}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, true, false}},
	{"R1 the composite at CCTEMP is over both thresholds",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 353, 340}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, true, true}},
	{"R1 a sensor over CCTEMP does not make the composite over anything",
	 0,
	 343,
	 353,
	 false,
	 0,
	 0,
	 {{0, 330, 360}},
	 1,
	 {true, true, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R3 sensor_limit_2 = 85 °C alone enables the alert; 355 K is below 358 K",
	 1,
	 CRU_WC,
	 CRU_CC,
	 false,
	 358,
	 0xffff,
	 {{0, CRU_CMP, CRU_S2}},
	 1,
	 {true, true, SENSOR_PLAUSIBLE, true, SENSOR_LIMIT_CONFIG, 358, false, false, false}},
	{"R3 sensor_limit_2 reached at equality",
	 1,
	 CRU_WC,
	 CRU_CC,
	 false,
	 358,
	 0,
	 {{0, CRU_CMP, 358}},
	 1,
	 {true, true, SENSOR_PLAUSIBLE, true, SENSOR_LIMIT_CONFIG, 358, true, false, false}},
	{"R3 a sensor_limit_N below WCTEMP alerts without a note",
	 0,
	 343,
	 353,
	 false,
	 330,
	 0,
	 {{0, 320, 335}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, true, SENSOR_LIMIT_CONFIG, 330, true, false, false}},
	{"R3 the configured limit wins over the drive's threshold",
	 0,
	 343,
	 353,
	 true,
	 350,
	 340,
	 {{0, 320, 345}},
	 1,
	 {true, true, SENSOR_PLAUSIBLE, true, SENSOR_LIMIT_CONFIG, 350, false, false, false}},
	{"R3 the drive's threshold (Get Features 04h) is the limit with sensor_alerts = yes",
	 0,
	 343,
	 353,
	 true,
	 0,
	 340,
	 {{0, 320, 341}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, true, SENSOR_LIMIT_DRIVE, 340, true, false, false}},
	{"R3 the drive's threshold alone does not enable alerts",
	 0,
	 343,
	 353,
	 false,
	 0,
	 340,
	 {{0, 320, 341}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R3 sensor_alerts = yes, no WCTEMP reported and no limit: nothing to alert against",
	 0,
	 0,
	 0,
	 true,
	 0,
	 0,
	 {{0, 320, 400}},
	 1,
	 {true, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
	{"R7 a sensor at 0 K is not reported: no verdict",
	 3,
	 343,
	 353,
	 true,
	 350,
	 0,
	 {{0, 320, 0}},
	 1,
	 {false, false, SENSOR_PLAUSIBLE, false, NO, 0, false, false, false}},
};

static void run_case(const struct tcase *tc)
{
	struct sensor_hist hist[SMART_NUM_SENSORS];
	struct sensors_cfg c = {.sensor_alerts = tc->sensor_alerts};
	struct sensors_verdict v;

	memset(hist, 0, sizeof(hist));
	c.config_limit_k[tc->sensor] = tc->config_limit_k;
	c.drive_limit_k[tc->sensor] = tc->drive_limit_k;
	for (int i = 0; i < tc->n; i++) {
		struct sensors_in in = {
			.composite_k = tc->s[i].comp_k,
			.wctemp_k = tc->wctemp_k,
			.cctemp_k = tc->cctemp_k,
		};
		in.sensor_k[tc->sensor] = tc->s[i].sens_k;
		sensors_judge(hist, &in, &c, 1764460800000LL + tc->s[i].t_s * 1000, &v);
	}
	const struct sensor_verdict *sv = &v.sensor[tc->sensor];
	const struct expect *e = &tc->e;

	cr_expect_eq(sv->reported, e->reported, "%s: reported", tc->rule);
	cr_expect_eq(sv->note, e->note, "%s: note", tc->rule);
	cr_expect_eq(sv->implausible, e->impl, "%s: implausible %s", tc->rule,
		     sensor_implausible_name(sv->implausible));
	cr_expect_eq(sv->may_alert, e->may_alert, "%s: may_alert", tc->rule);
	cr_expect_eq(sv->limit_src, e->src, "%s: limit from %s", tc->rule,
		     sensor_limit_src_name(sv->limit_src));
	cr_expect_eq(sv->limit_k, e->limit_k, "%s: limit %u K", tc->rule, sv->limit_k);
	cr_expect_eq(sv->over_limit, e->over, "%s: over_limit", tc->rule);
	cr_expect_eq(v.composite_over_wctemp, e->comp_wc, "%s: composite over WCTEMP", tc->rule);
	cr_expect_eq(v.composite_over_cctemp, e->comp_cc, "%s: composite over CCTEMP", tc->rule);
	/* The other sensors are not reported in these samples: no verdict. */
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		if (i != tc->sensor)
			cr_expect(!v.sensor[i].reported && !v.sensor[i].note, "%s: sensor %d",
				  tc->rule, i + 1);
}

Test(sensors, table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* The stuck sensor recovers: once it moves, it is plausible again. */
Test(sensors, stuck_sensor_clears_when_it_moves)
{
	struct sensor_hist hist[SMART_NUM_SENSORS] = {0};
	struct sensors_cfg c = {.sensor_alerts = true};
	struct sensors_in in = {.wctemp_k = CRU_WC, .cctemp_k = CRU_CC};
	struct sensors_verdict v;
	const int64_t t0 = 1764460800000LL;

	in.sensor_k[1] = CRU_S2;
	in.composite_k = 305;
	sensors_judge(hist, &in, &c, t0, &v);
	in.composite_k = 315;
	sensors_judge(hist, &in, &c, t0 + 6 * H * 1000, &v);
	cr_assert_eq(v.sensor[1].implausible, SENSOR_STUCK);
	cr_assert(!v.sensor[1].may_alert);
	in.sensor_k[1] = 330;
	sensors_judge(hist, &in, &c, t0 + 6 * H * 1000 + 1000, &v);
	cr_expect_eq(v.sensor[1].implausible, SENSOR_PLAUSIBLE);
	cr_expect(v.sensor[1].may_alert);
	cr_expect(!v.sensor[1].over_limit);
	cr_expect_eq(hist[1].last_k, 330);
	cr_expect_eq(hist[1].comp_min_k, 315);
	cr_expect_eq(hist[1].comp_max_k, 315);
}

/* A restored history (the caller persisted it) keeps counting the 6 h. */
Test(sensors, restored_history_counts)
{
	const int64_t t0 = 1764460800000LL;
	struct sensor_hist hist[SMART_NUM_SENSORS] = {
		[1] = {.last_k = CRU_S2, .since_ms = t0, .comp_min_k = 303, .comp_max_k = 310},
	};
	struct sensors_cfg c = {0};
	struct sensors_in in = {.composite_k = 306, .wctemp_k = CRU_WC, .cctemp_k = CRU_CC};
	struct sensors_verdict v;

	in.sensor_k[1] = CRU_S2;
	sensors_judge(hist, &in, &c, t0 + 6 * H * 1000, &v);
	cr_expect_eq(v.sensor[1].implausible, SENSOR_STUCK);
	cr_expect(v.sensor[1].note);
}

Test(sensors, in_of_health_log)
{
	struct smart_log s = {.temperature_k = CRU_CMP};
	s.temp_sensor_k[1] = CRU_S2;
	struct sensors_in in = sensors_in_of(&s, CRU_WC, CRU_CC);

	cr_expect_eq(in.composite_k, CRU_CMP);
	cr_expect_eq(in.sensor_k[0], 0);
	cr_expect_eq(in.sensor_k[1], CRU_S2);
	cr_expect_eq(in.wctemp_k, CRU_WC);
	cr_expect_eq(in.cctemp_k, CRU_CC);
}

Test(sensors, names)
{
	cr_expect_str_eq(sensor_implausible_name(SENSOR_STUCK), "stuck");
	cr_expect_str_eq(sensor_implausible_name(SENSOR_BEYOND_CCTEMP), "beyond_cctemp");
	cr_expect_str_eq(sensor_implausible_name(SENSOR_PLAUSIBLE), "plausible");
	cr_expect_str_eq(sensor_limit_src_name(SENSOR_LIMIT_DRIVE), "drive");
	cr_expect_str_eq(sensor_limit_src_name(SENSOR_LIMIT_WCTEMP), "wctemp");
	cr_expect_str_eq(sensor_limit_src_name(SENSOR_LIMIT_CONFIG), "config");
	cr_expect_str_eq(sensor_limit_src_name(SENSOR_LIMIT_NONE), "none");
}

/*
 * R4 with R7: a composite of 0 K is "not reported", not the coldest reading.
 * The sensor's history starting while the composite read 0 still learns the
 * composite's range from the next readings, and a 0 in between neither lowers
 * the minimum nor starts the range over (hist_update(): "composite_k == 0:
 * return"; the minimum taken from the first real reading).
 */
Test(sensors, stuck_detected_when_the_composite_once_read_zero)
{
	const int64_t t0 = 1764460800000LL;
	struct sensors_cfg c = {.sensor_alerts = true};
	struct sensors_verdict v;

	/* The composite unknown at the first sample. */
	struct sensor_hist h1[SMART_NUM_SENSORS] = {0};
	struct sensors_in in = {.wctemp_k = CRU_WC, .cctemp_k = CRU_CC};
	in.sensor_k[1] = CRU_S2;
	in.composite_k = 0;
	sensors_judge(h1, &in, &c, t0, &v);
	in.composite_k = 305;
	sensors_judge(h1, &in, &c, t0 + 1 * H * 1000, &v);
	cr_expect_eq(h1[1].comp_min_k, 305);
	in.composite_k = 315;
	sensors_judge(h1, &in, &c, t0 + 6 * H * 1000, &v);
	cr_expect_eq(h1[1].comp_min_k, 305);
	cr_expect_eq(h1[1].comp_max_k, 315);
	cr_expect_eq(v.sensor[1].implausible, SENSOR_STUCK, "R4: unchanged 6 h, composite +10 K");
	cr_expect(!v.sensor[1].may_alert, "R6");

	/* The composite unknown once in between. */
	struct sensor_hist h2[SMART_NUM_SENSORS] = {0};
	in.composite_k = 305;
	sensors_judge(h2, &in, &c, t0, &v);
	in.composite_k = 0;
	sensors_judge(h2, &in, &c, t0 + 1 * H * 1000, &v);
	cr_expect_eq(h2[1].comp_min_k, 305, "R7: 0 K is no reading");
	in.composite_k = 315;
	sensors_judge(h2, &in, &c, t0 + 6 * H * 1000, &v);
	cr_expect_eq(h2[1].comp_min_k, 305);
	cr_expect_eq(v.sensor[1].implausible, SENSOR_STUCK);
}
