/* SPDX-License-Identifier: MIT */
/*
 * The demo year (demo/demo_year.c) and the many demo drives (demo/demo.h): each
 * case states the rule of demo_year.h it checks.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/cliff.h"
#include "nvmond/analysis/wear.h"
#include "nvmond/demo/demo.h"
#include "nvmond/demo/demo_year.h"
#include "nvmond/dev/dev.h"
#include "nvmond/probe/probe.h"

#define NOW    1796120400000LL /* 2026-12-01T10:20:00Z */
#define SEED   42
#define MS_DAY (86400 * 1000LL)

static struct demo_year gen(size_t index, uint64_t seed, int64_t now)
{
	struct dev_demo_drive d;
	struct demo_year y;

	cr_assert_eq(dev_demo_drive(index, &d), 0);
	cr_assert_eq(demo_year_generate(&d, seed, now, &y), 0);
	return y;
}

static int64_t floor_day(int64_t ms)
{
	return ms / MS_DAY * MS_DAY;
}

/* ---- the drives ---- */

Test(demo_drives, sixty_four_distinct_drives_then_none)
{
	struct dev_demo_drive a, b;

	for (size_t i = 0; i < DEV_DEMO_MAX; i++) {
		cr_assert_eq(dev_demo_drive(i, &a), 0);
		cr_expect(a.wctemp_k > 273 && a.wctemp_k <= a.cctemp_k, "%s: WCTEMP <= CCTEMP",
			  a.model);
		cr_expect(a.capacity > 0 && a.rated_bytes > 0 && a.write_bps > 0);
		cr_expect(a.perf.cache_bytes > 0 && a.perf.native_write > 0);
		for (size_t k = 0; k < i; k++) {
			cr_assert_eq(dev_demo_drive(k, &b), 0);
			cr_expect_str_neq(a.serial, b.serial, "serials %zu and %zu", i, k);
		}
	}
	cr_expect_eq(dev_demo_drive(DEV_DEMO_MAX, &a), -ENODEV);
}

/* Drives 0 and 1 stay what they always were: the live tests count on them. */
Test(demo_drives, first_two_unchanged)
{
	struct dev_demo_drive d;

	cr_assert_eq(dev_demo_drive(0, &d), 0);
	cr_expect_str_eq(d.model, "Samsung SSD 950 PRO 512GB");
	cr_expect_str_eq(d.serial, "DEMO950PRO00001");
	cr_expect_eq(d.wctemp_k, 343);
	cr_assert_eq(dev_demo_drive(1, &d), 0);
	cr_expect_str_eq(d.model, "Samsung SSD 980 PRO 1TB");
	cr_expect_str_eq(d.serial, "DEMO980PRO00002");
}

/* 32 drives are mixed models, and every rating wear.c knows is the same here. */
Test(demo_drives, mixed_models_rated_as_wear_knows)
{
	char models[32][41];
	size_t distinct = 0;

	for (size_t i = 0; i < 32; i++) {
		struct dev_demo_drive d;
		uint64_t rated;
		const char *ref;
		bool seen = false;

		cr_assert_eq(dev_demo_drive(i, &d), 0);
		if (wear_builtin_rating(d.model, &rated, &ref))
			cr_expect_eq((uint64_t)d.rated_bytes, rated, "%s", d.model);
		for (size_t k = 0; k < distinct; k++)
			seen |= strcmp(models[k], d.model) == 0;
		if (!seen)
			strcpy(models[distinct++], d.model);
	}
	cr_expect_geq(distinct, 8, "%zu models", distinct);
}

Test(demo_drives, backend_serves_n_drives)
{
	struct dev_backend *b = NULL;
	struct dev_info *v = NULL;
	uint8_t page[SMART_LOG_SIZE];
	size_t n = 0;

	cr_expect_eq(dev_demo_open_n(0, &b), -EINVAL);
	cr_expect_eq(dev_demo_open_n(DEV_DEMO_MAX + 1, &b), -EINVAL);
	cr_assert_eq(dev_demo_open_n(DEV_DEMO_MAX, &b), 0);
	cr_assert_eq(dev_scan(b, NOW, &v, &n), 0);
	cr_expect_eq(n, DEV_DEMO_MAX);
	cr_expect_str_eq(v[63].name, "demo63");
	struct dev_ident who = {.model = v[63].id.model, .serial = v[63].id.serial};
	cr_expect_eq(dev_read_smart(b, "demo63", &who, NOW, page), 0);
	cr_expect_eq(dev_read_smart(b, "demo64", NULL, NOW, page), -ENODEV);
	cr_expect_eq(dev_read_smart(b, "demo01", NULL, NOW, page), -ENODEV);
	cr_expect_eq(dev_read_smart(b, "demo62", &who, NOW, page), -ESTALE);
	free(v);
	dev_backend_free(b);
}

