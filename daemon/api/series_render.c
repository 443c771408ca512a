/* SPDX-License-Identifier: MIT */
/*
 * A range query's rows as the columnar JSON of GET /api/v1/devices/{id}/series,
 * written straight into one growing buffer. A year at 2,000 points is about 30
 * values per point: a json_t per value, then json_dumps() printing each with
 * snprintf(), cost most of the request (issue 14). The document is the one
 * jansson printed (compact, keys in this order): test_series_render compares
 * them byte for byte.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/series_render.h"
#include "nvmond/util/timefmt.h"

/* Room for any one value: a u128 as a quoted decimal string, a comma. */
#define VALUE_MAX (U128_DEC_MAX + 4)

struct jbuf {
	char *p;
	size_t len, cap;
	bool oom; /* sticky: every write after a failed one is dropped */
};

static bool reserve(struct jbuf *b, size_t more)
{
	char *p;
	size_t cap;

	if (b->oom)
		return false;
	if (b->len + more <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void put(struct jbuf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

#define PUT_LIT(b, s) put((b), (s), sizeof(s) - 1)

/* Decimal digits of @v at b->p + b->len; the caller reserved VALUE_MAX. */
static void put_u64_unchecked(struct jbuf *b, uint64_t v)
{
	char tmp[20], *e = tmp + sizeof(tmp), *s = e;

	do {
		*--s = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(b->p + b->len, s, (size_t)(e - s));
	b->len += (size_t)(e - s);
}

/* As jansson prints a json_integer(): "%lld". */
static void put_i64(struct jbuf *b, int64_t v)
{
	if (!reserve(b, VALUE_MAX))
		return;
	if (v < 0) {
		b->p[b->len++] = '-';
		put_u64_unchecked(b, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64_unchecked(b, (uint64_t)v);
	}
}

/* As render_u128(): a number up to INT64_MAX, a decimal string beyond (docs/api.md). */
static void put_u128(struct jbuf *b, u128 v)
{
	char dec[U128_DEC_MAX];
	size_t n;

	if (v <= (u128)INT64_MAX)
		return put_i64(b, (int64_t)v);
	u128_to_dec(v, dec);
	n = strlen(dec);
	if (!reserve(b, n + 2))
		return;
	b->p[b->len++] = '"';
	memcpy(b->p + b->len, dec, n);
	b->len += n;
	b->p[b->len++] = '"';
}

/*
 * Whole °C as everywhere in the API (K - 273; drives report whole Kelvin), an
 * average rounded; null when not reported. Integers also keep a year-long answer
 * small and quick to print.
 */
static void put_celsius(struct jbuf *b, double kelvin, uint32_t reported)
{
	if (!reported)
		PUT_LIT(b, "null");
	else
		put_i64(b, (int64_t)lround(kelvin - 273.0));
}

/* The columns, in the order of the document. */
enum col {
	COL_T,
	COL_N,
	COL_TMIN,
	COL_TAVG,
	COL_TMAX,
	COL_SMIN,
	COL_SAVG,
	COL_SMAX,
	COL_CW,
	COL_SPARE,
	COL_USED,
	COL_WR,
	COL_RD,
	COL_MEDIA,
	COL_C1,
	COL_C2,
	COL_S1,
	COL_S2,
};

static void put_value(struct jbuf *b, const struct series_row *x, enum col c, size_t k)
{
	switch (c) {
	case COL_T:
		return put_i64(b, x->ts_ms / 1000);
	case COL_N:
		return put_i64(b, x->n);
	case COL_TMIN:
		return put_celsius(b, x->temp_min_k, x->temp_n);
	case COL_TAVG:
		return put_celsius(b, x->temp_avg_k, x->temp_n);
	case COL_TMAX:
		return put_celsius(b, x->temp_max_k, x->temp_n);
	case COL_SMIN:
		return put_celsius(b, x->s_min_k[k], x->s_n[k]);
	case COL_SAVG:
		return put_celsius(b, x->s_avg_k[k], x->s_n[k]);
	case COL_SMAX:
		return put_celsius(b, x->s_max_k[k], x->s_n[k]);
	case COL_CW:
		return put_i64(b, x->critical_warning);
	case COL_SPARE:
		return put_i64(b, x->avail_spare);
	case COL_USED:
		return put_i64(b, x->percent_used);
	case COL_WR:
		return put_u128(b, smart_bytes(x->data_units_written));
	case COL_RD:
		return put_u128(b, smart_bytes(x->data_units_read));
	case COL_MEDIA:
		return put_u128(b, x->media_errors);
	case COL_C1:
		return put_i64(b, x->thm_count[0]);
	case COL_C2:
		return put_i64(b, x->thm_count[1]);
	case COL_S1:
		return put_i64(b, x->thm_time[0]);
	case COL_S2:
		return put_i64(b, x->thm_time[1]);
	}
}

/* "@key":[column c of every row] (@key NULL: the array alone); @k: the sensor. */
static void put_column(struct jbuf *b, const char *key, const struct series_row *v, size_t n,
		       enum col c, size_t k)
{
	if (key) {
		put(b, "\"", 1);
		put(b, key, strlen(key));
		PUT_LIT(b, "\":");
	}
	put(b, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			put(b, ",", 1);
		put_value(b, &v[i], c, k);
	}
	put(b, "]", 1);
}

int series_render(int64_t device_id, const struct series_query *q, const struct series_row *v,
		  size_t n, char **ret, size_t *ret_len)
{
	static const struct {
		const char *key;
		enum col col;
	} tail[] = {
		{"critical_warning", COL_CW},	   {"avail_spare", COL_SPARE},
		{"percent_used", COL_USED},	   {"data_written_bytes", COL_WR},
		{"data_read_bytes", COL_RD},	   {"media_errors", COL_MEDIA},
		{"thm_temp1_trans_count", COL_C1}, {"thm_temp2_trans_count", COL_C2},
		{"thm_temp1_total_time", COL_S1},  {"thm_temp2_total_time", COL_S2},
	};
	char ts[TIMEFMT_MAX];
	struct jbuf b = {0};
	bool first = true;

	/* About 30 values of a few digits per point: one allocation, mostly. */
	reserve(&b, 1024 + n * 128);
	PUT_LIT(&b, "{\"device_id\":");
	put_i64(&b, device_id);
	/* RFC 3339 is digits, '-', ':', '.', 'T' and 'Z': nothing to escape. */
	PUT_LIT(&b, ",\"from\":\"");
	timefmt_rfc3339(q->from_ms, ts);
	put(&b, ts, strlen(ts));
	PUT_LIT(&b, "\",\"to\":\"");
	timefmt_rfc3339(q->to_ms, ts);
	put(&b, ts, strlen(ts));
	PUT_LIT(&b, "\",\"from_ms\":");
	put_i64(&b, q->from_ms);
	PUT_LIT(&b, ",\"to_ms\":");
	put_i64(&b, q->to_ms);
	PUT_LIT(&b, ",\"resolution_s\":");
	put_i64(&b, q->res_s);
	PUT_LIT(&b, ",\"step_s\":");
	put_i64(&b, q->step_ms / 1000);
	PUT_LIT(&b, ",\"points\":");
	put_i64(&b, (int64_t)n);
	put(&b, ",", 1);
	put_column(&b, "t", v, n, COL_T, 0);
	put(&b, ",", 1);
	put_column(&b, "n", v, n, COL_N, 0);
	PUT_LIT(&b, ",\"temp_c\":{");
	put_column(&b, "min", v, n, COL_TMIN, 0);
	put(&b, ",", 1);
	put_column(&b, "avg", v, n, COL_TAVG, 0);
	put(&b, ",", 1);
	put_column(&b, "max", v, n, COL_TMAX, 0);
	PUT_LIT(&b, "},\"sensors\":[");
	for (size_t k = 0; k < SMART_NUM_SENSORS; k++) {
		bool reported = false;

		for (size_t i = 0; i < n && !reported; i++)
			reported = v[i].s_n[k] > 0;
		if (!reported)
			continue;
		if (!first)
			put(&b, ",", 1);
		first = false;
		PUT_LIT(&b, "{\"sensor\":");
		put_i64(&b, (int64_t)k + 1);
		put(&b, ",", 1);
		put_column(&b, "min", v, n, COL_SMIN, k);
		put(&b, ",", 1);
		put_column(&b, "avg", v, n, COL_SAVG, k);
		put(&b, ",", 1);
		put_column(&b, "max", v, n, COL_SMAX, k);
		put(&b, "}", 1);
	}
	put(&b, "]", 1);
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		put(&b, ",", 1);
		put_column(&b, tail[i].key, v, n, tail[i].col, 0);
	}
	put(&b, "}", 2); /* with the NUL */
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*ret = b.p;
	*ret_len = b.len - 1;
	return 0;
}
