/* SPDX-License-Identifier: MIT */
/*
 * The throttle detector, fed recorded-style traces: one row per poll, the
 * fields of the health log that matter, and the events that must come out.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/analysis/throttle.h"

/* Trace rows leave the trailing (zero) counters out. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define K(c) ((uint16_t)((c) + 273))

struct row {
	int64_t t_s;	   /* seconds since the start of the trace */
	int temp_c;	   /* composite; -1000 = not reported (0 K) */
	int sensor_c;	   /* sensor 1; 0 = not reported */
	uint32_t t1c, t1t; /* TMT1 transitions, seconds */
	uint32_t t2c, t2t; /* TMT2 */
	uint32_t warn_min, crit_min;
	uint8_t cw; /* critical warning byte */
};

#define T0_MS 1764460800000LL /* 2025-11-30T00:00:00Z */

static struct throttle_cfg cfg_for(int wctemp_c, int cctemp_c)
{
	return (struct throttle_cfg){
		.wctemp_k = K(wctemp_c),
		.cctemp_k = K(cctemp_c),
		.hysteresis_c = 2,
		.gap_ms = 30000,
		.settle_ms = 20000,
		.settle_min_ms = 130000,
	};
}

static struct smart_log log_of(const struct row *r)
{
	struct smart_log s = {
		.critical_warning = r->cw,
		.temperature_k = r->temp_c == -1000 ? 0 : K(r->temp_c),
		.avail_spare = 100,
		.spare_thresh = 10,
		.thm_temp1_trans_count = r->t1c,
		.thm_temp1_total_time = r->t1t,
		.thm_temp2_trans_count = r->t2c,
		.thm_temp2_total_time = r->t2t,
		.warning_temp_time = r->warn_min,
		.critical_temp_time = r->crit_min,
	};
	s.temp_sensor_k[0] = r->sensor_c ? K(r->sensor_c) : 0;
	return s;
}

/* Everything that came out: the latest version of each event, in order of opening. */
struct result {
	struct throttle_event ev[64];
	int changes[64][3]; /* opened, updated, closed counts */
	size_t n;
};

static void run(struct throttle_state *st, const struct throttle_cfg *c, const struct row *rows,
		size_t n, struct result *res)
{
	for (size_t i = 0; i < n; i++) {
		struct throttle_update up[THROTTLE_MAX_UPDATES];
		struct smart_log s = log_of(&rows[i]);
		size_t k = throttle_feed(st, c, &s, T0_MS + rows[i].t_s * 1000, up);

		cr_assert_leq(k, THROTTLE_MAX_UPDATES);
		for (size_t j = 0; j < k; j++) {
			size_t at;
			if (up[j].change == THROTTLE_OPENED) {
				cr_assert_lt(res->n, 64);
				at = res->n++;
				/* the test plays the store: ids are positions + 1 */
				st->ev[up[j].ev.kind].id = (int64_t)at + 1;
				up[j].ev.id = (int64_t)at + 1;
			} else {
				cr_assert_gt(up[j].ev.id, 0, "update of an event never opened");
				at = (size_t)up[j].ev.id - 1;
			}
			res->ev[at] = up[j].ev;
			res->changes[at][up[j].change]++;
		}
	}
}

static void run_fresh(const struct throttle_cfg *c, const struct row *rows, size_t n,
		      struct result *res)
{
	struct throttle_state st = {0};

	memset(res, 0, sizeof(*res));
	run(&st, c, rows, n, res);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static size_t count_kind(const struct result *r, enum throttle_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->ev[i].kind == k;
	return n;
}

static const struct throttle_event *first_of(const struct result *r, enum throttle_kind k)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ev[i].kind == k)
			return &r->ev[i];
	cr_assert_fail("no %s event", throttle_kind_name(k));
	return NULL;
}