Test(demo_drives, demo_names)
{
	static const struct {
		const char *name;
		bool demo;
	} cases[] = {
		{"demo0", true},  {"demo63", true},  {"demo", false}, {"nvme0", false},
		{"demoX", false}, {"demo1a", false}, {"", false},     {"Demo1", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(dev_demo_name_is(cases[i].name), cases[i].demo, "%s", cases[i].name);
	cr_expect_not(dev_demo_name_is(NULL));
}

/* ---- the year ---- */

Test(demo_year, deterministic_for_a_seed)
{
	struct demo_year a = gen(0, SEED, NOW), b = gen(0, SEED, NOW), c = gen(0, SEED + 1, NOW);

	cr_assert_eq(a.n_samples, b.n_samples);
	cr_expect_eq(memcmp(a.samples, b.samples, a.n_samples * sizeof(*a.samples)), 0);
	cr_assert_eq(a.n_events, b.n_events);
	cr_expect_eq(memcmp(a.events, b.events, a.n_events * sizeof(*a.events)), 0);
	cr_assert_eq(a.n_alerts, b.n_alerts);
	cr_expect_eq(memcmp(a.alerts, b.alerts, a.n_alerts * sizeof(*a.alerts)), 0);
	cr_assert_eq(a.n_runs, b.n_runs);
	for (size_t i = 0; i < a.n_runs; i++) {
		struct demo_run x = a.runs[i], y = b.runs[i];
		cr_assert_eq(x.n_phases, y.n_phases);
		cr_expect_eq(memcmp(x.phase, y.phase, x.n_phases * sizeof(*x.phase)), 0);
		x.phase = y.phase = NULL;
		cr_expect_eq(memcmp(&x, &y, sizeof(x)), 0);
	}
	cr_assert_eq(a.n_errors, b.n_errors);
	cr_expect_eq(memcmp(a.errors, b.errors, a.n_errors * sizeof(*a.errors)), 0);
	cr_assert_eq(a.n_reads, b.n_reads);
	cr_expect_eq(memcmp(a.reads, b.reads, a.n_reads * sizeof(*a.reads)), 0);
	cr_expect_eq(memcmp(a.fw, b.fw, sizeof(a.fw)), 0);
	cr_expect_eq(memcmp(a.links, b.links, sizeof(a.links)), 0);
	bool differs = a.n_samples != c.n_samples || a.n_events != c.n_events;
	for (size_t i = 0; !differs && i < a.n_samples; i++)
		differs = a.samples[i].smart.temperature_k != c.samples[i].smart.temperature_k;
	cr_expect(differs, "another seed, another year");
	/* The entries are the drive's (the live log holds them); the seed picks when. */
	cr_assert_eq(a.n_reads, c.n_reads);
	differs = false;
	for (size_t i = 1; i < a.n_reads; i++)
		differs |= a.reads[i].ms != c.reads[i].ms;
	cr_expect(differs, "another seed, other reads");
	cr_expect_eq(a.n_errors, c.n_errors);
	demo_year_free(&a);
	demo_year_free(&b);
	demo_year_free(&c);
}

/* A year back from now, oldest first, ending where the live drive is at now. */
Test(demo_year, spans_a_year_and_joins_the_live_drive)
{
	for (size_t i = 0; i < 4; i++) {
		struct demo_year y = gen(i, SEED, NOW);
		struct dev_demo_drive d;
		struct smart_log live;

		cr_assert_eq(dev_demo_drive(i, &d), 0);
		dev_demo_state(&d, NOW, &live);
		cr_assert_gt(y.n_samples, 1000);
		cr_expect_geq(NOW - y.samples[0].ts_ms, 365 * MS_DAY, "a year back");
		cr_expect_lt(y.samples[y.n_samples - 1].ts_ms, NOW);
		cr_expect_geq(y.samples[y.n_samples - 1].ts_ms, NOW - 2 * 60 * 1000,
			      "up to the last minute");
		for (size_t k = 1; k < y.n_samples; k++)
			cr_assert_lt(y.samples[k - 1].ts_ms, y.samples[k].ts_ms);
		const struct smart_log *last = &y.samples[y.n_samples - 1].smart;
		cr_expect_leq(last->data_units_written, live.data_units_written);
		cr_expect_geq(last->data_units_written + 1000000, live.data_units_written,
			      "the last minute wrote less than 512 GB");
		cr_expect_leq(last->power_on_hours, live.power_on_hours);
		cr_expect_eq(last->percent_used, live.percent_used);
		demo_year_free(&y);
	}
}

/* Nothing that counts goes backwards; % used steps up during the year. */
Test(demo_year, counters_never_decrease_and_used_steps_up)
{
	static const struct {
		size_t drive;
		int min_steps; /* a year's writes over the rating, in whole percent */
	} cases[] = {{0, 12}, {1, 4}, {3, 0}, {5, 0}};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct demo_year y = gen(cases[c].drive, SEED, NOW);
		int steps = 0;

		for (size_t k = 1; k < y.n_samples; k++) {
			const struct smart_log *p = &y.samples[k - 1].smart,
					       *s = &y.samples[k].smart;
			cr_assert(s->data_units_written >= p->data_units_written);
			cr_assert(s->data_units_read >= p->data_units_read);
			cr_assert(s->power_on_hours >= p->power_on_hours);
			cr_assert(s->power_cycles >= p->power_cycles);
			cr_assert_geq(s->percent_used, p->percent_used, "drive %zu",
				      cases[c].drive);
			cr_assert_geq(s->thm_temp1_trans_count, p->thm_temp1_trans_count);
			cr_assert_geq(s->thm_temp2_trans_count, p->thm_temp2_trans_count);
			cr_assert_geq(s->thm_temp1_total_time, p->thm_temp1_total_time);
			cr_assert_geq(s->thm_temp2_total_time, p->thm_temp2_total_time);
			cr_assert_geq(s->warning_temp_time, p->warning_temp_time);
			steps += s->percent_used > p->percent_used;
		}
		cr_expect_geq(steps, cases[c].min_steps, "drive %zu: %d steps", cases[c].drive,
			      steps);
		demo_year_free(&y);
	}
}

/* Bytes written per UTC day, from the samples, as the wear report counts them. */
static void daily(const struct demo_year *y, int64_t end_ms, size_t days, u128 *ret)
{
	struct wear_point *p = calloc(y->n_samples, sizeof(*p));

	cr_assert_not_null(p);
	for (size_t i = 0; i < y->n_samples; i++)
		p[i] = (struct wear_point){y->samples[i].ts_ms,
					   y->samples[i].smart.data_units_written,
					   y->samples[i].smart.percent_used};
	wear_daily(p, y->n_samples, end_ms, days, ret);
	free(p);
}

/* The unusual day writes at least 5 × the 30-day average (the wear rule's factor). */
Test(demo_year, unusual_day_is_five_times_the_average)
{
	for (size_t i = 0; i < 8; i++) {
		struct demo_year y = gen(i, SEED, NOW);
		u128 d[30];
		double sum = 0;

		cr_expect_eq(y.unusual_day_ms, floor_day(NOW) - DEMO_YEAR_UNUSUAL_AGO * MS_DAY);
		daily(&y, NOW, 30, d);
		for (size_t k = 0; k < 30; k++)
			sum += (double)d[k];
		double unusual = (double)d[29 - DEMO_YEAR_UNUSUAL_AGO];
		cr_expect_geq(unusual, WEAR_UNUSUAL_FACTOR_DEFAULT * sum / 30,
			      "drive %zu: %.0f vs a %.0f average", i, unusual, sum / 30);
		cr_expect_geq(unusual * BYTES_PER_UNIT, (double)WEAR_UNUSUAL_MIN_BYTES);
		bool alert = false;
		for (size_t k = 0; k < y.n_alerts; k++)
			alert |= y.alerts[k].rule == ALERT_WRITE_RATE &&
				 floor_day(y.alerts[k].started_ms) == y.unusual_day_ms;
		cr_expect(alert, "drive %zu: a write-rate alert on the unusual day", i);
		demo_year_free(&y);
	}
}

/* Weekdays write more than weekends (an office's drive). */
Test(demo_year, weekdays_busier_than_weekends)
{
	struct demo_year y = gen(1, SEED, NOW);
	u128 d[300];
	double wk = 0, we = 0;
	int nwk = 0, nwe = 0;

	daily(&y, NOW - 20 * MS_DAY, 300, d);
	for (size_t k = 0; k < 300; k++) {
		int64_t day = floor_day(NOW - 20 * MS_DAY) - (int64_t)(299 - k) * MS_DAY;
		int wd = (int)((day / MS_DAY + 4) % 7); /* 0 = Sunday */
		if (wd == 0 || wd == 6)
			we += (double)d[k], nwe++;
		else
			wk += (double)d[k], nwk++;
	}
	cr_expect_gt(wk / nwk, 1.8 * (we / nwe), "weekday %.0f, weekend %.0f", wk / nwk, we / nwe);
	demo_year_free(&y);
}

/* Coolest at night, hottest in the afternoon. */
Test(demo_year, daily_temperature_rhythm)
{
	for (size_t i = 0; i < 3; i++) {
		struct demo_year y = gen(i, SEED, NOW);
		double night = 0, afternoon = 0;
		int nn = 0, na = 0;

		for (size_t k = 0; k < y.n_samples; k++) {
			int h = (int)(y.samples[k].ts_ms % MS_DAY / 3600000);
			if (h == 3)
				night += y.samples[k].smart.temperature_k, nn++;
			if (h == 15)
				afternoon += y.samples[k].smart.temperature_k, na++;
		}
		cr_expect_gt(afternoon / na, night / nn + 3, "drive %zu", i);
		demo_year_free(&y);
	}
}

/* The 950 PRO throttles in hot spells: light and heavy events, all resolved. */
Test(demo_year, throttle_episodes_resolve)
{
	static const struct {
		size_t drive;
		bool throttles;
	} cases[] = {{0, true}, {1, false}, {2, false}, {5, true}};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct demo_year y = gen(cases[c].drive, SEED, NOW);
		int kinds[_THROTTLE_KIND_MAX] = {0};

		for (size_t k = 0; k < y.n_events; k++) {
			const struct throttle_event *e = &y.events[k];
			cr_expect(e->end_ms > e->start_ms && e->end_ms < NOW - MS_DAY,
				  "event %zu ended before today", k);
			kinds[e->kind]++;
		}
		for (size_t k = 0; k < y.n_alerts; k++)
			cr_expect(y.alerts[k].resolved_ms > y.alerts[k].started_ms &&
					  y.alerts[k].resolved_ms < NOW,
				  "alert %zu resolved", k);
		if (cases[c].throttles) {
			cr_expect_geq(kinds[THROTTLE_LIGHT], 10, "drive %zu", cases[c].drive);
			cr_expect_geq(kinds[THROTTLE_HEAVY], 2);
			cr_expect_geq(kinds[THROTTLE_OVER_WCTEMP], 10);
		} else {
			cr_expect_eq(y.n_events, 0, "drive %zu never throttles", cases[c].drive);
		}
		demo_year_free(&y);
	}
}

