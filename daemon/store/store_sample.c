/* SPDX-License-Identifier: MIT */
/*
 * Raw samples in SQLite: one row per device and poll, the whole SMART log with
 * 128-bit counters kept exact (INTEGER while they fit in int64, decimal TEXT
 * beyond). Insert in batches, read a range or the newest one. Named,
 * parameter-bound statements, prepared when the handle opens (store.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "store_internal.h"

/* The order bind_sample() and read_sample() use. */
#define SAMPLE_COLS                                                                                \
	"device_id, ts_ms, critical_warning, temperature_k, avail_spare, spare_thresh, "           \
	"percent_used, endurance_grp_crit_warn, data_units_read, data_units_written, "             \
	"host_read_commands, host_write_commands, controller_busy_time, power_cycles, "            \
	"power_on_hours, unsafe_shutdowns, media_errors, num_err_log_entries, "                    \
	"warning_temp_time, critical_temp_time, temp_sensor1_k, temp_sensor2_k, temp_sensor3_k, "  \
	"temp_sensor4_k, temp_sensor5_k, temp_sensor6_k, temp_sensor7_k, temp_sensor8_k, "         \
	"thm_temp1_trans_count, thm_temp2_trans_count, thm_temp1_total_time, "                     \
	"thm_temp2_total_time"
#define SAMPLE_NCOLS 32

const char store_sql_sample_insert[] =
	"INSERT OR IGNORE INTO samples (" SAMPLE_COLS ") VALUES ("
	"?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
	"?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, "
	"?29, ?30, ?31, ?32)";
const char store_sql_samples_range[] =
	"SELECT " SAMPLE_COLS " FROM samples WHERE device_id = :device_id "
	"AND ts_ms >= :from_ms AND ts_ms <= :to_ms ORDER BY ts_ms LIMIT :limit";
const char store_sql_sample_latest[] = "SELECT " SAMPLE_COLS " FROM samples "
				       "WHERE device_id = :device_id ORDER BY ts_ms DESC LIMIT 1";

/* Row @i of the samples @rows, in the order of SAMPLE_COLS (?1 … ?32). */
static int bind_sample(struct store *s, sqlite3_stmt *st, const void *rows, size_t i)
{
	const struct sample *v = (const struct sample *)rows + i;
	const struct smart_log *l = &v->smart;
	_Static_assert(SMART_NUM_SENSORS == 8, "SAMPLE_COLS has 8 sensors");

	return store_bind(
		s, st, store_p_i64(NULL, v->device_id), store_p_i64(NULL, v->ts_ms),
		store_p_i64(NULL, l->critical_warning), store_p_i64(NULL, l->temperature_k),
		store_p_i64(NULL, l->avail_spare), store_p_i64(NULL, l->spare_thresh),
		store_p_i64(NULL, l->percent_used), store_p_i64(NULL, l->endurance_grp_crit_warn),
		store_p_u128(NULL, l->data_units_read), store_p_u128(NULL, l->data_units_written),
		store_p_u128(NULL, l->host_read_commands),
		store_p_u128(NULL, l->host_write_commands),
		store_p_u128(NULL, l->controller_busy_time), store_p_u128(NULL, l->power_cycles),
		store_p_u128(NULL, l->power_on_hours), store_p_u128(NULL, l->unsafe_shutdowns),
		store_p_u128(NULL, l->media_errors), store_p_u128(NULL, l->num_err_log_entries),
		store_p_i64(NULL, l->warning_temp_time), store_p_i64(NULL, l->critical_temp_time),
		store_p_i64(NULL, l->temp_sensor_k[0]), store_p_i64(NULL, l->temp_sensor_k[1]),
		store_p_i64(NULL, l->temp_sensor_k[2]), store_p_i64(NULL, l->temp_sensor_k[3]),
		store_p_i64(NULL, l->temp_sensor_k[4]), store_p_i64(NULL, l->temp_sensor_k[5]),
		store_p_i64(NULL, l->temp_sensor_k[6]), store_p_i64(NULL, l->temp_sensor_k[7]),
		store_p_i64(NULL, l->thm_temp1_trans_count),
		store_p_i64(NULL, l->thm_temp2_trans_count),
		store_p_i64(NULL, l->thm_temp1_total_time),
		store_p_i64(NULL, l->thm_temp2_total_time));
}

