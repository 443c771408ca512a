/* SPDX-License-Identifier: MIT */
/*
 * A year of demo history (see demo_year.h). Pure: no clock, no I/O; every
 * random choice comes from the seed. Counters are anchored at the drive's live
 * state at @now and run backwards from there: a counter at time t is its value
 * at @now minus what the year adds after t, so history and live samples join.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_year_internal.h"

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static bool throttles(const struct dev_demo_drive *d)
{
	return d->tmt1_c > 0;
}

/* 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
static int weekday(int64_t ms)
{
	return (int)((floor_div(ms, MS_PER_DAY) + 4) % 7);
}

static double hour_of(int64_t ms)
{
	return (double)(ms - floor_div(ms, MS_PER_DAY) * MS_PER_DAY) / (double)MS_PER_HOUR;
}

/* ---- writes ---------------------------------------------------------------- */

/* Share of a day's writes per hour: quiet nights, busy working hours. */
static double hour_weight(int h)
{
	return h < 7 ? 0.4 : h < 19 ? 1.6 : 0.8;
}

#define HOUR_WEIGHTS (7 * 0.4 + 12 * 1.6 + 5 * 0.8)

/* Fraction of a day's writes done by @ms within its day. */
static double day_fraction(int64_t ms)
{
	double h = hour_of(ms), sum = 0;
	int whole = (int)h;

	for (int i = 0; i < whole; i++)
		sum += hour_weight(i);
	sum += (h - whole) * hour_weight(whole);
	return sum / HOUR_WEIGHTS;
}

/* Bytes written from day0 until @ms. */
static double written_until(const struct gen *g, int64_t ms)
{
	int64_t k = floor_div(ms - g->day0, MS_PER_DAY);

	if (k < 0)
		return 0;
	if ((size_t)k >= g->n_days)
		return g->prefix[g->n_days];
	return g->prefix[k] + g->day_bytes[k] * day_fraction(ms);
}

static int plan_writes(struct gen *g)
{
	double mean = g->d->write_bps * 86400.0;
	int64_t unusual =
		floor_div(g->now, MS_PER_DAY) * MS_PER_DAY - DEMO_YEAR_UNUSUAL_AGO * MS_PER_DAY;

	g->n_days = (size_t)floor_div(g->now - g->day0, MS_PER_DAY) + 1;
	g->day_bytes = calloc(g->n_days, sizeof(double));
	g->prefix = calloc(g->n_days + 1, sizeof(double));
	if (!g->day_bytes || !g->prefix)
		return -ENOMEM;
	for (size_t k = 0; k < g->n_days; k++) {
		int64_t day = g->day0 + (int64_t)k * MS_PER_DAY;
		int wd = weekday(day);
		double f = wd == 0 ? 0.45 : wd == 6 ? 0.55 : 1.25;

		f *= 0.85 + 0.3 * rnd(g, 1, k);
		if (day == unusual)
			f = DEMO_YEAR_UNUSUAL_X;
		g->day_bytes[k] = mean * f;
		g->prefix[k + 1] = g->prefix[k] + g->day_bytes[k];
	}
	g->w_now = written_until(g, g->now);
	return 0;
}

/* ---- hot spells and throttle episodes -------------------------------------- */

/* Seconds of an episode's sine-shaped peak above @x (the peak spans [s, e]). */
static double secs_above(const struct episode *ep, double base, double x)
{
	if (ep->peak_c <= x)
		return 0;
	double f = (x - base) / (ep->peak_c - base);
	double frac = f <= 0 ? 1 : 1 - 2 * asin(f) / M_PI;
	return frac * (double)(ep->e - ep->s) / 1000.0;
}