/* A sensor stuck on the live drive is stuck all year (the 980 PRO's Sensor 2 at
 * 357 K, above its WCTEMP), and one that moves on the live drive moves in the year:
 * the year's chart shows what the live one does. */
Test(demo_year, stuck_sensor_agrees_with_the_live_drive)
{
	for (size_t i = 0; i < 3; i++) {
		struct demo_year y = gen(i, SEED, NOW);
		struct dev_demo_drive d;
		struct smart_log live;
		uint16_t lo = UINT16_MAX, hi = 0;

		cr_assert_eq(dev_demo_drive(i, &d), 0);
		dev_demo_state(&d, NOW, &live);
		for (size_t k = 0; k < y.n_samples; k++) {
			uint16_t s2 = y.samples[k].smart.temp_sensor_k[1];
			lo = s2 < lo ? s2 : lo;
			hi = s2 > hi ? s2 : hi;
		}
		if (d.sensor2_stuck_k) {
			cr_expect_eq(live.temp_sensor_k[1], d.sensor2_stuck_k, "drive %zu", i);
			cr_expect_eq(lo, live.temp_sensor_k[1], "drive %zu: stuck all year", i);
			cr_expect_eq(hi, live.temp_sensor_k[1], "drive %zu: stuck all year", i);
			cr_expect_gt(hi, d.wctemp_k, "drive %zu: above WCTEMP", i);
		} else {
			cr_expect_gt(hi - lo, 10, "drive %zu: Sensor 2 moves", i);
		}
		demo_year_free(&y);
	}
	struct dev_demo_drive d;
	cr_assert_eq(dev_demo_drive(1, &d), 0);
	cr_expect_eq(d.sensor2_stuck_k, 357, "the 980 PRO is the stuck-sensor drive");
}