Test(throttle, t1_rising_is_one_light_episode_with_counter_duration)
{
	/* Composite stays below WCTEMP: only the counters speak. */
	static const struct row rows[] = {
		{0, 60, 0, 5, 100},  {10, 62, 0, 5, 100}, {20, 66, 0, 6, 108}, {30, 67, 0, 6, 118},
		{40, 66, 0, 6, 125}, {50, 60, 0, 6, 125}, {60, 55, 0, 6, 125}, {70, 52, 0, 6, 125},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1);
	const struct throttle_event *ev = first_of(&r, THROTTLE_LIGHT);
	cr_assert_eq(ev->transitions, 1);
	cr_assert_eq(ev->duration_s, 25, "duration from the counter, got %llu",
		     (unsigned long long)ev->duration_s);
	cr_assert_eq(ev->start_ms, T0_MS + 12000, "began 8 s before the sample at 20 s");
	cr_assert_eq(ev->end_ms, T0_MS + 40000, "ends at the last rise");
	cr_assert_eq(ev->peak_k, K(67));
	cr_assert_not(ev->late);
	cr_assert_not(ev->counter_reset);
	cr_assert_eq(r.changes[0][THROTTLE_OPENED], 1);
	cr_assert_eq(r.changes[0][THROTTLE_CLOSED], 1);
}