static void plan_episodes(struct gen *g)
{
	/* Spells: days back, spread over the year, the last one three weeks ago. */
	static const int spell_ago[MAX_SPELLS] = {330, 262, 205, 168, 118, 64, 21};
	const struct dev_demo_drive *d = g->d;
	double wc = d->wctemp_k - 273.15;

	if (!throttles(d))
		return;
	for (size_t s = 0; s < MAX_SPELLS; s++) {
		int64_t first = floor_div(g->now, MS_PER_DAY) * MS_PER_DAY -
				(spell_ago[s] + (int)(6 * rnd(g, 2, s))) * MS_PER_DAY;
		int days = 2 + (int)(3 * rnd(g, 3, s));

		for (int k = 0; k < days && g->n_ep < MAX_EPISODES; k++) {
			struct episode *ep = &g->ep[g->n_ep];
			uint64_t id = s * 8 + (uint64_t)k;
			bool heavy = rnd(g, 4, id) < 0.4;

			ep->s = first + k * MS_PER_DAY + 13 * MS_PER_HOUR +
				(int64_t)(3 * MS_PER_HOUR * rnd(g, 5, id)) / MS_PER_MIN *
					MS_PER_MIN;
			ep->e = ep->s + (15 + (int64_t)(30 * rnd(g, 6, id))) * MS_PER_MIN;
			if (ep->e > g->now - 2 * MS_PER_DAY)
				continue;
			ep->peak_c = heavy ? d->tmt2_c + 1 + 2 * rnd(g, 7, id)
					   : d->tmt1_c + 1.5 + 2 * rnd(g, 7, id);
			ep->t1_n = 1 + (uint32_t)(3 * rnd(g, 8, id));
			ep->t2_n = heavy ? 1 : 0;
			double base = d->tmt1_c + 1; /* the curve at s and e */
			ep->t2_s = heavy ? secs_above(ep, base, d->tmt2_c) : 0;
			ep->t1_s = (double)(ep->e - ep->s) / 1000.0 - ep->t2_s;
			int64_t mid = (ep->s + ep->e) / 2, half = (int64_t)(ep->t2_s * 500);
			ep->hs = heavy ? mid - half : mid;
			ep->he = heavy ? mid + half : mid;
			/* The hottest sensor passes WCTEMP a little before the composite does. */
			ep->warn_s = secs_above(ep, base, wc);
			int64_t wh = (int64_t)(secs_above(ep, base, wc - g->sensor_max_off) * 500);
			ep->warn_from = mid - wh;
			ep->warn_to = mid + wh;
			g->n_ep++;
		}
	}
}

/* What the episodes add to a counter after @ms: @total of each, spread over its window. */
static double after(const struct gen *g, int64_t ms, int which)
{
	double sum = 0;

	for (size_t i = 0; i < g->n_ep; i++) {
		const struct episode *ep = &g->ep[i];
		int64_t a = which == 1 || which == 3 ? ep->hs : ep->s;
		int64_t b = which == 1 || which == 3 ? ep->he : ep->e;
		double total = which == 0   ? ep->t1_s
			       : which == 1 ? ep->t2_s
			       : which == 2 ? ep->t1_n
			       : which == 3 ? ep->t2_n
					    : ep->warn_s / 60.0;
		double done = b > a ? clamp01((double)(ms - a) / (double)(b - a)) : ms >= a;

		sum += total * (1 - done);
	}
	return sum;
}

static uint32_t minus32(uint32_t end, double v)
{
	return v >= end ? 0 : end - (uint32_t)llround(v);
}

/* ---- temperature ----------------------------------------------------------- */

static bool in_spell_day(const struct gen *g, int64_t ms)
{
	int64_t day = floor_div(ms, MS_PER_DAY);

	for (size_t i = 0; i < g->n_ep; i++)
		if (floor_div(g->ep[i].s, MS_PER_DAY) == day)
			return true;
	return false;
}

static double temp_at(const struct gen *g, int64_t ms)
{
	const struct dev_demo_drive *d = g->d;
	double doy = (double)floor_div(ms, MS_PER_DAY) - 200.0; /* warmest late July */
	double h = hour_of(ms);
	int wd = weekday(ms);
	double t = d->base_c + 0.2 * d->amp_c;

	t += 3 * cos(2 * M_PI * fmod(doy, 365.25) / 365.25);
	t += (2 + 0.15 * d->amp_c) * -cos(2 * M_PI * (h - 3) / 24);
	if (wd >= 1 && wd <= 5 && h >= 8 && h < 18)
		t += 1.5;
	if (throttles(d)) {
		if (in_spell_day(g, ms))
			t += 5;
		/* Outside an episode nothing may look like throttling. */
		double cap = fmin(d->tmt1_c, d->wctemp_k - 273.15 - g->sensor_max_off) - 2.5;
		if (t > cap)
			t = cap;
		for (size_t i = 0; i < g->n_ep; i++) {
			const struct episode *ep = &g->ep[i];
			double base = d->tmt1_c + 1, x;

			if (ms >= ep->s && ms <= ep->e) {
				x = (double)(ms - ep->s) / (double)(ep->e - ep->s);
				t = base + (ep->peak_c - base) * sin(M_PI * x);
			} else if (ms >= ep->s - RAMP_MS && ms < ep->s) {
				x = (double)(ms - (ep->s - RAMP_MS)) / RAMP_MS;
				t += (d->tmt1_c - 0.5 - t) * x;
			} else if (ms > ep->e && ms <= ep->e + RAMP_MS) {
				x = (double)(ep->e + RAMP_MS - ms) / RAMP_MS;
				t += (d->tmt1_c - 0.5 - t) * x;
			}
		}
	}
	return t + 1.2 * rnd(g, 9, (uint64_t)floor_div(ms, MS_PER_MIN)) - 0.6;
}

