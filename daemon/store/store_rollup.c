/* SPDX-License-Identifier: MIT */
/*
 * Rollups for long history: 1-minute rows from raw samples, 1-hour rows from
 * 1-minute rows, and pruning, in small steps (migrations/0004_rollups.sql).
 *
 * Progress lives in rollup_state, so the builder resumes where it stopped after
 * a restart and never rescans. A step works on bounded time ranges, one device
 * at a time through the primary key (device_id, …, ts_ms), in one short
 * transaction. Statements are named, parameter-bound, and prepared once per
 * handle (store_stmt()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_rollup.h"
#include "nvmond/util/u128.h"
#include "nvmond/util/units.h"

#include "store_internal.h"

#define CHUNK_1M_MS (6 * MS_PER_HOUR) /* raw samples rolled up per step */
#define CHUNK_1H_MS (7 * MS_PER_DAY)  /* 1-minute rows rolled up per step */

/* The bitwise OR of a byte column over a group (SQLite has no such aggregate). */
#define OR8(x)                                                                                     \
	"(max(" x " & 1) | max(" x " & 2) | max(" x " & 4) | max(" x " & 8) | max(" x " & 16) | "  \
	"max(" x " & 32) | max(" x " & 64) | max(" x " & 128))"

#define RAW_SENSOR(i)                                                                              \
	", min(nullif(temp_sensor" #i "_k, 0)) AS s" #i "a, avg(nullif(temp_sensor" #i             \
	"_k, 0)) AS s" #i "b, max(nullif(temp_sensor" #i "_k, 0)) AS s" #i "c"
#define RAW_SENSORS                                                                                \
	RAW_SENSOR(1)                                                                              \
	RAW_SENSOR(2)                                                                              \
	RAW_SENSOR(3) RAW_SENSOR(4) RAW_SENSOR(5) RAW_SENSOR(6) RAW_SENSOR(7) RAW_SENSOR(8)

/* Averages of 1-minute rows weighted by their sample counts. */
#define WAVG(c) "sum(" c " * n) / sum(CASE WHEN " c " IS NOT NULL THEN n END)"
#define M1_SENSOR(i)                                                                               \
	", min(s" #i "_min_k) AS s" #i "a, " WAVG("s" #i "_avg_k") " AS s" #i "b, max(s" #i        \
								   "_max_k) AS s" #i "c"
#define M1_SENSORS                                                                                 \
	M1_SENSOR(1)                                                                               \
	M1_SENSOR(2) M1_SENSOR(3) M1_SENSOR(4) M1_SENSOR(5) M1_SENSOR(6) M1_SENSOR(7) M1_SENSOR(8)

#define SENSOR_COLS(i) ", s" #i "_min_k, s" #i "_avg_k, s" #i "_max_k"
#define SENSOR_COLS_ALL                                                                            \
	SENSOR_COLS(1)                                                                             \
	SENSOR_COLS(2)                                                                             \
	SENSOR_COLS(3) SENSOR_COLS(4) SENSOR_COLS(5) SENSOR_COLS(6) SENSOR_COLS(7) SENSOR_COLS(8)
#define ROLLUP_COLS                                                                                \
	"device_id, res_s, ts_ms, n, last_ts_ms, temp_min_k, temp_avg_k, "                         \
	"temp_max_k" SENSOR_COLS_ALL ", critical_warning, " LAST_COLS
#define LAST_COLS                                                                                  \
	"avail_spare, percent_used, data_units_read, data_units_written, media_errors, "           \
	"power_on_hours, warning_temp_time, critical_temp_time, thm_temp1_trans_count, "           \
	"thm_temp2_trans_count, thm_temp1_total_time, thm_temp2_total_time"
#define L_LAST_COLS                                                                                \
	"l.avail_spare, l.percent_used, l.data_units_read, l.data_units_written, "                 \
	"l.media_errors, l.power_on_hours, l.warning_temp_time, l.critical_temp_time, "            \
	"l.thm_temp1_trans_count, l.thm_temp2_trans_count, l.thm_temp1_total_time, "               \
	"l.thm_temp2_total_time"