/* The T1 counter rises only while a light-throttling event is on. */
Test(demo_year, counters_rise_inside_events)
{
	struct demo_year y = gen(0, SEED, NOW);

	for (size_t k = 1; k < y.n_samples; k++) {
		const struct sample *p = &y.samples[k - 1], *s = &y.samples[k];
		if (s->smart.thm_temp1_total_time == p->smart.thm_temp1_total_time)
			continue;
		bool inside = false;
		for (size_t e = 0; e < y.n_events && !inside; e++)
			inside = y.events[e].kind == THROTTLE_LIGHT &&
				 y.events[e].start_ms < s->ts_ms && y.events[e].end_ms > p->ts_ms;
		cr_assert(inside, "T1 time rose at %lld outside an event", (long long)s->ts_ms);
	}
	demo_year_free(&y);
}

static void cliffs_of(const struct demo_run *run, size_t k, struct cliff_event *ev, size_t *n)
{
	const struct demo_run_phase *p = &run->phase[k];
	struct cliff_point cp[DEMO_RUN_POINTS_MAX];
	struct cliff_thermal th[DEMO_RUN_THERMAL_MAX];

	for (size_t i = 0; i < p->n_points; i++)
		cp[i] = (struct cliff_point){p->point[i].t_ms, p->wr_bytes ? p->point[i].wr_bytes
									   : p->point[i].rd_bytes};
	for (size_t i = 0; i < run->n_thermal; i++) {
		th[i] = run->thermal[i];
		th[i].t_ms -= p->offset_ms;
	}
	cr_assert_eq(
		cliff_analyze(cp, p->n_points, th, run->n_thermal, NULL, ev, CLIFF_MAX_EVENTS, n),
		0);
}

/* Every preset ran, with the probe engine's phases; a cliff, and a throttle dip. */
Test(demo_year, probe_runs_of_every_preset)
{
	static const struct {
		size_t drive;
		bool dip;
	} cases[] = {{0, true}, {1, false}, {3, false}};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct demo_year y = gen(cases[c].drive, SEED, NOW);
		int per[_PROBE_PRESET_MAX] = {0};
		int cliffs = 0, dips = 0;

		for (size_t r = 0; r < y.n_runs; r++) {
			const struct demo_run *run = &y.runs[r];
			enum probe_preset_id id;
			const struct probe_preset *pre = probe_preset_find(run->preset, &id);

			cr_assert_not_null(pre, "%s", run->preset);
			per[id]++;
			cr_assert_eq(run->n_phases, pre->n_phases, "%s", run->preset);
			for (size_t k = 0; k < run->n_phases; k++) {
				const struct demo_run_phase *p = &run->phase[k];
				struct cliff_event ev[CLIFF_MAX_EVENTS];
				size_t n = 0;

				cr_expect_str_eq(p->name, pre->phase[k].name);
				cr_expect_eq(p->random, pre->phase[k].random);
				cr_expect_eq(p->block_size, pre->phase[k].block_size);
				cr_expect_eq(p->depth, pre->phase[k].depth);
				cliffs_of(run, k, ev, &n);
				for (size_t e = 0; e < n; e++) {
					cliffs += ev[e].kind == CLIFF_CLIFF && pre->sustained;
					dips += ev[e].kind == CLIFF_DIP &&
						ev[e].cause == CLIFF_CAUSE_THROTTLING;
				}
			}
			cr_expect(run->ended_ms > run->started_ms && run->ended_ms < NOW);
			/* Clear of the budgets and of sustained_every (7 d) at start. */
			cr_expect_lt(run->started_ms, NOW - MS_DAY);
			if (pre->sustained)
				cr_expect_lt(run->started_ms, NOW - 8 * MS_DAY);
			if (r)
				cr_expect_geq(run->started_ms, y.runs[r - 1].started_ms);
		}
		for (size_t p = 0; p < DEMO_YEAR_PRESETS; p++) {
			const struct probe_preset *pre = probe_preset_get((enum probe_preset_id)p);

			/* a preset that runs alone: no study, no second drive's */
			cr_expect(!pre->study && !pre->copy_to, "%s", pre->name);
			cr_expect_geq(per[p], 5, "drive %zu: %s ran %d times", cases[c].drive,
				      pre->name, per[p]);
		}
		/* A cache larger than probe_sustained_limit (64 GB) is never filled. */
		struct dev_demo_drive d;
		dev_demo_drive(cases[c].drive, &d);
		if (d.perf.cache_bytes < 64e9)
			cr_expect_geq(cliffs, 1, "drive %zu: sustained-write finds its cliff",
				      cases[c].drive);
		else
			cr_expect_eq(cliffs, 0, "drive %zu: its cache outlasts the limit",
				     cases[c].drive);
		if (cases[c].dip)
			cr_expect_eq(dips, 1, "drive %zu: one throttle dip", cases[c].drive);
		else
			cr_expect_eq(dips, 0, "drive %zu never throttles", cases[c].drive);
		demo_year_free(&y);
	}
}

