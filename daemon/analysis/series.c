/* SPDX-License-Identifier: MIT */
/*
 * Chart series: resolution choice and step-aligned merging of a range query.
 * Pure: arrays in, arrays out (the JSON is api/series_render.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/series.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/util/units.h"

void series_row_from_sample(const struct sample *s, struct series_row *ret)
{
	const struct smart_log *l = &s->smart;
	struct series_row r = {
		.ts_ms = s->ts_ms,
		.last_ts_ms = s->ts_ms,
		.n = 1,
		.temp_min_k = l->temperature_k,
		.temp_max_k = l->temperature_k,
		.temp_avg_k = l->temperature_k,
		.temp_n = l->temperature_k ? 1 : 0,
		.critical_warning = l->critical_warning,
		.avail_spare = l->avail_spare,
		.percent_used = l->percent_used,
		.data_units_read = l->data_units_read,
		.data_units_written = l->data_units_written,
		.media_errors = l->media_errors,
		.power_on_hours = l->power_on_hours,
		.warning_temp_time = l->warning_temp_time,
		.critical_temp_time = l->critical_temp_time,
		.thm_count = {l->thm_temp1_trans_count, l->thm_temp2_trans_count},
		.thm_time = {l->thm_temp1_total_time, l->thm_temp2_total_time},
	};

	for (size_t i = 0; i < SMART_NUM_SENSORS; i++) {
		r.s_min_k[i] = r.s_max_k[i] = l->temp_sensor_k[i];
		r.s_avg_k[i] = l->temp_sensor_k[i];
		r.s_n[i] = l->temp_sensor_k[i] ? 1 : 0;
	}
	*ret = r;
}

static int64_t div_ceil(int64_t a, int64_t b)
{
	return a / b + (a % b != 0);
}

int series_plan(int64_t from_ms, int64_t to_ms, unsigned points, int64_t step_ms, int64_t now_ms,
		int64_t keep_raw_ms, int64_t keep_1m_ms, struct series_query *ret)
{
	struct series_query q = {.from_ms = from_ms, .to_ms = to_ms};
	int64_t span;

	/* Times and steps from 0 to far beyond any drive's life: no overflow below
	 * (rounding a step up to whole hours stays below INT64_MAX / 2). */
	if (from_ms < 0 || to_ms > SERIES_TIME_MAX_MS || from_ms > to_ms ||
	    points > SERIES_POINTS_MAX || step_ms < 0 || step_ms > SERIES_TIME_MAX_MS)
		return -EINVAL;
	span = to_ms - from_ms;
	if (step_ms == 0) {
		if (points == 0)
			points = SERIES_POINTS_DEFAULT;
		/* Aligned buckets over [from, to]: at most span / step + 1 of them. */
		step_ms = points > 1 ? div_ceil(span, points - 1) : span + 1;
		if (step_ms < 1000)
			step_ms = 1000;
	} else if (span / step_ms + 1 > SERIES_POINTS_MAX) {
		return -EINVAL;
	}

	if (step_ms >= MS_PER_HOUR)
		q.res_s = SERIES_RES_1H;
	else if (step_ms >= MS_PER_MIN)
		q.res_s = SERIES_RES_1M;
	else
		q.res_s = SERIES_RES_RAW;
	if (q.res_s == SERIES_RES_RAW && from_ms < now_ms - keep_raw_ms)
		q.res_s = SERIES_RES_1M;
	if (q.res_s == SERIES_RES_1M && from_ms < now_ms - keep_1m_ms)
		q.res_s = SERIES_RES_1H;
	/* Whole rollup buckets per step: never split one across two points. */
	if (q.res_s != SERIES_RES_RAW)
		step_ms = div_ceil(step_ms, q.res_s * 1000LL) * (q.res_s * 1000LL);
	q.step_ms = step_ms;
	*ret = q;
	return 0;
}

int64_t series_floor(int64_t v, int64_t step)
{
	int64_t r = v % step;

	return r < 0 ? v - r - step : v - r;
}

void series_stat_merge(uint16_t *bmin, uint16_t *bmax, double *bavg, uint32_t *bn, uint16_t min,
		       uint16_t max, double avg, uint32_t n)
{
	if (!n)
		return;
	if (!*bn || min < *bmin)
		*bmin = min;
	if (!*bn || max > *bmax)
		*bmax = max;
	*bavg = (*bavg * *bn + avg * n) / (double)(*bn + n);
	*bn += n;
}

void series_row_merge(struct series_row *b, const struct series_row *r)
{
	series_stat_merge(&b->temp_min_k, &b->temp_max_k, &b->temp_avg_k, &b->temp_n, r->temp_min_k,
			  r->temp_max_k, r->temp_avg_k, r->temp_n);
	for (size_t i = 0; i < SMART_NUM_SENSORS; i++)
		series_stat_merge(&b->s_min_k[i], &b->s_max_k[i], &b->s_avg_k[i], &b->s_n[i],
				  r->s_min_k[i], r->s_max_k[i], r->s_avg_k[i], r->s_n[i]);
	b->n += r->n;
	b->critical_warning |= r->critical_warning;
	/* The rest are "last" values: the newer row wins. */
	b->last_ts_ms = r->last_ts_ms;
	b->avail_spare = r->avail_spare;
	b->percent_used = r->percent_used;
	b->data_units_read = r->data_units_read;
	b->data_units_written = r->data_units_written;
	b->media_errors = r->media_errors;
	b->power_on_hours = r->power_on_hours;
	b->warning_temp_time = r->warning_temp_time;
	b->critical_temp_time = r->critical_temp_time;
	memcpy(b->thm_count, r->thm_count, sizeof(b->thm_count));
	memcpy(b->thm_time, r->thm_time, sizeof(b->thm_time));
}

int series_rebucket_push(struct series_row *v, size_t *n, size_t cap, const struct series_row *r,
			 int64_t step_ms)
{
	int64_t b = series_floor(r->ts_ms, step_ms);

	if (*n > 0 && v[*n - 1].ts_ms == b) {
		series_row_merge(&v[*n - 1], r);
		return 0;
	}
	if (*n >= cap)
		return -ENOBUFS;
	v[*n] = *r;
	v[*n].ts_ms = b;
	(*n)++;
	return 0;
}

int series_rebucket(const struct series_row *v, size_t n, int64_t step_ms, struct series_row **ret,
		    size_t *ret_n)
{
	struct series_row *out = NULL;
	size_t k = 0;

	if (n > 0) {
		out = malloc(n * sizeof(*out));
		if (!out)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		(void)series_rebucket_push(out, &k, n, &v[i], step_ms); /* room for all */
	*ret = out;
	*ret_n = k;
	return 0;
}
