/* SPDX-License-Identifier: MIT */
/*
 * Error Information log entries and each drive's read position in SQLite
 * (migration 0006). Named, parameter-bound statements, prepared once per
 * handle (store_stmt()); 64-bit fields of the entry stored as 128-bit
 * counters are (INTEGER while they fit in int64, decimal TEXT beyond).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_errlog.h"
#include "store_internal.h"

/* The order bind_error() binds and read_error() reads. */
#define ERROR_COLS                                                                                 \
	"error_count, sqid, cid, status, sct, sc, dnr, more, lba, nsid, param_loc, "               \
	"cmd_specific, class, before_watch, seen_ms"

static const char sql_error_insert[] =
	"INSERT OR IGNORE INTO errors (device_id, " ERROR_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	"?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";
static const char sql_errlog_state_put[] =
	"INSERT INTO errlog_state (device_id, read_count, read_ms, lost) "
	"VALUES (:device_id, :read_count, :read_ms, :lost) ON CONFLICT (device_id) DO UPDATE SET "
	"read_count = excluded.read_count, read_ms = excluded.read_ms, lost = excluded.lost";
static const char sql_errlog_state_get[] =
	"SELECT read_count, read_ms, lost FROM errlog_state WHERE device_id = :device_id";
static const char sql_errors_range[] =
	"SELECT " ERROR_COLS " FROM errors WHERE device_id = :device_id AND seen_ms >= :from_ms "
	"AND seen_ms <= :to_ms ORDER BY seen_ms DESC, error_count DESC LIMIT :limit";
static const char sql_errors_count[] =
	"SELECT class, count(*) FROM errors WHERE device_id = :device_id AND seen_ms >= :from_ms "
	"AND seen_ms <= :to_ms GROUP BY class";
static const char sql_errors_last_alerting[] =
	"SELECT " ERROR_COLS " FROM errors WHERE device_id = :device_id "
	"AND class IN ('media', 'io') AND NOT before_watch "
	"ORDER BY seen_ms DESC, error_count DESC LIMIT 1";

struct error_rows {
	int64_t device_id;
	const struct errlog_row *v;
};

/* @rows is a struct error_rows; @i indexes its entries. */
static int bind_error(struct store *s, sqlite3_stmt *st, const void *rows, size_t i)
{
	const struct error_rows *a = rows;
	const struct errlog_row *r = &a->v[i];
	const struct errlog_entry *e = &r->e;

	return store_bind(s, st, store_p_i64(NULL, a->device_id),
			  store_p_u128(NULL, e->error_count), store_p_i64(NULL, e->sqid),
			  store_p_i64(NULL, e->cid), store_p_i64(NULL, e->status_raw),
			  store_p_i64(NULL, e->sct), store_p_i64(NULL, e->sc),
			  store_p_i64(NULL, e->dnr), store_p_i64(NULL, e->more),
			  store_p_u128(NULL, e->lba), store_p_i64(NULL, e->nsid),
			  store_p_i64(NULL, e->param_err_loc), store_p_u128(NULL, e->cmd_specific),
			  store_p_text(NULL, errclass_name(r->cls)),
			  store_p_i64(NULL, r->before_watch), store_p_i64(NULL, r->seen_ms));
}

struct errors_add {
	int64_t device_id;
	const struct errlog_row *v;
	size_t n;
	const struct errlog_state *st;
};

static int errors_add_txn(struct store *s, void *ctx)
{
	const struct errors_add *a = ctx;
	struct error_rows rows = {.device_id = a->device_id, .v = a->v};
	sqlite3_stmt *st;
	int r;

	/* Inside this transaction: the entries and the state go in together. */
	r = store_insert_rows(s, sql_error_insert, &rows, a->n, bind_error,
			      "inserting error log entries");
	if (r < 0)
		return r;
	r = store_stmt(s, sql_errlog_state_put, &st);
	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", a->device_id),
			       store_p_u128(":read_count", a->st->read_count),
			       store_p_i64(":read_ms", a->st->read_ms),
			       store_p_u64(":lost", a->st->lost));
	return r < 0 ? r : store_run(s, st, false);
}