Test(throttle, t2_rises_with_t1_two_kinds_two_events)
{
	static const struct row rows[] = {
		{0, 60, 0, 0, 0, 0, 0},	  {10, 69, 0, 1, 6, 0, 0},   {20, 69, 0, 1, 9, 1, 7},
		{30, 69, 0, 1, 9, 1, 17}, {40, 60, 0, 1, 12, 1, 17}, {80, 55, 0, 1, 12, 1, 17},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(count_kind(&r, THROTTLE_LIGHT), 1);
	cr_assert_eq(count_kind(&r, THROTTLE_HEAVY), 1);
	cr_assert_eq(first_of(&r, THROTTLE_HEAVY)->duration_s, 17);
	cr_assert_eq(first_of(&r, THROTTLE_HEAVY)->transitions, 1);
	cr_assert_eq(first_of(&r, THROTTLE_LIGHT)->duration_s, 12);
	cr_assert_neq(first_of(&r, THROTTLE_HEAVY)->end_ms, 0, "closed");
	cr_assert_neq(first_of(&r, THROTTLE_LIGHT)->end_ms, 0, "closed");
}

Test(throttle, counter_reset_never_gives_a_negative_or_huge_delta)
{
	/* Power cycle: the drive starts counting from zero again. */
	static const struct row rows[] = {
		{0, 50, 0, 100, 5000}, {10, 50, 0, 100, 5000}, {20, 50, 0, 1, 3},
		{30, 50, 0, 1, 3},     {60, 50, 0, 1, 3},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.ev[0].kind, THROTTLE_LIGHT);
	cr_assert_eq(r.ev[0].duration_s, 3);
	cr_assert_eq(r.ev[0].transitions, 1);
	cr_assert(r.ev[0].counter_reset);
}

Test(throttle, reset_to_zero_is_no_event)
{
	static const struct row rows[] = {
		{0, 50, 0, 7, 900, 2, 40, 30, 1},
		{10, 50, 0, 0, 0, 0, 0, 0, 0},
		{20, 50, 0, 0, 0, 0, 0, 0, 0},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 0);
}

Test(throttle, wrap_of_32_bit_counters_is_the_modular_difference)
{
	static const struct row rows[] = {
		{0, 50, 0, 0xFFFFFFFEu, 0xFFFFFFF0u},
		{10, 50, 0, 0x00000001u, 0x00000005u},
		{60, 50, 0, 0x00000001u, 0x00000005u},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.ev[0].duration_s, 21);
	cr_assert_eq(r.ev[0].transitions, 3);
	cr_assert_not(r.ev[0].counter_reset, "a wrap is not a reset");
}

Test(throttle, gap_of_hours_still_yields_the_episode_marked_late)
{
	/* The daemon was down for three hours; the drive throttled twice meanwhile. */
	static const struct row rows[] = {
		{0, 50, 0, 4, 300, 1, 20, 10, 0},
		{3 * 3600, 51, 0, 6, 900, 2, 50, 12, 0},
		{3 * 3600 + 10, 51, 0, 6, 900, 2, 50, 12, 0},
		{3 * 3600 + 200, 51, 0, 6, 900, 2, 50, 12, 0},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(count_kind(&r, THROTTLE_LIGHT), 1);
	cr_assert_eq(count_kind(&r, THROTTLE_HEAVY), 1);
	cr_assert_eq(count_kind(&r, THROTTLE_WARN_TIME), 1);
	const struct throttle_event *l = first_of(&r, THROTTLE_LIGHT);
	cr_assert(l->late);
	cr_assert_eq(l->duration_s, 600);
	cr_assert_eq(l->transitions, 2);
	cr_assert_eq(l->start_ms, T0_MS + (3 * 3600 - 600) * 1000LL);
	cr_assert_eq(l->end_ms, T0_MS + 3 * 3600 * 1000LL);
	const struct throttle_event *w = first_of(&r, THROTTLE_WARN_TIME);
	cr_assert(w->late);
	cr_assert_eq(w->duration_s, 120, "2 minutes of warning temperature time");
	cr_assert_neq(w->end_ms, 0, "closed after the minute counter settled");
}

Test(throttle, short_poll_without_a_gap_is_not_late)
{
	static const struct row rows[] = {{0, 50, 0, 0, 0}, {25, 50, 0, 1, 2}};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1);
	cr_assert_not(r.ev[0].late);
}

/*
 * WCTEMP and CCTEMP are thresholds of the Composite Temperature (NVMe Base 2.0,
 * Figure 275): over_wctemp / over_cctemp follow the composite only, whatever
 * sensors 1-8 say (sensors.c judges those). One case per rule: the trace and
 * how many temperature events (over_wctemp, over_cctemp) must come out.
 */
Test(throttle, wctemp_and_cctemp_judge_the_composite_only)
{
	const struct {
		const char *rule;
		int wc, cc;
		struct row rows[6];
		size_t n;
		size_t n_wc, n_cc;
		int peak_c; /* of the first over_wctemp event */
	} t[] = {
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: "
		 "sensor 1 "
		 "at 71-73 °C over WCTEMP 70 °C with the composite at 50 °C is no event",
		 70,
		 80,
		 {{0, 50, 60},
		  {10, 50, 71},
		  {20, 50, 73},
		  {30, 50, 69},
		  {40, 50, 67},
		  {50, 50, 60}},
		 6,
		 0,
		 0},
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: a "
		 "sensor "
		 "over CCTEMP (85 °C > 80 °C) with a cool composite is no event either",
		 70,
		 80,
		 {{0, 50, 85}, {10, 50, 86}},
		 2,
		 0,
		 0},
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: the "
		 "stuck-sensor drive (Sensor 1 here at 81.8 °C = 355 K, WCTEMP 74.8 °C = 348 K, "
		 "composite 33.9 °C) never opens over_wctemp",
		 75,
		 80,
		 {{0, 34, 82}, {3600, 38, 82}, {7200, 40, 82}, {21600, 34, 82}},
		 4,
		 0,
		 0},
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: the "
		 "composite at WCTEMP opens over_wctemp, its peak is the composite (71 °C), not "
		 "the "
		 "hotter sensor (75 °C)",
		 70,
		 80,
		 {{0, 60, 64}, {10, 70, 74}, {20, 71, 75}, {30, 60, 64}},
		 4,
		 1,
		 0,
		 71},
		{"NVMe Base 2.0, WCTEMP/CCTEMP are thresholds for the Composite Temperature: the "
		 "composite at CCTEMP opens over_cctemp (and over_wctemp), a cooler sensor changes "
		 "nothing",
		 70,
		 80,
		 {{0, 60, 0}, {10, 80, 40}, {20, 60, 40}},
		 3,
		 1,
		 1,
		 80},
	};

	for (size_t i = 0; i < N(t); i++) {
		struct throttle_cfg c = cfg_for(t[i].wc, t[i].cc);
		struct result r;

		run_fresh(&c, t[i].rows, t[i].n, &r);
		cr_expect_eq(count_kind(&r, THROTTLE_OVER_WCTEMP), t[i].n_wc, "%s: over_wctemp %zu",
			     t[i].rule, count_kind(&r, THROTTLE_OVER_WCTEMP));
		cr_expect_eq(count_kind(&r, THROTTLE_OVER_CCTEMP), t[i].n_cc, "%s: over_cctemp %zu",
			     t[i].rule, count_kind(&r, THROTTLE_OVER_CCTEMP));
		if (t[i].n_wc)
			cr_expect_eq(first_of(&r, THROTTLE_OVER_WCTEMP)->peak_k, K(t[i].peak_c),
				     "%s: peak", t[i].rule);
	}
}