static uint16_t kelvin(double c)
{
	return (uint16_t)lround(c + 273.15);
}

/* ---- samples --------------------------------------------------------------- */

static bool near_episode(const struct gen *g, int64_t ms)
{
	for (size_t i = 0; i < g->n_ep; i++)
		if (ms >= g->ep[i].s - DENSE_MS && ms <= g->ep[i].e + DENSE_MS)
			return true;
	return false;
}

/*
 * The cadence: about a sample per point of a 1000-point chart of each range
 * (a year: every 3 hours; 30 days: hourly; 7 days: every 10 minutes; the last
 * hours: every minute), and every 2 minutes around an episode so its peak
 * shows. Fewer samples keep the backfill (and its rollups) quick.
 */
static int64_t step_at(const struct gen *g, int64_t ms)
{
	if (ms >= g->now - 6 * MS_PER_HOUR)
		return MS_PER_MIN;
	if (near_episode(g, ms))
		return 2 * MS_PER_MIN;
	if (ms >= g->now - 7 * MS_PER_DAY)
		return 10 * MS_PER_MIN;
	if (ms >= g->now - 30 * MS_PER_DAY)
		return MS_PER_HOUR;
	return 3 * MS_PER_HOUR;
}

static u128 minus128(u128 end, double v)
{
	u128 x = v > 0 ? (u128)v : 0;
	return x >= end ? 0 : end - x;
}

void demo_year_sample_at(const struct gen *g, int64_t ms, struct sample *ret)
{
	const struct dev_demo_drive *d = g->d;
	const struct smart_log *e = &g->end;
	double wr = g->w_now - written_until(g, ms); /* bytes written after ms */
	double rd = wr * (d->write_bps > 0 ? d->read_bps / d->write_bps : 1);
	double ago = (double)(g->now - ms);
	double temp = temp_at(g, ms);
	struct smart_log s = *e;

	s.temperature_k = kelvin(temp);
	s.temp_sensor_k[0] = kelvin(temp + d->sensor_off_c[0] + rnd(g, 10, (uint64_t)ms) - 0.5);
	/* A stuck Sensor 2 reads what the live drive reads: the year's charts show it too. */
	s.temp_sensor_k[1] =
		d->sensor2_stuck_k
			? d->sensor2_stuck_k
			: kelvin(temp + d->sensor_off_c[1] + rnd(g, 11, (uint64_t)ms) - 0.5);
	s.critical_warning = temp >= d->wctemp_k - 273.15 ? SMART_CRIT_TEMPERATURE : 0;
	s.data_units_written = minus128(e->data_units_written, wr / BYTES_PER_UNIT);
	s.data_units_read = minus128(e->data_units_read, rd / BYTES_PER_UNIT);
	s.host_write_commands = minus128(e->host_write_commands, wr / 131072);
	s.host_read_commands = minus128(e->host_read_commands, rd / 65536);
	s.controller_busy_time = minus128(e->controller_busy_time, ago / 1200000.0);
	s.power_on_hours = minus128(e->power_on_hours, floor(ago / MS_PER_HOUR));
	s.power_cycles = minus128(e->power_cycles, floor(ago / (7.0 * MS_PER_DAY)));
	double used = (double)s.data_units_written * BYTES_PER_UNIT / d->rated_bytes * 100;
	s.percent_used = used >= e->percent_used ? e->percent_used : (uint8_t)used;
	s.thm_temp1_total_time = minus32(e->thm_temp1_total_time, after(g, ms, 0));
	s.thm_temp2_total_time = minus32(e->thm_temp2_total_time, after(g, ms, 1));
	s.thm_temp1_trans_count = minus32(e->thm_temp1_trans_count, after(g, ms, 2));
	s.thm_temp2_trans_count = minus32(e->thm_temp2_trans_count, after(g, ms, 3));
	s.warning_temp_time = minus32(e->warning_temp_time, after(g, ms, 4));
	demo_year_errors_at(g, ms, &s);
	*ret = (struct sample){.ts_ms = ms, .smart = s};
}

