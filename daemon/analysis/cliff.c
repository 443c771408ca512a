/* SPDX-License-Identifier: MIT */
/*
 * Cliff and dip detection on a probe's throughput series. Pure: see cliff.h.
 *
 * The rate of each interval is smoothed with a median of three (one slow
 * interval is not an event). Walking forward, a "normal" interval updates the
 * level (median of the last eight smoothed rates); a smoothed rate below
 * drop_ratio × level starts an event, which lasts until the smoothed rate is
 * back above recover_ratio × level. An event still open at the end of the run
 * and at least cliff_hold_ms long is a cliff; the rest of the run is then
 * scanned again from the lower level, so a thermal dip after the write cache
 * ran out is still seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/cliff.h"

#define LEVEL_WINDOW 8

void cliff_params_default(struct cliff_params *ret)
{
	*ret = (struct cliff_params){
		.drop_ratio = 0.7,
		.recover_ratio = 0.85,
		.min_event_ms = 500,
		.cliff_hold_ms = 5000,
		.thermal_slack_ms = 1500,
	};
}

const char *cliff_kind_name(enum cliff_kind k)
{
	return k == CLIFF_CLIFF ? "cliff" : "dip";
}

const char *cliff_cause_name(enum cliff_cause c)
{
	return c == CLIFF_CAUSE_THROTTLING ? "throttling" : "unknown";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n values (n <= 64 here, or a caller buffer); @tmp holds a copy. */
static double median(const double *v, size_t n, double *tmp)
{
	if (n == 0)
		return 0;
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static int cmp_event(const void *a, const void *b)
{
	const struct cliff_event *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int64_t interval_start(const struct cliff_point *v, size_t i)
{
	return i == 0 ? 0 : v[i - 1].t_ms;
}

/* Thermal counters moved between the samples bracketing [from, to]. */
static bool thermal_moved(const struct cliff_thermal *th, size_t n_th, int64_t from, int64_t to)
{
	const struct cliff_thermal *a = NULL, *b = NULL;

	for (size_t i = 0; i < n_th; i++) {
		if (th[i].t_ms <= from)
			a = &th[i];
		if (th[i].t_ms <= to)
			b = &th[i];
	}
	if (!a && n_th > 0 && th[0].t_ms <= to)
		a = &th[0];
	if (!a || !b || a == b)
		return false;
	return b->t1_count > a->t1_count || b->t2_count > a->t2_count ||
	       b->t1_time_s > a->t1_time_s || b->t2_time_s > a->t2_time_s ||
	       b->warning_temp_time_min > a->warning_temp_time_min;
}

static void event_finish(const struct cliff_point *v, size_t n, const double *rate,
			 const double *sm, double *tmp, struct cliff_event *e, size_t end,
			 bool open)
{
	e->end = end;
	e->end_ms = v[end - 1].t_ms;
	e->rate_during = median(rate + e->start, end - e->start, tmp);
	e->recovered = !open;
	e->kind = open ? CLIFF_CLIFF : CLIFF_DIP;
	if (open) {
		e->rate_after = e->rate_during;
	} else {
		size_t k = n - end < LEVEL_WINDOW ? n - end : LEVEL_WINDOW;
		e->rate_after = median(sm + end, k, tmp);
	}
}

static int analyze(const struct cliff_point *v, size_t n, const struct cliff_thermal *th,
		   size_t n_th, const struct cliff_params *p, struct cliff_event *ret, size_t max,
		   size_t *ret_n)
{
	double *rate = NULL, *sm = NULL, *tmp = NULL;
	double level_buf[LEVEL_WINDOW];
	size_t n_level = 0, level_pos = 0, found = 0;
	struct cliff_event e = {0};
	bool in_event = false;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].t_ms <= interval_start(v, i))
			return -EINVAL;
	*ret_n = 0;
	if (n < 3)
		return 0;
	rate = calloc(n, sizeof(*rate));
	sm = calloc(n, sizeof(*sm));
	tmp = calloc(n, sizeof(*tmp));
	if (!rate || !sm || !tmp) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		rate[i] = (double)v[i].bytes * 1000.0 / (double)(v[i].t_ms - interval_start(v, i));
	for (size_t i = 0; i < n; i++) {
		size_t lo = i == 0 ? 0 : i - 1, hi = i + 1 < n ? i + 1 : i;
		sm[i] = median(rate + lo, hi - lo + 1, tmp);
	}

	for (size_t from = 0; from < n;) {
		size_t next = n;

		n_level = 0;
		level_pos = 0;
		in_event = false;
		for (size_t i = from; i < n; i++) {
			double level = median(level_buf, n_level, tmp);

			if (!in_event) {
				if (i > from && n_level > 0 && sm[i] < p->drop_ratio * level) {
					size_t s = i;
					/* Start at the first raw interval already low. */
					while (s > from + 1 && rate[s - 1] < p->drop_ratio * level)
						s--;
					e = (struct cliff_event){
						.start = s,
						.start_ms = interval_start(v, s),
						.rate_before = level,
					};
					for (size_t k = 0; k < s; k++)
						e.bytes_before += v[k].bytes;
					in_event = true;
					continue;
				}
				level_buf[level_pos] = sm[i];
				level_pos = (level_pos + 1) % LEVEL_WINDOW;
				if (n_level < LEVEL_WINDOW)
					n_level++;
				continue;
			}
			if (sm[i] >= p->recover_ratio * e.rate_before) {
				event_finish(v, n, rate, sm, tmp, &e, i, false);
				if (e.end_ms - e.start_ms >= p->min_event_ms && found < max)
					ret[found++] = e;
				in_event = false;
				/* Restart the level here: the drive may settle elsewhere. */
				level_buf[0] = sm[i];
				level_pos = 1;
				n_level = 1;
			}
		}
		if (in_event && v[n - 1].t_ms - e.start_ms >= p->cliff_hold_ms) {
			/* Down until the end: a cliff. Then look for dips below its level. */
			event_finish(v, n, rate, sm, tmp, &e, n, true);
			if (found < max)
				ret[found++] = e;
			next = e.start + 1;
		}
		from = next;
	}
	qsort(ret, found, sizeof(*ret), cmp_event);
	for (size_t k = 0; k < found; k++)
		if (thermal_moved(th, n_th, ret[k].start_ms - p->thermal_slack_ms,
				  (ret[k].kind == CLIFF_CLIFF ? ret[k].start_ms : ret[k].end_ms) +
					  p->thermal_slack_ms))
			ret[k].cause = CLIFF_CAUSE_THROTTLING;
	*ret_n = found;
out:
	free(rate);
	free(sm);
	free(tmp);
	return r;
}

int cliff_analyze(const struct cliff_point *v, size_t n, const struct cliff_thermal *th,
		  size_t n_th, const struct cliff_params *p, struct cliff_event *ret, size_t max,
		  size_t *ret_n)
{
	struct cliff_params def;

	if (!p) {
		cliff_params_default(&def);
		p = &def;
	}
	return analyze(v, n, th, n_th, p, ret, max, ret_n);
}

bool cliff_sustained(const struct cliff_point *v, size_t n, const struct cliff_params *p,
		     struct cliff_event *ret)
{
	struct cliff_event ev[CLIFF_MAX_EVENTS];
	size_t m = 0;

	if (cliff_analyze(v, n, NULL, 0, p, ev, CLIFF_MAX_EVENTS, &m) < 0 || m == 0)
		return false;
	for (size_t i = 0; i < m; i++)
		if (ev[i].kind == CLIFF_CLIFF) {
			if (ret)
				*ret = ev[i];
			return true;
		}
	return false;
}