/* Sensor aggregates are named s<i>a, s<i>b, s<i>c: min, avg, max. */
static const char sql_build_1m[] =
	"INSERT OR REPLACE INTO rollups (" ROLLUP_COLS ") "
	"SELECT g.device_id, g.res_s, g.b, g.n, g.last_ts, g.tmin, g.tavg, g.tmax, "
	"g.s1a, g.s1b, g.s1c, g.s2a, g.s2b, g.s2c, g.s3a, g.s3b, g.s3c, g.s4a, g.s4b, g.s4c, "
	"g.s5a, g.s5b, g.s5c, g.s6a, g.s6b, g.s6c, g.s7a, g.s7b, g.s7c, g.s8a, g.s8b, g.s8c, "
	"g.cw, " L_LAST_COLS " FROM ("
	"SELECT device_id, 60 AS res_s, (ts_ms / 60000) * 60000 AS b, count(*) AS n, "
	"max(ts_ms) AS last_ts, min(nullif(temperature_k, 0)) AS tmin, "
	"avg(nullif(temperature_k, 0)) AS tavg, max(nullif(temperature_k, 0)) AS tmax" RAW_SENSORS
	", " OR8("critical_warning") " AS cw "
				     "FROM samples WHERE device_id = :device_id AND ts_ms >= "
				     ":from_ms AND ts_ms < :to_ms "
				     "GROUP BY b) AS g "
				     "JOIN samples AS l ON l.device_id = g.device_id AND l.ts_ms = "
				     "g.last_ts";

static const char sql_build_1h[] =
	"INSERT OR REPLACE INTO rollups (" ROLLUP_COLS ") "
	"SELECT g.device_id, g.res_s, g.b, g.n, g.last_ts, g.tmin, g.tavg, g.tmax, "
	"g.s1a, g.s1b, g.s1c, g.s2a, g.s2b, g.s2c, g.s3a, g.s3b, g.s3c, g.s4a, g.s4b, g.s4c, "
	"g.s5a, g.s5b, g.s5c, g.s6a, g.s6b, g.s6c, g.s7a, g.s7b, g.s7c, g.s8a, g.s8b, g.s8c, "
	"g.cw, " L_LAST_COLS " FROM ("
	"SELECT device_id, 3600 AS res_s, (ts_ms / 3600000) * 3600000 AS b, sum(n) AS n, "
	"max(last_ts_ms) AS last_ts, min(temp_min_k) AS tmin, " WAVG(
		"temp_avg_k") " AS tavg, "
			      "max(temp_max_k) AS tmax" M1_SENSORS
			      ", " OR8("critical_warning") " AS cw "
							   "FROM rollups WHERE device_id = "
							   ":device_id AND res_s = 60 AND ts_ms >= "
							   ":from_ms "
							   "AND ts_ms < :to_ms GROUP BY b) AS g "
							   "JOIN rollups AS l ON l.device_id = "
							   "g.device_id AND l.res_s = 60 "
							   "AND l.ts_ms = (g.last_ts / 60000) * "
							   "60000";

static const char sql_state_get[] =
	"SELECT done_ms, pruned_ms FROM rollup_state WHERE res_s = :res_s";
static const char sql_state_set[] =
	"INSERT INTO rollup_state (res_s, done_ms, pruned_ms) VALUES (:res_s, :done_ms, "
	":pruned_ms) ON CONFLICT (res_s) DO UPDATE SET done_ms = excluded.done_ms, "
	"pruned_ms = excluded.pruned_ms";
static const char sql_devices[] = "SELECT id FROM devices ORDER BY id";
static const char sql_first_raw[] = "SELECT min(ts_ms) FROM samples WHERE device_id = :device_id";
static const char sql_first_1m[] =
	"SELECT min(ts_ms) FROM rollups WHERE device_id = :device_id AND res_s = 60";
static const char sql_prune_raw[] =
	"DELETE FROM samples WHERE device_id = :device_id AND ts_ms < :cut_ms";
static const char sql_prune_1m[] =
	"DELETE FROM rollups WHERE device_id = :device_id AND res_s = 60 AND ts_ms < :cut_ms";
static const char sql_read[] =
	"SELECT ts_ms, n, last_ts_ms, temp_min_k, temp_avg_k, temp_max_k" SENSOR_COLS_ALL
	", critical_warning, " LAST_COLS " FROM rollups WHERE device_id = :device_id "
	"AND res_s = :res_s AND ts_ms >= :from_ms AND ts_ms <= :to_ms ORDER BY ts_ms";

const char *store_rollup_errmsg(struct store *s)
{
	return sqlite3_errmsg(store_db(s));
}