int store_errors_add(struct store *s, int64_t device_id, const struct errlog_row *v, size_t n,
		     const struct errlog_state *st)
{
	struct errors_add a = {.device_id = device_id, .v = v, .n = n, .st = st};

	return store_transaction(s, "storing error log entries", errors_add_txn, &a);
}

int store_errlog_state_get(struct store *s, int64_t device_id, struct errlog_state *ret)
{
	sqlite3_stmt *st;
	u128 count;
	int r = store_stmt(s, sql_errlog_state_get, &st), rc;

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id));
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return -ENOENT;
	}
	if (rc != SQLITE_ROW) {
		r = store_fail(s, rc, "reading the error log state");
		sqlite3_reset(st);
		return r;
	}
	r = store_column_u128(s, st, 0, &count);
	if (r == 0)
		*ret = (struct errlog_state){
			.read_count = count > UINT64_MAX ? UINT64_MAX : (uint64_t)count,
			.read_ms = sqlite3_column_int64(st, 1),
			.lost = (uint64_t)sqlite3_column_int64(st, 2),
		};
	sqlite3_reset(st);
	return r;
}

static int read_error(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct errlog_row v = {0};
	struct errlog_entry *e = &v.e;
	int r, cls = errclass_from_name((const char *)sqlite3_column_text(st, 12));

	if (cls < 0)
		return store_failf(s, -EIO, "column class: unknown class");
	r = store_column_u64(s, st, 0, &e->error_count);
	if (r == 0)
		r = store_column_u64(s, st, 8, &e->lba);
	if (r == 0)
		r = store_column_u64(s, st, 11, &e->cmd_specific);
	if (r < 0)
		return r;
	e->sqid = (uint16_t)sqlite3_column_int(st, 1);
	e->cid = (uint16_t)sqlite3_column_int(st, 2);
	e->status_raw = (uint16_t)sqlite3_column_int(st, 3);
	e->phase = e->status_raw & 1;
	e->crd = (e->status_raw >> 12) & 0x3;
	e->sct = (uint8_t)sqlite3_column_int(st, 4);
	e->sc = (uint8_t)sqlite3_column_int(st, 5);
	e->dnr = sqlite3_column_int(st, 6) != 0;
	e->more = sqlite3_column_int(st, 7) != 0;
	e->nsid = (uint32_t)sqlite3_column_int64(st, 9);
	e->param_err_loc = (uint16_t)sqlite3_column_int(st, 10);
	e->pel_byte = (uint8_t)e->param_err_loc;
	e->pel_bit = (e->param_err_loc >> 8) & 0x7;
	v.cls = cls;
	v.before_watch = sqlite3_column_int(st, 13) != 0;
	v.seen_ms = sqlite3_column_int64(st, 14);
	*(struct errlog_row *)ret = v;
	return 0;
}

int store_errors_range(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
		       size_t limit, struct errlog_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_errors_range, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":from_ms", from_ms), store_p_i64(":to_ms", to_ms),
			       store_p_u64(":limit", limit));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_error, (void **)ret, ret_n);
}

int store_errors_count(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
		       uint64_t ret[_ERRCLASS_MAX])
{
	uint64_t n[_ERRCLASS_MAX] = {0};
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_errors_count, &st), rc;

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":from_ms", from_ms), store_p_i64(":to_ms", to_ms));
	if (r < 0)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int cls = errclass_from_name((const char *)sqlite3_column_text(st, 0));
		if (cls >= 0)
			n[cls] = (uint64_t)sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_DONE)
		r = store_fail(s, rc, "counting error log entries");
	sqlite3_reset(st);
	if (r == 0)
		memcpy(ret, n, sizeof(n));
	return r;
}

int store_errors_last_alerting(struct store *s, int64_t device_id, struct errlog_row *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_errors_last_alerting, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id));
	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_error, ret);
}
