/* SPDX-License-Identifier: MIT */
/*
 * Closed hourly buckets of GET …/series in memory (series_cache.h).
 *
 * An entry holds the hourly rows of one device that start before done_ms, the
 * point below which every 1-hour bucket is built and never rewritten
 * (store_rollup_done()). A request reads done_ms again: when it has moved on,
 * the new rows are appended, after checking that the last row kept is still the
 * one in the database; when it has moved back, or that row differs (the file was
 * replaced or restored), the entry is read again. Hourly rollups are never
 * pruned; finer resolutions are not kept here (a year of 1-minute rows would not
 * fit the budget). A row that would not come back exactly (a counter over 64
 * bits) makes the device's entry "exact only from SQLite": it holds no rows.
 *
 * One mutex guards the whole cache; the open tail is read outside it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/series_cache.h"
#include "nvmond/store/store_rollup.h"

/* One hourly bucket: every field of struct series_row, narrower. */
struct crow {
	int64_t ts_ms, last_ts_ms;
	uint64_t dur, duw, media, poh; /* exact: a larger counter is not kept */
	double temp_avg_k;
	uint32_t n, warning_temp_time, critical_temp_time;
	uint32_t thm_count[2], thm_time[2];
	uint16_t temp_min_k, temp_max_k;
	uint16_t reported; /* bit 0: the composite temperature; bit 1 + k: sensor k */
	uint8_t critical_warning, avail_spare, percent_used;
};

/* One sensor of one bucket, for the sensors the device reports only. */
struct csens {
	double avg_k;
	uint16_t min_k, max_k;
};

struct entry {
	int64_t device_id;
	int64_t done_ms; /* rows below this are here (none when !exact) */
	bool exact;	 /* false: this device is answered from SQLite alone */
	uint16_t smask;	 /* sensors kept, bit k = sensor k */
	unsigned ns;	 /* sensors kept per row */
	struct crow *v;
	struct csens *s; /* n * ns */
	size_t n, cap;
	uint64_t used; /* LRU clock */
};

struct series_cache {
	pthread_mutex_t lock;
	struct entry *e;
	size_t n, cap;
	size_t max_bytes;
	uint64_t clock;
};

struct series_cache *series_cache_new(size_t max_bytes)
{
	struct series_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->max_bytes = max_bytes;
	return c;
}

static void entry_clear(struct entry *e)
{
	free(e->v);
	free(e->s);
	*e = (struct entry){.device_id = e->device_id};
}

struct series_cache *series_cache_free(struct series_cache *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		entry_clear(&c->e[i]);
	free(c->e);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return NULL;
}

static size_t entry_bytes(const struct entry *e)
{
	return e->cap * (sizeof(struct crow) + e->ns * sizeof(struct csens));
}

static size_t bytes_locked(const struct series_cache *c)
{
	size_t b = 0;

	for (size_t i = 0; i < c->n; i++)
		b += entry_bytes(&c->e[i]);
	return b;
}

size_t series_cache_bytes(struct series_cache *c)
{
	pthread_mutex_lock(&c->lock);
	size_t b = bytes_locked(c);
	pthread_mutex_unlock(&c->lock);
	return b;
}

/* Sensors a row reports, bit k = sensor k. */
static uint16_t row_sensors(const struct series_row *r)
{
	uint16_t m = 0;

	for (unsigned k = 0; k < SMART_NUM_SENSORS; k++)
		if (r->s_n[k])
			m |= (uint16_t)(1u << k);
	return m;
}

/* Whether @r comes back from struct crow exactly (rows from SQLite always do today). */
static bool row_packable(const struct series_row *r)
{
	if (r->temp_n != 0 && r->temp_n != r->n)
		return false;
	for (unsigned k = 0; k < SMART_NUM_SENSORS; k++)
		if (r->s_n[k] != 0 && r->s_n[k] != r->n)
			return false;
	return r->data_units_read <= UINT64_MAX && r->data_units_written <= UINT64_MAX &&
	       r->media_errors <= UINT64_MAX && r->power_on_hours <= UINT64_MAX;
}

static void row_pack(const struct entry *e, const struct series_row *r, struct crow *ret,
		     struct csens *ret_s)
{
	unsigned j = 0;