/*
 * The sweeps come monthly, so the chart has a previous one; the series are
 * DEMO_YEAR_SERIES_OF runs in a row, and the 950 PRO's newest best of 3 is the
 * issue's 2,598 MB/s read, 1,576 MB/s write (104 % / 105 % of 2,500 / 1,500).
 */
/*
 * demo_year.h: "on every drive but demo0, two days back, its newest run: a
 * copy-to from demo0 (the slower of demo0's reads and its writes)".
 */
Test(demo_year, a_copy_to_from_demo0_is_the_newest_run)
{
	struct dev_demo_drive d0;

	cr_assert_eq(dev_demo_drive(0, &d0), 0);
	for (size_t drive = 0; drive < 4; drive++) {
		struct demo_year y = gen(drive, SEED, NOW);
		struct dev_demo_drive d;
		size_t copies = 0;

		dev_demo_drive(drive, &d);
		for (size_t r = 0; r < y.n_runs; r++)
			copies += y.runs[r].copy_to;
		cr_expect_eq(copies, drive ? 1 : 0, "drive %zu: %zu copy-to runs", drive, copies);
		const struct demo_run *run = &y.runs[y.n_runs - 1];
		if (!drive || !run->copy_to) {
			demo_year_free(&y);
			continue;
		}
		cr_expect_str_eq(run->preset, "copy-to");
		cr_expect_eq(run->source_index, 0);
		cr_expect_eq(floor_day(run->started_ms), floor_day(NOW) - 2 * MS_DAY);
		cr_expect_eq(run->bytes_read, run->bytes_written, "what it wrote, it read");
		double mbps = (double)run->bytes_written /
			      (double)(run->ended_ms - run->started_ms) * 1e3;
		double slower = fmin(d0.perf.seq_read[1], d.perf.seq_write[1]);
		cr_expect(mbps > 0.6 * slower && mbps < slower,
			  "drive %zu: %.0f B/s, slower side %.0f", drive, mbps, slower);
		demo_year_free(&y);
	}
}

Test(demo_year, sweeps_and_a_best_of_3)
{
	struct demo_year y = gen(0, SEED, NOW);
	size_t sweeps = 0, series = 0;
	double best[2] = {0, 0};

	for (size_t r = 0; r < y.n_runs; r++) {
		const struct demo_run *run = &y.runs[r];
		if (strcmp(run->preset, "sweep") == 0) {
			sweeps++;
			cr_expect_eq(run->n_phases, DEMO_RUN_PHASES_MAX);
			/* Larger transfers move more, up to the drive's rate. */
			const struct demo_run_phase *p = run->phase;
			cr_expect_lt(p[0].rd_bytes * 1000 / p[0].elapsed_ms,
				     p[17].rd_bytes * 1000 / p[17].elapsed_ms);
			cr_expect_str_eq(p[18].op, "write");
			cr_expect_leq(p[35].wr_bytes, 256u << 20);
		}
		if (run->series_index == 1) {
			series++;
			cr_assert_leq(r + DEMO_YEAR_SERIES_OF, y.n_runs);
			best[0] = best[1] = 0;
			for (size_t i = 0; i < DEMO_YEAR_SERIES_OF; i++) {
				const struct demo_run *s = &y.runs[r + i];
				cr_expect_eq(s->series_index, i + 1);
				cr_expect_eq(s->series_of, DEMO_YEAR_SERIES_OF);
				cr_expect_str_eq(s->preset, "seq1m-q8");
				if (i)
					cr_expect_geq(s->started_ms,
						      y.runs[r + i - 1].ended_ms + 30000);
				for (int k = 0; k < 2; k++) {
					const struct demo_run_phase *p = &s->phase[k];
					double mb = (double)(k ? p->wr_bytes : p->rd_bytes) /
						    (double)p->elapsed_ms / 1e3;
					best[k] = mb > best[k] ? mb : best[k];
				}
			}
		}
	}
	cr_expect_geq(sweeps, 11, "a sweep a month: %zu", sweeps);
	cr_expect_eq(series, DEMO_YEAR_SERIES);
	/* The newest series is the last. */
	cr_expect(best[0] > 2580 && best[0] < 2616, "best read %.0f MB/s", best[0]);
	cr_expect(best[1] > 1560 && best[1] < 1592, "best write %.0f MB/s", best[1]);
	demo_year_free(&y);
}