Test(throttle, hot_composite_crosses_wctemp_with_hysteresis)
{
	static const struct row rows[] = {
		{0, 60, 50}, {10, 71, 50}, {20, 73, 50}, {30, 69, 50}, {40, 67, 50}, {50, 60, 50},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.ev[0].kind, THROTTLE_OVER_WCTEMP);
	cr_assert_eq(r.ev[0].peak_k, K(73));
	cr_assert_eq(r.ev[0].start_ms, T0_MS + 10000);
	/* 69 is inside the hysteresis (2 °C): still open; 67 ends it. */
	cr_assert_eq(r.ev[0].end_ms, T0_MS + 40000);
	cr_assert_eq(r.ev[0].duration_s, 30);
}

Test(throttle, missing_sensors_decide_nothing)
{
	/* Composite not reported and no sensor: the open event stays open. */
	static const struct row rows[] = {
		{0, 72, 0},
		{10, -1000, 0},
		{20, -1000, 0},
		{30, 60, 0},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.ev[0].kind, THROTTLE_OVER_WCTEMP);
	cr_assert_eq(r.ev[0].end_ms, T0_MS + 30000, "closed by the first reported temperature");

	/* Nothing reported at all: no temperature event ever. */
	static const struct row none[] = {{0, -1000, 0}, {10, -1000, 0}};
	run_fresh(&c, none, N(none), &r);
	cr_assert_eq(r.n, 0);
}

Test(throttle, thresholds_are_the_drives_own_80_vs_70)
{
	static const struct row rows[] = {
		{0, 60, 0},
		{10, 75, 0},
		{20, 76, 0},
		{30, 60, 0},
	};
	struct throttle_cfg hot70 = cfg_for(70, 80), hot80 = cfg_for(80, 85);
	struct result r;

	run_fresh(&hot70, rows, N(rows), &r);
	cr_assert_eq(count_kind(&r, THROTTLE_OVER_WCTEMP), 1, "75 °C is over a 70 °C WCTEMP");
	cr_assert_eq(count_kind(&r, THROTTLE_OVER_CCTEMP), 0);
	run_fresh(&hot80, rows, N(rows), &r);
	cr_assert_eq(r.n, 0, "75 °C is fine for a drive rated 80 °C");

	/* A margin of 6 °C below WCTEMP 80 makes 75 °C count. */
	hot80.warning_margin_c = 6;
	run_fresh(&hot80, rows, N(rows), &r);
	cr_assert_eq(count_kind(&r, THROTTLE_OVER_WCTEMP), 1);
}

Test(throttle, cctemp_and_no_limits_reported)
{
	static const struct row rows[] = {{0, 60, 0}, {10, 81, 0}, {20, 60, 0}};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(count_kind(&r, THROTTLE_OVER_CCTEMP), 1);
	cr_assert_eq(first_of(&r, THROTTLE_OVER_CCTEMP)->peak_k, K(81));

	c.wctemp_k = c.cctemp_k = 0; /* the drive does not say: no temperature events */
	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 0);
}

Test(throttle, critical_warning_temperature_bit)
{
	static const struct row rows[] = {
		{0, 50, 0, 0, 0, 0, 0, 0, 0, 0x00},  {10, 50, 0, 0, 0, 0, 0, 0, 0, 0x02},
		{20, 50, 0, 0, 0, 0, 0, 0, 0, 0x06}, {30, 50, 0, 0, 0, 0, 0, 0, 0, 0x04},
		{40, 50, 0, 0, 0, 0, 0, 0, 0, 0x04}, {50, 50, 0, 0, 0, 0, 0, 0, 0, 0x04},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1, "other bits are not temperature events");
	cr_assert_eq(r.ev[0].kind, THROTTLE_CRIT_BIT);
	cr_assert_eq(r.ev[0].start_ms, T0_MS + 10000);
	cr_assert_eq(r.ev[0].end_ms, T0_MS + 20000, "ends when last seen set, once settled");
	cr_assert_eq(r.changes[0][THROTTLE_CLOSED], 1);
}

