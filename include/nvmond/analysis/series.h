/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/sample.h"
#include "nvmond/decode/smart.h"

/*
 * Chart series over long ranges (pure: no clock, no I/O). History is kept at
 * three resolutions: raw samples, 1-minute and 1-hour rollups (store_rollup.h).
 * A range query picks the coarsest resolution that still gives the requested
 * number of points, reads rows from it, and merges them into step-aligned
 * buckets here.
 */
#define SERIES_RES_RAW 0
#define SERIES_RES_1M  60
#define SERIES_RES_1H  3600

#define SERIES_POINTS_DEFAULT 1000
#define SERIES_POINTS_MAX     10000
#define SERIES_TIME_MAX_MS    (INT64_MAX / 4) /* ranges end before this (unix ms) */

/*
 * One bucket (or one raw sample, n = 1). Temperatures in Kelvin, 0 = not
 * reported in the bucket; averages are weighted by the samples that reported.
 * Counters are those of the last sample in the bucket.
 */
struct series_row {
	int64_t ts_ms;	    /* bucket start; a raw sample's own time */
	int64_t last_ts_ms; /* time of the last sample in the bucket */
	uint32_t n;	    /* raw samples summarised */
	uint16_t temp_min_k, temp_max_k;
	double temp_avg_k;
	uint32_t temp_n; /* samples that reported the composite temperature */
	uint16_t s_min_k[SMART_NUM_SENSORS], s_max_k[SMART_NUM_SENSORS];
	double s_avg_k[SMART_NUM_SENSORS];
	uint32_t s_n[SMART_NUM_SENSORS];
	uint8_t critical_warning; /* OR over the bucket */
	uint8_t avail_spare, percent_used;
	u128 data_units_read, data_units_written, media_errors, power_on_hours;
	uint32_t warning_temp_time, critical_temp_time;
	uint32_t thm_count[2], thm_time[2]; /* TMT1 / TMT2 transitions and seconds */
};

struct series_query {
	int64_t from_ms, to_ms;
	int64_t step_ms; /* bucket width of the answer */
	int res_s;	 /* resolution to read: SERIES_RES_RAW, _1M or _1H */
};

/** series_row_from_sample() - A raw sample as a one-sample bucket. */
void series_row_from_sample(const struct sample *s, struct series_row *ret);

/**
 * series_plan() - Choose the step and the resolution for a range.
 * @points: wanted points at most (0 = SERIES_POINTS_DEFAULT), or
 * @step_ms: an explicit step (0 = from @points); the answer never has more than
 *           SERIES_POINTS_MAX points, so a step too small for the range is refused
 * @keep_raw_ms, @keep_1m_ms: how far back raw samples and 1-minute rollups go
 * The resolution is the coarsest whose width is not above the step, moved to a
 * coarser one when the range starts before the finer one is kept.
 * Return: 0, or -EINVAL (from > to, points > SERIES_POINTS_MAX, step too small, a time
 * or a step beyond SERIES_TIME_MAX_MS).
 */
int series_plan(int64_t from_ms, int64_t to_ms, unsigned points, int64_t step_ms, int64_t now_ms,
		int64_t keep_raw_ms, int64_t keep_1m_ms, struct series_query *ret);

/**
 * series_rebucket() - Merge rows (oldest first) into buckets of @step_ms
 * aligned to multiples of @step_ms. *ret is malloc()ed (NULL when @n is 0).
 * Return: 0 or -ENOMEM.
 */
int series_rebucket(const struct series_row *v, size_t n, int64_t step_ms, struct series_row **ret,
		    size_t *ret_n);

/** series_floor() - @v rounded down to a multiple of @step (> 0), below 0 too. */
int64_t series_floor(int64_t v, int64_t step);

/**
 * series_stat_merge() - Fold a summary of @n samples (@min, @max, @avg) into a
 * bucket's (*@bmin, *@bmax, *@bavg over *@bn samples); @n = 0 (not reported)
 * changes nothing. The rule of every temperature of a bucket, shared by
 * series_row_merge().
 */
void series_stat_merge(uint16_t *bmin, uint16_t *bmax, double *bavg, uint32_t *bn, uint16_t min,
		       uint16_t max, double avg, uint32_t n);

/**
 * series_row_merge() - Fold the row @r into the bucket @b (both in time order): the
 * temperatures through series_stat_merge(), counts added, critical_warning OR-ed,
 * the other values (counters, the last time) taken from @r, the newer row.
 * The one merge of buckets: series_rebucket_push() and the API's cache use it.
 */
void series_row_merge(struct series_row *b, const struct series_row *r);

/**
 * series_rebucket_push() - series_rebucket() one row at a time: merge @r, newer
 * than every row pushed before, into the buckets v[0..*n), appending a bucket
 * when @r starts a new one (*n grows).
 * @cap: buckets @v has room for
 * Return: 0, or -ENOBUFS when a new bucket does not fit.
 */
int series_rebucket_push(struct series_row *v, size_t *n, size_t cap, const struct series_row *r,
			 int64_t step_ms);