static int64_t floor_ms(int64_t v, int64_t step)
{
	return v / step * step;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* ---- state -------------------------------------------------------------- */

struct state {
	int64_t done_ms, pruned_ms;
};

static int state_get(struct store *s, int res_s, struct state *ret)
{
	sqlite3_stmt *st = NULL;
	struct state v = {0};
	int r, rc;

	r = store_stmt(s, sql_state_get, &st);
	if (r == 0)
		r = store_bind(s, st, store_p_i64(":res_s", res_s));
	if (r == 0) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			v.done_ms = sqlite3_column_int64(st, 0);
			v.pruned_ms = sqlite3_column_int64(st, 1);
		} else if (rc != SQLITE_DONE) {
			r = store_errno(s, rc);
		}
	}
	sqlite3_reset(st);
	if (r == 0)
		*ret = v;
	return r;
}

static int state_set(struct store *s, int res_s, const struct state *v)
{
	sqlite3_stmt *st = NULL;
	int r;

	r = store_stmt(s, sql_state_set, &st);
	if (r == 0)
		r = store_bind(s, st, store_p_i64(":res_s", res_s),
			       store_p_i64(":done_ms", v->done_ms),
			       store_p_i64(":pruned_ms", v->pruned_ms));
	return r < 0 ? r : store_run(s, st, false);
}

int store_rollup_done(struct store *s, int res_s, int64_t *ret)
{
	struct state v;
	int r = state_get(s, res_s, &v);

	if (r == 0)
		*ret = v.done_ms;
	return r;
}

/* ---- building ----------------------------------------------------------- */

struct devices {
	int64_t *id;
	size_t n;
};

static int devices_load(struct store *s, struct devices *ret)
{
	sqlite3_stmt *st = NULL;
	struct devices d = {0};
	size_t cap = 0;
	int r, rc;

	r = store_stmt(s, sql_devices, &st);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (d.n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			int64_t *nv = realloc(d.id, ncap * sizeof(*nv));

			if (!nv) {
				r = -ENOMEM;
				break;
			}
			d.id = nv;
			cap = ncap;
		}
		d.id[d.n++] = sqlite3_column_int64(st, 0);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = store_errno(s, rc);
	sqlite3_reset(st);
	if (r < 0) {
		free(d.id);
		return r;
	}
	*ret = d;
	return 0;
}

/* The oldest time @sql (a min() over one device) gives over every device; 0 when none. */
static int first_ts(struct store *s, const struct devices *d, const char *sql, int64_t *ret)
{
	sqlite3_stmt *st = NULL;
	int64_t best = 0;
	bool found = false;
	int r;

	r = store_stmt(s, sql, &st);
	for (size_t i = 0; r == 0 && i < d->n; i++) {
		int rc;

		r = store_bind(s, st, store_p_i64(":device_id", d->id[i]));
		if (r < 0)
			break;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
			int64_t t = sqlite3_column_int64(st, 0);

			if (!found || t < best)
				best = t;
			found = true;
		} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			r = store_errno(s, rc);
		}
		sqlite3_reset(st);
	}
	sqlite3_reset(st);
	if (r == 0)
		*ret = found ? best : 0;
	return r;
}

/* Run @sql for every device with :from_ms / :to_ms (or :cut_ms when @from is < 0). */
static int for_devices(struct store *s, const struct devices *d, const char *sql, int64_t from,
		       int64_t to)
{
	sqlite3_stmt *st = NULL;
	int r;

	r = store_stmt(s, sql, &st);
	for (size_t i = 0; r == 0 && i < d->n; i++) {
		if (from >= 0)
			r = store_bind(s, st, store_p_i64(":device_id", d->id[i]),
				       store_p_i64(":from_ms", from), store_p_i64(":to_ms", to));
		else
			r = store_bind(s, st, store_p_i64(":device_id", d->id[i]),
				       store_p_i64(":cut_ms", to));
		if (r == 0)
			r = store_run(s, st, false);
	}
	return r;
}

/*
 * Move the cursor *@at by at most @chunk towards @limit, running @sql for each
 * device from *@at (@from_at; else from -1) to the new cursor. A cursor at 0
 * starts at the oldest source row (@first_sql), floored to @align ms; none: no
 * step. Sets *@more when @limit is not reached yet.
 */
static int advance(struct store *s, const struct devices *d, int64_t *at, const char *sql,
		   const char *first_sql, int64_t align, bool from_at, int64_t limit, int64_t chunk,
		   bool *more)
{
	int64_t to;
	int r;

	if (*at == 0) {
		int64_t first = 0;

		r = first_ts(s, d, first_sql, &first);
		if (r < 0 || first == 0)
			return r;
		*at = floor_ms(first, align);
	}
	if (*at >= limit)
		return 0;
	to = min64(limit, *at + chunk);
	r = for_devices(s, d, sql, from_at ? *at : -1, to);
	if (r < 0)
		return r;
	*at = to;
	if (to < limit)
		*more = true;
	return 0;
}

