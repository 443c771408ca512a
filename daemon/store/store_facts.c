/* SPDX-License-Identifier: MIT */
/*
 * Firmware and PCIe link history in SQLite (firmware_history, link_history).
 * See store_facts.h.
 */
#include <inttypes.h>
#include <stdint.h>

#include <sqlite3.h>

#include "nvmond/store/store_facts.h"
#include "store_internal.h"

static const char sql_fw_insert[] =
	"INSERT INTO firmware_history (device_id, ts_ms, old_rev, new_rev) "
	"VALUES (:device_id, :ts_ms, NULLIF(:old_rev, ''), :new_rev)";
static const char sql_fw_list[] =
	"SELECT id, device_id, ts_ms, old_rev, new_rev FROM firmware_history "
	"WHERE device_id = :device_id ORDER BY ts_ms DESC, id DESC LIMIT :limit";
static const char sql_link_insert[] =
	"INSERT INTO link_history (device_id, ts_ms, cur_speed_dgts, cur_width, max_speed_dgts, "
	"max_width) VALUES (:device_id, :ts_ms, :cur_speed, :cur_width, :max_speed, :max_width)";
static const char sql_link_list[] =
	"SELECT id, device_id, ts_ms, cur_speed_dgts, cur_width, max_speed_dgts, max_width "
	"FROM link_history WHERE device_id = :device_id AND ts_ms <= :to_ms "
	"ORDER BY ts_ms DESC, id DESC LIMIT :limit";

static int read_fw(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_fw_row f = {0};
	int r;

	f.id = sqlite3_column_int64(st, 0);
	f.device_id = sqlite3_column_int64(st, 1);
	f.ts_ms = sqlite3_column_int64(st, 2);
	if (sqlite3_column_type(st, 3) != SQLITE_NULL &&
	    (r = store_column_text(s, st, 3, f.old_rev, sizeof(f.old_rev))) < 0)
		return r;
	if ((r = store_column_text(s, st, 4, f.new_rev, sizeof(f.new_rev))) < 0)
		return r;
	*(struct store_fw_row *)ret = f;
	return 0;
}

static int read_link(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_link_row l = {0};
	unsigned *const fields[] = {&l.link.cur_speed_dgts, &l.link.cur_width,
				    &l.link.max_speed_dgts, &l.link.max_width};
	uint64_t v;
	int r;

	l.id = sqlite3_column_int64(st, 0);
	l.device_id = sqlite3_column_int64(st, 1);
	l.ts_ms = sqlite3_column_int64(st, 2);
	for (int i = 0; i < 4; i++) {
		r = store_column_uint(s, st, 3 + i, 10000, &v);
		if (r < 0)
			return r;
		*fields[i] = (unsigned)v;
	}
	*(struct store_link_row *)ret = l;
	return 0;
}

int store_fw_insert(struct store *s, const struct store_fw_row *row)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_fw_insert, &st);

	if (r < 0)
		return r;
	r = store_bind(s, st, store_p_i64(":device_id", row->device_id),
		       store_p_i64(":ts_ms", row->ts_ms),
		       store_p_textn(":old_rev", row->old_rev, sizeof(row->old_rev)),
		       store_p_textn(":new_rev", row->new_rev, sizeof(row->new_rev)));
	if (r < 0)
		return r;
	return store_run(s, st, true);
}

/* sql_fw_list, bound: the newest @limit firmware rows of device @id. */
static int fw_list_stmt(struct store *s, int64_t id, size_t limit, sqlite3_stmt **ret)
{
	int r = store_stmt(s, sql_fw_list, ret);

	if (r == 0)
		r = store_bind(s, *ret, store_p_i64(":device_id", id),
			       store_p_u64(":limit", limit));
	return r;
}

int store_fw_list(struct store *s, int64_t id, size_t limit, struct store_fw_row **ret,
		  size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = fw_list_stmt(s, id, limit, &st);

	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_fw, (void **)ret, ret_n);
}

int store_fw_last(struct store *s, int64_t id, struct store_fw_row *ret)
{
	sqlite3_stmt *st;
	int r = fw_list_stmt(s, id, 1, &st);

	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_fw, ret);
}

int store_link_insert(struct store *s, const struct store_link_row *row)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_link_insert, &st);

	if (r < 0)
		return r;
	r = store_bind(s, st, store_p_i64(":device_id", row->device_id),
		       store_p_i64(":ts_ms", row->ts_ms),
		       store_p_i64(":cur_speed", row->link.cur_speed_dgts),
		       store_p_i64(":cur_width", row->link.cur_width),
		       store_p_i64(":max_speed", row->link.max_speed_dgts),
		       store_p_i64(":max_width", row->link.max_width));
	if (r < 0)
		return r;
	return store_run(s, st, true);
}

/* sql_link_list, bound: the newest @limit link rows of device @id up to @to_ms. */
static int link_list_stmt(struct store *s, int64_t id, int64_t to_ms, size_t limit,
			  sqlite3_stmt **ret)
{
	int r = store_stmt(s, sql_link_list, ret);

	if (r == 0)
		r = store_bind(s, *ret, store_p_i64(":device_id", id), store_p_i64(":to_ms", to_ms),
			       store_p_u64(":limit", limit));
	return r;
}

int store_link_list(struct store *s, int64_t id, size_t limit, struct store_link_row **ret,
		    size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = link_list_stmt(s, id, INT64_MAX, limit, &st);

	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_link, (void **)ret, ret_n);
}

int store_link_at(struct store *s, int64_t id, int64_t ts_ms, struct store_link_row *ret)
{
	sqlite3_stmt *st;
	int r = link_list_stmt(s, id, ts_ms, 1, &st);

	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_link, ret);
}