static int make_samples(const struct gen *g, struct demo_year *y)
{
	size_t cap = 0;

	for (int64_t ms = g->t0; ms < g->now;) {
		if (y->n_samples == cap) {
			size_t ncap = cap ? cap * 2 : 16384;
			struct sample *nv = realloc(y->samples, ncap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			y->samples = nv;
			cap = ncap;
		}
		demo_year_sample_at(g, ms, &y->samples[y->n_samples++]);
		int64_t step = step_at(g, ms);
		ms = floor_div(ms, step) * step + step;
	}
	return 0;
}

/* ---- events and alerts ----------------------------------------------------- */

static int push_event(struct demo_year *y, const struct throttle_event *ev)
{
	struct throttle_event *nv = realloc(y->events, (y->n_events + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	y->events = nv;
	y->events[y->n_events++] = *ev;
	return 0;
}

struct demo_alert *demo_year_push_alert(struct demo_year *y)
{
	struct demo_alert *nv = realloc(y->alerts, (y->n_alerts + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	y->alerts = nv;
	memset(&y->alerts[y->n_alerts], 0, sizeof(*nv));
	return &y->alerts[y->n_alerts++];
}

static int make_events(const struct gen *g, struct demo_year *y)
{
	const struct dev_demo_drive *d = g->d;
	int wc = (int)lround(d->wctemp_k - 273.15);

	for (size_t i = 0; i < g->n_ep; i++) {
		const struct episode *ep = &g->ep[i];
		uint16_t peak = kelvin(ep->peak_c);
		uint16_t hot = kelvin(ep->peak_c + g->sensor_max_off);
		struct throttle_event ev = {
			.kind = THROTTLE_LIGHT,
			.start_ms = ep->s,
			.end_ms = ep->e,
			.last_rise_ms = ep->e,
			.duration_s = (uint64_t)llround(ep->t1_s),
			.transitions = ep->t1_n,
			.peak_k = peak,
		};
		struct demo_alert *a;

		if (push_event(y, &ev) < 0)
			return -ENOMEM;
		if (ep->t2_n) {
			ev = (struct throttle_event){.kind = THROTTLE_HEAVY,
						     .start_ms = ep->hs,
						     .end_ms = ep->he,
						     .last_rise_ms = ep->he,
						     .duration_s = (uint64_t)llround(ep->t2_s),
						     .transitions = ep->t2_n,
						     .peak_k = peak};
			if (push_event(y, &ev) < 0)
				return -ENOMEM;
		}
		if (ep->warn_s > 0) {
			int64_t half = (int64_t)(ep->warn_s * 500), mid = (ep->s + ep->e) / 2;
			ev = (struct throttle_event){.kind = THROTTLE_WARN_TIME,
						     .start_ms = mid - half,
						     .end_ms = mid + half,
						     .last_rise_ms = mid + half,
						     .duration_s = (uint64_t)llround(ep->warn_s),
						     .peak_k = peak};
			if (push_event(y, &ev) < 0)
				return -ENOMEM;
		}
		if (ep->warn_to > ep->warn_from) {
			ev = (struct throttle_event){
				.kind = THROTTLE_OVER_WCTEMP,
				.start_ms = ep->warn_from,
				.end_ms = ep->warn_to,
				.last_rise_ms = ep->warn_to,
				.duration_s = (uint64_t)((ep->warn_to - ep->warn_from) / 1000),
				.peak_k = hot};
			if (push_event(y, &ev) < 0)
				return -ENOMEM;
		}

		/* The alerts those raised, resolved once the condition stayed away. */
		if (!(a = demo_year_push_alert(y)))
			return -ENOMEM;
		a->rule = ALERT_THROTTLING;
		a->severity = ep->t2_n ? ALERT_SEV_CRITICAL : ALERT_SEV_WARNING;
		a->started_ms = ep->t2_n ? ep->hs : ep->s;
		a->resolved_ms = ep->e + RESOLVE_MS;
		snprintf(a->message, sizeof(a->message),
			 "%s thermal throttling (T%d), %u transitions, %llu s so far, peak %d °C",
			 ep->t2_n ? "heavy" : "light", ep->t2_n ? 2 : 1,
			 ep->t2_n ? ep->t2_n : ep->t1_n,
			 (unsigned long long)llround(ep->t2_n ? ep->t2_s : ep->t1_s),
			 (int)lround(ep->peak_c));
		if (ep->warn_to > ep->warn_from) {
			if (!(a = demo_year_push_alert(y)))
				return -ENOMEM;
			a->rule = ALERT_TEMP_WARNING;
			a->severity = ALERT_SEV_WARNING;
			a->started_ms = ep->warn_from;
			a->resolved_ms = ep->warn_to + RESOLVE_MS;
			snprintf(a->message, sizeof(a->message),
				 "temperature %d °C reached %d °C (WCTEMP %d °C - margin 0)",
				 (int)lround(ep->peak_c + g->sensor_max_off), wc, wc);
		}
	}

	/* The unusual day: the write-rate rule fires once the last 24 h hold most of it. */
	struct demo_alert *a = demo_year_push_alert(y);
	if (!a)
		return -ENOMEM;
	double mean30 = (g->w_now - written_until(g, g->now - 30 * MS_PER_DAY)) / 30;
	double day = g->d->write_bps * 86400.0 * DEMO_YEAR_UNUSUAL_X;
	a->rule = ALERT_WRITE_RATE;
	a->severity = ALERT_SEV_WARNING;
	a->started_ms = y->unusual_day_ms + 16 * MS_PER_HOUR;
	a->resolved_ms = y->unusual_day_ms + MS_PER_DAY + 14 * MS_PER_HOUR;
	snprintf(a->message, sizeof(a->message),
		 "the last day wrote %.1f GB, %.1fx the 30-day average of %.1f GB a day", day / 1e9,
		 day / mean30, mean30 / 1e9);
	return 0;
}

/* ---- the year -------------------------------------------------------------- */

/* Oldest first; at the same moment, by rule (a total order: the sort is stable). */
static int alert_cmp(const void *pa, const void *pb)
{
	const struct demo_alert *a = pa, *b = pb;

	if (a->started_ms != b->started_ms)
		return a->started_ms < b->started_ms ? -1 : 1;
	return (a->rule > b->rule) - (a->rule < b->rule);
}

int demo_year_generate(const struct dev_demo_drive *d, uint64_t seed, int64_t now_ms,
		       struct demo_year *ret)
{
	struct gen g = {.d = d, .seed = seed, .now = now_ms};
	struct demo_year y = {0};
	int r;

	g.t0 = floor_div(now_ms, MS_PER_HOUR) * MS_PER_HOUR - DEMO_YEAR_DAYS * MS_PER_DAY;
	g.day0 = floor_div(g.t0, MS_PER_DAY) * MS_PER_DAY;
	g.sensor_max_off = fmax(0, fmax(d->sensor_off_c[0], d->sensor_off_c[1])) + 0.5;
	dev_demo_state(d, now_ms, &g.end);
	y.unusual_day_ms =
		floor_div(now_ms, MS_PER_DAY) * MS_PER_DAY - DEMO_YEAR_UNUSUAL_AGO * MS_PER_DAY;

	r = plan_writes(&g);
	if (r == 0) {
		plan_episodes(&g);
		demo_year_plan_facts(&g);
		r = make_samples(&g, &y);
	}
	if (r == 0)
		r = make_events(&g, &y);
	if (r == 0)
		r = demo_year_make_facts(&g, &y);
	if (r == 0 && y.n_alerts)
		qsort(y.alerts, y.n_alerts, sizeof(*y.alerts), alert_cmp);
	if (r == 0)
		r = demo_year_make_runs(&g, &y);
	free(g.day_bytes);
	free(g.prefix);
	if (r < 0) {
		demo_year_free(&y);
		return r;
	}
	*ret = y;
	return 0;
}

void demo_year_free(struct demo_year *y)
{
	free(y->samples);
	free(y->events);
	free(y->alerts);
	for (size_t i = 0; y->runs && i < y->n_runs; i++)
		free(y->runs[i].phase);
	free(y->runs);
	free(y->errors);
	free(y->reads);
	*y = (struct demo_year){0};
}
