/* SPDX-License-Identifier: MIT */
/*
 * Wear analysis: bytes written against the rated endurance, write rates over
 * 1, 7 and 30 days, and projections. Pure: no clock, no I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/dev/smart.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/analysis/wear.h"

#define MS_DAY (24 * 3600 * 1000LL)
#define TB     (1000ULL * 1000 * 1000 * 1000)

/*
 * Rated endurance (TBW) of models whose manufacturer publishes it. Sources:
 * Samsung's data sheets and limited warranty statements for each series.
 */
static const struct {
	const char *model;
	uint64_t tbw;
	const char *ref;
} ratings[] = {
	{"Samsung SSD 950 PRO 256GB", 200, "Samsung 950 PRO data sheet / limited warranty"},
	{"Samsung SSD 950 PRO 512GB", 400, "Samsung 950 PRO data sheet / limited warranty"},
	{"Samsung SSD 960 PRO 512GB", 400, "Samsung 960 PRO data sheet / limited warranty"},
	{"Samsung SSD 960 PRO 1TB", 800, "Samsung 960 PRO data sheet / limited warranty"},
	{"Samsung SSD 960 PRO 2TB", 1200, "Samsung 960 PRO data sheet / limited warranty"},
	{"Samsung SSD 970 PRO 512GB", 600, "Samsung 970 PRO data sheet / limited warranty"},
	{"Samsung SSD 970 PRO 1TB", 1200, "Samsung 970 PRO data sheet / limited warranty"},
	{"Samsung SSD 970 EVO Plus 250GB", 150, "Samsung 970 EVO Plus data sheet"},
	{"Samsung SSD 970 EVO Plus 500GB", 300, "Samsung 970 EVO Plus data sheet"},
	{"Samsung SSD 970 EVO Plus 1TB", 600, "Samsung 970 EVO Plus data sheet"},
	{"Samsung SSD 970 EVO Plus 2TB", 1200, "Samsung 970 EVO Plus data sheet"},
	{"Samsung SSD 980 PRO 250GB", 150, "Samsung 980 PRO data sheet / limited warranty"},
	{"Samsung SSD 980 PRO 500GB", 300, "Samsung 980 PRO data sheet / limited warranty"},
	{"Samsung SSD 980 PRO 1TB", 600, "Samsung 980 PRO data sheet / limited warranty"},
	{"Samsung SSD 980 PRO 2TB", 1200, "Samsung 980 PRO data sheet / limited warranty"},
	{"Samsung SSD 990 PRO 1TB", 600, "Samsung 990 PRO data sheet / limited warranty"},
	{"Samsung SSD 990 PRO 2TB", 1200, "Samsung 990 PRO data sheet / limited warranty"},
	{"Samsung SSD 990 PRO 4TB", 2400, "Samsung 990 PRO data sheet / limited warranty"},
};

static const int64_t window_ms[_WEAR_WINDOW_MAX] = {MS_DAY, 7 * MS_DAY, 30 * MS_DAY};

bool wear_builtin_rating(const char *model, uint64_t *ret_bytes, const char **ret_ref)
{
	for (size_t i = 0; model && i < sizeof(ratings) / sizeof(ratings[0]); i++)
		if (strcmp(model, ratings[i].model) == 0) {
			*ret_bytes = ratings[i].tbw * TB;
			*ret_ref = ratings[i].ref;
			return true;
		}
	return false;
}

/* Units written between two points; a counter that went backwards restarted at 0. */
static u128 delta_units(const struct wear_point *a, const struct wear_point *b)
{
	return b->data_units_written >= a->data_units_written
		       ? b->data_units_written - a->data_units_written
		       : b->data_units_written;
}

static double u128_to_double(u128 v)
{
	return (double)v; /* for rates and ratios only; counters stay exact */
}