	*ret = (struct crow){
		.ts_ms = r->ts_ms,
		.last_ts_ms = r->last_ts_ms,
		.dur = (uint64_t)r->data_units_read,
		.duw = (uint64_t)r->data_units_written,
		.media = (uint64_t)r->media_errors,
		.poh = (uint64_t)r->power_on_hours,
		.temp_avg_k = r->temp_avg_k,
		.n = r->n,
		.warning_temp_time = r->warning_temp_time,
		.critical_temp_time = r->critical_temp_time,
		.thm_count = {r->thm_count[0], r->thm_count[1]},
		.thm_time = {r->thm_time[0], r->thm_time[1]},
		.temp_min_k = r->temp_min_k,
		.temp_max_k = r->temp_max_k,
		.reported = (uint16_t)((r->temp_n ? 1u : 0u) | (unsigned)row_sensors(r) << 1),
		.critical_warning = r->critical_warning,
		.avail_spare = r->avail_spare,
		.percent_used = r->percent_used,
	};
	for (unsigned k = 0; k < SMART_NUM_SENSORS; k++)
		if (e->smask & (1u << k))
			ret_s[j++] = (struct csens){.avg_k = r->s_avg_k[k],
						    .min_k = r->s_min_k[k],
						    .max_k = r->s_max_k[k]};
}

static void row_unpack(const struct entry *e, size_t i, struct series_row *ret)
{
	const struct crow *x = &e->v[i];
	const struct csens *s = &e->s[i * e->ns];
	struct series_row r = {
		.ts_ms = x->ts_ms,
		.last_ts_ms = x->last_ts_ms,
		.n = x->n,
		.temp_min_k = x->temp_min_k,
		.temp_max_k = x->temp_max_k,
		.temp_avg_k = x->temp_avg_k,
		.temp_n = (x->reported & 1) ? x->n : 0,
		.critical_warning = x->critical_warning,
		.avail_spare = x->avail_spare,
		.percent_used = x->percent_used,
		.data_units_read = x->dur,
		.data_units_written = x->duw,
		.media_errors = x->media,
		.power_on_hours = x->poh,
		.warning_temp_time = x->warning_temp_time,
		.critical_temp_time = x->critical_temp_time,
		.thm_count = {x->thm_count[0], x->thm_count[1]},
		.thm_time = {x->thm_time[0], x->thm_time[1]},
	};
	unsigned j = 0;

	for (unsigned k = 0; k < SMART_NUM_SENSORS; k++) {
		if (!(e->smask & (1u << k)))
			continue;
		if (x->reported & (2u << k)) {
			r.s_n[k] = x->n;
			r.s_avg_k[k] = s[j].avg_k;
		}
		/* A sensor not reported still has its stored min/max (0 from SQLite). */
		r.s_min_k[k] = s[j].min_k;
		r.s_max_k[k] = s[j].max_k;
		j++;
	}
	*ret = r;
}

/* Whether rows @v fit @e as it is laid out. */
static bool rows_fit(const struct entry *e, const struct series_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!row_packable(&v[i]) || (row_sensors(&v[i]) & ~e->smask))
			return false;
	return true;
}

