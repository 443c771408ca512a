/* SPDX-License-Identifier: MIT */
/*
 * Device rows in SQLite: one per controller key, with its identity, name,
 * namespaces and when it was first and last seen. Named, parameter-bound
 * statements, prepared when the handle opens (store.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "store_internal.h"

#define DEVICE_COLS                                                                                \
	"id, key, model, serial, firmware, wctemp_k, cctemp_k, capacity_bytes, name, namespaces, " \
	"first_seen_ms, last_seen_ms, online, simulated"

const char store_sql_device_upsert[] =
	"INSERT INTO devices (key, model, serial, firmware, wctemp_k, cctemp_k, "
	"capacity_bytes, name, namespaces, first_seen_ms, last_seen_ms, online, simulated) "
	"VALUES (:key, :model, :serial, :firmware, :wctemp_k, :cctemp_k, :capacity_bytes, "
	":name, :namespaces, :first_seen_ms, :last_seen_ms, :online, :simulated) "
	"ON CONFLICT (key) DO UPDATE SET model = excluded.model, serial = excluded.serial, "
	"firmware = CASE WHEN excluded.firmware != '' THEN excluded.firmware ELSE firmware END, "
	/* 0 = not known (identity from sysfs only): keep what Identify said before */
	"wctemp_k = CASE WHEN excluded.wctemp_k != 0 THEN excluded.wctemp_k ELSE wctemp_k END, "
	"cctemp_k = CASE WHEN excluded.cctemp_k != 0 THEN excluded.cctemp_k ELSE cctemp_k END, "
	"capacity_bytes = CASE WHEN excluded.capacity_bytes != 0 THEN excluded.capacity_bytes "
	"ELSE capacity_bytes END, "
	"name = excluded.name, namespaces = excluded.namespaces, "
	"last_seen_ms = excluded.last_seen_ms, online = excluded.online, "
	"simulated = excluded.simulated "
	"RETURNING id";
const char store_sql_device_set_online[] =
	"UPDATE devices SET online = :online, "
	"last_seen_ms = CASE WHEN :online THEN :now_ms ELSE last_seen_ms END WHERE id = :id";
const char store_sql_devices_list[] = "SELECT " DEVICE_COLS " FROM devices ORDER BY id";
const char store_sql_device_get[] = "SELECT " DEVICE_COLS " FROM devices WHERE id = :id";

static int read_device(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct device_row d = {0};
	uint64_t v;
	int r;

	d.id = sqlite3_column_int64(st, 0);
	if ((r = store_column_text(s, st, 1, d.key, sizeof(d.key))) < 0 ||
	    (r = store_column_text(s, st, 2, d.model, sizeof(d.model))) < 0 ||
	    (r = store_column_text(s, st, 3, d.serial, sizeof(d.serial))) < 0 ||
	    (r = store_column_text(s, st, 4, d.firmware, sizeof(d.firmware))) < 0)
		return r;
	r = store_column_uint(s, st, 5, UINT16_MAX, &v);
	if (r < 0)
		return r;
	d.wctemp_k = (uint16_t)v;
	r = store_column_uint(s, st, 6, UINT16_MAX, &v);
	if (r < 0)
		return r;
	d.cctemp_k = (uint16_t)v;
	r = store_column_u128(s, st, 7, &d.capacity_bytes);
	if (r < 0)
		return r;
	if ((r = store_column_text(s, st, 8, d.name, sizeof(d.name))) < 0 ||
	    (r = store_column_text(s, st, 9, d.namespaces, sizeof(d.namespaces))) < 0)
		return r;
	d.first_seen_ms = sqlite3_column_int64(st, 10);
	d.last_seen_ms = sqlite3_column_int64(st, 11);
	d.online = sqlite3_column_int(st, 12) != 0;
	d.simulated = sqlite3_column_int(st, 13) != 0;
	*(struct device_row *)ret = d;
	return 0;
}

int store_device_upsert(struct store *s, const struct device_row *row, int64_t *ret_id)
{
	sqlite3_stmt *st;
	int64_t id;
	int rc, r;

	r = store_stmt(s, store_sql_device_upsert, &st);
	if (r < 0)
		return r;
	r = store_bind(s, st, store_p_textn(":key", row->key, sizeof(row->key)),
		       store_p_textn(":model", row->model, sizeof(row->model)),
		       store_p_textn(":serial", row->serial, sizeof(row->serial)),
		       store_p_textn(":firmware", row->firmware, sizeof(row->firmware)),
		       store_p_i64(":wctemp_k", row->wctemp_k),
		       store_p_i64(":cctemp_k", row->cctemp_k),
		       store_p_u128(":capacity_bytes", row->capacity_bytes),
		       store_p_textn(":name", row->name, sizeof(row->name)),
		       store_p_textn(":namespaces", row->namespaces[0] ? row->namespaces : "[]",
				     sizeof(row->namespaces)),
		       store_p_i64(":first_seen_ms", row->first_seen_ms),
		       store_p_i64(":last_seen_ms", row->last_seen_ms),
		       store_p_i64(":online", row->online != 0),
		       store_p_i64(":simulated", row->simulated != 0));
	if (r < 0)
		return r;

	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		r = store_fail(s, rc == SQLITE_DONE ? SQLITE_ERROR : rc, "storing a device");
		goto out;
	}
	id = sqlite3_column_int64(st, 0);
	rc = sqlite3_step(st); /* let the statement finish */
	if (rc != SQLITE_DONE) {
		r = store_fail(s, rc, "storing a device");
		goto out;
	}
	*ret_id = id;
out:
	sqlite3_reset(st);
	return r;
}

int store_device_set_online(struct store *s, int64_t id, int online, int64_t now_ms)
{
	sqlite3_stmt *st;
	int rc, r;

	r = store_stmt(s, store_sql_device_set_online, &st);
	if (r < 0)
		return r;
	r = store_bind(s, st, store_p_i64(":online", online != 0), store_p_i64(":now_ms", now_ms),
		       store_p_i64(":id", id));
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		r = store_fail(s, rc, "updating a device");
	else if (sqlite3_changes(store_db(s)) == 0)
		r = store_failf(s, -ENOENT, "no device with id %" PRId64, id);
	sqlite3_reset(st);
	return r;
}

int store_devices_list(struct store *s, struct device_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, store_sql_devices_list, &st);

	if (r < 0)
		return r;
	return store_collect(s, st, sizeof(**ret), read_device, (void **)ret, ret_n);
}

int store_device_get(struct store *s, int64_t id, struct device_row *ret)
{
	sqlite3_stmt *st;
	int rc, r;

	r = store_stmt(s, store_sql_device_get, &st);
	if (r < 0)
		return r;
	r = store_bind(s, st, store_p_i64(":id", id));
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		r = read_device(s, st, ret);
	else if (rc == SQLITE_DONE)
		r = store_failf(s, -ENOENT, "no device with id %" PRId64, id);
	else
		r = store_fail(s, rc, "reading a device");
	sqlite3_reset(st);
	return r;
}