/* ---- the health facts of issue 11 ---- */

static const struct sample *sample_at_ts(const struct demo_year *y, int64_t ms)
{
	for (size_t k = 0; k < y->n_samples; k++)
		if (y->samples[k].ts_ms == ms)
			return &y->samples[k];
	return NULL;
}

static size_t count_alerts(const struct demo_year *y, enum alert_rule rule)
{
	size_t n = 0;

	for (size_t k = 0; k < y->n_alerts; k++)
		n += y->alerts[k].rule == rule;
	return n;
}

/*
 * The error log is read as the poller reads it: the first read at the year's
 * start takes in what the log held (before nvmond watched); each later read
 * takes the entries after the last one, error counts without gaps, and the
 * last leaves the count where the live drive has it, with the live drive's
 * entries. A sample at each read shows num_err_log_entries there.
 */
Test(demo_year, error_log_read_as_the_poller_reads_it)
{
	for (size_t i = 0; i < 12; i++) {
		struct demo_year y = gen(i, SEED, NOW);
		struct dev_demo_drive d;
		struct smart_log live;
		uint64_t next = 1;

		cr_assert_eq(dev_demo_drive(i, &d), 0);
		dev_demo_state(&d, NOW, &live);
		cr_assert_geq(y.n_reads, 1);
		cr_expect_eq(y.reads[0].ms, y.samples[0].ts_ms, "drive %zu: read at the start", i);
		cr_expect_eq(y.reads[0].count, d.err_log_entries);
		for (size_t r = 0; r < y.n_reads; r++) {
			const struct demo_errlog_read *rd = &y.reads[r];
			const struct sample *s = sample_at_ts(&y, rd->ms);

			if (r)
				cr_expect_gt(rd->ms, y.reads[r - 1].ms, "oldest first");
			cr_assert_not_null(s, "drive %zu: a sample at read %zu", i, r);
			cr_expect(s->smart.num_err_log_entries == rd->count, "drive %zu read %zu",
				  i, r);
			if (s > y.samples)
				cr_expect(s[-1].smart.num_err_log_entries < rd->count || r == 0,
					  "the count rose at read %zu", r);
			cr_expect_eq(rd->first + rd->n,
				     r + 1 < y.n_reads ? y.reads[r + 1].first : y.n_errors);
			for (size_t k = rd->first; k < rd->first + rd->n; k++) {
				const struct demo_error *e = &y.errors[k];
				struct errlog_entry want;

				cr_expect_eq(e->e.error_count, next++, "no gaps");
				cr_expect_eq(e->seen_ms, rd->ms);
				cr_expect_eq(e->before_watch, r == 0, "only the first read's");
				cr_expect_eq(e->cls, errclass_of(&e->e), "the daemon's classes");
				dev_demo_error(&d, e->e.error_count, &want);
				cr_expect_eq(memcmp(&e->e, &want, sizeof(want)), 0,
					     "the live entry");
			}
		}
		cr_expect_eq(y.reads[y.n_reads - 1].count, live.num_err_log_entries,
			     "drive %zu: nothing new for the live poller", i);
		cr_expect(y.samples[y.n_samples - 1].smart.num_err_log_entries ==
			  live.num_err_log_entries);
		cr_expect(y.samples[y.n_samples - 1].smart.media_errors == live.media_errors);
		demo_year_free(&y);
	}
}

/*
 * The 950 PRO: a burst of 2-6 benign entries a month on the admin queue (tools
 * asking for what it does not have), which never alert; about day 200 two
 * Unrecovered Read Errors in one read, on an I/O queue at neighbouring LBAs,
 * with media_errors rising by 2 in that read's sample and nowhere else, and
 * the io_errors and media_errors alerts they raised, resolved.
 */