static int entry_append(struct entry *e, const struct series_row *v, size_t n)
{
	if (e->n + n > e->cap) {
		size_t cap = e->cap ? e->cap : 256;
		struct crow *nv;
		struct csens *ns;

		while (cap < e->n + n)
			cap *= 2;
		nv = realloc(e->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		e->v = nv;
		ns = realloc(e->s, (e->ns ? cap * e->ns : 1) * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		e->s = ns;
		e->cap = cap;
	}
	for (size_t i = 0; i < n; i++, e->n++)
		row_pack(e, &v[i], &e->v[e->n], &e->s[e->n * e->ns]);
	return 0;
}

/* Read every closed bucket of @e's device from scratch. */
static int entry_fill(struct entry *e, struct store *s, int64_t done)
{
	struct series_row *v = NULL;
	size_t n = 0;
	int r;

	entry_clear(e);
	e->done_ms = done;
	e->exact = true;
	if (done <= 0)
		return 0;
	r = store_rollup_read(s, e->device_id, SERIES_RES_1H, 0, done - 1, &v, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		e->smask |= row_sensors(&v[i]);
	e->ns = (unsigned)__builtin_popcount(e->smask);
	if (!rows_fit(e, v, n))
		e->exact = false;
	else
		r = entry_append(e, v, n);
	free(v);
	return r;
}

/* Bring @e up to @done: append the buckets closed since, or read it all again. */
static int entry_update(struct entry *e, struct store *s, int64_t done)
{
	struct series_row *v = NULL, last;
	size_t n = 0;
	int r;

	if (done == e->done_ms)
		return 0;
	if (done < e->done_ms || !e->exact || e->n == 0)
		return entry_fill(e, s, done);
	/* From the last row kept: it must still be there, unchanged. */
	row_unpack(e, e->n - 1, &last);
	r = store_rollup_read(s, e->device_id, SERIES_RES_1H, last.ts_ms, done - 1, &v, &n);
	if (r < 0)
		return r;
	if (n == 0 || v[0].ts_ms != last.ts_ms || v[0].n != last.n ||
	    v[0].last_ts_ms != last.last_ts_ms || !rows_fit(e, v + 1, n - 1)) {
		free(v);
		return entry_fill(e, s, done);
	}
	r = entry_append(e, v + 1, n - 1);
	free(v);
	if (r == 0)
		e->done_ms = done;
	return r;
}

/* Caller holds the lock. The entry of @id, made if missing; NULL on ENOMEM. */
static struct entry *entry_get(struct series_cache *c, int64_t id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].device_id == id)
			return &c->e[i];
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct entry *v = realloc(c->e, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->e = v;
		c->cap = cap;
	}
	c->e[c->n] = (struct entry){.device_id = id, .done_ms = -1};
	return &c->e[c->n++];
}

/*
 * Caller holds the lock: drop the least recently used entries until under the
 * cap. @keep alone above it is answered from SQLite until its next bucket closes.
 */
static void evict(struct series_cache *c, struct entry *keep)
{
	size_t total = bytes_locked(c);

	while (total > c->max_bytes) {
		struct entry *lru = NULL;

		for (size_t i = 0; i < c->n; i++)
			if (c->e[i].cap && (!lru || c->e[i].used < lru->used))
				lru = &c->e[i];
		if (!lru)
			break;
		total -= entry_bytes(lru);
		if (lru == keep) {
			int64_t done = lru->done_ms;

			entry_clear(lru);
			lru->done_ms = done; /* not exact: not read again before it moves */
		} else {
			entry_clear(lru);
			lru->done_ms = -1;
		}
	}
}

static size_t lower_bound(const struct entry *e, int64_t ts)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->v[mid].ts_ms < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Rows of the range from the cache, under the lock. *ret_from: where the store
 * takes over (q->from_ms when nothing is cached).
 */
static int from_cache(struct series_cache *c, struct store *s, int64_t id,
		      const struct series_query *q, struct series_row *out, size_t *k, size_t cap,
		      int64_t *ret_from)
{
	struct entry *e;
	int64_t done = 0;
	int r;

	*ret_from = q->from_ms;
	pthread_mutex_lock(&c->lock);
	/* Read under the lock, so that every thread sees it move forward only. */
	r = store_rollup_done(s, SERIES_RES_1H, &done);
	if (r < 0)
		goto out;
	e = entry_get(c, id);
	if (!e) {
		r = -ENOMEM;
		goto out;
	}
	e->used = ++c->clock;
	r = entry_update(e, s, done);
	if (r < 0) {
		entry_clear(e);
		e->done_ms = -1;
		goto out;
	}
	evict(c, e);
	if (!e->exact || e->done_ms <= 0)
		goto out;
	for (size_t i = lower_bound(e, q->from_ms); i < e->n && e->v[i].ts_ms <= q->to_ms; i++) {
		int64_t b = series_floor(e->v[i].ts_ms, q->step_ms);

		if (*k > 0 && out[*k - 1].ts_ms == b) {
			struct series_row row;

			row_unpack(e, i, &row);
			series_row_merge(&out[*k - 1], &row);
			continue;
		}
		if (*k >= cap) {
			r = -ENOBUFS;
			goto out;
		}
		row_unpack(e, i, &out[*k]);
		out[(*k)++].ts_ms = b;
	}
	if (e->done_ms > *ret_from)
		*ret_from = e->done_ms;
out:
	pthread_mutex_unlock(&c->lock);
	return r;
}

int series_cache_read(struct series_cache *c, struct store *s, int64_t device_id,
		      const struct series_query *q, struct series_row **ret, size_t *ret_n)
{
	struct series_row *out, *v = NULL;
	int64_t from = q->from_ms;
	size_t k = 0, n = 0, cap;
	int r = 0;

	if (q->step_ms <= 0 || q->from_ms > q->to_ms)
		return -EINVAL;
	/* Each row falls in one of these buckets (series_plan() bounds them). */
	cap = (size_t)((series_floor(q->to_ms, q->step_ms) - series_floor(q->from_ms, q->step_ms)) /
			       q->step_ms +
		       1);
	out = malloc(cap * sizeof(*out));
	if (!out)
		return -ENOMEM;
	if (c && q->res_s == SERIES_RES_1H)
		r = from_cache(c, s, device_id, q, out, &k, cap, &from);
	if (r == 0 && from <= q->to_ms)
		r = store_rollup_read(s, device_id, q->res_s, from, q->to_ms, &v, &n);
	for (size_t i = 0; r == 0 && i < n; i++)
		r = series_rebucket_push(out, &k, cap, &v[i], q->step_ms);
	free(v);
	if (r < 0 || k == 0) {
		free(out);
		out = NULL;
	}
	if (r < 0)
		return r;
	*ret = out;
	*ret_n = k;
	return 0;
}