Test(throttle, flickering_bit_is_one_episode)
{
	/* A composite wobbling around WCTEMP: the drive sets and clears bit 1 every poll. */
	struct row rows[30];
	for (int i = 0; i < 30; i++)
		rows[i] = (struct row){
			.t_s = i, .temp_c = 69, .cw = (uint8_t)(i < 20 && i % 2 ? 2 : 0)};
	struct throttle_cfg c = cfg_for(70, 80);
	c.settle_ms = 5000;
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1, "one episode, got %zu", r.n);
	cr_assert_eq(r.ev[0].start_ms, T0_MS + 1000);
	cr_assert_eq(r.ev[0].end_ms, T0_MS + 19000);
}

Test(throttle, minute_counters_do_not_flap_between_polls)
{
	/* Polls every 10 s; warning time rises once a minute while hot. */
	struct row rows[40];
	for (int i = 0; i < 40; i++)
		rows[i] = (struct row){
			.t_s = i * 10, .temp_c = 60, .warn_min = (uint32_t)(i < 25 ? i / 6 : 4)};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1, "one episode, not one per minute");
	cr_assert_eq(r.ev[0].kind, THROTTLE_WARN_TIME);
	cr_assert_eq(r.ev[0].duration_s, 240);
	cr_assert_eq(r.ev[0].start_ms, T0_MS, "the first counted minute began 60 s before");
	cr_assert_neq(r.ev[0].end_ms, 0);
}

Test(throttle, duplicate_or_older_sample_moves_no_counter)
{
	static const struct row rows[] = {{10, 50, 0, 1, 1}, {10, 50, 0, 2, 5}, {5, 50, 0, 3, 9}};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 0);
}

Test(throttle, restored_open_event_continues_and_closes)
{
	struct throttle_state st = {0};
	struct throttle_cfg c = cfg_for(70, 80);
	struct throttle_event open = {
		.id = 1,
		.kind = THROTTLE_LIGHT,
		.start_ms = T0_MS - 5000,
		.last_rise_ms = T0_MS,
		.duration_s = 5,
		.transitions = 1,
		.peak_k = K(68),
	};
	static const struct row rows[] = {{0, 60, 0, 1, 5}, {10, 60, 0, 1, 9}, {60, 60, 0, 1, 9}};
	struct result r = {0};

	cr_assert_eq(throttle_restore(&st, &open), 0);
	r.n = 1;
	r.ev[0] = open;
	run(&st, &c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1, "no second event");
	cr_assert_eq(r.ev[0].duration_s, 9);
	cr_assert_eq(r.ev[0].end_ms, T0_MS + 10000);
	cr_assert_eq(r.changes[0][THROTTLE_CLOSED], 1);

	open.end_ms = 1;
	cr_assert_eq(throttle_restore(&st, &open), -EINVAL, "closed events are not restored");
}

Test(throttle, device_gone_closes_open_events_and_its_return_is_late)
{
	static const struct row before[] = {{0, 60, 0, 1, 5}, {10, 72, 0, 2, 9}};
	static const struct row after[] = {{3600, 50, 0, 3, 40}};
	struct throttle_cfg c = cfg_for(70, 80);
	struct throttle_state st = {0};
	struct throttle_update up[THROTTLE_MAX_UPDATES];
	struct result r = {0};

	run(&st, &c, before, N(before), &r);
	cr_assert_eq(r.n, 2, "light and over_wctemp open");
	size_t n = throttle_close_all(&st, up);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(up[i].change, THROTTLE_CLOSED);
		cr_assert_eq(up[i].ev.end_ms, T0_MS + 10000, "ended when last seen");
	}
	cr_assert_eq(throttle_close_all(&st, up), 0, "nothing left open");
	run(&st, &c, after, N(after), &r);
	cr_assert_eq(r.n, 3);
	cr_assert_eq(r.ev[2].kind, THROTTLE_LIGHT);
	cr_assert(r.ev[2].late, "throttled while gone");
	cr_assert_eq(r.ev[2].duration_s, 31);
}