Test(demo_year, benign_bursts_and_one_bad_read)
{
	struct demo_year y = gen(0, SEED, NOW);
	size_t bursts = 0, bad = 0;
	int64_t bad_ms = 0, year0 = floor_day(y.samples[0].ts_ms);

	cr_expect_eq(y.reads[0].n, 14, "the 14 entries logged before");
	for (size_t r = 1; r < y.n_reads; r++) {
		const struct demo_errlog_read *rd = &y.reads[r];
		const struct demo_error *e = &y.errors[rd->first];

		if (e->cls == ERRCLASS_MEDIA) {
			bad++;
			bad_ms = rd->ms;
			cr_expect_eq(rd->n, 2, "two media entries in one read");
			cr_expect_geq(rd->ms, year0 + 195 * MS_DAY, "about day 200");
			cr_expect_lt(rd->ms, year0 + 207 * MS_DAY, "about day 200");
			for (size_t k = 0; k < rd->n; k++) {
				cr_expect_eq(e[k].cls, ERRCLASS_MEDIA);
				cr_expect_eq(e[k].e.sqid, 2);
				cr_expect_eq(e[k].e.sct, ERRLOG_SCT_MEDIA);
				cr_expect_eq(e[k].e.sc, 0x81);
				cr_expect_str_eq(errlog_status_name(e[k].e.sct, e[k].e.sc),
						 "Unrecovered Read Error");
				cr_expect_eq(e[k].e.nsid, 1);
			}
			cr_expect_eq(e[1].e.lba, e[0].e.lba + 8, "neighbouring LBAs");
			continue;
		}
		bursts++;
		cr_expect(rd->n >= 2 && rd->n <= 6, "a burst of 2-6, not %zu", rd->n);
		for (size_t k = 0; k < rd->n; k++) {
			cr_expect_eq(e[k].cls, ERRCLASS_BENIGN);
			cr_expect_eq(e[k].e.sqid, 0, "the admin queue");
			cr_expect(strcmp(errlog_status_name(e[k].e.sct, e[k].e.sc),
					 "Invalid Log Page") == 0 ||
				  strcmp(errlog_status_name(e[k].e.sct, e[k].e.sc),
					 "Invalid Field in Command") == 0);
		}
		/* Month m of the year: r counts the media read once it is past. */
		int64_t m = (int64_t)(r - 1 - (bad ? 1 : 0));
		cr_expect_geq(rd->ms, year0 + 30 * m * MS_DAY, "burst %lld in its month", m);
		cr_expect_lt(rd->ms, year0 + 30 * (m + 1) * MS_DAY, "burst %lld in its month", m);
	}
	cr_expect_eq(bursts, DEV_DEMO_ERR_MONTHS, "a burst a month");
	cr_expect_eq(bad, 1, "one bad read");
	for (size_t k = 1; k < y.n_samples; k++) {
		const struct sample *p = &y.samples[k - 1], *s = &y.samples[k];
		if (s->ts_ms == bad_ms)
			cr_expect(s->smart.media_errors == p->smart.media_errors + 2,
				  "media_errors rose by 2 at the bad read");
		else
			cr_expect(s->smart.media_errors == p->smart.media_errors,
				  "media_errors moved at %lld", (long long)s->ts_ms);
	}
	cr_expect_eq(count_alerts(&y, ALERT_IO_ERRORS), 1, "only the bad read alerts");
	cr_expect_eq(count_alerts(&y, ALERT_MEDIA_ERRORS), 1);
	for (size_t k = 0; k < y.n_alerts; k++) {
		const struct demo_alert *a = &y.alerts[k];
		if (a->rule != ALERT_IO_ERRORS && a->rule != ALERT_MEDIA_ERRORS)
			continue;
		cr_expect_eq(a->severity, ALERT_SEV_CRITICAL);
		cr_expect_eq(a->started_ms, bad_ms);
		cr_expect_gt(a->resolved_ms, a->started_ms, "resolved");
		if (a->rule == ALERT_IO_ERRORS) {
			cr_expect_geq(a->resolved_ms, bad_ms + ALERT_IO_ERRORS_HOLD_MS,
				      "held for a day");
			cr_expect(strstr(a->message, "Unrecovered Read Error"), "%s", a->message);
		}
	}
	for (size_t i = 1; i < 4; i++) {
		struct demo_year o = gen(i, SEED, NOW);
		cr_expect_eq(count_alerts(&o, ALERT_IO_ERRORS) +
				     count_alerts(&o, ALERT_MEDIA_ERRORS),
			     0, "drive %zu logged no bad read", i);
		demo_year_free(&o);
	}
	demo_year_free(&y);
}

/*
 * Firmware: every drive's revision is first seen at the year's start; the 980
 * PRO ran 5B2QGXA7 until about day 200, then 5B2QGXA8, the revision the live
 * drive reports (so its first start finds no change), with the firmware_changed
 * alert of that day, resolved.
 */
Test(demo_year, firmware_update_about_day_200)
{
	struct demo_year y = gen(1, SEED, NOW);
	struct dev_demo_drive d;
	int64_t year0 = floor_day(y.samples[0].ts_ms);

	cr_assert_eq(dev_demo_drive(1, &d), 0);
	cr_expect_str_eq(d.firmware, "5B2QGXA8", "the live revision");
	cr_assert_eq(y.n_fw, 2);
	cr_expect_eq(y.fw[0].ms, y.samples[0].ts_ms);
	cr_expect_str_eq(y.fw[0].old_rev, "", "first seen");
	cr_expect_str_eq(y.fw[0].new_rev, "5B2QGXA7");
	cr_expect_str_eq(y.fw[1].old_rev, "5B2QGXA7");
	cr_expect_str_eq(y.fw[1].new_rev, d.firmware);
	cr_expect(y.fw[1].ms >= year0 + 195 * MS_DAY && y.fw[1].ms < year0 + 207 * MS_DAY,
		  "about day 200");
	cr_assert_eq(count_alerts(&y, ALERT_FIRMWARE_CHANGED), 1);
	for (size_t k = 0; k < y.n_alerts; k++)
		if (y.alerts[k].rule == ALERT_FIRMWARE_CHANGED) {
			cr_expect_eq(y.alerts[k].severity, ALERT_SEV_INFO);
			cr_expect_eq(y.alerts[k].started_ms, y.fw[1].ms);
			cr_expect_geq(y.alerts[k].resolved_ms, y.fw[1].ms + ALERT_FIRMWARE_SHOW_MS);
			cr_expect_str_eq(y.alerts[k].message,
					 "firmware changed from 5B2QGXA7 to 5B2QGXA8");
		}
	demo_year_free(&y);
	for (size_t i = 0; i < 4; i += 2) {
		y = gen(i, SEED, NOW);
		cr_assert_eq(dev_demo_drive(i, &d), 0);
		cr_expect_eq(y.n_fw, 1, "drive %zu: never updated", i);
		cr_expect_str_eq(y.fw[0].new_rev, d.firmware);
		cr_expect_eq(count_alerts(&y, ALERT_FIRMWARE_CHANGED), 0);
		demo_year_free(&y);
	}
}