/*
 * Advance @v->done_ms by at most @chunk towards @limit, building buckets of
 * @bucket_ms with @sql. Starts at the oldest source row (@first_sql).
 */
static int build(struct store *s, const struct devices *d, struct state *v, const char *sql,
		 const char *first_sql, int64_t bucket_ms, int64_t limit, int64_t chunk, bool *more)
{
	return advance(s, d, &v->done_ms, sql, first_sql, bucket_ms, true, limit, chunk, more);
}

/* Delete rows before min(@cut, what is rolled up), at most @chunk further than last time. */
static int prune(struct store *s, const struct devices *d, struct state *v, const char *sql,
		 const char *first_sql, int64_t cut, int64_t chunk, bool *more)
{
	return advance(s, d, &v->pruned_ms, sql, first_sql, 1, false, cut, chunk, more);
}

struct rollup_step {
	const struct store_rollup_cfg *c;
	int64_t now_ms;
	bool more;
};

static int rollup_step(struct store *s, void *ctx)
{
	struct rollup_step *a = ctx;
	const struct store_rollup_cfg *c = a->c;
	struct devices d = {0};
	struct state raw, m1, h1;
	int64_t chunk_1m = c->chunk_ms > 0 ? c->chunk_ms : CHUNK_1M_MS;
	int64_t chunk_1h = chunk_1m > CHUNK_1H_MS ? chunk_1m : CHUNK_1H_MS;
	int r;

	if ((r = devices_load(s, &d)) < 0 || (r = state_get(s, SERIES_RES_RAW, &raw)) < 0 ||
	    (r = state_get(s, SERIES_RES_1M, &m1)) < 0 ||
	    (r = state_get(s, SERIES_RES_1H, &h1)) < 0)
		goto out;

	r = build(s, &d, &m1, sql_build_1m, sql_first_raw, MS_PER_MIN,
		  floor_ms(a->now_ms - c->grace_ms, MS_PER_MIN), chunk_1m, &a->more);
	if (r < 0)
		goto out;
	r = build(s, &d, &h1, sql_build_1h, sql_first_1m, MS_PER_HOUR,
		  floor_ms(m1.done_ms, MS_PER_HOUR), chunk_1h, &a->more);
	if (r < 0)
		goto out;
	/* Only what is rolled up may go. */
	r = prune(s, &d, &raw, sql_prune_raw, sql_first_raw,
		  min64(a->now_ms - c->keep_raw_ms, m1.done_ms), chunk_1m, &a->more);
	if (r < 0)
		goto out;
	r = prune(s, &d, &m1, sql_prune_1m, sql_first_1m,
		  min64(a->now_ms - c->keep_1m_ms, h1.done_ms), chunk_1h, &a->more);
	if (r < 0)
		goto out;

	if ((r = state_set(s, SERIES_RES_RAW, &raw)) == 0 &&
	    (r = state_set(s, SERIES_RES_1M, &m1)) == 0)
		r = state_set(s, SERIES_RES_1H, &h1);
out:
	free(d.id);
	return r;
}