static int read_sample(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct sample v = {0};
	struct smart_log *l = &v.smart;
	u128 *counters[] = {
		&l->data_units_read,	 &l->data_units_written,   &l->host_read_commands,
		&l->host_write_commands, &l->controller_busy_time, &l->power_cycles,
		&l->power_on_hours,	 &l->unsafe_shutdowns,	   &l->media_errors,
		&l->num_err_log_entries,
	};
	uint32_t *tail[] = {
		&l->thm_temp1_trans_count,
		&l->thm_temp2_trans_count,
		&l->thm_temp1_total_time,
		&l->thm_temp2_total_time,
	};
	uint64_t x;
	int i = 0, r;

	if (sqlite3_column_count(st) != SAMPLE_NCOLS)
		return store_failf(s, -EPROTO, "samples: unexpected column count");
	v.device_id = sqlite3_column_int64(st, i++);
	v.ts_ms = sqlite3_column_int64(st, i++);
	if ((r = store_column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->critical_warning = (uint8_t)x;
	if ((r = store_column_uint(s, st, i++, UINT16_MAX, &x)) < 0)
		return r;
	l->temperature_k = (uint16_t)x;
	if ((r = store_column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->avail_spare = (uint8_t)x;
	if ((r = store_column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->spare_thresh = (uint8_t)x;
	if ((r = store_column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->percent_used = (uint8_t)x;
	if ((r = store_column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->endurance_grp_crit_warn = (uint8_t)x;
	for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
		if ((r = store_column_u128(s, st, i++, counters[k])) < 0)
			return r;
	r = store_column_uint(s, st, i++, UINT32_MAX, &x);
	if (r < 0)
		return r;
	l->warning_temp_time = (uint32_t)x;
	r = store_column_uint(s, st, i++, UINT32_MAX, &x);
	if (r < 0)
		return r;
	l->critical_temp_time = (uint32_t)x;
	for (size_t k = 0; k < SMART_NUM_SENSORS; k++) {
		r = store_column_uint(s, st, i++, UINT16_MAX, &x);
		if (r < 0)
			return r;
		l->temp_sensor_k[k] = (uint16_t)x;
	}
	for (size_t k = 0; k < sizeof(tail) / sizeof(tail[0]); k++) {
		r = store_column_uint(s, st, i++, UINT32_MAX, &x);
		if (r < 0)
			return r;
		*tail[k] = (uint32_t)x;
	}
	*(struct sample *)ret = v;
	return 0;
}

int store_samples_insert(struct store *s, const struct sample *v, size_t n)
{
	return store_insert_rows(s, store_sql_sample_insert, v, n, bind_sample,
				 "inserting samples");
}

int store_samples_range(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
			size_t limit, struct sample **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r;

	r = store_stmt(s, store_sql_samples_range, &st);
	if (r < 0)
		return r;
	r = store_bind(s, st, store_p_i64(":device_id", device_id),
		       store_p_i64(":from_ms", from_ms), store_p_i64(":to_ms", to_ms),
		       store_p_u64(":limit", limit));
	if (r < 0)
		return r;
	return store_collect(s, st, sizeof(**ret), read_sample, (void **)ret, ret_n);
}

int store_sample_latest(struct store *s, int64_t device_id, struct sample *ret)
{
	sqlite3_stmt *st;
	int rc, r;

	r = store_stmt(s, store_sql_sample_latest, &st);
	if (r < 0)
		return r;
	r = store_bind(s, st, store_p_i64(":device_id", device_id));
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		r = read_sample(s, st, ret);
	else if (rc == SQLITE_DONE)
		r = store_failf(s, -ENOENT, "device %" PRId64 " has no samples", device_id);
	else
		r = store_fail(s, rc, "reading the latest sample");
	sqlite3_reset(st);
	return r;
}