/* Bytes per second of the first phase of @run. */
static double rate_of(const struct demo_run *run)
{
	const struct demo_run_phase *p = &run->phase[0];

	return (double)(p->rd_bytes + p->wr_bytes) / ((double)p->elapsed_ms / 1000.0);
}

/*
 * The PCIe link: every drive's is first seen at the year's start; the 980 PRO
 * ran at 8.0 GT/s x2 instead of 16.0 GT/s x4 for about three weeks from about
 * day 250 (its link_degraded alert resolved when it came back), and the probe
 * runs of that window, whose results carry the link's note, measured less.
 */
Test(demo_year, degraded_link_for_three_weeks)
{
	struct demo_year y = gen(1, SEED, NOW);
	struct dev_demo_drive d;
	int64_t year0 = floor_day(y.samples[0].ts_ms);

	cr_assert_eq(dev_demo_drive(1, &d), 0);
	cr_assert_eq(y.n_links, 3);
	cr_expect_eq(y.links[0].ms, y.samples[0].ts_ms);
	cr_expect_eq(memcmp(&y.links[0].link, &d.link, sizeof(d.link)), 0);
	cr_expect_not(nvme_pcie_link_degraded(&y.links[0].link));
	cr_expect_eq(y.links[1].link.cur_speed_dgts, 80);
	cr_expect_eq(y.links[1].link.cur_width, 2);
	cr_expect(nvme_pcie_link_degraded(&y.links[1].link));
	cr_expect_eq(memcmp(&y.links[2].link, &d.link, sizeof(d.link)), 0, "back as live");
	int64_t from = y.links[1].ms, to = y.links[2].ms;
	cr_expect(from >= year0 + 240 * MS_DAY && from < year0 + 260 * MS_DAY, "about day 250");
	cr_expect(to - from >= 19 * MS_DAY && to - from <= 23 * MS_DAY, "about three weeks");
	cr_assert_eq(count_alerts(&y, ALERT_LINK_DEGRADED), 1);
	for (size_t k = 0; k < y.n_alerts; k++)
		if (y.alerts[k].rule == ALERT_LINK_DEGRADED) {
			cr_expect_eq(y.alerts[k].severity, ALERT_SEV_WARNING);
			cr_expect_eq(y.alerts[k].started_ms, from);
			cr_expect_geq(y.alerts[k].resolved_ms, to);
			cr_expect(
				strstr(y.alerts[k].message, "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)"),
				"%s", y.alerts[k].message);
		}
	/* Each run in the window against the same preset's runs outside it. */
	size_t inside = 0;
	for (size_t r = 0; r < y.n_runs; r++) {
		const struct demo_run *a = &y.runs[r];
		if (a->started_ms < from || a->started_ms >= to)
			continue;
		inside++;
		double best_outside = 0;
		for (size_t k = 0; k < y.n_runs; k++)
			if (strcmp(y.runs[k].preset, a->preset) == 0 &&
			    (y.runs[k].started_ms < from || y.runs[k].started_ms >= to) &&
			    rate_of(&y.runs[k]) > best_outside)
				best_outside = rate_of(&y.runs[k]);
		if (strcmp(a->preset, "seq1m-q8") == 0 || strcmp(a->preset, "seq1m-q1") == 0 ||
		    strcmp(a->preset, "rnd4k-q32") == 0)
			cr_expect_lt(rate_of(a), 0.8 * best_outside, "%s on the narrow link",
				     a->preset);
		cr_expect_leq(rate_of(a), best_outside * 1.001, "%s", a->preset);
	}
	cr_expect_geq(inside, 1, "a probe run on the degraded link");
	demo_year_free(&y);
	for (size_t i = 0; i < 4; i += 2) {
		y = gen(i, SEED, NOW);
		cr_assert_eq(dev_demo_drive(i, &d), 0);
		cr_expect_eq(y.n_links, 1, "drive %zu: one link all year", i);
		cr_expect_eq(memcmp(&y.links[0].link, &d.link, sizeof(d.link)), 0);
		cr_expect_eq(count_alerts(&y, ALERT_LINK_DEGRADED), 0);
		demo_year_free(&y);
	}
}

/* The alerts of every kind come oldest first, as demo_year.h promises. */
Test(demo_year, alerts_oldest_first)
{
	for (size_t i = 0; i < 4; i++) {
		struct demo_year y = gen(i, SEED, NOW);
		for (size_t k = 1; k < y.n_alerts; k++)
			cr_expect_leq(y.alerts[k - 1].started_ms, y.alerts[k].started_ms,
				      "drive %zu alert %zu", i, k);
		demo_year_free(&y);
	}
}