static void rate_in(const struct wear_point *v, size_t n, int64_t from_ms, int64_t to_ms,
		    int64_t window, struct wear_rate *ret)
{
	struct wear_rate r = {0};
	size_t first = n;
	u128 units = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i].ts_ms < from_ms || v[i].ts_ms > to_ms)
			continue;
		if (first == n)
			first = i;
		else
			units += delta_units(&v[i - 1], &v[i]);
		r.span_ms = v[i].ts_ms - v[first].ts_ms;
	}
	r.bytes = smart_bytes(units);
	r.known = first < n && r.span_ms >= WEAR_RATE_MIN_SPAN_MS;
	r.complete = r.known && r.span_ms * 10 >= window * 9;
	if (r.known)
		r.bytes_per_day = u128_to_double(r.bytes) * (double)MS_DAY / (double)r.span_ms;
	*ret = r;
}

/*
 * Percentage used per day from the drive's own steps: the time between the
 * first and the last increase since the last reset. One step alone says
 * nothing about the slope, so it takes two.
 */
static double used_slope(const struct wear_point *v, size_t n, int64_t *ret_last_ms)
{
	int64_t t_first = 0, t_last = 0;
	int first_val = -1, last_val = -1;

	for (size_t i = 1; i < n; i++) {
		if (v[i].percent_used < v[i - 1].percent_used) {
			first_val = last_val = -1; /* reset: start over */
			continue;
		}
		if (v[i].percent_used == v[i - 1].percent_used)
			continue;
		if (first_val < 0) {
			first_val = v[i].percent_used;
			t_first = v[i].ts_ms;
		}
		last_val = v[i].percent_used;
		t_last = v[i].ts_ms;
	}
	if (first_val < 0 || last_val <= first_val || t_last <= t_first)
		return 0;
	*ret_last_ms = t_last;
	return (double)(last_val - first_val) * (double)MS_DAY / (double)(t_last - t_first);
}

int wear_analyze(const struct wear_point *v, size_t n, const struct wear_cfg *c, const char *model,
		 u128 probe_bytes, int64_t now_ms, struct wear_report *ret)
{
	struct wear_report w = {.rating_ref = ""};
	const struct wear_point *last;
	double factor = c->unusual_factor > 0 ? c->unusual_factor : WEAR_UNUSUAL_FACTOR_DEFAULT;
	int64_t t_step = 0;

	if (n == 0)
		return -EINVAL;
	last = &v[n - 1];
	w.unusual_factor = factor;
	w.bytes_written = smart_bytes(last->data_units_written);
	w.probe_bytes = probe_bytes;
	w.host_bytes = w.bytes_written > probe_bytes ? w.bytes_written - probe_bytes : 0;
	w.percent_used = last->percent_used;
	for (size_t i = 1; i < n; i++)
		if (v[i].data_units_written < v[i - 1].data_units_written)
			w.counter_resets++;

	if (c->rated_bytes) {
		w.rated_bytes = c->rated_bytes;
		w.rating_source = WEAR_RATING_CONFIG;
		w.rating_ref = "configuration";
	} else if (wear_builtin_rating(model, &w.rated_bytes, &w.rating_ref)) {
		w.rating_source = WEAR_RATING_BUILTIN;
	}
	if (w.rated_bytes) {
		w.rated_fraction = u128_to_double(w.bytes_written) / (double)w.rated_bytes;
		w.alert_level = w.rated_fraction >= 1.0	  ? 100
				: w.rated_fraction >= 0.9 ? 90
				: w.rated_fraction >= 0.8 ? 80
							  : 0;
	}

	for (int k = 0; k < _WEAR_WINDOW_MAX; k++)
		rate_in(v, n, now_ms - window_ms[k], now_ms, window_ms[k], &w.rate[k]);
	for (int k = _WEAR_WINDOW_MAX - 1; k >= 0; k--)
		if (w.rate[k].known) {
			w.basis = (enum wear_window)k;
			w.projectable = true;
			break;
		}

	if (w.rated_bytes) {
		w.tbw_reached = w.bytes_written >= (u128)w.rated_bytes;
		if (!w.tbw_reached && w.projectable && w.rate[w.basis].bytes_per_day > 0) {
			double left = (double)w.rated_bytes - u128_to_double(w.bytes_written);
			double days = left / w.rate[w.basis].bytes_per_day;

			if (days < 1e6) /* beyond ~2700 years: "never" */
				w.tbw_date_ms = now_ms + (int64_t)(days * (double)MS_DAY);
		}
	}

	w.used_reached = w.percent_used >= 100;
	w.used_per_day = used_slope(v, n, &t_step);
	if (!w.used_reached && w.used_per_day > 0) {
		double days = (100.0 - last->percent_used) / w.used_per_day;

		if (days < 1e6)
			w.used_date_ms = t_step + (int64_t)(days * (double)MS_DAY);
	}

	/* A baseline needs a week at least; the day must be a full one. */
	if (w.rate[WEAR_30D].known && w.rate[WEAR_30D].span_ms >= 7 * MS_DAY) {
		w.avg_30d_bytes_per_day = w.rate[WEAR_30D].bytes_per_day;
		w.unusual =
			w.rate[WEAR_1D].complete &&
			w.rate[WEAR_1D].bytes >= (u128)c->unusual_min_bytes &&
			u128_to_double(w.rate[WEAR_1D].bytes) > factor * w.avg_30d_bytes_per_day;
	}
	*ret = w;
	return 0;
}