Test(throttle, restored_event_that_had_settled_is_not_merged_with_a_late_one)
{
	/* Stopped 60 s after the last rise (settling: 20 s), started an hour later. */
	struct throttle_cfg c = cfg_for(70, 80);
	static const struct row last = {60, 50, 0, 1, 5};
	static const struct row rows[] = {{3600, 50, 0, 2, 30}};
	struct throttle_state st = {.have_prev = true, .prev_ts_ms = T0_MS + 60000};
	struct throttle_event open = {.id = 1,
				      .kind = THROTTLE_LIGHT,
				      .start_ms = T0_MS - 5000,
				      .last_rise_ms = T0_MS,
				      .duration_s = 5,
				      .transitions = 1};
	struct result r = {0};

	st.prev = log_of(&last);
	cr_assert_eq(throttle_restore(&st, &open), 0);
	r.n = 1;
	r.ev[0] = open;
	run(&st, &c, rows, N(rows), &r);
	cr_assert_eq(r.n, 2, "a new event");
	cr_assert_eq(r.changes[0][THROTTLE_CLOSED], 1);
	cr_assert_eq(r.ev[0].end_ms, T0_MS);
	cr_assert_eq(r.ev[0].duration_s, 5, "the old one keeps its duration");
	cr_assert(r.ev[1].late);
	cr_assert_eq(r.ev[1].duration_s, 25);
	cr_assert_eq(r.ev[1].transitions, 1);
}

Test(throttle, kind_names_round_trip)
{
	for (int k = 0; k < _THROTTLE_KIND_MAX; k++)
		cr_assert_eq(throttle_kind_from_name(throttle_kind_name(k)), k);
	cr_assert_eq(throttle_kind_from_name("nope"), -EINVAL);
}

/*
 * Boundaries of the README's event rules, one case each: the trace, the one
 * event that must come out, and the rule that says so.
 */
Test(throttle, rule_boundaries)
{
	const struct {
		const char *rule;
		struct row rows[6];
		size_t n;
		enum throttle_kind kind;
		uint64_t duration_s;
		int64_t start_s, end_s; /* end -1: still open */
		bool late, reset;
	} t[] = {
		{"critical composite temperature time counts minutes: +2 is 120 s, begun before "
		 "the "
		 "previous sample",
		 {{0, 50}, {10, 50, 0, 0, 0, 0, 0, 0, 2}},
		 2,
		 THROTTLE_CRIT_TIME,
		 120,
		 10 - 120,
		 -1},
		{"over_wctemp opens when the hottest temperature reached WCTEMP - margin (70 °C is "
		 "reached at 70)",
		 {{0, 60}, {10, 70}, {20, 60}},
		 3,
		 THROTTLE_OVER_WCTEMP,
		 10,
		 10,
		 20},
		{"a temperature event ends once more than hysteresis (2 °C) below: 68 keeps it "
		 "open",
		 {{0, 60}, {10, 71}, {20, 68}, {30, 67}},
		 4,
		 THROTTLE_OVER_WCTEMP,
		 20,
		 10,
		 30},
		{"a fall from the top quarter of 2^32 to the bottom quarter is a wrap",
		 {{0, 50, 0, 0, 0xFFFFFFF0u}, {10, 50, 0, 0, 4}},
		 2,
		 THROTTLE_LIGHT,
		 20,
		 0,
		 -1},
		{"a fall from below the top quarter is a reset, not a wrap: count from zero",
		 {{0, 50, 0, 0, 0xB0000000u}, {10, 50, 0, 0, 5}},
		 2,
		 THROTTLE_LIGHT,
		 5,
		 5,
		 -1,
		 false,
		 true},
		{"a fall to above the bottom quarter is a reset, not a wrap: count from zero",
		 {{0, 50, 0, 0, 0xF0000000u}, {10, 50, 0, 0, 0x50000000u}},
		 2,
		 THROTTLE_LIGHT,
		 0x50000000u,
		 0,
		 -1,
		 false,
		 true},
		{"late only between samples further apart than the gap (30 s here): 30 s is not",
		 {{0, 50}, {30, 50, 0, 1, 2}},
		 2,
		 THROTTLE_LIGHT,
		 2,
		 28,
		 -1},
		{"samples 31 s apart, over the 30 s gap: the episode is late",
		 {{0, 50}, {31, 50, 0, 1, 2}},
		 2,
		 THROTTLE_LIGHT,
		 2,
		 29,
		 -1,
		 true},
	};

	for (size_t i = 0; i < N(t); i++) {
		struct throttle_cfg c = cfg_for(70, 80);
		struct result r;

		run_fresh(&c, t[i].rows, t[i].n, &r);
		cr_assert_eq(r.n, 1, "%s: %zu events", t[i].rule, r.n);
		const struct throttle_event *ev = first_of(&r, t[i].kind);
		cr_expect_eq(ev->duration_s, t[i].duration_s, "%s: duration %llu", t[i].rule,
			     (unsigned long long)ev->duration_s);
		cr_expect_eq(ev->start_ms, T0_MS + t[i].start_s * 1000, "%s: start %+lld ms",
			     t[i].rule, (long long)(ev->start_ms - T0_MS));
		cr_expect_eq(ev->end_ms, t[i].end_s < 0 ? 0 : T0_MS + t[i].end_s * 1000,
			     "%s: end %lld", t[i].rule, (long long)ev->end_ms);
		cr_expect_eq(ev->late, t[i].late, "%s: late", t[i].rule);
		cr_expect_eq(ev->counter_reset, t[i].reset, "%s: counter_reset", t[i].rule);
	}
}