int store_rollup_step(struct store *s, const struct store_rollup_cfg *c, int64_t now_ms,
		      bool *ret_more)
{
	struct rollup_step a = {.c = c, .now_ms = now_ms};
	int r = store_transaction(s, NULL, rollup_step, &a);

	if (r < 0)
		return r;
	*ret_more = a.more;
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

static u128 column_u128(sqlite3_stmt *st, int i)
{
	u128 v = 0;

	if (sqlite3_column_type(st, i) == SQLITE_TEXT)
		(void)u128_from_dec((const char *)sqlite3_column_text(st, i), &v);
	else if (sqlite3_column_int64(st, i) > 0)
		v = (u128)sqlite3_column_int64(st, i);
	return v;
}

static void read_row(sqlite3_stmt *st, struct series_row *ret)
{
	struct series_row r = {0};
	int i = 0;

	r.ts_ms = sqlite3_column_int64(st, i++);
	r.n = (uint32_t)sqlite3_column_int64(st, i++);
	r.last_ts_ms = sqlite3_column_int64(st, i++);
	r.temp_n = sqlite3_column_type(st, i + 1) == SQLITE_NULL ? 0 : r.n;
	r.temp_min_k = (uint16_t)sqlite3_column_int(st, i++);
	r.temp_avg_k = sqlite3_column_double(st, i++);
	r.temp_max_k = (uint16_t)sqlite3_column_int(st, i++);
	for (size_t k = 0; k < SMART_NUM_SENSORS; k++) {
		r.s_n[k] = sqlite3_column_type(st, i + 1) == SQLITE_NULL ? 0 : r.n;
		r.s_min_k[k] = (uint16_t)sqlite3_column_int(st, i++);
		r.s_avg_k[k] = sqlite3_column_double(st, i++);
		r.s_max_k[k] = (uint16_t)sqlite3_column_int(st, i++);
	}
	r.critical_warning = (uint8_t)sqlite3_column_int(st, i++);
	r.avail_spare = (uint8_t)sqlite3_column_int(st, i++);
	r.percent_used = (uint8_t)sqlite3_column_int(st, i++);
	r.data_units_read = column_u128(st, i++);
	r.data_units_written = column_u128(st, i++);
	r.media_errors = column_u128(st, i++);
	r.power_on_hours = column_u128(st, i++);
	r.warning_temp_time = (uint32_t)sqlite3_column_int64(st, i++);
	r.critical_temp_time = (uint32_t)sqlite3_column_int64(st, i++);
	r.thm_count[0] = (uint32_t)sqlite3_column_int64(st, i++);
	r.thm_count[1] = (uint32_t)sqlite3_column_int64(st, i++);
	r.thm_time[0] = (uint32_t)sqlite3_column_int64(st, i++);
	r.thm_time[1] = (uint32_t)sqlite3_column_int64(st, i++);
	*ret = r;
}

struct rows {
	struct series_row *v;
	size_t n, cap;
};

static struct series_row *rows_add(struct rows *rs)
{
	if (rs->n == rs->cap) {
		size_t ncap = rs->cap ? rs->cap * 2 : 256;
		struct series_row *nv = realloc(rs->v, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		rs->v = nv;
		rs->cap = ncap;
	}
	return &rs->v[rs->n++];
}

static int read_raw(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
		    struct rows *rs)
{
	struct sample *v = NULL;
	size_t n = 0;
	int r;

	r = store_samples_range(s, device_id, from_ms, to_ms, SIZE_MAX, &v, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct series_row *x = rows_add(rs);

		if (!x) {
			free(v);
			return -ENOMEM;
		}
		series_row_from_sample(&v[i], x);
	}
	free(v);
	return 0;
}

static int read_res(struct store *s, int64_t device_id, int res_s, int64_t from_ms, int64_t to_ms,
		    struct rows *rs)
{
	sqlite3_stmt *st = NULL;
	int64_t done = 0;
	int r, rc = SQLITE_DONE;

	if (from_ms > to_ms)
		return 0;
	if (res_s == SERIES_RES_RAW)
		return read_raw(s, device_id, from_ms, to_ms, rs);

	r = store_rollup_done(s, res_s, &done);
	if (r < 0)
		return r;
	if (done > from_ms) {
		r = store_stmt(s, sql_read, &st);
		if (r == 0)
			r = store_bind(s, st, store_p_i64(":device_id", device_id),
				       store_p_i64(":res_s", res_s),
				       store_p_i64(":from_ms", from_ms),
				       store_p_i64(":to_ms", min64(to_ms, done - 1)));
		while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct series_row *x = rows_add(rs);

			if (!x)
				r = -ENOMEM;
			else
				read_row(st, x);
		}
		if (r == 0 && rc != SQLITE_DONE)
			r = store_errno(s, rc);
		sqlite3_reset(st);
		if (r < 0)
			return r;
	}
	/* Not rolled up yet: the next finer resolution fills in. */
	return read_res(s, device_id, res_s == SERIES_RES_1H ? SERIES_RES_1M : SERIES_RES_RAW,
			done > from_ms ? done : from_ms, to_ms, rs);
}

int store_rollup_read(struct store *s, int64_t device_id, int res_s, int64_t from_ms, int64_t to_ms,
		      struct series_row **ret, size_t *ret_n)
{
	struct rows rs = {0};
	int r;

	if (res_s != SERIES_RES_RAW && res_s != SERIES_RES_1M && res_s != SERIES_RES_1H)
		return -EINVAL;
	r = read_res(s, device_id, res_s, from_ms, to_ms, &rs);
	if (r < 0) {
		free(rs.v);
		return r;
	}
	*ret = rs.v;
	*ret_n = rs.n;
	return 0;
}