void wear_daily(const struct wear_point *v, size_t n, int64_t now_ms, size_t days, u128 *ret)
{
	int64_t day0 = (now_ms / MS_DAY - (int64_t)days + 1) * MS_DAY;

	memset(ret, 0, days * sizeof(*ret));
	for (size_t i = 1; i < n; i++) {
		int64_t d;

		if (v[i].ts_ms < day0 || v[i].ts_ms > now_ms)
			continue;
		d = (v[i].ts_ms - day0) / MS_DAY;
		ret[d] += smart_bytes(delta_units(&v[i - 1], &v[i]));
	}
}

void wear_alert_conditions(const struct wear_report *w, struct alert_cond ret[_ALERT_RULE_MAX])
{
	static const struct {
		enum alert_rule rule;
		int pct;
		enum alert_severity sev;
	} tbw[] = {
		{ALERT_TBW_80, 80, ALERT_SEV_INFO},
		{ALERT_TBW_90, 90, ALERT_SEV_WARNING},
		{ALERT_TBW_100, 100, ALERT_SEV_CRITICAL},
	};

	memset(ret, 0, sizeof(*ret) * _ALERT_RULE_MAX);
	for (size_t i = 0; w->rated_bytes && i < sizeof(tbw) / sizeof(tbw[0]); i++) {
		struct alert_cond *c = &ret[tbw[i].rule];

		c->known = true;
		c->active = w->rated_fraction * 100.0 >= tbw[i].pct;
		c->severity = tbw[i].sev;
		snprintf(c->message, sizeof(c->message),
			 "%.1f TB written: %.1f%% of the rated %.0f TB (%s), past %d%%",
			 u128_to_double(w->bytes_written) / 1e12, w->rated_fraction * 100.0,
			 (double)w->rated_bytes / 1e12, w->rating_ref, tbw[i].pct);
	}
	if (w->avg_30d_bytes_per_day > 0 && w->rate[WEAR_1D].complete) {
		struct alert_cond *c = &ret[ALERT_WRITE_RATE];

		c->known = true;
		c->active = w->unusual;
		c->severity = ALERT_SEV_WARNING;
		snprintf(c->message, sizeof(c->message),
			 "the last day wrote %.1f GB, %.1fx the 30-day average of %.1f GB a day",
			 u128_to_double(w->rate[WEAR_1D].bytes) / 1e9,
			 u128_to_double(w->rate[WEAR_1D].bytes) / w->avg_30d_bytes_per_day,
			 w->avg_30d_bytes_per_day / 1e9);
	}
}