Test(throttle, throttle_while_asleep_becomes_a_late_event_when_it_wakes)
{
	/*
	 * Issue 11: a runtime-suspended drive is not polled. Polled every 10 s,
	 * then asleep (no sample) for 40 minutes; the first sample after it woke
	 * shows one light throttle of 90 s that happened in between: one event,
	 * late, with the counters' duration, ended at that sample.
	 */
	static const struct row rows[] = {
		{0, 45, 0, 3, 200, 0, 0, 0, 0},		{10, 45, 0, 3, 200, 0, 0, 0, 0},
		{10 + 2400, 47, 0, 4, 290, 0, 0, 0, 0}, {10 + 2410, 46, 0, 4, 290, 0, 0, 0, 0},
		{10 + 2440, 46, 0, 4, 290, 0, 0, 0, 0},
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(r.n, 1, "one event, got %zu", r.n);
	const struct throttle_event *l = first_of(&r, THROTTLE_LIGHT);
	cr_expect(l->late, "happened while nobody could look");
	cr_expect_eq(l->duration_s, 90);
	cr_expect_eq(l->transitions, 1);
	cr_expect_eq(l->end_ms, T0_MS + (10 + 2400) * 1000LL);
	cr_expect_eq(l->start_ms, T0_MS + (10 + 2400 - 90) * 1000LL);
}

/*
 * throttle.h, late: "(partly) happened while no sample was taken". An episode
 * that opened after a gap stays late when it then rises on time: a part of it
 * still happened unseen (feed_counter(): late |= gap).
 */
Test(throttle, episode_opened_late_stays_late_when_it_rises_on_time)
{
	static const struct row rows[] = {
		{0, 50, 0, 0, 0},     {3600, 60, 0, 1, 40}, /* after an hour unseen: opens late */
		{3610, 61, 0, 1, 50},			    /* rises on time (10 s < gap_ms) */
		{3620, 61, 0, 2, 60},			    /* and again */
		{3650, 60, 0, 2, 60}, /* quiet for the settling time: closes */
	};
	struct throttle_cfg c = cfg_for(70, 80);
	struct result r;

	run_fresh(&c, rows, N(rows), &r);
	cr_assert_eq(count_kind(&r, THROTTLE_LIGHT), 1);
	const struct throttle_event *l = first_of(&r, THROTTLE_LIGHT);
	cr_assert(l->late, "a late start stays late");
	cr_assert_eq(l->duration_s, 60);
	cr_assert_eq(l->transitions, 2);
	cr_assert_neq(l->end_ms, 0);

	/* The other way round: on time first, then a gap makes it late. */
	static const struct row rows2[] = {
		{0, 50, 0, 0, 0},
		{10, 60, 0, 1, 5},
		{20, 60, 0, 1, 15},
		{20 + 60, 60, 0, 1, 25}, /* 60 s gap (> gap_ms 30 s), still rising */
	};
	run_fresh(&c, rows2, N(rows2), &r);
	cr_assert_eq(count_kind(&r, THROTTLE_LIGHT), 1);
	cr_assert(first_of(&r, THROTTLE_LIGHT)->late);
}
